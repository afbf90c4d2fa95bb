//! The match runner: plays the schedule's games concurrently and writes every finished game.
//!
//! The games are the one scheduler's ([`crate::game::scheduler`]: at most `concurrency` at once,
//! started in schedule order, cancelled by one `CancellationToken`, players kept per name from
//! game to game and restarted after a failure); the runner keeps the run's own books: a game is
//! written (records first, then its `results.jsonl` line, flushed) as soon as it ends, by one
//! writer, so a crash or SIGKILL loses only unfinished games; `--resume` replays exactly the
//! schedule's ids that have no line; an SPRT that decides starts no more games.

pub mod command;
pub mod merge;
pub mod report;
pub mod sprt_stop;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::game::feed::{RunFeed, RunStart};
use crate::game::pool::Keep;
use crate::game::records;
use crate::game::scheduler::{Scheduler, SchedulerOptions};
use crate::game::sheet::PlayedGame;
use council_players::factory::EngineLogs;
use council_players::player::engine_log::{EngineLog, EngineLogError};
use council_schema::config::Config;
use council_schema::results::append::ResultsWriter;
use council_schema::results::{self, GameResult};
use council_schema::run::plan::RunPlan;
use council_schema::run::shard::Shard;
use council_schema::run::summary::{self, SummaryTally};
use council_schema::run::{RunInfo, RunInfoError, schedule};
use council_schema::written_by::WrittenBy;

/// A run that cannot go on (bad output folder, unreadable results); engine failures are game
/// results, never this.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A game's records could not be written (the cause names the file): the game is not
    /// committed, and a resumed run plays it again.
    #[error("game {id}: cannot write its records: {cause}")]
    Records { id: u64, cause: std::io::Error },
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(transparent)]
    Results(#[from] results::read::ReadError),
    #[error(transparent)]
    RunInfo(#[from] RunInfoError),
    /// `--resume` where no run was started.
    #[error("{0}; nothing to resume here: start the run without --resume")]
    NothingToResume(RunInfoError),
    #[error(
        "{}: this run was started with a different config (from {config_file}); resume it with the same config",
        out.display()
    )]
    OtherConfig { out: PathBuf, config_file: String },
    /// `--resume` with a flag (`what`) other than the run's.
    #[error("{}: this run was started with {what} {was}, not {now}", out.display())]
    OtherFlag {
        out: PathBuf,
        what: &'static str,
        was: String,
        now: String,
    },
    #[error(
        "{} already holds results: pass --resume to continue that run, or choose another --out",
        out.display()
    )]
    HoldsResults { out: PathBuf },
    /// `--resume --games N` below the run's games.
    #[error(
        "{}: this run was started with --games {was}; --resume can extend it (a larger --games) but not cut it to {now}",
        out.display()
    )]
    CannotShrink { out: PathBuf, was: u64, now: u64 },
    #[error(transparent)]
    Summary(#[from] summary::SummaryWriteError),
    #[error(transparent)]
    EngineLog(#[from] EngineLogError),
    /// A line of the engine log could not be written (a full disk): the run stops, and a resumed
    /// run plays what is left.
    #[error("cannot write the engine log {}: {cause}", path.display())]
    EngineLogWrite {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "{}: [match.sprt] and --shard cannot go together: a sequential test decides on all games in order, a shard sees only some; run the SPRT on one machine",
        config.display()
    )]
    SprtWithShard { config: PathBuf },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |cause| RunError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    pub concurrency: usize,
    /// Master seed; `None` takes the config's (or, on resume, the run's).
    pub seed: Option<u64>,
    pub resume: bool,
    /// `--games`: games per pairing, overriding the config's; `None` keeps the config's (or, on
    /// resume, the run's).
    pub games: Option<u64>,
    /// Play only this shard of the schedule; `None` plays all of it (or, on resume, the run's
    /// shard).
    pub shard: Option<Shard>,
    /// What the run prints as it plays: the progress bar, a line per game, standings.
    pub console: report::ConsoleOptions,
    /// Who watches the run as it plays (the live page): told of every start, move and end.
    pub feed: Option<Arc<dyn RunFeed>>,
    /// `--log FILE`: every engine's lines go there. Without it, players with `log = true` write
    /// to `engines.log` in the run folder.
    pub engine_log: Option<EngineLog>,
    /// The cap of the run folder's `engines.log`, bytes.
    pub engine_log_cap: u64,
    /// `-pgnout`: every finished game is appended to this pseudo-PGN file too.
    pub pgn: Option<records::PgnSettings>,
    /// The program running the run: `run.json`, `summary.json` and the records say so.
    pub written_by: WrittenBy,
}

