//! Plain versions of the two Monte Carlo models, written the obvious way.
//!
//! - [`game_length_baseline`]: the obvious parallel program for game length, the yardstick
//!   `council-sim bench` holds `game-length` to: rand's `SmallRng` per chunk, rand_distr's
//!   ziggurat `StandardNormal` one step at a time, rayon over 200 chunks, four power sums of `L`
//!   and two of `W`, no histogram.
//! - [`game_length`] and [`council`]: one thread, one generator, a fresh `Normal` sample per
//!   perception, allocations per trial, the maximum-likelihood product in linear space exactly as
//!   the source writes it.
//!
//! They exist for two reasons: `council-sim bench` measures the fast versions against them in the
//! same run, and the tests use them as independent implementations (they share no code with the
//! fast paths beyond the model's parameters) that must agree statistically.

use std::collections::HashMap;

use crate::normal;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Normal, StandardNormal};
use rayon::prelude::*;

use crate::council::CouncilParams;
use crate::game_length::GameLengthParams;
use crate::moments::{Count, Moments};
use crate::streams::SimRng;

/// Sample moments of `L` and `W` from `games` games.
pub fn game_length(params: &GameLengthParams, games: u64, seed: u64) -> (Moments, Moments) {
    let mut rng = SimRng::seed_from_u64(seed);
    let step = Normal::new(0.0, params.a).expect("finite step");
    let rest = Normal::new(params.m, params.s).expect("finite sd");
    let (mut l_sums, mut w_sums) = ([0.0f64; 4], [0.0f64; 4]);
    for _ in 0..games {
        let mut x = 0.0f64;
        let mut w = 0u64;
        while x.abs() < 1.0 {
            x += step.sample(&mut rng);
            w += 1;
        }
        let l = w as f64 + rest.sample(&mut rng);
        for k in 0..4 {
            l_sums[k] += l.powi(k as i32 + 1);
            w_sums[k] += (w as f64).powi(k as i32 + 1);
        }
    }
    let n = games as f64;
    (
        Moments::from_raw(0.0, l_sums.map(|s| s / n)),
        Moments::from_raw(0.0, w_sums.map(|s| s / n)),
    )
}

/// What the baseline program reports: the moments of `L` (from raw power sums) and the mean and
/// sd of `W`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaselineGameLength {
    pub games: u64,
    pub length: Moments,
    pub walk_mean: f64,
    pub walk_sd: f64,
}

/// Chunks the baseline program cuts the games into (one rayon task each).
pub const BASELINE_CHUNKS: u64 = 200;

/// The obvious parallel program for `games` games (at least one): 200 chunks on the current rayon
/// pool, chunk `c` with its own `SmallRng::seed_from_u64(seed * 200 + c)`, the walk one ziggurat
/// normal at a time, raw power sums `sum L^k` (k = 1..4) and `sum W^k` (k = 1, 2).
pub fn game_length_baseline(
    params: &GameLengthParams,
    games: u64,
    seed: u64,
) -> BaselineGameLength {
    let games = games.max(1);
    let (a, m, s) = (params.a, params.m, params.s);
    let sums: Vec<[f64; 6]> = (0..BASELINE_CHUNKS)
        .into_par_iter()
        .map(|c| {
            let n = games / BASELINE_CHUNKS + u64::from(c < games % BASELINE_CHUNKS);
            let mut rng =
                SmallRng::seed_from_u64(seed.wrapping_mul(BASELINE_CHUNKS).wrapping_add(c));
            let mut sums = [0.0f64; 6];
            for _ in 0..n {
                let mut x = 0.0f64;
                let mut w = 0u32;
                loop {
                    let z: f64 = rng.sample(StandardNormal);
                    x += a * z;
                    w += 1;
                    if x.abs() >= 1.0 {
                        break;
                    }
                }
                let k: f64 = rng.sample(StandardNormal);
                let l = w as f64 + m + s * k;
                let l2 = l * l;
                let w = w as f64;
                sums[0] += l;
                sums[1] += l2;
                sums[2] += l2 * l;
                sums[3] += l2 * l2;
                sums[4] += w;
                sums[5] += w * w;
            }
            sums
        })
        .collect();
    let mut total = [0.0f64; 6];
    for chunk in &sums {
        for (t, x) in total.iter_mut().zip(chunk) {
            *t += x;
        }
    }
    let n = games as f64;
    let walk_mean = total[4] / n;
    BaselineGameLength {
        games,
        length: Moments::from_raw(0.0, [total[0], total[1], total[2], total[3]].map(|x| x / n)),
        walk_mean,
        walk_sd: (total[5] / n - walk_mean * walk_mean).max(0.0).sqrt(),
    }
}

