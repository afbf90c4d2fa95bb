//! Between our `GameRecord` and rsshogi's `Record`, shared by the CSA and KIF sides: moves are
//! replayed with our rules, scores change point of view, and game ends map both ways.

use super::model::{
    EndReason, EngineComment, Format, GameEnd, GameRecord, RecordError, RecordedMove,
};
use crate::notation::UsiMove;
use crate::position::{MoveError, Position, Repetition};
use crate::types::{ByColor, Color, Move, Score};
use rsshogi::records::{
    EngineExtraValue, EngineInfo, MoveEntry, Record, RecordAnnotation, RecordMetadata, SpecialMove,
    SpecialMoveEntry, TimeControl,
};
use rsshogi::types::{Eval, GameResult};
use std::time::Duration;

/// rsshogi keeps a CSA `'**` line's expected continuation under this key.
const CSA_PV_KEY: &str = "csa_pv";
/// An end reason the marker alone cannot carry: in CSA a terminal comment `'*reason: <name>`,
/// in KIF (whose writer keeps no terminal comment) a header line `終局理由：<name>`.
const REASON_TAG: &str = "reason: ";
const KIF_REASON_HEADER: &str = "終局理由";
/// Scores at or beyond this (in absolute value) are mates: ±(32000 − plies).
const MATE_VALUE: i32 = 32_000;
const MATE_THRESHOLD: i32 = 31_000;

/// Where things are in the source text, for error messages.
pub(super) struct LineMap<'a> {
    pub format: Format,
    pub lines: Vec<&'a str>,
    /// The 1-based line of each main-line move, in order.
    pub move_lines: Vec<usize>,
    /// The 1-based line where the start position is described (0 when implicit).
    pub start_line: usize,
    /// The 1-based line of the game end, if any.
    pub end_line: Option<usize>,
}

impl<'a> LineMap<'a> {
    pub fn new(format: Format, text: &'a str) -> Self {
        Self {
            format,
            lines: text.lines().collect(),
            move_lines: Vec::new(),
            start_line: 0,
            end_line: None,
        }
    }

    /// The first line whose trimmed text is `text` (or contains it), else line 1.
    pub fn line_of(&self, text: &str) -> usize {
        let wanted = text.trim();
        let position = self
            .lines
            .iter()
            .position(|l| l.trim() == wanted)
            .or_else(|| {
                (!wanted.is_empty())
                    .then(|| self.lines.iter().position(|l| l.contains(wanted)))
                    .flatten()
            });
        position.map_or(1, |i| i + 1)
    }

    pub fn syntax(&self, line: usize, problem: impl Into<String>) -> RecordError {
        let text = self
            .lines
            .get(line.wrapping_sub(1))
            .map_or("", |l| l.trim())
            .to_string();
        RecordError::Syntax {
            format: self.format,
            line,
            text,
            problem: problem.into(),
        }
    }

