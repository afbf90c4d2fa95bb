//! KIF records (the Japanese GUI format: `手合割`, numbered moves with origin squares, `同　`,
//! `成`/`不成`, `打`, times, and the closing `まで77手で先手の勝ち` line), through rsshogi,
//! with a stricter reading: an unknown `手合割`, a numbered line that is neither a move nor a
//! game end, or a move number out of sequence is an error naming the line.
//!
//! What real files hold besides, and how it is read ([`prepare`] rewrites it, keeping every
//! line in its place so errors still name the file's own line numbers):
//! - `#` comment lines (e.g. `#KIF version=2.0 encoding=UTF-8`) and `&` bookmark lines:
//!   ignored.
//! - `変化：N手` blocks (variations, nested or not, which GUIs write after the main line and
//!   its end): skipped, from the first `変化` line on; only the main line is read.
//! - Board diagrams (a file that starts from one, or a bare diagram without moves): see
//!   [`bod`], which checks every diagram line and takes ASCII file numbers and `手数＝` lines.
//! - `上手番`/`下手番` under a board diagram: gote (上手, the handicap giver) / sente (下手)
//!   to move; `上手：`/`下手：` names and `上手の持駒`/`下手の持駒` hands likewise.
//! - `**読み筋=▲７六歩(77) △３四歩(33) ▲４五角打` (our engine pv, written after
//!   `**評価値=`): the pv of the move above it, from the position after that move.
//!
//! Handicap games are written with `上手：`/`下手：` name lines (the summary line already says
//! `上手の勝ち`/`下手の勝ち`).

use super::bod;
use super::convert::{self, LineMap};
use super::kif_moves::PV_PREFIX;
use super::model::{Format, GameRecord, RecordError};
use crate::notation::UsiMove;
use crate::position::{Handicap, Position};
use crate::types::{Move, PieceKind, Square};
use rsshogi::records::Record;
use rsshogi::records::formats::kif::{self as rs_kif, KifError};

/// The words a numbered KIF line may hold instead of a move.
const END_WORDS: [&str; 15] = [
    "投了",
    "中断",
    "千日手",
    "詰み",
    "詰",
    "持将棋",
    "切れ負け",
    "反則勝ち",
    "反則負け",
    "入玉勝ち",
    "入玉宣言",
    "不戦勝",
    "不戦敗",
    "最大手数",
    "不詰",
];

pub(super) fn write(rec: &GameRecord) -> Result<String, RecordError> {
    let text = super::kif_write::write(rec)?;
    let text = match rec.handicap() {
        Some(h) if h != Handicap::Even => handicap_labels(&text),
        _ => text,
    };
    // The writer as a first `#` comment line, as Kifu for Windows names itself.
    Ok(match convert::written_by_line(rec) {
        Some(by) => format!("# {by}\n{text}"),
        None => text,
    })
}

