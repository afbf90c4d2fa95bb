//! Seed 002's position attributes: 1568 raw counts and the seed's two groupings, 56 and 112.
//!
//! "Self" is the side to move, "opponent" the other; regions are seen from the side to move
//! ([`super::regions`]). Nothing depends on the colour: the colour-flipped position (board
//! turned round, colours swapped, the other side to move) has the same attributes.
//!
//! **Slots** (28): the seed's piece-kind order 飛 角 銀 桂 香 歩 金 玉 龍 馬 成銀 成桂 成香 と, self's
//! 14 kinds (slots 0-13) then the opponent's (slots 14-27):
//!
//! | slot | kind | slot | kind |
//! |------|------|------|------|
//! | 0 / 14 | 飛 rook | 7 / 21 | 玉 king |
//! | 1 / 15 | 角 bishop | 8 / 22 | 龍 dragon |
//! | 2 / 16 | 銀 silver | 9 / 23 | 馬 horse |
//! | 3 / 17 | 桂 knight | 10 / 24 | 成銀 promoted silver |
//! | 4 / 18 | 香 lance | 11 / 25 | 成桂 promoted knight |
//! | 5 / 19 | 歩 pawn | 12 / 26 | 成香 promoted lance |
//! | 6 / 20 | 金 gold | 13 / 27 | と promoted pawn |
//!
//! **Raw attributes** (1568): index `56 × slot + a`, where `a` is
//!
//! | a | meaning (for the pieces of the slot) |
//! |---|---------|
//! | 0 | how many are on the board |
//! | 1 | how many are in hand (always 0 for the king and the promoted kinds) |
//! | 2 + t (t = 0..27) | attacks on pieces of slot `t`: pairs (piece of this slot, square it attacks holding a piece of slot `t`); own pieces count too (a defended piece) |
//! | 30 + r (r = 0..12) | how many stand in region `r` |
//! | 43 + r (r = 0..12) | attacks on region `r`: pairs (piece of this slot, square of region `r` it attacks) |
//!
//! **Grouping 56** (the seed's まとめあげその1): attribute `2 × slot` is the sum of the slot's
//! first 30 raw attributes (a = 0..29: board, hand, attacks on pieces), `2 × slot + 1` the sum
//! of the last 26 (regions). So the seed's appendix names x12 "self's gold, first sum" and x13
//! "self's gold, last sum" (gold is slot 6).
//!
//! **Grouping 112** (まとめあげその2): index `56 × side + a` (side 0 self, 1 opponent) is raw
//! attribute `a` summed over the side's 14 slots.
//!
//! **Swapping sides** (the same board with the other side to move): self and opponent trade
//! places and the view turns round, so the attributes are permuted, never changed: slot
//! `s` <-> `s ± 14`, target slot `t` likewise, region `r` <-> [`super::regions::SWAPPED`]`[r]`.
//! [`swapped_index`] gives the permutation for each grouping.

use super::regions::{self, COUNT as REGIONS};
use crate::position::Position;
use crate::position::attacks::{AttackMap, SquareSet};
use crate::types::{ByColor, Color, PieceKind, Square};
use std::fmt;
use std::str::FromStr;

/// The seed's piece-kind order (one side's 14 slots).
pub const KINDS: [PieceKind; 14] = [
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Silver,
    PieceKind::Knight,
    PieceKind::Lance,
    PieceKind::Pawn,
    PieceKind::Gold,
    PieceKind::King,
    PieceKind::Dragon,
    PieceKind::Horse,
    PieceKind::ProSilver,
    PieceKind::ProKnight,
    PieceKind::ProLance,
    PieceKind::ProPawn,
];

/// The kinds' names in the seed's notation, slot order.
pub const KIND_NAMES: [&str; 14] = [
    "飛", "角", "銀", "桂", "香", "歩", "金", "玉", "龍", "馬", "成銀", "成桂", "成香", "と",
];

