//! An exact sampler of the walk's length `W` that draws one normal per two steps.
//!
//! The walk `X_{t+1} = X_t + A Z_t` is advanced two steps at a time: `X_{t+2} = X_t + A sqrt(2) Z`
//! with one standard normal `Z`. Given both ends, the middle point is normal (a Gaussian bridge):
//! `X_{t+1} | X_t, X_{t+2} ~ N(m, A^2 / 2)` with `m = (X_t + X_{t+2}) / 2`, so the walk leaves
//! `(-1, 1)` at the middle step with probability
//! `p(m) = P(|m + (A / sqrt 2) N| >= 1) = (erfc((1 - |m|) / A) + erfc((1 + |m|) / A)) / 2`,
//! increasing in `|m|`. Only `W` is wanted, so the middle point itself is never drawn: the exit is
//! decided by a uniform `U < p(m)` (exact in distribution, the same law as step-by-step).
//!
//! Speed: `U`'s leading 16 bits come four to a 64-bit draw. Its top byte `j` alone settles most
//! pairs: `U >= j / 256`, and `p(m) <= j / 256` whenever `|m|` is below a reach computed per `j`,
//! so the walk surely stays (one lookup and one comparison per pair). Otherwise a table over `|m|` (bins of 1/1024) holds 16-bit bounds of `p` on each bin
//! (`p` is monotone, so its values at the bin's edges bound it, widened by a relative 1e-9
//! against rounding): above the upper bound the walk surely stays, below the lower bound it
//! surely leaves, and only in between (a few pairs in a thousand, near the boundary, and any with
//! `|m| >= 2`) are `U`'s other 53 bits drawn and `p(m)` computed. Per game that is about half
//! the normals of the step-by-step walk.
//!
//! Order of random numbers (what a seed means): a [`PairBlock`] refill draws [`BLOCK`] standard
//! normals (`crate::ziggurat`, rand_distr's algorithm) and then `BLOCK / 4` 64-bit words for the
//! prefixes; pairs and the game's `K` take normals (each with its prefix slot) in sequence; an
//! undecided pair draws one more 64-bit word from the generator at that moment.

use rand::Rng;
use statrs::function::erf::erfc;

use crate::streams::SimRng;
use crate::ziggurat::Ziggurat;

/// Normals (and prefixes) per refill of a [`PairBlock`].
pub const BLOCK: usize = 256;

/// Table bins per unit of `|m|`; a power of two, so the scaled `|m|` is exact.
const BINS_PER_UNIT: f64 = 1024.0;
/// Bin `k < BINS` holds `|m|` in `[(k - 1/2) / 1024, (k + 1/2) / 1024]` (its index is `|m|`
/// rounded to 1/1024); bin `BINS`, always undecided, everything from `(BINS - 1/2) / 1024` on.
const BINS: usize = 2048;

/// The bin of `m`: `|m| * 1024` (at most 2048) rounded to the nearest integer, by adding 2^52
/// (whose ulp is 1) and reading the low bits, cheaper than a float-to-integer conversion.
#[inline(always)]
fn bin(m: f64) -> usize {
    let scaled = m.abs().min(2.0) * BINS_PER_UNIT + 4_503_599_627_370_496.0;
    ((scaled.to_bits() & 0xfff) as usize).min(BINS)
}
/// `U`'s prefix resolution.
const PREFIX_SCALE: f64 = 65536.0;

/// Standard normals (the ziggurat of `crate::ziggurat`, rand_distr's algorithm) drawn a block at a
/// time, each with 16 uniform bits beside it.
#[derive(Debug, Clone)]
pub struct PairBlock {
    z: [f64; BLOCK],
    prefix: [u16; BLOCK],
    next: usize,
    normal: &'static Ziggurat,
}

impl Default for PairBlock {
    fn default() -> Self {
        PairBlock {
            z: [0.0; BLOCK],
            prefix: [0; BLOCK],
            next: BLOCK,
            normal: Ziggurat::get(),
        }
    }
}

impl PairBlock {
    #[cold]
    #[inline(never)]
    fn refill(&mut self, rng: &mut SimRng) {
        self.normal.fill(rng, &mut self.z);
        let mut local = rng.clone();
        for p in self.prefix.chunks_exact_mut(4) {
            let bits = local.next_u64();
            for (k, p) in p.iter_mut().enumerate() {
                *p = (bits >> (16 * k)) as u16;
            }
        }
        *rng = local;
        self.next = 0;
    }

    /// The next standard normal (its prefix slot goes unused).
    #[inline]
    pub fn next_normal(&mut self, rng: &mut SimRng) -> f64 {
        if self.next == BLOCK {
            self.refill(rng);
        }
        let z = self.z[self.next];
        self.next += 1;
        z
    }
}

