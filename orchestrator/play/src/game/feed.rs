//! What a run tells a watcher while it plays: the [`RunFeed`] observer and the events it hears.
//!
//! The runner and its arbiter publish through an `Option<Arc<dyn RunFeed>>`, so a run without a
//! watcher pays one `Option` check per move, and the runner never depends on whoever listens
//! (the live page, the `council-live` crate, implements the trait above the runner). The trait is the
//! runner's own, beside the [`Summary`] it hands over at the end. Invariants: a feed's
//! methods are called from the game tasks and the runner's one writer, must return at once and
//! never block on a reader; the events are serde types whose JSON the live page's endpoints
//! serve as they are (keys are promises, as in `results.jsonl`).

use engine::types::{ByColor, Color, Score};
use serde::{Deserialize, Serialize};

use council_schema::results::GameResult;
use council_schema::results::votes::CouncilVote;
use council_schema::run::plan::RunPlan;
use council_schema::run::summary::Summary;

/// One side's clock as the arbiter holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// The side plays on a clock (`time_ms`, `byoyomi_ms` or `increment_ms`); otherwise only
    /// per-move limits (nodes, depth, movetime) apply and the other fields are 0.
    pub enabled: bool,
    /// Main time left, ms.
    pub remaining_ms: u64,
    pub byoyomi_ms: u64,
    pub increment_ms: u64,
    /// Thinking time the side has used in this game, ms (as the arbiter measured it).
    pub used_ms: u64,
}

/// A game has been set up and its players seated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameStart {
    pub id: u64,
    pub sente: String,
    pub gote: String,
    /// The start position, SFEN (as `results.jsonl`'s `start`).
    pub start: String,
    /// Opening moves already played from `start`, USI.
    pub moves: Vec<String>,
    /// The position now, SFEN.
    pub sfen: String,
    /// Each side's clock (JSON `[sente, gote]`).
    pub clocks: ByColor<ClockView>,
}

/// A move the arbiter has judged legal and played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveEvent {
    /// The game (`results.jsonl`'s `id`).
    pub id: u64,
    /// Moves in the game after this one (opening moves included): this move is `moves[ply - 1]`.
    pub ply: u32,
    /// The move, USI.
    #[serde(rename = "move")]
    pub mv: String,
    /// `"sente"` or `"gote"`.
    pub mover: Color,
    /// The position after the move, SFEN.
    pub sfen: String,
    /// The mover's thinking time, ms.
    pub time_ms: u64,
    /// The mover's score from its own side, and its principal variation.
    pub score: Option<Score>,
    pub pv: Vec<String>,
    /// Both clocks after the move (JSON `[sente, gote]`).
    pub clocks: ByColor<ClockView>,
    /// The council decisions behind this move (outermost last when councils nest); empty for a
    /// single engine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<CouncilVote>,
}

/// The state of a run when its games begin.
#[derive(Debug, Clone, Copy)]
pub struct RunStart<'a> {
    /// The run as its `run.json` records it.
    pub plan: &'a RunPlan,
    pub seed: u64,
    /// Games the run will play when no SPRT stops it, finished ones included.
    pub total: usize,
    /// Games finished before this session (a resumed run).
    pub finished: &'a [GameResult],
}

/// A watcher of a run. Every method must return promptly: it runs on the run's own path.
pub trait RunFeed: Send + Sync + std::fmt::Debug {
    fn run_started(&self, start: RunStart<'_>);
    fn game_started(&self, game: GameStart);
    fn moved(&self, event: MoveEvent);
    /// Called after the game's results line is written.
    fn game_ended(&self, game: &GameResult);
    /// The run is over (finished, interrupted or stopped by its SPRT): `summary` is the
    /// `summary.json` just written. Games still listed as running were cancelled.
    fn run_ended(&self, summary: &Summary);
}
