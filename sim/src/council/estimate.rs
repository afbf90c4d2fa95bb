//! The council model run backwards: from measured rates to the model's parameters.
//! `council-analyze council` estimates a real council's members with these before it predicts
//! the methods' rates with `simulate`.
//!
//! - `noise_for_rate` inverts `exact::single_rate`: the noise `s / d` at which one member finds
//!   the best of `n` candidates with rate `p` (bisection on `ln s`; the rate falls as `s` grows).
//! - `rates_from_agreement` solves `exact::agreement`'s equations for the members' rates by least
//!   squares, assuming independent members: the rates the agreements of three or more members
//!   imply when no reference says which move was best.

use super::exact::{agreement, single_rate};

/// `s / d` giving best-move rate `p` for one member among `n` candidates, clamped to
/// `[0.01, 100]` (rates beyond those ends give the ends).
#[must_use]
pub fn noise_for_rate(p: f64, n: usize) -> f64 {
    let (mut lo, mut hi) = ((0.01f64).ln(), (100.0f64).ln());
    if p >= single_rate(n, lo.exp(), 1.0) {
        return lo.exp();
    }
    if p <= single_rate(n, hi.exp(), 1.0) {
        return hi.exp();
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if single_rate(n, mid.exp(), 1.0) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// Least-squares rates `p` from the independent-agreement equations
/// `a[i][j] = agreement(p_i, p_j, n)` (upper triangle read; `NaN` entries are left out), each
/// rate in `(1/n, 1]`: coordinate descent, a golden-section search on each rate in turn.
#[must_use]
pub fn rates_from_agreement(a: &[Vec<f64>], n: usize) -> Vec<f64> {
    let m = a.len();
    let lo = 1.0 / n as f64 + 1e-6;
    let mut p = vec![0.6f64.max(lo); m];
    let loss = |p: &[f64]| {
        let mut s = 0.0;
        for i in 0..m {
            for j in i + 1..m {
                if a[i][j].is_finite() {
                    s += (agreement(p[i], p[j], n) - a[i][j]).powi(2);
                }
            }
        }
        s
    };
    for _ in 0..60 {
        for i in 0..m {
            let (mut x0, mut x1) = (lo, 1.0);
            for _ in 0..60 {
                let g = 0.381_966_011_250_105;
                let (u, v) = (x0 + g * (x1 - x0), x1 - g * (x1 - x0));
                let mut pu = p.clone();
                pu[i] = u;
                let mut pv = p.clone();
                pv[i] = v;
                if loss(&pu) < loss(&pv) {
                    x1 = v;
                } else {
                    x0 = u;
                }
            }
            p[i] = 0.5 * (x0 + x1);
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streams::SimRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, StandardNormal};

    #[test]
    fn noise_inverts_the_single_member_rate() {
        for n in [2, 3, 5] {
            for s in [0.3, 1.0, 2.5] {
                let p = single_rate(n, s, 1.0);
                assert!((noise_for_rate(p, n) / s - 1.0).abs() < 1e-6, "n {n} s {s}");
            }
        }
    }

    #[test]
    fn noise_comes_back_from_a_member_drawn_from_the_model() {
        // A member perceives the best move at 0 and the other n - 1 at -1, each plus s Z; it
        // plays its highest. 100000 seeded positions give p within 0.005 (1.6 standard
        // errors at most), which puts s within a few percent.
        let mut rng = SimRng::seed_from_u64(6);
        for (n, s) in [(2usize, 0.7), (4, 1.5)] {
            let hits = (0..100_000)
                .filter(|_| {
                    let mut noise = || {
                        let z: f64 = StandardNormal.sample(&mut rng);
                        s * z
                    };
                    let best: f64 = noise();
                    (1..n).all(|_| -1.0 + noise() < best)
                })
                .count();
            let got = noise_for_rate(hits as f64 / 100_000.0, n);
            assert!((got / s - 1.0).abs() < 0.04, "n {n}: s {s}, got {got}");
        }
    }

    #[test]
    fn independent_agreements_give_back_the_rates() {
        let p = [0.8, 0.6, 0.55];
        let n = 3;
        let a: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        if i == j {
                            1.0
                        } else {
                            agreement(p[i], p[j], n)
                        }
                    })
                    .collect()
            })
            .collect();
        let q = rates_from_agreement(&a, n);
        for (x, y) in p.iter().zip(&q) {
            assert!((x - y).abs() < 1e-3, "{p:?} vs {q:?}");
        }
    }

    #[test]
    fn rates_come_back_from_agreements_of_members_drawn_from_the_model() {
        // Four independent members choose the best of n = 3 with their rates, else one of the
        // other two at random (seeded): their measured agreements give back the rates.
        let (p, n) = ([0.85, 0.7, 0.6, 0.5], 3usize);
        let mut rng = SimRng::seed_from_u64(8);
        let mut same = [[0usize; 4]; 4];
        let trials = 50_000;
        for _ in 0..trials {
            let moves: Vec<usize> = p
                .iter()
                .map(|&pi| {
                    if rng.random::<f64>() < pi {
                        0
                    } else {
                        rng.random_range(1..n)
                    }
                })
                .collect();
            for i in 0..4 {
                for j in i + 1..4 {
                    same[i][j] += usize::from(moves[i] == moves[j]);
                }
            }
        }
        let a: Vec<Vec<f64>> = (0..4)
            .map(|i| {
                (0..4)
                    .map(|j| same[i.min(j)][i.max(j)] as f64 / trials as f64)
                    .collect()
            })
            .collect();
        let q = rates_from_agreement(&a, n);
        for (x, y) in p.iter().zip(&q) {
            assert!((x - y).abs() < 0.03, "{p:?} vs {q:?}");
        }
    }
}
