//! The evaluation's terms as numbered features: one walk over the position reports each term
//! (feature index and count) to a [`Sink`]. The engine's sink multiplies by the weights as it
//! goes; the tuner's sink records the features so that weights can be fitted to game results.
//! Both use the same walk, so what is tuned is exactly what is played.
//!
//! Two kinds of feature: *linear* ones add `weight * count` to their side's score; *danger*
//! ones add to the danger number of one king, which costs that king's side
//! `min(danger², DANGER_CAP * DANGER_DIV) / DANGER_DIV` (danger below zero costs nothing).
//! Invariants: every index is below [`COUNT`]; a colour-flipped position reports the same
//! features with the colours swapped.
//! See: chessprogramming wiki "Texel's Tuning Method", "King Safety" (attack units).

use rsshogi::board::attack_tables::{bishop_attacks, lance_attacks, rook_attacks};
use rsshogi::board::{
    Bitboard, GOLD_ATTACKS, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, Position, SILVER_ATTACKS,
};
use rsshogi::types::{Color, HandPiece, PieceType, Square};

/// Piece types are indexed by `PieceType::raw()` (1..=14, 8 = king).
const PT: usize = 16;

/// Value of a piece on the board, by piece type.
pub const BOARD: usize = 0;
/// Value of the k-th piece of a kind in hand (k = 1, 2, 3, 4 and more), by `HandPiece` index.
pub const HAND: usize = BOARD + PT;
/// By piece type and rank counted from its owner's back rank (0..=8).
pub const RANK: usize = HAND + 7 * 4;
/// By piece type and distance of the file from the edge (0 at the edge, 4 in the centre).
pub const FILE: usize = RANK + PT * 9;
/// By piece type and (Chebyshev) distance to its own king, 1..=8 (index 0 unused).
pub const OWN_KING: usize = FILE + PT * 5;
/// By piece type and distance to the enemy king, 1..=8.
pub const ENEMY_KING: usize = OWN_KING + PT * 9;
/// Per square a piece attacks that is not occupied by its own side, by piece type.
pub const MOBILITY: usize = ENEMY_KING + PT * 9;
/// The side to move.
pub const TEMPO: usize = MOBILITY + PT;
/// Danger: squares of the king's 3x3 zone an enemy piece attacks, by that piece's type.
pub const ZONE_ATTACK: usize = TEMPO + 1;
/// Danger: an enemy piece within two squares of the king, by its type.
pub const NEAR_KING: usize = ZONE_ATTACK + PT;
/// Danger: the first and second enemy piece in hand of a kind, by `HandPiece` index.
pub const HAND_DANGER: usize = NEAR_KING + PT;
/// Danger: how many enemy pieces attack the zone (0..=8, one-hot).
pub const ATTACKERS: usize = HAND_DANGER + 7 * 2;
/// Danger: per own gold, silver or promoted minor next to the king.
pub const DEFENDERS: usize = ATTACKERS + 9;
/// Danger: per square next to the king that is free (not attacked, not blocked by our own).
pub const FREE_SQUARES: usize = DEFENDERS + 1;
/// Danger: a constant.
pub const DANGER_BIAS: usize = FREE_SQUARES + 1;
/// Danger: the enemy can give a safe check with a piece of this type (moved or dropped; once
/// per type). Safe: no piece but the king guards the square, and next to the king the
/// checking piece would be supported.
pub const SAFE_CHECK: usize = DANGER_BIAS + 1;
/// A piece attacked by the enemy and defended by none of its own side, by whether its side
/// is to move (0) or not (1), and its type.
pub const HANGING: usize = SAFE_CHECK + PT;
/// A piece (not a pawn) attacked by an enemy pawn, by side to move or not, and its type.
pub const PAWN_THREAT: usize = HANGING + 2 * PT;
/// Number of features (and weights).
pub const COUNT: usize = PAWN_THREAT + 2 * PT;

/// The danger cost is `min(d², DANGER_CAP * DANGER_DIV) / DANGER_DIV`.
pub const DANGER_DIV: i32 = 12;
/// Largest cost of king danger, centipawns.
pub const DANGER_CAP: i32 = 2000;