/// The header's `先手：`/`後手：` name lines as `下手：`/`上手：`, as GUIs write handicap games.
fn handicap_labels(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut header = true;
    for line in text.split_inclusive('\n') {
        if line.starts_with("手数") {
            header = false;
        }
        if header && let Some(name) = line.strip_prefix("先手：") {
            out.push_str("下手：");
            out.push_str(name);
        } else if header && let Some(name) = line.strip_prefix("後手：") {
            out.push_str("上手：");
            out.push_str(name);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A KIF text as rsshogi should read it, and what we read from it ourselves.
struct Prepared {
    /// The text with ignored lines blanked (same line numbers as the input's).
    text: String,
    /// Each `**読み筋=` line: the number of main-line moves above it, and its moves.
    pvs: Vec<(usize, String)>,
}

/// Blanks what rsshogi would stumble over or mistake for the main line (see the module doc)
/// and takes out our pv lines. Lines are split as rsshogi splits them (CR LF, CR or LF).
fn prepare(text: &str) -> Prepared {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut out = Vec::new();
    let mut pvs = Vec::new();
    let mut moves = 0;
    let mut variations = false;
    for raw in text.split('\n') {
        let line = raw.trim();
        if line.starts_with("変化") {
            variations = true;
        }
        let keep: &str = if variations || line.starts_with('#') || line.starts_with('&') {
            ""
        } else if line == "上手番" {
            "後手番"
        } else if line == "下手番" {
            "先手番"
        } else if let Some(normal) = bod::normalize_line(line) {
            normal
        } else if let Some(pv) = line.strip_prefix(PV_PREFIX) {
            pvs.push((moves, pv.to_string()));
            ""
        } else {
            if numbered(line).is_some_and(|(_, body)| is_move_text(body)) {
                moves += 1;
            }
            raw
        };
        out.push(keep);
    }
    Prepared {
        text: out.join("\n"),
        pvs,
    }
}

pub(super) fn read(text: &str) -> Result<GameRecord, RecordError> {
    let prepared = prepare(text);
    let map = line_map(&prepared.text)?;
    bod::check(&map)?;
    let mut rec = match rs_kif::parse_kif_str(&prepared.text) {
        Ok(source) => convert::from_rs(&source, &map)?,
        Err(error) => return Err(explain(&error, &map)),
    };
    attach_pvs(&mut rec, prepared.pvs);
    Ok(rec)
}

/// Gives each move with an engine score the pv written under it (as far as its moves are legal,
/// as for CSA's `'**` lines); a pv under a move without a score stays a comment.
fn attach_pvs(rec: &mut GameRecord, pvs: Vec<(usize, String)>) {
    if pvs.is_empty() {
        return;
    }
    let mut positions = vec![rec.start().clone()];
    for m in rec.moves() {
        let mut next = positions[positions.len() - 1].clone();
        next.play(m.mv);
        positions.push(next);
    }
    for (after_moves, text) in pvs {
        let Some(index) = after_moves.checked_sub(1) else {
            continue;
        };
        let pv = parse_pv(&positions[after_moves.min(positions.len() - 1)], &text);
        let Some(note) = rec.annotate(index) else {
            continue;
        };
        if let Some(engine) = note.engine.as_mut() {
            engine.pv = pv;
        } else {
            let line = format!("{}{text}", &PV_PREFIX[2..]);
            match note.comment {
                Some(c) => {
                    c.push('\n');
                    c.push_str(&line);
                }
                None => *note.comment = Some(line),
            }
        }
    }
}

/// KIF moves separated by ▲/△ (or ☗/☖) marks, or by ASCII spaces, from `pos`, as far as they
/// are legal.
fn parse_pv(pos: &Position, text: &str) -> Vec<Move> {
    let marks = ['▲', '△', '☗', '☖'];
    let words: Vec<&str> = if text.contains(marks) {
        text.split(marks).collect()
    } else {
        text.split([' ', '\t']).collect()
    };
    let mut pos = pos.clone();
    let mut out = Vec::new();
    for word in words.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        let Some(usi) = usi_of(word, &pos) else { break };
        let Ok(mv) = pos.parse_usi_move(&usi.to_string()) else {
            break;
        };
        pos.play(mv);
        out.push(mv);
    }
    out
}

/// A numbered line: its number and the text after it.
fn numbered(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    if digits == 0 {
        return None;
    }
    let number = trimmed[..digits].parse().ok()?;
    Some((number, trimmed[digits..].trim_start()))
}

fn is_move_text(body: &str) -> bool {
    body.starts_with(|c: char| ('１'..='９').contains(&c) || c == '同')
}

fn line_map(text: &str) -> Result<LineMap<'_>, RecordError> {
    let mut map = LineMap::new(Format::Kif, text);
    let mut expected = 1;
    for (i, raw) in map.lines.clone().iter().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_start_matches('\u{feff}').trim();
        if line.starts_with("変化") {
            break; // only the main line is read
        }
        if let Some(value) = line
            .strip_prefix("手合割：")
            .or_else(|| line.strip_prefix("手合割:"))
        {
            map.start_line = line_no;
            let value = value.trim();
            if value != "その他" && value.parse::<Handicap>().is_err() {
                return Err(map.syntax(line_no, format!("unknown handicap `{value}`")));
            }
            continue;
        }
        if map.start_line == 0 && (line.starts_with("後手の持駒") || line.starts_with("上手の持駒"))
        {
            map.start_line = line_no;
        }
        if line.starts_with("まで") && map.end_line.is_none() {
            map.end_line = Some(line_no);
            continue;
        }
        let Some((number, body)) = numbered(line) else {
            continue;
        };
        if number != expected {
            return Err(map.syntax(
                line_no,
                format!("move number {number} where {expected} was expected"),
            ));
        }
        if is_move_text(body) {
            map.move_lines.push(line_no);
            expected += 1;
        } else if END_WORDS.iter().any(|w| body.starts_with(w)) {
            map.end_line = Some(line_no);
        } else {
            return Err(map.syntax(
                line_no,
                "neither a move (e.g. ７六歩(77)) nor a game end (e.g. 投了)",
            ));
        }
    }
    Ok(map)
}

