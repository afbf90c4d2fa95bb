//! Replaying a game: its moves, as USI text, played one by one from its start, up to the first
//! one that is not a legal move there, which is named by its index, its text and the rule it
//! breaks.
//!
//! One place for what analysis, game records, the live page, the USI front ends and `position`
//! commands all do with a recorded game, so a broken game is found and described the same way
//! everywhere; each caller words the error for its own readers from [`ReplayError`]'s fields.
//! A USI `position` command is such a game too (a start and moves), so
//! [`Position::from_usi_position`] is built here. Invariant: [`Replay::position`] is always the
//! start with exactly [`Replay::played`] moves played, all of them legal.

use super::handicap::Handicap;
use super::legality::MoveError;
use super::rules::Position;
use super::sfen::SfenError;
use super::usi_position::{self, UsiPositionError};
use crate::types::Move;
use thiserror::Error;

/// The first move of a game that cannot be played in the position before it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("move {number} `{text}`: {error}", number = .index + 1)]
pub struct ReplayError {
    /// Where the move stands in the game's moves, from 0.
    pub index: usize,
    /// The move as the game gave it.
    pub text: String,
    /// Malformed, or the rule it breaks.
    pub error: MoveError,
}

impl ReplayError {
    /// The move's number, counting from 1 as people (and USI `position` errors) do.
    #[must_use]
    pub fn number(&self) -> usize {
        self.index + 1
    }
}

/// Starts replaying `moves` from `start`: `startpos`, `sfen <sfen>` or a bare SFEN, with or
/// without a leading `position` (a results line's SFEN, or a start as configs write it without
/// moves).
///
/// # Errors
/// [`SfenError`] when the start is not a valid position.
pub fn replay<'m, S: AsRef<str>>(start: &str, moves: &'m [S]) -> Result<Replay<'m, S>, SfenError> {
    Ok(Replay::new(start_position(start)?, moves))
}

fn start_position(start: &str) -> Result<Position, SfenError> {
    let text = start.trim();
    let text = text.strip_prefix("position ").unwrap_or(text).trim_start();
    if text == "startpos" {
        return Ok(Position::handicap(Handicap::Even));
    }
    Position::from_sfen(text.strip_prefix("sfen ").unwrap_or(text))
}

/// A game being replayed: the position after the moves played so far, and the moves still to
/// come.
#[derive(Clone, Debug)]
pub struct Replay<'m, S> {
    position: Position,
    moves: &'m [S],
    played: usize,
}

impl<'m, S: AsRef<str>> Replay<'m, S> {
    /// Replays `moves` from `position` (a game's start, or any position, e.g. for a pv).
    #[must_use]
    pub fn new(position: Position, moves: &'m [S]) -> Self {
        Self {
            position,
            moves,
            played: 0,
        }
    }

    /// The position after the moves played so far.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// How many moves have been played.
    #[must_use]
    pub fn played(&self) -> usize {
        self.played
    }

    /// The next move, read and judged in the current position but not played; `None` after the
    /// last move.
    #[must_use]
    pub fn peek(&self) -> Option<Result<Move, ReplayError>> {
        let text = self.moves.get(self.played)?.as_ref();
        Some(
            self.position
                .parse_usi_move(text)
                .map_err(|error| ReplayError {
                    index: self.played,
                    text: text.to_string(),
                    error,
                }),
        )
    }

    /// Plays the next move and returns it; `None` after the last move. An illegal move is
    /// returned as the error and not played, so every later call returns it again.
    pub fn step(&mut self) -> Option<Result<Move, ReplayError>> {
        let next = self.peek()?;
        if let Ok(mv) = next {
            self.position.play(mv);
            self.played += 1;
        }
        Some(next)
    }

    /// Plays every remaining move.
    ///
    /// # Errors
    /// The first move that is not legal.
    pub fn finish(mut self) -> Result<Position, ReplayError> {
        while let Some(step) = self.step() {
            step?;
        }
        Ok(self.position)
    }

    /// Plays moves up to the first that is not legal (or the end) and returns those played: the
    /// usable part of an engine's pv.
    pub fn play_while_legal(&mut self) -> Vec<Move> {
        let mut played = Vec::new();
        while let Some(Ok(mv)) = self.step() {
            played.push(mv);
        }
        played
    }

    /// The position after the moves played so far (the rest is left unplayed).
    #[must_use]
    pub fn into_position(self) -> Position {
        self.position
    }
}

impl Position {
    /// Parses the arguments of a USI `position` command, with or without the leading word:
    /// `startpos [moves ...]` or `sfen <board> <side> <hands> [<ply>] [moves ...]`.
    ///
    /// # Errors
    /// [`UsiPositionError`] says whether the SFEN or which move (by number) was bad, and why.
    pub fn from_usi_position(line: &str) -> Result<Self, UsiPositionError> {
        let (setup, moves) = usi_position::split(line)?;
        let pos = match setup {
            usi_position::Setup::Startpos => Position::startpos(),
            usi_position::Setup::Sfen(sfen) => Position::from_sfen(&sfen)?,
        };
        Replay::new(pos, &moves)
            .finish()
            .map_err(|e| UsiPositionError::Move {
                number: e.number(),
                text: e.text,
                error: e.error,
            })
    }

    /// Parses a start as configs and openings files write it: what [`Self::from_usi_position`]
    /// takes, or a bare SFEN (`<board> <side> <hands> [<ply>] [moves ...]`), with or without a
    /// leading `position`.
    ///
    /// # Errors
    /// As [`Self::from_usi_position`].
    pub fn from_start_text(text: &str) -> Result<Self, UsiPositionError> {
        Self::from_usi_position(&usi_position::usi_arguments(text))
    }
}
