//! `council-csa CONFIG PLAYER --server HOST:PORT --id NAME [--password-file PATH | --password
//! PASS] [--games N] [--out DIR] [--keep-alive S] [--read-timeout S] [--pv-comment on|off]
//! [--quiet] [--log [FILE]]` (the password may come from the environment variable
//! `COUNCIL_CSA_PASSWORD` instead): a player of a council-match config (a council or one
//! engine) on a CSA protocol 1.2.1 server such as floodgate. Records, `results.jsonl`, a
//! protocol log and, when asked, the engines' log go to `--out`; a line per game and a closing
//! summary to stdout. Exit status: 0 when the games were played, 1 on an error (a file that
//! cannot be written included), 2 for bad input, 130 when stopped by Ctrl-C or SIGTERM (a
//! second one exits at once). See `council_play::csa` and docs/guide/csa.md.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use clap::{Parser, ValueEnum};
use council_play::csa::client::{CsaGame, CsaOptions, EngineLogAsk, Event, run};
use council_play::csa::protocol::GameName;
use council_play::signals::{Stop, stop_on_signals};
use council_players::factory::EngineLogs;
use council_schema::config::Config;
use council_schema::results::{Reason, Winner};
use engine::types::Color;
use tokio::runtime::Runtime;

#[derive(Parser, Debug)]
#[command(
    name = "council-csa",
    version = council_stamp::version!(),
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
    /// `<game name>,<password>` as shogi-server reads it: the game name is
    /// NAME-TOTAL-BYOYOMI, F after the byoyomi for a Fischer increment, -B or -W after that to
    /// ask for sente or gote (e.g. `floodgate-300-10F,secret`). Masked in the protocol log, but
    /// a command line is visible to every user of the machine (`ps`): prefer --password-file or
    /// the environment variable COUNCIL_CSA_PASSWORD.
    #[arg(long, conflicts_with = "password_file")]
    password: Option<String>,
    /// A file whose first line is the password (`<game name>,<password>`), instead of
    /// --password.
    #[arg(long, value_name = "PATH")]
    password_file: Option<PathBuf>,
    /// Games to play, logging in for each (a rejected game does not count).
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Output folder (default runs/csa-<UTC date and time>/, e.g. runs/csa-2026-11-29T04-05-00),
    /// made once the first connection to the server is made.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Kept back from every move's time for the network and the server's measurement, ms.
    #[arg(long, default_value_t = 1000)]
    margin_ms: u64,
    /// Send an empty line after this many seconds without sending anything (0: never).
    #[arg(long, default_value_t = 30)]
    keep_alive: u64,
    /// Take the connection for dead when a line the server answers (a move, a keep-alive,
    /// LOGIN) has had no answer for this many seconds (0: wait forever); also the longest wait
    /// for a connection. A silent server is found at most --keep-alive + --read-timeout seconds
    /// after its last line.
    #[arg(long, default_value_t = 60)]
    read_timeout: u64,
    /// Floodgate's comment on each move (`+7776FU,'* 30 -3334FU +2726FU`: the score and the
    /// expected line). shogi-server keeps it in its record and shows it to spectators, never
    /// to the opponent.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pv_comment: Switch,
    /// Attempts in a row to connect again, with a back-off of 1 s doubling to 60 s, after the
    /// connection drops or is refused (0: give up at once).
    #[arg(long, default_value_t = 10)]
    reconnect: u32,
    /// Master seed of the players' randomness (each game's seed derives from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Nothing on stdout (no line per game, no closing summary).
    #[arg(long)]
    quiet: bool,
    /// Write every line to and from the player's engines to FILE (default: engines.log in
    /// --out, beside protocol.log). Without it, players with `log = true` write there.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    log: Option<Option<PathBuf>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

fn main() -> ExitCode {
    council_cli::init_logging(false);
    let cli = Cli::parse();
    match prepare(&cli) {
        Ok((config, opts, rt)) => {
            council_cli::finish("council-csa", 1, play(&cli, &config, &opts, rt))
        }
        Err(e) => council_cli::fail("council-csa", 2, &e),
    }
}

