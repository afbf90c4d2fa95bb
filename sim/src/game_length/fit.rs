//! Fitting `A`, `M`, `S` to a target mean, variance and third central moment of `L`.
//!
//! `K` is normal, so the third central moment of `L` is that of `W`, a function of `A` alone:
//! solve `m3(W; A) = m3` first, then `S^2 = var - Var(W)`, `M = mean - E[W]`.
//!
//! Everything is deterministic: `E[W]`, `Var(W)` and `m3(W)` come from the discretised kernel
//! (`kernel`, ~1e-12 relative), and `A` is found by Brent's method on `ln A` to 1e-13. So the
//! fitted model reproduces the target mean, sd and m3 to ~1e-9 relative or better; no Monte
//! Carlo is involved (the source fitted with 1e8 simulated games per evaluation).

use serde::Serialize;

use super::GameLengthParams;
use super::kernel::{A_MIN, WalkKernel};
use crate::error::{SimError, check, positive};
use crate::moments::Moments;

/// Largest `A` the fit searches: the walk then ends on its first step 83% of the time
/// (`m3(W) = 0.306`), so smaller third moments are out of reach of the model.
pub const A_FIT_MAX: f64 = 5.0;

/// Target moments of `L`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FitTarget {
    pub mean: f64,
    pub sd: f64,
    pub m3: f64,
}

impl FitTarget {
    pub fn new(mean: f64, sd: f64, m3: f64) -> Result<FitTarget, SimError> {
        Ok(FitTarget {
            mean: check("--mean", mean, "a finite number", f64::is_finite)?,
            sd: positive("--sd", sd)?,
            m3: positive("--m3 (the model's L is right-skewed)", m3)?,
        })
    }

    /// The target a gamma distribution fixes: mean `k theta`, sd `sqrt(k) theta`, m3 `2 k theta^3`.
    pub fn from_gamma(shape: f64, scale: f64) -> Result<FitTarget, SimError> {
        let k = positive("--gamma-shape", shape)?;
        let t = positive("--gamma-scale", scale)?;
        FitTarget::new(k * t, k.sqrt() * t, 2.0 * k * t.powi(3))
    }
}

/// A fitted model and its exact moments (to compare with the target).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fit {
    pub params: GameLengthParams,
    pub walk: Moments,
    pub length: Moments,
    /// Kernel evaluations the root search used.
    pub evaluations: usize,
}

fn walk_m3(a: f64, evaluations: &mut usize) -> f64 {
    *evaluations += 1;
    WalkKernel::new(a)
        .map(|k| k.moments().m3)
        .unwrap_or(f64::NAN)
}

/// Finds `A, M, S` reproducing `target`.
pub fn fit(target: &FitTarget) -> Result<Fit, SimError> {
    let mut evaluations = 0;
    let mut memo: Vec<(f64, f64)> = Vec::new();
    let mut g = |u: f64| -> f64 {
        if let Some(&(_, v)) = memo.iter().find(|(x, _)| x.to_bits() == u.to_bits()) {
            return v;
        }
        let v = walk_m3(u.exp(), &mut evaluations).ln() - target.m3.ln();
        memo.push((u, v));
        v
    };
    // m3(W) falls with A. Start from the Brownian exit time's third cumulant 16 / (15 A^6)
    // and widen by factors of 1.5 until the root is bracketed (cheap: large A, few nodes).
    let (lo, hi) = (A_MIN.ln(), A_FIT_MAX.ln());
    let start = (16.0 / (15.0 * target.m3))
        .powf(1.0 / 6.0)
        .ln()
        .clamp(lo, hi);
    let (mut left, mut right) = (start, start);
    let out_of_range = |g: &mut dyn FnMut(f64) -> f64| SimError::ThirdMomentOutOfRange {
        target: target.m3,
        a_min: A_MIN,
        a_max: A_FIT_MAX,
        m3_at_min: (g(lo) + target.m3.ln()).exp(),
        m3_at_max: (g(hi) + target.m3.ln()).exp(),
    };
    if g(start) > 0.0 {
        // m3 too large: A must grow.
        while g(right) > 0.0 {
            if right >= hi {
                return Err(out_of_range(&mut g));
            }
            left = right;
            right = (right + 1.5f64.ln()).min(hi);
        }
    } else {
        while g(left) < 0.0 {
            if left <= lo {
                return Err(out_of_range(&mut g));
            }
            right = left;
            left = (left - 1.5f64.ln()).max(lo);
        }
    }
    let mut convergency = roots::SimpleConvergency {
        eps: 1e-13,
        max_iter: 200,
    };
    let u = roots::find_root_brent(left, right, &mut g, &mut convergency)
        .map_err(|_| out_of_range(&mut g))?;
    let a = u.exp();
    let walk = WalkKernel::new(a)?.moments();
    evaluations += 1;
    let variance = target.sd * target.sd;
    let s2 = variance - walk.variance;
    if s2 < 0.0 {
        return Err(SimError::VarianceTooSmall {
            target_variance: variance,
            walk_variance: walk.variance,
            a,
        });
    }
    let params = GameLengthParams::new(a, target.mean - walk.mean, s2.sqrt())?;
    Ok(Fit {
        params,
        walk,
        length: walk.add_independent(&Moments::normal(params.m, params.s)),
        evaluations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_length::Preset;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn recovers_the_published_parameters_from_their_own_moments() {
        for preset in [Preset::Pro, Preset::Floodgate] {
            let p = preset.params();
            let exact = p.exact_moments().expect("in range").length;
            let target = FitTarget::new(exact.mean, exact.sd(), exact.m3).expect("valid");
            let f = fit(&target).expect("fits");
            assert!(rel(f.params.a, p.a) < 1e-9, "{preset:?}: {:?}", f.params);
            assert!(rel(f.params.m, p.m) < 1e-9, "{preset:?}: {:?}", f.params);
            assert!(rel(f.params.s, p.s) < 1e-9, "{preset:?}: {:?}", f.params);
            assert!(rel(f.length.m3, exact.m3) < 1e-9);
        }
    }

    #[test]
    fn gamma_target_is_reproduced() {
        let target = FitTarget::from_gamma(16.0, 7.5).expect("valid");
        let f = fit(&target).expect("fits");
        assert!(rel(f.length.mean, 120.0) < 1e-12);
        assert!(rel(f.length.sd(), 30.0) < 1e-10);
        assert!(rel(f.length.m3, 2.0 * 16.0 * 7.5f64.powi(3)) < 1e-9);
    }

    #[test]
    fn impossible_targets_say_why() {
        // Skewed like a walk with tiny steps but with almost no spread.
        let t = FitTarget::new(100.0, 1.0, 1e6).expect("valid numbers");
        assert!(matches!(fit(&t), Err(SimError::VarianceTooSmall { .. })));
        // A third moment beyond what any A in range gives.
        let t = FitTarget::new(100.0, 1e7, 1e20).expect("valid numbers");
        assert!(matches!(
            fit(&t),
            Err(SimError::ThirdMomentOutOfRange { .. })
        ));
        assert!(FitTarget::new(100.0, 10.0, -5.0).is_err());
        assert!(FitTarget::from_gamma(0.0, 1.0).is_err());
    }
}
