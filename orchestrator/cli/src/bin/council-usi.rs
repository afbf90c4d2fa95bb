//! `council-usi [CONFIG] [--player NAME] [--log FILE]`: a player of a council-match config (by
//! default its only council) as a USI engine on stdin/stdout, for shogi GUIs. Without CONFIG
//! (GUIs register a bare executable) it reads `council-usi.toml` from the executable's folder.
//! `--log FILE` writes its engines' lines there. A config that does not load is told on stderr
//! and, to a GUI, as the answer to its `usi` (an `info string`), before exiting with status 2.
//! See `council_play::usi_server`.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use clap::Parser;
use council_play::usi_server::{self, players};
use council_players::factory::EngineLogs;
use council_players::player::engine_log::{self, EngineLog};
use council_schema::config::Config;

/// The config read when none is given, from the executable's folder.
const DEFAULT_CONFIG: &str = "council-usi.toml";

#[derive(Parser, Debug)]
#[command(
    name = "council-usi",
    version = council_stamp::version!(),
    about = "A council (or any player of a council-match config) as one USI engine for shogi GUIs"
)]
struct Cli {
    /// The config with the [[player]] tables ([match] may be absent). Default: council-usi.toml
    /// next to this executable.
    config: Option<PathBuf>,
    /// The player to play as (default: the config's only council).
    #[arg(long)]
    player: Option<String>,
    /// Write every line to and from the player's engines to FILE (appended). Without it,
    /// players with `log = true` write to engines.log in the config's folder.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

fn main() -> ExitCode {
    council_cli::init_logging(false);
    let cli = Cli::parse();
    let (config, name) = match load(&cli) {
        Ok(c) => c,
        Err(e) => return refuse(&e),
    };
    let logs = match engine_logs(&cli, &config) {
        Ok(logs) => logs,
        Err(e) => return refuse(&e),
    };
    council_cli::finish("council-usi", 2, serve(config, name, logs))
}

/// The USI session on stdin and stdout until `quit` or the end of stdin.
fn serve(config: Config, name: String, logs: Option<EngineLogs>) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    // Blocking reads on a plain thread: the process may exit while it still waits for input.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rt.block_on(usi_server::run_logged(
        config,
        name,
        logs,
        rx,
        Box::new(std::io::stdout()),
    ));
    // An abandoned search thread must not keep the process alive after `quit`.
    rt.shutdown_timeout(Duration::from_millis(200));
    Ok(ExitCode::SUCCESS)
}

/// A session that cannot start: the problem on stderr, and, when a GUI drives this process (its
/// stdin not a terminal), as the answer to its `usi` (`usi_server::refuse`), since a GUI shows
/// an engine's output, not its stderr. Exit status 2, as for every config error.
fn refuse(problem: &anyhow::Error) -> ExitCode {
    use std::io::IsTerminal;
    let line = format!("council-usi: {problem:#}");
    eprintln!("{line}");
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        usi_server::refuse(&line, stdin.lock(), &mut std::io::stdout());
    }
    ExitCode::from(2)
}

fn load(cli: &Cli) -> anyhow::Result<(Config, String)> {
    let path = match &cli.config {
        Some(p) => p.clone(),
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| anyhow!("no CONFIG given and cannot find this executable: {e}"))?;
            let path = exe
                .parent()
                .map_or_else(|| PathBuf::from(DEFAULT_CONFIG), |d| d.join(DEFAULT_CONFIG));
            if !path.exists() {
                bail!(
                    "no CONFIG given and {} does not exist (put a config there, or run \
                     council-usi CONFIG [--player NAME])",
                    path.display()
                );
            }
            path
        }
    };
    let config = Config::load_players(&path)?;
    let name = players::choose_player(&config, cli.player.as_deref())?;
    Ok((config, name))
}

/// The engine log: `--log FILE` for every engine, else `engines.log` beside the config for the
/// players with `log = true`, else none.
fn engine_logs(cli: &Cli, config: &Config) -> anyhow::Result<Option<EngineLogs>> {
    let (path, every_engine) = match &cli.log {
        Some(file) => (file.clone(), true),
        None if EngineLogs::asked_in(config) => (
            config
                .file
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .join("engines.log"),
            false,
        ),
        None => return Ok(None),
    };
    let log = EngineLog::open(&path, engine_log::DEFAULT_CAP_BYTES)?;
    // The GUI's game goes on without the log: a write that fails is one warning.
    log.warn_on_failure();
    log.note(&format!(
        "council-usi as {}: session started",
        cli.player.as_deref().unwrap_or("its council")
    ));
    Ok(Some(EngineLogs { log, every_engine }))
}
