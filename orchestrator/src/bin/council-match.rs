//! `council-match CONFIG [--games N] [--concurrency N] [--out DIR] [--seed S] [--resume] [--check]
//! [--serve [ADDR]]`: plays the match or tournament a TOML file describes and ends with a
//! standings table. `council-match serve RUN_DIR [--addr ADDR]`: the live page of a run folder.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use orchestrator::config::Config;
use orchestrator::live;
use orchestrator::runner::summary;
use orchestrator::runner::{self, RunOptions};
use tokio_util::sync::CancellationToken;

/// Where the live page listens unless told.
const DEFAULT_ADDR: &str = "127.0.0.1:8700";

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Play councils and single shogi engines against each other",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The match configuration (TOML), e.g. configs/3vs1.toml.
    #[arg(required = true)]
    config: Option<PathBuf>,
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
    /// Serve the live page while the run plays, on ADDR (default 127.0.0.1:8700); it stays up
    /// after the run until Ctrl-C.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_ADDR)]
    serve: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve the live page of a run folder (finished, running or merged), following its
    /// results.jsonl as it grows.
    Serve {
        run_dir: PathBuf,
        #[arg(long, default_value = DEFAULT_ADDR)]
        addr: String,
    },
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
    if let Some(Command::Serve { run_dir, addr }) = &cli.command {
        let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
        rt.block_on(orchestrator::live::serve_folder(run_dir, addr))?;
        return Ok(ExitCode::SUCCESS);
    }
    let config_path = cli.config.clone().context("no CONFIG given")?;
    let mut config = Config::load(&config_path)?;
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
            config_path.display(),
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
        None => default_out(&config_path),
    };
    let mut opts = RunOptions {
        out: out.clone(),
        concurrency,
        seed: cli.seed,
        resume: cli.resume,
        progress: !cli.quiet,
        feed: None,
    };
    let outcome = rt.block_on(async {
        let page = match &cli.serve {
            Some(addr) => {
                let page = live::LivePage::start(addr, &config).await?;
                eprintln!("live page: {}", page.url());
                opts.feed = Some(page.feed());
                Some(page)
            }
            None => None,
        };
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        let signals = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("council-match: interrupted; finishing writes (resume with --resume)");
                on_signal.cancel();
            }
        });
        let outcome = runner::run(config, &opts, cancel).await?;
        signals.abort();
        print!("{}", summary::standings_table(&outcome.summary));
        println!("results in {}", out.display());
        if let Some(page) = page
            && !outcome.interrupted
        {
            eprintln!(
                "the run is over; its live page stays up at {} until Ctrl-C",
                page.url()
            );
            page.until_ctrl_c().await;
        }
        anyhow::Ok(outcome)
    })?;
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