/// Best-move counts: single members, then majority, optimistic, pessimistic, ML, ML predicted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainCouncil {
    pub single: Vec<Count>,
    pub methods: [Count; 5],
}

/// The source's likelihood that `b` is the best move, as a product over members.
fn likelihood(b: usize, reports: &[(usize, f64)], sigma: &[f64], gap: f64, a: f64) -> f64 {
    let g = |z: f64| (-z * z / 2.0).exp();
    // e(z) = erf(z / sqrt 2) + 1 = 2 Phi(z), without the cancellation that makes `erf(..) + 1`
    // exactly 0 below z = -6.
    let e = |z: f64| 2.0 * normal::cdf(z);
    let mut p = 1.0;
    for (i, &(best, value)) in reports.iter().enumerate() {
        let x = (value - a) / sigma[i];
        let y = x + gap / sigma[i];
        p *= if best == b { g(x) * e(y) } else { g(y) * e(x) };
    }
    p
}

fn max_likelihood(
    distinct: &[usize],
    reports: &[(usize, f64)],
    p: &CouncilParams,
    a: f64,
) -> usize {
    let mut best = distinct[0];
    let mut best_l = likelihood(best, reports, &p.sigma, p.gap, a);
    for &b in &distinct[1..] {
        let l = likelihood(b, reports, &p.sigma, p.gap, a);
        if l > best_l {
            best = b;
            best_l = l;
        }
    }
    best
}

/// Runs `trials` trials of the council the plain way.
pub fn council(params: &CouncilParams, trials: u64, seed: u64) -> PlainCouncil {
    let mut rng = SimRng::seed_from_u64(seed);
    let members = params.members();
    let mut single = vec![0u64; members];
    let mut methods = [0u64; 5];
    let strongest = params.strongest();
    for _ in 0..trials {
        let mut reports: Vec<(usize, f64)> = Vec::new();
        for &s in &params.sigma {
            let values: Vec<f64> = (0..params.candidates)
                .map(|j| {
                    let truth = if j == 0 { 0.0 } else { -params.gap };
                    Normal::new(truth, s).expect("positive sd").sample(&mut rng)
                })
                .collect();
            let (best, value) = values
                .iter()
                .copied()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .expect("at least two candidates");
            reports.push((best, value));
        }
        for sync in &params.syncs {
            if rng.random::<f64>() < sync.rho {
                reports[sync.to] = reports[sync.from];
            }
        }
        let mut votes: HashMap<usize, usize> = HashMap::new();
        let mut distinct = Vec::new();
        for &(b, _) in &reports {
            if !votes.contains_key(&b) {
                distinct.push(b);
            }
            *votes.entry(b).or_insert(0) += 1;
        }
        let top = votes.values().copied().max().unwrap_or(0);
        let leaders: Vec<usize> = distinct
            .iter()
            .copied()
            .filter(|b| votes[b] == top)
            .collect();
        let majority = if leaders.len() == 1 {
            leaders[0]
        } else {
            reports[strongest].0
        };
        // Equal values: the strongest member's move (smallest s_i, then first listed).
        let extreme = |better: fn(f64, f64) -> bool| {
            let mut k = 0;
            for i in 1..members {
                let (v, vk) = (reports[i].1, reports[k].1);
                if better(v, vk) || (v == vk && params.sigma[i] < params.sigma[k]) {
                    k = i;
                }
            }
            reports[k].0
        };
        let optimistic = extreme(|a, b| a > b);
        let pessimistic = extreme(|a, b| a < b);
        let k = distinct.len() as f64;
        let mean_v = reports.iter().map(|r| r.1).sum::<f64>() / members as f64;
        let predicted = (k - 1.0) / k * params.gap + mean_v;
        let ml = max_likelihood(&distinct, &reports, params, 0.0);
        let ml_predicted = max_likelihood(&distinct, &reports, params, predicted);
        for (i, r) in reports.iter().enumerate() {
            single[i] += u64::from(r.0 == 0);
        }
        for (m, choice) in [majority, optimistic, pessimistic, ml, ml_predicted]
            .into_iter()
            .enumerate()
        {
            methods[m] += u64::from(choice == 0);
        }
    }
    let count = |hits| Count { hits, trials };
    PlainCouncil {
        single: single.into_iter().map(count).collect(),
        methods: methods.map(count),
    }
}
