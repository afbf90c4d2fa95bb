//! The Monte Carlo random walk against the deterministic kernel, and the plain single-loop
//! implementation against both.
//!
//! Tolerance: 5 standard errors, with standard errors of the sample mean, variance and third
//! central moment computed from the kernel's exact distribution of W (delta method). Under a
//! correct implementation a 5-SE miss has probability 6e-7 per comparison (normal tails), so the
//! few dozen comparisons here would essentially never fail by chance on any seed, while a bias of
//! a few standard errors (e.g. a walk that stops one step early shifts E[W] by 1, hundreds of
//! SEs) fails at once. Seeds are fixed, so runs are deterministic anyway.

use sim::game_length::kernel::WalkKernel;
use sim::game_length::simulate::{Layout, simulate};
use sim::game_length::{GameLengthParams, Preset};
use sim::moments::{central_moments_of_pmf, moment_standard_errors};
use sim::plain;
use sim::streams::no_progress;

const Z: f64 = 5.0;

fn check(label: &str, got: f64, want: f64, se: f64) {
    assert!(
        (got - want).abs() < Z * se,
        "{label}: {got} vs exact {want} ({:+.2} SE)",
        (got - want) / se
    );
}

#[test]
fn monte_carlo_walk_matches_the_kernel_in_mean_variance_and_third_moment() {
    for (a, games) in [
        (0.2474, 2_000_000u64),
        (0.2262, 1_000_000),
        (0.6, 1_000_000),
    ] {
        let kernel = WalkKernel::new(a).expect("in range");
        let pmf = kernel.pmf(1e-16);
        let mu = central_moments_of_pmf(&pmf, 6);
        let exact = kernel.moments();
        let [se_mean, se_var, se_m3] = moment_standard_errors(&mu, games);
        let p = GameLengthParams::new(a, 90.0, 20.0).expect("valid");
        let run = simulate(&p, games, 2024, &Layout::for_params(&p), &no_progress);
        check("E[W]", run.walk.mean, exact.mean, se_mean);
        check("Var(W)", run.walk.variance, exact.variance, se_var);
        check("m3(W)", run.walk.m3, exact.m3, se_m3);
        // L = W + K: its mean carries K's variance too.
        let exact_l = p.exact_moments().expect("in range").length;
        check(
            "E[L]",
            run.length.mean,
            exact_l.mean,
            (exact_l.variance / games as f64).sqrt(),
        );
    }
}

#[test]
fn walk_length_frequencies_match_the_kernel_distribution() {
    // Pearson chi-square of the W counts against the kernel's P(W = t), cells with >= 20
    // expected games (the tail pooled): a wrong step rule shows up here even if moments hide it.
    let a = 0.35;
    let games = 500_000u64;
    let pmf = WalkKernel::new(a).expect("in range").pmf(1e-16);
    let p = GameLengthParams::new(a, 0.0, 1.0).expect("valid");
    let run = simulate(&p, games, 99, &Layout::for_params(&p), &no_progress);
    let n = games as f64;
    let (mut chi2, mut cells, mut tail_obs, mut tail_exp) = (0.0, 0usize, 0.0, 0.0);
    for t in 1..pmf.len().max(run.walk_counts.len()) {
        let expected = pmf.get(t).copied().unwrap_or(0.0) * n;
        let observed = run.walk_counts.get(t).copied().unwrap_or(0) as f64;
        if expected >= 20.0 {
            chi2 += (observed - expected).powi(2) / expected;
            cells += 1;
        } else {
            tail_obs += observed;
            tail_exp += expected;
        }
    }
    chi2 += (tail_obs - tail_exp).powi(2) / tail_exp;
    let dof = cells as f64; // cells + tail - 1
    // Chi-square with k dof: mean k, sd sqrt(2k); 5 sd above the mean.
    assert!(
        chi2 < dof + Z * (2.0 * dof).sqrt(),
        "chi2 {chi2} on {dof} dof"
    );
}

#[test]
fn plain_single_loop_agrees_with_the_kernel() {
    // The plain implementation shares no simulation code with the fast one.
    let p = Preset::Pro.params();
    let games = 400_000u64;
    let kernel = WalkKernel::new(p.a).expect("in range");
    let mu = central_moments_of_pmf(&kernel.pmf(1e-16), 6);
    let [se_mean, se_var, _] = moment_standard_errors(&mu, games);
    let (length, walk) = plain::game_length(&p, games, 3);
    let exact = p.exact_moments().expect("in range");
    check("plain E[W]", walk.mean, exact.walk.mean, se_mean);
    check("plain Var(W)", walk.variance, exact.walk.variance, se_var);
    check(
        "plain E[L]",
        length.mean,
        exact.length.mean,
        (exact.length.variance / games as f64).sqrt(),
    );
}
