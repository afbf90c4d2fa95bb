//! Formatting of results: readable tables (the default output) and the JSON objects of
//! `docs/reference/files.md` (`--json`). Numbers come in, text goes out; nothing here
//! computes statistics beyond ratios and z-scores for display.
//!
//! Invariant: every JSON object carries the keys docs/reference/files.md promises, plus `seed` for every
//! seeded run; extra keys may be added, never renamed.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::council::simulate::CouncilRun;
use crate::council::sweep::{SweepPoint, SweepSpec};
use crate::game_length::fit::{Fit, FitTarget};
use crate::game_length::gamma::GammaMatch;
use crate::game_length::simulate::GameLengthRun;
use crate::game_length::{ExactMoments, GameLengthParams};
use crate::majority::{MajorityExact, MajorityModel};
use crate::moments::{Count, Moments, Rate};

/// How long a run took and on how many threads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    pub seconds: f64,
    pub threads: usize,
}

impl Timing {
    pub fn per_second(&self, items: u64) -> f64 {
        items as f64 / self.seconds.max(1e-9)
    }
}

fn moments_json(m: &Moments) -> Value {
    json!({
        "mean": m.mean,
        "sd": m.sd(),
        "m3": m.m3,
        "m4": m.m4,
        "skewness": m.skewness(),
        "excess_kurtosis": m.excess_kurtosis(),
    })
}

/// `(simulated - exact) / standard error` of the sample mean and variance.
fn z_scores(sim: &Moments, exact: &Moments, n: u64) -> (f64, f64) {
    let n = n as f64;
    let se_mean = (exact.variance / n).sqrt();
    let se_var = ((exact.m4 - exact.variance * exact.variance) / n).sqrt();
    (
        (sim.mean - exact.mean) / se_mean,
        (sim.variance - exact.variance) / se_var,
    )
}

fn params_json(p: &GameLengthParams) -> Value {
    json!({ "a": p.a, "m": p.m, "s": p.s })
}

/// `game-length --json`.
pub fn game_length_json(
    run: &GameLengthRun,
    exact: Option<&ExactMoments>,
    gamma: &GammaMatch,
    timing: &Timing,
) -> Value {
    let h = &run.histogram;
    let mut out = json!({
        "params": params_json(&run.params),
        "games": run.games,
        "seed": run.seed,
        "threads": timing.threads,
        "seconds": timing.seconds,
        "games_per_second": timing.per_second(run.games),
        "length": moments_json(&run.length),
        "random_walk": { "mean": run.walk.mean, "sd": run.walk.sd() },
        "gamma": { "shape": gamma.shape, "scale": gamma.scale, "m3": gamma.m3, "m4": gamma.m4 },
        "histogram": {
            "lo": h.lo, "bin_width": 1, "counts": h.counts, "below": h.below, "above": h.above,
        },
        "random_walk_counts": run.walk_counts,
    });
    if let Some(e) = exact {
        let (z_mean, z_var) = z_scores(&run.length, &e.length, run.games);
        out["exact"] = json!({
            "method": "deterministic discretised kernel (Gauss-Legendre Nystrom)",
            "length": moments_json(&e.length),
            "random_walk": { "mean": e.walk.mean, "sd": e.walk.sd() },
            "z_mean": z_mean,
            "z_variance": z_var,
        });
    }
    out
}

fn row(out: &mut String, label: &str, cells: &[String]) {
    let _ = write!(out, "  {label:<18}");
    for c in cells {
        let _ = write!(out, "{c:>18}");
    }
    out.push('\n');
}

fn num(x: f64) -> String {
    if x == 0.0 || (1e-3..1e7).contains(&x.abs()) {
        let digits = (6 - x.abs().log10().floor().max(0.0) as i32).max(1) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.6e}")
    }
}

