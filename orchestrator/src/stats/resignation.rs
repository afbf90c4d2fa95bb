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
}
