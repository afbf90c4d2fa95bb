//! The generalized sequential probability ratio test (GSPRT) of fishtest and fastchess: play a
//! head-to-head until the data favour `H1: elo = elo1` over `H0: elo = elo0` (or the reverse)
//! strongly enough, with error rates `alpha` (accepting H1 when H0 holds) and `beta`.
//!
//! The log-likelihood ratio is the generalized one: under each hypothesis the result distribution
//! (trinomial for single games, pentanomial for colour-swapped pairs) is the maximum-likelihood
//! distribution consistent with that hypothesis, given the observed frequencies. Zero counts are
//! replaced by 1e-3 first, as fishtest and fastchess do. Two Elo models:
//! - `logistic`: elo0/elo1 are logistic Elo; the hypotheses fix the expected score.
//! - `normalized`: elo0/elo1 are normalized Elo; the hypotheses fix the t-value
//!   `(score - 1/2) / sd per game`, so the test length hardly depends on the draw rate.
//!
//! The test stops when `llr >= ln((1 - beta) / alpha)` (accept H1) or
//! `llr <= ln(beta / (1 - alpha))` (accept H0).
//!
//! See: fishtest `server/fishtest/stats/LLRcalc.py` (`LLR_logistic`, `LLR_normalized`,
//! `MLE_expected`, `MLE_t_value`); M. Van den Bergh, "Comments on normalized Elo",
//! <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf> (Prop. 1.1 and section 4.1);
//! fastchess `app/src/matchmaking/sprt/sprt.cpp`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::elo::{NELO_PER_T, Pentanomial, Wdl, mean_variance, score_from_elo};
use super::head_to_head::HeadToHead;

/// What a zero count is replaced with before computing the LLR (fishtest `LLRcalc.regularize`).
const REGULARIZE: f64 = 1e-3;

/// How elo0 and elo1 are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Logistic Elo, as in Elo tables.
    Logistic,
    /// Normalized Elo (fishtest's and fastchess's default).
    #[default]
    Normalized,
}

/// Where a test stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtStatus {
    /// Neither bound reached: play on.
    Continue,
    /// `llr <= lower`: the data favour elo0.
    AcceptH0,
    /// `llr >= upper`: the data favour elo1.
    AcceptH1,
}

/// Bad SPRT settings.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SprtError {
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1})")]
    BoundsOrder { elo0: f64, elo1: f64 },
    #[error("{name} must be strictly between 0 and 1, got {value}")]
    Probability { name: &'static str, value: f64 },
    #[error("alpha + beta must be less than 1, got {0}")]
    ErrorSum(f64),
    #[error("elo0 and elo1 must be finite numbers")]
    NotFinite,
}

/// A GSPRT design. Build it with [`Sprt::new`], then call [`Sprt::test`] after each finished
/// game (or pair) with the head-to-head so far:
///
/// ```
/// use council_schema::stats::{EloModel, HeadToHead, Pentanomial, Sprt, SprtStatus, Wdl};
/// let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Logistic).unwrap();
/// let h2h = HeadToHead::new(Wdl::new(300, 200, 100), Pentanomial::default());
/// let report = sprt.test(&h2h);
/// assert_eq!(report.status, SprtStatus::AcceptH1);
/// ```
///
/// As a config table (e.g. `[sprt]` in TOML) it reads `elo0` and `elo1` (required), `alpha` and
/// `beta` (default 0.05 each) and `model` (`"normalized"`, the default, or `"logistic"`); unknown
/// keys are refused. Call [`Sprt::validate`] after deserializing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sprt {
    /// H0: the Elo difference (first player minus second) is elo0.
    pub elo0: f64,
    /// H1: the Elo difference is elo1 (> elo0).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    #[serde(default = "default_error_rate")]
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    #[serde(default = "default_error_rate")]
    pub beta: f64,
    /// How elo0 and elo1 are measured.
    #[serde(default)]
    pub model: EloModel,
}

