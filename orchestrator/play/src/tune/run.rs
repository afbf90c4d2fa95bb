//! The tune's loop: start or resume from `tune.jsonl`, then per iteration the probe, its games
//! (simulated or played), the update and one synced line, until K iterations are done or the
//! run is stopped. Every iteration is a pure function of θ before it, k and the seed, so a
//! resumed tune continues exactly the trajectory an uninterrupted one would have taken.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use tokio_util::sync::CancellationToken;

use super::log::{Header, IterationLine, ParamRange};
use super::plan::{IterationResult, minus_name, plus_name};
use super::report::{ParamSummary, summarize};
use super::{TuneError, games, log, plan, shards, simulate, spsa};
use crate::game::feed::RunFeed;
use crate::game::pool::Keep;
use crate::game::scheduler::{Scheduler, SchedulerOptions};
use council_players::factory::{EngineLogs, preflight_logged};
use council_players::player::engine_log::EngineLog;
use council_schema::config::{Config, TuneConfig};
use council_schema::results::append::ResultsWriter;
use council_schema::results::{GameResult, Winner};
use council_schema::run::schedule::GameSpec;
use council_schema::run::shard::Shard;

/// How to tune.
#[derive(Debug, Clone)]
pub struct TuneOptions {
    pub out: PathBuf,
    /// `--iterations`, overriding `[tune] iterations`.
    pub iterations: Option<u64>,
    /// `--seed`, overriding `[tune] seed`.
    pub seed: Option<u64>,
    pub concurrency: usize,
    pub simulate: bool,
    pub progress: bool,
    /// Where the games in play publish their moves (the live page of `--serve`).
    pub feed: Option<Arc<dyn RunFeed>>,
    /// `--shard I/N`: play this shard's share of each iteration ([`shards`]).
    pub shard: Option<Shard>,
    /// `--shard-wait`: how long a shard waits for a game from the others before it gives up.
    pub shard_wait: Duration,
    /// `--log FILE`: every engine's lines go there. Without it, players with `log = true`
    /// write to `engines.log` in the tune's folder.
    pub engine_log: Option<EngineLog>,
    /// The cap of the tune folder's `engines.log`, bytes a session.
    pub engine_log_cap: u64,
}

/// The end of a tune (or of this session of it).
#[derive(Debug, Clone)]
pub struct TuneOutcome {
    /// The tune as run (flags applied).
    pub tune: TuneConfig,
    /// Every finished iteration, earlier sessions' included.
    pub lines: Vec<IterationLine>,
    /// The iteration this session started at (0 for a fresh tune).
    pub resumed_at: u64,
    /// Stopped before the last iteration.
    pub interrupted: bool,
    pub wall: Duration,
    pub summary: Vec<ParamSummary>,
    /// This process keeps `tune.jsonl` (a whole tune, or shard 0): it also draws the SVGs.
    pub keeps_log: bool,
}

