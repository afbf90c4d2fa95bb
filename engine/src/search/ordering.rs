//! Move ordering: try the moves most likely to cause a cutoff first, so alpha-beta prunes.
//!
//! Order: the hash move, captures (and pawn promotions) that do not lose material by
//! MVV-LVA, the two killer moves of the ply and the counter move, quiet moves by history (the
//! move's own, plus how it fared after the previous two moves of the line: continuation
//! history), and last the losing captures. In check every evasion is generated and scored in one go.
//! Invariants: the picker yields pseudo-legal moves, each at most once; the caller checks
//! king safety (`is_legal_after_pseudo_move32`) before playing one.
//! See: chessprogramming wiki "Move Ordering", "MVV-LVA", "Killer Heuristic",
//! "History Heuristic", "Countermove Heuristic"; Stockfish's continuation history.

use super::see::see_ge;
use super::value::MAX_PLY;
use crate::eval::capture_value;
use rsshogi::board::{
    CapturePlusPro, Legal, Move32List, Position, QuietsProMinus, generate_moves_move32,
};
use rsshogi::types::{Move32, Piece};

const PIECE_TO: usize = Piece::COUNT * 81;
/// History values saturate here (the "gravity" update keeps them inside).
pub(crate) const HISTORY_MAX: i32 = 16_384;

/// Search statistics shared by all nodes of one engine; kept between moves of a game.
pub(crate) struct Heuristics {
    /// Quiet-move success by (moved piece after the move, destination).
    history: Vec<i32>,
    killers: Vec<[Move32; 2]>,
    /// Best reply to the previous move, indexed by that move's (piece, destination).
    counter: Vec<Move32>,
    /// Quiet-move success after an earlier move of the line (one and two plies back): indexed
    /// by that move's (piece, destination) times `PIECE_TO` plus this move's.
    continuation: Vec<i16>,
}

/// Where an earlier move's row of the continuation history starts; `None` for no move (root,
/// null move), whose row is not kept.
pub(crate) type ContRow = Option<usize>;

/// The continuation rows of a node: after the opponent's last move, and after our own before it.
pub(crate) type ContRows = [ContRow; 2];

impl Heuristics {
    pub(crate) fn new() -> Self {
        Self {
            history: vec![0; PIECE_TO],
            killers: vec![[Move32::MOVE_NONE; 2]; MAX_PLY as usize + 8],
            counter: vec![Move32::MOVE_NONE; PIECE_TO],
            continuation: vec![0; PIECE_TO * PIECE_TO],
        }
    }

    pub(crate) fn clear(&mut self) {
        self.history.fill(0);
        self.counter.fill(Move32::MOVE_NONE);
        self.continuation.fill(0);
        self.clear_killers();
    }

    pub(crate) fn clear_killers(&mut self) {
        self.killers.fill([Move32::MOVE_NONE; 2]);
    }

    /// Age the history between searches so old lessons weigh less.
    pub(crate) fn age(&mut self) {
        for h in &mut self.history {
            *h /= 2;
        }
    }

    #[inline]
    fn index(mv: Move32) -> usize {
        mv.piece_after_move().to_index() * 81 + mv.to_sq().to_index()
    }

    /// The continuation row of `mv` played earlier in the line.
    #[inline]
    pub(crate) fn cont_row(mv: Move32) -> ContRow {
        (mv.is_normal() && mv.has_piece_info()).then(|| Self::index(mv) * PIECE_TO)
    }

    /// How promising quiet move `mv` looks: its history plus its continuation histories.
    #[inline]
    pub(crate) fn quiet_score(&self, mv: Move32, rows: &ContRows) -> i32 {
        let i = Self::index(mv);
        let mut s = self.history[i];
        for row in rows.iter().flatten() {
            s += i32::from(self.continuation[row + i]);
        }
        s
    }

