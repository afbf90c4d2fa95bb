//! What one `go` allows the search: nodes, depth, a fixed time, or a clock. Its own module so
//! the time manager ([`super::time`]) reads it without depending on the search facade.

use crate::clock::Clocks;
use crate::types::Move;
use std::time::Duration;

/// What one `go` allows. Empty limits (no field set) mean: search to the depth limit of the
/// settings, or forever until stopped when there is none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
    /// Both sides' clocks as the `go` stated them (shogi's rule: [`crate::clock`]).
    pub clock: Option<Clocks>,
    /// Search until stopped (`go infinite`, and `go ponder` until `ponderhit`).
    pub infinite: bool,
    /// Search only these root moves (`go searchmoves`; the candidate-restricted search). Moves
    /// that are not legal in the position are left out; when none is legal, or with `None`,
    /// every legal move is searched.
    pub searchmoves: Option<Vec<Move>>,
}