/// Receives the features of one position.
pub trait Sink {
    /// A piece of side `us` of type `raw` on square `rel` (index from its owner's side: Gote's
    /// squares flipped), at distance `own` from its king and `enemy` from the other (0 when
    /// that king is missing). Reports the piece's board, rank, file and king-distance terms.
    #[inline(always)]
    fn piece(&mut self, us: usize, raw: usize, rel: usize, own: usize, enemy: usize) {
        self.linear(us, RANK + raw * 9 + RANK_OF[rel], 1);
        self.linear(us, FILE + raw * 5 + FILE_OF[rel], 1);
        if raw != 8 {
            self.linear(us, BOARD + raw, 1);
            self.linear(us, OWN_KING + raw * 9 + own, 1);
            self.linear(us, ENEMY_KING + raw * 9 + enemy, 1);
        }
    }
    /// A linear term of side `us` (0 = Sente): `count` times the feature's weight.
    fn linear(&mut self, us: usize, feature: usize, count: i32);
    /// A term of the danger number of the king of side `king`.
    fn danger(&mut self, king: usize, feature: usize, count: i32);
}

/// The cost (centipawns, > 0 is bad for the king's side) of a king's danger number.
#[inline]
#[must_use]
pub fn danger_cost(danger: i32) -> i32 {
    let d = danger.max(0);
    (d.saturating_mul(d)).min(DANGER_CAP * DANGER_DIV) / DANGER_DIV
}

/// Rank of a square index (file * 9 + rank, rank 0 the far side) counted from the near side.
pub(crate) const RANK_OF: [usize; 81] = {
    let mut t = [0; 81];
    let mut i = 0;
    while i < 81 {
        t[i] = 8 - i % 9;
        i += 1;
    }
    t
};

/// Distance of a square's file from the nearer edge (0..=4).
pub(crate) const FILE_OF: [usize; 81] = {
    let mut t = [0; 81];
    let mut i = 0;
    while i < 81 {
        let f = i / 9;
        t[i] = if f <= 4 { f } else { 8 - f };
        i += 1;
    }
    t
};

