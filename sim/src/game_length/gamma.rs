//! The gamma distribution with a given mean and variance: the source's comparison for the game
//! length distribution ("手数分布はガンマ分布で近似できるか?").
//!
//! Shape `k = mean^2 / var`, scale `theta = var / mean`; its third central moment is
//! `2 k theta^3` and its fourth `3 k (k + 2) theta^4`.

use serde::Serialize;
use statrs::distribution::{Continuous, Gamma};

use crate::error::{SimError, positive};
use crate::moments::Moments;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GammaMatch {
    pub shape: f64,
    pub scale: f64,
    pub m3: f64,
    pub m4: f64,
}

impl GammaMatch {
    /// The gamma with this shape and scale.
    pub fn new(shape: f64, scale: f64) -> Result<GammaMatch, SimError> {
        let k = positive("gamma shape", shape)?;
        let t = positive("gamma scale", scale)?;
        Ok(GammaMatch {
            shape: k,
            scale: t,
            m3: 2.0 * k * t.powi(3),
            m4: 3.0 * k * (k + 2.0) * t.powi(4),
        })
    }

    /// The gamma with the same mean and variance as `moments`.
    pub fn matching(moments: &Moments) -> Result<GammaMatch, SimError> {
        let mean = positive("mean", moments.mean)?;
        let var = positive("variance", moments.variance)?;
        GammaMatch::new(mean * mean / var, var / mean)
    }

    pub fn moments(&self) -> Moments {
        Moments {
            mean: self.shape * self.scale,
            variance: self.shape * self.scale * self.scale,
            m3: self.m3,
            m4: self.m4,
        }
    }

    /// Density at `x` (statrs parameterises the gamma by rate `1 / scale`).
    pub fn pdf(&self, x: f64) -> f64 {
        Gamma::new(self.shape, 1.0 / self.scale)
            .map(|g| g.pdf(x))
            .unwrap_or(f64::NAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_gamma_has_the_same_mean_and_variance() {
        let m = Moments {
            mean: 120.0,
            variance: 900.0,
            m3: 0.0,
            m4: 0.0,
        };
        let g = GammaMatch::matching(&m).expect("positive");
        assert!((g.shape - 16.0).abs() < 1e-12);
        assert!((g.scale - 7.5).abs() < 1e-12);
        let back = g.moments();
        assert!((back.mean - 120.0).abs() < 1e-9 && (back.variance - 900.0).abs() < 1e-9);
        // Skewness 2 / sqrt(k), excess kurtosis 6 / k: the gamma's textbook shape numbers.
        assert!((back.skewness() - 2.0 / 4.0).abs() < 1e-12);
        assert!((back.excess_kurtosis() - 6.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn density_integrates_to_one() {
        let g = GammaMatch::new(16.0, 7.5).expect("valid");
        let h = 0.01;
        let total: f64 = (1..100_000).map(|i| g.pdf(i as f64 * h) * h).sum();
        assert!((total - 1.0).abs() < 1e-6);
    }
}
