//! `council-openings CORPUS... --ply N --band CP --out FILE`: a balanced opening suite for
//! `[match] openings` (`council_study::learn::openings`). This parses the flags, builds the
//! reference (`analyze::moves`: the built-in engine, or a USI player of a config), calls `run`
//! with it, prints the report and exits 2 on any error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use council_study::analyze::moves::{ReferenceEngine, ReferenceLimit, root_scores};
use council_study::learn::openings::{self, DEFAULT_RADIUS, OpeningsOptions};

#[derive(Parser, Debug)]
#[command(
    name = "council-openings",
    version = council_stamp::version!(),
    about = "Build a balanced, diverse opening suite from the positions recorded games reach at one ply"
)]
struct Cli {
    /// Corpus files (or any input `council-learn corpus` reads).
    #[arg(required = true)]
    corpus: Vec<PathBuf>,
    /// The ply whose positions are candidates (games shorter than this give none).
    #[arg(long)]
    ply: usize,
    /// Keep positions the reference scores within ±CP centipawns (sente's view).
    #[arg(long, value_name = "CP")]
    band: i32,
    /// A USI engine of a config as the reference (CONFIG:PLAYER); default: the built-in engine.
    #[arg(long, value_name = "CONFIG:PLAYER")]
    reference: Option<String>,
    /// The reference's node budget per position [default: 20000, unless --depth].
    #[arg(long, conflicts_with = "depth")]
    nodes: Option<u64>,
    /// Search every position to this fixed depth instead of a node budget.
    #[arg(long)]
    depth: Option<u32>,
    /// The number of lines wanted.
    #[arg(long, value_name = "K", default_value_t = 100)]
    count: usize,
    /// A `council-learn similarity` weights file for the distance (default: every weight 1).
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Skip a position nearer than this to one already chosen (learned units).
    #[arg(long, value_name = "R", default_value_t = DEFAULT_RADIUS)]
    radius: f64,
    /// The seed of the order candidates are offered in.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Positions the reference searches at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// The openings file to write (its sidecar is FILE.json).
    #[arg(long)]
    out: PathBuf,
}

fn main() -> ExitCode {
    council_cli::init_logging(true);
    let result = run(Cli::parse()).map(|()| ExitCode::SUCCESS);
    council_cli::finish("council-openings", 2, result)
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let limit = match cli.depth {
        Some(d) => ReferenceLimit::Depth(d),
        None => ReferenceLimit::Nodes(cli.nodes.unwrap_or(20_000)),
    };
    limit.check()?;
    let limit_text = match limit {
        ReferenceLimit::Nodes(n) => format!("nodes {n}"),
        ReferenceLimit::Depth(d) => format!("depth {d}"),
    };
    let (engine, reference) = match &cli.reference {
        None => (
            ReferenceEngine::Builtin,
            format!("built-in engine, {limit_text}"),
        ),
        Some(spec) => {
            let engine = ReferenceEngine::from_spec(spec)?;
            (engine, format!("{spec}, {limit_text}"))
        }
    };
    let concurrency = cli.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let options = OpeningsOptions {
        corpus: cli.corpus,
        ply: cli.ply,
        band: cli.band,
        reference,
        count: cli.count,
        weights: cli.weights,
        radius: cli.radius,
        seed: cli.seed,
        out: cli.out,
        command: council_study::learn::command_line(),
    };
    let report = openings::run(&options, |positions| {
        root_scores(positions, &engine, limit, concurrency, true).map_err(Into::into)
    })?;
    for w in &report.warnings {
        eprintln!("council-openings: warning: {w}");
    }
    print!("{}", report.table());
    Ok(())
}
