//! `council-sim`: the Monte Carlo models of shared/spec/models.md sections 2 to 4 on the command
//! line. Parses flags, sets up the thread pool and progress bars, runs a model from the `sim`
//! library and prints its table (or JSON with `--json`); `--svg FILE` draws the figure.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use sim::council::sweep::{self, SweepSpec};
use sim::council::{CouncilParams, SyncPair, simulate as council_sim};
use sim::game_length::fit::{FitTarget, fit};
use sim::game_length::gamma::GammaMatch;
use sim::game_length::simulate::{Layout, simulate as play_games};
use sim::game_length::{GameLengthParams, Preset};
use sim::majority::MajorityModel;
use sim::plain;
use sim::report::{self, Timing};

mod plot;

const ABOUT: &str =
    "Monte Carlo models of council theory and game length (models.md sections 2-4).";

const LONG_ABOUT: &str = "\
Monte Carlo models of council theory and game length (models.md sections 2-4).

Every run takes --seed (default 1) and replays bit-for-bit on any --threads: work is cut into
batches of 65536 items, batch b draws from the Xoshiro256++ stream seeded from the seed by
SplitMix64 and advanced by b jumps of 2^128, and batch results are combined in batch order.
The seed is printed in every table and JSON object. Counts accept 1e7 or 10_000_000.";

#[derive(Parser, Debug)]
#[command(name = "council-sim", version = council_stamp::version!(), about = ABOUT, long_about = LONG_ABOUT)]
struct Cli {
    #[command(subcommand)]
    model: Model,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug, Clone)]
struct Common {
    /// Print one JSON object instead of the table (no progress bar).
    #[arg(long, global = true)]
    json: bool,
    /// Also draw the model's figure as an SVG file.
    #[arg(long, global = true, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Master seed; the same seed gives the same numbers on any number of threads.
    #[arg(long, global = true, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
}

#[derive(Subcommand, Debug)]
enum Model {
    /// Game length under the random-walk model: moments beside the matching gamma, W, histogram.
    #[command(allow_negative_numbers = true)]
    GameLength(GameLengthArgs),
    /// Find A, M, S from a target mean, sd and third central moment (or a gamma's shape and scale).
    #[command(long_about = FIT_ABOUT)]
    #[command(allow_negative_numbers = true)]
    FitGameLength(FitArgs),
    /// Best-move rates of single members and of every council method, and member agreement.
    #[command(allow_negative_numbers = true)]
    Council(CouncilArgs),
    /// The source's council figures: rates against s2/d (n = 2, 3, sync 0 and 0.5) or against N.
    #[command(allow_negative_numbers = true)]
    CouncilSweep(SweepArgs),
    /// The simple three-voter majority model: exact P, exact and first-order thresholds, Monte Carlo.
    #[command(allow_negative_numbers = true)]
    Majority(MajorityArgs),
    /// Speed of the fast simulations against the obvious programs, measured in one run.
    Bench(BenchArgs),
}

const FIT_ABOUT: &str = "\
Find A, M, S of the random-walk game-length model from a target mean, sd and third central
moment of L (or from a gamma shape and scale, which fix all three).

Precision: the fit is deterministic, no Monte Carlo. K is normal, so m3(L) = m3(W) depends on A
alone; E[W], Var(W) and m3(W) are computed from a discretised transition kernel (Gauss-Legendre
Nystrom with about 10/A nodes; the moments agree with twice as many nodes to ~1e-12 relative)
and A is solved by Brent's method to 1e-13 in ln A. Then S^2 = var - Var(W), M = mean - E[W].
The fitted model reproduces the target mean, sd and m3 to ~1e-9 relative or better (printed).
--check-games N adds a Monte Carlo run of the fitted model as an independent check.";

/// A count such as `1e7`, `10000000` or `10_000_000`.
fn parse_count(s: &str) -> Result<u64, String> {
    let clean = s.replace('_', "");
    if let Ok(n) = clean.parse::<u64>() {
        return Ok(n);
    }
    match clean.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.fract() == 0.0 && x <= 1e15 => Ok(x as u64),
        _ => Err(format!("{s:?} is not a whole count (e.g. 1e7 or 10000000)")),
    }
}

/// `--preset`: the library's [`Preset`] as a flag (the `sim` library carries no clap).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum PresetFlag {
    /// Professional games (棋士棋譜集, November 2015).
    Pro,
    /// Computer games on floodgate (2012-2015).
    Floodgate,
}