/// Slots: 14 kinds of self, then 14 of the opponent.
pub const SLOTS: usize = 28;
/// Raw attributes per slot.
pub const PER_SLOT: usize = 56;
/// Raw attributes in all.
pub const RAW: usize = SLOTS * PER_SLOT;
/// Where the board count is, within a slot.
pub const ON_BOARD: usize = 0;
/// Where the hand count is.
pub const IN_HAND: usize = 1;
/// Where the attacks on the 28 slots start.
pub const ATTACKS_ON: usize = 2;
/// Where the counts in the 13 regions start.
pub const IN_REGION: usize = ATTACKS_ON + SLOTS;
/// Where the attacks on the 13 regions start.
pub const ATTACKS_REGION: usize = IN_REGION + REGIONS;
/// How many of a slot's attributes the first sum of grouping 56 takes.
pub const FIRST_SUM: usize = IN_REGION;

/// Which attribute vector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Grouping {
    /// All 1568.
    Raw,
    /// Per slot, the first 30 and the last 26 summed (the seed's grouping 1).
    #[default]
    G56,
    /// Per side, each of the 56 attributes summed over the side's slots (grouping 2).
    G112,
}

impl Grouping {
    /// The vector's length.
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
            Self::Raw => RAW,
            Self::G56 => 2 * SLOTS,
            Self::G112 => 2 * PER_SLOT,
        }
    }
}

impl fmt::Display for Grouping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Raw => "raw",
            Self::G56 => "56",
            Self::G112 => "112",
        })
    }
}

/// Text that is not a grouping (`raw`, `56`, `112`, `1568`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown grouping `{0}` (expected 56, 112 or raw)")]
pub struct UnknownGrouping(pub String);

impl FromStr for Grouping {
    type Err = UnknownGrouping;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "raw" | "1568" => Ok(Self::Raw),
            "56" => Ok(Self::G56),
            "112" => Ok(Self::G112),
            _ => Err(UnknownGrouping(s.to_string())),
        }
    }
}

/// The slot of a piece of `kind` owned by `owner`, with `us` to move.
#[must_use]
pub fn slot(kind: PieceKind, owner: Color, us: Color) -> usize {
    let k = KINDS
        .iter()
        .position(|&x| x == kind)
        .unwrap_or_else(|| unreachable!("every kind has a slot"));
    if owner == us { k } else { k + 14 }
}

/// The 1568 raw attributes of `pos` (see the module doc for the order).
#[must_use]
pub fn raw(pos: &Position) -> Vec<u32> {
    let us = pos.side_to_move();
    let map = AttackMap::new(pos);
    let kings = ByColor::new_with(|c| pos.king_square(c));
    let regions = regions::regions(&map, us, kings);
    let region_of = |s: Square| regions.map(|r| r.contains(s));
    let mut out = vec![0u32; RAW];
    for color in Color::BOTH {
        for kind in PieceKind::HAND {
            out[PER_SLOT * slot(kind, color, us) + IN_HAND] += pos.hand_count(color, kind);
        }
    }
    for sq in Square::all() {
        let Some(piece) = map.piece_at(sq) else {
            continue;
        };
        let base = PER_SLOT * slot(piece.kind, piece.color, us);
        out[base + ON_BOARD] += 1;
        for (r, inside) in region_of(sq).into_iter().enumerate() {
            out[base + IN_REGION + r] += u32::from(inside);
        }
        let attacks: SquareSet = map.attacks_from(sq);
        for target in attacks.iter() {
            if let Some(p) = map.piece_at(target) {
                out[base + ATTACKS_ON + slot(p.kind, p.color, us)] += 1;
            }
        }
        for (r, region) in regions.iter().enumerate() {
            out[base + ATTACKS_REGION + r] += attacks.and(*region).len() as u32;
        }
    }
    out
}

