//! The attack map of a position: for every square, which pieces attack it, and for every
//! occupied square, which squares its piece attacks.
//!
//! Why here: seed 003's move encoding (attack relations around a square), seed 002's
//! attributes (attacks on pieces and regions) and the castle labeller all read the same map, so
//! it is computed in one place, from rsshogi's attack tables (the same tables the move
//! generator and the evaluation use; no sliding attacks are written out here).
//!
//! Conventions: a piece attacks a square when it could capture on it if an enemy piece stood
//! there, whoever stands there now — own pieces, enemy pieces and empty squares alike.
//! Sliders (lance, bishop, rook, horse, dragon) stop at the first piece in each direction, which
//! is included. The king attacks its eight neighbours. Pieces in hand attack nothing.
//! Invariant: `s` is in `attacks_from(a)` exactly when `a` is in `attackers_of(s)`.

use super::Position;
use crate::types::{Color, Piece, Square};
use rsshogi::board::attack_tables::{bishop_attacks, lance_attacks, rook_attacks};
use rsshogi::board::{
    Bitboard, GOLD_ATTACKS, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, Position as RsPosition,
    SILVER_ATTACKS,
};
use rsshogi::types::{Color as RsColor, PieceType};
use std::fmt;

/// The index of a square in 0..81: `(file - 1) * 9 + (rank - 1)`.
#[must_use]
pub const fn square_index(sq: Square) -> usize {
    (sq.file() as usize - 1) * 9 + (sq.rank() as usize - 1)
}

/// The square with index `index` (0..81, see [`square_index`]).
///
/// # Panics
/// If `index >= 81`.
#[must_use]
pub fn square_at(index: usize) -> Square {
    assert!(index < 81, "square index {index} is off the board");
    let (file, rank) = (index / 9 + 1, index % 9 + 1);
    Square::new(file as u8, rank as u8).unwrap_or_else(|| unreachable!("index checked above"))
}

/// A set of board squares (bit `i` is the square with index `i`, see [`square_index`]).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SquareSet(u128);

impl SquareSet {
    /// No square.
    pub const EMPTY: Self = Self(0);

    /// Whether `sq` is in the set.
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u128 << square_index(sq)) != 0
    }

    /// Adds `sq`.
    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1u128 << square_index(sq);
    }

    /// How many squares.
    #[must_use]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set has no square.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Squares in both sets.
    #[must_use]
    pub const fn and(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// Squares in either set.
    #[must_use]
    pub const fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Squares of `self` not in `other`.
    #[must_use]
    pub const fn minus(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    /// The squares, lowest index first (file 1 rank 1, file 1 rank 2, ...).
    pub fn iter(self) -> impl Iterator<Item = Square> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(square_at(i))
        })
    }

    fn from_rs(bb: Bitboard) -> Self {
        let mut set = 0u128;
        for sq in bb.iter() {
            set |= 1u128 << sq.to_index();
        }
        Self(set)
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        let mut set = Self::EMPTY;
        for sq in iter {
            set.insert(sq);
        }
        set
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|s| s.to_string()))
            .finish()
    }
}

/// A piece that attacks a square, and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Attacker {
    pub square: Square,
    pub piece: Piece,
}

/// Who attacks what in one position (see the module doc for the conventions).
#[derive(Clone, PartialEq, Eq)]
pub struct AttackMap {
    board: [Option<Piece>; 81],
    /// By square index: the squares the piece there attacks (empty for an empty square).
    attacks: [SquareSet; 81],
    /// By square index: the squares whose pieces attack it.
    attackers: [SquareSet; 81],
}

impl AttackMap {
    /// The attack map of `pos`.
    #[must_use]
    pub fn new(pos: &Position) -> Self {
        Self::from_raw(pos.raw())
    }

    /// The attack map of an rsshogi position (for code in this crate that holds one).
    pub(crate) fn from_raw(pos: &RsPosition) -> Self {
        let occupied = pos.bitboards().occupied();
        let mut map = Self {
            board: [None; 81],
            attacks: [SquareSet::EMPTY; 81],
            attackers: [SquareSet::EMPTY; 81],
        };
        let mut pieces = occupied;
        while let Some(sq) = pieces.pop_lsb() {
            let rs_piece = pos.piece_on(sq);
            let from = sq.to_index();
            map.board[from] = Piece::from_rs(rs_piece);
            let attacks = SquareSet::from_rs(piece_attacks(
                rs_piece.piece_type(),
                sq,
                rs_piece.color(),
                occupied,
            ));
            map.attacks[from] = attacks;
            for target in attacks.iter() {
                map.attackers[square_index(target)].insert(square_at(from));
            }
        }
        map
    }