/// The session's config, options and runtime from the flags; an error here is bad input (exit
/// status 2).
fn prepare(cli: &Cli) -> anyhow::Result<(Config, CsaOptions, Runtime)> {
    let config = Config::load_players(&cli.config)?;
    if !config.players.contains_key(&cli.player) {
        let mut names: Vec<&str> = config.players.keys().map(String::as_str).collect();
        names.sort_unstable();
        bail!(
            "{}: no player `{}` (players: {})",
            cli.config.display(),
            cli.player,
            names.join(", ")
        );
    }
    ensure!(cli.games > 0, "--games: 0 games to play; give at least 1");
    let password = password(cli).map_err(anyhow::Error::msg)?;
    if let Some(game) = GameName::from_password(&password).filter(|g| g.stop_watch) {
        bail!(
            "the password's game `{}` is a stop-watch game (its byoyomi begins with 0), which council-csa does not play; use NAME-TOTAL-BYOYOMI or NAME-TOTAL-INCREMENTF",
            game.name
        );
    }
    let out = cli.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "runs/csa-{}",
            council_schema::utc::utc_now_for_names()
        ))
    });
    let engine_log = engine_log(cli, &config, &out);
    let opts = CsaOptions {
        server: cli.server.clone(),
        id: cli.id.clone(),
        password,
        games: cli.games,
        out,
        margin: Duration::from_millis(cli.margin_ms),
        keep_alive: Duration::from_secs(cli.keep_alive),
        read_timeout: Duration::from_secs(cli.read_timeout),
        seed: cli.seed,
        pv_comment: cli.pv_comment == Switch::On,
        reconnect: cli.reconnect,
        engine_log,
        written_by: council_stamp::build!("council-csa").into(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    Ok((config, opts, rt))
}

/// The session: a line per game and the closing summary on stdout (unless `--quiet`); 130 when
/// Ctrl-C or SIGTERM stopped it (a second one exits at once).
fn play(cli: &Cli, config: &Config, opts: &CsaOptions, rt: Runtime) -> anyhow::Result<ExitCode> {
    let quiet = cli.quiet;
    let mut games: Vec<CsaGame> = Vec::new();
    let mut report = |e: Event<'_>| match e {
        Event::Game(g) => {
            if !quiet {
                println!("{}", game_line(g));
            }
            games.push(g.clone());
        }
        Event::Notice(n) => eprintln!("council-csa: {n}"),
    };
    let stop = Stop::new();
    let result = rt.block_on(async {
        let signals = stop_on_signals(
            stop.clone(),
            |by| {
                eprintln!(
                    "council-csa: {by}: recording the game in progress, then stopping (again to stop at once)"
                )
            },
            |by| {
                eprintln!("council-csa: {by} again: stopping at once");
                std::process::exit(130);
            },
        );
        let result = run(config, &cli.player, opts, &stop, &mut report).await;
        signals.abort();
        result
    });
    rt.shutdown_timeout(Duration::from_millis(200));
    if !quiet {
        println!("{}", summary_line(&cli.player, &games));
    }
    // The session's errors name their cause in their own message: one line, as it says it.
    let run = result.map_err(|e| anyhow::Error::msg(e.to_string()))?;
    Ok(if run.stopped_by.is_some() {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// The environment variable that holds the password when neither --password nor
/// --password-file is given.
const PASSWORD_VARIABLE: &str = "COUNCIL_CSA_PASSWORD";

/// The password, from --password, the first line of --password-file, or
/// [`PASSWORD_VARIABLE`], in that order; one line naming the source when none gives one.
fn password(cli: &Cli) -> Result<String, String> {
    if let Some(p) = &cli.password {
        return Ok(p.clone());
    }
    if let Some(path) = &cli.password_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--password-file {}: {e}", path.display()))?;
        let first = text.lines().next().unwrap_or("").trim_end();
        if first.is_empty() {
            return Err(format!(
                "--password-file {}: the first line is empty; write `<game name>,<password>` there",
                path.display()
            ));
        }
        return Ok(first.to_string());
    }
    match std::env::var(PASSWORD_VARIABLE) {
        Ok(p) if !p.is_empty() => Ok(p),
        _ => Err(format!(
            "no password: give --password-file PATH, the environment variable {PASSWORD_VARIABLE}, or --password (`<game name>,<password>`)"
        )),
    }
}

/// One game: `game 0 <Game_ID>: a vs b: sente by resign after 80 moves (#RESIGN #WIN)`, and the
/// player's ponder hits when it pondered.
fn game_line(g: &CsaGame) -> String {
    let r = &g.result;
    let ponder = r
        .costs
        .first()
        .filter(|c| c.ponder_hits + c.ponder_misses > 0)
        .map_or(String::new(), |c| {
            format!(
                "; ponder hits {}/{}",
                c.ponder_hits,
                c.ponder_hits + c.ponder_misses
            )
        });
    format!(
        "game {} {}: {} vs {}: {} by {} after {} moves ({}){ponder}",
        r.id,
        g.game_id,
        r.sente,
        r.gote,
        r.result.name(),
        r.reason.name(),
        r.plies,
        g.said
    )
}

/// The session in one line: the player's wins, draws, losses and games without a result, and
/// its ponder hit rate when it pondered (`n/a` when it played no game).
fn summary_line(player: &str, games: &[CsaGame]) -> String {
    let (mut wins, mut draws, mut losses, mut aborted) = (0, 0, 0, 0);
    let (mut hits, mut misses) = (0u64, 0u64);
    for g in games {
        let r = &g.result;
        let ours = match g.you {
            Color::Sente => Winner::Sente,
            Color::Gote => Winner::Gote,
        };
        match r.result {
            _ if r.reason == Reason::Aborted => aborted += 1,
            Winner::Draw => draws += 1,
            w if w == ours => wins += 1,
            _ => losses += 1,
        }
        for c in &r.costs {
            hits += u64::from(c.ponder_hits);
            misses += u64::from(c.ponder_misses);
        }
    }
    let ponder = if hits + misses > 0 {
        format!(
            "; ponder hit rate {:.1}% ({hits} of {})",
            100.0 * hits as f64 / (hits + misses) as f64,
            hits + misses
        )
    } else {
        String::new()
    };
    format!(
        "{player}: {} games: {wins} won, {draws} drawn, {losses} lost, {aborted} without a result{ponder}",
        games.len()
    )
}

/// The engine log asked for: `--log [FILE]` for every engine (FILE, or `engines.log` in `out`),
/// else `engines.log` in `out` for the players with `log = true`, else none. Opened by the
/// session once it has connected.
fn engine_log(cli: &Cli, config: &Config, out: &std::path::Path) -> Option<EngineLogAsk> {
    let (path, every_engine) = match &cli.log {
        Some(Some(file)) => (file.clone(), true),
        Some(None) => (out.join("engines.log"), true),
        None if EngineLogs::asked_in(config) => (out.join("engines.log"), false),
        None => return None,
    };
    Some(EngineLogAsk { path, every_engine })
}
