//! `council-engine`: with no arguments a USI engine on stdin/stdout; `perft` and `bench`
//! as subcommands. Thin: argument handling only, the work lives in the `engine` library.
//! USI owns stdout: logs go to stderr only.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use engine::position::Position;
use std::io::Write;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "council-engine",
    version,
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
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    if let Err(e) = run(Cli::parse()) {
        // One line: what was being done and why it failed.
        eprintln!("council-engine: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Perft(args)) => perft(&args),
        Some(Command::Bench { depth }) => bench(depth),
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
