//! Seed 003's move encoding (models.md section 10): what a move looks like to the candidate
//! model, as a 64-bit code, in the full form and in the seed's variant f.
//!
//! **Square info** (the seed's tables 1 and 2): piece id 歩0 香1 桂2 銀3 角4 飛5 金6 玉7 と8 成香9
//! 成桂10 成銀11 馬12 竜13, empty 14, plus the owner: 0 for the mover's pieces (and empty squares),
//! 16 for the opponent's. The from-square of a drop is [`HAND`] = 15.
//!
//! **Attack info** of a square `s` holding piece `P` (or empty), in the mover's terms, lists the
//! square infos of the squares in three relations ([`AttackInfo`]):
//! - 利き付け (`gives`): squares `P` attacks whose piece (if any) does not attack `s`;
//! - 利き受け (`receives`): occupied squares whose piece attacks `s` but which `P` does not attack;
//! - 相互 (`mutual`): squares `P` attacks whose piece attacks `s`.
//!
//! Each list is sorted (a multiset: which squares does not matter, what stands there does). An
//! empty square attacks nothing, so its `gives` and `mutual` are empty. Attacks follow
//! [`crate::position::attacks`] (sliders stop at the first piece, included).
//!
//! **Move code** `p_i`: the hash of (from info, from attack info, to info, to attack info,
//! promotion flag, dropped kind), all taken in the position before the move. Two additions to
//! the seed, which lists only the first four: the promotion flag, so that the two time-series
//! pairs tell a promotion from the same move without it (the seed's p' would tell them apart
//! anyway); and for a drop the dropped piece's id, for the same reason — without it a pawn drop
//! and a rook drop on the same square would share their code, as the from-square of every drop
//! is the same [`HAND`] with empty attack info.
//!
//! **p'** ("the data representation after the move"): the to-square's info and attack info in
//! the position after the move, still from the mover's side. The seed cannot mean the whole
//! position (it notes 10^80 states itself); the square the move changes is the reading that
//! matches the seed's encoding of moves.
//!
//! **Variant f** keeps the square infos but reduces each attack info to one value, the
//! [`Balance`] of the square: the mover attacks it with more pieces, the opponent does, or as
//! many (a drop's from-square: equal, none and none). Its codes are hashed apart from the full
//! ones (a different tag byte), so the two never mix.
//!
//! **START** ([`START`]) stands for the missing previous moves of the first two plies of a game.
//!
//! **Hash**: FNV-1a 64 ([`fnv1a64`], written out here so that codes never change with a
//! library or the platform), over these bytes: a tag (`M` full move, `A` full p', `m` variant-f
//! move, `a` variant-f p'), then the fields in the order above, each square info as one byte,
//! each list as its length byte followed by its sorted infos, a balance as one byte (0 mover
//! more, 1 opponent more, 2 equal), the promotion flag as 0/1, the dropped id as its piece id or
//! 255 for a board move. Changing any of this changes every code: it needs a new model-file
//! version ([`super::file::MODEL_VERSION`]).

use crate::position::Position;
use crate::position::attacks::AttackMap;
use crate::types::{Color, Move, Piece, PieceKind, Square};

/// A move code or p' code: 64 bits of FNV-1a.
pub type Code = u64;

/// Square info of an empty square.
pub const EMPTY: u8 = 14;
/// Square info of a drop's from-square (the hand).
pub const HAND: u8 = 15;
/// Added to the piece id of the opponent's pieces.
pub const OPPONENT: u8 = 16;

const TAG_MOVE: u8 = b'M';
const TAG_AFTER: u8 = b'A';
const TAG_MOVE_F: u8 = b'm';
const TAG_AFTER_F: u8 = b'a';

/// The code of a missing previous move (the first two plies of a game).
pub const START: Code = fnv1a64(b"START");

/// FNV-1a, 64 bits: offset basis 0xcbf29ce484222325, prime 0x100000001b3, one byte at a time.
/// A stable hash: the same bytes give the same value on every platform and release.
#[must_use]
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The seed's piece id (table 1): 歩0 香1 桂2 銀3 角4 飛5 金6 玉7 と8 成香9 成桂10 成銀11 馬12 竜13.
#[must_use]
pub const fn piece_id(kind: PieceKind) -> u8 {
    match kind {
        PieceKind::Pawn => 0,
        PieceKind::Lance => 1,
        PieceKind::Knight => 2,
        PieceKind::Silver => 3,
        PieceKind::Bishop => 4,
        PieceKind::Rook => 5,
        PieceKind::Gold => 6,
        PieceKind::King => 7,
        PieceKind::ProPawn => 8,
        PieceKind::ProLance => 9,
        PieceKind::ProKnight => 10,
        PieceKind::ProSilver => 11,
        PieceKind::Horse => 12,
        PieceKind::Dragon => 13,
    }
}

