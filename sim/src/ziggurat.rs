//! Standard normals by the ziggurat method, the same algorithm as rand_distr's `StandardNormal`
//! (ZIGNOR, Doornik 2005: 256 layers of equal area, one 64-bit draw per attempt, Marsaglia's
//! tail method) with the rare paths kept out of line, so that a loop filling a buffer keeps the
//! generator's state in registers. rand_distr's inlined sampler carries its wedge and tail code
//! (calls to `exp` and `ln`) in the loop, and that loop spills the state to the stack.
//!
//! The layer table is built once from its defining recursion (`x_1 = R`,
//! `x_{i+1} = sqrt(-2 ln(V / x_i + f(x_i)))`, `x_0 = V / f(R)`, `x_256 = 0`, `f(x) = exp(-x^2/2)`)
//! with Doornik's `R` and `V`; the test below holds it to rand_distr's published table.
//!
//! Invariants: exact in distribution (the ziggurat is a rejection method: every accepted `x`
//! has the normal density up to the 52-bit resolution of the uniform, whatever rounding the table
//! carries, as long as each layer's box and wedge tests use the same `x_i` and `f(x_i)`).
//! Each call uses one 64-bit draw, more only after a rejection (about 1.2% of calls).

use std::sync::OnceLock;

use rand::Rng;

/// The rightmost layer's start (Doornik's 256-layer value).
const R: f64 = 3.654_152_885_361_009;
/// The area of each layer.
const V: f64 = 0.004_928_673_233_99;

/// The layer table: `x[i]` and `f[i] = exp(-x[i]^2 / 2)` for `i = 0..=256`.
#[derive(Debug)]
pub struct Ziggurat {
    x: [f64; 257],
    f: [f64; 257],
}

fn density(x: f64) -> f64 {
    (-0.5 * x * x).exp()
}

impl Ziggurat {
    fn build() -> Ziggurat {
        let mut x = [0.0f64; 257];
        x[0] = V / density(R);
        x[1] = R;
        for i in 1..255 {
            x[i + 1] = (-2.0 * (V / x[i] + density(x[i])).ln()).sqrt();
        }
        x[256] = 0.0;
        let f = x.map(density);
        Ziggurat { x, f }
    }

    /// The table (built on first use).
    pub fn get() -> &'static Ziggurat {
        static TABLE: OnceLock<Ziggurat> = OnceLock::new();
        TABLE.get_or_init(Ziggurat::build)
    }

    /// One standard normal.
    #[inline(always)]
    pub fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        loop {
            let bits = rng.next_u64();
            let i = (bits & 0xff) as usize;
            // 52 bits as a number in [2, 4), less 3: u in [-1, 1).
            let u = f64::from_bits((bits >> 12) | 0x4000_0000_0000_0000) - 3.0;
            let x = u * self.x[i];
            if x.abs() < self.x[i + 1] {
                return x;
            }
            if let Some(x) = self.rare(rng, i, u, x) {
                return x;
            }
        }
    }

    /// Fills `out` with standard normals from `rng` (the same sequence as repeated [`sample`]).
    ///
    /// [`sample`]: Ziggurat::sample
    #[inline(never)]
    pub fn fill<R: Rng + Clone>(&self, rng: &mut R, out: &mut [f64]) {
        // The generator is held by value and handed to the rare path by value: its address
        // never escapes, so its state stays in registers in the loop.
        let mut local = rng.clone();
        for z in out {
            *z = loop {
                let bits = local.next_u64();
                let i = (bits & 0xff) as usize;
                let u = f64::from_bits((bits >> 12) | 0x4000_0000_0000_0000) - 3.0;
                let x = u * self.x[i];
                if x.abs() < self.x[i + 1] {
                    break x;
                }
                let (back, got) = self.rare_by_value(local, i, u, x);
                local = back;
                if let Some(x) = got {
                    break x;
                }
            };
        }
        *rng = local;
    }

    #[cold]
    #[inline(never)]
    fn rare_by_value<R: Rng>(&self, mut rng: R, i: usize, u: f64, x: f64) -> (R, Option<f64>) {
        let got = self.rare(&mut rng, i, u, x);
        (rng, got)
    }

    /// The base layer's tail and the wedges: `None` means draw again.
    #[cold]
    #[inline(never)]
    fn rare<R: Rng>(&self, rng: &mut R, i: usize, u: f64, x: f64) -> Option<f64> {
        if i == 0 {
            // Marsaglia's tail beyond R.
            let (mut tx, mut ty) = (1.0f64, 0.0f64);
            while -2.0 * ty < tx * tx {
                tx = open01(rng).ln() / R;
                ty = open01(rng).ln();
            }
            return Some(if u < 0.0 { tx - R } else { R - tx });
        }
        let y = self.f[i + 1] + (self.f[i] - self.f[i + 1]) * closed_open01(rng);
        (y < density(x)).then_some(x)
    }
}

