//! Ranking a position's legal moves by the candidate model, and where a given move ranks.
//!
//! Every legal move (rsshogi's `LegalAll`: every non-promotion too) is encoded and scored.
//! Ties are common (a move the model never saw scores 0 under a-d and f, 1 under e), so ranks
//! are exact expectations under a uniformly random order among equal scores, never samples:
//! a move with `better` moves scoring higher and `tied` moves scoring the same (itself
//! included) has expected rank `better + (tied + 1) / 2`, and is among the top `k` with
//! probability `clamp((k - better) / tied, 0, 1)` — the fractional top-k hit. The normalised
//! rank is `(expected rank - 1) / (L - 1)` in [0, 1] (0 when `L = 1`), and the chance of a
//! top-k hit by a random order is `min(k, L) / L` ([`chance`]).
//!
//! A player needs one order, not an expectation: [`Ranking::ordered`] sorts by score, best
//! first, and equal scores by the move's USI text (ascending), so the order never depends on
//! the move generator. [`Ranking::top`] and [`Ranking::best`] follow it.

use super::encoding::{Codes, EncodedMove, encode_all};
use super::game::{self, GameError, Ply, previous_codes};
use super::model::{MIN_LEGAL, Model, Setting, Variant};
use crate::position::Position;
use crate::types::Move;

/// Where one move ranks among `legal` moves under one setting (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankStat {
    /// Moves scoring strictly higher.
    pub better: usize,
    /// Moves scoring the same, the move itself included (at least 1).
    pub tied: usize,
    /// Legal moves in the position.
    pub legal: usize,
}

impl RankStat {
    /// The expected 1-based rank under a random order among ties.
    #[must_use]
    pub fn expected_rank(&self) -> f64 {
        self.better as f64 + (self.tied as f64 + 1.0) / 2.0
    }

    /// `(expected rank - 1) / (L - 1)`, in [0, 1]; 0 when there is one legal move.
    #[must_use]
    pub fn normalised(&self) -> f64 {
        if self.legal <= 1 {
            0.0
        } else {
            (self.expected_rank() - 1.0) / (self.legal as f64 - 1.0)
        }
    }

    /// The probability that the move is among the top `k` (fractional for ties).
    #[must_use]
    pub fn hit(&self, k: usize) -> f64 {
        if k <= self.better {
            0.0
        } else {
            ((k - self.better) as f64 / self.tied as f64).min(1.0)
        }
    }

    /// The decile of the normalised rank, 0..=9 (`[0, 0.1)` is 0, `[0.9, 1]` is 9).
    #[must_use]
    pub fn decile(&self) -> usize {
        ((self.normalised() * 10.0).floor() as usize).min(9)
    }
}

/// The chance that a uniformly random order puts a given move among the top `k` of `legal`:
/// `min(k, L) / L` (0 without legal moves).
#[must_use]
pub fn chance(k: usize, legal: usize) -> f64 {
    if legal == 0 {
        0.0
    } else {
        k.min(legal) as f64 / legal as f64
    }
}

/// One legal move with its codes and its `v` values in both encodings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredMove {
    pub mv: Move,
    pub encoded: EncodedMove,
    /// `(v1, v2, v3)` from the full tables.
    pub full: [f64; 3],
    /// `(v1, v2, v3)` from the variant-f tables.
    pub f: [f64; 3],
}

impl ScoredMove {
    /// The move's score under `setting`.
    #[must_use]
    pub fn score(&self, setting: Setting) -> f64 {
        setting.score(match setting.variant() {
            Variant::Full => self.full,
            Variant::F => self.f,
        })
    }
}

/// Every legal move of one position, scored by a model (all settings at once).
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    moves: Vec<ScoredMove>,
}

impl Ranking {
    /// Scores the legal moves of `pos`, whose two previous moves had the codes `prev1`
    /// (the last) and `prev2`.
    #[must_use]
    pub fn new(model: &Model, pos: &Position, prev1: Codes, prev2: Codes) -> Self {
        let moves = encode_all(pos)
            .into_iter()
            .map(|(mv, encoded)| ScoredMove {
                mv,
                encoded,
                full: model.values(Variant::Full, prev1, prev2, &encoded),
                f: model.values(Variant::F, prev1, prev2, &encoded),
            })
            .collect();
        Self { moves }
    }

