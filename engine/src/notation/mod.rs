//! Text notations that need no position: USI move text.
//!
//! Parse, then validate: [`UsiMove`] is what the text says (syntax only); turning it into a
//! legal [`crate::types::Move`] needs a position (`Position::parse_usi_move`). SFEN text is
//! parsed and validated by `crate::position` (a position is what it describes).

mod usi_move;

pub use usi_move::{UsiMove, UsiMoveSyntaxError};
