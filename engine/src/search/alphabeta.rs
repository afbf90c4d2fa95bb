//! The search proper, on rsshogi's position for speed: iterative deepening with aspiration
//! windows over a principal variation search (PVS) alpha-beta, quiescence search, check
//! extensions, null-move pruning, ProbCut, late-move reductions, reverse futility and late-move
//! pruning, mate-in-one detection, repetition (with perpetual check) and MultiPV.
//!
//! Two counters ride along without steering anything: the frontier nodes (nodes that enter
//! the quiescence search, the count of the EBF measurement of models.md section 8) and the
//! evaluated leaves with their sign from sente's view (the leaf ratio of the same section).
//! [`CoreLimits::measure`] switches the search into the EBF measuring mode: no check
//! extensions (null move, LMR and ProbCut stay), so that the nominal depth is the depth.
//!
//! Invariants: the position is restored exactly after every move searched; a stopped search
//! never overrides the result of the last completed iteration with half-searched lines except
//! by moves whose own search completed; mate scores count plies from the root; every move this
//! returns is legal in the root position (root moves come from the full legal generator).
//! See: chessprogramming wiki "Principal Variation Search", "Iterative Deepening",
//! "Aspiration Windows", "Quiescence Search", "Null Move Pruning", "Late Move Reductions",
//! "Futility Pruning", "Mate Distance Pruning"; Stockfish's search for the overall shape.

use super::options::Tuned;
use super::ordering::{Heuristics, MovePicker, is_tactical};
use super::see::see_ge;
use super::time::Budget;
use super::tt::{Bound, TranspositionTable};
use super::value::{
    DRAW, INFINITE, MATE_IN_MAX, MAX_PLY, REPETITION_WIN, Value, is_mate, mate_in, mated_in,
};
use crate::eval::{evaluate_with, noise::Noise};
use rsshogi::board::{Move32List, Position, generate_legal_all_move32};
use rsshogi::mate::solve_mate_in_one_in_place;
use rsshogi::types::{Color, Move, Move32, RepetitionState};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Shared flags between the search thread and whoever controls it (the USI loop).
#[derive(Clone, Debug, Default)]
pub(crate) struct Flags {
    pub stop: Arc<AtomicBool>,
    pub pondering: Arc<AtomicBool>,
}

/// What one finished iteration (one MultiPV line) looked like.
#[derive(Clone, Debug)]
pub(crate) struct LineInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub nodes: u64,
    pub time: Duration,
    pub value: Value,
    /// 1-based.
    pub multipv: usize,
    pub pv: Vec<Move>,
    pub hashfull: u32,
}

/// The core result: the root moves ranked, best first.
#[derive(Clone, Debug)]
pub(crate) struct CoreResult {
    pub best: Option<Move32>,
    pub value: Value,
    pub depth: i32,
    pub seldepth: i32,
    pub nodes: u64,
    pub pv: Vec<Move>,
    pub time: Duration,
    pub leaves: LeafCounts,
}

/// Evaluated leaves of a search and how many of them were good for sente (models.md section
/// 8, "leaf ratio"): a leaf is a quiescence node, not in check, whose static evaluation is
/// its stand-pat value. A zero evaluation counts as bad for the side to move (negative when
/// sente is to move, positive when gote is), as in seed 004.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafCounts {
    pub leaves: u64,
    pub positive: u64,
}

impl LeafCounts {
    /// The fraction of leaves good for sente, `None` without leaves.
    #[must_use]
    pub fn ratio(&self) -> Option<f64> {
        (self.leaves > 0).then(|| self.positive as f64 / self.leaves as f64)
    }
}

/// What one EBF measurement found (see [`Searcher::measure_ebf`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum EbfRaw {
    /// The measuring search: its depth and frontier count, the value of the last full-window
    /// iteration (the one that passed the threshold) and of the `[0, inf)` search itself.
    Measured {
        depth: i32,
        frontier: u64,
        value: Value,
        window_value: Value,
    },
    /// A mate score at `depth` before the threshold: the position is dropped.
    Mate {
        depth: i32,
        frontier: u64,
        value: Value,
    },
    /// The depth cap came before the threshold (a tree too small to measure).
    TooSmall {
        depth: i32,
        frontier: u64,
        value: Value,
    },
}

