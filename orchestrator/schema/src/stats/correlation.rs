//! Pearson's correlation coefficient of two series: `council-analyze complexity` holds a game's
//! root scores against its leaf-level scores with it, over the whole game and over windows.

/// Pearson's correlation of the first `min(a.len(), b.len())` pairs; `None` with fewer than 2
/// points or no spread in either series.
#[must_use]
pub fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let (ma, mb) = (
        a[..n].iter().sum::<f64>() / n as f64,
        b[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (x, y) = (a[i] - ma, b[i] - mb);
        sab += x * y;
        saa += x * x;
        sbb += y * y;
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, StandardNormal};

    #[test]
    fn exact_lines_and_flat_series() {
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((pearson(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(pearson(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(pearson(&[1.0], &[1.0]), None);
    }

    #[test]
    fn recovers_the_correlation_of_a_bivariate_normal() {
        // y = rho x + sqrt(1 - rho^2) z, seeded: 20000 pairs put r within 0.02 of rho (the
        // standard error is (1 - rho^2) / sqrt(n), under 0.007).
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for rho in [-0.6, 0.0, 0.3, 0.9] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..20_000 {
                let x: f64 = StandardNormal.sample(&mut rng);
                let z: f64 = StandardNormal.sample(&mut rng);
                a.push(x);
                b.push(rho * x + (1.0f64 - rho * rho).sqrt() * z);
            }
            let r = pearson(&a, &b).unwrap();
            assert!((r - rho).abs() < 0.02, "{r} vs {rho}");
        }
    }
}
