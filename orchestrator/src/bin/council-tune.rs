//! `council-tune CONFIG --out DIR [--iterations N] [--seed S] [--concurrency N] [--simulate]`:
//! SPSA over the `[tune]` section's parameters (docs/guide/tune.md). Rerunning the same command
//! on the same DIR continues the tune where it stopped. The work is in `orchestrator::tune`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use orchestrator::config::Config;
use orchestrator::runner::signals::cancel_on_stop_signals;
use orchestrator::tune::report;
use orchestrator::tune::run::{TuneOptions, tune};
use tokio_util::sync::CancellationToken;

#[derive(Parser, Debug)]
#[command(
    version,
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
}

fn main() -> ExitCode {
    orchestrator::init_logging(std::io::stderr().is_terminal());
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("council-tune: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = Config::load(&cli.config)?;
    if cli.iterations == Some(0) {
        anyhow::bail!("--iterations must be at least 1");
    }
    let concurrency = cli.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let opts = TuneOptions {
        out: cli.out.clone(),
        iterations: cli.iterations,
        seed: cli.seed,
        concurrency,
        simulate: cli.simulate,
        progress: !cli.quiet && std::io::stderr().is_terminal(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = rt.block_on(async {
        let cancel = CancellationToken::new();
        let signals = cancel_on_stop_signals(cancel.clone(), || {
            eprintln!("council-tune: interrupted; rerun the same command to resume");
        });
        let outcome = tune(config, &opts, cancel).await;
        signals.abort();
        outcome
    })?;
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
        outcome.svgs.len(),
        cli.out.display()
    );
    Ok(if outcome.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}