fn explain(error: &KifError, map: &LineMap<'_>) -> RecordError {
    match error {
        KifError::Sfen(e) => map.syntax(map.start_line.max(1), format!("start position: {e}")),
        KifError::InvalidLine(t) => map.syntax(map.line_of(t), "not a KIF line"),
        KifError::InvalidMove(t) => map.syntax(map.line_of(t), "not a KIF move (e.g. ７六歩(77))"),
        KifError::IllegalMove { index } => illegal_move(*index, map),
        KifError::MissingResult => map.syntax(map.lines.len(), "missing game result"),
    }
}

/// Replays the moves before the illegal one to say which rule it breaks.
fn illegal_move(index: usize, map: &LineMap<'_>) -> RecordError {
    convert::explain_illegal_move(index, map, read_with_map, |text, pos| {
        usi_of(numbered(text.trim())?.1, pos)
    })
}

/// `text` as a record with its line map, if it reads.
fn read_with_map(text: &str) -> Option<(Record, LineMap<'_>)> {
    Some((rs_kif::parse_kif_str(text).ok()?, line_map(text).ok()?))
}

/// What a KIF move (`７六歩(77)`, `同　歩(34)`, `２二角成(88)`, `４五角打`) means in USI terms.
fn usi_of(body: &str, pos: &Position) -> Option<UsiMove> {
    let chars: Vec<char> = body.chars().collect();
    let (to, rest) = if chars.first() == Some(&'同') {
        let to = pos.last_move()?.to();
        let skip = if chars
            .get(1)
            .is_some_and(|c| c.is_whitespace() || *c == '　')
        {
            2
        } else {
            1
        };
        (to, &chars[skip..])
    } else {
        let file = ('１'..='９').position(|c| Some(&c) == chars.first())?;
        let rank = "一二三四五六七八九"
            .chars()
            .position(|c| Some(&c) == chars.get(1))?;
        (
            Square::new(u8::try_from(file + 1).ok()?, u8::try_from(rank + 1).ok()?)?,
            &chars[2..],
        )
    };
    let rest: String = rest.iter().collect();
    let (kind, rest) = kif_kind(&rest)?;
    if rest.starts_with('打') {
        return Some(UsiMove::Drop { kind, to });
    }
    let promote = rest.starts_with('成');
    let open = rest.find('(')?;
    let digits: Vec<u8> = rest[open + 1..]
        .bytes()
        .take(2)
        .map(|b| b.wrapping_sub(b'0'))
        .collect();
    let from = Square::new(*digits.first()?, *digits.get(1)?)?;
    Some(UsiMove::Normal { from, to, promote })
}

fn kif_kind(text: &str) -> Option<(PieceKind, &str)> {
    const NAMES: [(&str, PieceKind); 20] = [
        ("成香", PieceKind::ProLance),
        ("成桂", PieceKind::ProKnight),
        ("成銀", PieceKind::ProSilver),
        ("歩", PieceKind::Pawn),
        ("香", PieceKind::Lance),
        ("桂", PieceKind::Knight),
        ("銀", PieceKind::Silver),
        ("金", PieceKind::Gold),
        ("角", PieceKind::Bishop),
        ("飛", PieceKind::Rook),
        ("玉", PieceKind::King),
        ("王", PieceKind::King),
        ("と", PieceKind::ProPawn),
        ("杏", PieceKind::ProLance),
        ("圭", PieceKind::ProKnight),
        ("全", PieceKind::ProSilver),
        ("馬", PieceKind::Horse),
        ("龍", PieceKind::Dragon),
        ("竜", PieceKind::Dragon),
        ("仝", PieceKind::ProSilver),
    ];
    NAMES
        .iter()
        .find_map(|(name, kind)| text.strip_prefix(name).map(|rest| (*kind, rest)))
}
