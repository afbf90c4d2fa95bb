//! `council-tune CONFIG --out DIR [--iterations N] [--seed S] [--concurrency N] [--simulate]
//! [--serve [ADDR]] [--shard I/N|auto] [--log FILE] [--log-max-mb MB]`:
//! SPSA over the `[tune]` section's parameters (docs/guide/tune.md). Rerunning the same command
//! on the same DIR continues the tune where it stopped. The work is in `council_play::tune`, the
//! tune with its page and signals in `council_live::session`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use council_live::session::play_tune;
use council_live::tune_svg::write_svgs;
use council_play::runner::command::command_line;
use council_play::tune::report;
use council_play::tune::run::{TuneOptions, TuneOutcome};
use council_players::player::engine_log::{self, EngineLog};
use council_schema::config::Config;
use council_schema::run::shard::Shard;

#[derive(Parser, Debug)]
#[command(
    name = "council-tune",
    version = council_stamp::version!(),
    about = "Tune a player's numeric keys by SPSA, against games or a simulated Elo bowl"
)]
struct Cli {
    /// The configuration (TOML) with a [tune] section.
    config: PathBuf,
    /// The tune's folder: tune.jsonl, games.jsonl, one SVG per parameter. Rerun the same
    /// command on it to resume.
    #[arg(long)]
    out: PathBuf,
    /// SPSA iterations, overriding [tune] iterations.
    #[arg(long)]
    iterations: Option<u64>,
    /// Seed, overriding [tune] seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Replace games by draws from the known Elo bowl of [tune.simulate].
    #[arg(long)]
    simulate: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Play shard I of N of every iteration (I/N, e.g. 0/4, or `auto`: from Slurm's or a
    /// Kubernetes Indexed Job's environment, as council-match reads it). Every shard runs at the
    /// same time on the same --out folder; shard 0 writes tune.jsonl.
    #[arg(long, value_name = "I/N|auto")]
    shard: Option<String>,
    /// Seconds a shard waits for a game from the other shards before it stops with the missing
    /// shard's name.
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    shard_wait: u64,
    /// Serve the live page of the tune (each parameter's course, the games in play and
    /// finished) on ADDR (default 127.0.0.1:8700); it stays up after the tune until Ctrl-C or
    /// SIGTERM.
    /// `council-match serve DIR` serves a tune's folder from another process.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8700")]
    serve: Option<String>,
    /// Append every line to and from every engine to FILE (timestamp, game, player,
    /// direction; a `#` verdict line per game). Without it, players with `log = true` write to
    /// the tune folder's engines.log.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The most an engine log grows in one session, MB; then a note says so and it stops.
    #[arg(long, value_name = "MB", default_value_t = engine_log::DEFAULT_CAP_BYTES / 1_000_000)]
    log_max_mb: u64,
}

fn main() -> ExitCode {
    council_cli::init_logging(std::io::stderr().is_terminal());
    council_cli::finish("council-tune", 1, run(Cli::parse()))
}

/// `--shard I/N` or `--shard auto`, as council-match reads it.
fn shard(flag: Option<&str>) -> anyhow::Result<Option<Shard>> {
    flag.map(Shard::from_flag)
        .transpose()
        .map_err(anyhow::Error::msg)
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = Config::load(&cli.config)?;
    if cli.iterations == Some(0) {
        anyhow::bail!("--iterations must be at least 1");
    }
    let concurrency = cli.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let log_cap = cli.log_max_mb.saturating_mul(1_000_000);
    let engine_log = match &cli.log {
        Some(path) => {
            let log = EngineLog::open(path, log_cap)?;
            let typed: Vec<String> = std::env::args().collect();
            log.note(&command_line(&typed));
            Some(log)
        }
        None => None,
    };
    let opts = TuneOptions {
        out: cli.out.clone(),
        iterations: cli.iterations,
        seed: cli.seed,
        concurrency,
        simulate: cli.simulate,
        progress: !cli.quiet && std::io::stderr().is_terminal(),
        feed: None,
        shard: shard(cli.shard.as_deref())?,
        shard_wait: std::time::Duration::from_secs(cli.shard_wait.max(1)),
        engine_log,
        engine_log_cap: log_cap,
    };
    // Games run on the scheduler's own workers; this runtime keeps the signals, the live page
    // and the writer.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (outcome, page) = rt.block_on(play_tune(config, opts, cli.serve.as_deref()))?;
    print_outcome(&cli, &outcome)?;
    if let Some(page) = page
        && !outcome.interrupted
    {
        eprintln!(
            "the tune is over; its live page stays up at {} until Ctrl-C or SIGTERM",
            page.url()
        );
        rt.block_on(page.until_stopped());
    }
    Ok(if outcome.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// The SVGs (when this process keeps the tune's log), the table and the closing line.
fn print_outcome(cli: &Cli, outcome: &TuneOutcome) -> anyhow::Result<()> {
    let svgs = if outcome.keeps_log {
        write_svgs(&cli.out, &outcome.tune, &outcome.lines, cli.simulate)?
    } else {
        Vec::new()
    };
    if outcome.resumed_at > 0 {
        println!("resumed at iteration {}", outcome.resumed_at);
    }
    print!(
        "{}",
        report::table(
            &outcome.summary,
            outcome.lines.len() as u64,
            outcome.tune.iterations
        )
    );
    println!(
        "{} in {:.1} s; tune.jsonl and {} SVG files in {}",
        if outcome.interrupted {
            "interrupted"
        } else {
            "done"
        },
        outcome.wall.as_secs_f64(),
        svgs.len(),
        cli.out.display()
    );
    Ok(())
}
