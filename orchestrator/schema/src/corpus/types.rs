//! The games and warnings every corpus reader hands on (kept apart from the readers' dispatch in
//! `mod.rs`, so that each reader depends on these types only).

use std::fmt;

use crate::results::Winner;

/// One game of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusGame {
    /// Where it was read: `file`, `file:line` or `run game <id>`.
    pub source: String,
    /// The start position as an SFEN (4 fields).
    pub start: String,
    /// The moves in USI, from `start`.
    pub moves: Vec<String>,
    /// Who won, when the input says (`Draw` for a drawn game).
    pub winner: Option<Winner>,
    /// Why the game ended (`resign`, `impasse`, ...), when the input says.
    pub reason: Option<String>,
}

/// A problem with one part of an input: that part is skipped, the rest read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// `file`, `file:line`, or `run game <id>`.
    pub place: String,
    pub problem: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.problem)
    }
}

/// A game as an input gives it, before its replay: the start as `startpos`, `sfen ...` or an
/// SFEN, the moves in USI.
#[derive(Debug, Clone)]
pub(crate) struct RawGame {
    pub place: String,
    pub start: String,
    pub moves: Vec<String>,
    pub winner: Option<Winner>,
    pub reason: Option<String>,
}

/// What one input file gave, in file order: its games (unreplayed) and its warnings.
#[derive(Debug, Default)]
pub(crate) struct FileGames {
    pub items: Vec<Result<RawGame, Warning>>,
}

impl FileGames {
    pub(super) fn game(&mut self, game: RawGame) {
        self.items.push(Ok(game));
    }

    pub(super) fn warn(&mut self, warning: Warning) {
        self.items.push(Err(warning));
    }
}