/// What the output folder holds before the run's games are played.
struct Prepared {
    /// The run as validated (its games per pairing the run's).
    plan: RunPlan,
    seed: u64,
    shard: Option<Shard>,
    /// Finished games (a resumed run's).
    finished: Vec<GameResult>,
    /// Where the complete lines of `results.jsonl` end (a resumed run's).
    complete_len: Option<u64>,
}

/// The end of a run. Its games are in `results.jsonl`; the run keeps only their counts
/// (`summary`).
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub played_now: usize,
    pub wall: Duration,
    pub seed: u64,
    /// Stopped early (Ctrl-C): some scheduled games were not played.
    pub interrupted: bool,
    pub summary: summary::Summary,
}

/// Prepare the output folder: a fresh run writes `run.json`; a resumed one checks it (config,
/// seed, games per pairing, shard), records the run's plan if an older build did not, and reads
/// the finished games. Either way `config.games` ends up the run's.
fn prepare_out(config: &mut Config, opts: &RunOptions) -> Result<Prepared, RunError> {
    let out = &opts.out;
    std::fs::create_dir_all(out.join("records")).map_err(io(out))?;
    let results_path = out.join("results.jsonl");
    if opts.resume {
        let info = RunInfo::read(out).map_err(RunError::NothingToResume)?;
        if !council_schema::config::same_config(&info.config_text, &config.text) {
            return Err(RunError::OtherConfig {
                out: out.clone(),
                config_file: info.config_file,
            });
        }
        let differs = |what: &'static str, was: String, now: String| RunError::OtherFlag {
            out: out.clone(),
            what,
            was,
            now,
        };
        if let Some(s) = opts.seed
            && s != info.seed
        {
            return Err(differs("--seed", info.seed.to_string(), s.to_string()));
        }
        // A larger --games extends the run: the schedule's first games are the same games
        // (same ids, same seeds), the rest are played; a smaller one would drop played games.
        let games = match opts.games {
            Some(g) if g < info.games => {
                return Err(RunError::CannotShrink {
                    out: out.clone(),
                    was: info.games,
                    now: g,
                });
            }
            Some(g) => g,
            None => info.games,
        };
        if let Some(s) = opts.shard
            && Some(s) != info.shard
        {
            let was = info.shard.map_or("no --shard".into(), |s| s.to_string());
            return Err(differs("--shard", was, s.to_string()));
        }
        config.games = games;
        let plan = RunPlan::of(config);
        if games != info.games {
            tracing::info!(
                "{}: extending the run from {} to {games} games per pairing",
                out.display(),
                info.games
            );
        }
        if let Some(was) = &info.plan {
            warn_if_players_differ(out, was, &plan);
        }
        if info.plan.is_none() || games != info.games {
            RunInfo {
                games,
                plan: Some(plan.clone()),
                written_by: Some(opts.written_by.clone()),
                ..info.clone()
            }
            .write(out)?;
        }
        let (finished, complete_len) = if results_path.exists() {
            // The run's own file: a torn last line is a game cut off by a crash (played
            // again); a game id read twice (two sessions on one folder at once) keeps its
            // first line, as the summary counts it.
            let read = results::read::read(
                std::slice::from_ref(&results_path),
                results::read::Policy {
                    torn_tail: results::read::TornTail::Skip,
                    malformed: results::read::Malformed::Fail,
                    repeats: results::read::Repeats::FirstOfEachId,
                },
            )?;
            let file = &read.files[0];
            if file.torn_tail {
                tracing::warn!("{}: dropping a cut-off last line", results_path.display());
            }
            if file.duplicates > 0 {
                tracing::warn!(
                    "{}: {} lines repeat a game id read before: the first line of each id is the game",
                    results_path.display(),
                    file.duplicates
                );
            }
            (read.games, Some(file.complete_len))
        } else {
            (Vec::new(), None)
        };
        return Ok(Prepared {
            plan,
            seed: info.seed,
            shard: info.shard,
            finished,
            complete_len,
        });
    }
    if results_path
        .metadata()
        .map(|m| m.len() > 0)
        .unwrap_or(false)
    {
        return Err(RunError::HoldsResults { out: out.clone() });
    }
    if let Some(g) = opts.games {
        config.games = g;
    }
    let seed = opts.seed.unwrap_or(config.seed);
    let plan = RunPlan::of(config);
    let info = RunInfo {
        seed,
        config_file: config.file.display().to_string(),
        config_text: config.text.clone(),
        games: config.games,
        shard: opts.shard,
        plan: Some(plan.clone()),
        written_by: Some(opts.written_by.clone()),
    };
    info.write(out)?;
    Ok(Prepared {
        plan,
        seed,
        shard: opts.shard,
        finished: Vec::new(),
        complete_len: None,
    })
}

