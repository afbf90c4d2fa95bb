//! `council-match CONFIG [--games N] [--concurrency N] [--out DIR] [--seed S] [--resume] [--check] [--by-family]
//! [--shard I/N|auto] [--report-every N] [--log FILE]`: plays the match or tournament a TOML file
//! describes (or one shard of it), printing a line per finished game and standings every N games
//! on stdout, and ends with a standings table; `--serve [ADDR]` serves its live page as it plays.
//! `council-match merge DIR... --out DIR [--by-family]` makes one run folder of a run's shard folders;
//! `council-match serve DIR [--addr ADDR]` serves the live page of a run folder or a tune's
//! folder (`council-tune --out DIR`).
//! `council-match -engine cmd=A -engine cmd=B -each tc=10+0.1 ...`: the same run from a
//! fastchess / Shogitest command line (`council_schema::config::flags`), printing their console
//! format; `--print-config` prints the TOML it stands for.

//! Thin: the flags become a [`RunOptions`]; the run with its page, signals and closing tables is
//! `council_live::session`, the runner's command lines `council_play::runner::command`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use council_live::session::{self, RunSession, Tables};
use council_play::runner::command::{command_line, default_out, resume_command};
use council_play::runner::report::{self, ConsoleOptions};
use council_play::runner::{RunOptions, RunOutcome, merge};
use council_players::factory::EngineLogs;
use council_players::player::engine_log::{self, EngineLog};
use council_schema::config::Config;
use council_schema::config::flags::{self, FlagRun};
use council_schema::run::shard::Shard;
use council_schema::written_by::WrittenBy;
use tokio::runtime::Runtime;

/// Where the live page listens unless told.
const DEFAULT_ADDR: &str = "127.0.0.1:8700";

/// This build, as `run.json`, `summary.json` and the records say it.
fn written_by() -> WrittenBy {
    council_stamp::build!("council-match").into()
}

#[derive(Parser, Debug)]
#[command(
    name = "council-match",
    version = council_stamp::version!(),
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
    #[arg(long, requires = "out", conflicts_with = "start_or_resume")]
    resume: bool,
    /// Resume the run in --out if it has started there, else start it (for batch jobs that may
    /// be re-run: Slurm array tasks, Kubernetes pods).
    #[arg(long, requires = "out")]
    start_or_resume: bool,
    /// Play only shard I of N of the run's schedule (0-based; whole colour-swapped pairs, pair p
    /// in shard p mod N), or `auto` to take I/N from a Slurm array task or a Kubernetes Indexed
    /// Job. Merge the shard folders with `council-match merge`.
    #[arg(long, value_name = "I/N|auto")]
    shard: Option<String>,
    /// Validate the config (players, start positions, and every USI engine's handshake) and exit
    /// without playing.
    #[arg(long)]
    check: bool,
    /// Print only errors and the closing table: no progress bar, no line per game, no
    /// standings while it plays.
    #[arg(long, short)]
    quiet: bool,
    /// Print the standings (points, Elo with its interval, LOS) after every N finished games
    /// (0: never; fastchess's -ratinginterval).
    #[arg(long, value_name = "N", default_value_t = 10)]
    report_every: u64,
    /// Write every line to and from every engine process to FILE (appended; timestamp, game,
    /// player, direction). Without it, players with `log = true` write to the run folder's
    /// engines.log.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The most an engine log grows in one session, MB; then a note says so and it stops.
    #[arg(long, value_name = "MB", default_value_t = engine_log::DEFAULT_CAP_BYTES / 1_000_000)]
    log_max_mb: u64,
    /// After the standings, print each player's score by opening family (static-vs-static,
    /// static-vs-ranging:<file>, ranging-vs-ranging, unlabelled), as summary.json's by_family.
    #[arg(long)]
    by_family: bool,
    /// Serve the live page while the run plays, on ADDR (default 127.0.0.1:8700); it stays up
    /// after the run until Ctrl-C or SIGTERM.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_ADDR)]
    serve: Option<String>,
    /// Print the config as validated (TOML) and exit. With fastchess / Shogitest flags
    /// (`council-match -engine cmd=A -engine cmd=B -each tc=10+0.1 ... --print-config`): the
    /// TOML those flags stand for.
    #[arg(long)]
    print_config: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Merge the shard folders of one run (played with --shard) into one run folder. Exit 3
    /// when games are missing (the folder is still written; the missing ids are named).
    Merge {
        /// The shard folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged run folder (new, or empty).
        #[arg(long)]
        out: PathBuf,
        /// After the standings, print each player's score by opening family, as for a run.
        #[arg(long)]
        by_family: bool,
    },
    /// Serve the live page of a run folder (finished, running or merged), following its
    /// results.jsonl as it grows, or of a tune's folder (one holding tune.jsonl).
    Serve {
        run_dir: PathBuf,
        #[arg(long, default_value = DEFAULT_ADDR)]
        addr: String,
    },
}