/// Limits as the core sees them (settings and `go` parameters already combined).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CoreLimits {
    pub depth: i32,
    pub nodes: Option<u64>,
    pub budget: Budget,
    pub multipv: usize,
    /// EBF measuring mode (models.md section 8): no check extensions.
    pub measure: bool,
}

impl CoreLimits {
    /// One line to `depth`, no node or time limit (the EBF, a quiescence leaf, tests).
    pub(crate) fn to_depth(depth: i32, measure: bool) -> Self {
        CoreLimits {
            depth,
            nodes: None,
            budget: Budget {
                soft: None,
                hard: None,
            },
            multipv: 1,
            measure,
        }
    }
}

#[derive(Clone)]
struct RootMove {
    mv: Move32,
    value: Value,
    prev_value: Value,
    /// Whether `value` is this iteration's completed result.
    searched: bool,
    pv: Vec<Move>,
    seldepth: i32,
}

#[derive(Clone, Copy, Default)]
struct Frame {
    static_eval: Value,
    current: Move32,
    null_move: bool,
}

pub(crate) struct Searcher<'a> {
    pos: Position,
    tt: &'a mut TranspositionTable,
    heur: &'a mut Heuristics,
    /// Evaluation weights and search knobs.
    tuned: &'a Tuned,
    noise: Noise,
    flags: Flags,
    limits: CoreLimits,
    start: Instant,
    /// When pondering ends (ponderhit) the clock starts from then.
    ponder_released: Option<Instant>,
    was_pondering: bool,
    pub nodes: u64,
    /// Nodes that called the quiescence search (entries into it, not the nodes inside it).
    pub frontier: u64,
    /// Check extensions applied (none in measuring mode).
    pub extensions: u64,
    pub leaves: LeafCounts,
    seldepth: i32,
    stopped: bool,
    root_depth: i32,
    stack: Vec<Frame>,
    pv: Vec<Vec<Move>>,
    root_moves: Vec<RootMove>,
    /// The root moves to search (`go searchmoves`), `None` for all.
    root_filter: Option<Vec<Move>>,
    /// Move pickers by ply, reused from node to node (taken while a node runs).
    pickers: Vec<Option<Box<MovePicker>>>,
    /// Quiet moves searched at each ply's node (history malus), reused likewise.
    quiets: Vec<Vec<Move32>>,
}

/// How often (in nodes) the clock and the stop flag are looked at.
const CHECK_PERIOD: u64 = 256;

impl<'a> Searcher<'a> {
    pub(crate) fn new(
        pos: Position,
        tt: &'a mut TranspositionTable,
        heur: &'a mut Heuristics,
        noise: Noise,
        flags: Flags,
        limits: CoreLimits,
    ) -> Self {
        Self {
            pos,
            tt,
            heur,
            tuned: Tuned::default_ref(),
            noise,
            flags,
            limits,
            start: Instant::now(),
            ponder_released: None,
            was_pondering: false,
            nodes: 0,
            frontier: 0,
            extensions: 0,
            leaves: LeafCounts::default(),
            seldepth: 0,
            stopped: false,
            root_depth: 0,
            stack: vec![Frame::default(); MAX_PLY as usize + 8],
            pv: vec![Vec::new(); MAX_PLY as usize + 8],
            root_moves: Vec::new(),
            root_filter: None,
            pickers: (0..MAX_PLY as usize + 8).map(|_| None).collect(),
            quiets: vec![Vec::new(); MAX_PLY as usize + 8],
        }
    }

    /// Searches with other weights and knobs than the engine's own.
    pub(crate) fn with_tuned(mut self, tuned: &'a Tuned) -> Self {
        self.tuned = tuned;
        self
    }

    /// This ply's picker (a fresh one if a node above was cut off without returning it).
    #[inline]
    fn take_picker(&mut self, p: usize) -> Box<MovePicker> {
        self.pickers[p]
            .take()
            .unwrap_or_else(|| Box::new(MovePicker::empty()))
    }

    /// Takes back `mv`, the move this node has just played and searched.
    #[inline]
    fn undo_move(&mut self, mv: Move32) {
        self.pos
            .undo_move32(mv)
            .expect("undo of a move just played");
    }