/// A resumed run whose players resolve otherwise than they did (an engine found elsewhere on
/// `PATH`, a model file changed under the same config text) plays on, and says so.
fn warn_if_players_differ(out: &Path, was: &RunPlan, now: &RunPlan) {
    let differ: Vec<&str> = now
        .players
        .iter()
        .filter(|(name, p)| was.players.get(*name) != Some(*p))
        .map(|(name, _)| name.as_str())
        .collect();
    if !differ.is_empty() {
        tracing::warn!(
            "{}: resuming with players that differ from the run's run.json (their engines or \
             model files): {}",
            out.display(),
            differ.join(", ")
        );
    }
}

/// Play the run `config` describes into `opts.out`.
pub async fn run(
    mut config: Config,
    opts: &RunOptions,
    cancel: CancellationToken,
) -> Result<RunOutcome, RunError> {
    if config.sprt.is_some() && opts.shard.is_some() {
        return Err(RunError::SprtWithShard {
            config: config.file.clone(),
        });
    }
    let Prepared {
        plan,
        seed,
        shard,
        finished,
        complete_len,
    } = prepare_out(&mut config, opts)?;
    let started = Instant::now();
    let mut schedule = schedule::schedule(&plan, seed);
    if let Some(shard) = shard {
        schedule.retain(|g| shard.holds(g));
    }
    let done: BTreeSet<u64> = finished.iter().map(|g| g.id).collect();
    let done_count = done.len();
    // An SPRT that decided on the games already played (a resumed run) starts no new game.
    let mut sprt = sprt_stop::SprtStop::new(&plan);
    if let Some(stop) = &mut sprt {
        for g in &finished {
            // The decision (if any) is kept inside `stop`.
            let _ = stop.add(g);
        }
    }
    let decided = sprt.as_ref().is_some_and(sprt_stop::SprtStop::decided);
    let todo: Vec<_> = schedule
        .into_iter()
        .filter(|g| !done.contains(&g.id) && !decided)
        .collect();
    drop(done);
    let total = done_count + todo.len();
    if let Some(feed) = &opts.feed {
        feed.run_started(RunStart {
            plan: &plan,
            seed,
            total,
            finished: &finished,
        });
    }
    let logs = EngineLogs::for_run(
        &config,
        opts.engine_log.as_ref(),
        &opts.out,
        opts.engine_log_cap,
    )?;
    if let Some(logs) = &logs {
        logs.log.note(&format!(
            "council-match: {} of {total} games to play into {}, seed {seed}",
            total - done_count,
            opts.out.display()
        ));
    }
    let console = Arc::new(report::Console::new(
        opts.console,
        &config,
        total as u64,
        done_count as u64,
    ));
    // From here on the run keeps counts of its finished games, not the games.
    let mut tally = SummaryTally::new(&config.playing);
    for g in &finished {
        tally.add(g);
    }
    console.set_message(report::live_score(&config.playing, &tally));
    let mut book = Book::open(&config, opts, complete_len, &finished, tally, sprt, console)?;
    drop(finished);
    // A log that cannot be written from the start (a full disk) stops the run before any game.
    book.engine_log = logs.as_ref().map(|l| l.log.clone());
    book.engine_log_whole()?;

    let config = Arc::new(config);
    let scheduler = Scheduler::start(SchedulerOptions {
        concurrency: opts.concurrency,
        workers: None,
        keep: Keep::Whole { logs },
        feed: opts.feed.clone(),
        on_start: Some({
            let console = book.console.clone();
            Arc::new(move |spec: &schedule::GameSpec| console.game_started(spec))
        }),
    })
    .map_err(io(&opts.out))?;
    let mut games = scheduler.play(config.clone(), todo, &cancel);
    let mut write_error = None;
    while let Some(p) = games.next().await {
        match book.add(p, &config).await {
            Ok(true) => games.stop_new(),
            Ok(false) => {}
            Err(e) => {
                write_error = Some(e);
                cancel.cancel();
                games.close().await;
                break;
            }
        }
    }
    scheduler.shutdown().await;
    book.console.finish(&book.tally);
    if let Some(e) = write_error {
        return Err(e);
    }
    // The last games to the disk before the summary counts them (the writer syncs once a second).
    if let Some(writer) = book.writer.as_mut() {
        writer.sync().map_err(io(&book.results_path))?;
    }

    let Book {
        tally,
        played_now,
        sprt,
        ..
    } = book;
    let wall = started.elapsed();
    let interrupted = tally.games() < total as u64 && !sprt.as_ref().is_some_and(|s| s.decided());
    let mut summary = tally.summary(&plan, seed, played_now, wall);
    summary.shard = shard;
    summary.sprt = sprt.as_ref().map(sprt_stop::SprtStop::summary);
    summary.written_by = Some(opts.written_by.clone());
    summary.write(&opts.out)?;
    if let Some(feed) = &opts.feed {
        feed.run_ended(&summary);
    }
    Ok(RunOutcome {
        played_now,
        wall,
        seed,
        interrupted,
        summary,
    })
}

