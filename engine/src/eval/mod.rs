//! Hand-crafted static evaluation in centipawns, from the side to move's point of view.
//!
//! Why hand-crafted: the council needs engines whose strength we control and understand; no
//! learned weights ship with the project. The terms are the classic ones for shogi programs
//! before neural evaluation: material with promoted values, a premium for pieces in hand
//! (they can be dropped anywhere), piece-square terms, slider mobility, and king safety
//! measured from the attackers and defenders around each king and the attacker's hand.
//!
//! Invariants: the result is symmetric (a position and its colour-flipped mirror evaluate to
//! the same number for the side to move), deterministic, and bounded well inside the mate
//! range of the search (`|eval| < 20_000`). Evaluation noise, the strength control of the
//! council model, lives in [`noise`]: it is a pure function of (position key, seed).
//!
//! See: chessprogramming wiki "Evaluation", "King Safety" (attack units), "Mobility";
//! Bonanza-era piece values as collected on the chessprogramming wiki "Shogi" page.

pub mod noise;

use rsshogi::board::attack_tables::{bishop_attacks, lance_attacks, rook_attacks};
use rsshogi::board::{
    Bitboard, GOLD_ATTACKS, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, Position, SILVER_ATTACKS,
};
use rsshogi::types::{Color, HandPiece, Piece, PieceType, Square};
use std::sync::OnceLock;

/// The evaluation's bound: static scores never reach it, so they never look like mates.
pub(crate) const EVAL_LIMIT: i32 = 20_000;

/// Value of a piece on the board, indexed by `PieceType::raw()` (0 = none, 8 = king).
pub(crate) const BOARD_VALUE: [i32; 16] = [
    0, 90, 315, 405, 495, 855, 990, 540, 0, // none P L N S B R G K
    540, 540, 540, 540, 945, 1395, 0, // +P +L +N +S H D (gold-like unused)
];

/// Value of a piece in hand, indexed by `HandPiece::to_index()` (P L N S B R G).
/// Higher than on the board: a piece in hand can be dropped wherever it is needed.
pub(crate) const HAND_VALUE: [i32; 7] = [105, 350, 440, 560, 960, 1110, 610];

/// Value used by exchange evaluation (SEE, MVV-LVA): what capturing this piece gains.
/// A captured piece changes sides, so the swing is board value plus the captor's hand value.
#[must_use]
pub(crate) fn capture_value(pt: PieceType) -> i32 {
    let raw = pt.raw();
    if !(1..=14).contains(&raw) || raw == 8 {
        return 0;
    }
    let base = pt.demote();
    let hand = HandPiece::from_piece_type(base).map_or(0, |hp| HAND_VALUE[hp.to_index()]);
    BOARD_VALUE[raw as usize] + hand
}

/// A side to move's small initiative bonus (shogi is a race; the move is worth something).
const TEMPO: i32 = 25;

/// Attack weight of an enemy piece bearing on the king zone, by `PieceType::raw()`.
const ATTACK_WEIGHT: [i32; 16] = [0, 1, 2, 3, 3, 4, 5, 3, 0, 3, 3, 3, 3, 5, 6, 0];
/// How much an enemy piece in hand adds to the danger around our king, by hand index.
const HAND_DANGER: [i32; 7] = [1, 2, 2, 3, 3, 4, 3];
/// How much a defender (gold, silver, promoted minor) next to the king is worth.
const DEFENDER_BONUS: i32 = 28;

/// Lookup tables built once: piece-square terms and the 5x5 king neighbourhood.
struct Tables {
    /// `pst[pt][sq]` from Sente's point of view (Gote looks up the flipped square).
    pst: [[i32; 81]; 16],
    /// Squares at Chebyshev distance <= 2 from each square.
    zone2: [Bitboard; 81],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(build_tables)
}

