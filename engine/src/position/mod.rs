//! Shogi positions: the rules facade over rsshogi that the rest of the workspace uses.
//!
//! [`Position`] (in `rules`) is a validated position with the game that led to it; around it,
//! each in its own file: named starts (`handicap`), SFEN parsing and validation (`sfen`), why a
//! move is illegal (`legality`), 千日手 (`repetition`), the 27-point declaration (`impasse`), the
//! words of a USI `position` command (`usi_position`), and replaying a game's moves from its
//! start (`replay`, which also builds a `Position` from a USI `position` command). This file only
//! names what the crate offers; nothing here exposes an rsshogi type publicly.

pub mod attacks;
mod handicap;
mod impasse;
mod legality;
mod repetition;
mod replay;
mod rules;
mod sfen;
mod usi_position;

pub use handicap::{Handicap, UnknownHandicap};
pub use impasse::ImpasseError;
pub use legality::{IllegalReason, MoveError};
pub use repetition::Repetition;
pub use replay::{Replay, ReplayError, replay};
pub use rules::Position;
pub use sfen::{MAX_SFEN_MOVE_NUMBER, PositionRule, SfenError, SfenField};
pub use usi_position::UsiPositionError;

#[cfg(test)]
mod tests;