/// A uniform in `(0, 1)`: 53 bits and half a step.
fn open01<R: Rng>(rng: &mut R) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// A uniform in `[0, 1)` with 53 bits.
fn closed_open01<R: Rng>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normal::cdf;
    use crate::streams::SimRng;
    use rand::SeedableRng;

    #[test]
    fn the_table_is_rand_distrs() {
        // The first, middle and last entries of rand_distr 0.6's ZIG_NORM_X.
        let z = Ziggurat::get();
        for (i, want) in [
            (0, 3.910_757_959_537_09),
            (2, 3.449_278_298_560_964_5),
            (3, 3.320_244_733_839_166),
            (128, 1.535_342_571_438_843),
            (254, 0.286_174_591_747_260_5),
            (255, 0.215_241_895_913_273_8),
            (256, 0.0),
        ] {
            assert!(
                (z.x[i] - want).abs() < 1e-10,
                "x[{i}] = {} vs {want}",
                z.x[i]
            );
        }
        // The layers have equal areas: the last one reaches the mode (R and V carry 16 and 12
        // digits; rand_distr's table is as close).
        assert!((V / z.x[255] + z.f[255] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn fill_gives_the_sample_sequence() {
        let z = Ziggurat::get();
        let mut a = SimRng::seed_from_u64(4);
        let mut b = a.clone();
        let one: Vec<f64> = (0..5000).map(|_| z.sample(&mut a)).collect();
        let mut all = vec![0.0; 5000];
        z.fill(&mut b, &mut all);
        assert_eq!(one, all);
        assert_eq!(a, b);
    }

    #[test]
    fn samples_follow_the_normal_cdf() {
        // Counts in 40 cells of equal normal probability: chi-square, 39 dof, 5 sd bound; plus
        // the tail beyond R and the mean, variance and fourth moment.
        let z = Ziggurat::get();
        let mut rng = SimRng::seed_from_u64(11);
        let n = 2_000_000usize;
        let cells = 40;
        let mut counts = vec![0u64; cells];
        let (mut s1, mut s2, mut s4, mut tail) = (0.0, 0.0, 0.0, 0u64);
        for _ in 0..n {
            let x = z.sample(&mut rng);
            let c = ((cdf(x) * cells as f64) as usize).min(cells - 1);
            counts[c] += 1;
            s1 += x;
            s2 += x * x;
            s4 += x * x * x * x;
            tail += u64::from(x.abs() > R);
        }
        let e = n as f64 / cells as f64;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        let dof = (cells - 1) as f64;
        assert!(chi2 < dof + 5.0 * (2.0 * dof).sqrt(), "chi2 {chi2}");
        let n = n as f64;
        assert!((s1 / n).abs() < 5.0 / n.sqrt());
        assert!((s2 / n - 1.0).abs() < 5.0 * 2f64.sqrt() / n.sqrt());
        assert!((s4 / n - 3.0).abs() < 5.0 * 96f64.sqrt() / n.sqrt());
        let p_tail = 2.0 * cdf(-R);
        let se = (p_tail * (1.0 - p_tail) / n).sqrt();
        assert!(((tail as f64) / n - p_tail).abs() < 5.0 * se, "tail {tail}");
    }
}
