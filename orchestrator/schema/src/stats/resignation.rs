//! Seed 004's resignation model (models.md section 8): the probability that a player resigns,
//! `½[1 + erf((x - μ_r) / (√2 σ_r))]` with `x = -v / ln b*` (or `x = -v`, the "v only" form),
//! `v` the player's own score. One definition for the adjudication in council-match and the fit
//! of `council-analyze resign`.

/// The resignation probability at `x` for parameters `mu`, `sigma`: `Phi((x - mu) / sigma)`
/// (the workspace's one normal distribution function, [`sim::normal::cdf`]).
#[must_use]
pub fn probability(x: f64, mu: f64, sigma: f64) -> f64 {
    sim::normal::cdf((x - mu) / sigma)
}

/// `(μ, σ)` by maximum likelihood on `(x, resigned)` pairs (Nelder-Mead over `(μ, ln σ)`,
/// started at the sample's mean and spread of `x`): `council-analyze resign`'s fit.
#[must_use]
pub fn fit(data: &[(f64, bool)]) -> (f64, f64) {
    let nll = |p: [f64; 2]| {
        let (mu, sigma) = (p[0], p[1].exp());
        data.iter()
            .map(|&(x, y)| {
                let q = probability(x, mu, sigma).clamp(1e-300, 1.0 - 1e-16);
                -(if y { q.ln() } else { (1.0 - q).ln() })
            })
            .sum::<f64>()
    };
    let n = data.len().max(1) as f64;
    let mean = data.iter().map(|d| d.0).sum::<f64>() / n;
    let sd = (data.iter().map(|d| (d.0 - mean).powi(2)).sum::<f64>() / n)
        .sqrt()
        .max(1e-6);
    let x = sim::optimize::nelder_mead(nll, [mean, sd.ln()], 0.5, 1e-12, 2000);
    (x[0], x[1].exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_half_at_mu_and_rising_with_x() {
        assert!((probability(2.0, 2.0, 0.5) - 0.5).abs() < 1e-15);
        assert!(probability(1.0, 2.0, 0.5) < 0.03 && probability(3.0, 2.0, 0.5) > 0.97);
        // The adjudication's numbers: own score v = -1000 cp at mu = 1000 is even odds, -1600
        // nearly certain.
        assert!((probability(1000.0, 1000.0, 300.0) - 0.5).abs() < 1e-12);
        assert!(probability(1600.0, 1000.0, 300.0) > 0.97);
    }

    #[test]
    fn the_fit_recovers_the_model_it_was_drawn_from() {
        use rand::{RngExt, SeedableRng};
        let (mu, sigma) = (1.5, 0.8);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let data: Vec<(f64, bool)> = (0..20000)
            .map(|_| {
                let x = rng.random_range(-2.0..5.0);
                (x, rng.random::<f64>() < probability(x, mu, sigma))
            })
            .collect();
        let (m, s) = fit(&data);
        assert!(
            (m - mu).abs() < 0.05 && (s / sigma - 1.0).abs() < 0.05,
            "{m} {s}"
        );
    }
}