impl From<PresetFlag> for Preset {
    fn from(flag: PresetFlag) -> Self {
        match flag {
            PresetFlag::Pro => Preset::Pro,
            PresetFlag::Floodgate => Preset::Floodgate,
        }
    }
}

#[derive(Args, Debug)]
struct GameLengthArgs {
    /// A published parameter set (overridden by --a/--m/--s).
    #[arg(long, value_enum, default_value_t = PresetFlag::Pro)]
    preset: PresetFlag,
    /// Random-walk step sd A (transformed score, decided at +-1).
    #[arg(long)]
    a: Option<f64>,
    /// Mean M of the non-random-walk moves.
    #[arg(long)]
    m: Option<f64>,
    /// Sd S of the non-random-walk moves.
    #[arg(long)]
    s: Option<f64>,
    /// Games to simulate (the source used 1e8).
    #[arg(long, default_value = "1e7", value_parser = parse_count)]
    games: u64,
    /// Plies per bin of the printed histogram (JSON and SVG use one-ply bins).
    #[arg(long, default_value_t = 10)]
    bin_width: usize,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("shape").required(true).args(["m3", "gamma_shape"])))]
struct FitArgs {
    /// Target mean of L.
    #[arg(long, required_unless_present = "gamma_shape")]
    mean: Option<f64>,
    /// Target sd of L.
    #[arg(long, required_unless_present = "gamma_shape")]
    sd: Option<f64>,
    /// Target third central moment of L.
    #[arg(long, requires_all = ["mean", "sd"])]
    m3: Option<f64>,
    /// Gamma shape k (with --gamma-scale): target mean k theta, sd sqrt(k) theta, m3 2 k theta^3.
    #[arg(long, requires = "gamma_scale", conflicts_with_all = ["mean", "sd", "m3"])]
    gamma_shape: Option<f64>,
    /// Gamma scale theta.
    #[arg(long, requires = "gamma_shape")]
    gamma_scale: Option<f64>,
    /// Also simulate this many games of the fitted model as a check (0: none).
    #[arg(long, default_value = "0", value_parser = parse_count)]
    check_games: u64,
}

#[derive(Args, Debug)]
struct CouncilArgs {
    /// Candidate moves n (>= 2).
    #[arg(long, default_value_t = 3)]
    candidates: usize,
    /// Each member's noise s_i, comma separated, in member order.
    #[arg(long, value_delimiter = ',', default_value = "1,2,2")]
    sigma: Vec<f64>,
    /// Gap d between the best move and every other candidate.
    #[arg(long, default_value_t = 1.0)]
    gap: f64,
    /// I:J=RHO: with probability RHO member J reports what member I reports (1-based; repeatable,
    /// applied in the order given).
    #[arg(long, value_name = "I:J=RHO")]
    sync: Vec<SyncPair>,
    /// Each member's vote weight for majority and approval, comma separated, in member order
    /// (finite, >= 0; every weight 1 when left out).
    #[arg(long, value_delimiter = ',')]
    weights: Option<Vec<f64>>,
    /// Trials (the source used 1e7 per point).
    #[arg(long, default_value = "1e7", value_parser = parse_count)]
    trials: u64,
    /// Also the approval method with each member's top K candidates (K >= 1), on the same
    /// simulated positions.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    approval: Option<u64>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SweepKind {
    /// Three members s1 < s2 = s3, x = s2/d (figures council_1, council_syn, council_2).
    Noise,
    /// N members with equal noise, x = N (figure council_3).
    Members,
}

