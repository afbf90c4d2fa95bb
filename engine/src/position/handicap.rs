//! Start positions by name: the even game and the handicaps of `docs/reference/rules.md` (plus the
//! three less common ones rsshogi also knows, so KIF files that name them can be read).
//!
//! Invariant: in every handicap start the handicap giver (上手) plays gote and moves first, so
//! the SFEN has `w` to move.

use rsshogi::board::InitialPosition;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A named start position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Handicap {
    /// 平手: no handicap.
    Even,
    /// 香落ち: gote plays without the lance on 1a.
    Lance,
    /// 右香落ち: gote plays without the lance on 9a.
    RightLance,
    /// 角落ち
    Bishop,
    /// 飛車落ち
    Rook,
    /// 飛香落ち
    RookLance,
    /// 二枚落ち
    TwoPieces,
    /// 三枚落ち
    ThreePieces,
    /// 四枚落ち
    FourPieces,
    /// 五枚落ち
    FivePieces,
    /// 左五枚落ち
    LeftFivePieces,
    /// 六枚落ち
    SixPieces,
    /// 八枚落ち
    EightPieces,
    /// 十枚落ち
    TenPieces,
}

/// A name that is not a handicap we know.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown handicap `{0}` (known: {known})", known = Handicap::ALL.map(|h| h.name()).join(", "))]
pub struct UnknownHandicap(pub String);

impl Handicap {
    /// Every named start, even game first.
    pub const ALL: [Handicap; 14] = [
        Handicap::Even,
        Handicap::Lance,
        Handicap::RightLance,
        Handicap::Bishop,
        Handicap::Rook,
        Handicap::RookLance,
        Handicap::TwoPieces,
        Handicap::ThreePieces,
        Handicap::FourPieces,
        Handicap::FivePieces,
        Handicap::LeftFivePieces,
        Handicap::SixPieces,
        Handicap::EightPieces,
        Handicap::TenPieces,
    ];

    /// The English name used in configs (`even`, `lance`, `right-lance`, ..., `ten-pieces`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Even => "even",
            Self::Lance => "lance",
            Self::RightLance => "right-lance",
            Self::Bishop => "bishop",
            Self::Rook => "rook",
            Self::RookLance => "rook-lance",
            Self::TwoPieces => "two-pieces",
            Self::ThreePieces => "three-pieces",
            Self::FourPieces => "four-pieces",
            Self::FivePieces => "five-pieces",
            Self::LeftFivePieces => "left-five-pieces",
            Self::SixPieces => "six-pieces",
            Self::EightPieces => "eight-pieces",
            Self::TenPieces => "ten-pieces",
        }
    }

    /// The Japanese name as KIF's `手合割` writes it (`平手`, `香落ち`, ...).
    #[must_use]
    pub fn japanese_name(self) -> &'static str {
        // Every variant maps to a named rsshogi start; "平手" only as a formality.
        self.initial().handicap_name_ja().unwrap_or("平手")
    }

    /// The start position as SFEN (move number 1).
    #[must_use]
    pub const fn sfen(self) -> &'static str {
        self.initial().to_sfen()
    }

    /// The named start whose SFEN this is (move number and spacing as rsshogi writes them).
    #[must_use]
    pub fn from_sfen(sfen: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.sfen() == sfen)
    }

    const fn initial(self) -> InitialPosition {
        match self {
            Self::Even => InitialPosition::Standard,
            Self::Lance => InitialPosition::HandicapLance,
            Self::RightLance => InitialPosition::HandicapRightLance,
            Self::Bishop => InitialPosition::HandicapBishop,
            Self::Rook => InitialPosition::HandicapRook,
            Self::RookLance => InitialPosition::HandicapRookLance,
            Self::TwoPieces => InitialPosition::Handicap2Pieces,
            Self::ThreePieces => InitialPosition::Handicap3Pieces,
            Self::FourPieces => InitialPosition::Handicap4Pieces,
            Self::FivePieces => InitialPosition::Handicap5Pieces,
            Self::LeftFivePieces => InitialPosition::HandicapLeft5Pieces,
            Self::SixPieces => InitialPosition::Handicap6Pieces,
            Self::EightPieces => InitialPosition::Handicap8Pieces,
            Self::TenPieces => InitialPosition::Handicap10Pieces,
        }
    }
}

impl FromStr for Handicap {
    type Err = UnknownHandicap;

    /// Accepts the English names (case-insensitive, `_` or `-`), and the Japanese names
    /// (`香落ち`, also `香落`, `飛車香落ち`, `飛落ち` as some GUIs write them).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        let english = trimmed.to_ascii_lowercase().replace('_', "-");
        if let Some(h) = Self::ALL.into_iter().find(|h| h.name() == english) {
            return Ok(h);
        }
        let aliases = [
            ("飛落ち", Self::Rook),
            ("飛車香落ち", Self::RookLance),
            ("none", Self::Even),
        ];
        if let Some((_, h)) = aliases.iter().find(|(name, _)| *name == english) {
            return Ok(*h);
        }
        let japanese = if trimmed.ends_with('ち') {
            trimmed.to_string()
        } else {
            format!("{trimmed}ち")
        };
        InitialPosition::from_handicap_name_ja(trimmed)
            .or_else(|| InitialPosition::from_handicap_name_ja(&japanese))
            .and_then(|initial| Self::ALL.into_iter().find(|h| h.initial() == initial))
            .ok_or_else(|| UnknownHandicap(text.to_string()))
    }
}

impl fmt::Display for Handicap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of `docs/reference/rules.md`, copied as text: rsshogi's table must agree with it.
    const RULES_MD: [(&str, &str, &str); 11] = [
        (
            "even",
            "平手",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        ),
        (
            "lance",
            "香落ち",
            "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "right-lance",
            "右香落ち",
            "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "bishop",
            "角落ち",
            "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "rook",
            "飛車落ち",
            "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "rook-lance",
            "飛香落ち",
            "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "two-pieces",
            "二枚落ち",
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "four-pieces",
            "四枚落ち",
            "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "six-pieces",
            "六枚落ち",
            "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "eight-pieces",
            "八枚落ち",
            "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
        (
            "ten-pieces",
            "十枚落ち",
            "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ),
    ];

    #[test]
    fn every_rules_md_handicap_parses_by_both_names_to_the_spec_sfen() {
        for (english, japanese, sfen) in RULES_MD {
            let h: Handicap = english.parse().expect(english);
            assert_eq!(japanese.parse::<Handicap>(), Ok(h), "{japanese}");
            assert_eq!(h.sfen(), sfen, "{english}");
            assert_eq!(h.japanese_name(), japanese);
            assert_eq!(h.name(), english);
            assert_eq!(Handicap::from_sfen(sfen), Some(h));
        }
    }

    #[test]
    fn names_are_tolerant_of_case_and_underscores_but_not_of_nonsense() {
        assert_eq!("Right_Lance".parse::<Handicap>(), Ok(Handicap::RightLance));
        assert_eq!("香落".parse::<Handicap>(), Ok(Handicap::Lance));
        assert_eq!("飛落ち".parse::<Handicap>(), Ok(Handicap::Rook));
        let err = "queen".parse::<Handicap>().expect_err("queen");
        assert!(err.to_string().contains("queen") && err.to_string().contains("ten-pieces"));
        for h in Handicap::ALL {
            assert_eq!(h.to_string().parse::<Handicap>(), Ok(h));
            assert_eq!(h.japanese_name().parse::<Handicap>(), Ok(h));
        }
    }
}