/// The square info of what stands on a square, seen by `mover`.
#[must_use]
pub fn square_info(piece: Option<Piece>, mover: Color) -> u8 {
    match piece {
        None => EMPTY,
        Some(p) if p.color == mover => piece_id(p.kind),
        Some(p) => piece_id(p.kind) + OPPONENT,
    }
}

/// The attack relations of one square (see the module doc), each list sorted ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AttackInfo {
    /// 利き付け: squares the piece attacks that do not attack it back.
    pub gives: Vec<u8>,
    /// 利き受け: pieces that attack the square and that its piece does not attack.
    pub receives: Vec<u8>,
    /// 相互: squares in both relations.
    pub mutual: Vec<u8>,
}

impl AttackInfo {
    /// The attack info of `sq` in `map`, in `mover`'s terms.
    #[must_use]
    pub fn of(map: &AttackMap, sq: Square, mover: Color) -> Self {
        let attacks = map.attacks_from(sq);
        let attackers = map.attackers_of(sq);
        let infos = |set: crate::position::attacks::SquareSet| {
            let mut v: Vec<u8> = set
                .iter()
                .map(|s| square_info(map.piece_at(s), mover))
                .collect();
            v.sort_unstable();
            v
        };
        Self {
            gives: infos(attacks.minus(attackers)),
            receives: infos(attackers.minus(attacks)),
            mutual: infos(attacks.and(attackers)),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        for list in [&self.gives, &self.receives, &self.mutual] {
            out.push(list.len() as u8);
            out.extend_from_slice(list);
        }
    }
}

/// Variant f's attack info: which side attacks the square with more pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Balance {
    /// The mover attacks it with more pieces.
    Mover = 0,
    /// The opponent does.
    Opponent = 1,
    /// As many (including none and none).
    Equal = 2,
}

impl Balance {
    /// The balance of `sq` in `map`, `mover` being "the mover".
    #[must_use]
    pub fn of(map: &AttackMap, sq: Square, mover: Color) -> Self {
        let ours = map.attack_count(sq, mover);
        let theirs = map.attack_count(sq, mover.opposite());
        match ours.cmp(&theirs) {
            std::cmp::Ordering::Greater => Self::Mover,
            std::cmp::Ordering::Less => Self::Opponent,
            std::cmp::Ordering::Equal => Self::Equal,
        }
    }
}

/// A move as the full encoding sees it, before hashing (tests and explanations read it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveView {
    /// From-square info ([`HAND`] for a drop).
    pub from: u8,
    /// From-square attack info (all empty for a drop).
    pub from_attacks: AttackInfo,
    /// To-square info (what is captured, or [`EMPTY`]).
    pub to: u8,
    /// To-square attack info.
    pub to_attacks: AttackInfo,
    pub promotion: bool,
    /// For a drop, the dropped piece's id.
    pub dropped: Option<u8>,
}

impl MoveView {
    /// How `mv` (legal in the position `map` belongs to, `mover` to move) looks.
    #[must_use]
    pub fn of(map: &AttackMap, mv: Move, mover: Color) -> Self {
        let (from, from_attacks) = match mv.from() {
            Some(sq) => (
                square_info(map.piece_at(sq), mover),
                AttackInfo::of(map, sq, mover),
            ),
            None => (HAND, AttackInfo::default()),
        };
        Self {
            from,
            from_attacks,
            to: square_info(map.piece_at(mv.to()), mover),
            to_attacks: AttackInfo::of(map, mv.to(), mover),
            promotion: mv.is_promotion(),
            dropped: mv.dropped_kind().map(piece_id),
        }
    }

    /// The full move code.
    #[must_use]
    pub fn code(&self) -> Code {
        let mut bytes = vec![TAG_MOVE, self.from];
        self.from_attacks.write(&mut bytes);
        bytes.push(self.to);
        self.to_attacks.write(&mut bytes);
        bytes.push(u8::from(self.promotion));
        bytes.push(self.dropped.unwrap_or(u8::MAX));
        fnv1a64(&bytes)
    }
}

