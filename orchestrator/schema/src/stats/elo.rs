//! The logistic Elo scale and the counts head-to-head statistics start from.
//!
//! Invariants: an expected score is a number in `[0, 1]` (points per game); logistic Elo is
//! `400 log10(s / (1 - s))`; normalized Elo divides the score excess by the per-game standard
//! deviation, so it measures how easily two players are told apart rather than how far apart they
//! are. Counts are always from one named player's point of view.
//!
//! See: <https://www.chessprogramming.org/Match_Statistics> and
//! <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf> (normalized Elo).

use std::f64::consts::LN_10;

use serde::{Deserialize, Serialize};

/// Normalized Elo per unit of t-value: `800 / ln 10` (Van den Bergh, "Comments on normalized Elo").
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// Logistic Elo per natural-log unit of the Bradley-Terry strength: `400 / ln 10`.
pub const ELO_PER_NAT: f64 = 400.0 / LN_10;

/// Scores are clamped to `[SCORE_CLAMP, 1 - SCORE_CLAMP]` before turning them into Elo, so a
/// 100% score reads as about +1200 Elo instead of infinity (as fishtest's `stat_util.elo` does).
pub const SCORE_CLAMP: f64 = 1e-3;

/// Expected score of a player `elo` points stronger than its opponent.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Logistic Elo difference that gives the expected score `score`; infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Like [`elo_from_score`] with the score clamped to `[SCORE_CLAMP, 1 - SCORE_CLAMP]`; the flag
/// says whether the clamp was hit.
pub fn clamped_elo_from_score(score: f64) -> (f64, bool) {
    let clamped = score.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    (elo_from_score(clamped), clamped != score)
}

/// The two-sided standard normal quantile for a confidence level, e.g. 1.95996 for 0.95.
pub fn z_two_sided(level: f64) -> f64 {
    sim::normal::quantile(0.5 + level / 2.0)
}

/// Standard normal distribution function (the workspace's one, [`sim::normal::cdf`]).
pub fn phi(x: f64) -> f64 {
    sim::normal::cdf(x)
}

/// Wins, draws and losses of one player against another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Self {
            wins,
            draws,
            losses,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win is 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The same games seen from the opponent's side.
    pub fn flipped(&self) -> Self {
        Self::new(self.losses, self.draws, self.wins)
    }

    /// Adds one game worth `points` (0, 1/2 or 1) to the player.
    pub fn add_points(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Frequencies of the per-game scores 0, 1/2, 1 (losses, draws, wins), fishtest's order.
    pub fn frequencies(&self) -> [f64; 3] {
        [self.losses as f64, self.draws as f64, self.wins as f64]
    }
}

/// Results of colour-swapped game pairs, by the pair's points for the player: LL (0), LD (1/2),
/// WL or DD (1), WD (3/2), WW (2). WL and DD are kept apart for reports (fastchess prints the
/// WL/DD ratio); the statistics merge them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    pub ll: u64,
    pub ld: u64,
    pub wl: u64,
    pub dd: u64,
    pub wd: u64,
    pub ww: u64,
}

impl Pentanomial {
    /// Counts in fastchess's `Stats(ll, ld, wl, dd, wd, ww)` order.
    pub fn new(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> Self {
        Self {
            ll,
            ld,
            wl,
            dd,
            wd,
            ww,
        }
    }

    pub fn pairs(&self) -> u64 {
        self.ll + self.ld + self.wl + self.dd + self.wd + self.ww
    }

    /// Adds a pair given the player's points in each of its two games.
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let is_draw = |p: f64| (0.25..=0.75).contains(&p);
        match ((first + second) * 2.0).round() as i64 {
            0 => self.ll += 1,
            1 => self.ld += 1,
            2 if is_draw(first) && is_draw(second) => self.dd += 1,
            2 => self.wl += 1,
            3 => self.wd += 1,
            _ => self.ww += 1,
        }
    }

    /// The same pairs seen from the opponent's side.
    pub fn flipped(&self) -> Self {
        Self::new(self.ww, self.wd, self.wl, self.dd, self.ld, self.ll)
    }

    /// Frequencies of the pair scores 0, 1/4, 1/2, 3/4, 1 (points per game of the pair).
    pub fn frequencies(&self) -> [f64; 5] {
        [
            self.ll as f64,
            self.ld as f64,
            (self.wl + self.dd) as f64,
            self.wd as f64,
            self.ww as f64,
        ]
    }
}

/// Mean and variance of a discrete distribution given as (value, weight) with weights summing to
/// `total`.
pub(crate) fn mean_variance(values: &[f64], weights: &[f64]) -> (f64, f64) {
    let total: f64 = weights.iter().sum();
    let mean = values.iter().zip(weights).map(|(a, w)| a * w).sum::<f64>() / total;
    let var = values
        .iter()
        .zip(weights)
        .map(|(a, w)| w * (a - mean).powi(2))
        .sum::<f64>()
        / total;
    (mean, var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-800.0, -100.0, 0.0, 35.0, 400.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        // 400 Elo is odds of 10:1.
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn clamp_keeps_perfect_scores_finite() {
        let (elo, clamped) = clamped_elo_from_score(1.0);
        assert!(clamped);
        assert!((elo - 400.0 * 999f64.log10()).abs() < 1e-9, "{elo}");
        assert!(!clamped_elo_from_score(0.6).1);
    }

    #[test]
    fn z_quantile_is_the_textbook_value() {
        assert!((z_two_sided(0.95) - 1.959_963_984_540_054).abs() < 1e-9);
    }

    #[test]
    fn pentanomial_pairs_land_in_their_buckets() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 0.0);
        p.add_pair(0.5, 0.5);
        p.add_pair(1.0, 0.5);
        p.add_pair(0.0, 0.5);
        p.add_pair(1.0, 1.0);
        p.add_pair(0.0, 0.0);
        assert_eq!(p, Pentanomial::new(1, 1, 1, 1, 1, 1));
        assert_eq!(p.flipped().frequencies(), [1.0, 1.0, 2.0, 1.0, 1.0]);
    }
}
