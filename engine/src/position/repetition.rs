//! 千日手: the fourth occurrence of a position, and the perpetual-check exception.
//!
//! Rule (docs/reference/rules.md): the same position (board, hands, side to move) for the fourth time is a
//! draw, unless one side gave check with every one of its moves during the whole repetition
//! cycle, from the first of the four occurrences to the fourth: that side loses.
//!
//! Kept in the facade on a plain list of (key, gave-check) per ply rather than delegated to
//! rsshogi's search-oriented repetition cache, which stops at the nearest same-board position
//! with different hands: the arbiter needs the exact count.

use crate::types::Color;

/// The repetition verdict for the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repetition {
    /// Not the fourth occurrence.
    None,
    /// Fourth occurrence: the game is drawn.
    Draw,
    /// Fourth occurrence reached by one side checking on every move of the cycle: it loses.
    PerpetualCheck { loser: Color },
}

/// One position of the game so far.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Trail {
    /// Zobrist key of the whole position (board, hands, side to move).
    pub key: u64,
    /// The side to move in this position.
    pub to_move: Color,
    /// Whether the move that led here gave check (false for the root).
    pub by_check: bool,
}

/// Verdict for the last entry of `trail` (the current position).
pub(crate) fn verdict(trail: &[Trail]) -> Repetition {
    let Some(current) = trail.last() else {
        return Repetition::None;
    };
    let occurrences: Vec<usize> = trail
        .iter()
        .enumerate()
        .filter(|(_, t)| t.key == current.key && t.to_move == current.to_move)
        .map(|(i, _)| i)
        .collect();
    if occurrences.len() < 4 {
        return Repetition::None;
    }
    let first = occurrences[occurrences.len() - 4];
    // The moves of the cycle are those that led to positions first+1 ..= now; the mover of the
    // move into position i is the side to move in position i - 1.
    let all_checks = |side: Color| {
        (first + 1..trail.len())
            .filter(|&i| trail[i - 1].to_move == side)
            .all(|i| trail[i].by_check)
    };
    match (all_checks(Color::Sente), all_checks(Color::Gote)) {
        (true, false) => Repetition::PerpetualCheck {
            loser: Color::Sente,
        },
        (false, true) => Repetition::PerpetualCheck { loser: Color::Gote },
        // Both sides checking on every move cannot make one of them the culprit.
        _ => Repetition::Draw,
    }
}