/// p' as the full encoding sees it: the to-square after the move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AfterView {
    /// The to-square's info after the move (the mover's piece).
    pub to: u8,
    pub to_attacks: AttackInfo,
}

impl AfterView {
    /// The to-square `to` in the position after the move (`after` its map), seen by `mover`.
    #[must_use]
    pub fn of(after: &AttackMap, to: Square, mover: Color) -> Self {
        Self {
            to: square_info(after.piece_at(to), mover),
            to_attacks: AttackInfo::of(after, to, mover),
        }
    }

    /// The full p' code.
    #[must_use]
    pub fn code(&self) -> Code {
        let mut bytes = vec![TAG_AFTER, self.to];
        self.to_attacks.write(&mut bytes);
        fnv1a64(&bytes)
    }
}

/// Variant f's move code: square infos as in the full code, attack infos as balances.
#[must_use]
pub fn move_code_f(map: &AttackMap, mv: Move, mover: Color) -> Code {
    let (from, from_balance) = match mv.from() {
        Some(sq) => (
            square_info(map.piece_at(sq), mover),
            Balance::of(map, sq, mover),
        ),
        None => (HAND, Balance::Equal),
    };
    fnv1a64(&[
        TAG_MOVE_F,
        from,
        from_balance as u8,
        square_info(map.piece_at(mv.to()), mover),
        Balance::of(map, mv.to(), mover) as u8,
        u8::from(mv.is_promotion()),
        mv.dropped_kind().map_or(u8::MAX, piece_id),
    ])
}

/// Variant f's p' code.
#[must_use]
pub fn after_code_f(after: &AttackMap, to: Square, mover: Color) -> Code {
    fnv1a64(&[
        TAG_AFTER_F,
        square_info(after.piece_at(to), mover),
        Balance::of(after, to, mover) as u8,
    ])
}

/// A code in both encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Codes {
    pub full: Code,
    pub f: Code,
}

impl Codes {
    /// The codes of a missing previous move.
    pub const START: Self = Self {
        full: START,
        f: START,
    };
}

/// One move encoded: its code `p_i` and its p' code, in both encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncodedMove {
    pub code: Codes,
    pub after: Codes,
}

/// The move codes of `mv` in the position of `before` (its attack map), `mover` to move.
#[must_use]
pub fn move_codes(before: &AttackMap, mv: Move, mover: Color) -> Codes {
    Codes {
        full: MoveView::of(before, mv, mover).code(),
        f: move_code_f(before, mv, mover),
    }
}

/// The p' codes of a move to `to`, from the position after it (`after`, its attack map).
#[must_use]
pub fn after_codes(after: &AttackMap, to: Square, mover: Color) -> Codes {
    Codes {
        full: AfterView::of(after, to, mover).code(),
        f: after_code_f(after, to, mover),
    }
}

/// Encodes a legal move of `pos`: its codes before and after.
///
/// # Panics
/// If `mv` is not legal in `pos`.
#[must_use]
pub fn encode(pos: &Position, mv: Move) -> EncodedMove {
    let mover = pos.side_to_move();
    let before = AttackMap::new(pos);
    let mut next = pos.clone();
    next.play(mv);
    EncodedMove {
        code: move_codes(&before, mv, mover),
        after: after_codes(&AttackMap::new(&next), mv.to(), mover),
    }
}

/// Encodes every legal move of `pos` (in [`Position::legal_moves`] order): one attack map of
/// the position, and one of the position after each move.
pub(crate) fn encode_all(pos: &Position) -> Vec<(Move, EncodedMove)> {
    let mover = pos.side_to_move();
    let before = AttackMap::new(pos);
    let mut raw = pos.raw().clone();
    let mut list = rsshogi::board::Move32List::new();
    rsshogi::movegen::generate_legal_all_move32(&raw, &mut list);
    list.iter()
        .map(|&m32| {
            let mv = Move::from_rs(m32.to_move());
            raw.apply_move32(m32);
            let after = AttackMap::from_raw(&raw);
            if let Err(e) = raw.undo_move32(m32) {
                unreachable!("undo of the move just applied failed: {e:?}");
            }
            let encoded = EncodedMove {
                code: move_codes(&before, mv, mover),
                after: after_codes(&after, mv.to(), mover),
            };
            (mv, encoded)
        })
        .collect()
}

#[cfg(test)]
mod tests;
