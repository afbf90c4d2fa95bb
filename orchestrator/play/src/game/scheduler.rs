//! The one game scheduler every program that plays many games drives (council-match's runner,
//! council-tune's iterations): game specs in, played games out, so that how games are
//! scheduled, where they run and how their players are kept is written once.
//!
//! Where games run: on game workers, each an OS thread driving its own `current_thread` tokio
//! runtime (by default one per core, and one per [`GAMES_PER_WORKER`] games at once beyond that;
//! never more than games at once). All of a game's I/O, its
//! players' pipes and timers included, stays on its worker, and a kept player stays in the
//! [`Pool`] of the worker that built it (a tokio I/O object belongs to its runtime's driver):
//! a line an engine writes wakes the worker that waits for it, with no hand-off between
//! threads. The caller's runtime keeps the rest (signals, the live page, the writer).
//!
//! Invariants: at most `concurrency` games at once, their permits taken in schedule order by
//! one dispatcher task, which then hands the game to the worker with the fewest games in flight
//! (so the console's lines and an SPRT's stop follow the ids, and a run holds `concurrency`
//! games, not its thousands); a played game comes back on one bounded channel, its permit held
//! until the receiver takes it (no new game starts while results are unread); a game cancelled
//! (`cancel`) before its end never comes back; [`Games::stop_new`] starts no more games while
//! the running ones finish. [`Scheduler::shutdown`] waits for every game and stops every kept
//! player.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tokio_util::task::task_tracker::TaskTrackerToken;

use super::feed::RunFeed;
use super::play::play_game;
use super::pool::{Keep, Pool};
use super::sheet::PlayedGame;
use council_players::player::engine_log;
use council_schema::config::Config;
use council_schema::run::schedule::GameSpec;
use engine::types::ByColor;

/// Games at once per game worker, past one worker per core. A worker is one thread among the
/// engines' processes, and the kernel shares the cores by thread: when a thousand engines answer
/// in one burst, two workers get two engines' share and the answers queue behind them (a move's
/// clock runs until its `bestmove` is read). More workers cost CPU per move (a thread woken
/// per answer instead of one turn taking many). Measured at 1024 mock games on 2 cores (the
/// runner study, docs/studies/runner-cost.md): 2 workers lost hundreds of games on time, 8 the
/// fewest (11 to 83 in three runs), 32 more again, and a runtime per game over a thousand.
pub const GAMES_PER_WORKER: usize = 128;

/// How a scheduler plays.
#[derive(Clone)]
pub struct SchedulerOptions {
    /// Games at once.
    pub concurrency: usize,
    /// Game workers; `None`: one per core, or one per [`GAMES_PER_WORKER`] games at once when
    /// that is more. Never more than `concurrency`.
    pub workers: Option<usize>,
    /// What the workers' pools keep from game to game.
    pub keep: Keep,
    /// Who hears every game's start and moves (the live page).
    pub feed: Option<Arc<dyn RunFeed>>,
    /// Told of each game as it takes its permit, in schedule order (a console's start line).
    pub on_start: Option<OnStart>,
}

/// What hears a game start, on the dispatcher.
pub type OnStart = Arc<dyn Fn(&GameSpec) + Send + Sync>;

/// Game workers and the permits of the games they play.
pub struct Scheduler {
    workers: Vec<Worker>,
    permits: Arc<Semaphore>,
    concurrency: usize,
    feed: Option<Arc<dyn RunFeed>>,
    on_start: Option<OnStart>,
}

/// One game worker, as the dispatcher sees it.
struct Worker {
    jobs: mpsc::UnboundedSender<Job>,
    in_flight: Arc<AtomicUsize>,
    /// Sent when the worker has stopped its games and its kept players.
    stopped: oneshot::Receiver<()>,
    thread: std::thread::JoinHandle<()>,
}

/// A game handed to a worker.
struct Job {
    config: Arc<Config>,
    spec: GameSpec,
    cancel: CancellationToken,
    feed: Option<Arc<dyn RunFeed>>,
    permit: OwnedSemaphorePermit,
    played: mpsc::Sender<PlayedGame>,
    _batch: TaskTrackerToken,
}

/// The games of one [`Scheduler::play`], as they end.
pub struct Games {
    played: mpsc::Receiver<PlayedGame>,
    stop_new: CancellationToken,
    batch: TaskTracker,
}

impl Games {
    /// The next game to end; `None` when every game of the batch has ended or was skipped.
    pub async fn next(&mut self) -> Option<PlayedGame> {
        self.played.recv().await
    }

    /// Start no more games of this batch; the running ones finish and still come out.
    pub fn stop_new(&self) {
        self.stop_new.cancel();
    }