    /// Bonus (or malus when negative) to quiet move `mv` and its continuations, with gravity so
    /// values stay within `±HISTORY_MAX`.
    /// See: chessprogramming wiki "History Heuristic" (history gravity).
    #[inline]
    pub(crate) fn update_quiet(&mut self, mv: Move32, rows: &ContRows, bonus: i32) {
        let i = Self::index(mv);
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        self.history[i] = gravity(self.history[i], bonus);
        for row in rows.iter().flatten() {
            let c = &mut self.continuation[row + i];
            *c = gravity(i32::from(*c), bonus) as i16;
        }
    }

    pub(crate) fn killers(&self, ply: usize) -> [Move32; 2] {
        self.killers[ply]
    }

    pub(crate) fn store_killer(&mut self, ply: usize, mv: Move32) {
        let k = &mut self.killers[ply];
        if k[0] != mv {
            k[1] = k[0];
            k[0] = mv;
        }
    }

    pub(crate) fn counter(&self, prev: Move32) -> Move32 {
        if prev.is_normal() && prev.has_piece_info() {
            self.counter[Self::index(prev)]
        } else {
            Move32::MOVE_NONE
        }
    }

    pub(crate) fn store_counter(&mut self, prev: Move32, mv: Move32) {
        if prev.is_normal() && prev.has_piece_info() {
            self.counter[Self::index(prev)] = mv;
        }
    }
}

/// `value` moved by `bonus` (within `±HISTORY_MAX`), less the more it already leans that way,
/// so that it stays within `±HISTORY_MAX`.
#[inline]
fn gravity(value: i32, bonus: i32) -> i32 {
    value + bonus - value * bonus.abs() / HISTORY_MAX
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    HashMove,
    GenCaptures,
    GoodCaptures,
    Killer1,
    Killer2,
    Counter,
    GenQuiets,
    Quiets,
    BadCaptures,
    GenEvasions,
    Evasions,
    Done,
}

/// A scored list with selection-sort picking (cheap when a cutoff comes early).
struct Scored {
    moves: Move32List,
    scores: Vec<i32>,
    next: usize,
    /// Buffers of `partial_sort`, kept to avoid allocating at every node.
    keys: Vec<u64>,
    rest: Vec<u32>,
    sorted_moves: Vec<Move32>,
    sorted_scores: Vec<i32>,
}

impl Scored {
    fn new() -> Self {
        Self {
            moves: Move32List::new(),
            scores: Vec::new(),
            next: 0,
            keys: Vec::new(),
            rest: Vec::new(),
            sorted_moves: Vec::new(),
            sorted_scores: Vec::new(),
        }
    }

    /// Sorts, best first, the moves scoring at least `limit` (and the first move, whatever its
    /// score); the rest follow. The order is exactly that of Stockfish's
    /// `partial_insertion_sort` (movepick.cpp), computed in O(n log n) rather than by insertion:
    /// shogi nodes have hundreds of quiet moves (drops), where insertion sort was a tenth of the
    /// search's time. The rest come out as the insertion sort leaves them: each move that
    /// joins the sorted part pushes the first of the unsorted moves to the back.
    fn partial_sort(&mut self, limit: i32) {
        let n = self.moves.len();
        if n < 2 {
            return;
        }
        let scores = &self.scores;
        // Sort keys: the score, descending, then the position (a stable order).
        let keys = &mut self.keys;
        keys.clear();
        let rest = &mut self.rest;
        rest.clear();
        let mut head = 0;
        let key =
            |score: i32, i: usize| (u64::from(!((score as u32) ^ 0x8000_0000)) << 32) | i as u64;
        keys.push(key(scores[0], 0));
        for (p, &score) in scores.iter().enumerate().take(n).skip(1) {
            if score >= limit {
                keys.push(key(score, p));
                if head < rest.len() {
                    let front = rest[head];
                    head += 1;
                    rest.push(front);
                }
            } else {
                rest.push(p as u32);
            }
        }
        keys.sort_unstable();
        let moves = self.moves.as_slice();
        self.sorted_moves.clear();
        self.sorted_scores.clear();
        for &k in keys.iter() {
            let i = (k & 0xffff_ffff) as usize;
            self.sorted_moves.push(moves[i]);
            self.sorted_scores.push(scores[i]);
        }
        for &i in &rest[head..] {
            self.sorted_moves.push(moves[i as usize]);
            self.sorted_scores.push(scores[i as usize]);
        }
        let out = self.moves.as_mut_slice();
        out.copy_from_slice(&self.sorted_moves);
        self.scores.copy_from_slice(&self.sorted_scores);
    }

