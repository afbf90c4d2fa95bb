//! The engine's search: an [`Engine`] that owns the transposition table and move-ordering
//! statistics, and searches a position under [`Limits`] until done or stopped.
//!
//! Search never prints: it reports each finished iteration (and MultiPV line) to a
//! [`SearchObserver`], which the USI loop, the `bench` command and the orchestrator's
//! in-process player each implement. Strength controls (node limit, depth limit, move time,
//! evaluation noise with a seed) are [`EngineSettings`]; with the same settings, seed and
//! call sequence the engine replays exactly (node and depth limits are deterministic; time
//! limits are not, by nature).

mod alphabeta;
pub mod bench;
pub mod ebf;
mod limits;
pub mod options;
mod ordering;
mod see;
pub mod time;
mod tt;
mod value;

use crate::eval::noise::Noise;
pub use alphabeta::LeafCounts;
pub use limits::Limits;

use crate::position::Position;
use crate::types::{Color, Move, Score};
use alphabeta::{CoreLimits, CoreResult, Flags, LineInfo, Searcher};
use options::{Tuned, Tuning};
use ordering::Heuristics;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tt::TranspositionTable;

#[cfg(test)]
use value::{MATE_IN_MAX, mate_plies};

/// Lets another thread stop a running search, and tells it whether it is pondering.
///
/// Clones share the same flags. `stop()` ends the search as soon as it next looks (every
/// 256 nodes). While `pondering` is set the clock is not counted; clearing it (ponderhit)
/// starts the clock from that moment.
#[derive(Clone, Debug, Default)]
pub struct StopFlag {
    flags: Flags,
}

impl StopFlag {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    pub fn stop(&self) {
        self.flags.stop.store(true, Ordering::Relaxed);
    }

    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.flags.stop.load(Ordering::Relaxed)
    }

    /// Clears both flags, ready for a new search.
    pub fn reset(&self) {
        self.flags.stop.store(false, Ordering::Relaxed);
        self.flags.pondering.store(false, Ordering::Relaxed);
    }

    pub fn set_pondering(&self, pondering: bool) {
        self.flags.pondering.store(pondering, Ordering::Relaxed);
    }

    #[must_use]
    pub fn is_pondering(&self) -> bool {
        self.flags.pondering.load(Ordering::Relaxed)
    }
}

/// One finished iteration of the search (one line of MultiPV), as reported to observers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    /// 1-based MultiPV index.
    pub multipv: usize,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    /// Per mille of the hash table in use.
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// Receives progress from a running search (the search itself never prints).
pub trait SearchObserver {
    /// Called for each line of each completed iteration, best line first.
    fn on_info(&mut self, info: &SearchInfo);
}

impl<F: FnMut(&SearchInfo)> SearchObserver for F {
    fn on_info(&mut self, info: &SearchInfo) {
        self(info);
    }
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl SearchObserver for Silent {
    fn on_info(&mut self, _: &SearchInfo) {}
}

/// What the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BestMove {
    Move(Move),
    /// No legal move: the side to move is checkmated.
    Resign,
    /// The side to move declares an impasse win (the CSA 27-point rule holds).
    Win,
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    pub best: BestMove,
    /// Score of `best` from the side to move's view.
    pub score: Score,
    /// Last completed iteration depth.
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// Principal variation, starting with the best move (empty for resign / win).
    pub pv: Vec<Move>,
    /// Evaluated leaves of the whole search and how many were good for sente (models.md
    /// section 8); the USI front end reports them as `info string leaves N positive P`.
    pub leaves: LeafCounts,
}

impl SearchResult {
    /// The move the engine expects in reply (USI `ponder`), when the PV has one.
    #[must_use]
    pub fn ponder(&self) -> Option<Move> {
        self.pv.get(1).copied()
    }
}

