//! The simple majority model (models.md section 4, seed 000, appendix of the 2016-12 article).
//!
//! Three voters pick the best of `B` candidates with probabilities `p1 >= p2 = p3 = p1 - delta`;
//! a voter that misses picks uniformly among the `B - 1` others. The majority plays the best
//! move when at least two voters pick it, or when only the strongest does and the other two
//! picked different moves:
//! `P = P(at least two pick best) + p1 (1 - p2)(1 - p3)(1 - 1/(B - 1))`.
//! With `p1 = 1/B + a`, majority beats its strongest voter (`P > p1`) to first order in `delta`
//! when `delta < a/2`, for every `B`; the exact threshold solves a quadratic in `p2`.

use rand::RngExt;
use serde::Serialize;

use crate::error::{SimError, check};
use crate::moments::Count;
use crate::streams;

/// `P(the majority of three voters plays the best move)`: voter 1 (the strongest, who breaks
/// three-way splits) picks it with `p1`, voters 2 and 3 with `p2` and `p3`, misses uniform among
/// the other `b - 1` candidates.
pub fn majority_of_three(p1: f64, p2: f64, p3: f64, b: f64) -> f64 {
    let at_least_two =
        p1 * p2 * p3 + p1 * p2 * (1.0 - p3) + p1 * (1.0 - p2) * p3 + (1.0 - p1) * p2 * p3;
    at_least_two + p1 * (1.0 - p2) * (1.0 - p3) * (1.0 - 1.0 / (b - 1.0))
}

/// The model's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MajorityModel {
    pub p1: f64,
    pub delta: f64,
    /// `B`, the number of effective candidates (an integer >= 2 so it can be simulated).
    pub candidates: u32,
}

/// Exact results and the first-order approximation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MajorityExact {
    /// `P`, the majority's best-move rate.
    pub p: f64,
    /// `p1`, the strongest voter's rate.
    pub strongest: f64,
    /// `a = p1 - 1/B`.
    pub a: f64,
    /// The `delta` at which `P = p1` exactly (`None` when `a <= 0`: the majority never wins).
    pub threshold_delta: Option<f64>,
    /// `a / 2`.
    pub first_order_threshold: f64,
}

impl MajorityModel {
    pub fn new(p1: f64, delta: f64, candidates: u32) -> Result<MajorityModel, SimError> {
        let p1 = check("--p1", p1, "in (0, 1]", |p| p > 0.0 && p <= 1.0)?;
        check("--delta", delta, "in [0, p1]", |d| (0.0..=p1).contains(&d))?;
        if candidates < 2 {
            return Err(SimError::Parameter {
                name: "--candidates",
                expected: "an integer >= 2",
                value: candidates.to_string(),
            });
        }
        Ok(MajorityModel {
            p1,
            delta,
            candidates,
        })
    }

    pub fn p2(&self) -> f64 {
        self.p1 - self.delta
    }

    pub fn exact(&self) -> MajorityExact {
        let b = f64::from(self.candidates);
        let a = self.p1 - 1.0 / b;
        MajorityExact {
            p: majority_of_three(self.p1, self.p2(), self.p2(), b),
            strongest: self.p1,
            a,
            threshold_delta: threshold_delta(self.p1, self.candidates),
            first_order_threshold: a / 2.0,
        }
    }

    /// Monte Carlo estimate of `P` over `trials` trials.
    pub fn simulate(&self, trials: u64, seed: u64, progress: &(dyn Fn(u64) + Sync)) -> Count {
        let b = self.candidates;
        let p = [self.p1, self.p2(), self.p2()];
        let mut total = Count::default();
        streams::run(
            seed,
            trials.max(1),
            |batch| {
                let mut rng = batch.rng;
                let mut hits = 0u64;
                for _ in 0..batch.items {
                    // Candidate 0 is the best; a miss is uniform over 1..b.
                    let mut pick = [0u32; 3];
                    for (v, &pv) in pick.iter_mut().zip(&p) {
                        *v = if rng.random::<f64>() < pv {
                            0
                        } else {
                            rng.random_range(1..b)
                        };
                    }
                    let played = if pick[1] == pick[2] {
                        pick[1]
                    } else {
                        // Either voter 1 agrees with one of the others or all differ: voter 1.
                        pick[0]
                    };
                    hits += u64::from(played == 0);
                }
                Count {
                    hits,
                    trials: batch.items,
                }
            },
            |c| total.merge(&c),
            progress,
        );
        total
    }
}

