//! The corpus file: USI position lines, one game a line — the form the project ships its corpus
//! in (small, diffable, read by any USI tool). Documented in docs/reference/files.md:
//!
//! ```text
//! # comment lines (the provenance header) start with '#'
//! startpos moves 7g7f 3c3d<TAB>result=sente reason=resign
//! sfen <board> <side> <hands> <ply> moves 2g2f ...
//! ```
//!
//! A leading `position` is accepted; `moves` may be left out for a game without moves; the
//! part after a TAB is optional (a game of unknown result). Reading and writing both live here
//! so the two cannot drift.

use std::fmt::Write as _;
use std::path::Path;

use engine::position::Handicap;

use super::types::{CorpusGame, FileGames, RawGame, Warning};
use crate::results::Winner;

/// What is wrong with a line that is not a USI position line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineProblem {
    #[error("not UTF-8 text ({0})")]
    NotUtf8(std::str::Utf8Error),
    #[error("`sfen` needs 4 fields (board, side, hands, ply), found {0}")]
    SfenFields(usize),
    #[error("expected `startpos` or `sfen`, found `{0}`")]
    NoStart(String),
    #[error("expected `moves`, found `{0}`")]
    NoMoves(String),
    #[error("result `{0}`: expected sente, gote or draw")]
    Result(String),
    #[error("after the TAB: `{0}` is not `result=<sente|gote|draw>` or `reason=<reason>`")]
    AfterTab(String),
}

/// Reads a file of USI position lines; a line that is not one is a warning naming the line.
pub(super) fn read(path: &Path) -> FileGames {
    let mut out = FileGames::default();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            out.warn(Warning {
                place: path.display().to_string(),
                problem: e.to_string(),
            });
            return out;
        }
    };
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let place = format!("{}:{}", path.display(), i + 1);
        let parsed = std::str::from_utf8(line)
            .map_err(LineProblem::NotUtf8)
            .and_then(|line| parse_line(line, &place));
        match parsed {
            Ok(Some(game)) => out.game(game),
            Ok(None) => {}
            Err(problem) => out.warn(Warning {
                place,
                problem: problem.to_string(),
            }),
        }
    }
    out
}

/// One line: `None` for a blank or comment line.
fn parse_line(line: &str, place: &str) -> Result<Option<RawGame>, LineProblem> {
    let line = line.trim_end_matches('\r');
    if line.trim().is_empty() || line.trim_start().starts_with('#') {
        return Ok(None);
    }
    let (position, result) = match line.split_once('\t') {
        Some((p, r)) => (p, Some(r)),
        None => (line, None),
    };
    let mut words = position.split_whitespace().peekable();
    if words.peek() == Some(&"position") {
        words.next();
    }
    let start = match words.next() {
        Some("startpos") => "startpos".to_string(),
        Some("sfen") => {
            let fields: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
            if !(3..=4).contains(&fields.len()) {
                return Err(LineProblem::SfenFields(fields.len()));
            }
            let moves: Vec<String> = words.map(str::to_string).collect();
            return Ok(Some(game(
                place,
                format!("sfen {}", fields.join(" ")),
                moves,
                result,
            )?));
        }
        Some(other) => return Err(LineProblem::NoStart(other.to_string())),
        None => unreachable!("a non-blank line has a first word"),
    };
    match words.next() {
        None | Some("moves") => {}
        Some(other) => return Err(LineProblem::NoMoves(other.to_string())),
    }
    let moves = words.map(str::to_string).collect();
    Ok(Some(game(place, start, moves, result)?))
}

fn game(
    place: &str,
    start: String,
    moves: Vec<String>,
    result: Option<&str>,
) -> Result<RawGame, LineProblem> {
    let (winner, reason) = match result {
        None => (None, None),
        Some(text) => parse_result(text)?,
    };
    Ok(RawGame {
        place: place.to_string(),
        start,
        moves,
        winner,
        reason,
    })
}

/// `result=<sente|gote|draw> reason=<reason>`, each optional, in any order.
fn parse_result(text: &str) -> Result<(Option<Winner>, Option<String>), LineProblem> {
    let (mut winner, mut reason) = (None, None);
    for word in text.split_whitespace() {
        match word.split_once('=') {
            Some(("result", "sente")) => winner = Some(Winner::Sente),
            Some(("result", "gote")) => winner = Some(Winner::Gote),
            Some(("result", "draw")) => winner = Some(Winner::Draw),
            Some(("result", other)) => return Err(LineProblem::Result(other.to_string())),
            Some(("reason", r)) if !r.is_empty() => reason = Some(r.to_string()),
            _ => return Err(LineProblem::AfterTab(word.to_string())),
        }
    }
    Ok((winner, reason))
}

/// A game as one corpus line (no newline): `startpos` for the even start, else `sfen ...`.
#[must_use]
pub fn format_line(game: &CorpusGame) -> String {
    let mut line = if game.start == Handicap::Even.sfen() {
        "startpos".to_string()
    } else {
        format!("sfen {}", game.start)
    };
    if !game.moves.is_empty() {
        line.push_str(" moves");
        for mv in &game.moves {
            line.push(' ');
            line.push_str(mv);
        }
    }
    let mut tail = Vec::new();
    if let Some(w) = game.winner {
        tail.push(format!("result={}", w.name()));
    }
    if let Some(r) = &game.reason {
        tail.push(format!("reason={r}"));
    }
    if !tail.is_empty() {
        let _ = write!(line, "\t{}", tail.join(" "));
    }
    line
}

/// The whole corpus file: `header` lines as `# ` comments, then one line a game.
#[must_use]
pub fn format_file(header: &[String], games: &[CorpusGame]) -> String {
    let mut text = String::new();
    for line in header {
        if line.is_empty() {
            text.push_str("#\n");
        } else {
            let _ = writeln!(text, "# {line}");
        }
    }
    for game in games {
        text.push_str(&format_line(game));
        text.push('\n');
    }
    text
}
