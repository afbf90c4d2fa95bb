//! The built-in engine searched in this process, as a [`Player`].
//!
//! Invariants: the search runs on a blocking thread (never on the async workers); the engine is
//! moved into that thread and back, so one instance searches one position at a time; each game
//! starts from a cleared engine with its noise seeded from the game's seed, so node- or
//! depth-limited games replay exactly. With `candidates`, the root searches only the model's top
//! K moves of the position (computed on the search thread, before the search). At the deadline
//! the search is stopped and its best move so far is the answer, late (the caller judges it).
//!
//! Built with a GUI's [`Live`] hook (`council-usi`, [`InternalPlayer::live`]) it also ends its
//! search, with the best move found so far, when the GUI's stop flag is raised; publishes each
//! line it finds on the progress board; ponders (a search of the position after the reply it
//! expects, its clock not counted until the reply comes: the next think on that position takes
//! the search over, any other stops it and searches afresh); and keeps no time margin of its
//! own, answering its caller in process: the GUI's `MarginMs` and a council's reserve are its
//! margins. Built without it, it never ponders and publishes nothing.

use std::sync::Arc;
use std::time::Duration;

use engine::position::Position;
use engine::search::{
    BestMove, Engine, EngineSettings, Limits, SearchInfo, SearchObserver, SearchResult, StopFlag,
};
use engine::types::Score;
use tokio::task::JoinHandle;

use super::live::{Line, Live, Progress};
use super::{BoxFuture, Budget, Decision, MoveRequest, Outcome, Player, PlayerError, Thought};
use council_schema::config::{Candidates, InternalSettings, Models};
use engine::intuition::{Intuition, Model};

/// How often a [`InternalPlayer::live`] search looks at the GUI's stop flag.
const SHARED_STOP_POLL: Duration = Duration::from_millis(5);

/// What a search thread gives back: the engine, its result, and its MultiPV lines.
type Searched = (Engine, SearchResult, Vec<(String, Option<Score>)>);

pub struct InternalPlayer {
    name: String,
    settings: EngineSettings,
    /// The root searches only these candidates' top K moves (with their model).
    candidates: Option<(Candidates, Arc<Model>)>,
    engine: Option<Engine>,
    /// A GUI's hook (see the module's docs).
    live: Option<Live>,
    /// The search it runs in the opponent's time.
    pondering: Option<Running>,
    /// The pv of its last answer (its second move is the reply it expects).
    last_pv: Vec<String>,
}

/// A search under way on its blocking thread.
struct Running {
    /// The position searched, as a `position` command states it.
    position: String,
    multipv: usize,
    stop: StopFlag,
    task: JoinHandle<Searched>,
}

impl Drop for Running {
    /// A search nobody waits for any more (a dropped player, a ponder given up) ends.
    fn drop(&mut self) {
        self.stop.stop();
    }
}

impl InternalPlayer {
    /// The player `name` with the internal player's settings `s` (its candidate model, if it
    /// has one, from its config's `models`).
    pub fn new(name: &str, s: &InternalSettings, models: &Models) -> Self {
        let settings = EngineSettings {
            hash_mb: s.hash_mb as usize,
            noise_sd_cp: f64::from(s.noise_cp),
            tuning: s.options.clone(),
            ..EngineSettings::default()
        };
        Self {
            name: name.to_string(),
            settings,
            candidates: s
                .candidates
                .as_ref()
                .map(|c| (c.clone(), models.get(&c.model))),
            engine: None,
            live: None,
            pondering: None,
            last_pv: Vec::new(),
        }
    }

    /// Take new settings for the next game in place: the engine and its hash table are kept,
    /// and `new_game` hands it the new settings (a changed `hash_mb` reallocates the table
    /// there). How `council-tune` re-parameterises a player between games.
    pub fn reconfigure(&mut self, name: &str, s: &InternalSettings, models: &Models) {
        let live = self.live.take();
        let engine = self.engine.take();
        *self = match live {
            Some(live) => Self::live(name, s, models, live),
            None => Self::new(name, s, models),
        };
        self.engine = engine;
    }

    /// As [`InternalPlayer::new`], in a GUI's tree (see the module's docs).
    pub(crate) fn live(name: &str, s: &InternalSettings, models: &Models, live: Live) -> Self {
        let mut player = Self::new(name, s, models);
        player.settings.margin_ms = 0;
        player.live = Some(live);
        player
    }

