//! Piece kinds (promoted kinds are kinds of their own, as on the board) and colored pieces.

use super::color::Color;
use rsshogi::types::PieceType;

/// What kind of piece: the eight base kinds and the six promoted ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Pawn,
    Lance,
    Knight,
    Silver,
    Gold,
    Bishop,
    Rook,
    King,
    ProPawn,
    ProLance,
    ProKnight,
    ProSilver,
    Horse,
    Dragon,
}

impl PieceKind {
    /// The seven kinds that can be held in hand, in SFEN hand order (rook first).
    pub const HAND: [PieceKind; 7] = [
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Gold,
        PieceKind::Silver,
        PieceKind::Knight,
        PieceKind::Lance,
        PieceKind::Pawn,
    ];

    /// The promoted kind, or `None` for gold, king and promoted pieces.
    #[must_use]
    pub const fn promoted(self) -> Option<Self> {
        match self {
            Self::Pawn => Some(Self::ProPawn),
            Self::Lance => Some(Self::ProLance),
            Self::Knight => Some(Self::ProKnight),
            Self::Silver => Some(Self::ProSilver),
            Self::Bishop => Some(Self::Horse),
            Self::Rook => Some(Self::Dragon),
            _ => None,
        }
    }

    /// The unpromoted kind (what the piece becomes when captured; kings stay kings).
    #[must_use]
    pub const fn unpromoted(self) -> Self {
        match self {
            Self::ProPawn => Self::Pawn,
            Self::ProLance => Self::Lance,
            Self::ProKnight => Self::Knight,
            Self::ProSilver => Self::Silver,
            Self::Horse => Self::Bishop,
            Self::Dragon => Self::Rook,
            other => other,
        }
    }

    /// Whether this is a promoted kind.
    #[must_use]
    pub const fn is_promoted(self) -> bool {
        matches!(
            self,
            Self::ProPawn
                | Self::ProLance
                | Self::ProKnight
                | Self::ProSilver
                | Self::Horse
                | Self::Dragon
        )
    }

    /// The USI/SFEN letter for sente (`P`, `+P`, ...).
    #[must_use]
    pub const fn usi(self) -> &'static str {
        match self {
            Self::Pawn => "P",
            Self::Lance => "L",
            Self::Knight => "N",
            Self::Silver => "S",
            Self::Gold => "G",
            Self::Bishop => "B",
            Self::Rook => "R",
            Self::King => "K",
            Self::ProPawn => "+P",
            Self::ProLance => "+L",
            Self::ProKnight => "+N",
            Self::ProSilver => "+S",
            Self::Horse => "+B",
            Self::Dragon => "+R",
        }
    }

    /// The kind a USI drop letter names (`P`, `L`, `N`, `S`, `G`, `B`, `R`), upper case only.
    #[must_use]
    pub const fn from_usi_drop_letter(letter: u8) -> Option<Self> {
        match letter {
            b'P' => Some(Self::Pawn),
            b'L' => Some(Self::Lance),
            b'N' => Some(Self::Knight),
            b'S' => Some(Self::Silver),
            b'G' => Some(Self::Gold),
            b'B' => Some(Self::Bishop),
            b'R' => Some(Self::Rook),
            _ => None,
        }
    }

    pub(crate) const fn to_rs(self) -> PieceType {
        match self {
            Self::Pawn => PieceType::PAWN,
            Self::Lance => PieceType::LANCE,
            Self::Knight => PieceType::KNIGHT,
            Self::Silver => PieceType::SILVER,
            Self::Gold => PieceType::GOLD,
            Self::Bishop => PieceType::BISHOP,
            Self::Rook => PieceType::ROOK,
            Self::King => PieceType::KING,
            Self::ProPawn => PieceType::PRO_PAWN,
            Self::ProLance => PieceType::PRO_LANCE,
            Self::ProKnight => PieceType::PRO_KNIGHT,
            Self::ProSilver => PieceType::PRO_SILVER,
            Self::Horse => PieceType::HORSE,
            Self::Dragon => PieceType::DRAGON,
        }
    }

    pub(crate) const fn from_rs(pt: PieceType) -> Option<Self> {
        Some(match pt {
            PieceType::PAWN => Self::Pawn,
            PieceType::LANCE => Self::Lance,
            PieceType::KNIGHT => Self::Knight,
            PieceType::SILVER => Self::Silver,
            PieceType::GOLD => Self::Gold,
            PieceType::BISHOP => Self::Bishop,
            PieceType::ROOK => Self::Rook,
            PieceType::KING => Self::King,
            PieceType::PRO_PAWN => Self::ProPawn,
            PieceType::PRO_LANCE => Self::ProLance,
            PieceType::PRO_KNIGHT => Self::ProKnight,
            PieceType::PRO_SILVER => Self::ProSilver,
            PieceType::HORSE => Self::Horse,
            PieceType::DRAGON => Self::Dragon,
            _ => return None,
        })
    }
}

/// A piece of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    pub(crate) fn from_rs(piece: rsshogi::types::Piece) -> Option<Self> {
        if piece.is_empty() {
            return None;
        }
        Some(Self {
            color: Color::from_rs(piece.color()),
            kind: PieceKind::from_rs(piece.piece_type())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [PieceKind; 14] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProLance,
        PieceKind::ProKnight,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];

    #[test]
    fn kinds_round_trip_through_rsshogi_and_agree_on_letters() {
        for kind in ALL {
            assert_eq!(PieceKind::from_rs(kind.to_rs()), Some(kind));
            assert_eq!(kind.to_rs().to_string().to_ascii_uppercase(), kind.usi());
            assert_eq!(kind.is_promoted(), kind.to_rs().is_promoted());
            if let Some(p) = kind.promoted() {
                assert_eq!(p.unpromoted(), kind);
                assert_eq!(p.to_rs(), kind.to_rs().promote());
            }
        }
        assert_eq!(PieceKind::Gold.promoted(), None);
        assert_eq!(PieceKind::King.promoted(), None);
        assert_eq!(PieceKind::from_usi_drop_letter(b'K'), None);
        assert_eq!(PieceKind::from_usi_drop_letter(b'p'), None);
    }
}