/// `game-length` as a table with a text histogram in `bin_width`-ply bins.
pub fn game_length_table(
    run: &GameLengthRun,
    exact: Option<&ExactMoments>,
    gamma: &GammaMatch,
    timing: &Timing,
    description: &str,
    bin_width: usize,
) -> String {
    let mut out = String::new();
    let p = &run.params;
    let _ = writeln!(out, "game length, random-walk model: {description}");
    let _ = writeln!(
        out,
        "A = {}, M = {}, S = {}; {} games, seed {}, {} threads, {:.2} s ({:.3e} games/s)\n",
        p.a,
        p.m,
        p.s,
        run.games,
        run.seed,
        timing.threads,
        timing.seconds,
        timing.per_second(run.games)
    );
    let g = gamma.moments();
    let mut header = vec!["simulated".to_string()];
    if exact.is_some() {
        header.push("exact (kernel)".into());
    }
    header.push("gamma".into());
    row(&mut out, "length L = W + K", &header);
    type Pick = fn(&Moments) -> f64;
    let lines: [(&str, Pick); 6] = [
        ("mean", |m| m.mean),
        ("sd", |m| m.sd()),
        ("m3", |m| m.m3),
        ("m4", |m| m.m4),
        ("skewness", |m| m.skewness()),
        ("excess kurtosis", |m| m.excess_kurtosis()),
    ];
    for (label, f) in lines {
        let mut cells = vec![num(f(&run.length))];
        if let Some(e) = exact {
            cells.push(num(f(&e.length)));
        }
        cells.push(num(f(&g)));
        row(&mut out, label, &cells);
    }
    row(&mut out, "random walk W", &[]);
    let walk_lines: [(&str, Pick); 2] = [("mean", |m| m.mean), ("sd", |m| m.sd())];
    for (label, f) in walk_lines {
        let mut cells = vec![num(f(&run.walk))];
        if let Some(e) = exact {
            cells.push(num(f(&e.walk)));
        }
        row(&mut out, label, &cells);
    }
    let _ = writeln!(
        out,
        "\ngamma with the simulated mean and variance: shape k = {:.4}, scale theta = {:.4}",
        gamma.shape, gamma.scale
    );
    let ratio = run.length.m4 / gamma.m4;
    let _ = writeln!(
        out,
        "m4 simulated / gamma: {:+.2}%; as fourth roots (in plies): {:+.2}% (the source: \"just under 4%\")",
        100.0 * (ratio - 1.0),
        100.0 * (ratio.powf(0.25) - 1.0)
    );
    if let Some(e) = exact {
        let (zm, zv) = z_scores(&run.length, &e.length, run.games);
        let _ = writeln!(
            out,
            "simulated - exact, in standard errors: mean {zm:+.2}, variance {zv:+.2}"
        );
    }
    out.push_str(&histogram_text(run, bin_width));
    out
}

fn histogram_text(run: &GameLengthRun, bin_width: usize) -> String {
    let h = &run.histogram;
    let w = bin_width.max(1) as i64;
    // Regroup one-ply bins into `w`-ply bins aligned at multiples of `w`.
    let mut bins: Vec<(i64, u64)> = Vec::new();
    for (i, &c) in h.counts.iter().enumerate() {
        let start = (h.lo + i as i64).div_euclid(w) * w;
        match bins.last_mut() {
            Some((s, total)) if *s == start => *total += c,
            _ => bins.push((start, c)),
        }
    }
    // A game has no negative length, but the model's K is normal: the few walks it makes
    // shorter than zero are counted in one row, not drawn as bins of negative lengths.
    let negative: u64 = bins.iter().filter(|b| b.0 < 0).map(|b| b.1).sum();
    bins.retain(|b| b.0 >= 0);
    let first = bins.iter().position(|b| b.1 > 0).unwrap_or(0);
    let last = bins.iter().rposition(|b| b.1 > 0).unwrap_or(0);
    let bins = &bins[first..=last.max(first)];
    let peak = bins.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let mut out = format!("\nhistogram of L ({w}-ply bins, share of games):\n");
    if negative > 0 {
        let _ = writeln!(
            out,
            "  {:>14} {:>8.4}%  (K ~ N(M, S²) is normal: the model gives a few games a length \
             below 0; counted here, not dropped)",
            "below 0",
            100.0 * negative as f64 / run.games as f64
        );
    }
    for &(start, c) in bins {
        let share = c as f64 / run.games as f64;
        let bar = "#".repeat(((c as f64 / peak as f64) * 50.0).round() as usize);
        let _ = writeln!(
            out,
            "  {:>5} to {:<5} {:>8.4}% {bar}",
            start,
            start + w,
            100.0 * share
        );
    }
    if h.below + h.above > 0 {
        let _ = writeln!(
            out,
            "  outside the range: {} below, {} above",
            h.below, h.above
        );
    }
    out
}