    /// The search limits of `budget`.
    fn limits(budget: &Budget) -> Limits {
        Limits {
            nodes: budget.nodes,
            depth: budget.depth,
            movetime: budget.movetime_ms.map(Duration::from_millis),
            clock: budget.clock,
            infinite: budget.infinite,
            searchmoves: None,
        }
    }

    /// Starts searching `position` on a blocking thread; `pondering`: its clock is not counted
    /// until [`StopFlag::set_pondering`] clears it.
    fn start(
        &mut self,
        position: &Position,
        mut limits: Limits,
        multipv: usize,
        pondering: bool,
    ) -> Running {
        let mut engine = self
            .engine
            .take()
            .unwrap_or_else(|| Engine::new(self.settings.clone()));
        if engine.settings().multipv != multipv {
            let settings = EngineSettings {
                multipv,
                ..engine.settings().clone()
            };
            engine.set_settings(settings);
        }
        let stop = StopFlag::new();
        stop.set_pondering(pondering);
        let stopper = stop.clone();
        let candidates = self.candidates.clone();
        let publish = self
            .live
            .as_ref()
            .map(|l| (l.progress.clone(), self.name.clone()));
        let searched = position.clone();
        let task = tokio::task::spawn_blocking(move || {
            if let Some((c, model)) = candidates {
                let top = Intuition::new(&model, c.setting).top(&searched, c.k);
                limits.searchmoves = (!top.is_empty()).then_some(top);
            }
            let roots = limits
                .searchmoves
                .as_ref()
                .map_or_else(|| searched.legal_moves().len(), Vec::len);
            let mut watch = Watch {
                lines: MultiPvLines::new(multipv.min(roots)),
                publish,
            };
            let result = engine.search(&searched, &limits, &stopper, &mut watch);
            let lines = if multipv == 1 {
                Vec::new()
            } else {
                watch.lines.complete
            };
            (engine, result, lines)
        });
        Running {
            position: position.to_usi_position(),
            multipv,
            stop,
            task,
        }
    }

    /// Waits for `run` to answer: it is stopped at `deadline` (its answer is then late: the
    /// caller judges it) and when the GUI's stop flag is raised. Its time counts from
    /// `dispatched`.
    async fn finish(
        &mut self,
        run: Running,
        deadline: tokio::time::Instant,
        dispatched: std::time::Instant,
    ) -> Result<Thought, PlayerError> {
        let mut run = run;
        // The shared flag is only read (polled), so a deadline here never stops anyone else.
        let shared = self.live.as_ref().map(|l| l.stop.clone());
        let poll_shared = async {
            match shared {
                Some(flag) => {
                    while !flag.is_stopped() {
                        tokio::time::sleep(SHARED_STOP_POLL).await;
                    }
                }
                None => std::future::pending().await,
            }
        };
        let (timed_out, joined) = tokio::select! {
            j = &mut run.task => (false, j),
            () = poll_shared => {
                run.stop.stop();
                (false, (&mut run.task).await)
            }
            () = tokio::time::sleep_until(deadline) => {
                run.stop.stop();
                (true, (&mut run.task).await)
            }
        };
        let engine_time = dispatched.elapsed();
        let (engine, result, lines) = joined.map_err(|e| PlayerError::Crash {
            player: self.name.clone(),
            detail: format!("search thread failed: {e}"),
        })?;
        self.engine = Some(engine);
        if timed_out {
            // Late, like a USI engine answering `stop`: the caller judges it (the arbiter charges
            // it to the clock, a council leaves it out of its vote unless nothing else came).
            tracing::debug!(player = %self.name, "stopped at its deadline after {} ms", engine_time.as_millis());
        }
        let mut t = thought(result, engine_time);
        t.lines = lines;
        self.last_pv = t.pv.clone();
        Ok(t)
    }

    /// Ends the search in the opponent's time, if any, and takes the engine back.
    async fn stop_pondering(&mut self) {
        if let Some(mut run) = self.pondering.take() {
            run.stop.stop();
            if let Ok((engine, _, _)) = (&mut run.task).await {
                self.engine = Some(engine);
            }
        }
    }

    async fn search(&mut self, req: &MoveRequest) -> Result<Thought, PlayerError> {
        let multipv = req.multipv.max(1);
        let dispatched = std::time::Instant::now();
        if let Some(run) = self.pondering.take() {
            if run.position == req.position.to_usi_position() && run.multipv == multipv {
                // The expected reply came: the search in progress is this move's, on its clock
                // from now on.
                run.stop.set_pondering(false);
                return self.finish(run, req.deadline, dispatched).await;
            }
            self.pondering = Some(run);
            self.stop_pondering().await;
        }
        // Engine time runs from handing the position over until the answer is back, as for a
        // USI process (from `go` to `bestmove`): waiting for a free core counts as the engine's.
        let run = self.start(&req.position, Self::limits(&req.budget), multipv, false);
        self.finish(run, req.deadline, dispatched).await
    }

