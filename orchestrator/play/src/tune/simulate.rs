//! `council-tune --simulate`: games replaced by draws from a known Elo function of θ, so a tune
//! can be checked and sized before games are paid for. The function is a bowl,
//! `Elo(θ) = −Σ elo_i · ((θ_i − optimum_i) / (max_i − min_i))²` (`[tune.simulate]`), evaluated
//! at the values as played (integers rounded). A game between players of Elo `x` (sente) and
//! `y` has sente's expected score `E = 1 / (1 + 10^((y − x) / 400))`; it is drawn with
//! probability `D = draw_ratio · 2·min(E, 1 − E)` (highest between equals), else won by sente
//! with probability `E − D/2`. Each game draws from its own seed, so simulated pairs have the
//! same structure (colours swapped, pentanomial counts) as real ones and replay exactly.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use council_schema::config::{SimulateBowl, TuneParam};
use council_schema::results::Winner;

/// The bowl's Elo at the values `theta` (as played).
pub fn bowl_elo(bowl: &SimulateBowl, params: &[TuneParam], theta: &[f64]) -> f64 {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let range = (p.max - p.min).max(f64::MIN_POSITIVE);
            let x = (theta[i] - bowl.optimum[i]) / range;
            -bowl.elo[i] * x * x
        })
        .sum()
}

/// sente's expected score against gote, `elo_gap` = sente's Elo minus gote's.
pub fn expected_score(elo_gap: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo_gap / 400.0))
}

/// The winner of one simulated game (`elo_gap` sente's Elo minus gote's) under `seed`.
pub fn game(elo_gap: f64, draw_ratio: f64, seed: u64) -> Winner {
    let e = expected_score(elo_gap);
    let d = draw_ratio * 2.0 * e.min(1.0 - e);
    let win = e - d / 2.0;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // 53 random bits as a uniform number in [0, 1).
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    if u < win {
        Winner::Sente
    } else if u < win + d {
        Winner::Draw
    } else {
        Winner::Gote
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_score_is_logistic() {
        assert!((expected_score(0.0) - 0.5).abs() < 1e-12);
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn simulated_games_follow_the_expectation() {
        let n = 20_000;
        let (mut w, mut d) = (0, 0);
        for s in 0..n {
            match game(100.0, 0.3, s) {
                Winner::Sente => w += 1,
                Winner::Draw => d += 1,
                Winner::Gote => {}
            }
        }
        let score = (f64::from(w) + f64::from(d) / 2.0) / n as f64;
        let e = expected_score(100.0);
        assert!((score - e).abs() < 0.015, "{score} vs {e}");
        let want_d = 0.3 * 2.0 * (1.0 - e);
        assert!((f64::from(d) / n as f64 - want_d).abs() < 0.015);
        assert_eq!(game(100.0, 0.3, 5), game(100.0, 0.3, 5));
    }
}
