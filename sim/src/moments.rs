//! Sample statistics that simulations accumulate batch by batch: shifted power sums (for the
//! first four central moments) and hit counts (for rates), with their standard errors.
//!
//! Invariants: sums are plain `f64` additions in a fixed order (batch results are merged in batch
//! order, see `streams`), so the same items give the same bits. Power sums are taken about a
//! shift close to the mean (callers pass a deterministic estimate) so that converting raw sums
//! to central moments loses no precision. Moments are population moments (divide by `n`).

use serde::Serialize;

/// Mean and central moments of a distribution or a sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Moments {
    pub mean: f64,
    /// Second central moment.
    pub variance: f64,
    /// Third central moment.
    pub m3: f64,
    /// Fourth central moment.
    pub m4: f64,
}

impl Moments {
    pub fn sd(&self) -> f64 {
        self.variance.sqrt()
    }

    pub fn skewness(&self) -> f64 {
        self.m3 / self.variance.powf(1.5)
    }

    pub fn excess_kurtosis(&self) -> f64 {
        self.m4 / (self.variance * self.variance) - 3.0
    }

    /// Central moments from raw moments about `shift`: `raw[k-1] = E[(X - shift)^k]`.
    pub fn from_raw(shift: f64, raw: [f64; 4]) -> Moments {
        let [r1, r2, r3, r4] = raw;
        Moments {
            mean: shift + r1,
            variance: r2 - r1 * r1,
            m3: r3 - 3.0 * r1 * r2 + 2.0 * r1.powi(3),
            m4: r4 - 4.0 * r1 * r3 + 6.0 * r1 * r1 * r2 - 3.0 * r1.powi(4),
        }
    }

    /// Moments of `X + Y` for independent `X` (self) and `Y`: cumulants add.
    pub fn add_independent(&self, other: &Moments) -> Moments {
        Moments {
            mean: self.mean + other.mean,
            variance: self.variance + other.variance,
            m3: self.m3 + other.m3,
            // m4 = kappa4 + 3 kappa2^2 and kappa4 adds.
            m4: self.m4 + other.m4 + 6.0 * self.variance * other.variance,
        }
    }

    /// The normal distribution's moments.
    pub fn normal(mean: f64, sd: f64) -> Moments {
        let v = sd * sd;
        Moments {
            mean,
            variance: v,
            m3: 0.0,
            m4: 3.0 * v * v,
        }
    }
}

/// `sum (x - shift)^k` for `k = 1..4` over a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerSums {
    pub n: u64,
    pub shift: f64,
    pub sums: [f64; 4],
}

impl PowerSums {
    pub fn new(shift: f64) -> PowerSums {
        PowerSums {
            n: 0,
            shift,
            sums: [0.0; 4],
        }
    }

    #[inline]
    pub fn push(&mut self, x: f64) {
        let d = x - self.shift;
        let d2 = d * d;
        self.n += 1;
        self.sums[0] += d;
        self.sums[1] += d2;
        self.sums[2] += d2 * d;
        self.sums[3] += d2 * d2;
    }

    /// Adds another batch's sums (taken about the same shift).
    pub fn merge(&mut self, other: &PowerSums) {
        debug_assert_eq!(self.shift.to_bits(), other.shift.to_bits());
        self.n += other.n;
        for (a, b) in self.sums.iter_mut().zip(other.sums) {
            *a += b;
        }
    }

    /// Sample moments; `None` for an empty sample.
    pub fn moments(&self) -> Option<Moments> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        Some(Moments::from_raw(self.shift, self.sums.map(|s| s / n)))
    }
}

/// How often something happened, as a rate with its binomial standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count {
    pub hits: u64,
    pub trials: u64,
}

impl Count {
    pub fn rate(&self) -> f64 {
        self.hits as f64 / self.trials as f64
    }

    /// Standard error of the rate, `sqrt(p (1 - p) / n)`.
    pub fn standard_error(&self) -> f64 {
        let p = self.rate();
        (p * (1.0 - p) / self.trials as f64).sqrt()
    }

    pub fn merge(&mut self, other: &Count) {
        self.hits += other.hits;
        self.trials += other.trials;
    }
}

/// A rate and its standard error, as reports print them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    pub rate: f64,
    pub se: f64,
}

impl From<Count> for Rate {
    fn from(c: Count) -> Rate {
        Rate {
            rate: c.rate(),
            se: c.standard_error(),
        }
    }
}

/// Central moments `E[(X - mean)^k]`, `k = 0..=max`, of a distribution on `0, 1, 2, ...`
/// given by its probabilities (for standard errors of sample moments).
pub fn central_moments_of_pmf(pmf: &[f64], max: usize) -> Vec<f64> {
    let mean: f64 = pmf.iter().enumerate().map(|(t, p)| t as f64 * p).sum();
    (0..=max)
        .map(|k| {
            pmf.iter()
                .enumerate()
                .map(|(t, p)| (t as f64 - mean).powi(k as i32) * p)
                .sum()
        })
        .collect()
}

/// Large-sample standard errors of the sample mean, variance and third central moment from a
/// distribution's central moments `mu[0..=6]` (delta method; Kendall & Stuart, ch. 10).
pub fn moment_standard_errors(mu: &[f64], n: u64) -> [f64; 3] {
    let n = n as f64;
    let (m2, m3, m4, m6) = (mu[2], mu[3], mu[4], mu[6]);
    [
        (m2 / n).sqrt(),
        ((m4 - m2 * m2) / n).sqrt(),
        ((m6 - m3 * m3 - 6.0 * m4 * m2 + 9.0 * m2.powi(3)) / n).sqrt(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_sums_give_central_moments_of_a_known_sample() {
        // Sample 1, 2, 3, 4, 10: mean 4, deviations -3 -2 -1 0 6.
        for shift in [0.0, 4.0, 3.7, -100.0] {
            let mut s = PowerSums::new(shift);
            for x in [1.0, 2.0, 3.0, 4.0, 10.0] {
                s.push(x);
            }
            let m = s.moments().expect("non-empty");
            let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * (1.0 + b.abs());
            assert!(close(m.mean, 4.0));
            assert!(close(m.variance, (9.0 + 4.0 + 1.0 + 0.0 + 36.0) / 5.0));
            assert!(close(m.m3, (-27.0 - 8.0 - 1.0 + 0.0 + 216.0) / 5.0));
            assert!(close(m.m4, (81.0 + 16.0 + 1.0 + 0.0 + 1296.0) / 5.0));
        }
        assert!(PowerSums::new(0.0).moments().is_none());
    }

    #[test]
    fn independent_sums_add_cumulants() {
        // Two normals: the sum is normal, so its m4 is 3 var^2.
        let s = Moments::normal(1.0, 2.0).add_independent(&Moments::normal(3.0, 1.5));
        assert_eq!(s.mean, 4.0);
        assert_eq!(s.variance, 6.25);
        assert!((s.m4 - 3.0 * 6.25 * 6.25).abs() < 1e-12);
    }

    #[test]
    fn rate_standard_error_is_binomial() {
        let c = Count {
            hits: 25,
            trials: 100,
        };
        assert_eq!(c.rate(), 0.25);
        assert!((c.standard_error() - (0.25f64 * 0.75 / 100.0).sqrt()).abs() < 1e-15);
    }
}