    /// The next move in list order (after `partial_sort`).
    fn next_in_order(&mut self) -> Option<Move32> {
        let mv = self.moves.as_slice().get(self.next).copied();
        self.next += 1;
        mv
    }

    fn pick_best(&mut self) -> Option<(Move32, i32)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        let slice = self.moves.as_mut_slice();
        slice.swap(self.next, best);
        self.scores.swap(self.next, best);
        let out = (slice[self.next], self.scores[self.next]);
        self.next += 1;
        Some(out)
    }
}

/// Yields the moves of a node in the order described in the module doc.
pub(crate) struct MovePicker {
    stage: Stage,
    hash_move: Move32,
    killers: [Move32; 2],
    counter: Move32,
    cont_rows: ContRows,
    list: Scored,
    bad: Vec<Move32>,
    bad_next: usize,
    /// Quiescence: captures and pawn promotions only (plus evasions in check).
    captures_only: bool,
}

/// MVV-LVA: the most valuable victim first, the least valuable attacker breaking ties.
#[inline]
fn mvv_lva(pos: &Position, mv: Move32) -> i32 {
    let victim = capture_value(pos.piece_on(mv.to_sq()).piece_type());
    let attacker = mv.piece_after_move().piece_type().raw() as i32;
    let promo = if mv.is_promotion() { 300 } else { 0 };
    victim * 8 - attacker + promo
}

impl MovePicker {
    /// An idle picker whose buffers a search keeps per ply and [`reset`](Self::reset)s at each
    /// node, so that move lists are not allocated (or copied) node after node.
    pub(crate) fn empty() -> Self {
        Self {
            stage: Stage::Done,
            hash_move: Move32::MOVE_NONE,
            killers: [Move32::MOVE_NONE; 2],
            counter: Move32::MOVE_NONE,
            cont_rows: [None; 2],
            list: Scored::new(),
            bad: Vec::new(),
            bad_next: 0,
            captures_only: false,
        }
    }

    /// Starts yielding the moves of `pos` (all of them, in the order of the module doc).
    pub(crate) fn reset(
        &mut self,
        pos: &Position,
        hash_move: Move32,
        killers: [Move32; 2],
        counter: Move32,
        cont_rows: ContRows,
    ) {
        let in_check = pos.is_in_check();
        let hash_move =
            if hash_move != Move32::MOVE_NONE && pos.is_pseudo_legal_move32(hash_move, true) {
                hash_move
            } else {
                Move32::MOVE_NONE
            };
        self.stage = if hash_move != Move32::MOVE_NONE {
            Stage::HashMove
        } else if in_check {
            Stage::GenEvasions
        } else {
            Stage::GenCaptures
        };
        self.hash_move = hash_move;
        self.killers = killers;
        self.counter = counter;
        self.cont_rows = cont_rows;
        self.list.moves.clear();
        self.list.scores.clear();
        self.list.next = 0;
        self.bad.clear();
        self.bad_next = 0;
        self.captures_only = false;
    }

    /// Quiescence search: captures and promotions, or all evasions when in check.
    pub(crate) fn reset_quiescence(&mut self, pos: &Position, hash_move: Move32) {
        self.reset(
            pos,
            hash_move,
            [Move32::MOVE_NONE; 2],
            Move32::MOVE_NONE,
            [None; 2],
        );
        self.captures_only = true;
        // In quiescence only a tactical hash move is worth trying out of turn.
        if !pos.is_in_check()
            && self.hash_move != Move32::MOVE_NONE
            && !is_tactical(pos, self.hash_move)
        {
            self.hash_move = Move32::MOVE_NONE;
            self.stage = Stage::GenCaptures;
        }
    }