/// `fit-game-length --json`.
pub fn fit_json(target: &FitTarget, fit: &Fit, check: Option<(&GameLengthRun, &Timing)>) -> Value {
    let mut out = json!({
        "a": fit.params.a,
        "m": fit.params.m,
        "s": fit.params.s,
        "target": { "mean": target.mean, "sd": target.sd, "m3": target.m3 },
        "model": moments_json(&fit.length),
        "random_walk": { "mean": fit.walk.mean, "sd": fit.walk.sd() },
        "method": "deterministic: E[W], Var(W), m3(W) from a Gauss-Legendre Nystrom kernel; A by Brent's method on ln A",
        "max_relative_error": max_relative_error(target, &fit.length),
        "kernel_evaluations": fit.evaluations,
    });
    if let Some((run, timing)) = check {
        let (zm, zv) = z_scores(&run.length, &fit.length, run.games);
        out["monte_carlo"] = json!({
            "games": run.games,
            "seed": run.seed,
            "games_per_second": timing.per_second(run.games),
            "length": moments_json(&run.length),
            "z_mean": zm,
            "z_variance": zv,
        });
    }
    out
}

fn max_relative_error(target: &FitTarget, m: &Moments) -> f64 {
    [
        (m.mean, target.mean),
        (m.sd(), target.sd),
        (m.m3, target.m3),
    ]
    .iter()
    .map(|(a, b)| ((a - b) / b).abs())
    .fold(0.0, f64::max)
}

/// `fit-game-length` as a table.
pub fn fit_table(
    target: &FitTarget,
    fit: &Fit,
    check: Option<(&GameLengthRun, &Timing)>,
) -> String {
    let mut out = String::new();
    let p = &fit.params;
    let _ = writeln!(out, "fit of the random-walk game-length model");
    let _ = writeln!(
        out,
        "  A = {:.10}\n  M = {:.10}\n  S = {:.10}\n",
        p.a, p.m, p.s
    );
    let mut header = vec!["target".to_string(), "fitted (exact)".to_string()];
    if check.is_some() {
        header.push("Monte Carlo".into());
    }
    row(&mut out, "length L", &header);
    type Pick = fn(&Moments) -> f64;
    let lines: [(&str, f64, Pick); 4] = [
        ("mean", target.mean, |m| m.mean),
        ("sd", target.sd, |m| m.sd()),
        ("m3", target.m3, |m| m.m3),
        ("m4", f64::NAN, |m| m.m4),
    ];
    for (label, t, f) in lines {
        let mut cells = vec![
            if t.is_nan() { "-".into() } else { num(t) },
            num(f(&fit.length)),
        ];
        if let Some((run, _)) = check {
            cells.push(num(f(&run.length)));
        }
        row(&mut out, label, &cells);
    }
    row(&mut out, "random walk W", &[]);
    row(&mut out, "mean", &["".into(), num(fit.walk.mean)]);
    row(&mut out, "sd", &["".into(), num(fit.walk.sd())]);
    let _ = writeln!(
        out,
        "\nprecision: deterministic, no Monte Carlo. E[W], Var(W), m3(W) come from a discretised \
         transition kernel\n(Gauss-Legendre Nystrom, ~1e-12 relative); A is solved by Brent's \
         method to 1e-13 in ln A.\nlargest relative difference between the fitted model's mean, \
         sd, m3 and the target: {:.1e}",
        max_relative_error(target, &fit.length)
    );
    if let Some((run, timing)) = check {
        let (zm, zv) = z_scores(&run.length, &fit.length, run.games);
        let _ = writeln!(
            out,
            "Monte Carlo check: {} games, seed {}, {:.3e} games/s; simulated - exact in standard \
             errors: mean {zm:+.2}, variance {zv:+.2}",
            run.games,
            run.seed,
            timing.per_second(run.games)
        );
    }
    out
}

