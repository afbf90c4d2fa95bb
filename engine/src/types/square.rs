//! Board squares in shogi coordinates: file 1..=9 counted from sente's right, rank 1..=9 counted
//! from gote's side (rank 1 is `a` in USI). Invariant: a `Square` is always on the board.

use std::fmt;

/// A square on the 9x9 board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    // (file - 1) * 9 + (rank - 1): the same numbering as rsshogi, so conversion is free.
    index: u8,
}

impl Square {
    /// The square at `file` (1..=9) and `rank` (1..=9), or `None` off the board.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Option<Self> {
        if file >= 1 && file <= 9 && rank >= 1 && rank <= 9 {
            Some(Self {
                index: (file - 1) * 9 + (rank - 1),
            })
        } else {
            None
        }
    }

    /// All 81 squares, file 1 rank 1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0u8..81).map(|index| Square { index })
    }

    /// File 1..=9 (1 is on sente's right).
    #[must_use]
    pub const fn file(self) -> u8 {
        self.index / 9 + 1
    }

    /// Rank 1..=9 (1 is gote's back rank, `a` in USI).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.index % 9 + 1
    }

    /// Parses USI square text such as `7g`.
    #[must_use]
    pub fn from_usi(text: &str) -> Option<Self> {
        match text.as_bytes() {
            [f @ b'1'..=b'9', r @ b'a'..=b'i'] => Self::new(f - b'0', r - b'a' + 1),
            _ => None,
        }
    }

    pub(crate) fn to_rs(self) -> rsshogi::types::Square {
        rsshogi::types::Square::new(self.index as i8)
    }

    /// `None` for rsshogi's "no square" value.
    pub(crate) fn from_rs(sq: rsshogi::types::Square) -> Option<Self> {
        let raw = sq.raw();
        (0..81).contains(&raw).then_some(Self { index: raw as u8 })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), char::from(b'a' + self.rank() - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_text_round_trips_and_matches_rsshogi() {
        for sq in Square::all() {
            let text = sq.to_string();
            assert_eq!(Square::from_usi(&text), Some(sq));
            assert_eq!(sq.to_rs().to_string(), text);
            assert_eq!(Square::from_rs(sq.to_rs()), Some(sq));
        }
        assert_eq!(Square::new(7, 7).map(|s| s.to_string()), Some("7g".into()));
        assert_eq!(Square::from_usi("0a"), None);
        assert_eq!(Square::from_usi("1j"), None);
        assert_eq!(Square::from_usi("1"), None);
        assert_eq!(Square::new(10, 1), None);
    }
}