    /// Scores the legal moves of `pos`, the previous moves taken from its history (START
    /// where it has fewer than two).
    #[must_use]
    pub fn of_position(model: &Model, pos: &Position) -> Self {
        let (prev1, prev2) = previous_codes(pos);
        Self::new(model, pos, prev1, prev2)
    }

    /// The number of legal moves.
    #[must_use]
    pub fn legal(&self) -> usize {
        self.moves.len()
    }

    /// The scored moves, in the move generator's order.
    #[must_use]
    pub fn moves(&self) -> &[ScoredMove] {
        &self.moves
    }

    /// Where `mv` ranks under `setting`, or `None` when it is not a legal move here.
    #[must_use]
    pub fn rank_of(&self, mv: Move, setting: Setting) -> Option<RankStat> {
        let score = self.moves.iter().find(|m| m.mv == mv)?.score(setting);
        let mut stat = RankStat {
            better: 0,
            tied: 0,
            legal: self.moves.len(),
        };
        for m in &self.moves {
            let s = m.score(setting);
            if s > score {
                stat.better += 1;
            } else if s == score {
                stat.tied += 1;
            }
        }
        Some(stat)
    }

    /// The moves with their scores under `setting`, best first; equal scores by USI text.
    #[must_use]
    pub fn ordered(&self, setting: Setting) -> Vec<(Move, f64)> {
        let mut v: Vec<(Move, f64, String)> = self
            .moves
            .iter()
            .map(|m| (m.mv, m.score(setting), m.mv.to_usi()))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
        v.into_iter().map(|(mv, s, _)| (mv, s)).collect()
    }

    /// The first `k` moves of [`Self::ordered`] (all of them when there are fewer).
    #[must_use]
    pub fn top(&self, setting: Setting, k: usize) -> Vec<Move> {
        self.ordered(setting)
            .into_iter()
            .take(k)
            .map(|(mv, _)| mv)
            .collect()
    }

    /// The first move of [`Self::ordered`], `None` without legal moves.
    #[must_use]
    pub fn best(&self, setting: Setting) -> Option<Move> {
        self.top(setting, 1).first().copied()
    }
}

/// A model and a setting: what the `intuition` player and candidate-restricted search ask.
#[derive(Clone, Copy, Debug)]
pub struct Intuition<'m> {
    pub model: &'m Model,
    pub setting: Setting,
}

impl<'m> Intuition<'m> {
    #[must_use]
    pub fn new(model: &'m Model, setting: Setting) -> Self {
        Self { model, setting }
    }

    /// Every legal move of `pos` scored (the previous moves from its history), best first.
    #[must_use]
    pub fn scored(&self, pos: &Position) -> Vec<(Move, f64)> {
        Ranking::of_position(self.model, pos).ordered(self.setting)
    }

    /// The top `k` legal moves of `pos` in [`Ranking::ordered`]'s order.
    #[must_use]
    pub fn top(&self, pos: &Position, k: usize) -> Vec<Move> {
        Ranking::of_position(self.model, pos).top(self.setting, k)
    }

    /// The best-scoring legal move of `pos`, `None` when it has none.
    #[must_use]
    pub fn best(&self, pos: &Position) -> Option<Move> {
        Ranking::of_position(self.model, pos).best(self.setting)
    }
}

/// Walks a game and ranks every position the seed evaluates (at least [`MIN_LEGAL`] legal
/// moves): `visit` gets the ply (position, move played, codes) and its ranking.
///
/// # Errors
/// [`GameError`] when the game does not replay (the plies before the bad move were visited).
pub fn rank_game(
    model: &Model,
    start: &str,
    moves: &[String],
    mut visit: impl FnMut(&Ply<'_>, &Ranking),
) -> Result<(), GameError> {
    game::walk(start, moves, |ply| {
        if ply.legal >= MIN_LEGAL {
            let ranking = Ranking::new(model, ply.position, ply.prev1, ply.prev2);
            visit(ply, &ranking);
        }
    })
}

#[cfg(test)]
mod tests;