fn default_error_rate() -> f64 {
    0.05
}

/// One evaluation of the test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    pub llr: f64,
    /// `ln(beta / (1 - alpha))`.
    pub lower: f64,
    /// `ln((1 - beta) / alpha)`.
    pub upper: f64,
    pub status: SprtStatus,
    /// Whether the pentanomial (pair) LLR was used.
    pub pentanomial: bool,
    /// Games (trinomial) or pairs (pentanomial) the LLR is computed from.
    pub samples: u64,
}

/// A sequential test over a whole run, as `summary.json` reports it: the settings, the test on
/// every finished game, and the decision that stopped the run (if any).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    #[serde(flatten)]
    pub settings: Sprt,
    /// The test on every finished game (games still being played when the decision came
    /// included).
    #[serde(flatten)]
    pub last: SprtReport,
    /// The first bound crossed (`continue` if none was): no game started after it.
    pub decision: SprtStatus,
    /// Finished games when the decision came.
    pub decided_after_games: Option<u64>,
}

impl Sprt {
    /// Validates the settings: `elo0 < elo1`, `0 < alpha, beta < 1`, `alpha + beta < 1`.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: EloModel,
    ) -> Result<Self, SprtError> {
        let sprt = Self {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        };
        sprt.validate()?;
        Ok(sprt)
    }

    /// Checks settings that came from a config file (see [`Sprt::new`]).
    pub fn validate(&self) -> Result<(), SprtError> {
        if !self.elo0.is_finite() || !self.elo1.is_finite() {
            return Err(SprtError::NotFinite);
        }
        if self.elo0 >= self.elo1 {
            return Err(SprtError::BoundsOrder {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            // Written so that NaN fails too.
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtError::Probability { name, value });
            }
        }
        if self.alpha + self.beta >= 1.0 {
            return Err(SprtError::ErrorSum(self.alpha + self.beta));
        }
        Ok(())
    }

    /// The stopping bounds `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for a given LLR.
    pub fn status(&self, llr: f64) -> SprtStatus {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtStatus::AcceptH1
        } else if llr <= lower {
            SprtStatus::AcceptH0
        } else {
            SprtStatus::Continue
        }
    }

    /// LLR of single games (loss, draw, win); 0 without games.
    pub fn llr_trinomial(&self, wdl: &Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        self.llr_of(&[0.0, 0.5, 1.0], &wdl.frequencies(), 1.0)
    }

    /// LLR of colour-swapped pairs; 0 without pairs.
    pub fn llr_pentanomial(&self, penta: &Pentanomial) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        self.llr_of(
            &[0.0, 0.25, 0.5, 0.75, 1.0],
            &penta.frequencies(),
            std::f64::consts::SQRT_2,
        )
    }

    /// Evaluates the test on a head-to-head: the pentanomial LLR when there are complete pairs
    /// (a pair still being played waits for its second game), the trinomial one otherwise.
    pub fn test(&self, h2h: &HeadToHead) -> SprtReport {
        let pentanomial = h2h.pentanomial.pairs() > 0;
        let (llr, samples) = if pentanomial {
            (
                self.llr_pentanomial(&h2h.pentanomial),
                h2h.pentanomial.pairs(),
            )
        } else {
            (self.llr_trinomial(&h2h.wdl), h2h.wdl.games())
        };
        let (lower, upper) = self.bounds();
        SprtReport {
            llr,
            lower,
            upper,
            status: self.status(llr),
            pentanomial,
            samples,
        }
    }

    /// `t_scale` is sqrt(2) for pairs: a pair score's t-value is sqrt(2) times the per-game one.
    fn llr_of(&self, values: &[f64], counts: &[f64], t_scale: f64) -> f64 {
        let regularized: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0.0 { REGULARIZE } else { c })
            .collect();
        let total: f64 = regularized.iter().sum();
        let observed: Vec<f64> = regularized.iter().map(|c| c / total).collect();
        let (p0, p1) = match self.model {
            EloModel::Logistic => (
                mle_with_mean(values, &observed, score_from_elo(self.elo0)),
                mle_with_mean(values, &observed, score_from_elo(self.elo1)),
            ),
            EloModel::Normalized => (
                mle_with_t_value(values, &observed, 0.5, t_scale * self.elo0 / NELO_PER_T),
                mle_with_t_value(values, &observed, 0.5, t_scale * self.elo1 / NELO_PER_T),
            ),
        };
        total
            * observed
                .iter()
                .zip(p0.iter().zip(&p1))
                .map(|(q, (a, b))| q * (b.ln() - a.ln()))
                .sum::<f64>()
    }
}

