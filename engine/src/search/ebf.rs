//! The effective branching factor of a position (seed 004; `shared/spec/models.md` sections 6
//! and 8): how many moves stay worth looking at for the side to move, read from the size of a
//! one-sided search. A position where only lines good for the mover are searched (root window
//! `[0, +inf)`) and that still needs many nodes is hard to decide; one that collapses to a few
//! lines is easy. `b* = exp(ln n / D)` for `n` frontier nodes at nominal depth `D`.
//!
//! The measurement is the Fig. 4.1 loop of the thesis: deepen with `(-inf, inf)` until the
//! frontier count accumulated over the iterations reaches `Nth`; take that iteration's score
//! (and win rate); restart the count and search `[0, +inf)` at that depth + 1 (the prose; the
//! printed code reads +2); `b*` comes from that search. A mate score before `Nth` drops the
//! position. While measuring the search runs without check extensions (null move, LMR and
//! ProbCut stay, as in the thesis) and without aspiration windows or evaluation noise.
//!
//! Invariant: a measurement depends on the position and `Nth` only: it starts from cleared
//! tables, in one thread, with node counts and no clock, so a build gives the same numbers
//! every run.

use super::alphabeta::{CoreLimits, EbfRaw, Flags, Searcher};
use super::value::{self, Value};
use super::{Engine, searchable, to_score};
use crate::eval::noise::Noise;
use crate::position::Position;
use crate::types::Score;

/// The threshold `Nth` when none is given: frontier nodes (nodes that enter quiescence). The
/// thesis used 10M with a far faster engine; 200k keeps one measurement of an opening position
/// to a few seconds here and still reaches depth 6 to 8 in the handicap starts.
pub const DEFAULT_NTH: u64 = 200_000;

/// The win-rate scale `T` of this engine's scores (models.md section 1: 600 is the project's
/// default; seed 004's Shueso used 256).
pub const DEFAULT_WIN_RATE_T: f64 = 600.0;

/// Hash table size of a measurement, fixed so that the numbers do not depend on settings.
pub const EBF_HASH_MB: usize = 64;

/// The win rate of a score `cp` (side to move's view): `1 / (1 + exp(-cp / t))`.
#[must_use]
pub fn win_rate(cp: f64, t: f64) -> f64 {
    1.0 / (1.0 + (-cp / t).exp())
}

/// `b* = exp(ln n / d)`: the constant branching factor of a uniform tree with `n` leaves at
/// depth `d`. At least 1 (`n` is taken as at least 1).
#[must_use]
pub fn effective_branching_factor(n: u64, d: u32) -> f64 {
    ((n.max(1) as f64).ln() / f64::from(d.max(1))).exp()
}

/// A completed measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EbfMeasurement {
    /// Nominal depth `D` of the `[0, +inf)` search (the last full-window depth + 1).
    pub depth: u32,
    /// Frontier nodes `n` of that search.
    pub nodes: u64,
    /// `b* = exp(ln n / D)`.
    pub ebf: f64,
    /// Score (centipawns, side to move) of the full-window iteration that passed `Nth`.
    pub score_cp: i32,
    /// The `[0, +inf)` search's own result, side to move: a value at or below 0 is a fail low
    /// (every root move below the window), not the true score.
    pub window_score: Score,
}

/// Why a position has no EBF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// A mate (for either side) was seen before the count passed `Nth` (seed 004 drops such
    /// positions; a position without legal moves is a mate in 0).
    Mate,
    /// The search reached its depth cap before the count passed `Nth`: too few lines to measure.
    TooSmall,
}

/// What [`Engine::measure_ebf`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EbfOutcome {
    Measured(EbfMeasurement),
    Dropped {
        reason: DropReason,
        /// The full-window depth where the search stopped.
        depth: u32,
        /// Frontier nodes counted up to there.
        nodes: u64,
        /// The score found there (a mate for [`DropReason::Mate`]).
        score: Score,
    },
}