    /// Main-line move `number` (1-based), on `line`, is not legal where it is played.
    pub fn illegal_move(&self, line: usize, number: usize, error: MoveError) -> RecordError {
        RecordError::IllegalMove {
            format: self.format,
            line,
            number,
            error,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// writing

/// Builds the rsshogi record to export in `format`.
pub(super) fn to_rs(rec: &GameRecord, format: Format) -> Result<Record, RecordError> {
    let unwritable = |problem: String| RecordError::Unwritable { format, problem };
    let (mut out, end) = head(rec, format)?;
    // The record's moves are legal (its invariant): the walk plays them unchecked on rsshogi's
    // position. Only a KIF comment (its pv in KIF notation) reads our `Position` after a move,
    // so that one is walked for KIF alone (the tests' reference for `kif_write`).
    let mut raw = rec.start().raw().clone();
    let mut pos = (format == Format::Kif).then(|| rec.start().clone());
    let mut parent = out.root_id();
    for m in rec.moves() {
        let mover = Color::from_rs(raw.turn());
        raw.apply_move32(raw.move32_from_move(m.mv.to_rs()));
        let comment = match &mut pos {
            Some(pos) => {
                pos.play(m.mv);
                kif_comment(m, pos, format)
            }
            None => m.comment.clone(),
        };
        let mut note = RecordAnnotation::new()
            .with_elapsed_ms(elapsed_ms(m))
            .with_comment(comment);
        if let Some(engine) = &m.engine {
            note = note.with_engine_info(Some(engine_info(engine, mover, &raw, format)));
        }
        parent = out
            .append_move_with_annotation(parent, MoveEntry::new(m.mv.to_rs()), note)
            .map_err(|e| unwritable(e.to_string()))?;
    }
    if let Some((entry, note)) = end {
        out.append_special_with_annotation(parent, entry, note)
            .map_err(|e| unwritable(e.to_string()))?;
    }
    Ok(out)
}

/// The rsshogi record of `rec` without its moves: the start and the header (names, event, date,
/// clocks, and in KIF the end reason its end marker cannot tell); and the end, as the terminal
/// entry and its annotation to append after the moves.
pub(super) fn head(
    rec: &GameRecord,
    format: Format,
) -> Result<(Record, Option<(SpecialMoveEntry, RecordAnnotation)>), RecordError> {
    let unwritable = |problem: String| RecordError::Unwritable { format, problem };
    let mut out = Record::new(rec.start().to_sfen()).map_err(|e| unwritable(e.to_string()))?;
    let mut meta = RecordMetadata::builder();
    meta.black_player(rec.sente.clone())
        .white_player(rec.gote.clone())
        .event(rec.event.clone())
        .start_date(rec.start_time.clone());
    match rec.clocks.map(|c| c.and_then(whole_seconds)) {
        ByColor {
            sente: Some(sente),
            gote: Some(gote),
        } if sente == gote => {
            meta.time_control(Some(sente));
        }
        ByColor { sente, gote } => {
            meta.black_time_control(sente).white_time_control(gote);
        }
    }
    let mut end = None;
    if let Some(game_end) = rec.end {
        let (entry, tag) = terminal(game_end, rec.position().side_to_move()).map_err(unwritable)?;
        let mut note = RecordAnnotation::new();
        if let Some(reason) = tag {
            match format {
                Format::Csa => note = note.with_comment(Some(format!("{REASON_TAG}{reason}"))),
                Format::Kif => {
                    meta.add_attribute(KIF_REASON_HEADER.to_string(), reason.name().to_string());
                }
            }
        }
        end = Some((entry, note));
    }
    out.set_metadata(meta.build());
    Ok((out, end))
}

/// A move's thinking time as the formats' milliseconds.
pub(super) fn elapsed_ms(m: &RecordedMove) -> Option<u32> {
    m.time
        .map(|t| u32::try_from(t.as_millis()).unwrap_or(u32::MAX))
}

/// The record's writer as one comment line's text (a line break in it made a space).
pub(super) fn written_by_line(rec: &GameRecord) -> Option<String> {
    let by = rec.written_by.as_deref()?;
    Some(by.replace(['\r', '\n'], " "))
}

/// A clock in the formats' whole seconds, when it is one.
fn whole_seconds(clock: crate::clock::TimeControl) -> Option<TimeControl> {
    let secs = |d: Duration| {
        (d.subsec_nanos() == 0)
            .then(|| u32::try_from(d.as_secs()).ok())
            .flatten()
    };
    Some(TimeControl::new(
        secs(clock.main)?,
        secs(clock.byoyomi)?,
        secs(clock.increment)?,
    ))
}

/// A clock the formats wrote.
fn clock_of(tc: &TimeControl) -> crate::clock::TimeControl {
    let secs = |s: u32| Duration::from_secs(u64::from(s));
    crate::clock::TimeControl {
        main: secs(tc.base_seconds()),
        byoyomi: secs(tc.byoyomi_seconds()),
        increment: secs(tc.increment_seconds()),
    }
}

/// The move's comment; in KIF with the engine's pv as a first `*読み筋=` line (KIF's score line
/// has no room for it).
pub(super) fn kif_comment(m: &RecordedMove, after: &Position, format: Format) -> Option<String> {
    let pv = m
        .engine
        .as_ref()
        .filter(|_| format == Format::Kif)
        .and_then(|engine| super::kif_moves::pv_comment(after, &engine.pv));
    match (pv, &m.comment) {
        (Some(pv), Some(comment)) => Some(format!("{pv}\n{comment}")),
        (Some(pv), None) => Some(pv),
        (None, comment) => comment.clone(),
    }
}

/// The engine comment as rsshogi's engine info. CSA's `'**` number is written as stored, so it
/// gets sente's view here; KIF's exporter turns the mover's view into sente's itself.
fn engine_info(
    engine: &EngineComment,
    mover: Color,
    after: &rsshogi::board::Position,
    format: Format,
) -> EngineInfo {
    let value = score_value(engine.score);
    let stored = match format {
        Format::Csa if mover == Color::Gote => -value,
        _ => value,
    };
    let mut info = EngineInfo::new().with_eval(Some(Eval::from_i32(stored)));
    if format == Format::Csa && !engine.pv.is_empty() {
        info = info.with_extra(
            CSA_PV_KEY.to_string(),
            EngineExtraValue::String(raw_csa_moves(after, &engine.pv)),
        );
    }
    info
}

/// The pv in CSA move text (`-3334FU +2726FU`), as far as it is legal from `pos`.
pub(super) fn csa_moves(pos: &Position, pv: &[Move]) -> String {
    raw_csa_moves(pos.raw(), pv)
}

/// As [`csa_moves`], from rsshogi's position.
fn raw_csa_moves(pos: &rsshogi::board::Position, pv: &[Move]) -> String {
    if pv.is_empty() {
        return String::new();
    }
    let mut raw = pos.clone();
    let mut words = Vec::new();
    for mv in pv {
        let m32 = raw.move32_from_move(mv.to_rs());
        if !raw.is_legal_move32(m32) {
            break;
        }
        let Some(text) = m32.to_csa() else { break };
        words.push(text);
        raw.apply_move32(m32);
    }
    words.join(" ")
}

pub(super) fn score_value(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-(MATE_THRESHOLD - 1), MATE_THRESHOLD - 1),
        Score::Mate(n) => {
            let distance = i32::try_from(n.unsigned_abs().min(999)).unwrap_or(999);
            if n > 0 {
                MATE_VALUE - distance
            } else {
                -(MATE_VALUE - distance)
            }
        }
    }
}

fn value_score(value: i32) -> Score {
    if value >= MATE_THRESHOLD {
        Score::Mate(MATE_VALUE - value.min(MATE_VALUE))
    } else if value <= -MATE_THRESHOLD {
        Score::Mate(-(MATE_VALUE - (-value).min(MATE_VALUE)))
    } else {
        Score::Cp(value)
    }
}

/// The rsshogi terminal for `end`, with the CSA marker as its raw text, and the reason tag to
/// write when marker and position cannot tell the reason on their own.
fn terminal(end: GameEnd, to_move: Color) -> Result<(SpecialMoveEntry, Option<EndReason>), String> {
    use EndReason as R;
    let opponent = Some(to_move.opposite());
    let natural = match end.reason {
        R::Resign => Some((SpecialMove::Resign, "%TORYO", opponent)),
        R::Checkmate => Some((SpecialMove::Mate, "%TORYO", opponent)),
        R::Repetition => Some((SpecialMove::RepetitionDraw, "%SENNICHITE", None)),
        R::Impasse => Some((SpecialMove::WinByDeclaration, "%KACHI", Some(to_move))),
        R::MaxPlies => Some((SpecialMove::MaxMoves, "%JISHOGI", None)),
        R::IllegalMove => Some((SpecialMove::LoseByIllegalMove, "%ILLEGAL_MOVE", opponent)),
        R::Timeout => Some((SpecialMove::Timeout, "%TIME_UP", opponent)),
        R::Abort => Some((SpecialMove::Interrupt, "%CHUDAN", None)),
        R::PerpetualCheck | R::Crash => None,
    };
    if let Some((kind, marker, winner)) = natural
        && winner == end.winner
    {
        return Ok((entry(kind, marker, winner), None));
    }
    // The marker that names the loser explicitly (its foul), plus the reason as a tag.
    let Some(winner) = end.winner else {
        return Err(format!(
            "a game that ended by {} needs a winner",
            end.reason
        ));
    };
    let marker = if winner == Color::Gote {
        "%+ILLEGAL_ACTION"
    } else {
        "%-ILLEGAL_ACTION"
    };
    let kind = if winner == to_move {
        SpecialMove::WinByIllegalMove
    } else {
        SpecialMove::LoseByIllegalMove
    };
    Ok((entry(kind, marker, Some(winner)), Some(end.reason)))
}

fn entry(kind: SpecialMove, marker: &str, winner: Option<Color>) -> SpecialMoveEntry {
    let result = match (&kind, winner) {
        (SpecialMove::RepetitionDraw, _) => GameResult::DrawByRepetition,
        (SpecialMove::MaxMoves, _) => GameResult::DrawByMaxPlies,
        (SpecialMove::WinByDeclaration, Some(w)) => {
            GameResult::win_by_declaration_from_color(w.to_rs())
        }
        (SpecialMove::Timeout, Some(Color::Sente)) => GameResult::BlackWinByTimeout,
        (SpecialMove::Timeout, Some(Color::Gote)) => GameResult::WhiteWinByTimeout,
        (SpecialMove::WinByIllegalMove | SpecialMove::LoseByIllegalMove, Some(Color::Sente)) => {
            GameResult::BlackWinByIllegalMove
        }
        (SpecialMove::WinByIllegalMove | SpecialMove::LoseByIllegalMove, Some(Color::Gote)) => {
            GameResult::WhiteWinByIllegalMove
        }
        (_, Some(w)) => GameResult::win_from_color(w.to_rs()),
        (_, None) => GameResult::Paused,
    };
    SpecialMoveEntry::new(kind, result).with_raw(Some(marker.to_string()))
}

// ---------------------------------------------------------------------------------------------
// reading

/// Replays an rsshogi record with our rules.
pub(super) fn from_rs(source: &Record, map: &LineMap<'_>) -> Result<GameRecord, RecordError> {
    let format = map.format;
    let start = Position::from_sfen(source.init_position_sfen()).map_err(|error| {
        RecordError::StartPosition {
            format,
            line: map.start_line,
            error,
        }
    })?;
    let mut rec = GameRecord::new(&start);
    rec.sente = source.metadata().black_player().map(str::to_string);
    rec.gote = source.metadata().white_player().map(str::to_string);
    rec.event = source.metadata().event().map(str::to_string);
    rec.start_time = source.metadata().start_date().map(str::to_string);
    let meta = source.metadata();
    rec.clocks = match meta.time_control() {
        Some(both) => ByColor::new_with(|_| Some(clock_of(both))),
        None => ByColor {
            sente: meta.black_time_control().map(clock_of),
            gote: meta.white_time_control().map(clock_of),
        },
    };

    for (i, id) in source.main_line_ids().into_iter().enumerate() {
        let node = source.node(id);
        let Some(entry) = node.mv() else { continue };
        let line = map.move_lines.get(i).copied().unwrap_or(0);
        let mover = rec.position().side_to_move();
        let mv = Move::from_rs(entry.mv());
        let text = mv.to_usi();
        let mv = rec
            .position()
            .parse_usi_move(&text)
            .map_err(|error| map.illegal_move(line, i + 1, error))?;
        let mut recorded = RecordedMove::new(mv);
        recorded.time = node
            .time_ms()
            .map(|ms| Duration::from_millis(u64::from(ms)));
        recorded.comment = node.comment().map(str::to_string);
        let mut after = rec.position().clone();
        after.play(mv);
        recorded.engine = node
            .annotation()
            .engine_info()
            .and_then(|info| read_engine(info, mover, &after, format));
        rec.push(recorded)
            .map_err(|error| map.illegal_move(line, i + 1, error))?;
    }

    if let Some(id) = source.main_terminal_node() {
        let node = source.node(id);
        let Some(special) = node.special() else {
            return Ok(rec);
        };
        let line = map
            .end_line
            .unwrap_or_else(|| map.line_of(special.raw().unwrap_or("")));
        let tag = match format {
            Format::Csa => node
                .comment()
                .and_then(|c| c.lines().find_map(|l| l.trim().strip_prefix(REASON_TAG))),
            Format::Kif => source
                .metadata()
                .custom()
                .get(KIF_REASON_HEADER)
                .map(String::as_str),
        };
        rec.end = Some(read_end(special, tag, rec.position()).ok_or_else(|| {
            map.syntax(
                line,
                "not a game end this program knows (e.g. %TORYO, 投了, まで77手で先手の勝ち)",
            )
        })?);
    }
    Ok(rec)
}

/// Says which rule main-line move `index` (0-based) breaks, by replaying the moves before it:
/// the text up to its line is a valid record of them. `read` parses such text into a record
/// and its line map; `offending_move` reads the offending line as a USI move in the position
/// it is played from. If either fails, the error says only that the move is not legal there.
pub(super) fn explain_illegal_move(
    index: usize,
    map: &LineMap<'_>,
    read: impl for<'t> FnOnce(&'t str) -> Option<(Record, LineMap<'t>)>,
    offending_move: impl FnOnce(&str, &Position) -> Option<UsiMove>,
) -> RecordError {
    let line = map.move_lines.get(index).copied().unwrap_or(1);
    let number = index + 1;
    let fallback = || map.syntax(line, format!("move {number} is not legal here"));
    let before: String = map.lines[..line - 1]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    let Some((source, before_map)) = read(&before) else {
        return fallback();
    };
    // A bad start position is the more basic problem.
    let prefix = match from_rs(&source, &before_map) {
        Ok(prefix) => prefix,
        Err(error) => return error,
    };
    let pos = prefix.position();
    let Some(usi) = offending_move(map.lines[line - 1], pos) else {
        return fallback();
    };
    match pos.parse_usi_move(&usi.to_string()) {
        Err(error) => map.illegal_move(line, number, error),
        Ok(_) => fallback(),
    }
}

fn read_engine(
    info: &EngineInfo,
    mover: Color,
    after: &Position,
    format: Format,
) -> Option<EngineComment> {
    let stored = info.eval()?.to_i32();
    let value = match format {
        Format::Csa if mover == Color::Gote => -stored,
        _ => stored,
    };
    let pv = match info.extras().get(CSA_PV_KEY) {
        Some(EngineExtraValue::String(text)) => parse_csa_moves(after, text),
        _ => Vec::new(),
    };
    Some(EngineComment {
        score: value_score(value),
        pv,
    })
}

/// CSA move words from `pos`, as far as they are legal (a pv may end in `%TORYO` and such).
fn parse_csa_moves(pos: &Position, text: &str) -> Vec<Move> {
    let mut replay = pos.clone();
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        let m32 = replay.raw().move_from_csa(word);
        let mv = Move::from_rs(m32.to_move());
        if m32.to_move().is_drop() || m32.to_move().is_normal() {
            if replay.try_play(mv).is_err() {
                break;
            }
            out.push(mv);
        } else {
            break;
        }
    }
    out
}

