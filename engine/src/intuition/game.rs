//! Walking a recorded game for the candidate model: per ply, the position before the move, the
//! codes of the two previous moves (START before the game's first two plies) and the codes of
//! the move played. Learning and evaluation both walk games this way, so they see the same
//! codes.

use super::encoding::{Codes, EncodedMove, after_codes, move_codes};
use crate::position::attacks::AttackMap;
use crate::position::{MoveError, Position, UsiPositionError};
use crate::types::{Color, Move};
use thiserror::Error;

/// Why a game cannot be walked.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GameError {
    /// The start is neither `startpos` nor a valid SFEN.
    #[error("bad start `{start}`: {error}")]
    Start {
        start: String,
        error: UsiPositionError,
    },
    /// Move `number` (1-based) is malformed or illegal.
    #[error("move {number} `{text}`: {error}")]
    Move {
        number: usize,
        text: String,
        error: MoveError,
    },
}

/// One ply of a walked game, as the visitor sees it.
#[derive(Debug)]
pub struct Ply<'a> {
    /// 0-based index of the move in the game's move list.
    pub index: usize,
    /// The position before the move (its history is the game so far).
    pub position: &'a Position,
    pub mover: Color,
    /// How many legal moves the position has.
    pub legal: usize,
    pub played: Move,
    /// The codes of the move played and of the position it made (p').
    pub encoded: EncodedMove,
    /// The codes of the previous move and of the one before it (START when there is none).
    pub prev1: Codes,
    pub prev2: Codes,
}

/// Replays `moves` (USI) from `start` (`startpos`, an SFEN, or either with `moves ...`, as
/// [`Position::from_start_text`] reads it) and calls `visit` for every ply in order.
///
/// # Errors
/// [`GameError`] for a bad start or the first bad move; the plies before it have been visited.
pub fn walk(
    start: &str,
    moves: &[String],
    mut visit: impl FnMut(&Ply<'_>),
) -> Result<(), GameError> {
    let mut pos = Position::from_start_text(start).map_err(|error| GameError::Start {
        start: start.to_string(),
        error,
    })?;
    let mut map = AttackMap::new(&pos);
    let (mut prev1, mut prev2) = (Codes::START, Codes::START);
    for (index, text) in moves.iter().enumerate() {
        let played = pos.parse_usi_move(text).map_err(|error| GameError::Move {
            number: index + 1,
            text: text.clone(),
            error,
        })?;
        let mover = pos.side_to_move();
        let legal = pos.legal_moves().len();
        let code = move_codes(&map, played, mover);
        pos.play(played);
        let next_map = AttackMap::new(&pos);
        pos.undo();
        let encoded = EncodedMove {
            code,
            after: after_codes(&next_map, played.to(), mover),
        };
        visit(&Ply {
            index,
            position: &pos,
            mover,
            legal,
            played,
            encoded,
            prev1,
            prev2,
        });
        pos.play(played);
        map = next_map;
        prev2 = prev1;
        prev1 = code;
    }
    Ok(())
}

/// The codes of the last two moves that led to `pos` (START where its history has none).
#[must_use]
pub fn previous_codes(pos: &Position) -> (Codes, Codes) {
    let mut back = pos.clone();
    let mut codes = [Codes::START; 2];
    for slot in &mut codes {
        let Some(mv) = back.undo() else { break };
        let map = AttackMap::new(&back);
        *slot = move_codes(&map, mv, back.side_to_move());
    }
    (codes[0], codes[1])
}
