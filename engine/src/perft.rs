//! perft: count the leaf nodes of the legal-move tree to a fixed depth.
//!
//! The standard check of a move generator: the counts are compared with published values and
//! with an independent library (tests/perft.rs). Every legal move counts, including every legal
//! non-promotion; the last ply counts the legal-move list, which holds legal moves only.
//! Runs on the facade's inner rsshogi position with reused move buffers, so it also measures
//! what our make/unmake costs.

use crate::position::Position;
use crate::types::Move;
use rsshogi::board::{Move32List, Position as RsPosition};

/// The number of legal move sequences of length `depth` from `pos` (1 for depth 0).
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut raw = pos.raw().clone();
    let mut buffers = buffers(depth);
    count(&mut raw, depth, &mut buffers)
}

/// For each legal move, the perft count of depth `depth - 1` below it (depth 0 gives none).
/// Sorted by the move's USI text, so runs are comparable line by line.
#[must_use]
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut raw = pos.raw().clone();
    let mut root = Move32List::new();
    rsshogi::movegen::generate_legal_all_move32(&raw, &mut root);
    let mut buffers = buffers(depth - 1);
    let mut out: Vec<(Move, u64)> = root
        .iter()
        .map(|&m| {
            raw.apply_move32(m);
            let n = count(&mut raw, depth - 1, &mut buffers);
            undo(&mut raw, m);
            (Move::from_rs(m.to_move()), n)
        })
        .collect();
    out.sort_by_key(|(m, _)| m.to_usi());
    out
}

fn buffers(depth: u32) -> Vec<Move32List> {
    (0..depth).map(|_| Move32List::new()).collect()
}

fn count(raw: &mut RsPosition, depth: u32, buffers: &mut [Move32List]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some((list, deeper)) = buffers.split_last_mut() else {
        unreachable!("one buffer per remaining ply")
    };
    list.clear();
    rsshogi::movegen::generate_legal_all_move32(raw, list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &m in list.iter() {
        raw.apply_move32(m);
        nodes += count(raw, depth - 1, deeper);
        undo(raw, m);
    }
    nodes
}

fn undo(raw: &mut RsPosition, m: rsshogi::types::Move32) {
    if let Err(e) = raw.undo_move32(m) {
        unreachable!("undo of the move just applied failed: {e:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_shallow_counts_and_divide_sum() {
        let p = Position::startpos();
        assert_eq!(perft(&p, 0), 1);
        assert_eq!(perft(&p, 1), 30);
        assert_eq!(perft(&p, 2), 900);
        let split = divide(&p, 2);
        assert_eq!(split.len(), 30);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 900);
        assert!(split.windows(2).all(|w| w[0].0.to_usi() < w[1].0.to_usi()));
        assert!(divide(&p, 0).is_empty());
    }
}
