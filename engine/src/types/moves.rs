//! `Move`: one shogi move as USI knows it (from/to/promotion, or a drop), position-independent.
//!
//! A `Move` carries no judgement of legality; only `Position::parse_usi_move` and
//! `Position::legal_moves` hand out moves, so a `Move` in the wild came from some position's
//! legal list. Its text form is USI (`7g7f`, `8h2b+`, `P*5e`).

use super::piece::PieceKind;
use super::square::Square;
use std::fmt;

/// An opaque, copyable move. Display and [`Move::to_usi`] give USI text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(rsshogi::types::Move);

impl Move {
    pub(crate) const fn from_rs(mv: rsshogi::types::Move) -> Self {
        Self(mv)
    }

    pub(crate) const fn to_rs(self) -> rsshogi::types::Move {
        self.0
    }

    /// A board move (not checked against any position).
    pub(crate) fn normal(from: Square, to: Square, promote: bool) -> Self {
        let (from, to) = (from.to_rs(), to.to_rs());
        Self(if promote {
            rsshogi::types::Move::promotion(from, to)
        } else {
            rsshogi::types::Move::normal(from, to)
        })
    }

    /// A drop (not checked against any position).
    pub(crate) fn drop(kind: PieceKind, to: Square) -> Self {
        Self(rsshogi::types::Move::drop(kind.to_rs(), to.to_rs()))
    }

    /// The origin square, or `None` for a drop.
    #[must_use]
    pub fn from(self) -> Option<Square> {
        if self.0.is_drop() {
            None
        } else {
            Square::from_rs(self.0.from_sq())
        }
    }

    /// The destination square.
    #[must_use]
    pub fn to(self) -> Square {
        // Every Move we hand out is a normal move or drop, whose destination is on the board.
        Square::from_rs(self.0.to_sq()).unwrap_or_else(|| unreachable!("move without destination"))
    }

    /// Whether this move drops a piece from hand.
    #[must_use]
    pub const fn is_drop(self) -> bool {
        self.0.is_drop()
    }

    /// The kind dropped, for a drop.
    #[must_use]
    pub fn dropped_kind(self) -> Option<PieceKind> {
        self.0.dropped_piece().and_then(PieceKind::from_rs)
    }

    /// Whether this board move promotes (`+` in USI).
    #[must_use]
    pub const fn is_promotion(self) -> bool {
        self.0.is_promotion()
    }

    /// USI text: `7g7f`, `8h2b+`, `P*5e`.
    #[must_use]
    pub fn to_usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from(), self.dropped_kind()) {
            (None, Some(kind)) => write!(f, "{}*{}", kind.usi(), self.to()),
            (Some(from), _) => {
                write!(
                    f,
                    "{from}{}{}",
                    self.to(),
                    if self.is_promotion() { "+" } else { "" }
                )
            }
            (None, None) => f.write_str("none"),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        Square::from_usi(text).expect("test square")
    }

    #[test]
    fn usi_text_matches_rsshogi_for_every_shape() {
        let cases = [
            (Move::normal(sq("7g"), sq("7f"), false), "7g7f"),
            (Move::normal(sq("8h"), sq("2b"), true), "8h2b+"),
            (Move::drop(PieceKind::Pawn, sq("5e")), "P*5e"),
            (Move::drop(PieceKind::Rook, sq("1a")), "R*1a"),
        ];
        for (mv, text) in cases {
            assert_eq!(mv.to_usi(), text);
            assert_eq!(mv.to_rs().to_usi(), text);
        }
        let drop = Move::drop(PieceKind::Knight, sq("3c"));
        assert!(drop.is_drop());
        assert_eq!(drop.from(), None);
        assert_eq!(drop.dropped_kind(), Some(PieceKind::Knight));
        let promo = Move::normal(sq("2c"), sq("2b"), true);
        assert_eq!(
            (promo.from(), promo.to(), promo.is_promotion()),
            (Some(sq("2c")), sq("2b"), true)
        );
    }
}