    /// The line at ply index `p` becomes `mv` followed by the line found below it.
    #[inline]
    fn update_pv(&mut self, p: usize, mv: Move32) {
        let (head, tail) = self.pv.split_at_mut(p + 1);
        head[p].clear();
        head[p].push(mv.to_move());
        head[p].extend_from_slice(&tail[0]);
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time counted against the budget: from ponderhit when we were pondering.
    fn budget_elapsed(&self) -> Option<Duration> {
        if self.flags.pondering.load(Ordering::Relaxed) {
            return None;
        }
        Some(
            self.ponder_released
                .map_or_else(|| self.start.elapsed(), |t| t.elapsed()),
        )
    }

    #[inline]
    fn poll(&mut self) {
        if let Some(limit) = self.limits.nodes
            && self.nodes >= limit
        {
            self.stopped = true;
            return;
        }
        if !self.nodes.is_multiple_of(CHECK_PERIOD) {
            return;
        }
        if self.flags.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.ponder_released.is_none()
            && self.was_pondering
            && !self.flags.pondering.load(Ordering::Relaxed)
        {
            self.ponder_released = Some(Instant::now());
        }
        if let (Some(hard), Some(elapsed)) = (self.limits.budget.hard, self.budget_elapsed())
            && elapsed >= hard
        {
            self.stopped = true;
        }
    }

    /// Static evaluation plus this instance's noise, for the side to move.
    #[inline]
    fn static_eval(&self) -> Value {
        let e = evaluate_with(&self.pos, &self.tuned.eval);
        let n = self.noise.offset(self.pos.key().low_u64());
        if self.pos.turn() == Color::BLACK {
            e + n
        } else {
            e - n
        }
    }

    /// Counts an evaluated leaf, `eval` from the side to move's view.
    #[inline]
    fn count_leaf(&mut self, eval: Value) {
        let sente_to_move = self.pos.turn() == Color::BLACK;
        self.leaves.leaves += 1;
        // Good for sente: above zero with sente to move, at or below zero with gote to move.
        self.leaves.positive += u64::from(if sente_to_move { eval > 0 } else { eval <= 0 });
    }

    /// Runs iterative deepening and returns the ranked result. `report` receives each line.
    pub(crate) fn run(&mut self, report: &mut dyn FnMut(&LineInfo)) -> CoreResult {
        self.start = Instant::now();
        self.was_pondering = self.flags.pondering.load(Ordering::Relaxed);
        self.init_root_moves();
        if self.root_moves.is_empty() {
            return CoreResult {
                best: None,
                value: mated_in(0),
                depth: 0,
                seldepth: 0,
                nodes: 0,
                pv: Vec::new(),
                time: self.elapsed(),
                leaves: self.leaves,
            };
        }
        let multipv = self.limits.multipv.clamp(1, self.root_moves.len());
        let mut completed_depth = 0;
        let mut best_changes = 0u32;
        let mut previous_best = Move32::MOVE_NONE;

        for depth in 1..=self.limits.depth.clamp(1, MAX_PLY - 8) {
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.prev_value = rm.value;
                rm.searched = false;
            }
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                let prev = self.root_moves[pv_idx].prev_value;
                let mut delta: Value = 25;
                let (mut alpha, mut beta) = if depth >= 4 && !is_mate(prev) && prev > -INFINITE {
                    ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    let value = self.root_search(alpha, beta, depth, pv_idx);
                    // Stable sort keeps the previous order among equal (unsearched) moves.
                    self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.value));
                    if self.stopped {
                        break;
                    }
                    if value <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (value - delta).max(-INFINITE);
                    } else if value >= beta {
                        beta = (value + delta).min(INFINITE);
                    } else {
                        break;
                    }
                    delta += delta / 2 + 10;
                    if delta > 1500 {
                        alpha = -INFINITE;
                        beta = INFINITE;
                    }
                }
                if self.stopped {
                    break;
                }
            }
            if !self.stopped {
                // Lines found later may outscore earlier ones: rank the lines, then report them.
                self.root_moves[..multipv].sort_by_key(|rm| std::cmp::Reverse(rm.value));
                for (i, rm) in self.root_moves[..multipv].iter().enumerate() {
                    report(&LineInfo {
                        depth,
                        seldepth: rm.seldepth.max(depth),
                        nodes: self.nodes,
                        time: self.elapsed(),
                        value: rm.value,
                        multipv: i + 1,
                        pv: rm.pv.clone(),
                        hashfull: self.tt.hashfull(),
                    });
                }
            }
            if self.stopped {
                // Moves whose search finished with a better value than the old best still count.
                if completed_depth == 0 || !self.root_moves[0].searched {
                    self.root_moves.sort_by(|a, b| {
                        let av = if a.searched { a.value } else { a.prev_value };
                        let bv = if b.searched { b.value } else { b.prev_value };
                        bv.cmp(&av)
                    });
                }
                break;
            }
            completed_depth = depth;
            let best = self.root_moves[0].mv;
            if best != previous_best {
                best_changes += 1;
                previous_best = best;
            }
            // A forced mate found at this depth will not get shorter by searching deeper.
            let v = self.root_moves[0].value;
            if is_mate(v) && super::value::mate_plies(v).unsigned_abs() as i32 <= depth {
                break;
            }
            if self.root_moves.len() == 1 && depth >= 4 && self.limits.budget.soft.is_some() {
                break;
            }
            if let (Some(soft), Some(elapsed)) = (self.limits.budget.soft, self.budget_elapsed()) {
                // Iterations cost a few times the previous one: stop early rather than waste.
                let unstable = if best_changes > 2 && depth > 6 {
                    1.4
                } else {
                    1.0
                };
                if elapsed.as_secs_f64() > soft.as_secs_f64() * 0.55 * unstable {
                    break;
                }
            }
            if self.flags.stop.load(Ordering::Relaxed) {
                break;
            }
        }
        let best = &self.root_moves[0];
        let value = if best.searched || completed_depth == 0 {
            best.value
        } else {
            best.prev_value
        };
        CoreResult {
            best: Some(best.mv),
            value: if value <= -INFINITE { DRAW } else { value },
            depth: completed_depth.max(1),
            seldepth: best.seldepth,
            nodes: self.nodes,
            pv: best.pv.clone(),
            time: self.elapsed(),
            leaves: self.leaves,
        }
    }

    /// The EBF measurement of models.md section 8 (seed 004, Fig. 4.1): iterative deepening
    /// with the full window `(-inf, inf)` until the frontier count accumulated over the
    /// iterations reaches `nth`; then the count restarts and one search at that depth + 1 runs
    /// with the root window `[0, inf)` (the mover's good lines only). The caller sets
    /// [`CoreLimits::measure`] (no check extensions) and no node or time limit.
    ///
    /// The same counter serves the threshold and the measurement, as in Fig. 4.1 (`&n` of both
    /// calls). Aspiration windows are not used: the figure's loop searches `(-inf, inf)`.
    pub(crate) fn measure_ebf(&mut self, nth: u64) -> EbfRaw {
        // A depth cap far below MAX_PLY: quiescence and mate scores still fit behind it.
        const DEPTH_CAP: i32 = MAX_PLY / 2;
        self.start = Instant::now();
        self.init_root_moves();
        if self.root_moves.is_empty() {
            return EbfRaw::Mate {
                depth: 0,
                frontier: 0,
                value: mated_in(0),
            };
        }
        self.frontier = 0;
        let mut depth = 0;
        let mut value;
        loop {
            depth += 1;
            value = self.full_window_iteration(-INFINITE, INFINITE, depth);
            if is_mate(value) {
                return EbfRaw::Mate {
                    depth,
                    frontier: self.frontier,
                    value,
                };
            }
            if self.frontier >= nth {
                break;
            }
            if depth >= DEPTH_CAP {
                return EbfRaw::TooSmall {
                    depth,
                    frontier: self.frontier,
                    value,
                };
            }
        }
        self.frontier = 0;
        let window_value = self.full_window_iteration(0, INFINITE, depth + 1);
        EbfRaw::Measured {
            depth: depth + 1,
            frontier: self.frontier,
            value,
            window_value,
        }
    }

    /// One iteration over all root moves with a fixed root window, the best move first after.
    fn full_window_iteration(&mut self, alpha: Value, beta: Value, depth: i32) -> Value {
        self.root_depth = depth;
        self.seldepth = 0;
        let value = self.root_search(alpha, beta, depth, 0);
        self.root_moves
            .sort_by_key(|rm| std::cmp::Reverse(rm.value));
        value
    }

    /// Searches only the root moves of `moves` that are legal (all legal moves when none is).
    pub(crate) fn restrict_root(&mut self, moves: Vec<Move>) {
        self.root_filter = Some(moves);
    }

    /// The root moves: every legal move (or those of the root filter), the hash move first.
    fn init_root_moves(&mut self) {
        let mut legal = Move32List::new();
        generate_legal_all_move32(&self.pos, &mut legal);
        let allowed = |mv: &Move32| {
            self.root_filter
                .as_ref()
                .is_none_or(|only| only.contains(&mv.to_move()))
        };
        let restrict = legal.iter().any(allowed) && self.root_filter.is_some();
        self.root_moves = legal
            .iter()
            .filter(|mv| !restrict || allowed(mv))
            .map(|&mv| RootMove {
                mv,
                value: -INFINITE,
                prev_value: -INFINITE,
                searched: false,
                pv: vec![mv.to_move()],
                seldepth: 0,
            })
            .collect();
        // Seed the order with the hash move so the first iteration starts well.
        if let Some(hit) = self.tt.probe(self.pos.key().low_u64(), 0)
            && let Some(i) = self
                .root_moves
                .iter()
                .position(|r| r.mv.to_move() == hit.mv)
        {
            self.root_moves.swap(0, i);
        }
    }

    /// The quiescence search of the root position alone: its value and principal variation
    /// (the captures that settle the position), for fitting the evaluation to quiet positions.
    pub(crate) fn quiescence(&mut self) -> (Value, Vec<Move>) {
        self.start = Instant::now();
        let value = self.qsearch(-INFINITE, INFINITE, 0, 0);
        (value, self.pv[0].clone())
    }

    /// One pass over the root moves from `pv_idx` on (earlier ones are other MultiPV lines).
    fn root_search(&mut self, mut alpha: Value, beta: Value, depth: i32, pv_idx: usize) -> Value {
        let mut best = -INFINITE;
        let in_check = self.pos.is_in_check();
        for i in pv_idx..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            let gives_check = self.pos.gives_check_move32(mv);
            self.nodes += 1;
            self.stack[0].current = mv;
            self.pos.apply_move32_with_gives_check(mv, gives_check);
            let ext = i32::from(gives_check && in_check && !self.limits.measure);
            self.extensions += ext as u64;
            let new_depth = depth - 1 + ext;
            let value = if i == pv_idx {
                -self.search(-beta, -alpha, new_depth, 1, false, true)
            } else {
                let r = if depth >= 3
                    && i >= pv_idx + 4
                    && !gives_check
                    && !is_tactical_root(&self.pos)
                {
                    1
                } else {
                    0
                };
                let mut v = -self.search(-alpha - 1, -alpha, new_depth - r, 1, true, false);
                if v > alpha && r > 0 {
                    v = -self.search(-alpha - 1, -alpha, new_depth, 1, true, false);
                }
                if v > alpha && v < beta {
                    v = -self.search(-beta, -alpha, new_depth, 1, false, true);
                }
                v
            };
            self.undo_move(mv);
            if self.stopped {
                break;
            }
            let seldepth = self.seldepth;
            let rm = &mut self.root_moves[i];
            rm.searched = true;
            if i == pv_idx || value > alpha {
                rm.value = value;
                rm.seldepth = seldepth;
                let mut line = vec![mv.to_move()];
                line.extend_from_slice(&self.pv[1]);
                rm.pv = line;
            } else {
                rm.value = -INFINITE;
            }
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    if value >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    #[allow(clippy::too_many_lines, clippy::too_many_arguments)]
    fn search(
        &mut self,
        mut alpha: Value,
        mut beta: Value,
        depth: i32,
        ply: i32,
        cut_node: bool,
        pv_node: bool,
    ) -> Value {
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, 0);
        }
        let p = ply as usize;
        self.pv[p].clear();
        self.poll();
        if self.stopped {
            return DRAW;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if ply >= MAX_PLY - 2 {
            return self.static_eval();
        }
        // Repetition inside the searched line (or a fourth occurrence across the game).
        match self.pos.cached_repetition_state_with_ply(p) {
            RepetitionState::Draw => return DRAW,
            RepetitionState::Win => return REPETITION_WIN,
            RepetitionState::Lose => return -REPETITION_WIN,
            _ => {}
        }
        // Mate distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }

        let in_check = self.pos.is_in_check();
        let key = self.pos.key().low_u64();
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.map_or(Move32::MOVE_NONE, |h| self.pos.move32_from_move(h.mv));
        if let Some(h) = hit
            && !pv_node
            && h.depth >= depth
            && match h.bound {
                Bound::Exact => true,
                Bound::Lower => h.value >= beta,
                Bound::Upper => h.value <= alpha,
            }
        {
            return h.value;
        }

        // A mate in one ends the node: nothing searches faster or scores higher.
        if !in_check
            && hit.is_none_or(|h| h.value < MATE_IN_MAX)
            && let Some(m) = solve_mate_in_one_in_place(&mut self.pos)
        {
            let v = mate_in(ply + 1);
            let eval = hit.map_or_else(|| self.static_eval(), |h| h.eval);
            self.tt.store(
                key,
                ply,
                m.to_move(),
                v,
                eval,
                depth.max(1) + 4,
                Bound::Exact,
            );
            if pv_node {
                self.pv[p].push(m.to_move());
            }
            return v;
        }

        let static_eval = if in_check {
            -INFINITE
        } else if let Some(h) = hit {
            h.eval
        } else {
            self.static_eval()
        };
        // A usable TT bound refines the static estimate.
        let eval = match hit {
            Some(h) if !in_check && !is_mate(h.value) => match h.bound {
                Bound::Lower if h.value > static_eval => h.value,
                Bound::Upper if h.value < static_eval => h.value,
                Bound::Exact => h.value,
                _ => static_eval,
            },
            _ => static_eval,
        };
        self.stack[p].static_eval = static_eval;
        let improving = !in_check && p >= 2 && static_eval > self.stack[p - 2].static_eval;

        let k = &Tuned::knobs_of(self.tuned);
        if !pv_node && !in_check {
            // Reverse futility: far above beta at low depth, assume the opponent cannot recover.
            if depth <= k.rfp_depth
                && eval - k.rfp_margin * (depth - i32::from(improving)) >= beta
                && eval < MATE_IN_MAX
            {
                return eval;
            }
            // Null move: if passing still fails high, a real move will too.
            // See: chessprogramming wiki "Null Move Pruning" (adaptive R).
            if depth >= k.null_min_depth
                && eval >= beta
                && static_eval >= beta - k.null_static_margin
                && !self.stack[p - 1].null_move
                && beta > -MATE_IN_MAX
                && self.pos.apply_null_move().is_ok()
            {
                let r = k.null_base
                    + depth / k.null_depth_div
                    + ((eval - beta) / k.null_eval_div).min(3);
                self.stack[p].current = Move32::MOVE_NULL;
                self.stack[p].null_move = true;
                let v = -self.search(-beta, -beta + 1, depth - r, ply + 1, !cut_node, false);
                self.stack[p].null_move = false;
                self.pos
                    .undo_null_move()
                    .expect("undo of a null move just played");
                if self.stopped {
                    return DRAW;
                }
                if v >= beta {
                    return if v >= MATE_IN_MAX { beta } else { v };
                }
            }
        }

        // ProbCut: a capture whose shallow search beats beta by a margin would very probably
        // beat beta searched fully. See: chessprogramming wiki "ProbCut"; Stockfish's search.
        let probcut_beta = beta + self.tuned.knobs.probcut_margin;
        if !pv_node
            && !in_check
            && depth >= self.tuned.knobs.probcut_depth
            && beta.abs() < MATE_IN_MAX
            && hit.is_none_or(|h| h.depth < depth - 3 || h.value >= probcut_beta)
        {
            let mut picker = self.take_picker(p);
            picker.reset_quiescence(&self.pos, tt_move);
            while let Some(mv) = picker.next(&self.pos, self.heur) {
                if !self.pos.is_legal_after_pseudo_move32(mv)
                    || !see_ge(&self.pos, mv, probcut_beta - static_eval)
                {
                    continue;
                }
                let gives_check = self.pos.gives_check_move32(mv);
                self.stack[p].current = mv;
                self.nodes += 1;
                self.pos.apply_move32_with_gives_check(mv, gives_check);
                let mut v = -self.qsearch(-probcut_beta, -probcut_beta + 1, ply + 1, 0);
                if v >= probcut_beta {
                    v = -self.search(
                        -probcut_beta,
                        -probcut_beta + 1,
                        depth - 4,
                        ply + 1,
                        !cut_node,
                        false,
                    );
                }
                self.undo_move(mv);
                if self.stopped {
                    self.pickers[p] = Some(picker);
                    return DRAW;
                }
                if v >= probcut_beta {
                    self.pickers[p] = Some(picker);
                    self.tt.store(
                        key,
                        ply,
                        mv.to_move(),
                        v,
                        static_eval,
                        depth - 3,
                        Bound::Lower,
                    );
                    return v;
                }
            }
            self.pickers[p] = Some(picker);
        }

        // Without a hash move a deep node is searched a little shallower (internal reduction).
        let depth = if tt_move == Move32::MOVE_NONE && depth >= 6 && !in_check {
            depth - 1
        } else {
            depth
        };

        let prev_move = if p >= 1 {
            self.stack[p - 1].current
        } else {
            Move32::MOVE_NONE
        };
        let killers = self.heur.killers(p);
        let counter = self.heur.counter(prev_move);
        let cont_rows = [
            Heuristics::cont_row(prev_move),
            if p >= 2 {
                Heuristics::cont_row(self.stack[p - 2].current)
            } else {
                None
            },
        ];
        let mut picker = self.take_picker(p);
        picker.reset(&self.pos, tt_move, killers, counter, cont_rows);
        let mut best_value = -INFINITE;
        let mut best_move = Move32::MOVE_NONE;
        let mut searched = 0usize;
        // Quiet moves tried before the cutoff (history malus), in a buffer kept per ply.
        let mut quiets = std::mem::take(&mut self.quiets[p]);
        quiets.clear();
        let k = &Tuned::knobs_of(self.tuned);
        let lmr = &k.lmr;

        while let Some(mv) = picker.next(&self.pos, self.heur) {
            if !self.pos.is_legal_after_pseudo_move32(mv) {
                continue;
            }
            let tactical = is_tactical(&self.pos, mv);
            let gives_check = self.pos.gives_check_move32(mv);
            let is_killer = mv == killers[0] || mv == killers[1];

            // Shallow pruning of moves unlikely to matter, once something is on the board.
            if best_value > -MATE_IN_MAX && !in_check && ply > 0 {
                if !tactical && !gives_check {
                    let lmp_limit = (3 + depth * depth) / if improving { 1 } else { 2 } + 2;
                    if depth <= k.lmp_depth && searched as i32 >= lmp_limit {
                        continue;
                    }
                    if depth <= k.futility_depth
                        && !is_killer
                        && eval + k.futility_base + k.futility_margin * depth <= alpha
                    {
                        continue;
                    }
                    if depth <= 6 && !see_ge(&self.pos, mv, -k.see_quiet_margin * depth * depth) {
                        continue;
                    }
                } else if tactical
                    && depth <= 6
                    && !see_ge(&self.pos, mv, -k.see_tactical_margin * depth)
                {
                    continue;
                }
            }

            // Check extension for checks that do not lose material, within reason.
            let ext = i32::from(
                gives_check
                    && !self.limits.measure
                    && ply < 2 * self.root_depth
                    && see_ge(&self.pos, mv, 0),
            );
            self.extensions += ext as u64;
            let new_depth = depth - 1 + ext;

            self.stack[p].current = mv;
            self.nodes += 1;
            self.pos.apply_move32_with_gives_check(mv, gives_check);
            let value = if searched == 0 {
                -self.search(
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !pv_node && !cut_node,
                    pv_node,
                )
            } else {
                let mut r = 0;
                if depth >= 3 && searched >= 2 + usize::from(pv_node) && (!tactical || cut_node) {
                    r = lmr[depth.min(63) as usize][searched.min(63)];
                    r += i32::from(!pv_node) + i32::from(cut_node);
                    r -= i32::from(improving) + i32::from(is_killer) + i32::from(gives_check);
                    if !tactical {
                        r -= self.heur.quiet_score(mv, &cont_rows) / 10_000;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut v = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, true, false);
                if v > alpha && r > 0 {
                    v = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node, false);
                }
                if pv_node && v > alpha && v < beta {
                    v = -self.search(-beta, -alpha, new_depth, ply + 1, false, true);
                }
                v
            };
            self.undo_move(mv);
            if self.stopped {
                return DRAW;
            }
            searched += 1;

            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = mv;
                    if pv_node {
                        self.update_pv(p, mv);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
            if !tactical && mv != best_move {
                quiets.push(mv);
            }
        }

        self.pickers[p] = Some(picker);
        if searched == 0 {
            // Shogi has no stalemate: no legal move (checked or not) loses.
            // (Every move being pruned cannot happen: pruning needs a searched move first.)
            return mated_in(ply);
        }

        if best_value >= beta
            && best_move != Move32::MOVE_NONE
            && !is_tactical(&self.pos, best_move)
        {
            let bonus = (depth * depth * 16).min(2000);
            self.heur.update_quiet(best_move, &cont_rows, bonus);
            for &q in &quiets {
                self.heur.update_quiet(q, &cont_rows, -bonus);
            }
            self.heur.store_killer(p, best_move);
            self.heur.store_counter(prev_move, best_move);
        }
        self.quiets[p] = quiets;

        let bound = if best_value >= beta {
            Bound::Lower
        } else if pv_node && best_move != Move32::MOVE_NONE {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let store_eval = if in_check { DRAW } else { static_eval };
        self.tt.store(
            key,
            ply,
            best_move.to_move(),
            best_value,
            store_eval,
            depth,
            bound,
        );
        best_value
    }

    /// Quiescence: only captures and pawn promotions (all evasions in check) until quiet, so
    /// the static evaluation is never taken in the middle of an exchange.
    fn qsearch(&mut self, mut alpha: Value, beta: Value, ply: i32, qply: i32) -> Value {
        if qply == 0 {
            self.frontier += 1;
        }
        let p = ply as usize;
        self.pv[p].clear();
        self.poll();
        if self.stopped {
            return DRAW;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        let in_check = self.pos.is_in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { DRAW } else { self.static_eval() };
        }
        let key = self.pos.key().low_u64();
        let hit = self.tt.probe(key, ply);
        if let Some(h) = hit
            && match h.bound {
                Bound::Exact => true,
                Bound::Lower => h.value >= beta,
                Bound::Upper => h.value <= alpha,
            }
        {
            return h.value;
        }
        let tt_move = hit.map_or(Move32::MOVE_NONE, |h| self.pos.move32_from_move(h.mv));

        let mut best_value;
        let static_eval;
        if in_check {
            best_value = -INFINITE;
            static_eval = DRAW;
        } else {
            static_eval = hit.map_or_else(|| self.static_eval(), |h| h.eval);
            self.count_leaf(static_eval);
            best_value = static_eval;
            if best_value >= beta {
                return best_value;
            }
            // A mate threat the opponent cannot meet is worth more than any exchange.
            if qply == 0
                && let Some(m) = solve_mate_in_one_in_place(&mut self.pos)
            {
                let v = mate_in(ply + 1);
                self.pv[p].push(m.to_move());
                return v;
            }
            alpha = alpha.max(best_value);
        }

        let mut picker = self.take_picker(p);
        picker.reset_quiescence(&self.pos, tt_move);
        let mut best_move = Move32::MOVE_NONE;
        let mut searched = 0;
        while let Some(mv) = picker.next(&self.pos, self.heur) {
            if !self.pos.is_legal_after_pseudo_move32(mv) {
                continue;
            }
            if !in_check {
                // Delta pruning: even winning this piece outright cannot reach alpha.
                let gain = crate::eval::capture_value(self.pos.piece_on(mv.to_sq()).piece_type());
                if static_eval + gain + self.tuned.knobs.qs_delta_margin < alpha
                    && !mv.is_promotion()
                {
                    continue;
                }
                if !see_ge(&self.pos, mv, 0) {
                    continue;
                }
            }
            let gives_check = self.pos.gives_check_move32(mv);
            self.nodes += 1;
            self.pos.apply_move32_with_gives_check(mv, gives_check);
            let value = -self.qsearch(-beta, -alpha, ply + 1, qply + 1);
            self.undo_move(mv);
            if self.stopped {
                return DRAW;
            }
            searched += 1;
            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = mv;
                    self.update_pv(p, mv);
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
        }
        self.pickers[p] = Some(picker);
        if in_check && searched == 0 {
            return mated_in(ply);
        }
        let bound = if best_value >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            ply,
            best_move.to_move(),
            best_value,
            static_eval,
            0,
            bound,
        );
        best_value
    }
}

/// At the root, after the move: was it a capture (the mover's hand grew)? Used only to avoid
/// reducing captures at the root.
fn is_tactical_root(pos: &Position) -> bool {
    !pos.captured_piece().is_empty()
}