fn main() -> ExitCode {
    council_cli::init_logging(true);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if flags::is_flag_form(&args) {
        match flags::parse(&args) {
            Ok(flag_run) => run_flags(flag_run),
            Err(e) => Err(anyhow::Error::msg(e.to_string())),
        }
    } else {
        let cli = Cli::parse();
        match cli.command {
            Some(Command::Merge {
                ref dirs,
                ref out,
                by_family,
            }) => run_merge(dirs, out, by_family),
            Some(Command::Serve {
                ref run_dir,
                ref addr,
            }) => run_serve(run_dir, addr),
            None => run(cli),
        }
    };
    council_cli::finish("council-match", 2, result)
}

fn run_merge(dirs: &[PathBuf], out: &Path, by_family: bool) -> anyhow::Result<ExitCode> {
    let report = merge::merge(dirs, out, &written_by()).map_err(anyhow::Error::msg)?;
    session::print_tables(&report.summary, by_family);
    for absent in &report.records_missing {
        eprintln!("council-match merge: no record {absent}");
    }
    let total = report.games.len() + report.missing.len();
    println!(
        "merged {} of {total} games from {} shard folders into {}",
        report.games.len(),
        dirs.len(),
        out.display()
    );
    if report.missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "council-match merge: {} games missing ({}); re-run those shards (each resumes) and merge again, or play them in the merged folder with --resume",
        report.missing.len(),
        report.missing_by_shard()
    );
    Ok(ExitCode::from(3))
}