/// The exact `delta` with `P(p1, p1 - delta, p1 - delta) = p1`.
///
/// With `q = p1 - delta` and `c = 1 - 1/(B - 1)`, `P - p1` is the quadratic
/// `(1 - 2 p1 + p1 c) q^2 + 2 p1 (1 - c) q - p1 (1 - c)`; it is negative at `q = 0` and, when
/// `a > 0`, positive at `q = p1`, so exactly one root lies in `(0, p1)`.
pub fn threshold_delta(p1: f64, candidates: u32) -> Option<f64> {
    let b = f64::from(candidates);
    if p1 <= 1.0 / b || candidates < 2 {
        return None;
    }
    let c = 1.0 - 1.0 / (b - 1.0);
    let roots = roots::find_roots_quadratic(
        1.0 - 2.0 * p1 + p1 * c,
        2.0 * p1 * (1.0 - c),
        -p1 * (1.0 - c),
    );
    roots
        .as_ref()
        .iter()
        .copied()
        .find(|q| (0.0..=p1).contains(q))
        .map(|q| p1 - q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_p_counts_every_winning_vote_pattern() {
        // Enumerate all B^3 vote patterns with their probabilities and apply the majority rule.
        for (p1, p2, p3, b) in [
            (0.6, 0.5, 0.4, 3u32),
            (0.5, 0.45, 0.45, 2),
            (0.3, 0.2, 0.25, 5),
        ] {
            let pr = |p: f64, v: u32| {
                if v == 0 {
                    p
                } else {
                    (1.0 - p) / f64::from(b - 1)
                }
            };
            let mut total = 0.0;
            for v1 in 0..b {
                for v2 in 0..b {
                    for v3 in 0..b {
                        let played = if v2 == v3 { v2 } else { v1 };
                        if played == 0 {
                            total += pr(p1, v1) * pr(p2, v2) * pr(p3, v3);
                        }
                    }
                }
            }
            let p = majority_of_three(p1, p2, p3, f64::from(b));
            assert!((p - total).abs() < 1e-15, "{p} vs {total}");
        }
    }

    #[test]
    fn threshold_makes_majority_equal_to_the_strongest() {
        for (p1, b) in [(0.6, 2u32), (0.55, 3), (0.4, 5), (0.9, 10)] {
            let d = threshold_delta(p1, b).expect("a > 0");
            let m = MajorityModel::new(p1, d, b).expect("valid");
            assert!((m.exact().p - p1).abs() < 1e-14);
            // Below the threshold the majority is better, above it worse.
            let below = MajorityModel::new(p1, d * 0.9, b).expect("valid").exact().p;
            let above = MajorityModel::new(p1, (d * 1.1).min(p1), b)
                .expect("valid")
                .exact()
                .p;
            assert!(below > p1 && above < p1);
        }
        assert_eq!(threshold_delta(0.3, 3), None);
    }

    #[test]
    fn first_order_threshold_is_the_small_a_limit() {
        // delta* = a/2 + O(a^2): the ratio tends to 1 as a -> 0, for any B.
        for b in [2u32, 3, 7] {
            let a = 1e-5;
            let d = threshold_delta(1.0 / f64::from(b) + a, b).expect("a > 0");
            assert!((d / (a / 2.0) - 1.0).abs() < 1e-3, "B = {b}: {d}");
        }
    }

    #[test]
    fn monte_carlo_agrees_with_the_exact_p_within_5_standard_errors() {
        // 5 standard errors: a correct implementation fails with probability 6e-7 per check.
        for (p1, delta, b) in [(0.6, 0.05, 3u32), (0.5, 0.2, 2), (0.35, 0.03, 5)] {
            let m = MajorityModel::new(p1, delta, b).expect("valid");
            let exact = m.exact().p;
            let c = m.simulate(400_000, 11, &streams::no_progress);
            let se = (exact * (1.0 - exact) / c.trials as f64).sqrt();
            assert!(
                (c.rate() - exact).abs() < 5.0 * se,
                "{} vs {exact}",
                c.rate()
            );
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(MajorityModel::new(1.5, 0.1, 3).is_err());
        assert!(MajorityModel::new(0.5, 0.6, 3).is_err());
        assert!(MajorityModel::new(0.5, 0.1, 1).is_err());
    }
}