#[derive(Args, Debug)]
struct SweepArgs {
    /// Which figure.
    #[arg(long, value_enum, default_value_t = SweepKind::Noise)]
    vs: SweepKind,
    /// Candidate counts n, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "2,3")]
    candidates: Vec<usize>,
    /// Noise sweep: the strongest member's s1/d (the source does not state its value).
    #[arg(long, default_value_t = 1.0)]
    s1: f64,
    /// Noise sweep: first s2/d.
    #[arg(long, default_value_t = 1.0)]
    s2_from: f64,
    /// Noise sweep: last s2/d.
    #[arg(long, default_value_t = 4.0)]
    s2_to: f64,
    /// Noise sweep: step of s2/d.
    #[arg(long, default_value_t = 0.25)]
    s2_step: f64,
    /// Noise sweep: sync rates between members 2 and 3, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "0,0.5")]
    syncs: Vec<f64>,
    /// Members sweep: every member's s/d.
    #[arg(long, default_value_t = 2.0)]
    sigma: f64,
    /// Members sweep: smallest N.
    #[arg(long, default_value_t = 1)]
    members_from: usize,
    /// Members sweep: largest N.
    #[arg(long, default_value_t = 10)]
    members_to: usize,
    /// Trials per point (the source used 1e7).
    #[arg(long, default_value = "1e6", value_parser = parse_count)]
    trials: u64,
    /// Also write the table as CSV to this file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct MajorityArgs {
    /// The strongest voter's best-move probability p1.
    #[arg(long, default_value_t = 0.6)]
    p1: f64,
    /// delta = p1 - p2 (p2 = p3).
    #[arg(long, default_value_t = 0.05)]
    delta: f64,
    /// Effective candidates B (integer >= 2).
    #[arg(long, default_value_t = 3)]
    candidates: u32,
    /// Monte Carlo trials (at the given delta and again at the exact threshold).
    #[arg(long, default_value = "1e7", value_parser = parse_count)]
    trials: u64,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Games for the fast game-length run (professional preset).
    #[arg(long, default_value = "1e8", value_parser = parse_count)]
    games: u64,
    /// Games for the baseline game-length program (the obvious one: SmallRng, ziggurat normals
    /// one step at a time, rayon over 200 chunks, power sums, no histogram).
    #[arg(long, default_value = "1e8", value_parser = parse_count)]
    plain_games: u64,
    /// Run only the baseline game-length program on --plain-games games and print its rate (to
    /// time it as a whole process beside `council-sim game-length`).
    #[arg(long)]
    baseline_only: bool,
    /// Trials for the fast council run (3 members s = 1, 2, 2; 3 candidates; d = 1).
    #[arg(long, default_value = "1e7", value_parser = parse_count)]
    trials: u64,
    /// Trials for the plain single-loop council.
    #[arg(long, default_value = "1e6", value_parser = parse_count)]
    plain_trials: u64,
}