/// Tune `config`'s `[tune]` into `opts.out`, resuming what `tune.jsonl` there holds.
pub async fn tune(
    config: Config,
    opts: &TuneOptions,
    cancel: CancellationToken,
) -> Result<TuneOutcome, TuneError> {
    let started = Instant::now();
    let mut tune = config
        .tune
        .clone()
        .ok_or_else(|| TuneError::NoTuneSection {
            config: config.file.clone(),
        })?;
    if let Some(n) = opts.iterations {
        tune.iterations = n.max(1);
    }
    if let Some(s) = opts.seed {
        tune.seed = s;
    }
    if opts.shard.is_some() && opts.simulate {
        return Err(TuneError::Preflight(
            "--shard shares real games between shards: it cannot be combined with --simulate"
                .into(),
        ));
    }
    // Shard 0 (or the one process of an unsharded tune) keeps the log; the others only play.
    let keeps_log = opts.shard.is_none_or(|s| s.index == 0);
    std::fs::create_dir_all(&opts.out).map_err(|e| TuneError::io(&opts.out, e))?;
    let (mut lines, mut writer) = open_log(&config, &tune, opts, keeps_log)?;
    let resumed_at = lines.len() as u64;
    let mut theta: Vec<f64> = match lines.last() {
        Some(l) => l.theta_next.clone(),
        None => tune.params.iter().map(|p| p.start).collect(),
    };
    let mut real = if opts.simulate {
        None
    } else {
        Some(RealGames::open(&config, &tune, opts, resumed_at).await?)
    };
    let bar = progress_bar(tune.iterations, opts.progress);
    bar.set_position(resumed_at);
    let start: Vec<f64> = tune.params.iter().map(|p| p.start).collect();
    let start_played = spsa::played(&tune.params, &start);
    // The iterations, until the last, a stop, or an error (a file that cannot be written): the
    // engines are stopped after each of the three.
    let iterated = async {
        for k in resumed_at..tune.iterations {
            if cancel.is_cancelled() {
                return Ok(true);
            }
            let t0 = Instant::now();
            let probe = spsa::probe(&tune.params, &theta, k, tune.iterations, tune.seed);
            let plus = spsa::played(&tune.params, &probe.plus);
            let minus = spsa::played(&tune.params, &probe.minus);
            let specs = plan::iteration_games(&config, &tune, k);
            let outcomes = match real.as_mut() {
                None => simulated(&tune, specs, [&plus, &minus, &start_played]),
                Some(real) => {
                    let iteration = games::iteration_config(&config, &tune, &plus, &minus);
                    let played = real.iteration(iteration, k, specs, opts, &cancel, &bar);
                    match played.await? {
                        Some(outcomes) => outcomes,
                        None => return Ok(true),
                    }
                }
            };
            let result: IterationResult = plan::tally(&tune, &outcomes);
            let r = result.r();
            let theta_next = spsa::update(&tune.params, &theta, &probe, r);
            let line = IterationLine {
                k,
                theta: theta.clone(),
                plus,
                minus,
                c_k: probe.c_k,
                a_k: probe.a_k,
                delta: probe.delta,
                result,
                r,
                theta_next: theta_next.clone(),
                wall_ms: t0.elapsed().as_millis() as u64,
            };
            if let Some(w) = writer.as_mut() {
                w.append(&line)?;
            }
            lines.push(line);
            theta = theta_next;
            bar.inc(1);
            let values: Vec<String> = (tune.params.iter().zip(&theta))
                .map(|(p, v)| format!("{} {v:.2}", p.path))
                .collect();
            bar.set_message(values.join("  "));
        }
        Ok::<bool, TuneError>(false)
    }
    .await;
    bar.finish_and_clear();
    if let Some(real) = real {
        real.scheduler.shutdown().await;
    }
    let interrupted = iterated?;
    let summary = summarize(&tune, &lines, opts.simulate);
    Ok(TuneOutcome {
        tune,
        lines,
        resumed_at,
        interrupted,
        wall: started.elapsed(),
        summary,
        keeps_log,
    })
}

/// `tune.jsonl`: the iterations it holds and its writer (checked against this tune when it
/// exists; written only by the process that keeps the log).
fn open_log(
    config: &Config,
    tune: &TuneConfig,
    opts: &TuneOptions,
    keeps_log: bool,
) -> Result<(Vec<IterationLine>, Option<log::Writer>), TuneError> {
    let header = Header {
        config_file: config.file.display().to_string(),
        config_text: config.text.clone(),
        seed: tune.seed,
        iterations: tune.iterations,
        simulate: opts.simulate,
        params: tune.params.iter().map(|p| p.path.clone()).collect(),
        ranges: Some(
            tune.params
                .iter()
                .map(|p| ParamRange {
                    start: p.start,
                    min: p.min,
                    max: p.max,
                })
                .collect(),
        ),
        games_per_iteration: Some(plan::games_per_iteration(tune)),
    };
    let log_path = opts.out.join("tune.jsonl");
    Ok(match log::read(&log_path)? {
        Some(read) => {
            check_same(&log_path, &read.header, &header)?;
            if keeps_log {
                let w = log::Writer::open(&log_path, read.complete_len, None)?;
                (read.lines, Some(w))
            } else {
                // Another shard replays the iterations from the games files.
                (Vec::new(), None)
            }
        }
        None if keeps_log => (
            Vec::new(),
            Some(log::Writer::open(&log_path, 0, Some(&header))?),
        ),
        None => (Vec::new(), None),
    })
}

/// An iteration's games drawn from the bowl: `elos` are the values θ+, θ− and every other
/// player play with.
fn simulated(
    tune: &TuneConfig,
    specs: Vec<GameSpec>,
    values: [&[f64]; 3],
) -> Vec<(GameSpec, Winner)> {
    let elo = |name: &str| {
        let v = if name == plus_name(tune) {
            values[0]
        } else if name == minus_name(tune) {
            values[1]
        } else {
            values[2]
        };
        simulate::bowl_elo(&tune.simulate, &tune.params, v)
    };
    specs
        .into_iter()
        .map(|s| {
            let gap = elo(&s.sente) - elo(&s.gote);
            let w = simulate::game(gap, tune.simulate.draw_ratio, s.seed);
            (s, w)
        })
        .collect()
}

/// Where a tune's real games are played and written, the same for every iteration.
struct RealGames {
    scheduler: Scheduler,
    writer: ResultsWriter,
    /// What an interrupted iteration already played, by id.
    played_before: BTreeMap<u64, GameResult>,
    others: Option<shards::Others>,
    games_per_iteration: u64,
    /// The engine log, when the tune keeps one: a write that failed stops the tune.
    engine_log: Option<EngineLog>,
}

