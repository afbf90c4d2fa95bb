//! `council-match CONFIG [--games N] [--concurrency N] [--out DIR] [--seed S] [--resume] [--check]`: plays
//! the match or tournament a TOML file describes and ends with a standings table.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use orchestrator::config::Config;
use orchestrator::runner::summary;
use orchestrator::runner::{self, RunOptions};
use tokio_util::sync::CancellationToken;

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Play councils and single shogi engines against each other"
)]
struct Cli {
    /// The match configuration (TOML), e.g. configs/3vs1.toml.
    config: PathBuf,
    /// Games per pairing, overriding the config's `games`.
    #[arg(long)]
    games: Option<u64>,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Output folder (default: a new folder under runs/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Master seed (default: the config's `seed`); recorded in every output.
    #[arg(long)]
    seed: Option<u64>,
    /// Continue an interrupted run in --out: finished games are kept, the rest played.
    #[arg(long, requires = "out")]
    resume: bool,
    /// Validate the config (players, start positions, and every USI engine's handshake) and exit
    /// without playing.
    #[arg(long)]
    check: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> ExitCode {
    orchestrator::init_logging(true);
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("council-match: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut config = Config::load(&cli.config)?;
    if let Some(g) = cli.games {
        anyhow::ensure!(g > 0, "--games must be at least 1");
        config.games = g;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(orchestrator::factory::preflight(&config))
        .map_err(anyhow::Error::msg)?;
    if cli.check {
        println!(
            "{}: valid ({} players, {} games per pairing)",
            cli.config.display(),
            config.playing.len(),
            config.games
        );
        return Ok(ExitCode::SUCCESS);
    }
    let concurrency = cli.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    anyhow::ensure!(concurrency > 0, "--concurrency must be at least 1");
    let out = match cli.out {
        Some(o) => o,
        None => default_out(&cli.config),
    };
    let opts = RunOptions {
        out: out.clone(),
        concurrency,
        seed: cli.seed,
        resume: cli.resume,
        progress: !cli.quiet,
    };
    let outcome = rt.block_on(async {
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("council-match: interrupted; finishing writes (resume with --resume)");
                on_signal.cancel();
            }
        });
        runner::run(config, &opts, cancel).await
    })?;
    print!("{}", summary::standings_table(&outcome.summary));
    println!("results in {}", out.display());
    Ok(if outcome.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// `runs/<config name>-<unix seconds>`, made unique if taken.
fn default_out(config: &std::path::Path) -> PathBuf {
    let stem = config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = PathBuf::from("runs").join(format!("{stem}-{secs}"));
    let mut path = base.clone();
    let mut n = 1;
    while path.exists() {
        path = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    path
}
