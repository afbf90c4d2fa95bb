//! Evaluation noise: the strength control the council model assumes.
//!
//! In the model (shared/spec/models.md) each council member perceives a position's value with
//! its own independent Gaussian error. We reproduce that by adding `sd * z` to the static
//! evaluation, where `z` is a standard normal deviate drawn from an RNG seeded by the pair
//! (position key, instance seed). Invariants: the deviate is a pure function of that pair, so
//! one instance always perceives the same position the same way (the search stays consistent
//! and replays exactly), while instances with different seeds err independently.

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::SplitMix64;

/// Gaussian evaluation noise with a standard deviation in centipawns and a seed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Noise {
    /// Standard deviation in centipawns; 0 disables the noise.
    pub sd_cp: f64,
    /// Seed of this instance's noise field.
    pub seed: u64,
}

impl Noise {
    /// The noise (centipawns, Sente's point of view) for the position with this key.
    #[must_use]
    pub fn offset(&self, position_key: u64) -> i32 {
        if self.sd_cp <= 0.0 {
            return 0;
        }
        // Mix the seed in before seeding so nearby keys and seeds give unrelated streams.
        let mut rng = SplitMix64::seed_from_u64(position_key ^ self.seed.rotate_left(29));
        let z: f64 = StandardNormal.sample(&mut rng);
        // Cap at 6 sd (never reached in practice) so the result stays far from mate scores.
        (self.sd_cp * z.clamp(-6.0, 6.0)).round() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_sd_is_silent() {
        let noise = Noise {
            sd_cp: 0.0,
            seed: 7,
        };
        assert!((0..1000u64).all(|k| noise.offset(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) == 0));
    }

    #[test]
    fn same_key_and_seed_replay() {
        let a = Noise {
            sd_cp: 100.0,
            seed: 1,
        };
        for k in 0..100u64 {
            assert_eq!(a.offset(k), a.offset(k));
        }
    }

    #[test]
    fn deviates_have_the_requested_spread_and_seeds_are_independent() {
        let a = Noise {
            sd_cp: 100.0,
            seed: 1,
        };
        let b = Noise {
            sd_cp: 100.0,
            seed: 2,
        };
        let n = 20_000u64;
        let keys: Vec<u64> = (0..n)
            .map(|k| k.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0xabc)
            .collect();
        let xs: Vec<f64> = keys.iter().map(|&k| f64::from(a.offset(k))).collect();
        let ys: Vec<f64> = keys.iter().map(|&k| f64::from(b.offset(k))).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        // Standard error of the mean is 100/sqrt(20000) = 0.7; of the sd about 0.5.
        assert!(mean.abs() < 4.0, "mean {mean}");
        assert!((var.sqrt() - 100.0).abs() < 4.0, "sd {}", var.sqrt());
        let cov = xs.iter().zip(&ys).map(|(x, y)| x * y).sum::<f64>() / n as f64;
        let corr = cov / 100.0 / 100.0;
        assert!(corr.abs() < 0.05, "seeds correlate: {corr}");
    }
}
