//! Monte Carlo games of the random-walk model: `W` walk steps, then `L = W + K`.
//!
//! Per batch (see `streams`): every game walks two steps per standard normal (rand_distr's
//! ziggurat `StandardNormal`, in blocks; the middle step's exit decided exactly from the Gaussian
//! bridge, see `walk`) until `|X| >= 1`, then takes one more normal for `K`.
//! `W` is counted exactly (a count per value), `L` goes into shifted power sums and a
//! histogram with one-ply bins. Batches are merged in batch order.

use serde::Serialize;

use super::GameLengthParams;
use super::walk::{PairBlock, PairWalk};
use crate::moments::{Moments, PowerSums};
use crate::streams::{self, Batch};

/// Counts of `L` in one-ply bins `[lo + i, lo + i + 1)`, plus what fell outside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Histogram {
    pub lo: i64,
    pub counts: Vec<u64>,
    pub below: u64,
    pub above: u64,
}

impl Histogram {
    fn new(layout: &Layout) -> Histogram {
        Histogram {
            lo: layout.lo,
            counts: vec![0; layout.bins],
            below: 0,
            above: 0,
        }
    }

    #[inline]
    fn push(&mut self, x: f64) {
        let offset = x - self.lo as f64;
        // Truncation is floor for offset >= 0 (and avoids a libm call on baseline x86-64).
        if offset < 0.0 {
            self.below += 1;
        } else if offset >= self.counts.len() as f64 {
            self.above += 1;
        } else {
            self.counts[offset as usize] += 1;
        }
    }

    fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.below += other.below;
        self.above += other.above;
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.below + self.above
    }
}

/// Where the histogram's bins lie and the shift for the power sums; fixed before the run so the
/// result does not depend on how the games were split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub shift: f64,
    pub lo: i64,
    pub bins: usize,
}

impl Layout {
    /// A layout around the model's exact moments (or a rough estimate when `A` is outside the
    /// kernel's range): from 8 sd below the mean to 16 sd above it.
    pub fn for_params(params: &GameLengthParams) -> Layout {
        let length = params
            .exact_moments()
            .map(|e| e.length)
            .unwrap_or_else(|_| {
                // Brownian exit time from (-1, 1): mean 1 / A^2, variance 2 / (3 A^4).
                let a2 = params.a * params.a;
                Moments::normal(
                    params.m + 1.0 / a2 + 1.0,
                    (2.0 / 3.0f64).sqrt() / a2 + params.s,
                )
            });
        let (mean, sd) = (length.mean, length.sd().max(1.0));
        let lo = (mean - 8.0 * sd).floor();
        let hi = (mean + 16.0 * sd).ceil();
        Layout {
            shift: mean,
            lo: lo as i64,
            bins: (hi - lo).clamp(1.0, 1e6) as usize,
        }
    }
}

/// The outcome of a Monte Carlo run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameLengthRun {
    pub params: GameLengthParams,
    pub games: u64,
    pub seed: u64,
    /// Sample moments of `L`.
    pub length: Moments,
    /// Sample moments of `W`.
    pub walk: Moments,
    /// `walk_counts[t]`: games whose walk took `t` steps.
    pub walk_counts: Vec<u64>,
    pub histogram: Histogram,
}

struct BatchResult {
    length: PowerSums,
    walk_counts: Vec<u64>,
    histogram: Histogram,
}

fn run_batch(
    params: &GameLengthParams,
    walk: &PairWalk,
    layout: &Layout,
    batch: Batch,
) -> BatchResult {
    let mut rng = batch.rng;
    let mut normals = PairBlock::default();
    let mut length = PowerSums::new(layout.shift);
    let mut walk_counts = vec![0u64; 64];
    let mut histogram = Histogram::new(layout);
    // Games are played a chunk at a time and counted in a second loop over the chunk, in the
    // same order: the walk's loop then holds only the walk's state.
    const CHUNK: usize = 256;
    let (mut ws, mut ks) = ([0u32; CHUNK], [0.0f64; CHUNK]);
    let mut left = batch.items as usize;
    while left > 0 {
        let n = left.min(CHUNK);
        for (w, k) in ws[..n].iter_mut().zip(&mut ks[..n]) {
            *w = walk.steps(&mut rng, &mut normals);
            *k = normals.next_normal(&mut rng);
        }
        for (&w, &k) in ws[..n].iter().zip(&ks[..n]) {
            let l = w as f64 + params.m + params.s * k;
            let w = w as usize;
            if w >= walk_counts.len() {
                walk_counts.resize(w + 1, 0);
            }
            walk_counts[w] += 1;
            length.push(l);
            histogram.push(l);
        }
        left -= n;
    }
    BatchResult {
        length,
        walk_counts,
        histogram,
    }
}

/// Moments of a distribution on `0, 1, 2, ...` given by counts.
pub fn moments_of_counts(counts: &[u64]) -> Option<Moments> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let mean = counts
        .iter()
        .enumerate()
        .map(|(t, &c)| t as f64 * c as f64)
        .sum::<f64>()
        / n;
    let central = |k: i32| {
        counts
            .iter()
            .enumerate()
            .map(|(t, &c)| (t as f64 - mean).powi(k) * c as f64)
            .sum::<f64>()
            / n
    };
    Some(Moments {
        mean,
        variance: central(2),
        m3: central(3),
        m4: central(4),
    })
}

/// Plays `games` games (at least one) with master seed `seed` on the current rayon pool.
pub fn simulate(
    params: &GameLengthParams,
    games: u64,
    seed: u64,
    layout: &Layout,
    progress: &(dyn Fn(u64) + Sync),
) -> GameLengthRun {
    let games = games.max(1);
    let mut length = PowerSums::new(layout.shift);
    let mut walk_counts: Vec<u64> = Vec::new();
    let mut histogram = Histogram::new(layout);
    let walk = PairWalk::new(params.a);
    streams::run(
        seed,
        games,
        |batch| run_batch(params, &walk, layout, batch),
        |r: BatchResult| {
            length.merge(&r.length);
            if r.walk_counts.len() > walk_counts.len() {
                walk_counts.resize(r.walk_counts.len(), 0);
            }
            for (a, b) in walk_counts.iter_mut().zip(&r.walk_counts) {
                *a += b;
            }
            histogram.merge(&r.histogram);
        },
        progress,
    );
    while walk_counts.last() == Some(&0) {
        walk_counts.pop();
    }
    GameLengthRun {
        params: *params,
        games,
        seed,
        length: length.moments().expect("at least one game"),
        walk: moments_of_counts(&walk_counts).expect("at least one game"),
        walk_counts,
        histogram,
    }
}
