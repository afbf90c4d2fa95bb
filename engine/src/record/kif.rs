//! KIF records (the Japanese GUI format: `手合割`, numbered moves with origin squares, `同　`,
//! `成`/`不成`, `打`, times, and the closing `まで77手で先手の勝ち` line), through rsshogi,
//! with a stricter reading: an unknown `手合割`, a numbered line that is neither a move nor a
//! game end, or a move number out of sequence is an error naming the line.

use super::convert::{self, LineMap};
use super::{Format, GameRecord, RecordError};
use crate::notation::UsiMove;
use crate::position::{Handicap, Position};
use crate::types::{PieceKind, Square};
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
    let out = convert::to_rs(rec, Format::Kif)?;
    rs_kif::export_kif(&out).map_err(|e| RecordError::Unwritable {
        format: Format::Kif,
        problem: e.to_string(),
    })
}

pub(super) fn read(text: &str) -> Result<GameRecord, RecordError> {
    let map = line_map(text)?;
    match rs_kif::parse_kif_str(text) {
        Ok(source) => convert::from_rs(&source, &map),
        Err(error) => Err(explain(&error, &map)),
    }
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