    /// True for a killer or counter move that may be played here.
    fn usable_quiet(&self, pos: &Position, mv: Move32) -> bool {
        mv != Move32::MOVE_NONE
            && mv != self.hash_move
            && pos.is_pseudo_legal_move32(mv, false)
            && !is_tactical(pos, mv)
    }

    pub(crate) fn next(&mut self, pos: &Position, heur: &Heuristics) -> Option<Move32> {
        loop {
            match self.stage {
                Stage::HashMove => {
                    self.stage = if pos.is_in_check() {
                        Stage::GenEvasions
                    } else {
                        Stage::GenCaptures
                    };
                    return Some(self.hash_move);
                }
                Stage::GenCaptures => {
                    generate_moves_move32::<CapturePlusPro>(pos, &mut self.list.moves);
                    self.list.scores.clear();
                    self.list.next = 0;
                    for &mv in self.list.moves.iter() {
                        self.list.scores.push(mvv_lva(pos, mv));
                    }
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => {
                    while let Some((mv, _)) = self.list.pick_best() {
                        if mv == self.hash_move {
                            continue;
                        }
                        if see_ge(pos, mv, 0) {
                            return Some(mv);
                        }
                        self.bad.push(mv);
                    }
                    self.stage = if self.captures_only {
                        Stage::Done
                    } else {
                        Stage::Killer1
                    };
                }
                Stage::Killer1 => {
                    self.stage = Stage::Killer2;
                    let k = self.killers[0];
                    if self.usable_quiet(pos, k) {
                        return Some(k);
                    }
                }
                Stage::Killer2 => {
                    self.stage = Stage::Counter;
                    let k = self.killers[1];
                    if k != self.killers[0] && self.usable_quiet(pos, k) {
                        return Some(k);
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::GenQuiets;
                    let c = self.counter;
                    if c != self.killers[0] && c != self.killers[1] && self.usable_quiet(pos, c) {
                        return Some(c);
                    }
                }
                Stage::GenQuiets => {
                    generate_moves_move32::<QuietsProMinus>(pos, &mut self.list.moves);
                    self.list.scores.clear();
                    self.list.next = 0;
                    for &mv in self.list.moves.iter() {
                        self.list.scores.push(heur.quiet_score(mv, &self.cont_rows));
                    }
                    self.list.partial_sort(-HISTORY_MAX / 8);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    while let Some(mv) = self.list.next_in_order() {
                        if mv == self.hash_move
                            || mv == self.killers[0]
                            || mv == self.killers[1]
                            || mv == self.counter
                        {
                            continue;
                        }
                        return Some(mv);
                    }
                    self.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if self.bad_next < self.bad.len() {
                        self.bad_next += 1;
                        return Some(self.bad[self.bad_next - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    generate_moves_move32::<Legal>(pos, &mut self.list.moves);
                    self.list.scores.clear();
                    self.list.next = 0;
                    for &mv in self.list.moves.iter() {
                        let score = if pos.piece_on(mv.to_sq()) != Piece::NONE {
                            1_000_000 + mvv_lva(pos, mv)
                        } else {
                            heur.quiet_score(mv, &self.cont_rows)
                        };
                        self.list.scores.push(score);
                    }
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions => {
                    while let Some((mv, _)) = self.list.pick_best() {
                        if mv == self.hash_move {
                            continue;
                        }
                        return Some(mv);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

/// Captures and pawn promotions: the moves quiescence looks at and history does not score.
#[inline]
pub(crate) fn is_tactical(pos: &Position, mv: Move32) -> bool {
    pos.piece_on(mv.to_sq()) != Piece::NONE
        || (mv.is_promotion()
            && mv.piece_after_move().piece_type() == rsshogi::types::PieceType::PRO_PAWN)
}
