//! Logistic regression on one predictor, `p = 1 / (1 + exp(-(m0 + m1 x)))`, by maximum
//! likelihood (Newton's method on the log-likelihood): seed 004's model of a game being chosen
//! as famous from its root-leaf correlation (`council-analyze famous`).
//!
//! See: A. Agresti, "Categorical Data Analysis" (3rd ed., 2013), §5.1 and §4.6.1 (Newton-Raphson
//! for the logistic model).

/// The model's probability at `x`.
#[must_use]
pub fn probability(m0: f64, m1: f64, x: f64) -> f64 {
    1.0 / (1.0 + (-(m0 + m1 * x)).exp())
}

/// `(m0, m1)` by maximum likelihood on `(x, outcome)` pairs; `None` when the information matrix
/// is singular (no spread in `x`, or no data) or the fit runs off to infinity (separable data).
#[must_use]
pub fn fit(data: &[(f64, bool)]) -> Option<(f64, f64)> {
    let (mut m0, mut m1) = (0.0, 0.0);
    for _ in 0..200 {
        let (mut g0, mut g1, mut h00, mut h01, mut h11) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(x, y) in data {
            let p = 1.0 / (1.0 + (-(m0 + m1 * x)).exp());
            let r = f64::from(u8::from(y)) - p;
            g0 += r;
            g1 += r * x;
            let w = p * (1.0 - p);
            h00 += w;
            h01 += w * x;
            h11 += w * x * x;
        }
        let det = h00 * h11 - h01 * h01;
        if det.abs() < 1e-300 {
            return None;
        }
        let (d0, d1) = ((h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det);
        m0 += d0;
        m1 += d1;
        if d0.abs() + d1.abs() < 1e-12 {
            break;
        }
    }
    (m0.is_finite() && m1.is_finite()).then_some((m0, m1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn finds_the_separating_direction() {
        let data = [
            (0.1, true),
            (0.2, true),
            (0.3, false),
            (0.25, true),
            (0.9, false),
            (0.8, false),
            (0.15, false),
            (0.7, true),
        ];
        let (_, m1) = fit(&data).unwrap();
        assert!(m1 < 0.0);
    }

    #[test]
    fn recovers_the_model_it_was_drawn_from() {
        // 20000 outcomes drawn from m0 = -1, m1 = 3 over x uniform in [-1, 2], seeded: the
        // estimates' standard errors are about 0.03 and 0.04.
        let (m0, m1) = (-1.0, 3.0);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let data: Vec<(f64, bool)> = (0..20_000)
            .map(|_| {
                let x = rng.random_range(-1.0..2.0);
                (x, rng.random::<f64>() < probability(m0, m1, x))
            })
            .collect();
        let (a, b) = fit(&data).unwrap();
        assert!((a - m0).abs() < 0.12 && (b - m1).abs() < 0.15, "{a} {b}");
    }

    #[test]
    fn no_spread_no_fit() {
        assert_eq!(fit(&[(1.0, true), (1.0, false)]), None);
        assert_eq!(fit(&[]), None);
    }
}