/// A progress bar on stderr for `total` items; hidden with --json or when stderr is no terminal.
fn progress_bar(common: &Common, total: u64, what: &str) -> ProgressBar {
    let target = if common.json {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} {what} [{{bar:40}}] {{human_pos}}/{{human_len}} eta {{eta}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

fn print_json(value: &serde_json::Value) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let threads = cli
        .common
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .context("starting the worker threads")?;
    let common = &cli.common;
    match &cli.model {
        Model::GameLength(a) => game_length(common, threads, a),
        Model::FitGameLength(a) => fit_game_length(common, threads, a),
        Model::Council(a) => council(common, threads, a),
        Model::CouncilSweep(a) => council_sweep(common, threads, a),
        Model::Majority(a) => majority(common, threads, a),
        Model::Bench(a) => bench(common, threads, a),
    }
}

fn game_length(common: &Common, threads: usize, args: &GameLengthArgs) -> Result<()> {
    let base = Preset::from(args.preset).params();
    let custom = args.a.is_some() || args.m.is_some() || args.s.is_some();
    let params = GameLengthParams::new(
        args.a.unwrap_or(base.a),
        args.m.unwrap_or(base.m),
        args.s.unwrap_or(base.s),
    )?;
    let description = if custom {
        format!(
            "custom parameters (unset ones from the {:?} preset)",
            args.preset
        )
        .to_lowercase()
    } else {
        Preset::from(args.preset).description().to_string()
    };
    let exact = params.exact_moments().ok();
    let layout = Layout::for_params(&params);
    let bar = progress_bar(common, args.games, "games");
    let start = Instant::now();
    let run = play_games(&params, args.games, common.seed, &layout, &|n| bar.inc(n));
    let timing = Timing {
        seconds: start.elapsed().as_secs_f64(),
        threads,
    };
    bar.finish_and_clear();
    let gamma = GammaMatch::matching(&run.length).context("matching a gamma distribution")?;
    if let Some(path) = &common.svg {
        plot::game_length_svg(path, &run, &gamma)?;
    }
    if common.json {
        print_json(&report::game_length_json(
            &run,
            exact.as_ref(),
            &gamma,
            &timing,
        ))
    } else {
        print!(
            "{}",
            report::game_length_table(
                &run,
                exact.as_ref(),
                &gamma,
                &timing,
                &description,
                args.bin_width
            )
        );
        Ok(())
    }
}

fn fit_game_length(common: &Common, threads: usize, args: &FitArgs) -> Result<()> {
    let target = match (
        args.gamma_shape,
        args.gamma_scale,
        args.mean,
        args.sd,
        args.m3,
    ) {
        (Some(k), Some(t), ..) => FitTarget::from_gamma(k, t)?,
        (_, _, Some(mean), Some(sd), Some(m3)) => FitTarget::new(mean, sd, m3)?,
        _ => bail!("give --mean, --sd and --m3, or --gamma-shape and --gamma-scale"),
    };
    let fitted = fit(&target)?;
    let check = if args.check_games > 0 {
        let layout = Layout::for_params(&fitted.params);
        let bar = progress_bar(common, args.check_games, "games");
        let start = Instant::now();
        let run = play_games(
            &fitted.params,
            args.check_games,
            common.seed,
            &layout,
            &|n| bar.inc(n),
        );
        bar.finish_and_clear();
        let timing = Timing {
            seconds: start.elapsed().as_secs_f64(),
            threads,
        };
        if let Some(path) = &common.svg {
            let gamma = GammaMatch::matching(&run.length)?;
            plot::game_length_svg(path, &run, &gamma)?;
        }
        Some((run, timing))
    } else {
        if common.svg.is_some() {
            bail!("--svg needs simulated games: add --check-games N");
        }
        None
    };
    let check_ref = check.as_ref().map(|(r, t)| (r, t));
    if common.json {
        let mut v = report::fit_json(&target, &fitted, check_ref);
        v["seed"] = common.seed.into();
        print_json(&v)
    } else {
        print!("{}", report::fit_table(&target, &fitted, check_ref));
        Ok(())
    }
}

fn council(common: &Common, threads: usize, args: &CouncilArgs) -> Result<()> {
    let mut params = CouncilParams::new(
        args.candidates,
        args.sigma.clone(),
        args.gap,
        args.sync.clone(),
    )?;
    if let Some(w) = &args.weights {
        params = params.with_weights(w.clone())?;
    }
    let runs = if args.approval.is_some() { 2 } else { 1 };
    let bar = progress_bar(common, args.trials * runs, "trials");
    let start = Instant::now();
    let run = council_sim::simulate(&params, args.trials, common.seed, &|n| bar.inc(n));
    let approval = args.approval.map(|k| {
        let k = k as usize;
        let count =
            council_sim::simulate_approval(&params, k, args.trials, common.seed, &|n| bar.inc(n));
        (k, count)
    });
    let timing = Timing {
        seconds: start.elapsed().as_secs_f64(),
        threads,
    };
    bar.finish_and_clear();
    if common.svg.is_some() {
        bail!("council draws no figure; use council-sweep --svg");
    }
    if common.json {
        print_json(&report::council_json(&run, approval, &timing))
    } else {
        print!("{}", report::council_table(&run, approval, &timing));
        Ok(())
    }
}

fn council_sweep(common: &Common, threads: usize, args: &SweepArgs) -> Result<()> {
    let spec = match args.vs {
        SweepKind::Noise => SweepSpec::Noise {
            s1: args.s1,
            s2: sweep::grid(args.s2_from, args.s2_to, args.s2_step),
            candidates: args.candidates.clone(),
            syncs: args.syncs.clone(),
        },
        SweepKind::Members => SweepSpec::Members {
            sigma: args.sigma,
            members: (args.members_from.max(1)..=args.members_to).collect(),
            candidates: args.candidates.clone(),
        },
    };
    let total = spec.points()?.len() as u64 * args.trials.max(1);
    let bar = progress_bar(common, total, "trials");
    let start = Instant::now();
    let points = sweep::run(&spec, args.trials, common.seed, &|n| bar.inc(n))?;
    let timing = Timing {
        seconds: start.elapsed().as_secs_f64(),
        threads,
    };
    bar.finish_and_clear();
    if let Some(path) = &args.csv {
        std::fs::write(
            path,
            report::sweep_csv(&points, args.trials.max(1), common.seed),
        )
        .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &common.svg {
        plot::sweep_svg(path, &spec, &points, args.trials.max(1), common.seed)?;
    }
    if common.json {
        print_json(&report::sweep_json(
            &spec,
            &points,
            args.trials.max(1),
            common.seed,
            &timing,
        ))
    } else {
        print!(
            "{}",
            report::sweep_table(&spec, &points, args.trials.max(1), common.seed, &timing)
        );
        Ok(())
    }
}

fn majority(common: &Common, threads: usize, args: &MajorityArgs) -> Result<()> {
    let model = MajorityModel::new(args.p1, args.delta, args.candidates)?;
    let exact = model.exact();
    let at = exact
        .threshold_delta
        .map(|t| MajorityModel::new(args.p1, t, args.candidates))
        .transpose()?;
    let runs = if at.is_some() { 2 } else { 1 };
    let bar = progress_bar(common, args.trials.max(1) * runs, "trials");
    let start = Instant::now();
    let mc = model.simulate(args.trials, common.seed, &|n| bar.inc(n));
    let timing = Timing {
        seconds: start.elapsed().as_secs_f64(),
        threads,
    };
    let mc_at = at.map(|m| m.simulate(args.trials, common.seed, &|n| bar.inc(n)));
    bar.finish_and_clear();
    if common.svg.is_some() {
        bail!("majority draws no figure");
    }
    if common.json {
        print_json(&report::majority_json(
            &model,
            &exact,
            &mc,
            mc_at.as_ref(),
            common.seed,
            &timing,
        ))
    } else {
        print!(
            "{}",
            report::majority_table(&model, &exact, &mc, mc_at.as_ref(), common.seed, &timing)
        );
        Ok(())
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// CPU time of all this process's threads so far (Linux: the sum of every task's schedstat), or
/// `None` where that is not available. Lets `bench` say how much of the machine it really got.
fn cpu_seconds() -> Option<f64> {
    let mut total_ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total_ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total_ns as f64 * 1e-9)
}

/// Wall and CPU seconds of one benchmark phase.
#[derive(Clone, Copy)]
struct Phase {
    wall: f64,
    cpu: Option<f64>,
}

fn timed(f: &dyn Fn()) -> Phase {
    let (start, cpu0) = (Instant::now(), cpu_seconds());
    f();
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    Phase { wall, cpu }
}

/// `bench --baseline-only`: the baseline game-length program alone.
fn bench_baseline_only(common: &Common, threads: usize, args: &BenchArgs) -> Result<()> {
    let params = Preset::Pro.params();
    let start = Instant::now();
    let run = plain::game_length_baseline(&params, args.plain_games, common.seed);
    let seconds = start.elapsed().as_secs_f64();
    let rate = run.games as f64 / seconds.max(1e-9);
    if common.json {
        return print_json(&serde_json::json!({
            "threads": threads,
            "seed": common.seed,
            "games": run.games,
            "seconds": seconds,
            "games_per_second": rate,
            "length": {"mean": run.length.mean, "sd": run.length.sd()},
            "random_walk": {"mean": run.walk_mean, "sd": run.walk_sd},
        }));
    }
    println!(
        "baseline game length, pro preset: {} games, seed {}, {threads} threads, {seconds:.2} s = {rate:.3e} games/s",
        run.games, common.seed
    );
    println!(
        "  L mean {:.4} sd {:.4}; W mean {:.4} sd {:.4}",
        run.length.mean,
        run.length.sd(),
        run.walk_mean,
        run.walk_sd
    );
    Ok(())
}

/// One workload timed twice: the fast program and the obvious one, each as (items, phase).
#[derive(Clone, Copy)]
struct Workload {
    fast: (u64, Phase),
    plain: (u64, Phase),
}

impl Workload {
    /// Items per wall second, fast and plain.
    fn rates(&self) -> (f64, f64) {
        (
            per_s(self.fast.0, self.fast.1.wall),
            per_s(self.plain.0, self.plain.1.wall),
        )
    }
}

fn per_s(n: u64, s: f64) -> f64 {
    n.max(1) as f64 / s.max(1e-9)
}

fn bench(common: &Common, threads: usize, args: &BenchArgs) -> Result<()> {
    if args.baseline_only {
        return bench_baseline_only(common, threads, args);
    }
    let load_before = load_average();
    let params = Preset::Pro.params();
    let layout = Layout::for_params(&params);
    let bar = progress_bar(common, args.games, "fast games");
    let fast_games = timed(&|| {
        play_games(&params, args.games, common.seed, &layout, &|n| bar.inc(n));
    });
    bar.finish_and_clear();
    let plain_games = timed(&|| {
        plain::game_length_baseline(&params, args.plain_games, common.seed);
    });
    let council_params = CouncilParams::new(3, vec![1.0, 2.0, 2.0], 1.0, vec![])?;
    let bar = progress_bar(common, args.trials, "fast trials");
    let fast_trials = timed(&|| {
        council_sim::simulate(&council_params, args.trials, common.seed, &|n| bar.inc(n));
    });
    bar.finish_and_clear();
    let plain_trials = timed(&|| {
        plain::council(&council_params, args.plain_trials.max(1), common.seed);
    });
    let load_after = load_average();
    let games = Workload {
        fast: (args.games, fast_games),
        plain: (args.plain_games, plain_games),
    };
    let trials = Workload {
        fast: (args.trials, fast_trials),
        plain: (args.plain_trials, plain_trials),
    };
    let loads = (load_before.as_str(), load_after.as_str());
    if common.json {
        return print_json(&bench_json(common.seed, threads, loads, games, trials));
    }
    print_bench(common.seed, threads, loads, games, trials);
    Ok(())
}

/// `bench --json`.
fn bench_json(
    seed: u64,
    threads: usize,
    (load_before, load_after): (&str, &str),
    games: Workload,
    trials: Workload,
) -> serde_json::Value {
    let phase = |(n, p): (u64, Phase)| {
        serde_json::json!({
            "items": n,
            "seconds": p.wall,
            "per_second": per_s(n, p.wall),
            "cpu_seconds": p.cpu,
            "per_cpu_second": p.cpu.map(|c| per_s(n, c)),
        })
    };
    let ((gf, gp), (tf, tp)) = (games.rates(), trials.rates());
    serde_json::json!({
        "threads": threads,
        "seed": seed,
        "load_before": load_before,
        "load_after": load_after,
        "game_length": {
            "fast": phase(games.fast),
            "baseline": phase(games.plain),
            "games_per_second": gf,
            "speedup": gf / gp,
        },
        "council": {
            "fast": phase(trials.fast),
            "plain": phase(trials.plain),
            "trials_per_second": tf,
            "speedup": tf / tp,
        },
    })
}

/// `bench`'s table.
fn print_bench(
    seed: u64,
    threads: usize,
    (load_before, load_after): (&str, &str),
    games: Workload,
    trials: Workload,
) {
    println!(
        "council-sim bench: {threads} threads, seed {seed}, load average before {load_before}, after {load_after}"
    );
    print_speeds("game length, pro preset", "games", games, "base");
    print_speeds("council 3x3, all methods", "trials", trials, "plain");
    println!(
        "base: the obvious game-length program (SmallRng, ziggurat normals one step at a time, rayon\n\
         over 200 chunks, power sums, no histogram; alone: `bench --baseline-only`). plain: one thread,\n\
         one generator, a Normal sample per draw, allocations per trial, the ML product in linear space.\n\
         cpu: CPU time of all threads (a loaded machine lowers /s, not /cpu-s)."
    );
}

/// One workload's three lines: fast, plain (called `label`), and their ratio.
fn print_speeds(workload: &str, unit: &str, w: Workload, label: &str) {
    let cpu = |n: u64, p: Phase| match p.cpu {
        Some(c) => format!("cpu {c:>6.2} s = {:.3e}/cpu-s", per_s(n, c)),
        None => String::new(),
    };
    let ((n_fast, fast), (n_plain, plain)) = (w.fast, w.plain);
    let (fast_rate, plain_rate) = w.rates();
    let per_second = format!("{unit}/s");
    println!(
        "  {workload:<26}fast  {n_fast:>10} {unit:<6} in {:>6.2} s = {fast_rate:.3e} {per_second:<9} {}",
        fast.wall,
        cpu(n_fast, fast)
    );
    println!(
        "{:28}{label:<5} {n_plain:>10} {unit:<6} in {:>6.2} s = {plain_rate:.3e} {per_second:<9} {}",
        "",
        plain.wall,
        cpu(n_plain, plain)
    );
    println!(
        "{:28}fast / {label}: {fast_rate:.3e} / {plain_rate:.3e} {per_second} = {:.2}x",
        "",
        fast_rate / plain_rate
    );
}