    /// The piece on `sq`.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[square_index(sq)]
    }

    /// The squares the piece on `sq` attacks (empty for an empty square).
    #[must_use]
    pub fn attacks_from(&self, sq: Square) -> SquareSet {
        self.attacks[square_index(sq)]
    }

    /// The squares whose pieces attack `sq`, of both sides.
    #[must_use]
    pub fn attackers_of(&self, sq: Square) -> SquareSet {
        self.attackers[square_index(sq)]
    }

    /// The pieces that attack `sq`, lowest square index first.
    pub fn attackers(&self, sq: Square) -> impl Iterator<Item = Attacker> + '_ {
        self.attackers_of(sq).iter().filter_map(|square| {
            self.piece_at(square)
                .map(|piece| Attacker { square, piece })
        })
    }

    /// How many pieces of `color` attack `sq`.
    #[must_use]
    pub fn attack_count(&self, sq: Square, color: Color) -> usize {
        self.attackers(sq)
            .filter(|a| a.piece.color == color)
            .count()
    }

    /// The occupied squares (every square holding a piece).
    #[must_use]
    pub fn occupied(&self) -> SquareSet {
        Square::all()
            .filter(|&s| self.piece_at(s).is_some())
            .collect()
    }
}

impl fmt::Debug for AttackMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for sq in Square::all() {
            if let Some(piece) = self.piece_at(sq) {
                map.entry(&format!("{sq} {piece:?}"), &self.attacks_from(sq));
            }
        }
        map.finish()
    }
}

/// The squares a piece of type `pt` and colour `color` on `sq` attacks, given the occupied
/// squares (sliders stop at the first piece, which is included).
fn piece_attacks(
    pt: PieceType,
    sq: rsshogi::types::Square,
    color: RsColor,
    occupied: Bitboard,
) -> Bitboard {
    let c = color.to_index();
    match pt {
        PieceType::PAWN => PAWN_ATTACKS[sq][c],
        PieceType::LANCE => lance_attacks(sq, occupied, color),
        PieceType::KNIGHT => KNIGHT_ATTACKS[sq][c],
        PieceType::SILVER => SILVER_ATTACKS[sq][c],
        PieceType::BISHOP => bishop_attacks(sq, occupied),
        PieceType::ROOK => rook_attacks(sq, occupied),
        PieceType::GOLD
        | PieceType::PRO_PAWN
        | PieceType::PRO_LANCE
        | PieceType::PRO_KNIGHT
        | PieceType::PRO_SILVER => GOLD_ATTACKS[sq][c],
        PieceType::KING => KING_ATTACKS[sq],
        PieceType::HORSE => bishop_attacks(sq, occupied) | KING_ATTACKS[sq],
        PieceType::DRAGON => rook_attacks(sq, occupied) | KING_ATTACKS[sq],
        _ => Bitboard::EMPTY,
    }
}