    /// Starts pondering on `req.position` after `expected` (see [`Player::ponder`]): only in a
    /// GUI's tree.
    async fn start_pondering(
        &mut self,
        req: &MoveRequest,
        expected: Option<&str>,
    ) -> Option<String> {
        self.live.as_ref()?;
        self.stop_pondering().await;
        let expected = match expected {
            Some(e) => e.to_string(),
            None => self.expected_reply(&req.position)?,
        };
        let mv = req.position.parse_usi_move(&expected).ok()?;
        let mut next = Position::clone(&req.position);
        next.play(mv);
        let run = self.start(&next, Self::limits(&req.budget), req.multipv.max(1), true);
        self.pondering = Some(run);
        Some(expected)
    }
}

/// What a search reports goes to the MultiPV collector and, in a GUI's tree, to the board.
struct Watch {
    lines: MultiPvLines,
    publish: Option<(Progress, String)>,
}

impl SearchObserver for Watch {
    fn on_info(&mut self, info: &SearchInfo) {
        self.lines.on_info(info);
        if let Some((progress, name)) = &self.publish {
            progress.publish(
                name,
                Line {
                    multipv: info.multipv as u32,
                    depth: Some(info.depth),
                    nodes: Some(info.nodes),
                    time: info.time,
                    score: Some(info.score),
                    pv: info.pv.iter().map(|m| m.to_usi()).collect(),
                },
            );
        }
    }
}

/// Collects the last complete iteration's MultiPV lines (first move and score, best first).
pub(crate) struct MultiPvLines {
    want: usize,
    current: Vec<(String, Option<Score>)>,
    pub(crate) complete: Vec<(String, Option<Score>)>,
}

impl MultiPvLines {
    /// For `want` lines (at most the legal moves; at least one).
    pub(crate) fn new(want: usize) -> Self {
        Self {
            want: want.max(1),
            current: Vec::new(),
            complete: Vec::new(),
        }
    }
}

impl SearchObserver for MultiPvLines {
    fn on_info(&mut self, info: &SearchInfo) {
        if info.multipv == 1 {
            self.current.clear();
        }
        if let Some(mv) = info.pv.first() {
            self.current.push((mv.to_usi(), Some(info.score)));
        }
        if self.current.len() == self.want {
            self.complete = self.current.clone();
        }
    }
}

fn thought(r: SearchResult, engine_time: Duration) -> Thought {
    Thought {
        decision: match r.best {
            BestMove::Move(m) => Decision::Move(m.to_usi()),
            BestMove::Resign => Decision::Resign,
            BestMove::Win => Decision::Win,
        },
        eval: Some(r.score),
        pv: r.pv.iter().map(|m| m.to_usi()).collect(),
        depth: Some(r.depth),
        nodes: Some(r.nodes),
        engine_time,
        votes: Vec::new(),
        lines: Vec::new(),
    }
}

impl Player for InternalPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        Box::pin(async move {
            self.stop_pondering().await;
            self.last_pv.clear();
            let settings = EngineSettings {
                noise_seed: seed,
                ..self.settings.clone()
            };
            let mut engine = match self.engine.take() {
                Some(mut e) => {
                    e.set_settings(settings);
                    e
                }
                None => Engine::new(settings),
            };
            // Clearing a large hash table is real work: do it off the async workers.
            let engine = tokio::task::spawn_blocking(move || {
                engine.new_game();
                engine
            })
            .await
            .map_err(|e| PlayerError::Crash {
                player: self.name.clone(),
                detail: format!("engine set-up failed: {e}"),
            })?;
            self.engine = Some(engine);
            Ok(())
        })
    }

    fn think<'a>(
        &'a mut self,
        req: &'a MoveRequest,
    ) -> BoxFuture<'a, Result<Thought, PlayerError>> {
        Box::pin(self.search(req))
    }

    fn ponder<'a>(
        &'a mut self,
        req: &'a MoveRequest,
        expected: Option<&'a str>,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(self.start_pondering(req, expected))
    }

    fn expected_reply(&self, after: &Position) -> Option<String> {
        super::expected_reply_in(None, &self.last_pv, after)
    }

    fn game_over(&mut self, _outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(self.stop_pondering())
    }

    fn shutdown(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {
            self.stop_pondering().await;
            self.engine = None;
        })
    }
}