/// The position to search: `pos` itself, or, when its move number is so near the end of
/// rsshogi's u16 ply counter that the search would overflow it, a fresh copy numbered 1 (such
/// a game has no useful history).
fn searchable(pos: &rsshogi::board::Position) -> std::borrow::Cow<'_, rsshogi::board::Position> {
    if usize::from(pos.game_ply()) + 2 * value::MAX_PLY as usize >= usize::from(u16::MAX)
        && let Ok(mut fresh) = rsshogi::board::position_from_sfen(&pos.to_sfen(Some(1)))
    {
        fresh.init_stack();
        return std::borrow::Cow::Owned(fresh);
    }
    std::borrow::Cow::Borrowed(pos)
}

/// Converts a search value to the public score type.
fn to_score(v: value::Value) -> Score {
    if value::is_mate(v) {
        Score::Mate(value::mate_plies(v))
    } else {
        Score::Cp(v)
    }
}

fn to_info(line: &LineInfo) -> SearchInfo {
    let ms = line.time.as_millis().max(1) as u64;
    SearchInfo {
        depth: line.depth.max(1) as u32,
        seldepth: line.seldepth.max(line.depth).max(1) as u32,
        multipv: line.multipv,
        score: to_score(line.value),
        nodes: line.nodes,
        nps: line.nodes * 1000 / ms,
        time: line.time,
        hashfull: line.hashfull,
        pv: line.pv.iter().map(|&m| Move::from_rs(m)).collect(),
    }
}

/// Engine settings: the USI options and the strength controls.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// Transposition table size in MiB (USI_Hash).
    pub hash_mb: usize,
    /// Number of principal variations to report (MultiPV), at least 1.
    pub multipv: usize,
    /// Strength: stop after this many nodes (deterministic).
    pub node_limit: Option<u64>,
    /// Strength: never search deeper than this (deterministic).
    pub depth_limit: Option<u32>,
    /// Strength: think at most this long per move.
    pub move_time: Option<Duration>,
    /// Strength: Gaussian evaluation noise, standard deviation in centipawns (0 = none).
    pub noise_sd_cp: f64,
    /// Seed of the evaluation noise.
    pub noise_seed: u64,
    /// Safety margin kept on the clock, in milliseconds.
    pub margin_ms: u64,
    /// Evaluation weights and search knobs ([`options::TUNABLES`]).
    pub tuning: Tuning,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            hash_mb: 64,
            multipv: 1,
            node_limit: None,
            depth_limit: None,
            move_time: None,
            noise_sd_cp: 0.0,
            noise_seed: 0,
            margin_ms: time::DEFAULT_MARGIN_MS,
            tuning: Tuning::default(),
        }
    }
}

/// A shogi engine instance: settings, hash table and learned move-ordering statistics.
pub struct Engine {
    settings: EngineSettings,
    tt: TranspositionTable,
    heur: Heuristics,
    /// The weights and knobs `settings.tuning` makes.
    tuned: Box<Tuned>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(EngineSettings::default())
    }
}

impl Engine {
    #[must_use]
    pub fn new(settings: EngineSettings) -> Self {
        let tt = TranspositionTable::new(settings.hash_mb);
        let tuned = Box::new(Tuned::new(&settings.tuning));
        Self {
            settings,
            tt,
            heur: Heuristics::new(),
            tuned,
        }
    }

    #[must_use]
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// Changes the settings; the hash table is reallocated (and cleared) only if its size changed.
    pub fn set_settings(&mut self, settings: EngineSettings) {
        if settings.hash_mb != self.settings.hash_mb {
            self.tt = TranspositionTable::new(settings.hash_mb);
        }
        if settings.tuning != self.settings.tuning {
            *self.tuned = Tuned::new(&settings.tuning);
        }
        self.settings = settings;
    }