    /// Stop reading and wait until every game of the batch has ended (after a failure of the
    /// reader, with the run cancelled): no game outlives the batch.
    pub async fn close(mut self) {
        self.stop_new.cancel();
        self.played.close();
        self.batch.close();
        self.batch.wait().await;
    }
}

impl Scheduler {
    /// Start the game workers (threads and runtimes); they wait for games.
    pub fn start(opts: SchedulerOptions) -> std::io::Result<Self> {
        let concurrency = opts.concurrency.max(1);
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let count = opts
            .workers
            .unwrap_or_else(|| default_workers(concurrency, cores))
            .clamp(1, concurrency);
        let mut workers = Vec::with_capacity(count);
        for i in 0..count {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let (jobs, rx) = mpsc::unbounded_channel();
            let (stop_tx, stopped) = oneshot::channel();
            let in_flight = Arc::new(AtomicUsize::new(0));
            let (keep, count) = (opts.keep.clone(), in_flight.clone());
            let thread = std::thread::Builder::new()
                .name(format!("game-worker-{i}"))
                .spawn(move || {
                    runtime.block_on(work(rx, keep, count));
                    drop(runtime);
                    let _ = stop_tx.send(());
                })?;
            workers.push(Worker {
                jobs,
                in_flight,
                stopped,
                thread,
            });
        }
        Ok(Scheduler {
            workers,
            permits: Arc::new(Semaphore::new(concurrency)),
            concurrency,
            feed: opts.feed,
            on_start: opts.on_start,
        })
    }

    /// Play `specs` under `config`, starting them in this order; the played games come out of
    /// the returned [`Games`] as they end. Call within a tokio runtime (the dispatcher's).
    pub fn play(
        &self,
        config: Arc<Config>,
        specs: Vec<GameSpec>,
        cancel: &CancellationToken,
    ) -> Games {
        let (tx, played) = mpsc::channel(self.concurrency);
        let stop_new = CancellationToken::new();
        let batch = TaskTracker::new();
        let workers: Vec<_> = self
            .workers
            .iter()
            .map(|w| (w.jobs.clone(), w.in_flight.clone()))
            .collect();
        let (permits, feed, on_start, cancel, stop) = (
            self.permits.clone(),
            self.feed.clone(),
            self.on_start.clone(),
            cancel.clone(),
            stop_new.clone(),
        );
        let token = batch.token();
        tokio::spawn(async move {
            let _batch = token;
            for spec in specs {
                let permit = tokio::select! {
                    biased;
                    () = cancel.cancelled() => return,
                    () = stop.cancelled() => return,
                    p = permits.clone().acquire_owned() => match p {
                        Ok(p) => p,
                        Err(_) => return,
                    },
                };
                if cancel.is_cancelled() || stop.is_cancelled() {
                    return;
                }
                if let Some(on_start) = &on_start {
                    on_start(&spec);
                }
                // The least busy worker; the first of equals, so a run at concurrency 1 stays
                // on one worker and its kept players.
                let Some((jobs, in_flight)) = workers
                    .iter()
                    .min_by_key(|(_, n)| n.load(Ordering::Acquire))
                else {
                    return;
                };
                in_flight.fetch_add(1, Ordering::AcqRel);
                let job = Job {
                    config: config.clone(),
                    spec,
                    cancel: cancel.clone(),
                    feed: feed.clone(),
                    permit,
                    played: tx.clone(),
                    _batch: _batch.clone(),
                };
                if jobs.send(job).is_err() {
                    in_flight.fetch_sub(1, Ordering::AcqRel);
                    return;
                }
            }
        });
        Games {
            played,
            stop_new,
            batch,
        }
    }

    /// Wait for every game to end, then stop every kept player and the workers.
    pub async fn shutdown(self) {
        for w in self.workers {
            drop(w.jobs);
            let _ = w.stopped.await;
            // It has sent its last word: the join is immediate.
            let _ = w.thread.join();
        }
    }
}

/// Game workers for `concurrency` games at once on `cores` cores: one per core, or one per
/// [`GAMES_PER_WORKER`] games when that is more; never more than the games.
fn default_workers(concurrency: usize, cores: usize) -> usize {
    cores
        .max(concurrency.div_ceil(GAMES_PER_WORKER))
        .clamp(1, concurrency.max(1))
}