fn rate_values(rates: &[Rate]) -> Vec<f64> {
    rates.iter().map(|r| r.rate).collect()
}

/// `council --json`.
pub fn council_json(run: &CouncilRun, approval: Option<(usize, Count)>, timing: &Timing) -> Value {
    let r = run.rates();
    let p = &run.params;
    let mut out = json!({
        "candidates": p.candidates,
        "sigma": p.sigma,
        "gap": p.gap,
        "sync": p.syncs.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "trials": run.trials,
        "seed": run.seed,
        "threads": timing.threads,
        "seconds": timing.seconds,
        "trials_per_second": timing.per_second(run.trials),
        "rates": {
            "single": rate_values(&r.single),
            "majority": r.majority.rate,
            "optimistic": r.optimistic.rate,
            "pessimistic": r.pessimistic.rate,
            "ml": r.ml.rate,
            "ml_predicted": r.ml_predicted.rate,
        },
        "standard_errors": {
            "single": r.single.iter().map(|x| x.se).collect::<Vec<_>>(),
            "majority": r.majority.se,
            "optimistic": r.optimistic.se,
            "pessimistic": r.pessimistic.se,
            "ml": r.ml.se,
            "ml_predicted": r.ml_predicted.se,
        },
        "agreement": run.agreement(),
    });
    if p.weights.iter().any(|&w| w != 1.0) {
        out["weights"] = json!(p.weights);
    }
    if let Some((k, count)) = approval {
        let rate = Rate::from(count);
        out["approval"] = json!({ "k": k, "rate": rate.rate, "standard_error": rate.se });
    }
    out
}

/// `council` as a table.
pub fn council_table(
    run: &CouncilRun,
    approval: Option<(usize, Count)>,
    timing: &Timing,
) -> String {
    let mut out = String::new();
    let p = &run.params;
    let sigma: Vec<String> = p.sigma.iter().map(|s| s.to_string()).collect();
    let _ = writeln!(
        out,
        "council: {} members (s = {}), {} candidates, gap d = {}{}",
        p.members(),
        sigma.join(", "),
        p.candidates,
        p.gap,
        if p.syncs.is_empty() {
            String::new()
        } else {
            let s: Vec<String> = p.syncs.iter().map(|s| s.to_string()).collect();
            format!(", sync {}", s.join(" "))
        }
    );
    if p.weights.iter().any(|&w| w != 1.0) {
        let w: Vec<String> = p.weights.iter().map(|w| w.to_string()).collect();
        let _ = writeln!(out, "vote weights (majority, approval): {}", w.join(", "));
    }
    let _ = writeln!(
        out,
        "{} trials, seed {}, {} threads, {:.2} s ({:.3e} trials/s)\n",
        run.trials,
        run.seed,
        timing.threads,
        timing.seconds,
        timing.per_second(run.trials)
    );
    let r = run.rates();
    let _ = writeln!(
        out,
        "  {:<28}{:>10}{:>10}",
        "best-move rate", "rate", "± se"
    );
    let mut line = |label: String, x: &Rate| {
        let _ = writeln!(out, "  {label:<28}{:>10.5}{:>10.5}", x.rate, x.se);
    };
    for (i, x) in r.single.iter().enumerate() {
        line(format!("member {} (s = {})", i + 1, p.sigma[i]), x);
    }
    line("majority".into(), &r.majority);
    line("optimistic".into(), &r.optimistic);
    line("pessimistic".into(), &r.pessimistic);
    line("max likelihood (oracle A)".into(), &r.ml);
    line("max likelihood (predicted A)".into(), &r.ml_predicted);
    if let Some((k, count)) = approval {
        line(format!("approval (k = {k})"), &Rate::from(count));
    }
    let _ = writeln!(out, "\n  agreement");
    let a = run.agreement();
    let _ = write!(out, "  {:>8}", "");
    for j in 0..a.len() {
        let _ = write!(out, "{:>8}", j + 1);
    }
    out.push('\n');
    for (i, rowv) in a.iter().enumerate() {
        let _ = write!(out, "  {:>8}", i + 1);
        for v in rowv {
            let _ = write!(out, "{v:>8.4}");
        }
        out.push('\n');
    }
    out.push_str(
        "\nbest-move rate: share of the simulated positions in which a member, or the council by \
         a method, chose the best of the candidates; max likelihood uses the best move's true \
         value A (oracle) or the estimate real councils use (predicted); agreement: how often two \
         members chose the same move (docs/models.md section 3).\n",
    );
    out
}

