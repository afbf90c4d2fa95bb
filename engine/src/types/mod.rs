//! Small value types shared by the rules, search, records and the orchestrator.
//!
//! None of these expose rsshogi types: the rest of the workspace speaks in `Color`, `Square`,
//! `PieceKind`, `Piece`, `Move` and `Score`. Conversions to rsshogi live behind `pub(crate)`
//! functions so only the engine crate can cross that boundary.

mod color;
mod moves;
mod piece;
mod score;
mod square;

pub use color::{ByColor, Color};
pub use moves::Move;
pub use piece::{Piece, PieceKind};
pub use score::Score;
pub use square::Square;
