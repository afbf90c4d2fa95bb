//! Static exchange evaluation: does a move win at least `threshold` once every piece that
//! bears on the destination has captured there, least valuable first?
//!
//! Used to order captures (losing ones last) and to prune moves that hang material. Values are
//! the swing of a capture in shogi (board value plus the value the piece gains in hand).
//! Promotions during the exchange and pins are ignored: it is an estimate.
//! See: chessprogramming wiki "Static Exchange Evaluation" (the swap algorithm), and
//! Stockfish's `Position::see_ge` for the threshold form.

use crate::eval::capture_value;
use rsshogi::board::Position;
use rsshogi::types::{Bitboard, Color, Move32, PieceType};

/// Attackers cheapest first: the order pieces join an exchange.
const LVA_ORDER: [PieceType; 14] = [
    PieceType::PAWN,
    PieceType::LANCE,
    PieceType::KNIGHT,
    PieceType::PRO_PAWN,
    PieceType::PRO_LANCE,
    PieceType::PRO_KNIGHT,
    PieceType::SILVER,
    PieceType::PRO_SILVER,
    PieceType::GOLD,
    PieceType::BISHOP,
    PieceType::ROOK,
    PieceType::HORSE,
    PieceType::DRAGON,
    PieceType::KING,
];

/// True when `mv` (pseudo-legal in `pos`) wins at least `threshold` in the exchange.
pub(crate) fn see_ge(pos: &Position, mv: Move32, threshold: i32) -> bool {
    let to = mv.to_sq();
    let captured = pos.piece_on(to);
    let moved = mv.piece_after_move().piece_type();
    let mut swap = capture_value(captured.piece_type()) - threshold;
    if mv.is_promotion() {
        swap += capture_value(moved) - capture_value(moved.demote());
    }
    if swap < 0 {
        return false;
    }
    swap = capture_value(moved) - swap;
    if swap <= 0 {
        return true;
    }
    let bb = pos.bitboards();
    let mut occupied = bb.occupied();
    if !mv.is_drop() {
        occupied.clear(mv.from_sq());
    }
    occupied.set(to);
    let mut stm: Color = pos.turn();
    let mut attackers = pos.attackers_to(to, occupied) & occupied;
    let mut res = true;
    loop {
        stm = stm.flip();
        attackers &= occupied;
        let stm_attackers = attackers & bb.color_pieces(stm);
        if stm_attackers.is_empty() {
            break;
        }
        res = !res;
        let Some((pt, from_bb)) = least_valuable(pos, stm_attackers, stm) else {
            break;
        };
        if pt == PieceType::KING {
            // The king may only take last: if the other side still attacks, it cannot.
            let others = attackers & bb.color_pieces(stm.flip());
            return if others.any() { !res } else { res };
        }
        swap = capture_value(pt) - swap;
        if swap < i32::from(res) {
            break;
        }
        if let Some(sq) = from_bb.lsb() {
            occupied.clear(sq);
        }
        // Recompute so that sliders behind the piece that just moved join in (x-rays).
        attackers = pos.attackers_to(to, occupied) & occupied;
    }
    res
}

fn least_valuable(
    pos: &Position,
    attackers: Bitboard,
    color: Color,
) -> Option<(PieceType, Bitboard)> {
    let bb = pos.bitboards();
    LVA_ORDER.iter().find_map(|&pt| {
        let hit = attackers & bb.pieces_for(pt, color);
        hit.any().then_some((pt, hit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsshogi::board::position_from_sfen;

    fn mv(pos: &Position, usi: &str) -> Move32 {
        pos.move32_from_usi(usi).expect("legal test move")
    }

    #[test]
    fn free_capture_wins_and_defended_capture_loses() {
        // Sente rook on 5h can take a pawn on 5d that Gote's gold on 4c defends.
        let pos = position_from_sfen("4k4/9/5g3/4p4/9/9/9/4R4/4K4 b - 1").expect("sfen");
        let take = mv(&pos, "5h5d");
        assert!(!see_ge(&pos, take, 0), "rook takes a defended pawn");
        // An undefended gold: 5e taken by the rook on 5h with the file open.
        let pos = position_from_sfen("4k4/9/9/9/4g4/9/9/4R4/4K4 b - 1").expect("sfen");
        let take = mv(&pos, "5h5e");
        assert!(see_ge(&pos, take, 0));
        assert!(see_ge(&pos, take, 500));
    }
}
