//! Search values: centipawn scores and mate scores packed in one `i32` line, the usual
//! negamax convention (positive = good for the side to move).
//!
//! Invariants: static evaluations stay inside `±EVAL_LIMIT`; `MATE - n` means the side to move
//! mates in `n` plies from the root, `-MATE + n` that it is mated in `n` plies; anything at or
//! beyond `±MATE_IN_MAX` is a mate score. Repetition wins (perpetual check by the opponent)
//! score `±REPETITION_WIN`, above any evaluation but below every mate.

pub(crate) type Value = i32;

pub(crate) const INFINITE: Value = 32_001;
pub(crate) const MATE: Value = 32_000;
/// Mates up to this many plies are represented exactly.
pub(crate) const MAX_PLY: i32 = 128;
pub(crate) const MATE_IN_MAX: Value = MATE - 2 * MAX_PLY;
pub(crate) const REPETITION_WIN: Value = 30_000;
pub(crate) const DRAW: Value = 0;

/// The side to move mates in `plies` (counted from the root).
#[inline]
pub(crate) const fn mate_in(plies: i32) -> Value {
    MATE - plies
}

/// The side to move is mated in `plies` (counted from the root).
#[inline]
pub(crate) const fn mated_in(plies: i32) -> Value {
    -MATE + plies
}

#[inline]
pub(crate) const fn is_mate(v: Value) -> bool {
    v >= MATE_IN_MAX || v <= -MATE_IN_MAX
}

/// Plies to mate, signed like USI `score mate N`: positive when the side to move mates.
#[inline]
pub(crate) const fn mate_plies(v: Value) -> i32 {
    if v > 0 { MATE - v } else { -(MATE + v) }
}
