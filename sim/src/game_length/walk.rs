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
//! Speed: `U`'s leading 16 bits come four to a 64-bit draw. A table over `|m|` in bins of 1/1024
//! holds 16-bit bounds of `p` on each bin (`p` is monotone, so its values at the bin's ends bound
//! it, widened by a relative 1e-9 against rounding): above the upper bound the walk surely stays,
//! below the lower bound it surely leaves, and only in between (about 0.2% of pairs near the
//! boundary, and any with `|m| >= 2`) are `U`'s other 53 bits drawn and `p(m)` computed.
//! Per game that is about half the normals of the step-by-step walk and a few table lookups.
//!
//! Order of random numbers (what a seed means): a [`PairBlock`] refill draws [`BLOCK`] standard
//! normals (rand_distr's ziggurat) and then `BLOCK / 4` 64-bit words for the prefixes; pairs and
//! the game's `K` take normals (each with its prefix slot) in sequence; an undecided pair draws
//! one more 64-bit word from the generator at that moment.

use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use statrs::function::erf::erfc;

use crate::streams::SimRng;

/// Normals (and prefixes) per refill of a [`PairBlock`].
pub const BLOCK: usize = 256;

/// Table bins per unit of `|m|`; a power of two, so the bin index is exact.
const BINS_PER_UNIT: f64 = 1024.0;
/// Bins covering `|m| < 2`; one more, always undecided, for everything beyond.
const BINS: usize = 2048;
/// `U`'s prefix resolution.
const PREFIX_SCALE: f64 = 65536.0;

/// Standard normals drawn a block at a time, each with 16 uniform bits beside it.
#[derive(Debug, Clone)]
pub struct PairBlock {
    z: [f64; BLOCK],
    prefix: [u16; BLOCK],
    next: usize,
}

impl Default for PairBlock {
    fn default() -> Self {
        PairBlock {
            z: [0.0; BLOCK],
            prefix: [0; BLOCK],
            next: BLOCK,
        }
    }
}

impl PairBlock {
    #[cold]
    #[inline(never)]
    fn refill(&mut self, rng: &mut SimRng) {
        // A local generator stays in registers; through `&mut` it is stored on every draw.
        let mut local = rng.clone();
        for z in &mut self.z {
            *z = StandardNormal.sample(&mut local);
        }
        for p in self.prefix.chunks_exact_mut(4) {
            let bits = local.next_u64();
            for (k, p) in p.iter_mut().enumerate() {
                *p = (bits >> (16 * k)) as u16;
            }
        }
        *rng = local;
        self.next = 0;
    }

    /// The pending normals and their prefixes (refilled first when there are none).
    #[inline]
    fn pending(&mut self, rng: &mut SimRng) -> (&[f64], &[u16]) {
        if self.next == BLOCK {
            self.refill(rng);
        }
        (&self.z[self.next..], &self.prefix[self.next..])
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
    /// Left at the middle step of the last pair used.
    Middle,
    /// Left at the end of the last pair used.
    End,
    /// The next pair's middle step needs the full comparison.
    Undecided,
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
}

impl PairWalk {
    pub fn new(a: f64) -> PairWalk {
        let mut walk = PairWalk {
            a,
            two_steps: a * std::f64::consts::SQRT_2,
            half: a * std::f64::consts::FRAC_1_SQRT_2,
            bounds: Box::new([[0, u16::MAX]; BINS + 1]),
        };
        for k in 0..BINS {
            let lo = walk.middle_exit_probability(k as f64 / BINS_PER_UNIT) * (1.0 - 1e-9);
            let hi = walk.middle_exit_probability((k + 1) as f64 / BINS_PER_UNIT) * (1.0 + 1e-9);
            let exit_below = (lo * PREFIX_SCALE).floor().clamp(0.0, 65535.0);
            let stay_above = ((hi * PREFIX_SCALE).ceil() - 1.0).clamp(0.0, 65535.0);
            walk.bounds[k] = [exit_below as u16, stay_above as u16];
        }
        walk
    }

    /// `p(m)`: the probability that the middle point of a pair whose ends average `m` lies
    /// outside `(-1, 1)`.
    pub fn middle_exit_probability(&self, m: f64) -> f64 {
        let m = m.abs();
        0.5 * (erfc((1.0 - m) / self.a) + erfc((1.0 + m) / self.a))
    }

    /// Pairs from `x` along `z` and `prefix` in lockstep: `(X, pairs used, why it stopped)`.
    /// Out of line so that `x` stays in a register across the loop.
    #[inline(never)]
    fn along(&self, mut x: f64, z: &[f64], prefix: &[u16]) -> (f64, usize, Stop) {
        for (k, (&z, &u)) in z.iter().zip(prefix).enumerate() {
            let m = x + self.half * z;
            let end = x + self.two_steps * z;
            let bin = ((m.abs() * BINS_PER_UNIT) as usize).min(BINS);
            let [exit_below, stay_above] = self.bounds[bin];
            if u > stay_above {
                if end.abs() >= 1.0 {
                    return (end, k + 1, Stop::End);
                }
                x = end;
            } else if u < exit_below {
                return (x, k + 1, Stop::Middle);
            } else {
                return (x, k, Stop::Undecided);
            }
        }
        (x, z.len(), Stop::Running)
    }

    /// One walk from 0: the number of steps until `|X| >= 1`, the decisive one included.
    #[inline]
    pub fn steps(&self, rng: &mut SimRng, block: &mut PairBlock) -> u32 {
        let mut x = 0.0f64;
        let mut t = 0u32;
        loop {
            let (z, prefix) = block.pending(rng);
            let (next_x, used, stop) = self.along(x, z, prefix);
            let pending = (z.get(used).copied(), prefix.get(used).copied());
            block.next += used;
            t += 2 * used as u32;
            match stop {
                Stop::Running => x = next_x,
                Stop::End => return t,
                Stop::Middle => return t - 1,
                Stop::Undecided => {
                    let (Some(z), Some(u)) = pending else {
                        unreachable!("an undecided pair is a pending one")
                    };
                    block.next += 1;
                    let m = next_x + self.half * z;
                    let rest = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    if (f64::from(u) + rest) / PREFIX_SCALE < self.middle_exit_probability(m) {
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
            for i in 0..20_000 {
                let m = i as f64 * 2.2 / 20_000.0;
                let bin = ((m * BINS_PER_UNIT) as usize).min(BINS);
                let [lo, hi] = w.bounds[bin];
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
    fn middle_exit_probability_matches_a_direct_sum() {
        let w = PairWalk::new(0.3);
        // P(|m + s N| >= 1) by the normal cdf of statrs.
        let s = 0.3 / std::f64::consts::SQRT_2;
        let phi = |x: f64| 0.5 * erfc(-x / std::f64::consts::SQRT_2);
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
