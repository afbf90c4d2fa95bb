//! SPSA as fishtest runs it (models.md section 12), as pure functions of the parameters, the
//! iteration number and the seed: nothing here keeps state, so any iteration can be recomputed
//! from θ, k and the seed alone, which is what makes a tune resumable.
//!
//! With K iterations, A = 0.1·K, α = 0.602, γ = 0.101 and per parameter
//! `c = c_end · K^γ`, `a = r_end · c_end² · (A + K)^α`:
//! `c_k = c / (k+1)^γ`, `a_k = a / (A + k + 1)^α`, θ± = clip(θ ± c_k·Δ), and after the games
//! `θ ← clip(θ + (a_k / c_k) · r · Δ)` with `r` = θ+'s wins minus its losses (fishtest's
//! `R·c·result·flip` with `R = a_k / c_k²`). At the last iteration `c_k = c_end` and one won
//! game moves θ by `r_end · c_end`. Integer parameters are rounded when played, never in θ.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use council_schema::config::TuneParam;

/// fishtest's α: how fast the step `a_k` decays.
pub const ALPHA: f64 = 0.602;
/// fishtest's γ: how fast the perturbation `c_k` decays.
pub const GAMMA: f64 = 0.101;
/// A as a share of the iterations (fishtest's default A = 0.1·K).
pub const A_SHARE: f64 = 0.1;

/// Salt of the Δ stream, so Δ and the games' seeds (same master seed) are independent.
const DELTA_SALT: u64 = 0x5350_5341_2d44_454c; // "SPSA-DEL"

/// One iteration's perturbation and gains, all per parameter (in the order of the params).
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub k: u64,
    pub c_k: Vec<f64>,
    pub a_k: Vec<f64>,
    /// ±1 per parameter.
    pub delta: Vec<i8>,
    /// clip(θ + c_k·Δ), unrounded.
    pub plus: Vec<f64>,
    /// clip(θ − c_k·Δ), unrounded.
    pub minus: Vec<f64>,
}

/// `c_k` of parameter `p` at iteration `k` of `iterations`.
pub fn c_k(p: &TuneParam, k: u64, iterations: u64) -> f64 {
    let c = p.c_end * (iterations as f64).powf(GAMMA);
    c / ((k + 1) as f64).powf(GAMMA)
}

/// `a_k` of parameter `p` at iteration `k` of `iterations`.
pub fn a_k(p: &TuneParam, k: u64, iterations: u64) -> f64 {
    let big_a = A_SHARE * iterations as f64;
    let a = p.r_end * p.c_end * p.c_end * (big_a + iterations as f64).powf(ALPHA);
    a / (big_a + (k + 1) as f64).powf(ALPHA)
}

/// Δ of iteration `k` under `seed`: one ±1 per parameter, from a stream of its own per k.
pub fn delta(seed: u64, k: u64, n: usize) -> Vec<i8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ DELTA_SALT);
    rng.set_stream(k);
    (0..n)
        .map(|_| if rng.next_u32() & 1 == 1 { 1 } else { -1 })
        .collect()
}

fn clip(p: &TuneParam, v: f64) -> f64 {
    v.clamp(p.min, p.max)
}

/// The probe of iteration `k` around `theta`.
pub fn probe(params: &[TuneParam], theta: &[f64], k: u64, iterations: u64, seed: u64) -> Probe {
    let delta = delta(seed, k, params.len());
    let c: Vec<f64> = params.iter().map(|p| c_k(p, k, iterations)).collect();
    let a: Vec<f64> = params.iter().map(|p| a_k(p, k, iterations)).collect();
    let shifted = |sign: f64| -> Vec<f64> {
        params
            .iter()
            .enumerate()
            .map(|(i, p)| clip(p, theta[i] + sign * c[i] * f64::from(delta[i])))
            .collect()
    };
    Probe {
        k,
        plus: shifted(1.0),
        minus: shifted(-1.0),
        c_k: c,
        a_k: a,
        delta,
    }
}

/// θ after iteration `probe` whose games gave θ+ the result `r` (wins minus losses).
pub fn update(params: &[TuneParam], theta: &[f64], probe: &Probe, r: f64) -> Vec<f64> {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let step = probe.a_k[i] / probe.c_k[i] * r * f64::from(probe.delta[i]);
            clip(p, theta[i] + step)
        })
        .collect()
}

