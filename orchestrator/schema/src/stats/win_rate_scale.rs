//! Fitting a player's win-rate constant `T` from its games (`models.md` section 1): the `T` that
//! makes `r(v) = 1 / (1 + exp(-v / T))` best predict the results of the games in which the
//! player reported score `v` (maximum likelihood of a logistic regression through the origin).
//!
//! The run's summary (`run::summary`) reports the fitted `T` of every player and council member, to be copied into the
//! config's `win_rate_t` (the voting itself uses the configured value, so a run replays).
//! Invariant: mate scores and scores beyond `MAX_CP` are left out (they say nothing about the
//! scale); without both wins and losses among the samples there is no fit.

/// Scores beyond this (cp) are left out of the fit.
pub(crate) const MAX_CP: f64 = 3000.0;

/// Negative log-likelihood of outcomes `y` (1 win, 0.5 draw, 0 loss) under scale `t`.
fn neg_log_likelihood(samples: &[(f64, f64)], t: f64) -> f64 {
    samples
        .iter()
        .map(|&(v, y)| {
            let z = v / t;
            // ln r = -ln(1 + e^-z), ln (1 - r) = -ln(1 + e^z), computed stably.
            let ln_r = -softplus(-z);
            let ln_1r = -softplus(z);
            -(y * ln_r + (1.0 - y) * ln_1r)
        })
        .sum()
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// The maximum-likelihood `T` for `(score_cp, outcome)` samples, searched on `[10, 100000]`
/// (golden-section search on `ln T`, to 0.01% relative). `None` without a usable sample set.
pub(crate) fn fit_win_rate_t(samples: &[(f64, f64)]) -> Option<f64> {
    let usable: Vec<(f64, f64)> = samples
        .iter()
        .copied()
        .filter(|&(v, y)| v.is_finite() && v.abs() <= MAX_CP && (0.0..=1.0).contains(&y))
        .collect();
    let informative = usable.iter().any(|&(v, y)| v * (y - 0.5) > 0.0)
        && usable.iter().any(|&(v, y)| v * (y - 0.5) < 0.0);
    if !informative {
        return None;
    }
    let f = |ln_t: f64| neg_log_likelihood(&usable, ln_t.exp());
    let (mut a, mut b) = (10f64.ln(), 100_000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    while b - a > 1e-4 {
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
        c = b - g * (b - a);
        d = a + g * (b - a);
    }
    Some(((a + b) / 2.0).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn recovers_the_scale_the_games_were_drawn_with() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for t in [150.0, 600.0, 1500.0] {
            let samples: Vec<(f64, f64)> = (0..20_000)
                .map(|_| {
                    let v: f64 = rng.random_range(-2000.0..2000.0);
                    let r = 1.0 / (1.0 + (-v / t).exp());
                    let y = if rng.random::<f64>() < r { 1.0 } else { 0.0 };
                    (v, y)
                })
                .collect();
            let fit = fit_win_rate_t(&samples).expect("fit");
            assert!((fit / t - 1.0).abs() < 0.1, "T = {t}: fitted {fit}");
        }
    }

    #[test]
    fn no_fit_without_both_outcomes() {
        assert_eq!(fit_win_rate_t(&[(100.0, 1.0), (200.0, 1.0)]), None);
        assert_eq!(fit_win_rate_t(&[]), None);
    }
}
