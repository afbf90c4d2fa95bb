//! The random-walk part `W` computed deterministically, without random numbers: the density of
//! the still-undecided walk on `(-1, 1)` is propagated by the transition kernel
//! `k(x, y) = phi((y - x) / A) / A`, discretised by Gauss-Legendre quadrature (Nystrom method).
//!
//! With `f_1(x) = phi(x / A) / A` the density after the first step and `K` the discretised
//! kernel, `P(W > t) = w . K^(t-1) f_1` for `t >= 1`. Moments come from the resolvent
//! `R = (I - K)^-1`: `T_j = w . R^j f_1 = sum_{t>=1} C(t+j-2, j-1) P(W > t)`, and
//! `E[W^k] = sum_{t>=0} ((t+1)^k - t^k) P(W > t)` is a combination of `T_1..T_4`.
//! The probabilities `P(W = t)` come from iterating `K`.
//!
//! Invariant and precision: every density here is analytic on `[-1, 1]` (a Gaussian convolution),
//! so Gauss-Legendre converges exponentially in the number of nodes. [`nodes_for`] picks enough
//! nodes for the moments to agree with a rule of twice as many nodes to ~1e-12 relative (checked
//! by the tests). This is the independent check for the Monte Carlo walk.
//!
//! See: E. J. Nystrom (1930); K. E. Atkinson, "The Numerical Solution of Integral Equations of
//! the Second Kind" (1997), ch. 4.

use std::num::NonZeroUsize;

use gauss_quad::legendre::GaussLegendre;
use nalgebra::{DMatrix, DVector};

use crate::error::{SimError, check};
use crate::moments::Moments;

/// Smallest and largest step sizes the kernel accepts. Below `A_MIN` the node count (`10 / A`)
/// makes the dense solve slow (1000 nodes: about 0.1 s); above `A_MAX` the walk ends on its first
/// step anyway.
pub const A_MIN: f64 = 0.01;
pub const A_MAX: f64 = 20.0;

/// Gauss-Legendre nodes used for step size `a`: enough to resolve the kernel's width `a`
/// (measured: about `6 / A` nodes already agree with `2000` nodes to 1e-13 relative).
pub fn nodes_for(a: f64) -> usize {
    ((10.0 / a).ceil() as usize).clamp(48, 1000)
}

/// The discretised walk for one step size.
#[derive(Debug, Clone)]
pub struct WalkKernel {
    a: f64,
    weights: DVector<f64>,
    /// `K[i][j] = w_j k(x_j, x_i)`: one step maps density values at the nodes to new values.
    step: DMatrix<f64>,
    /// Density after the first step, at the nodes.
    first: DVector<f64>,
}

fn std_normal_pdf(z: f64) -> f64 {
    const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
    INV_SQRT_2PI * (-0.5 * z * z).exp()
}

impl WalkKernel {
    /// The kernel for step size `a` with the default node count.
    pub fn new(a: f64) -> Result<WalkKernel, SimError> {
        let a = check("A", a, "in [0.01, 20] for the deterministic kernel", |a| {
            (A_MIN..=A_MAX).contains(&a)
        })?;
        Ok(WalkKernel::with_nodes(a, nodes_for(a)))
    }

    /// The kernel with an explicit number of quadrature nodes (for convergence checks).
    pub fn with_nodes(a: f64, nodes: usize) -> WalkKernel {
        let rule = GaussLegendre::new(NonZeroUsize::new(nodes.max(2)).expect("at least 2"));
        let (x, w): (Vec<f64>, Vec<f64>) = rule.into_iter().unzip();
        let n = x.len();
        let step = DMatrix::from_fn(n, n, |i, j| w[j] * std_normal_pdf((x[i] - x[j]) / a) / a);
        let first = DVector::from_iterator(n, x.iter().map(|&xi| std_normal_pdf(xi / a) / a));
        WalkKernel {
            a,
            weights: DVector::from_vec(w),
            step,
            first,
        }
    }

    pub fn a(&self) -> f64 {
        self.a
    }

    pub fn nodes(&self) -> usize {
        self.weights.len()
    }