/// What the run keeps of its finished games, and where each one is written as it ends.
struct Book {
    /// `None` only while a game is being written (on a blocking thread).
    writer: Option<ResultsWriter>,
    results_path: PathBuf,
    records_dir: PathBuf,
    /// `[match] training`: rewritten from the finished games, then a game's records as it ends.
    training: Option<council_schema::training::write::RunExport>,
    sprt: Option<sprt_stop::SprtStop>,
    /// The finished games' counts (earlier sessions' included): the console's standings and
    /// the summary at the end. No finished game is kept.
    tally: SummaryTally,
    played_now: usize,
    console: Arc<report::Console>,
    feed: Option<Arc<dyn RunFeed>>,
    /// `-pgnout`: the pseudo-PGN file each game is appended to as well.
    pgn: Option<records::PgnSettings>,
    /// Said in each game's records.
    written_by: WrittenBy,
    /// The engine log, when the run keeps one: a write that failed stops the run.
    engine_log: Option<EngineLog>,
}

impl Book {
    fn open(
        config: &Config,
        opts: &RunOptions,
        complete_len: Option<u64>,
        finished: &[GameResult],
        tally: SummaryTally,
        sprt: Option<sprt_stop::SprtStop>,
        console: Arc<report::Console>,
    ) -> Result<Self, RunError> {
        let results_path = opts.out.join("results.jsonl");
        let writer = ResultsWriter::open(&results_path, complete_len).map_err(io(&results_path))?;
        let training = match &config.training {
            Some(settings) => {
                let path = opts.out.join(settings.format.run_file());
                Some(
                    council_schema::training::write::RunExport::open(&opts.out, settings, finished)
                        .map_err(io(&path))?,
                )
            }
            None => None,
        };
        Ok(Book {
            writer: Some(writer),
            results_path,
            records_dir: opts.out.join("records"),
            training,
            sprt,
            tally,
            played_now: 0,
            console,
            feed: opts.feed.clone(),
            pgn: opts.pgn.clone(),
            written_by: opts.written_by.clone(),
            engine_log: None,
        })
    }

    /// An error naming the engine log if one of its writes has failed (a full disk).
    fn engine_log_whole(&self) -> Result<(), RunError> {
        match self
            .engine_log
            .as_ref()
            .and_then(|log| Some((log, log.failure()?)))
        {
            Some((log, cause)) => Err(RunError::EngineLogWrite {
                path: log.path().to_path_buf(),
                cause,
            }),
            None => Ok(()),
        }
    }