/// A worker's loop: each game it is handed runs as a task of its runtime, with its players
/// from its pool; when no more games can come, it waits for its games and stops its players.
async fn work(mut jobs: mpsc::UnboundedReceiver<Job>, keep: Keep, in_flight: Arc<AtomicUsize>) {
    let pool = Arc::new(Pool::new(keep));
    let games = TaskTracker::new();
    while let Some(job) = jobs.recv().await {
        games.spawn(play_job(job, pool.clone(), in_flight.clone()));
    }
    games.close();
    games.wait().await;
    pool.shutdown().await;
}

async fn play_job(job: Job, pool: Arc<Pool>, in_flight: Arc<AtomicUsize>) {
    let Job {
        config,
        spec,
        cancel,
        feed,
        permit,
        played,
        _batch,
    } = job;
    let mut sente = pool.take(&config, &spec.sente).await;
    let mut gote = pool.take(&config, &spec.gote).await;
    let span = tracing::info_span!("game", id = spec.id);
    let game = play_game(
        &config,
        &spec,
        ByColor {
            sente: sente.player.as_mut(),
            gote: gote.player.as_mut(),
        },
        &cancel,
        feed,
    );
    let game = engine_log::in_game(spec.id, tracing::Instrument::instrument(game, span)).await;
    if let (Some(logs), Some(game)) = (pool.engine_logs(), &game) {
        logs.game_over(&config, &game.result);
    }
    pool.give_back(sente);
    pool.give_back(gote);
    if let Some(game) = game {
        let _ = played.send(game).await;
    }
    // Counted free before the permit is, so the dispatcher's next choice sees it.
    in_flight.fetch_sub(1, Ordering::AcqRel);
    drop(permit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::run::plan::RunPlan;
    use council_schema::run::schedule::schedule;
    use std::path::Path;

    fn config(games: u64) -> Config {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\ngames = {games}\nseed = 3\nmax_plies = 6\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 30\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 30\nnoise_cp = 50\n"
        );
        Config::parse(Path::new("s.toml"), &text).expect("valid")
    }

    fn scheduler(concurrency: usize, workers: usize) -> Scheduler {
        Scheduler::start(SchedulerOptions {
            concurrency,
            workers: Some(workers),
            keep: Keep::Whole { logs: None },
            feed: None,
            on_start: None,
        })
        .expect("game workers")
    }

    #[test]
    fn workers_are_one_per_core_and_one_per_128_games_beyond() {
        let workers = |concurrency| default_workers(concurrency, 2);
        assert_eq!([1, 2, 256, 257, 512, 1024].map(workers), [1, 2, 2, 3, 4, 8]);
        assert_eq!(default_workers(4, 8), 4, "never more workers than games");
    }

    async fn ids(games: &mut Games) -> Vec<u64> {
        let mut ids = Vec::new();
        while let Some(g) = games.next().await {
            ids.push(g.result.id);
        }
        ids.sort_unstable();
        ids
    }

    /// Every game comes out once, played as the same game on one worker or on several.
    #[tokio::test]
    async fn every_game_comes_out_once_and_the_same_on_any_number_of_workers() {
        let config = Arc::new(config(6));
        let specs = schedule(&RunPlan::of(&config), 3);
        let mut moves = Vec::new();
        for (concurrency, workers) in [(1, 1), (3, 2)] {
            let s = scheduler(concurrency, workers);
            let mut games = s.play(config.clone(), specs.clone(), &CancellationToken::new());
            let mut played = Vec::new();
            while let Some(g) = games.next().await {
                played.push((g.result.id, g.result.moves.clone()));
            }
            s.shutdown().await;
            played.sort();
            moves.push(played);
        }
        assert_eq!(moves[0].len(), 6);
        assert_eq!(moves[0], moves[1]);
    }

    /// A batch after another reuses the same workers; a stop of new games and a cancelled
    /// run start nothing more.
    #[tokio::test]
    async fn stop_new_and_cancel_start_no_more_games() {
        let config = Arc::new(config(8));
        let specs = schedule(&RunPlan::of(&config), 3);
        let s = scheduler(1, 2);
        let mut games = s.play(config.clone(), specs.clone(), &CancellationToken::new());
        let first = games.next().await.expect("a game");
        assert_eq!(
            first.result.id, specs[0].id,
            "games start in schedule order"
        );
        games.stop_new();
        let rest = ids(&mut games).await;
        assert!(
            rest.len() <= 1,
            "at most the game already started: {rest:?}"
        );

        let cancel = CancellationToken::new();
        cancel.cancel();
        let mut games = s.play(config.clone(), specs.clone(), &cancel);
        assert_eq!(ids(&mut games).await, Vec::<u64>::new());

        let mut games = s.play(config, specs[..2].to_vec(), &CancellationToken::new());
        assert_eq!(ids(&mut games).await.len(), 2);
        s.shutdown().await;
    }
}