/// Where a run along the pending pairs stopped.
enum Stop {
    /// The pending pairs ran out with the walk inside.
    Running,
    /// Left at the end of the last pair used.
    End,
    /// The next pair's middle step needs the table (or the full comparison).
    Check,
}

/// The two-step sampler for one step size `A`.
#[derive(Debug, Clone)]
pub struct PairWalk {
    a: f64,
    /// `A sqrt 2`: the sd of two steps.
    two_steps: f64,
    /// `A / sqrt 2`: `m = X_t + this * Z`.
    half: f64,
    /// Per bin: `[exit_below, stay_above]`: prefix `< exit_below` surely leaves, `> stay_above`
    /// surely stays.
    bounds: Box<[[u16; 2]; BINS + 1]>,
    /// `reach[j]`: `p(m) <= j / 256` for `|m| < reach[j]` (-1 for `j = 0`): a prefix whose top
    /// byte is `j` (so `U >= j / 256`) surely stays when `|m| < reach[j]`.
    reach: [f64; 256],
}

impl PairWalk {
    pub fn new(a: f64) -> PairWalk {
        let mut walk = PairWalk {
            a,
            two_steps: a * std::f64::consts::SQRT_2,
            half: a * std::f64::consts::FRAC_1_SQRT_2,
            bounds: Box::new([[0, u16::MAX]; BINS + 1]),
            reach: [-1.0; 256],
        };
        for k in 0..BINS {
            let edge = |side: f64| (k as f64 + side).max(0.0) / BINS_PER_UNIT;
            let lo = walk.middle_exit_probability(edge(-0.5)) * (1.0 - 1e-9);
            let hi = walk.middle_exit_probability(edge(0.5)) * (1.0 + 1e-9);
            let exit_below = (lo * PREFIX_SCALE).floor().clamp(0.0, 65535.0);
            let stay_above = ((hi * PREFIX_SCALE).ceil() - 1.0).clamp(0.0, 65535.0);
            walk.bounds[k] = [exit_below as u16, stay_above as u16];
        }
        for j in 1..256 {
            // The largest m on a bisection grid with p(m) (widened by 1e-9) <= j / 256; p is
            // increasing in |m|, 1/2 at m = 1 and near 1 from m = 1 + 40 A on.
            let level = j as f64 / 256.0;
            let below = |m: f64| walk.middle_exit_probability(m) * (1.0 + 1e-9) <= level;
            let (mut lo, mut hi) = (0.0f64, 1.0 + 40.0 * a);
            if !below(lo) {
                continue;
            }
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if below(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            walk.reach[j] = lo;
        }
        walk
    }

    /// `p(m)`: the probability that the middle point of a pair whose ends average `m` lies
    /// outside `(-1, 1)`.
    pub fn middle_exit_probability(&self, m: f64) -> f64 {
        let m = m.abs();
        0.5 * (erfc((1.0 - m) / self.a) + erfc((1.0 + m) / self.a))
    }

    /// Pairs from `x` along `z` and `prefix` in lockstep while each middle step surely stays:
    /// `(X, pairs used, why it stopped)`. Out of line so that `x` stays in a register.
    #[inline(never)]
    fn along(&self, mut x: f64, z: &[f64], prefix: &[u16]) -> (f64, usize, Stop) {
        for (k, (&z, &u)) in z.iter().zip(prefix).enumerate() {
            let m = x + self.half * z;
            if m.abs() >= self.reach[usize::from(u >> 8)] {
                return (x, k, Stop::Check);
            }
            let end = x + self.two_steps * z;
            if end.abs() >= 1.0 {
                return (end, k + 1, Stop::End);
            }
            x = end;
        }
        (x, z.len(), Stop::Running)
    }

    /// Whether the middle step of the pair from `x` with normal `z` and prefix `u` leaves.
    #[cold]
    #[inline(never)]
    fn middle_leaves(&self, rng: &mut SimRng, x: f64, z: f64, u: u16) -> bool {
        let m = x + self.half * z;
        let [exit_below, stay_above] = self.bounds[bin(m)];
        if u > stay_above {
            return false;
        }
        if u < exit_below {
            return true;
        }
        let rest = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        (f64::from(u) + rest) / PREFIX_SCALE < self.middle_exit_probability(m)
    }

    /// One walk from 0: the number of steps until `|X| >= 1`, the decisive one included.
    #[inline]
    pub fn steps(&self, rng: &mut SimRng, block: &mut PairBlock) -> u32 {
        let mut x = 0.0f64;
        let mut t = 0u32;
        loop {
            if block.next == BLOCK {
                block.refill(rng);
            }
            let start = block.next;
            let (next_x, used, stop) = self.along(x, &block.z[start..], &block.prefix[start..]);
            block.next += used;
            t += 2 * used as u32;
            match stop {
                Stop::Running => x = next_x,
                Stop::End => return t,
                Stop::Check => {
                    let k = block.next;
                    let (z, u) = (block.z[k], block.prefix[k]);
                    block.next += 1;
                    if self.middle_leaves(rng, next_x, z, u) {
                        return t + 1;
                    }
                    let end = next_x + self.two_steps * z;
                    t += 2;
                    if end.abs() >= 1.0 {
                        return t;
                    }
                    x = end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn table_bounds_bracket_the_exit_probability() {
        for a in [0.01, 0.2474, 0.6, 3.0, 20.0] {
            let w = PairWalk::new(a);
            // A grid, and every bin's centre and edges exactly.
            let halves = (0..2 * BINS + 4).map(|h| h as f64 / (2.0 * BINS_PER_UNIT));
            let grid = (0..20_000).map(|i| i as f64 * 2.2 / 20_000.0);
            for m in grid.chain(halves) {
                let [lo, hi] = w.bounds[bin(m)];
                let p = w.middle_exit_probability(m);
                // prefix < lo must imply U < p, prefix > hi must imply U >= p.
                assert!(
                    f64::from(lo) <= p * PREFIX_SCALE,
                    "a {a} m {m}: lo {lo} p {p}"
                );
                assert!(
                    f64::from(hi) + 1.0 >= p * PREFIX_SCALE,
                    "a {a} m {m}: hi {hi} p {p}"
                );
            }
            assert_eq!(w.bounds[BINS], [0, u16::MAX]);
        }
    }

    #[test]
    fn reach_keeps_the_exit_probability_below_its_level() {
        for a in [0.01, 0.2474, 0.6, 3.0, 20.0] {
            let w = PairWalk::new(a);
            assert_eq!(w.reach[0], -1.0);
            for j in 1..256 {
                assert!(w.reach[j] >= w.reach[j - 1], "a {a} j {j}");
                if w.reach[j] >= 0.0 {
                    let p = w.middle_exit_probability(w.reach[j]);
                    assert!(p <= j as f64 / 256.0, "a {a} j {j}: p {p}");
                }
            }
        }
        // For the pro preset most prefixes let the middle step through well inside.
        let w = PairWalk::new(0.2474);
        assert!(
            w.reach[1] > 0.4 && w.reach[128] > 0.99,
            "{:?}",
            &w.reach[..4]
        );
    }

    #[test]
    fn bins_round_the_scaled_distance() {
        assert_eq!(bin(0.0), 0);
        assert_eq!(bin(-0.4 / 1024.0), 0);
        assert_eq!(bin(0.6 / 1024.0), 1);
        assert_eq!(bin(-1.0), 1024);
        assert_eq!(bin(1.0 + 0.49 / 1024.0), 1024);
        assert_eq!(bin(1.0 + 0.51 / 1024.0), 1025);
        assert_eq!(bin(1.999), BINS - 1);
        assert_eq!(bin(1.9996), BINS);
        assert_eq!(bin(2.0), BINS);
        assert_eq!(bin(1e300), BINS);
    }

    #[test]
    fn middle_exit_probability_matches_a_direct_sum() {
        let w = PairWalk::new(0.3);
        // P(|m + s N| >= 1) by the normal cdf.
        let s = 0.3 / std::f64::consts::SQRT_2;
        let phi = crate::normal::cdf;
        for m in [0.0, 0.4, -0.9, 1.0, 1.7] {
            let want = phi((m - 1.0) / s) + phi((-1.0 - m) / s);
            let got = w.middle_exit_probability(m);
            assert!(
                (got - want).abs() < 1e-14 * want.max(1e-300),
                "{m}: {got} {want}"
            );
        }
    }

    #[test]
    fn large_steps_end_within_one_or_two_steps_as_often_as_they_should() {
        // A = 20: |X_1| < 1 has probability P(|N| < 1/20) = 0.0399, so W = 1 almost always.
        let w = PairWalk::new(20.0);
        let mut rng = SimRng::seed_from_u64(5);
        let mut block = PairBlock::default();
        let n = 200_000;
        let ones = (0..n)
            .filter(|_| w.steps(&mut rng, &mut block) == 1)
            .count();
        // P(W = 1) = P(|20 Z| >= 1) = erfc(1 / (20 sqrt 2)).
        let want = erfc(1.0 / 20.0 / std::f64::consts::SQRT_2);
        let se = (want * (1.0 - want) / n as f64).sqrt();
        let got = ones as f64 / n as f64;
        assert!((got - want).abs() < 5.0 * se, "{got} vs {want}");
    }
}