/// Chebyshev distance between two square indices.
pub(crate) const DISTANCE: [[u8; 81]; 81] = {
    let mut t = [[0; 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut b = 0;
        while b < 81 {
            let df = (a / 9) as i32 - (b / 9) as i32;
            let dr = (a % 9) as i32 - (b % 9) as i32;
            let df = if df < 0 { -df } else { df };
            let dr = if dr < 0 { -dr } else { dr };
            t[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    t
};

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

/// Gold, silver and the promoted minors: the pieces that guard a king.
#[inline]
fn is_defender(raw: usize) -> bool {
    matches!(raw, 4 | 7 | 9..=12)
}

/// Reports every feature of `pos` (from no side's point of view: each term names its side).
#[inline]
pub fn walk<S: Sink>(pos: &Position, sink: &mut S) {
    let bb = pos.bitboards();
    let occupied = bb.occupied();
    let kings = [pos.king_square(Color::BLACK), pos.king_square(Color::WHITE)];
    let zones = kings.map(|k| {
        if k.is_none() {
            Bitboard::EMPTY
        } else {
            KING_ATTACKS[k] | Bitboard::from_square(k)
        }
    });
    // Per side: enemy-zone squares it attacks, and how many of its pieces do.
    let mut zone_attacks = [Bitboard::EMPTY; 2];
    let mut attackers = [0i32; 2];
    let mut defenders = [0i32; 2];
    // Per side: every square it attacks, those two of its pieces attack, those its pieces other
    // than the king attack, and by piece type.
    let mut attacked = [Bitboard::EMPTY; 2];
    let mut attacked2 = [Bitboard::EMPTY; 2];
    let mut guarded = [Bitboard::EMPTY; 2];
    let mut attacked_by = [[Bitboard::EMPTY; PT]; 2];

    let mut pieces = occupied;
    while let Some(sq) = pieces.pop_lsb() {
        let piece = pos.piece_on(sq);
        let pt = piece.piece_type();
        let raw = pt.raw() as usize;
        let color = piece.color();
        let us = color.to_index();
        let them = 1 - us;
        let index = sq.to_index();
        let rel = if us == 0 { index } else { 80 - index };
        let own = if kings[us].is_none() {
            0
        } else {
            DISTANCE[index][kings[us].to_index()] as usize
        };
        let enemy = if kings[them].is_none() {
            0
        } else {
            DISTANCE[index][kings[them].to_index()] as usize
        };
        sink.piece(us, raw, rel, own, enemy);
        if raw == 8 {
            attacked2[us] |= attacked[us] & KING_ATTACKS[sq];
            attacked[us] |= KING_ATTACKS[sq];
            continue;
        }
        if own == 1 && is_defender(raw) {
            defenders[us] += 1;
        }
        if enemy != 0 && enemy <= 2 {
            sink.danger(them, NEAR_KING + raw, 1);
        }
        let attacks = attacks_of(pt, sq, color, occupied);
        attacked2[us] |= attacked[us] & attacks;
        attacked[us] |= attacks;
        guarded[us] |= attacks;
        attacked_by[us][raw] |= attacks;
        let mobility = attacks.and_not(bb.color_pieces(color)).count() as i32;
        sink.linear(us, MOBILITY + raw, mobility);
        let on_zone = attacks & zones[them];
        if on_zone.any() {
            attackers[us] += 1;
            sink.danger(them, ZONE_ATTACK + raw, on_zone.count() as i32);
            zone_attacks[us] |= on_zone;
        }
    }

    for color in [Color::BLACK, Color::WHITE] {
        let us = color.to_index();
        let them = 1 - us;
        let hand = pos.hand(color);
        for hp in HandPiece::iter() {
            let n = hand.count(hp) as usize;
            let h = hp.to_index();
            for k in 0..n.min(4) {
                sink.linear(us, HAND + h * 4 + k, 1);
            }
            if n > 4 {
                sink.linear(us, HAND + h * 4 + 3, (n - 4) as i32);
            }
            for k in 0..n.min(2) {
                sink.danger(them, HAND_DANGER + h * 2 + k, 1);
            }
        }
    }

    for color in [Color::BLACK, Color::WHITE] {
        let us = color.to_index();
        let them = 1 - us;
        let king = kings[us];
        if king.is_none() {
            continue;
        }
        let free = KING_ATTACKS[king]
            .and_not(zone_attacks[them])
            .and_not(bb.color_pieces(color))
            .count() as i32;
        sink.danger(us, ATTACKERS + attackers[them].min(8) as usize, 1);
        sink.danger(us, DEFENDERS, defenders[us]);
        sink.danger(us, FREE_SQUARES, free);
        sink.danger(us, DANGER_BIAS, 1);

        // Safe checks, by the type of the checking piece. A piece of `them` on square s
        // attacks the king exactly when one of ours on the king's square would attack s.
        // (A pawn drop is counted without looking for a pawn on its file.)
        let near = KING_ATTACKS[king];
        let their_color = if them == 0 {
            Color::BLACK
        } else {
            Color::WHITE
        };
        let their_pieces = bb.color_pieces(their_color);
        let unguarded = Bitboard::ALL.and_not(guarded[us]);
        let drop_safe = unguarded
            .and_not(occupied)
            .and_not(near.and_not(attacked[them]));
        let move_safe = unguarded
            .and_not(their_pieces)
            .and_not(near.and_not(attacked2[them]));
        let their_hand = pos.hand(their_color);
        for raw in (1..=7).chain(9..=14) {
            let from = attacks_of(PieceType::new(raw as i8), king, color, occupied);
            let by_move = (from & attacked_by[them][raw] & move_safe).any();
            let by_drop = raw <= 7
                && HandPiece::from_piece_type(PieceType::new(raw as i8))
                    .is_some_and(|hp| their_hand.count(hp) > 0)
                && (from & drop_safe).any();
            if by_move || by_drop {
                sink.danger(us, SAFE_CHECK + raw, 1);
            }
        }
    }

    let to_move = pos.turn().to_index();
    for us in 0..2 {
        let them = 1 - us;
        let waiting = usize::from(us != to_move);
        let own = bb.color_pieces(if us == 0 { Color::BLACK } else { Color::WHITE });
        let mut threatened = own & attacked[them];
        while let Some(sq) = threatened.pop_lsb() {
            let raw = pos.piece_on(sq).piece_type().raw() as usize;
            if raw == 8 {
                continue;
            }
            if !attacked[us].test(sq) {
                sink.linear(us, HANGING + waiting * PT + raw, 1);
            }
            if raw != 1 && attacked_by[them][1].test(sq) {
                sink.linear(us, PAWN_THREAT + waiting * PT + raw, 1);
            }
        }
    }

    sink.linear(to_move, TEMPO, 1);
}