    /// Mean and central moments of `W`, from the resolvent.
    pub fn moments(&self) -> Moments {
        let n = self.nodes();
        let lu = (DMatrix::identity(n, n) - &self.step).lu();
        let mut g = self.first.clone();
        let mut t = [0.0; 4];
        for tj in &mut t {
            g = lu
                .solve(&g)
                .expect("I - K is invertible: K has spectral radius < 1");
            *tj = self.weights.dot(&g);
        }
        let [t1, t2, t3, t4] = t;
        let raw = [
            1.0 + t1,
            1.0 + 2.0 * t2 + t1,
            1.0 + 6.0 * t3 + t1,
            1.0 + 24.0 * t4 - 12.0 * t3 + 2.0 * t2 + t1,
        ];
        let mean = raw[0];
        // Central moments from raw moments about zero (exact enough: E[W^4] ~ 1e6 while
        // m4 ~ 1e5 for the published parameters).
        let about_zero = Moments::from_raw(0.0, raw);
        Moments { mean, ..about_zero }
    }

    /// `P(W = t)` for `t = 0, 1, 2, ...` until the undecided mass falls below `tail`.
    /// Entry 0 is always 0 (the walk takes at least one step).
    pub fn pmf(&self, tail: f64) -> Vec<f64> {
        let mut pmf = vec![0.0];
        let mut density = self.first.clone();
        let mut survival = 1.0;
        loop {
            let next_survival = self.weights.dot(&density).max(0.0);
            pmf.push((survival - next_survival).max(0.0));
            survival = next_survival;
            if survival < tail {
                break;
            }
            density = &self.step * &density;
        }
        pmf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moments::central_moments_of_pmf;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn first_step_survival_is_the_normal_probability() {
        // P(W > 1) = P(|A Z| < 1) = erf(1 / (A sqrt 2)), a closed form. Tolerance 1e-9: statrs
        // 0.19.1's erf is only good to ~5e-11 absolute on [0.5, 1.5] (its interval constants
        // were truncated; statrs-dev/statrs#412), far below anything the simulator resolves.
        for a in [0.2474, 0.5, 1.3] {
            let k = WalkKernel::new(a).expect("valid A");
            let pmf = k.pmf(1e-15);
            let exact = statrs::function::erf::erf(1.0 / (a * std::f64::consts::SQRT_2));
            assert!((1.0 - pmf[1] - exact).abs() < 1e-9, "a = {a}");
        }
    }

    #[test]
    fn resolvent_moments_match_the_iterated_distribution() {
        for a in [0.2262, 0.2474, 0.8] {
            let k = WalkKernel::new(a).expect("valid A");
            let m = k.moments();
            let pmf = k.pmf(1e-18);
            assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let mu = central_moments_of_pmf(&pmf, 4);
            let mean: f64 = pmf.iter().enumerate().map(|(t, p)| t as f64 * p).sum();
            assert!(rel(m.mean, mean) < 1e-12, "a = {a}");
            assert!(rel(m.variance, mu[2]) < 1e-10, "a = {a}");
            assert!(rel(m.m3, mu[3]) < 1e-9, "a = {a}");
            assert!(rel(m.m4, mu[4]) < 1e-9, "a = {a}");
        }
    }

    #[test]
    fn default_node_count_has_converged() {
        // Doubling the nodes must not move the moments: that bounds the discretisation error.
        // What is left is rounding in the dense solve, which grows with the condition number of
        // `I - K` (about E[W]): ~1e-12 relative at A = 0.02, hence these bounds.
        for a in [0.02, 0.1, 0.2262, 0.2474, 1.0, 5.0] {
            let n = nodes_for(a);
            let coarse = WalkKernel::with_nodes(a, n).moments();
            let fine = WalkKernel::with_nodes(a, 2 * n).moments();
            assert!(rel(coarse.mean, fine.mean) < 1e-10, "a = {a}");
            assert!(rel(coarse.variance, fine.variance) < 1e-10, "a = {a}");
            assert!(rel(coarse.m3, fine.m3) < 1e-9, "a = {a}");
            assert!(rel(coarse.m4, fine.m4) < 1e-9, "a = {a}");
        }
    }

    #[test]
    fn rejects_step_sizes_outside_the_kernel_range() {
        assert!(WalkKernel::new(0.0).is_err());
        assert!(WalkKernel::new(f64::NAN).is_err());
        assert!(WalkKernel::new(100.0).is_err());
    }
}