/// Helpers for tests of the modules that read attack maps: random games and colour flips.
#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use crate::types::Move;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Plays `plies` random legal moves from the start (stopping at a mate).
    pub(crate) fn random_game(seed: u64, plies: usize) -> Position {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = Position::startpos();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play(moves[rng.random_range(0..moves.len())]);
        }
        pos
    }

    /// The square seen from the other side: (file, rank) -> (10 - file, 10 - rank).
    pub(crate) fn rotate(sq: Square) -> Square {
        Square::new(10 - sq.file(), 10 - sq.rank()).expect("rotated square")
    }

    /// The colour-flipped position: the board turned round, every piece and hand given to the
    /// other side, the other side to move (same move number).
    pub(crate) fn flipped(pos: &Position) -> Position {
        let sfen = pos.to_sfen();
        let fields: Vec<&str> = sfen.split(' ').collect();
        let board: String = fields[0]
            .split('/')
            .rev()
            .map(|rank| {
                // Reverse the rank token by token (a `+` belongs to the letter after it).
                let mut tokens: Vec<String> = Vec::new();
                let mut pending = String::new();
                for c in rank.chars() {
                    pending.push(if c.is_ascii_alphabetic() {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    } else {
                        c
                    });
                    if c != '+' {
                        tokens.push(std::mem::take(&mut pending));
                    }
                }
                tokens.reverse();
                tokens.concat()
            })
            .collect::<Vec<_>>()
            .join("/");
        let side = if fields[1] == "b" { "w" } else { "b" };
        let hands: String = if fields[2] == "-" {
            "-".into()
        } else {
            fields[2]
                .chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        };
        // SFEN lists sente's hand first: reorder after the swap.
        let hands = if hands == "-" {
            hands
        } else {
            let (upper, rest): (Vec<char>, Vec<char>) = {
                let mut upper = Vec::new();
                let mut lower = Vec::new();
                let mut count = String::new();
                for c in hands.chars() {
                    if c.is_ascii_digit() {
                        count.push(c);
                        continue;
                    }
                    let target = if c.is_ascii_uppercase() {
                        &mut upper
                    } else {
                        &mut lower
                    };
                    target.extend(count.drain(..));
                    target.push(c);
                }
                (upper, lower)
            };
            upper.into_iter().chain(rest).collect()
        };
        Position::from_sfen(&format!("{board} {side} {hands} {}", fields[3]))
            .unwrap_or_else(|e| panic!("flipped {sfen}: {e}"))
    }

    /// `mv` seen from the other side (for the flipped position).
    pub(crate) fn flip_move(mv: Move) -> Move {
        match (mv.from(), mv.dropped_kind()) {
            (Some(from), _) => Move::normal(rotate(from), rotate(mv.to()), mv.is_promotion()),
            (None, Some(kind)) => Move::drop(kind, rotate(mv.to())),
            (None, None) => unreachable!("a move is a board move or a drop"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{flipped, random_game, rotate};
    use super::*;
    use crate::types::PieceKind;
    use proptest::prelude::*;

    fn sq(text: &str) -> Square {
        Square::from_usi(text).expect("test square")
    }

    fn set(squares: &[&str]) -> SquareSet {
        squares.iter().map(|s| sq(s)).collect()
    }

    #[test]
    fn square_indices_round_trip() {
        for (i, s) in Square::all().enumerate() {
            assert_eq!(square_index(s), i);
            assert_eq!(square_at(i), s);
        }
    }

    #[test]
    fn start_position_attacks_by_hand() {
        let map = AttackMap::new(&Position::startpos());
        // Sente's rook on 2h: 1h (lance? no: 1h is empty, the edge), 3h..7h (empty), 8h
        // (bishop, included, stops), 2g (pawn, included, stops), 2i (knight).
        assert_eq!(
            map.attacks_from(sq("2h")),
            set(&["1h", "3h", "4h", "5h", "6h", "7h", "8h", "2g", "2i"])
        );
        // Sente's bishop on 8h: 7g and 9g (pawns), 7i and 9i (silver, lance).
        assert_eq!(map.attacks_from(sq("8h")), set(&["7g", "9g", "7i", "9i"]));
        // Sente's lance on 9i: 9h only (empty), then 9g (pawn, included).
        assert_eq!(map.attacks_from(sq("9i")), set(&["9h", "9g"]));
        // Nothing stands on 5e.
        assert!(map.attacks_from(sq("5e")).is_empty());
        // 5h is attacked by sente's rook, both golds, the king and the silvers? The silvers on
        // 7i and 3i reach 6h and 4h, not 5h. Gold 6i -> 5h (forward diagonal), gold 4i -> 5h,
        // king 5i -> 5h, rook 2h -> 5h along the rank.
        let attackers: Vec<(Square, PieceKind)> = map
            .attackers(sq("5h"))
            .map(|a| (a.square, a.piece.kind))
            .collect();
        assert_eq!(
            attackers,
            vec![
                (sq("2h"), PieceKind::Rook),
                (sq("4i"), PieceKind::Gold),
                (sq("5i"), PieceKind::King),
                (sq("6i"), PieceKind::Gold),
            ]
        );
        assert_eq!(map.attack_count(sq("5h"), Color::Sente), 4);
        assert_eq!(map.attack_count(sq("5h"), Color::Gote), 0);
        // The pawns face each other across two empty ranks: rank 5 is attacked by nobody.
        for file in 1..=9 {
            assert_eq!(map.attackers_of(Square::new(file, 5).expect("sq")).len(), 0);
        }
        assert_eq!(map.occupied().len(), 40);
    }

    #[test]
    fn flipping_twice_is_the_identity() {
        let pos = Position::from_sfen("8k/9/6pg1/6S2/9/5N3/9/9/K8 b 2Pr 1").expect("sfen");
        let once = flipped(&pos);
        assert_eq!(once.to_sfen(), "8k/9/9/3n5/9/2s6/1GP6/9/K8 w R2p 1");
        assert_eq!(flipped(&once), pos);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The map's attackers of every square are rsshogi's `attackers_to`, and the two
        /// directions of the map agree.
        #[test]
        fn agrees_with_rsshogi_attackers_to(seed in any::<u64>(), plies in 0usize..200) {
            let pos = random_game(seed, plies);
            let map = AttackMap::new(&pos);
            let raw = pos.raw();
            let occupied = raw.bitboards().occupied();
            for s in Square::all() {
                let expected = SquareSet::from_rs(raw.attackers_to(s.to_rs(), occupied));
                prop_assert_eq!(map.attackers_of(s), expected, "square {} in {}", s, pos.to_sfen());
                for a in map.attackers_of(s).iter() {
                    prop_assert!(map.attacks_from(a).contains(s));
                }
                for t in map.attacks_from(s).iter() {
                    prop_assert!(map.attackers_of(t).contains(s));
                }
                prop_assert_eq!(map.piece_at(s), pos.piece_at(s));
            }
            // The colour-flipped position's map is this one turned round.
            let flip = AttackMap::new(&flipped(&pos));
            for s in Square::all() {
                let turned: SquareSet = map.attacks_from(s).iter().map(rotate).collect();
                prop_assert_eq!(flip.attacks_from(rotate(s)), turned);
            }
        }
    }
}