/// The values played for θ: integer parameters rounded.
pub fn played(params: &[TuneParam], theta: &[f64]) -> Vec<f64> {
    params
        .iter()
        .zip(theta)
        .map(|(p, &v)| if p.integer { v.round() } else { v })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::config::{ParamKey, ParamTarget};

    fn param(min: f64, max: f64, c_end: f64, r_end: f64, integer: bool) -> TuneParam {
        TuneParam {
            path: "x".into(),
            target: ParamTarget {
                player: "p".into(),
                key: ParamKey::Sigma,
            },
            start: min,
            min,
            max,
            c_end,
            r_end,
            integer,
        }
    }

    #[test]
    fn the_gains_end_at_c_end_and_r_end() {
        let p = param(0.0, 100.0, 4.0, 0.002, false);
        let k_last = 999;
        assert!((c_k(&p, k_last, 1000) - 4.0).abs() < 1e-12);
        // At the end a_k / c_k² is r_end.
        let r = a_k(&p, k_last, 1000) / c_k(&p, k_last, 1000).powi(2);
        assert!((r - 0.002).abs() < 1e-12, "{r}");
        // Both decay: earlier iterations probe wider and step further.
        assert!(c_k(&p, 0, 1000) > c_k(&p, 500, 1000));
        assert!(a_k(&p, 0, 1000) > a_k(&p, 500, 1000));
        // c_0 = c_end · K^γ.
        assert!((c_k(&p, 0, 1000) - 4.0 * 1000f64.powf(GAMMA)).abs() < 1e-9);
    }

    #[test]
    fn delta_is_plus_minus_one_seeded_per_iteration() {
        let d = delta(7, 3, 64);
        assert!(d.iter().all(|&x| x == 1 || x == -1));
        assert_eq!(d, delta(7, 3, 64), "recomputed without state");
        assert_ne!(d, delta(7, 4, 64));
        assert_ne!(d, delta(8, 3, 64));
        let ones = d.iter().filter(|&&x| x == 1).count();
        assert!((16..=48).contains(&ones), "{ones} of 64");
        // Adding parameters keeps the earlier parameters' Δ.
        assert_eq!(&delta(7, 3, 65)[..64], &d[..]);
    }

    #[test]
    fn probes_and_updates_are_clipped() {
        let ps = [param(0.0, 10.0, 3.0, 0.5, false)];
        let pr = probe(&ps, &[9.0], 0, 10, 1);
        let (hi, lo) = if pr.delta[0] == 1 {
            (pr.plus[0], pr.minus[0])
        } else {
            (pr.minus[0], pr.plus[0])
        };
        assert_eq!(hi, 10.0, "9 + c_0 > 10 is clipped");
        assert!((lo - (9.0 - pr.c_k[0])).abs() < 1e-12);
        let up = update(&ps, &[9.0], &pr, 100.0 * f64::from(pr.delta[0]));
        assert_eq!(up, vec![10.0]);
        let down = update(&ps, &[9.0], &pr, -100.0 * f64::from(pr.delta[0]));
        assert_eq!(down, vec![0.0]);
    }

    #[test]
    fn the_update_is_a_over_c_times_r_along_delta() {
        let ps = [
            param(-100.0, 100.0, 2.0, 0.1, false),
            param(-100.0, 100.0, 2.0, 0.1, false),
        ];
        let pr = probe(&ps, &[0.0, 0.0], 5, 100, 3);
        let next = update(&ps, &[0.0, 0.0], &pr, 2.0);
        for (i, got) in next.iter().enumerate() {
            let want = pr.a_k[i] / pr.c_k[i] * 2.0 * f64::from(pr.delta[i]);
            assert!((got - want).abs() < 1e-12);
        }
        assert_eq!(update(&ps, &[1.5, -2.5], &pr, 0.0), vec![1.5, -2.5]);
    }

    #[test]
    fn integers_round_only_when_played() {
        let ps = [
            param(0.0, 10.0, 1.0, 0.1, true),
            param(0.0, 10.0, 1.0, 0.1, false),
        ];
        assert_eq!(played(&ps, &[2.6, 2.6]), vec![3.0, 2.6]);
    }
}