fn read_end(special: &SpecialMoveEntry, tag: Option<&str>, last: &Position) -> Option<GameEnd> {
    use EndReason as R;
    let winner = special.result().winner_color().map(Color::from_rs);
    let tagged = tag.and_then(|name| name.trim().parse::<EndReason>().ok());
    let reason = match special.kind() {
        _ if tagged.is_some() => tagged?,
        SpecialMove::Resign if last.is_checkmate() => R::Checkmate,
        SpecialMove::Resign => R::Resign,
        SpecialMove::Mate => R::Checkmate,
        SpecialMove::RepetitionDraw => R::Repetition,
        SpecialMove::WinByIllegalMove | SpecialMove::LoseByIllegalMove => match last.repetition() {
            Repetition::PerpetualCheck { loser } if Some(loser.opposite()) == winner => {
                R::PerpetualCheck
            }
            _ => R::IllegalMove,
        },
        SpecialMove::WinByDeclaration => R::Impasse,
        SpecialMove::Impasse | SpecialMove::MaxMoves | SpecialMove::Draw => R::MaxPlies,
        SpecialMove::Timeout => R::Timeout,
        SpecialMove::Interrupt => R::Abort,
        _ => return None,
    };
    Some(GameEnd { reason, winner })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_values_round_trip_and_mates_use_yaneuraou_numbers() {
        for score in [
            Score::Cp(0),
            Score::Cp(-345),
            Score::Cp(30_000),
            Score::Mate(1),
            Score::Mate(-6),
            Score::Mate(0),
        ] {
            assert_eq!(value_score(score_value(score)), score, "{score:?}");
        }
        assert_eq!(score_value(Score::Mate(3)), 31_997);
        assert_eq!(score_value(Score::Mate(-4)), -31_996);
        assert_eq!(
            value_score(score_value(Score::Cp(99_999))),
            Score::Cp(30_999)
        );
    }
}