impl RealGames {
    /// Open `games.jsonl` (an interrupted tune's games kept) and the engine log, check every
    /// engine starts and declares the tuned options, start the game workers.
    async fn open(
        config: &Config,
        tune: &TuneConfig,
        opts: &TuneOptions,
        resumed_at: u64,
    ) -> Result<Self, TuneError> {
        let games_path = shards::games_file(&opts.out, opts.shard);
        let (played_before, complete_len) = games::finished_games(&games_path)?;
        let writer = ResultsWriter::open(&games_path, complete_len)
            .map_err(|e| TuneError::io(&games_path, e))?;
        let start: Vec<f64> = tune.params.iter().map(|p| p.start).collect();
        games::check_declared_spins(config, tune).await?;
        let probe_config = games::iteration_config(config, tune, &start, &start);
        let logs = EngineLogs::for_run(
            config,
            opts.engine_log.as_ref(),
            &opts.out,
            opts.engine_log_cap,
        )?;
        if let Some(logs) = &logs {
            logs.log.note(&format!(
                "council-tune: iterations {resumed_at} to {} into {}, seed {}; pre-flight of the USI engines",
                tune.iterations,
                opts.out.display(),
                tune.seed
            ));
        }
        preflight_logged(&probe_config, logs.as_ref()).await?;
        let engine_log = logs.as_ref().map(|l| l.log.clone());
        // A log that cannot be written from the start (a full disk) stops the tune before any
        // game.
        TuneError::engine_log_whole(engine_log.as_ref())?;
        let scheduler = Scheduler::start(SchedulerOptions {
            concurrency: opts.concurrency,
            workers: None,
            keep: Keep::Leaves { logs },
            feed: opts.feed.clone(),
            on_start: None,
        })
        .map_err(|e| TuneError::io(&opts.out, e))?;
        Ok(RealGames {
            scheduler,
            writer,
            played_before,
            others: opts.shard.map(|s| shards::Others::new(&opts.out, s)),
            games_per_iteration: plan::games_per_iteration(tune),
            engine_log,
        })
    }

    /// Iteration `k`'s games under `config`: this shard's unplayed ones played, the others' waited
    /// for. `None` when it was interrupted (or another shard's games did not come).
    async fn iteration(
        &mut self,
        config: Config,
        k: u64,
        specs: Vec<GameSpec>,
        opts: &TuneOptions,
        cancel: &CancellationToken,
        bar: &ProgressBar,
    ) -> Result<Option<Vec<(GameSpec, Winner)>>, TuneError> {
        let todo: Vec<GameSpec> = specs
            .iter()
            .filter(|s| opts.shard.is_none_or(|me| me.holds(s)))
            .filter(|s| !self.played_before.contains_key(&s.id))
            .cloned()
            .collect();
        let todo_count = todo.len();
        let (scheduler, writer) = (&self.scheduler, &mut self.writer);
        let log = self.engine_log.as_ref();
        let winners = games::play(config, todo, scheduler, writer, log, cancel, || bar.tick());
        let winners = winners.await?;
        let mine_done = todo_count == winners.len();
        if let Some(others) = self.others.as_mut()
            && !(mine_done && others.wait_for(k, &specs, opts.shard_wait, cancel).await?)
        {
            return Ok(None);
        }
        let mut all = Vec::new();
        for s in specs {
            let w = winners
                .get(&s.id)
                .copied()
                .or_else(|| self.played_before.get(&s.id).map(|g| g.result))
                .or_else(|| self.others.as_ref()?.get(s.id).map(|g| g.result));
            match w {
                Some(w) => all.push((s, w)),
                None => break,
            }
        }
        Ok((all.len() as u64 == self.games_per_iteration).then_some(all))
    }
}

/// Refuse to resume a tune started differently, naming what differs.
fn check_same(path: &std::path::Path, was: &Header, now: &Header) -> Result<(), TuneError> {
    let differs = |what: &'static str, a: String, b: String| TuneError::Mismatch {
        path: path.to_path_buf(),
        what,
        was: a,
        now: b,
    };
    if !council_schema::config::same_config(&was.config_text, &now.config_text) {
        return Err(differs(
            "the config",
            format!("text of {}", was.config_file),
            format!("that of {}", now.config_file),
        ));
    }
    if was.seed != now.seed {
        return Err(differs("seed", was.seed.to_string(), now.seed.to_string()));
    }
    if was.iterations != now.iterations {
        return Err(differs(
            "iterations",
            was.iterations.to_string(),
            now.iterations.to_string(),
        ));
    }
    if was.simulate != now.simulate {
        let name = |s: bool| if s { "--simulate" } else { "real games" }.to_string();
        return Err(differs("mode", name(was.simulate), name(now.simulate)));
    }
    Ok(())
}

fn progress_bar(total: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30.cyan/blue} {pos}/{len} iterations [{elapsed_precise} < {eta}] {msg}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
