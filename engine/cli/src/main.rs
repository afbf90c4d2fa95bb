//! `council-engine`: with no arguments a USI engine on stdin/stdout; `perft`, `bench` and
//! `ebf` as subcommands. Thin: argument handling only, the work lives in the `engine` library;
//! this crate (`engine/cli`) holds the program so that the library carries no clap, anyhow or
//! log subscriber.
//! USI owns stdout: logs go to stderr only.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use engine::position::Position;
use std::io::Write;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "council-engine",
    version = council_stamp::version!(),
    about = "The council's shogi engine (USI)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the legal move sequences of a given length (the last line printed is the count).
    Perft(PerftArgs),
    /// Search a fixed set of positions to a fixed depth; the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Search depth per position.
        #[arg(long, default_value_t = engine::search::bench::BENCH_DEPTH)]
        depth: u32,
    },
    /// Effective branching factor of a position (models.md section 8): prints one JSON object.
    Ebf(EbfArgs),
}

#[derive(Args)]
struct EbfArgs {
    /// Position to measure (default: the even-game start).
    #[arg(long)]
    sfen: Option<String>,
    /// Threshold Nth: frontier nodes (nodes that enter quiescence) of the full-window deepening.
    #[arg(long, default_value_t = engine::search::ebf::DEFAULT_NTH)]
    nodes: u64,
    /// Win-rate scale T of `win_rate = 1 / (1 + exp(-score / T))`.
    #[arg(long, default_value_t = engine::search::ebf::DEFAULT_WIN_RATE_T)]
    win_rate_t: f64,
}

#[derive(Args)]
struct PerftArgs {
    /// Number of plies.
    depth: u32,
    /// Start position (default: the even-game start).
    #[arg(long)]
    sfen: Option<String>,
    /// Print the count below each legal move first.
    #[arg(long)]
    divide: bool,
}

fn main() {
    init_logging();
    if let Err(e) = run(Cli::parse()) {
        // One line: what was being done and why it failed.
        eprintln!("council-engine: {e:#}");
        std::process::exit(1);
    }
}

/// Diagnostics to stderr, `error` only unless `RUST_LOG` (`level` and `target=level`
/// directives, tracing-subscriber's `Targets`) says otherwise.
fn init_logging() {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::ERROR));
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(filter),
        )
        .init();
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Perft(args)) => perft(&args),
        Some(Command::Bench { depth }) => bench(depth),
        Some(Command::Ebf(args)) => ebf(&args),
        None => {
            let stdin = std::io::stdin().lock();
            engine::usi::frontend::run(stdin, std::io::stdout())
                .context("reading USI commands from stdin")
        }
    }
}

fn bench(depth: u32) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let report = engine::search::bench::run(depth, &mut |i, sfen, nodes, best| {
        let _ = writeln!(
            out,
            "position {:>2} nodes {nodes:>10} bestmove {best:<6} {sfen}",
            i + 1
        );
    });
    writeln!(
        out,
        "depth {depth}, {} positions, {:.3} s",
        engine::search::bench::BENCH_SFENS.len(),
        report.elapsed.as_secs_f64()
    )?;
    writeln!(out, "{} nodes {} nps", report.nodes, report.nps())?;
    Ok(())
}

/// One JSON object on stdout. A dropped position (a mate seen before the threshold, or a tree
/// too small to pass it) still prints its object, with `dropped` set and `ebf`, `score` and
/// `win_rate` null, plus one line on stderr; the exit status is 0 either way.
fn ebf(args: &EbfArgs) -> Result<()> {
    use engine::search::ebf::{EBF_HASH_MB, EbfOutcome, win_rate};
    use serde_json::json;
    anyhow::ensure!(args.nodes > 0, "ebf --nodes must be at least 1");
    anyhow::ensure!(
        args.win_rate_t.is_finite() && args.win_rate_t > 0.0,
        "ebf --win-rate-t must be a positive number, not {}",
        args.win_rate_t
    );
    let pos = match &args.sfen {
        Some(sfen) => Position::from_sfen(sfen).with_context(|| format!("ebf --sfen `{sfen}`"))?,
        None => Position::startpos(),
    };
    let mut engine = engine::search::Engine::new(engine::search::EngineSettings {
        hash_mb: EBF_HASH_MB,
        ..engine::search::EngineSettings::default()
    });
    let start = Instant::now();
    let outcome = engine.measure_ebf(&pos, args.nodes);
    let secs = start.elapsed().as_secs_f64();
    let common = json!({ "sfen": pos.to_sfen(), "nth": args.nodes });
    let specific = match outcome {
        EbfOutcome::Measured(m) => json!({
            "depth": m.depth,
            "nodes": m.nodes,
            "ebf": m.ebf,
            "score": m.score_cp,
            "win_rate": win_rate(f64::from(m.score_cp), args.win_rate_t),
            "dropped": null,
        }),
        EbfOutcome::Dropped {
            reason,
            depth,
            nodes,
            score,
        } => dropped(reason, depth, nodes, score, args.nodes),
    };
    let mut object = common;
    if let (Some(o), serde_json::Value::Object(rest)) = (object.as_object_mut(), specific) {
        o.extend(rest);
    }
    eprintln!("ebf measured in {secs:.3} s");
    println!("{object}");
    Ok(())
}

/// The object of a dropped position, after one line on stderr saying why it was dropped.
fn dropped(
    reason: engine::search::ebf::DropReason,
    depth: u32,
    nodes: u64,
    score: engine::types::Score,
    nth: u64,
) -> serde_json::Value {
    use engine::search::ebf::DropReason;
    use engine::types::Score;
    let (word, why) = match (reason, score) {
        (DropReason::Mate, Score::Mate(n)) => ("mate", format!("mate in {n} plies")),
        (DropReason::Mate, _) => ("mate", "a mate".to_string()),
        (DropReason::TooSmall, _) => ("too_small", "its depth cap".to_string()),
    };
    eprintln!(
        "council-engine ebf: position dropped: the search found {why} at depth {depth} \
         after {nodes} frontier nodes, before the threshold {nth}"
    );
    serde_json::json!({
        "depth": depth,
        "nodes": nodes,
        "ebf": null,
        "score": null,
        "win_rate": null,
        "dropped": word,
        "mate": match score { Score::Mate(n) => Some(n), Score::Cp(_) => None },
    })
}

fn perft(args: &PerftArgs) -> Result<()> {
    let pos = match &args.sfen {
        Some(sfen) => Position::from_sfen(sfen).context("perft --sfen")?,
        None => Position::startpos(),
    };
    let start = Instant::now();
    let nodes = if args.divide {
        let split = engine::perft::divide(&pos, args.depth);
        for (mv, n) in &split {
            println!("{mv}: {n}");
        }
        if args.depth == 0 {
            1
        } else {
            split.iter().map(|(_, n)| n).sum()
        }
    } else {
        engine::perft::perft(&pos, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    // Timing goes to stderr so that stdout ends with the bare count.
    eprintln!(
        "perft depth {}: {nodes} nodes in {secs:.3} s ({:.0} nodes/s)",
        args.depth,
        nodes as f64 / secs.max(1e-9)
    );
    println!("{nodes}");
    Ok(())
}