fn run_serve(dir: &Path, addr: &str) -> anyhow::Result<ExitCode> {
    let rt = Runtime::new().context("cannot start the async runtime")?;
    rt.block_on(council_live::serve_folder(dir, addr))?;
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config_path = cli.config.clone().context("give a config file (TOML)")?;
    let config = Config::load_with_seed(&config_path, cli.seed)?;
    if cli.print_config {
        print!("{}", config.text);
        return Ok(ExitCode::SUCCESS);
    }
    // The runner applies `--games` (it knows a resumed run's).
    anyhow::ensure!(cli.games != Some(0), "--games must be at least 1");
    let shard = shard(cli.shard.as_deref())?;
    let rt = runtime()?;
    let log = match &cli.log {
        Some(path) => {
            let log = EngineLog::open(path, cli.log_max_mb.saturating_mul(1_000_000))?;
            let typed: Vec<String> = std::env::args().collect();
            log.note(&format!(
                "{}: pre-flight of the USI engines",
                command_line(&typed)
            ));
            Some(log)
        }
        None => None,
    };
    preflight(&rt, &config, log.as_ref())?;
    if cli.check {
        let shard = shard.map_or(String::new(), |s| format!(", shard {s}"));
        println!(
            "{}: valid ({} players, {} games per pairing{shard})",
            config_path.display(),
            config.playing.len(),
            cli.games.unwrap_or(config.games)
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut opts = run_options(&cli, &config_path, shard)?;
    opts.engine_log = log;
    let tables = Tables::Council {
        by_family: cli.by_family,
    };
    play(&rt, config, opts, cli.serve.as_deref(), tables)
}

/// A run from fastchess / Shogitest flags: the same run as from its TOML, with their console.
fn run_flags(flag_run: FlagRun) -> anyhow::Result<ExitCode> {
    let FlagRun { config, run } = flag_run;
    if run.print_config {
        print!("{}", config.text);
        return Ok(ExitCode::SUCCESS);
    }
    let rt = runtime()?;
    let log = match &run.log {
        Some(path) => Some(EngineLog::open(path, engine_log::DEFAULT_CAP_BYTES)?),
        None => None,
    };
    preflight(&rt, &config, log.as_ref())?;
    let console = if run.quiet {
        ConsoleOptions::QUIET
    } else {
        ConsoleOptions {
            progress: true,
            game_lines: true,
            report_every: run.rating_interval,
            field: Some(report::FieldFormat {
                output: run.output,
                penta: run.penta,
            }),
        }
    };
    let opts = RunOptions {
        resume: run.resume,
        out: run.out.clone().unwrap_or_else(|| default_out(&config.file)),
        concurrency: run.concurrency,
        seed: None,
        games: None,
        shard: None,
        console,
        feed: None,
        engine_log: log,
        engine_log_cap: engine_log::DEFAULT_CAP_BYTES,
        written_by: written_by(),
        pgn: run
            .pgnout
            .clone()
            .map(|out| council_play::game::records::PgnSettings {
                out,
                event: run.event.clone(),
                site: run.site.clone(),
            }),
    };
    play(&rt, config, opts, run.serve.as_deref(), Tables::None)
}

/// Games run on the scheduler's own workers; this runtime keeps the signals, the live page and
/// the writer.
fn runtime() -> anyhow::Result<Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Every USI engine's handshake before a game starts, into the engine log when one is given.
fn preflight(rt: &Runtime, config: &Config, log: Option<&EngineLog>) -> anyhow::Result<()> {
    let logs = log.cloned().map(|log| EngineLogs {
        log,
        every_engine: true,
    });
    rt.block_on(council_players::factory::preflight_logged(
        config,
        logs.as_ref(),
    ))?;
    Ok(())
}

/// The run, with its page when `serve` names an address; 130 when Ctrl-C or SIGTERM stopped it.
fn play(
    rt: &Runtime,
    config: Config,
    opts: RunOptions,
    serve: Option<&str>,
    tables: Tables,
) -> anyhow::Result<ExitCode> {
    let typed: Vec<String> = std::env::args().collect();
    let resume = resume_command(&typed, &opts.out);
    let session = RunSession {
        serve,
        tables,
        resume,
    };
    let outcome: RunOutcome = rt.block_on(session::play_run(config, opts, session))?;
    Ok(if outcome.interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--shard I/N`, or `auto` from a Slurm array task or a Kubernetes Indexed Job.
fn shard(flag: Option<&str>) -> anyhow::Result<Option<Shard>> {
    flag.map(Shard::from_flag)
        .transpose()
        .map_err(anyhow::Error::msg)
}

/// The runner's options from the flags: `--start-or-resume` resumes a run that has started in
/// `--out` (its `run.json` is there).
fn run_options(cli: &Cli, config_path: &Path, shard: Option<Shard>) -> anyhow::Result<RunOptions> {
    let concurrency = cli.concurrency.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    anyhow::ensure!(concurrency > 0, "--concurrency must be at least 1");
    let out = match &cli.out {
        Some(o) => o.clone(),
        None => default_out(config_path),
    };
    let resume = cli.resume || (cli.start_or_resume && out.join("run.json").exists());
    Ok(RunOptions {
        out,
        concurrency,
        seed: cli.seed,
        resume,
        games: cli.games,
        shard,
        console: if cli.quiet {
            ConsoleOptions::QUIET
        } else {
            ConsoleOptions {
                progress: true,
                game_lines: true,
                report_every: cli.report_every,
                field: None,
            }
        },
        feed: None,
        engine_log: None,
        engine_log_cap: cli.log_max_mb.saturating_mul(1_000_000),
        pgn: None,
        written_by: written_by(),
    })
}