#[allow(clippy::needless_range_loop)] // indices are squares and piece types, not positions in a list
fn build_tables() -> Tables {
    let mut pst = [[0; 81]; 16];
    for raw in 0..81usize {
        let sq = Square::from_index(raw);
        // Sente's view: rank index 0 is the far (enemy) rank, 8 our back rank.
        let rank = i32::from(sq.rank().raw());
        let file = i32::from(sq.file().raw());
        let centre = 4 - (file - 4).abs(); // 0 at the edges, 4 in the centre file
        let advance = 8 - rank; // 0 on our back rank, 8 on the enemy's
        for raw_pt in 1..15usize {
            let value = match raw_pt {
                // Pawn: a little credit for advancing, especially in the centre.
                1 => advance.min(5) * 3 + if advance >= 3 { centre * 2 } else { 0 },
                // Lance: best kept back where it guards the file.
                2 => -advance * 2,
                // Knight: stuck on the back rank early; too far forward it is lost.
                3 => match advance {
                    0 => -10,
                    1..=4 => 8 + centre * 2,
                    _ => 0,
                },
                // Silver: active in the middle ranks.
                4 => (if (2..=5).contains(&advance) { 12 } else { 0 }) + centre * 3,
                // Gold: a defender; it belongs near our own king.
                7 => (if advance <= 2 { 12 } else { -(advance - 2) * 6 }) + centre * 2,
                // Promoted minors: the further in the better (they attack the king).
                9..=12 => advance * 4,
                // King: on the back ranks and off the centre file.
                8 => {
                    let rank_term = match advance {
                        0 => 40,
                        1 => 30,
                        2 => 5,
                        _ => -20 - advance * 6,
                    };
                    rank_term - centre * 8
                }
                _ => 0,
            };
            pst[raw_pt][raw] = value;
        }
    }
    let mut zone2 = [Bitboard::EMPTY; 81];
    for (raw, zone) in zone2.iter_mut().enumerate() {
        let sq = Square::from_index(raw);
        let mut near = KING_ATTACKS[sq] | Bitboard::from_square(sq);
        let mut wide = near;
        while let Some(s) = near.pop_lsb() {
            wide |= KING_ATTACKS[s];
        }
        *zone = wide;
    }
    Tables { pst, zone2 }
}

/// The squares a piece attacks from `sq`.
#[inline]
fn attacks_of(pt: PieceType, sq: Square, color: Color, occupied: Bitboard) -> Bitboard {
    let c = color.to_index();
    match pt.raw() {
        1 => PAWN_ATTACKS[sq][c],
        2 => lance_attacks(sq, occupied, color),
        3 => KNIGHT_ATTACKS[sq][c],
        4 => SILVER_ATTACKS[sq][c],
        5 => bishop_attacks(sq, occupied),
        6 => rook_attacks(sq, occupied),
        7 | 9..=12 => GOLD_ATTACKS[sq][c],
        8 => KING_ATTACKS[sq],
        13 => bishop_attacks(sq, occupied) | KING_ATTACKS[sq],
        14 => rook_attacks(sq, occupied) | KING_ATTACKS[sq],
        _ => Bitboard::EMPTY,
    }
}

/// Mobility weight per attacked square for sliders, by `PieceType::raw()`.
#[inline]
fn mobility_weight(pt: PieceType) -> i32 {
    match pt.raw() {
        2 => 2,
        5 => 5,
        6 => 4,
        13 => 4,
        14 => 3,
        _ => 0,
    }
}

/// Static evaluation of `pos` for the side to move, in centipawns (no noise, no search).
#[must_use]
pub fn evaluate(pos: &crate::position::Position) -> i32 {
    evaluate_raw(pos.raw())
}

/// [`evaluate`] on the inner rsshogi position, for the search.
#[must_use]
pub(crate) fn evaluate_raw(pos: &Position) -> i32 {
    let sente = evaluate_sente(pos);
    let stm = if pos.turn() == Color::BLACK {
        sente
    } else {
        -sente
    };
    (stm + TEMPO).clamp(-EVAL_LIMIT + 1, EVAL_LIMIT - 1)
}

/// Per-colour accumulators for one evaluation pass.
#[derive(Default)]
struct Side {
    score: i32,
    /// Weighted attacks on the enemy king's 3x3 zone.
    attack_units: i32,
    /// Number of pieces bearing on the enemy king zone.
    attackers: i32,
    /// Own pieces defending squares next to our king.
    defence: i32,
    /// Squares of the enemy king zone we attack (to count the king's free squares).
    zone_attacks: Bitboard,
}