/// Root of `sum_i q_i phi_i / (1 + x phi_i) = 0` on the interval where every `1 + x phi_i > 0`
/// (the "secular equation"); needs phi values of both signs. The function decreases in `x`, from
/// +inf to -inf, so bisection cannot miss.
fn solve_secular(phi: &[f64], q: &[f64]) -> Option<f64> {
    let max = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = phi.iter().copied().fold(f64::INFINITY, f64::min);
    if !(max > 0.0 && min < 0.0) {
        return None;
    }
    let f = |x: f64| -> f64 { phi.iter().zip(q).map(|(a, p)| p * a / (1.0 + x * a)).sum() };
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    // Bisection on the open interval: stop when the midpoint no longer moves.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// Maximum-likelihood distribution on `values` with mean `s`, given observed frequencies `q`.
/// See: Van den Bergh, Prop. 1.1; fishtest `LLRcalc.MLE_expected`.
fn mle_with_mean(values: &[f64], q: &[f64], s: f64) -> Vec<f64> {
    let phi: Vec<f64> = values.iter().map(|a| a - s).collect();
    match solve_secular(&phi, q) {
        Some(x) => q.iter().zip(&phi).map(|(p, a)| p / (1.0 + x * a)).collect(),
        // s outside the range of values cannot happen for scores strictly inside (0, 1).
        None => q.to_vec(),
    }
}

/// Maximum-likelihood distribution on `values` with t-value `(mean - reference) / sd = t`, given
/// observed frequencies `q`, by the fixed-point iteration of Van den Bergh, section 4.1 (fishtest
/// `LLRcalc.MLE_t_value`). fishtest starts it from the uniform distribution; on lopsided data
/// (one side lost nearly every game) that start may find no multiplier (fastchess issue #879) or
/// a poor stationary point, so we also start from the distribution with the hypothesised mean
/// `reference + t sd(q)` (as fastchess pull request #882 proposes) and from `q`, and keep the
/// most likely result.
fn mle_with_t_value(values: &[f64], q: &[f64], reference: f64, t: f64) -> Vec<f64> {
    let n = values.len();
    let uniform = vec![1.0 / n as f64; n];
    let (_, var_q) = mean_variance(values, q);
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let margin = 1e-6 * (hi - lo);
    let mean_start = (reference + t * var_q.sqrt()).clamp(lo + margin, hi - margin);
    let starts = [uniform, mle_with_mean(values, q, mean_start), q.to_vec()];
    // The iteration finds a stationary point of the likelihood on the constraint; on one-sided
    // data different starts can land on different ones, or miss the constraint: keep the most
    // likely candidate that meets it (else the one that comes closest).
    let log_likelihood = |p: &[f64]| -> f64 { q.iter().zip(p).map(|(qi, pi)| qi * pi.ln()).sum() };
    let miss = |p: &[f64]| -> f64 {
        let (mu, var) = mean_variance(values, p);
        ((mu - reference) / var.sqrt() - t).abs()
    };
    let tolerance = 1e-6 * t.abs().max(1.0);
    let candidates: Vec<Vec<f64>> = starts
        .into_iter()
        .map(|start| iterate_t_value(values, q, reference, t, start))
        .collect();
    let best = candidates
        .iter()
        .filter(|p| miss(p) < tolerance && log_likelihood(p).is_finite())
        .max_by(|a, b| log_likelihood(a).total_cmp(&log_likelihood(b)));
    match best {
        Some(p) => p.clone(),
        None => candidates
            .into_iter()
            .min_by(|a, b| miss(a).total_cmp(&miss(b)))
            .unwrap_or_else(|| q.to_vec()),
    }
}

/// The fixed-point iteration from `p`, until it stops moving (or stalls, or 1000 rounds).
fn iterate_t_value(values: &[f64], q: &[f64], reference: f64, t: f64, mut p: Vec<f64>) -> Vec<f64> {
    for _ in 0..1000 {
        let (mu, var) = mean_variance(values, &p);
        let sigma = var.sqrt();
        let phi: Vec<f64> = values
            .iter()
            .map(|a| a - reference - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0)
            .collect();
        let Some(x) = solve_secular(&phi, q) else {
            break;
        };
        let next: Vec<f64> = q
            .iter()
            .zip(&phi)
            .map(|(qi, a)| qi / (1.0 + x * a))
            .collect();
        let change = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        if change < 1e-10 {
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    //! Reference LLRs: fastchess `app/tests/sprt_test.cpp` (Disservin/fastchess), relative
    //! tolerance 1% as there (`doctest::Approx(..).epsilon(0.01)`). Its constructors are
    //! `Stats(wins, losses, draws)` and `Stats(ll, ld, wl, dd, wd, ww)`;
    //! `SPRT(alpha, beta, elo0, elo1, model, enabled)`. The "1" and "2" cases are real fishtest
    //! runs whose LLRs fishtest displayed (fastchess pull request #426 lists their fishtest
    //! counts). For the one-sided "3" cases we use the newest revision of the file (LLR 120.56
    //! and 111.82); older revisions (e.g. commit e633d954471cf04fc47f11dd0b7e924579ff4635) pinned
    //! 2.97 and 2.94 there, values of the earlier normalized-MLE start that fastchess replaced.
    use super::*;

    #[track_caller]
    fn check(actual: f64, expected: f64) {
        assert!(
            (actual - expected).abs() <= 0.01 * expected.abs(),
            "LLR {actual} != {expected}"
        );
    }

    fn sprt(elo0: f64, elo1: f64, model: EloModel) -> Sprt {
        Sprt::new(elo0, elo1, 0.05, 0.05, model).expect("valid")
    }

    fn tri(s: Sprt, wins: u64, losses: u64, draws: u64) -> f64 {
        s.llr_trinomial(&Wdl::new(wins, draws, losses))
    }

    fn pen(s: Sprt, ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> f64 {
        s.llr_pentanomial(&Pentanomial::new(ll, ld, wl, dd, wd, ww))
    }

    use EloModel::{Logistic, Normalized};

    #[test]
    fn fastchess_normalized_trinomial() {
        check(tri(sprt(0.0, 2.0, Normalized), 36433, 36027, 68692), 0.92);
        check(
            tri(sprt(-1.75, 0.25, Normalized), 10871, 10650, 20431),
            2.30,
        );
        check(tri(sprt(0.0, 10.0, Normalized), 4250, 0, 0), 120.56);
    }

    #[test]
    fn fastchess_logistic_trinomial() {
        check(tri(sprt(0.5, 2.5, Logistic), 21404, 21184, 40708), -1.57);
        check(tri(sprt(0.0, 2.0, Logistic), 57433, 57030, 106593), -2.59);
    }

    #[test]
    fn fastchess_normalized_pentanomial() {
        let s = sprt(0.0, 2.0, Normalized);
        check(pen(s, 365, 16618, 36029, 200, 16974, 390), 2.25);
        let s = sprt(-1.75, 0.25, Normalized);
        check(pen(s, 127, 4883, 10311, 401, 5150, 104), 3.01);
        let s = sprt(0.0, 5.0, Normalized);
        check(pen(s, 0, 0, 0, 0, 0, 5550), 111.82);
    }

    #[test]
    fn fastchess_logistic_pentanomial() {
        let s = sprt(0.5, 2.5, Logistic);
        check(pen(s, 223, 9863, 20279, 1000, 10037, 246), -3.07);
        let s = sprt(0.0, 2.0, Logistic);
        check(pen(s, 871, 26175, 55003, 980, 26678, 821), -4.98);
    }

    /// fastchess pull request #882 (fix for issue #879, lopsided matches under the normalized
    /// model): the comment by vondele of 2025-07-04 prints, for `-sprt elo0=-1000 elo1=-500
    /// model=normalized`, `Ptnml(0-2): [77, 1, 0, 0, 0]` with `LLR: -2.95` and
    /// `[72, 10, 0, 0, 0]` with `LLR: -2.97` (two decimals, so we allow 0.005 plus rounding).
    #[test]
    fn fastchess_pr_882_lopsided_normalized_pentanomial() {
        let s = sprt(-1000.0, -500.0, Normalized);
        let close = |llr: f64, expected: f64| (llr - expected).abs() <= 0.0051;
        let a = pen(s, 77, 1, 0, 0, 0, 0);
        let b = pen(s, 72, 10, 0, 0, 0, 0);
        assert!(close(a, -2.95), "{a}");
        assert!(close(b, -2.97), "{b}");
        // One-sided data: the LLR grows steadily with the number of pairs (it once jumped at
        // 38 pairs, when the uniform start found a poor stationary point).
        let s = sprt(0.0, 10.0, Normalized);
        let mut previous = 0.0;
        for n in 1..=120 {
            let losses = pen(s, n, 0, 0, 0, 0, 0);
            let wins = pen(s, 0, 0, 0, 0, 0, n);
            assert!(
                losses < previous && losses > previous - 0.1,
                "{n} pairs: {losses}"
            );
            assert!(wins > 0.0);
            previous = losses;
        }
        // The case of issue #879 (fastchess printed `LLR: -nan`): finite and for H0.
        let c = sprt(-1500.0, -500.0, Normalized)
            .llr_pentanomial(&Pentanomial::new(144, 3, 1, 0, 0, 0));
        assert!(c.is_finite() && c < -2.95, "{c}");
    }

    /// The exact normalized LLR agrees with the closed-form approximation of Van den Bergh,
    /// section 4.2 (fishtest `LLRcalc.LLR_normalized_alt`) on data like a real test's (small Elo
    /// differences), where that approximation is good:
    /// `(games / 2) ln((1 + (t - t0)^2) / (1 + (t - t1)^2))`.
    #[test]
    fn normalized_llr_matches_the_closed_form_approximation() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        for _ in 0..200 {
            let counts: Vec<u64> = [200.0, 2000.0, 5000.0, 2000.0, 200.0]
                .iter()
                .map(|c: &f64| (c * rng.random_range(0.8..1.2)) as u64)
                .collect();
            let penta = Pentanomial::new(counts[0], counts[1], counts[2], 0, counts[3], counts[4]);
            let (elo0, elo1) = (rng.random_range(-5.0..0.0), rng.random_range(0.5..5.0));
            let exact = sprt(elo0, elo1, Normalized).llr_pentanomial(&penta);
            let freq = penta.frequencies();
            let pairs: f64 = freq.iter().sum();
            let (mu, var) = mean_variance(&values, &freq);
            let t = (mu - 0.5) / (2.0 * var).sqrt();
            let (t0, t1) = (elo0 / NELO_PER_T, elo1 / NELO_PER_T);
            let alt = pairs * ((1.0 + (t - t0).powi(2)) / (1.0 + (t - t1).powi(2))).ln();
            assert!(
                (exact - alt).abs() <= 0.01 * alt.abs().max(1.0),
                "{counts:?} [{elo0}, {elo1}]: exact {exact} vs approximation {alt}"
            );
        }
    }

    #[test]
    fn bounds_are_walds() {
        let (lower, upper) = sprt(0.0, 5.0, Logistic).bounds();
        // ln(0.05 / 0.95) = -2.944..., the "(-2.94, 2.94)" every SPRT report prints.
        assert!((lower + 2.944_438_979).abs() < 1e-8 && (upper - 2.944_438_979).abs() < 1e-8);
    }

    #[test]
    fn status_follows_the_bounds() {
        let s = sprt(0.0, 5.0, Logistic);
        assert_eq!(s.status(3.0), SprtStatus::AcceptH1);
        assert_eq!(s.status(-3.0), SprtStatus::AcceptH0);
        assert_eq!(s.status(0.0), SprtStatus::Continue);
        let empty = HeadToHead::default();
        assert_eq!(s.test(&empty).status, SprtStatus::Continue);
        assert_eq!(s.test(&empty).llr, 0.0);
    }

    #[test]
    fn test_uses_pairs_when_there_are_any() {
        let s = sprt(0.0, 5.0, Normalized);
        let h2h = HeadToHead::new(Wdl::new(5, 2, 3), Pentanomial::new(0, 1, 1, 0, 1, 1));
        let report = s.test(&h2h);
        assert!(report.pentanomial);
        assert_eq!(report.samples, 4);
        assert_eq!(report.llr, s.llr_pentanomial(&h2h.pentanomial));
    }

    #[test]
    fn bad_settings_are_refused() {
        assert!(matches!(
            Sprt::new(5.0, 0.0, 0.05, 0.05, Logistic),
            Err(SprtError::BoundsOrder { .. })
        ));
        assert!(matches!(
            Sprt::new(0.0, 5.0, 0.0, 0.05, Logistic),
            Err(SprtError::Probability { name: "alpha", .. })
        ));
        assert!(matches!(
            Sprt::new(0.0, 5.0, 0.05, f64::NAN, Logistic),
            Err(SprtError::Probability { name: "beta", .. })
        ));
        assert!(matches!(
            Sprt::new(0.0, 5.0, 0.6, 0.5, Logistic),
            Err(SprtError::ErrorSum(_))
        ));
    }

    #[test]
    fn config_table_has_defaults_and_refuses_typos() {
        let s: Sprt = toml::from_str("elo0 = 0\nelo1 = 10\n").expect("minimal table");
        assert_eq!(
            s,
            Sprt::new(0.0, 10.0, 0.05, 0.05, Normalized).expect("valid")
        );
        let s: Sprt =
            toml::from_str("elo0 = -5\nelo1 = 5\nalpha = 0.1\nbeta = 0.2\nmodel = \"logistic\"\n")
                .expect("full table");
        assert_eq!((s.alpha, s.beta, s.model), (0.1, 0.2, Logistic));
        assert!(toml::from_str::<Sprt>("elo0 = 0\nelo1 = 5\nelo2 = 7\n").is_err());
        assert!(toml::from_str::<Sprt>("elo0 = 0\nelo1 = 5\nmodel = \"bayes\"\n").is_err());
        let backwards: Sprt = toml::from_str("elo0 = 5\nelo1 = 0\n").expect("parses");
        assert!(backwards.validate().is_err());
    }

    #[test]
    fn llr_is_antisymmetric_under_swapping_players_and_hypotheses() {
        // Swapping the players negates the Elo; testing -elo1 vs -elo0 must give the same
        // evidence with the sign of the LLR reversed.
        let wdl = Wdl::new(120, 90, 100);
        let forward = sprt(0.0, 10.0, Logistic).llr_trinomial(&wdl);
        let backward = sprt(-10.0, 0.0, Logistic).llr_trinomial(&wdl.flipped());
        assert!((forward + backward).abs() < 1e-9, "{forward} vs {backward}");
    }
}