/// Groups raw attributes (as [`raw`] returns them).
///
/// # Panics
/// If `raw` does not have [`RAW`] values.
#[must_use]
pub fn group(raw: &[u32], grouping: Grouping) -> Vec<u32> {
    assert_eq!(raw.len(), RAW, "raw attributes");
    match grouping {
        Grouping::Raw => raw.to_vec(),
        Grouping::G56 => raw
            .chunks(PER_SLOT)
            .flat_map(|slot| {
                [
                    slot[..FIRST_SUM].iter().sum::<u32>(),
                    slot[FIRST_SUM..].iter().sum::<u32>(),
                ]
            })
            .collect(),
        Grouping::G112 => (0..2)
            .flat_map(|side| {
                (0..PER_SLOT).map(move |a| {
                    (0..14)
                        .map(|k| raw[PER_SLOT * (14 * side + k) + a])
                        .sum::<u32>()
                })
            })
            .collect(),
    }
}

/// The attributes of `pos` in `grouping`.
#[must_use]
pub fn attributes(pos: &Position, grouping: Grouping) -> Vec<u32> {
    group(&raw(pos), grouping)
}

/// The slot a slot becomes when the sides swap.
const fn swapped_slot(s: usize) -> usize {
    (s + 14) % SLOTS
}

/// The raw attribute within a slot that `a` becomes when the sides swap.
fn swapped_within(a: usize) -> usize {
    match a {
        ON_BOARD | IN_HAND => a,
        _ if a < IN_REGION => ATTACKS_ON + swapped_slot(a - ATTACKS_ON),
        _ if a < ATTACKS_REGION => IN_REGION + regions::SWAPPED[a - IN_REGION],
        _ => ATTACKS_REGION + regions::SWAPPED[a - ATTACKS_REGION],
    }
}

/// Where attribute `index` of `grouping` goes when the same board has the other side to move:
/// `attributes(swapped)[swapped_index(i)] == attributes(pos)[i]`.
///
/// # Panics
/// If `index` is not below `grouping.size()`.
#[must_use]
pub fn swapped_index(index: usize, grouping: Grouping) -> usize {
    assert!(index < grouping.size(), "attribute {index} of {grouping}");
    match grouping {
        Grouping::Raw => {
            PER_SLOT * swapped_slot(index / PER_SLOT) + swapped_within(index % PER_SLOT)
        }
        Grouping::G56 => 2 * swapped_slot(index / 2) + index % 2,
        Grouping::G112 => PER_SLOT * (1 - index / PER_SLOT) + swapped_within(index % PER_SLOT),
    }
}

fn slot_name(s: usize) -> String {
    let side = if s < 14 { "self" } else { "opponent" };
    format!("{side} {}", KIND_NAMES[s % 14])
}

fn within_name(a: usize) -> String {
    match a {
        ON_BOARD => "on board".into(),
        IN_HAND => "in hand".into(),
        _ if a < IN_REGION => format!("attacks on {}", slot_name(a - ATTACKS_ON)),
        _ if a < ATTACKS_REGION => format!("in region {}", regions::NAMES[a - IN_REGION]),
        _ => format!("attacks on region {}", regions::NAMES[a - ATTACKS_REGION]),
    }
}

/// What attribute `index` of `grouping` counts, e.g. `self 金: first 30 (board, hand, attacks
/// on pieces)` for index 12 of grouping 56.
///
/// # Panics
/// If `index` is not below `grouping.size()`.
#[must_use]
pub fn describe(index: usize, grouping: Grouping) -> String {
    assert!(index < grouping.size(), "attribute {index} of {grouping}");
    match grouping {
        Grouping::Raw => format!(
            "{}: {}",
            slot_name(index / PER_SLOT),
            within_name(index % PER_SLOT)
        ),
        Grouping::G56 => format!(
            "{}: {}",
            slot_name(index / 2),
            if index.is_multiple_of(2) {
                "first 30 (board, hand, attacks on pieces)"
            } else {
                "last 26 (regions, attacks on regions)"
            }
        ),
        Grouping::G112 => format!(
            "{} pieces: {}",
            if index < PER_SLOT { "self" } else { "opponent" },
            within_name(index % PER_SLOT)
        ),
    }
}

#[cfg(test)]
mod tests;
