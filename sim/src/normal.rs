//! The standard normal distribution function `Phi`, its logarithm and its quantile: the one
//! definition for the workspace (the council's maximum-likelihood vote and the simulator's exact
//! rates here, the orchestrator's Elo error bars, likelihoods of superiority and resignation
//! model). It lives in `sim` because that is the lowest crate both users depend on (the
//! orchestrator depends on `sim`; the engine crate below both knows shogi, not statistics).
//!
//! Built on statrs: [`cdf`] and [`quantile`] are exactly statrs' `Normal::standard()` (same
//! bits); [`ln_cdf`] takes the logarithm where `erfc` keeps its relative accuracy and switches to
//! the asymptotic Mills-ratio series far in the lower tail, where `Phi` underflows (below about
//! -38) long before its logarithm stops being a useful number.

use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::erf::erfc;
use std::f64::consts::SQRT_2;

/// Below this `ln_cdf` uses the asymptotic series (`erfc` is still accurate down to -37).
const SERIES_BELOW: f64 = -30.0;

/// `Phi(z)`, the standard normal distribution function.
#[inline]
#[must_use]
pub fn cdf(z: f64) -> f64 {
    // statrs' `Normal::cdf`: 0.5 erfc((mean - x) / (sd sqrt 2)) with mean 0, sd 1.
    0.5 * erfc(-z / SQRT_2)
}

/// The standard normal quantile, `Phi^-1(p)` for `p` in `[0, 1]`.
///
/// # Panics
/// When `p` is outside `[0, 1]` (statrs' contract).
#[must_use]
pub fn quantile(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}

/// `ln Phi(z)`, accurate in both tails and finite for every finite `z`.
#[must_use]
pub fn ln_cdf(z: f64) -> f64 {
    if z > 0.0 {
        (-cdf(-z)).ln_1p()
    } else if z > SERIES_BELOW {
        cdf(z).ln()
    } else {
        // Mills ratio series (Abramowitz & Stegun 26.2.12) to the term in z^-10; the first
        // omitted term is 10395 / z^12 < 2e-14 relative here.
        let r = 1.0 / (z * z);
        let series = 1.0 - r * (1.0 - r * (3.0 - r * (15.0 - r * (105.0 - r * 945.0))));
        -0.5 * z * z - (-z).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln() + series.ln()
    }
}

/// `ln(Phi(y) / Phi(x))` for `y > x`: one logarithm of a ratio (both `Phi` keep their relative
/// accuracy above the series' range), the difference of two [`ln_cdf`]s further out.
#[inline]
#[must_use]
pub fn ln_cdf_ratio(y: f64, x: f64) -> f64 {
    if x > SERIES_BELOW {
        (cdf(y) / cdf(x)).ln()
    } else {
        ln_cdf(y) - ln_cdf(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(lo: f64, hi: f64, step: f64) -> impl Iterator<Item = f64> {
        let n = ((hi - lo) / step).round() as usize;
        (0..=n).map(move |k| lo + k as f64 * step)
    }

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn cdf_and_quantile_are_statrs_to_the_bit() {
        let normal = Normal::standard();
        for z in grid(-40.0, 40.0, 0.003_7) {
            assert_eq!(cdf(z).to_bits(), normal.cdf(z).to_bits(), "z = {z}");
        }
        for p in grid(0.0, 1.0, 0.000_9) {
            assert_eq!(
                quantile(p).to_bits(),
                normal.inverse_cdf(p).to_bits(),
                "p = {p}"
            );
        }
        assert!((quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-12);
    }

    #[test]
    fn ln_cdf_is_the_log_of_statrs_cdf_wherever_that_is_a_normal_number() {
        let normal = Normal::standard();
        // Down to -37 statrs' cdf is still a normal float (about 1e-300): this range covers the
        // switch to the series at -30 from both sides.
        for z in grid(-37.0, 0.0, 0.001_3) {
            let want = normal.cdf(z).ln();
            assert!(
                close(ln_cdf(z), want, 1e-12),
                "z = {z}: {} vs {want}",
                ln_cdf(z)
            );
        }
        // Upper tail: ln Phi(z) = ln(1 - Q(z)), with statrs' survival function Q.
        for z in grid(0.0, 37.0, 0.001_3) {
            let want = (-normal.sf(z)).ln_1p();
            assert!(
                close(ln_cdf(z), want, 1e-12),
                "z = {z}: {} vs {want}",
                ln_cdf(z)
            );
        }
    }

    #[test]
    fn ln_cdf_is_right_far_in_the_lower_tail_where_the_cdf_underflows() {
        // scipy.special.log_ndtr (scipy 1.17.1), which has its own asymptotic series there.
        for (z, want) in [
            (-1.0e5, -5_000_000_012.431_865),
            (-1.0e4, -50_000_010.129_278_92),
            (-1000.0, -500_007.826_694_812_2),
            (-100.0, -5_005.524_208_694_205),
            (-50.0, -1_254.831_361_139_419_9),
            (-40.0, -804.608_442_013_753_9),
            (-38.5, -745.695_270_290_411_3),
            (-30.5, -469.462_737_322_912_1),
            (-30.0, -454.321_243_956_343_27),
            (-29.5, -439.429_474_609_150_3),
            (-5.0, -15.064_998_393_988_727),
            (0.0, -std::f64::consts::LN_2),
            (5.0, -2.866_516_129_637_629_4e-7),
            (20.0, -2.753_624_118_606_155_6e-89),
        ] {
            // Above the series' range the error is statrs' erfc's, about 1e-10 relative near 0
            // (measured against log_ndtr on a fine grid); the series itself is good to 1e-13.
            let tolerance = if z > SERIES_BELOW { 2e-10 } else { 1e-13 };
            assert!(
                close(ln_cdf(z), want, tolerance),
                "z = {z}: {} vs {want}",
                ln_cdf(z)
            );
        }
        // Continuous across the switch, and monotone through it.
        let (above, below) = (ln_cdf(SERIES_BELOW + 1e-9), ln_cdf(SERIES_BELOW - 1e-9));
        assert!(above > below && above - below < 1e-6, "{above} {below}");
        assert!(ln_cdf(-1e154).is_finite());
    }

    #[test]
    fn ln_cdf_ratio_is_the_difference_of_the_logs() {
        for (y, x) in [
            (1.0, -0.5),
            (-29.0, -31.0),
            (5.0, 4.0),
            (-40.0, -41.0),
            (-29.9, -30.1),
        ] {
            let direct = ln_cdf(y) - ln_cdf(x);
            assert!(
                (ln_cdf_ratio(y, x) - direct).abs() < 1e-9 * direct.abs().max(1.0),
                "{y} {x}"
            );
        }
    }
}
