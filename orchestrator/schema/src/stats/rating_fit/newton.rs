//! The log-likelihood of the grouped games and its maximisation by Newton's method (gradient and
//! Fisher information, step halving), with a divergence guard.

use nalgebra::{DMatrix, DVector};

use super::design::{Row, add_outer, dot, sigmoid};

/// Largest |parameter| in natural-log units (about 7000 Elo) before the fit counts as diverging.
const DIVERGENCE: f64 = 40.0;
/// Iterations before the fit counts as not converging.
pub(super) const MAX_ITERATIONS: u32 = 200;

/// The maximum of the likelihood.
pub(super) struct Optimum {
    /// Parameters in reduced coordinates, natural-log units.
    pub(super) theta: DVector<f64>,
    /// Fisher information at `theta`, for the covariance.
    pub(super) info: DMatrix<f64>,
    pub(super) iterations: u32,
    pub(super) log_likelihood: f64,
}

/// `ln L(eta)` for `points` out of `games`, computed without overflow.
fn log_likelihood_row(eta: f64, games: f64, points: f64) -> f64 {
    // ln p = -ln(1 + e^-eta), ln(1 - p) = -ln(1 + e^eta)
    let ln1pexp = |z: f64| {
        if z > 0.0 {
            z + (-z).exp().ln_1p()
        } else {
            z.exp().ln_1p()
        }
    };
    -points * ln1pexp(-eta) - (games - points) * ln1pexp(eta)
}

/// Newton's method with step halving. `Err` is the iteration at which it gave up (a singular
/// information matrix, divergence, or [`MAX_ITERATIONS`]).
pub(super) fn maximise(rows: &[Row], dim: usize) -> Result<Optimum, u32> {
    let mut theta = DVector::<f64>::zeros(dim);
    let evaluate = |theta: &DVector<f64>| -> f64 {
        rows.iter()
            .map(|r| log_likelihood_row(dot(&r.x, theta), r.games, r.points))
            .sum()
    };
    let mut ll = evaluate(&theta);
    for iteration in 1..=MAX_ITERATIONS {
        let mut grad = DVector::<f64>::zeros(dim);
        let mut info = DMatrix::<f64>::zeros(dim, dim);
        for r in rows {
            let p = sigmoid(dot(&r.x, &theta));
            let residual = r.points - r.games * p;
            for &(i, w) in &r.x {
                grad[i] += residual * w;
            }
            add_outer(&mut info, &r.x, r.games * p * (1.0 - p));
        }
        let Some(ch) = info.clone().cholesky() else {
            return Err(iteration);
        };
        let step = ch.solve(&grad);
        let mut t = 1.0;
        let mut next = &theta + &step * t;
        let mut next_ll = evaluate(&next);
        while next_ll < ll - 1e-12 * ll.abs().max(1.0) && t > 1e-10 {
            t /= 2.0;
            next = &theta + &step * t;
            next_ll = evaluate(&next);
        }
        let moved = (&step * t).amax();
        theta = next;
        ll = next_ll;
        if theta.amax() > DIVERGENCE {
            return Err(iteration);
        }
        if moved < 1e-10 || dim == 0 {
            // Information at the optimum, for the covariance.
            let mut info = DMatrix::<f64>::zeros(dim, dim);
            for r in rows {
                let p = sigmoid(dot(&r.x, &theta));
                add_outer(&mut info, &r.x, r.games * p * (1.0 - p));
            }
            return Ok(Optimum {
                theta,
                info,
                iterations: iteration,
                log_likelihood: ll,
            });
        }
    }
    Err(MAX_ITERATIONS)
}