/// Evaluation from Sente's point of view.
fn evaluate_sente(pos: &Position) -> i32 {
    let t = tables();
    let bb = pos.bitboards();
    let occupied = bb.occupied();
    let kings = [pos.king_square(Color::BLACK), pos.king_square(Color::WHITE)];
    let zones: [Bitboard; 2] = [king_zone(kings[0]), king_zone(kings[1])];
    let mut sides = [Side::default(), Side::default()];

    let mut pieces = occupied;
    while let Some(sq) = pieces.pop_lsb() {
        let piece: Piece = pos.piece_on(sq);
        let pt = piece.piece_type();
        let color = piece.color();
        let us = color.to_index();
        let them = 1 - us;
        let rel = if color == Color::BLACK { sq } else { sq.flip() };
        let side = &mut sides[us];
        side.score += BOARD_VALUE[pt.raw() as usize] + t.pst[pt.raw() as usize][rel.to_index()];
        if pt == PieceType::KING {
            continue;
        }
        let attacks = attacks_of(pt, sq, color, occupied);
        let weight = mobility_weight(pt);
        if weight != 0 {
            side.score += weight * attacks.and_not(bb.color_pieces(color)).count() as i32;
        }
        let on_enemy_zone = attacks & zones[them];
        if on_enemy_zone.any() {
            side.attackers += 1;
            side.attack_units += ATTACK_WEIGHT[pt.raw() as usize] * on_enemy_zone.count() as i32;
            side.zone_attacks |= on_enemy_zone;
        }
        // Proximity: enemy pieces inside the wider 5x5 area around the king count too.
        if !kings[them].is_none() && t.zone2[kings[them].to_index()].test(sq) {
            side.attack_units += ATTACK_WEIGHT[pt.raw() as usize];
        }
        if !kings[us].is_none() && KING_ATTACKS[kings[us]].test(sq) {
            let defender = matches!(pt.raw(), 4 | 7 | 9..=12);
            if defender {
                side.defence += 1;
            }
        }
    }

    for color in [Color::BLACK, Color::WHITE] {
        let us = color.to_index();
        let hand = pos.hand(color);
        let mut hand_value = 0;
        let mut hand_danger = 0;
        for hp in HandPiece::iter() {
            let n = hand.count(hp) as i32;
            if n == 0 {
                continue;
            }
            // Diminishing value for many pawns in hand; the first ones matter most.
            hand_value += if hp == HandPiece::PAWN {
                HAND_VALUE[0] * n.min(4) + (HAND_VALUE[0] * 3 / 4) * (n - 4).max(0)
            } else {
                HAND_VALUE[hp.to_index()] * n
            };
            hand_danger += HAND_DANGER[hp.to_index()] * n.min(2);
        }
        sides[us].score += hand_value;
        // Hand pieces make an attack on the enemy king dangerous: they can be dropped in.
        sides[us].attack_units += hand_danger;
    }

    let mut king_safety = [0i32; 2];
    for color in [Color::BLACK, Color::WHITE] {
        let us = color.to_index();
        let them = 1 - us;
        let king = kings[us];
        if king.is_none() {
            continue;
        }
        let enemy = &sides[them];
        // Free squares: neighbours neither attacked by the enemy nor blocked by our own men.
        let free = KING_ATTACKS[king]
            .and_not(enemy.zone_attacks)
            .and_not(bb.color_pieces(color))
            .count() as i32;
        let mut danger =
            enemy.attack_units * 2 + enemy.attackers * 6 - sides[us].defence * 4 - free * 3;
        if enemy.attackers == 0 {
            danger /= 3;
        }
        let danger = danger.max(0);
        // Quadratic in the danger: a lone attacker is harmless, a coordinated attack is not.
        // See: chessprogramming wiki "King Safety", attack units and the SafetyTable.
        let penalty = (danger * danger / 12).min(2000);
        king_safety[us] = -penalty + sides[us].defence * DEFENDER_BONUS;
    }

    (sides[0].score + king_safety[0]) - (sides[1].score + king_safety[1])
}

/// The 3x3 zone around a king (empty when there is no king, e.g. tsume problems).
#[inline]
fn king_zone(king: Square) -> Bitboard {
    if king.is_none() {
        Bitboard::EMPTY
    } else {
        KING_ATTACKS[king] | Bitboard::from_square(king)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsshogi::board::position_from_sfen;

    fn eval_sfen(sfen: &str) -> i32 {
        let pos = position_from_sfen(sfen).expect("test sfen");
        evaluate_raw(&pos)
    }

    #[test]
    fn startpos_is_near_balanced() {
        let e = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(e.abs() < 100, "startpos eval {e}");
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let sfens = [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
        ];
        for sfen in sfens {
            let pos = position_from_sfen(sfen).expect("sfen");
            let flipped = pos.to_flipped();
            assert_eq!(evaluate_raw(&pos), evaluate_raw(&flipped), "{sfen}");
        }
    }

    #[test]
    fn extra_material_is_better() {
        // Sente has an extra rook in hand.
        let more = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1");
        let even = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(more > even + 800, "{more} vs {even}");
    }

    #[test]
    fn promoted_pieces_are_worth_more() {
        assert!(BOARD_VALUE[PieceType::DRAGON.raw() as usize] > BOARD_VALUE[6]);
        assert!(BOARD_VALUE[PieceType::PRO_PAWN.raw() as usize] > BOARD_VALUE[1]);
    }

    #[test]
    fn attacked_king_is_worse_than_safe_king() {
        // Same material: Gote's gold far away in the corner, or two squares from Sente's king.
        let safe = eval_sfen("g3k4/9/9/9/9/9/9/9/4K4 b 2r2b3g4s4n4l18p 1");
        let attacked = eval_sfen("4k4/9/9/9/9/9/4g4/9/4K4 b 2r2b3g4s4n4l18p 1");
        assert!(safe > attacked, "{safe} vs {attacked}");
    }
}