/// Column names of the sweep table, CSV and JSON points.
const SWEEP_COLUMNS: [&str; 17] = [
    "candidates",
    "sync",
    "x",
    "single_1",
    "single_2",
    "majority",
    "optimistic",
    "pessimistic",
    "ml",
    "ml_predicted",
    "agreement_12",
    "agreement_23",
    "se_majority",
    "se_optimistic",
    "se_pessimistic",
    "se_ml",
    "se_ml_predicted",
];

fn sweep_values(p: &SweepPoint) -> [f64; 17] {
    let r = &p.rates;
    let single = |i: usize| r.single.get(i).map_or(f64::NAN, |x| x.rate);
    [
        p.candidates as f64,
        p.sync,
        p.x,
        single(0),
        single(1),
        r.majority.rate,
        r.optimistic.rate,
        r.pessimistic.rate,
        r.ml.rate,
        r.ml_predicted.rate,
        p.agreement_12.unwrap_or(f64::NAN),
        p.agreement_23.unwrap_or(f64::NAN),
        r.majority.se,
        r.optimistic.se,
        r.pessimistic.se,
        r.ml.se,
        r.ml_predicted.se,
    ]
}

/// `council-sweep` as CSV (one line per point, empty cells for missing members; every line
/// carries the run's trials per point and seed).
pub fn sweep_csv(points: &[SweepPoint], trials: u64, seed: u64) -> String {
    let mut out = SWEEP_COLUMNS.join(",");
    out.push_str(",trials,seed\n");
    for p in points {
        let cells: Vec<String> = sweep_values(p)
            .iter()
            .map(|v| {
                if v.is_nan() {
                    String::new()
                } else {
                    v.to_string()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push_str(&format!(",{trials},{seed}\n"));
    }
    out
}

/// `council-sweep --json`.
pub fn sweep_json(
    spec: &SweepSpec,
    points: &[SweepPoint],
    trials: u64,
    seed: u64,
    timing: &Timing,
) -> Value {
    let total = trials * points.len() as u64;
    json!({
        "spec": spec,
        "trials_per_point": trials,
        "seed": seed,
        "threads": timing.threads,
        "seconds": timing.seconds,
        "trials_per_second": timing.per_second(total),
        "points": points,
    })
}

/// `council-sweep` as a table.
pub fn sweep_table(
    spec: &SweepSpec,
    points: &[SweepPoint],
    trials: u64,
    seed: u64,
    timing: &Timing,
) -> String {
    let mut out = String::new();
    let x_name = match spec {
        SweepSpec::Noise { s1, .. } => {
            let _ = writeln!(
                out,
                "council sweep: three members, s1/d = {s1}, x = s2/d = s3/d"
            );
            "s2/d"
        }
        SweepSpec::Members { sigma, .. } => {
            let _ = writeln!(out, "council sweep: N members with s/d = {sigma}, x = N");
            "N"
        }
    };
    let total = trials * points.len() as u64;
    let _ = writeln!(
        out,
        "{} points x {} trials, seed {} (every point), {} threads, {:.1} s ({:.3e} trials/s)\n",
        points.len(),
        trials,
        seed,
        timing.threads,
        timing.seconds,
        timing.per_second(total)
    );
    let heads = [
        "n", "sync", x_name, "single1", "single2", "majority", "optim.", "pessim.", "ml",
        "ml pred.", "agree12", "agree23",
    ];
    for h in heads {
        let _ = write!(out, "{h:>9}");
    }
    out.push('\n');
    for p in points {
        let v = sweep_values(p);
        let _ = write!(out, "{:>9}{:>9}{:>9}", v[0], v[1], v[2]);
        for x in &v[3..12] {
            if x.is_nan() {
                let _ = write!(out, "{:>9}", "-");
            } else {
                let _ = write!(out, "{x:>9.4}");
            }
        }
        out.push('\n');
    }
    let se = points
        .iter()
        .map(|p| p.rates.ml.se.max(p.rates.majority.se))
        .fold(0.0, f64::max);
    let _ = writeln!(out, "\nlargest standard error of a council rate: {se:.5}");
    out
}

/// `majority --json`.
pub fn majority_json(
    model: &MajorityModel,
    exact: &MajorityExact,
    mc: &Count,
    at_threshold: Option<&Count>,
    seed: u64,
    timing: &Timing,
) -> Value {
    let z = |c: &Count, p: f64| (c.rate() - p) / (p * (1.0 - p) / c.trials as f64).sqrt();
    json!({
        "p1": model.p1,
        "delta": model.delta,
        "candidates": model.candidates,
        "p": exact.p,
        "strongest": exact.strongest,
        "a": exact.a,
        "threshold_delta": exact.threshold_delta,
        "first_order_threshold": exact.first_order_threshold,
        "seed": seed,
        "trials_per_second": timing.per_second(mc.trials),
        "monte_carlo": { "p": mc.rate(), "se": mc.standard_error(), "trials": mc.trials, "z": z(mc, exact.p) },
        "monte_carlo_at_threshold": at_threshold.map(|c| json!({
            "p": c.rate(), "se": c.standard_error(), "trials": c.trials, "z": z(c, exact.strongest),
        })),
    })
}

/// `majority` as a table.
pub fn majority_table(
    model: &MajorityModel,
    exact: &MajorityExact,
    mc: &Count,
    at_threshold: Option<&Count>,
    seed: u64,
    timing: &Timing,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "simple majority of three voters: p1 = {}, p2 = p3 = p1 - delta = {:.6}, B = {} candidates",
        model.p1,
        model.p2(),
        model.candidates
    );
    let _ = writeln!(out, "  a = p1 - 1/B                         {:.6}", exact.a);
    let _ = writeln!(out, "  P (majority plays the best), exact   {:.6}", exact.p);
    let _ = writeln!(
        out,
        "  p1 (strongest voter)                 {:.6}",
        exact.strongest
    );
    let verdict = if exact.p > exact.strongest {
        "beats"
    } else {
        "does not beat"
    };
    let _ = writeln!(out, "  -> the majority {verdict} its strongest voter");
    match exact.threshold_delta {
        Some(t) => {
            let _ = writeln!(out, "  exact threshold on delta (P = p1)    {t:.6}");
        }
        None => {
            let _ = writeln!(out, "  exact threshold on delta             none (a <= 0)");
        }
    }
    let _ = writeln!(
        out,
        "  first-order threshold a/2            {:.6}",
        exact.first_order_threshold
    );
    let z = |c: &Count, p: f64| (c.rate() - p) / (p * (1.0 - p) / c.trials as f64).sqrt();
    let _ = writeln!(
        out,
        "\nMonte Carlo ({} trials, seed {}, {:.3e} trials/s):\n  P = {:.6} ± {:.6}  ({:+.2} standard errors from exact)",
        mc.trials,
        seed,
        timing.per_second(mc.trials),
        mc.rate(),
        mc.standard_error(),
        z(mc, exact.p)
    );
    if let Some(c) = at_threshold {
        let _ = writeln!(
            out,
            "  at the exact threshold: P = {:.6} ± {:.6}  ({:+.2} standard errors from p1)",
            c.rate(),
            c.standard_error(),
            z(c, exact.strongest)
        );
    }
    out
}
