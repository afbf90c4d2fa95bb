//! `council-csa CONFIG PLAYER --server HOST:PORT --id NAME --password PASS [--games N]
//! [--out DIR] [--quiet] [--log [FILE]]`: a player of a council-match config (a council or one
//! engine) on a CSA protocol 1.2.1 server such as floodgate. Records, `results.jsonl`, a
//! protocol log and, when asked, the engines' log go to `--out`. See `council_play::csa` and
//! docs/guide/csa.md.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use council_play::csa::game::{CsaGame, CsaOptions, run};
use council_players::factory::EngineLogs;
use council_players::player::engine_log::{self, EngineLog};
use council_schema::config::Config;

#[derive(Parser, Debug)]
#[command(
    name = "council-csa",
    version,
    about = "A council (or any player of a council-match config) on a CSA protocol server such as floodgate"
)]
struct Cli {
    /// The config with the [[player]] tables ([match] may be absent).
    config: PathBuf,
    /// The player to play as.
    player: String,
    /// The server, HOST:PORT (floodgate: wdoor.c.u-tokyo.ac.jp:4081).
    #[arg(long)]
    server: String,
    /// The login name (floodgate: the name shown on its pages).
    #[arg(long)]
    id: String,
    /// The password (floodgate: `<game name>,<password>`, e.g. `floodgate-300-10F,secret`).
    /// Masked in the protocol log.
    #[arg(long)]
    password: String,
    /// Games to play, reconnecting for each.
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Output folder (default runs/csa-<unix time>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Kept back from every move's time for the network and the server's measurement, ms.
    #[arg(long, default_value_t = 1000)]
    margin_ms: u64,
    /// Send an empty line after this many seconds without sending anything (0: never).
    #[arg(long, default_value_t = 30)]
    keep_alive: u64,
    /// Master seed of the players' randomness (each game's seed derives from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No line per game on stdout.
    #[arg(long)]
    quiet: bool,
    /// Write every line to and from the player's engines to FILE (default: engines.log in
    /// --out, beside protocol.log). Without it, players with `log = true` write there.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    log: Option<Option<PathBuf>>,
}

fn main() -> ExitCode {
    council_schema::init_logging(false);
    let cli = Cli::parse();
    let config = match Config::load_players(&cli.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("council-csa: {e}");
            return ExitCode::from(2);
        }
    };
    if !config.players.contains_key(&cli.player) {
        let mut names: Vec<&str> = config.players.keys().map(String::as_str).collect();
        names.sort_unstable();
        eprintln!(
            "council-csa: {}: no player `{}` (players: {})",
            cli.config.display(),
            cli.player,
            names.join(", ")
        );
        return ExitCode::from(2);
    }
    let out = cli.out.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("runs/csa-{secs}"))
    });
    let engine_log = match engine_logs(&cli, &config, &out) {
        Ok(logs) => logs,
        Err(e) => {
            eprintln!("council-csa: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = CsaOptions {
        server: cli.server.clone(),
        id: cli.id.clone(),
        password: cli.password.clone(),
        games: cli.games,
        out,
        margin: Duration::from_millis(cli.margin_ms),
        keep_alive: Duration::from_secs(cli.keep_alive),
        seed: cli.seed,
        engine_log,
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("council-csa: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let quiet = cli.quiet;
    let mut report = |g: &CsaGame| {
        if !quiet {
            println!(
                "game {} {}: {} vs {}: {} by {} after {} moves ({})",
                g.result.id,
                g.game_id,
                g.result.sente,
                g.result.gote,
                g.result.result.name(),
                g.result.reason.name(),
                g.result.plies,
                g.said
            );
        }
    };
    let result = rt.block_on(async {
        council_players::factory::preflight_logged(&config, opts.engine_log.as_ref())
            .await
            .map_err(|e| e.to_string())?;
        run(&config, &cli.player, &opts, &mut report)
            .await
            .map_err(|e| e.to_string())
    });
    rt.shutdown_timeout(Duration::from_millis(200));
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("council-csa: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The engine log: `--log [FILE]` for every engine (FILE, or `engines.log` in `out`), else
/// `engines.log` in `out` for the players with `log = true`, else none.
fn engine_logs(
    cli: &Cli,
    config: &Config,
    out: &std::path::Path,
) -> Result<Option<EngineLogs>, String> {
    let (path, every_engine) = match &cli.log {
        Some(Some(file)) => (file.clone(), true),
        Some(None) => (out.join("engines.log"), true),
        None if EngineLogs::asked_in(config) => (out.join("engines.log"), false),
        None => return Ok(None),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let log = EngineLog::open(&path, engine_log::DEFAULT_CAP_BYTES).map_err(|e| e.to_string())?;
    log.note(&format!("council-csa as {}: session started", cli.player));
    Ok(Some(EngineLogs { log, every_engine }))
}