impl Engine {
    /// Measures the effective branching factor of `pos` with threshold `nth` (see the module
    /// doc). Clears the hash table and history first, so the result does not depend on what
    /// this engine searched before; the settings' evaluation noise is not used.
    pub fn measure_ebf(&mut self, pos: &Position, nth: u64) -> EbfOutcome {
        self.new_game();
        let limits = CoreLimits::to_depth(value::MAX_PLY, true);
        let mut searcher = Searcher::new(
            searchable(pos.raw()).into_owned(),
            &mut self.tt,
            &mut self.heur,
            Noise::default(),
            Flags::default(),
            limits,
        );
        let depth = |d: i32| d.max(0) as u32;
        let dropped = |reason, d: i32, frontier, v: Value| EbfOutcome::Dropped {
            reason,
            depth: depth(d),
            nodes: frontier,
            score: to_score(v),
        };
        match searcher.measure_ebf(nth) {
            EbfRaw::Measured {
                depth: d,
                frontier,
                value,
                window_value,
            } => EbfOutcome::Measured(EbfMeasurement {
                depth: depth(d),
                nodes: frontier,
                ebf: effective_branching_factor(frontier, depth(d)),
                score_cp: value,
                window_score: to_score(window_value),
            }),
            EbfRaw::Mate {
                depth: d,
                frontier,
                value,
            } => dropped(DropReason::Mate, d, frontier, value),
            EbfRaw::TooSmall {
                depth: d,
                frontier,
                value,
            } => dropped(DropReason::TooSmall, d, frontier, value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Handicap;
    use crate::search::EngineSettings;

    fn engine() -> Engine {
        Engine::new(EngineSettings {
            hash_mb: EBF_HASH_MB,
            ..EngineSettings::default()
        })
    }

    #[test]
    fn the_formula_is_the_root_of_the_count() {
        assert!((effective_branching_factor(1000, 3) - 10.0).abs() < 1e-9);
        assert!((effective_branching_factor(1, 5) - 1.0).abs() < 1e-12);
        assert!((win_rate(0.0, 600.0) - 0.5).abs() < 1e-12);
        // r(T) = 1 / (1 + e^-1).
        assert!((win_rate(600.0, 600.0) - 0.731_058_578_630_005).abs() < 1e-12);
    }

    #[test]
    fn a_measurement_replays_and_ignores_what_came_before() {
        let pos = Position::handicap(Handicap::Bishop);
        let mut e = engine();
        let first = e.measure_ebf(&pos, 5_000);
        // Search something else in between: the tables are cleared before measuring.
        let _ = e.measure_ebf(&Position::startpos(), 5_000);
        assert_eq!(e.measure_ebf(&pos, 5_000), first);
        let EbfOutcome::Measured(m) = first else {
            panic!("no mate in a handicap start: {first:?}");
        };
        assert!(m.ebf > 1.0 && m.depth >= 2, "{m:?}");
        // The bishop giver is behind: its one-sided search fails low.
        assert!(m.score_cp < 0, "{m:?}");
    }

    #[test]
    fn the_count_passes_the_threshold_before_the_last_depth() {
        // A larger threshold never measures shallower.
        let pos = Position::startpos();
        let mut e = engine();
        let depth_of = |o: EbfOutcome| match o {
            EbfOutcome::Measured(m) => m.depth,
            other => panic!("{other:?}"),
        };
        let small = depth_of(e.measure_ebf(&pos, 1_000));
        let large = depth_of(e.measure_ebf(&pos, 50_000));
        assert!(small < large, "{small} then {large}");
    }

    #[test]
    fn a_mate_before_the_threshold_drops_the_position() {
        // G*5b mates at once.
        let pos =
            Position::from_sfen("4k4/9/4G4/9/9/9/9/9/4K4 b G2r2b2g4s4n4l18p 1").expect("sfen");
        match engine().measure_ebf(&pos, DEFAULT_NTH) {
            EbfOutcome::Dropped {
                reason: DropReason::Mate,
                score: Score::Mate(1),
                ..
            } => {}
            other => panic!("expected a mate drop, got {other:?}"),
        }
        // No legal move at all: mated now.
        let mated =
            Position::from_sfen("4k4/4G4/4G4/9/9/9/9/9/4K4 w 2r2b2g4s4n4l18p 1").expect("sfen");
        assert!(matches!(
            engine().measure_ebf(&mated, 10),
            EbfOutcome::Dropped {
                reason: DropReason::Mate,
                depth: 0,
                ..
            }
        ));
    }
}
