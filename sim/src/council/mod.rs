//! The council model (models.md section 3, seed 000 "合議の効能" and its appendix).
//!
//! A position has `n` candidates: the true best (candidate 0 here, worth `A = 0`) and `n - 1`
//! others worth `-d`. Member `i` perceives candidate `j` as `true_j + s_i Z_ij` and reports only
//! its best move and that move's value. Sync: for a named pair `I:J`, with probability `rho`
//! member `J` reports exactly what `I` reports.
//!
//! `vote` holds the council methods as pure functions of the reports; `simulate` runs trials;
//! `exact` has closed forms the tests hold the simulation to, and `estimate` runs them backwards
//! (from measured rates to noise); `sweep` reproduces the source's figures. No method may look
//! at which candidate is the true best: ties are broken by member order, never by candidate
//! index (candidate 0 being the best would otherwise bias them).

pub mod estimate;
pub mod exact;
pub mod methods;
pub mod simulate;
pub mod sweep;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::{SimError, check, positive};

/// Member `to` copies member `from`'s report with probability `rho` (0-based indices).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SyncPair {
    pub from: usize,
    pub to: usize,
    pub rho: f64,
}

impl FromStr for SyncPair {
    type Err = String;

    /// `I:J=RHO` with 1-based member numbers, as on the command line.
    fn from_str(s: &str) -> Result<SyncPair, String> {
        let bad =
            || format!("sync {s:?}: expected I:J=RHO with member numbers from 1, e.g. 2:3=0.5");
        let (pair, rho) = s.split_once('=').ok_or_else(bad)?;
        let (i, j) = pair.split_once(':').ok_or_else(bad)?;
        let i: usize = i.trim().parse().map_err(|_| bad())?;
        let j: usize = j.trim().parse().map_err(|_| bad())?;
        let rho: f64 = rho.trim().parse().map_err(|_| bad())?;
        if i == 0 || j == 0 {
            return Err(bad());
        }
        Ok(SyncPair {
            from: i - 1,
            to: j - 1,
            rho,
        })
    }
}

impl fmt::Display for SyncPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}={}", self.from + 1, self.to + 1, self.rho)
    }
}

/// A council and the positions it faces.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CouncilParams {
    /// `n`, the number of candidate moves (>= 2).
    pub candidates: usize,
    /// `s_i`, each member's noise (> 0), in member order.
    pub sigma: Vec<f64>,
    /// `d`, how much worse every other candidate is than the best (> 0).
    pub gap: f64,
    /// Applied in this order after every member has perceived the position.
    pub syncs: Vec<SyncPair>,
    /// `w_i`, each member's vote weight for majority and approval (finite, >= 0; all 1 unless
    /// [`CouncilParams::with_weights`] sets them), in member order.
    #[serde(skip_serializing_if = "all_ones")]
    pub weights: Vec<f64>,
}

fn all_ones(w: &[f64]) -> bool {
    w.iter().all(|&x| x == 1.0)
}

impl CouncilParams {
    pub fn new(
        candidates: usize,
        sigma: Vec<f64>,
        gap: f64,
        syncs: Vec<SyncPair>,
    ) -> Result<CouncilParams, SimError> {
        if candidates < 2 {
            return Err(SimError::Parameter {
                name: "--candidates",
                expected: "at least 2",
                value: candidates.to_string(),
            });
        }
        if sigma.is_empty() {
            return Err(SimError::Parameter {
                name: "--sigma",
                expected: "at least one member's noise",
                value: String::new(),
            });
        }
        for &s in &sigma {
            positive("--sigma (every member's noise)", s)?;
        }
        positive("--gap", gap)?;
        for p in &syncs {
            if p.from >= sigma.len() || p.to >= sigma.len() || p.from == p.to {
                return Err(SimError::Parameter {
                    name: "--sync",
                    expected: "two different member numbers from 1 to the number of members",
                    value: p.to_string(),
                });
            }
            check("--sync RHO", p.rho, "in [0, 1]", |r| {
                (0.0..=1.0).contains(&r)
            })?;
        }
        Ok(CouncilParams {
            candidates,
            weights: vec![1.0; sigma.len()],
            sigma,
            gap,
            syncs,
        })
    }

    /// The same council with vote weights `weights` (one per member, finite, >= 0) for majority
    /// and approval.
    pub fn with_weights(mut self, weights: Vec<f64>) -> Result<CouncilParams, SimError> {
        if weights.len() != self.sigma.len() {
            return Err(SimError::Parameter {
                name: "--weights",
                expected: "one weight per member (as many as --sigma)",
                value: format!("{} weights for {} members", weights.len(), self.sigma.len()),
            });
        }
        for &w in &weights {
            check(
                "--weights (every member's weight)",
                w,
                "a finite number >= 0",
                |w| w.is_finite() && w >= 0.0,
            )?;
        }
        self.weights = weights;
        Ok(self)
    }

    pub fn members(&self) -> usize {
        self.sigma.len()
    }

    /// The strongest member: smallest noise, the first listed among equals.
    pub fn strongest(&self) -> usize {
        let mut best = 0;
        for (i, &s) in self.sigma.iter().enumerate() {
            if s < self.sigma[best] {
                best = i;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_pairs_parse_one_based() {
        let p: SyncPair = "2:3=0.5".parse().expect("valid");
        assert_eq!(
            p,
            SyncPair {
                from: 1,
                to: 2,
                rho: 0.5
            }
        );
        assert_eq!(p.to_string(), "2:3=0.5");
        for bad in ["2-3=0.5", "2:3", "0:1=0.5", "a:b=c", "2:3=x"] {
            assert!(bad.parse::<SyncPair>().is_err(), "{bad}");
        }
    }

    #[test]
    fn parameters_are_validated() {
        let ok = |n, s: Vec<f64>, d, y: Vec<SyncPair>| CouncilParams::new(n, s, d, y);
        assert!(ok(3, vec![1.0, 2.0, 2.0], 1.0, vec![]).is_ok());
        assert!(ok(1, vec![1.0], 1.0, vec![]).is_err());
        assert!(ok(3, vec![], 1.0, vec![]).is_err());
        assert!(ok(3, vec![1.0, -2.0], 1.0, vec![]).is_err());
        assert!(ok(3, vec![1.0], 0.0, vec![]).is_err());
        let pair = |from, to, rho| SyncPair { from, to, rho };
        assert!(ok(3, vec![1.0, 2.0], 1.0, vec![pair(0, 2, 0.5)]).is_err());
        assert!(ok(3, vec![1.0, 2.0], 1.0, vec![pair(1, 1, 0.5)]).is_err());
        assert!(ok(3, vec![1.0, 2.0], 1.0, vec![pair(0, 1, 1.5)]).is_err());
        let two = || ok(3, vec![1.0, 2.0], 1.0, vec![]).expect("valid");
        assert_eq!(two().weights, vec![1.0, 1.0]);
        assert!(two().with_weights(vec![0.0, 2.5]).is_ok());
        assert!(two().with_weights(vec![1.0]).is_err());
        assert!(two().with_weights(vec![1.0, -0.5]).is_err());
        assert!(two().with_weights(vec![1.0, f64::INFINITY]).is_err());
    }

    #[test]
    fn strongest_is_smallest_noise_first_listed() {
        let p = CouncilParams::new(2, vec![2.0, 1.0, 1.0], 1.0, vec![]).expect("valid");
        assert_eq!(p.strongest(), 1);
    }
}
