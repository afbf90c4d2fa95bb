//! The source's council figures as sweeps of council points (seed 000, figures council_1,
//! council_syn, council_2 and council_3).
//!
//! - noise sweep: three members `s1 < s2 = s3`, `s1/d` fixed, `s2/d` on the x axis, for each
//!   `n` and each sync rate between members 2 and 3 (the source: `n = 2, 3`, sync 0 and 0.5);
//! - members sweep: `N` members with equal `s/d` (the source: `s = 2d`), `N` on the x axis.
//!
//! Every point is a full council run with the sweep's master seed (common random numbers: the
//! points share their noise draws as far as the trial layout allows, so differences between
//! neighbouring points are less noisy than their separate standard errors suggest). `d = 1`, so
//! noises are given in units of `d`.

use serde::Serialize;

use super::simulate::{CouncilRates, simulate};
use super::{CouncilParams, SyncPair};
use crate::error::SimError;

/// One point of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    pub candidates: usize,
    /// Sync rate between members 2 and 3 (0 in the members sweep).
    pub sync: f64,
    /// `s2/d` in the noise sweep, the number of members in the members sweep.
    pub x: f64,
    pub sigma: Vec<f64>,
    pub rates: CouncilRates,
    /// Agreement of members 1-2 and 2-3 (`None` with fewer members).
    pub agreement_12: Option<f64>,
    pub agreement_23: Option<f64>,
}

/// Which figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SweepSpec {
    Noise {
        s1: f64,
        s2: Vec<f64>,
        candidates: Vec<usize>,
        syncs: Vec<f64>,
    },
    Members {
        sigma: f64,
        members: Vec<usize>,
        candidates: Vec<usize>,
    },
}

impl SweepSpec {
    /// Every council of the sweep, in output order, with its x value and sync rate.
    pub fn points(&self) -> Result<Vec<(CouncilParams, f64, f64)>, SimError> {
        let mut out = Vec::new();
        match self {
            SweepSpec::Noise {
                s1,
                s2,
                candidates,
                syncs,
            } => {
                for &n in candidates {
                    for &rho in syncs {
                        for &s in s2 {
                            let sync = if rho > 0.0 {
                                vec![SyncPair {
                                    from: 1,
                                    to: 2,
                                    rho,
                                }]
                            } else {
                                vec![]
                            };
                            out.push((CouncilParams::new(n, vec![*s1, s, s], 1.0, sync)?, s, rho));
                        }
                    }
                }
            }
            SweepSpec::Members {
                sigma,
                members,
                candidates,
            } => {
                for &n in candidates {
                    for &m in members {
                        let p = CouncilParams::new(n, vec![*sigma; m], 1.0, vec![])?;
                        out.push((p, m as f64, 0.0));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Runs every point of `spec` with `trials` trials each, all from master seed `seed`.
pub fn run(
    spec: &SweepSpec,
    trials: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SweepPoint>, SimError> {
    Ok(spec
        .points()?
        .into_iter()
        .map(|(params, x, sync)| {
            let run = simulate(&params, trials, seed, progress);
            let agreement = run.agreement();
            let pair = |i: usize, j: usize| agreement.get(i).and_then(|r| r.get(j)).copied();
            SweepPoint {
                candidates: params.candidates,
                sync,
                x,
                sigma: params.sigma.clone(),
                rates: run.rates(),
                agreement_12: pair(0, 1),
                agreement_23: pair(1, 2),
            }
        })
        .collect())
}

/// `from, from + step, ..., to` (inclusive, robust to rounding).
pub fn grid(from: f64, to: f64, step: f64) -> Vec<f64> {
    if step.is_nan() || step <= 0.0 || to < from {
        return vec![from];
    }
    let count = ((to - from) / step + 1e-9).floor() as usize;
    (0..=count).map(|i| from + step * i as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_includes_both_ends() {
        assert_eq!(grid(1.0, 2.0, 0.25), vec![1.0, 1.25, 1.5, 1.75, 2.0]);
        assert_eq!(grid(1.0, 1.0, 0.5), vec![1.0]);
        assert_eq!(grid(0.5, 1.0, 0.0), vec![0.5]);
    }

    #[test]
    fn noise_sweep_has_every_combination_in_order() {
        let spec = SweepSpec::Noise {
            s1: 1.0,
            s2: vec![1.5, 2.0],
            candidates: vec![2, 3],
            syncs: vec![0.0, 0.5],
        };
        let pts = spec.points().expect("valid");
        assert_eq!(pts.len(), 8);
        assert_eq!(pts[0].0.sigma, vec![1.0, 1.5, 1.5]);
        assert!(pts[0].0.syncs.is_empty());
        assert_eq!(pts[2].0.syncs.len(), 1);
        assert_eq!(pts[7].0.candidates, 3);
    }
}
