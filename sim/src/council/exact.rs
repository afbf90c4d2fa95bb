//! Closed forms of the council model that the Monte Carlo must reproduce (tests hold it to them).
//!
//! All for independent members (no sync unless a function says otherwise), true best worth 0,
//! others `-d`. One-dimensional integrals use a 400-node Gauss-Legendre rule over the whole
//! range where the integrands are not negligible (±12 noise widths); they are accurate to far
//! below any Monte Carlo standard error (statrs 0.19.1's erf itself is good to ~1e-10).
//!
//! - single member: `P(best) = int phi(z) Phi(z + d/s)^(n-1) dz`, `Phi(d / (s sqrt 2))` for `n = 2`.
//! - optimistic: the best move wins iff the highest of all `N n` perceptions is a best-move one.
//! - pessimistic: the member with the lowest maximum saw the best move as its maximum.
//! - majority of three: misses are uniform over the `n - 1` other moves (they are exchangeable),
//!   so section 4's formula applies with each member's own single rate.
//! - agreement of two members: `p_i p_j + (1 - p_i)(1 - p_j) / (n - 1)`.

use std::num::NonZeroUsize;

use gauss_quad::legendre::GaussLegendre;

use super::CouncilParams;
use crate::normal::cdf;

fn pdf(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

fn integrate(lo: f64, hi: f64, f: impl FnMut(f64) -> f64) -> f64 {
    GaussLegendre::new(NonZeroUsize::new(400).expect("400 > 0")).integrate(lo, hi, f)
}

/// Range of perceived values that matters for this council.
fn value_range(params: &CouncilParams) -> (f64, f64) {
    let s = params.sigma.iter().copied().fold(0.0, f64::max);
    (-params.gap - 12.0 * s, 12.0 * s)
}

/// A single member's best-move rate with noise `s`.
pub fn single_rate(candidates: usize, s: f64, gap: f64) -> f64 {
    if candidates == 2 {
        return cdf(gap / (s * std::f64::consts::SQRT_2));
    }
    let k = (candidates - 1) as i32;
    integrate(-12.0, 12.0, |z| pdf(z) * cdf(z + gap / s).powi(k))
}

/// The optimistic council's best-move rate (independent members).
pub fn optimistic_rate(params: &CouncilParams) -> f64 {
    let (lo, hi) = value_range(params);
    let (d, k) = (params.gap, (params.candidates - 1) as i32);
    integrate(lo, hi, |m| {
        let others: f64 = params
            .sigma
            .iter()
            .map(|s| cdf((m + d) / s).powi(k))
            .product();
        let best_cdfs: Vec<f64> = params.sigma.iter().map(|s| cdf(m / s)).collect();
        let density: f64 = params
            .sigma
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let rest: f64 = best_cdfs
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, c)| c)
                    .product();
                pdf(m / s) / s * rest
            })
            .sum();
        density * others
    })
}

/// The pessimistic council's best-move rate (independent members).
pub fn pessimistic_rate(params: &CouncilParams) -> f64 {
    let (lo, hi) = value_range(params);
    let (d, k) = (params.gap, (params.candidates - 1) as i32);
    integrate(lo, hi, |m| {
        // P(member j's maximum is below m).
        let below: Vec<f64> = params
            .sigma
            .iter()
            .map(|s| cdf(m / s) * cdf((m + d) / s).powi(k))
            .collect();
        params
            .sigma
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let own = pdf(m / s) / s * cdf((m + d) / s).powi(k);
                let rest: f64 = below
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, b)| 1.0 - b)
                    .product();
                own * rest
            })
            .sum()
    })
}

/// The majority's best-move rate for three independent members.
pub fn majority_of_three_rate(params: &CouncilParams) -> Option<f64> {
    if params.members() != 3 {
        return None;
    }
    let p: Vec<f64> = params
        .sigma
        .iter()
        .map(|&s| single_rate(params.candidates, s, params.gap))
        .collect();
    let strongest = params.strongest();
    let (a, b) = match strongest {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    Some(crate::majority::majority_of_three(
        p[strongest],
        p[a],
        p[b],
        params.candidates as f64,
    ))
}

/// How often two independent members with rates `pi`, `pj` choose the same move.
pub fn agreement(pi: f64, pj: f64, candidates: usize) -> f64 {
    pi * pj + (1.0 - pi) * (1.0 - pj) / (candidates - 1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_rate_for_two_candidates_matches_the_integral() {
        // The n = 2 shortcut and the general integral are two routes to the same number.
        for s in [0.3, 1.0, 2.5] {
            let k = 1;
            let integral = integrate(-12.0, 12.0, |z| pdf(z) * cdf(z + 1.0 / s).powi(k));
            assert!((single_rate(2, s, 1.0) - integral).abs() < 1e-9);
        }
    }

    #[test]
    fn rates_of_pure_noise_are_one_in_n() {
        // With huge noise every member is a die: rate 1/n for single and optimistic members.
        let p = CouncilParams::new(4, vec![1e6, 1e6, 1e6], 1.0, vec![]).expect("valid");
        assert!((single_rate(4, 1e6, 1.0) - 0.25).abs() < 1e-6);
        assert!((optimistic_rate(&p) - 0.25).abs() < 1e-6);
        assert!((pessimistic_rate(&p) - 0.25).abs() < 1e-6);
    }

    #[test]
    fn one_member_councils_are_that_member() {
        let p = CouncilParams::new(3, vec![1.3], 1.0, vec![]).expect("valid");
        let single = single_rate(3, 1.3, 1.0);
        assert!((optimistic_rate(&p) - single).abs() < 1e-9);
        assert!((pessimistic_rate(&p) - single).abs() < 1e-9);
    }
}
