//! Fitting a player's win-rate constant `T` from its games (`models.md` section 1): the `T` that
//! makes `r(v) = 1 / (1 + exp(-v / T))` best predict the results of the games in which the
//! player reported score `v` (maximum likelihood of a logistic regression through the origin).
//!
//! The run's summary (`run::summary`) reports the fitted `T` of every player and council member, to be copied into the
//! config's `win_rate_t` (the voting itself uses the configured value, so a run replays).
//! Invariant: mate scores and scores beyond `MAX_CP` are left out (they say nothing about the
//! scale); without both wins and losses among the samples there is no fit; a maximum at either
//! end of the searched range is no fit either (the likelihood still rises beyond it: at the
//! upper end the scores do not predict the results at all), and says so instead of a value.

/// Scores beyond this (cp) are left out of the fit.
pub(crate) const MAX_CP: f64 = 3000.0;

/// Negative log-likelihood of outcomes `y` (1 win, 0.5 draw, 0 loss) under scale `t`, each
/// sample counted `w` times.
fn neg_log_likelihood(samples: &[(f64, f64, f64)], t: f64) -> f64 {
    samples
        .iter()
        .map(|&(v, y, w)| {
            let z = v / t;
            // ln r = -ln(1 + e^-z), ln (1 - r) = -ln(1 + e^z), computed stably.
            let ln_r = -softplus(-z);
            let ln_1r = -softplus(z);
            -(y * ln_r + (1.0 - y) * ln_1r) * w
        })
        .sum()
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// The range `T` is searched on, cp.
const T_RANGE: (f64, f64) = (10.0, 100_000.0);

/// Why a sample set gives no `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoFit {
    /// No scored move in a won game that was ahead and in a lost one, or the reverse.
    NoData,
    /// The likelihood is highest at the upper end of the range: the scores do not predict the
    /// results.
    AtUpperBound,
    /// Highest at the lower end: the results follow the sign of the score alone.
    AtLowerBound,
}

impl NoFit {
    /// In words, for `summary.json` and the closing table.
    pub(crate) fn reason(self) -> String {
        match self {
            NoFit::NoData => {
                "no fit: no scored moves both in games it won and in games it lost".to_string()
            }
            NoFit::AtUpperBound => format!(
                "no fit: the likelihood rises up to the bound of {:.0} cp (its scores do not predict its results)",
                T_RANGE.1
            ),
            NoFit::AtLowerBound => format!(
                "no fit: the likelihood rises down to the bound of {:.0} cp (its results follow the sign of its scores alone)",
                T_RANGE.0
            ),
        }
    }
}

/// The maximum-likelihood `T` for `(score_cp, outcome)` samples, searched on `[10, 100000]`
/// (golden-section search on `ln T`, to 0.01% relative), or why there is none.
#[cfg(test)]
pub(crate) fn fit_win_rate_t(samples: &[(f64, f64)]) -> Result<f64, NoFit> {
    fit_counted(samples.iter().map(|&(v, y)| (v, y, 1)))
}

/// [`fit_win_rate_t`] of `(score_cp, outcome, times)`: the same sample seen `times` times
/// (a run's summary keeps its samples so counted, in a bounded table).
pub(crate) fn fit_counted(samples: impl Iterator<Item = (f64, f64, u64)>) -> Result<f64, NoFit> {
    let usable: Vec<(f64, f64, f64)> = samples
        .filter(|&(v, y, n)| {
            n > 0 && v.is_finite() && v.abs() <= MAX_CP && (0.0..=1.0).contains(&y)
        })
        .map(|(v, y, n)| (v, y, n as f64))
        .collect();
    let informative = usable.iter().any(|&(v, y, _)| v * (y - 0.5) > 0.0)
        && usable.iter().any(|&(v, y, _)| v * (y - 0.5) < 0.0);
    if !informative {
        return Err(NoFit::NoData);
    }
    let f = |ln_t: f64| neg_log_likelihood(&usable, ln_t.exp());
    let (lo, hi) = (T_RANGE.0.ln(), T_RANGE.1.ln());
    let (mut a, mut b) = (lo, hi);
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
    // The search closes in on an end of the range when the optimum is beyond it.
    let t = (a + b) / 2.0;
    if hi - t < 1e-3 {
        Err(NoFit::AtUpperBound)
    } else if t - lo < 1e-3 {
        Err(NoFit::AtLowerBound)
    } else {
        Ok(t.exp())
    }
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
        assert_eq!(
            fit_win_rate_t(&[(100.0, 1.0), (200.0, 1.0)]),
            Err(NoFit::NoData)
        );
        assert_eq!(fit_win_rate_t(&[]), Err(NoFit::NoData));
    }

    /// Scores that say nothing about the results (here: the same scores in wins and losses,
    /// a little more often ahead in the losses) push `T` to the top of its range: no value.
    #[test]
    fn a_fit_at_a_bound_is_no_value() {
        let mut samples = Vec::new();
        for v in [300.0, 900.0, 2500.0] {
            samples.extend([(v, 1.0), (v, 0.0), (v, 0.0), (-v, 1.0), (-v, 0.0)]);
        }
        assert_eq!(fit_win_rate_t(&samples), Err(NoFit::AtUpperBound));
        assert!(NoFit::AtUpperBound.reason().contains("100000 cp"));
        // Results that follow the sign of the score but for one loss at +0.5 cp: the lower end.
        let mut sign: Vec<(f64, f64)> = [50.0, 400.0, 1500.0]
            .iter()
            .flat_map(|&v| [(v, 1.0), (-v, 0.0)])
            .collect();
        sign.push((0.5, 0.0));
        assert_eq!(fit_win_rate_t(&sign), Err(NoFit::AtLowerBound));
    }
}
