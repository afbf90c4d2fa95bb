//! The built-in engine searched in this process, as a [`Player`].
//!
//! Invariants: the search runs on a blocking thread (never on the async workers); the engine is
//! moved into that thread and back, so one instance searches one position at a time; each game
//! starts from a cleared engine with its noise seeded from the game's seed, so node- or
//! depth-limited games replay exactly. With `candidates`, the root searches only the model's top
//! K moves of the position (computed on the search thread, before the search). At the deadline the search is stopped and
//! its best move so far is the answer, late (the caller judges it). A player made with [`InternalPlayer::stoppable`] also ends its search, with the best
//! move found so far, when a shared [`StopFlag`] is raised (a GUI's `stop` in `council-usi`).

use std::time::Duration;

use engine::search::{
    BestMove, Engine, EngineSettings, Limits, SearchInfo, SearchObserver, SearchResult, Silent,
    StopFlag,
};
use engine::types::Score;

use super::{BoxFuture, Decision, MoveRequest, Outcome, Player, PlayerError, Thought};
use council_schema::config::{Candidates, InternalSettings};
use engine::intuition::Intuition;

/// How often a [`InternalPlayer::stoppable`] search looks at the shared flag.
const SHARED_STOP_POLL: Duration = Duration::from_millis(5);

pub struct InternalPlayer {
    name: String,
    settings: EngineSettings,
    /// The root searches only these candidates' top K moves.
    candidates: Option<Candidates>,
    engine: Option<Engine>,
    /// Raised by someone else to end the search now with its best move (never reset here).
    shared_stop: Option<StopFlag>,
}

impl InternalPlayer {
    /// The player `name` with the internal player's settings `s`.
    pub fn new(name: &str, s: &InternalSettings) -> Self {
        let settings = EngineSettings {
            hash_mb: s.hash_mb as usize,
            noise_sd_cp: f64::from(s.noise_cp),
            tuning: s.options.clone(),
            ..EngineSettings::default()
        };
        Self {
            name: name.to_string(),
            settings,
            candidates: s.candidates.clone(),
            engine: None,
            shared_stop: None,
        }
    }

    /// Take new settings for the next game in place: the engine and its hash table are kept,
    /// and `new_game` hands it the new settings (a changed `hash_mb` reallocates the table
    /// there). How `council-tune` re-parameterises a player between games.
    pub fn reconfigure(&mut self, name: &str, s: &InternalSettings) {
        *self = Self {
            engine: self.engine.take(),
            shared_stop: self.shared_stop.take(),
            ..Self::new(name, s)
        };
    }

    /// As [`InternalPlayer::new`], and its searches also end, with their best move so far,
    /// once `stop` is raised. Whoever raises it resets it before the next move.
    pub(crate) fn stoppable(name: &str, s: &InternalSettings, stop: StopFlag) -> Self {
        Self {
            shared_stop: Some(stop),
            ..Self::new(name, s)
        }
    }

    async fn search(&mut self, req: &MoveRequest) -> Result<Thought, PlayerError> {
        let mut engine = self
            .engine
            .take()
            .unwrap_or_else(|| Engine::new(self.settings.clone()));
        let b = req.budget;
        let mut limits = Limits {
            nodes: b.nodes,
            depth: b.depth,
            movetime: b.movetime_ms.map(Duration::from_millis),
            clock: b.clock,
            infinite: false,
            searchmoves: None,
        };
        if engine.settings().multipv != req.multipv.max(1) {
            let settings = EngineSettings {
                multipv: req.multipv.max(1),
                ..engine.settings().clone()
            };
            engine.set_settings(settings);
        }
        let position = req.position.clone();
        let stop = StopFlag::new();
        let stopper = stop.clone();
        // Engine time runs from handing the position over until the answer is back, as for a
        // USI process (from `go` to `bestmove`): waiting for a free core counts as the engine's.
        let dispatched = std::time::Instant::now();
        let multipv = req.multipv.max(1);
        let candidates = self.candidates.clone();
        let task = tokio::task::spawn_blocking(move || {
            if let Some(c) = candidates {
                let top = Intuition::new(&c.model.model, c.setting).top(&position, c.k);
                limits.searchmoves = (!top.is_empty()).then_some(top);
            }
            if multipv == 1 {
                let result = engine.search(&position, &limits, &stop, &mut Silent);
                return (engine, result, Vec::new());
            }
            let roots = limits
                .searchmoves
                .as_ref()
                .map_or_else(|| position.legal_moves().len(), Vec::len);
            let mut lines = MultiPvLines::new(multipv.min(roots));
            let result = engine.search(&position, &limits, &stop, &mut lines);
            (engine, result, lines.complete)
        });
        let mut task = std::pin::pin!(task);
        // The shared flag is only read (polled), so a deadline here never stops anyone else.
        let shared = self.shared_stop.clone();
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
            j = &mut task => (false, j),
            () = poll_shared => {
                stopper.stop();
                (false, task.await)
            }
            () = tokio::time::sleep_until(req.deadline) => {
                stopper.stop();
                (true, task.await)
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
        Ok(t)
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

    fn game_over(&mut self, _outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn shutdown(&mut self) -> BoxFuture<'_, ()> {
        self.engine = None;
        Box::pin(async {})
    }
}
