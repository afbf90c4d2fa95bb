//! The two sides. Sente (先手, "black", `b` in SFEN) moves first in an even game; in handicap
//! games the handicap giver plays gote and moves first.

use std::fmt;

/// A side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// 先手 (black, `b` in SFEN, `+` in CSA).
    Sente,
    /// 後手 (white, `w` in SFEN, `-` in CSA).
    Gote,
}

impl Color {
    /// Both colors, sente first.
    pub const BOTH: [Color; 2] = [Color::Sente, Color::Gote];

    /// The other side.
    #[must_use]
    pub const fn opposite(self) -> Self {
        match self {
            Self::Sente => Self::Gote,
            Self::Gote => Self::Sente,
        }
    }

    /// 0 for sente, 1 for gote (handy for `[T; 2]` tables).
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Self::Sente => 0,
            Self::Gote => 1,
        }
    }

    /// The lower-case English name, `"sente"` or `"gote"` (the spelling of `results.jsonl`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sente => "sente",
            Self::Gote => "gote",
        }
    }

    pub(crate) const fn to_rs(self) -> rsshogi::types::Color {
        match self {
            Self::Sente => rsshogi::types::Color::BLACK,
            Self::Gote => rsshogi::types::Color::WHITE,
        }
    }

    pub(crate) const fn from_rs(color: rsshogi::types::Color) -> Self {
        match color {
            rsshogi::types::Color::Black => Self::Sente,
            rsshogi::types::Color::White => Self::Gote,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_swaps_and_round_trips_through_rsshogi() {
        assert_eq!(Color::Sente.opposite(), Color::Gote);
        assert_eq!(Color::Gote.opposite(), Color::Sente);
        for c in Color::BOTH {
            assert_eq!(Color::from_rs(c.to_rs()), c);
        }
        assert_eq!(Color::Gote.to_string(), "gote");
    }
}