    /// Forgets everything learned (hash table, history): a new game starts from scratch,
    /// so that a game replays exactly whatever came before it.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.heur.clear();
    }

    /// The limits the core search runs under: the `go` limits combined with the settings.
    fn core_limits(&self, limits: &Limits, mover: Color) -> CoreLimits {
        let s = &self.settings;
        let mut limits = limits.clone();
        if let Some(mt) = s.move_time {
            limits.movetime = Some(limits.movetime.map_or(mt, |m| m.min(mt)));
        }
        let depth = match (limits.depth, s.depth_limit) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => value::MAX_PLY as u32,
        };
        let nodes = match (limits.nodes, s.node_limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        CoreLimits {
            depth: depth.clamp(1, value::MAX_PLY as u32) as i32,
            nodes,
            budget: time::budget(&limits, mover, s.margin_ms),
            multipv: s.multipv.max(1),
            measure: false,
        }
    }

    /// Searches `pos` (its game history counts for repetitions) and returns the move to play:
    /// `Resign` only when there is no legal move, `Win` only when the impasse declaration
    /// holds, otherwise always a legal move, even when stopped at once.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> SearchResult {
        if pos.impasse_declaration().is_ok() {
            return SearchResult {
                best: BestMove::Win,
                score: Score::Mate(1),
                depth: 0,
                seldepth: 0,
                nodes: 0,
                time: Duration::ZERO,
                pv: Vec::new(),
                leaves: LeafCounts::default(),
            };
        }
        let r = self.search_core(pos.raw(), limits, stop, &mut |line| {
            observer.on_info(&to_info(line))
        });
        SearchResult {
            best: r.best.map_or(BestMove::Resign, |m| {
                BestMove::Move(Move::from_rs(m.to_move()))
            }),
            score: to_score(r.value),
            depth: r.depth.max(0) as u32,
            seldepth: r.seldepth.max(r.depth).max(0) as u32,
            nodes: r.nodes,
            time: r.time,
            pv: r.pv.iter().map(|&m| Move::from_rs(m)).collect(),
            leaves: r.leaves,
        }
    }

    /// The quiet position that `pos` settles into: the end of its quiescence search's
    /// principal variation (the captures that would be exchanged first), or `None` when that
    /// search sees a mate. The evaluation tuner fits weights on such positions, where the
    /// static evaluation is meaningful.
    #[must_use]
    pub fn quiescence_leaf(&mut self, pos: &Position) -> Option<Position> {
        let noise = Noise::default();
        let limits = CoreLimits::to_depth(1, false);
        let mut searcher = Searcher::new(
            pos.raw().clone(),
            &mut self.tt,
            &mut self.heur,
            noise,
            Flags::default(),
            limits,
        );
        let (value, pv) = searcher.quiescence();
        if value::is_mate(value) {
            return None;
        }
        let mut leaf = pos.clone();
        for mv in pv {
            leaf.play(Move::from_rs(mv));
        }
        Some(leaf)
    }

    /// Searches an rsshogi position (whose state stack holds the game history).
    pub(crate) fn search_core(
        &mut self,
        pos: &rsshogi::board::Position,
        limits: &Limits,
        stop: &StopFlag,
        on_line: &mut dyn FnMut(&LineInfo),
    ) -> CoreResult {
        let pos = &*searchable(pos);
        let core_limits = self.core_limits(limits, Color::from_rs(pos.turn()));
        self.tt.new_search();
        self.heur.age();
        self.heur.clear_killers();
        let noise = Noise {
            sd_cp: self.settings.noise_sd_cp,
            seed: self.settings.noise_seed,
        };
        let mut searcher = Searcher::new(
            pos.clone(),
            &mut self.tt,
            &mut self.heur,
            noise,
            stop.flags.clone(),
            core_limits,
        )
        .with_tuned(&self.tuned);
        if let Some(moves) = &limits.searchmoves {
            searcher.restrict_root(moves.iter().map(|m| m.to_rs()).collect());
        }
        searcher.run(on_line)
    }
}

#[cfg(test)]
mod tests;