    /// Write a played game (records first, then its results line: the line is the commit point
    /// of a game), tell the feed and the console. True when the SPRT has just decided (start no
    /// more games).
    async fn add(&mut self, p: PlayedGame, config: &Arc<Config>) -> Result<bool, RunError> {
        // Both (and the line's write) on a blocking thread, one game at a time: a slow disk never
        // holds up the thread that reads results.
        let (dir, cfg, pgn) = (self.records_dir.clone(), config.clone(), self.pgn.clone());
        let by = self.written_by.clone();
        let Some(mut writer) = self.writer.take() else {
            unreachable!("the writer is back after every game")
        };
        let results_path = self.results_path.clone();
        let written = tokio::task::spawn_blocking(move || {
            let io = |path: &Path| {
                let path = path.to_path_buf();
                move |cause| RunError::Io { path, cause }
            };
            // A game is committed by its results line, written only once its records are: a
            // game whose records fail is not committed, and a resumed run plays it again.
            let id = p.result.id;
            // The records' walk through the game also finds its opening family for the tally.
            let committed = records::write_records(&dir, &cfg, &p, &by)
                .map_err(|cause| RunError::Records { id, cause })
                .and_then(|family| {
                    if let Some(pgn) = &pgn {
                        records::append_pgn(&cfg, &p, pgn).map_err(io(&pgn.out.file))?;
                    }
                    writer.append(&p.result).map_err(io(&results_path))?;
                    Ok(family)
                });
            (writer, p, committed)
        })
        .await;
        let (writer, p, committed) = match written {
            Ok(w) => w,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => {
                return Err(RunError::Io {
                    path: self.results_path.clone(),
                    cause: std::io::Error::other(e),
                });
            }
        };
        self.writer = Some(writer);
        let family = committed?;
        // The training file is rewritten from results.jsonl when the run resumes, so a game
        // whose training records fail is kept; the run stops all the same.
        if let Some(t) = &mut self.training {
            t.add(&p.result).map_err(|cause| RunError::Io {
                path: t.path().to_path_buf(),
                cause,
            })?;
        }
        self.engine_log_whole()?;
        self.played_now += 1;
        if let Some(feed) = &self.feed {
            feed.game_ended(&p.result);
        }
        let decided = self
            .sprt
            .as_mut()
            .is_some_and(|stop| stop.add(&p.result).is_some());
        self.tally.add_in_family(&p.result, family);
        let llr = self.sprt.as_ref().map(|stop| {
            let t = stop.last();
            format!("LLR {:.2} ({:.2}, {:.2})", t.llr, t.lower, t.upper)
        });
        let playing = &config.playing;
        self.console
            .game_ended(&p.result, playing, &self.tally, llr.clone());
        let mut message = report::live_score(playing, &self.tally);
        if let Some(llr) = llr {
            message.push_str("  ");
            message.push_str(&llr);
        }
        self.console.set_message(message);
        Ok(decided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[match]\nplayers = [\"a\", \"b\"]\ngames = 2\nseed = 9\n\
                        [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                        [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";

    fn options(out: PathBuf, resume: bool) -> RunOptions {
        RunOptions {
            out,
            concurrency: 1,
            seed: None,
            resume,
            games: Some(6),
            shard: None,
            console: report::ConsoleOptions::QUIET,
            feed: None,
            engine_log: None,
            engine_log_cap: council_players::player::engine_log::DEFAULT_CAP_BYTES,
            pgn: None,
            written_by: WrittenBy {
                program: "council-match".into(),
                version: "0.1.0".into(),
                commit: "0123456789ab".into(),
                dirty: "clean".into(),
            },
        }
    }

    /// `run.json` holds the text the config was validated from, not the file read again (here
    /// edited after validation), and the run's plan; resuming a run whose `run.json` an older
    /// build wrote adds the plan.
    #[test]
    fn run_json_records_the_validated_text_and_the_plan() {
        let dir = std::env::temp_dir().join(format!("council-prepare-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let path = dir.join("c.toml");
        std::fs::write(&path, TEXT).expect("write the config");
        let mut config = Config::load(&path).expect("a valid config");
        std::fs::write(&path, "edited after validation").expect("edit the config");
        let out = dir.join("out");
        let prepared = prepare_out(&mut config, &options(out.clone(), false)).expect("prepared");
        let info = RunInfo::read(&out).expect("run.json");
        assert_eq!(info.config_text, TEXT);
        assert_eq!((info.seed, info.games, prepared.plan.games), (9, 6, 6));
        assert_eq!(info.plan.as_ref(), Some(&prepared.plan));

        RunInfo { plan: None, ..info }
            .write(&out)
            .expect("an older build's run.json");
        let mut config = Config::parse(&path, TEXT).expect("a valid config");
        let resumed = prepare_out(&mut config, &options(out.clone(), true)).expect("resumed");
        assert_eq!(resumed.plan, prepared.plan);
        let info = RunInfo::read(&out).expect("run.json");
        assert_eq!(info.plan, Some(prepared.plan));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
