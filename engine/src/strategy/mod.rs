//! Strategy labels (戦型) of a position, by documented square rules, as shogi GUIs label records:
//! for each side, static rook (居飛車) or ranging rook (振り飛車) with the file the rook went to,
//! and its castle (囲い); for the position, the family that combines both sides' rooks.
//!
//! Why rules and not a learned classifier: seed 002's categories turned out to be opening
//! strategies, and without human labellers the FAR pairs, the balanced opening suites and the
//! results by family need labels anyone can check on a board.
//!
//! **Relative squares.** Every rule is written for sente, in sente's coordinates; gote's pieces
//! are read on the board turned round (file `10 - f`, rank `10 - r`). "四間飛車" is then sente's
//! rook on file 6 or gote's on file 4: the fourth file counted from the player's left.
//!
//! **Rook.** A side ranges its rook (振り飛車) when, in some position of the opening up to the
//! labelled one (the root and the positions after each of the first [`OPENING_PLIES`] moves),
//! its own unpromoted rook stood on relative file 5-9 behind its pawn line (relative rank 7-9:
//! a rook swings sideways along its home rank; a rook lifted to rank 6 and moved across, as in
//! 相掛かり's 浮き飛車, stays static); the ranging file is the relative file of the last such square (a rook that
//! changes file, e.g. 四間 then 向かい, is labelled by where it went last): 5 中飛車 (central),
//! 6 四間飛車 (fourth file), 7 三間飛車 (third file), 8 向かい飛車 (opposing), 9 九間飛車 (ninth,
//! rare). Otherwise static rook (居飛車), which includes 袖飛車 and 右四間飛車 (files 3 and 4).
//! The positions scanned are the position's own history from its root (a position read from a
//! bare SFEN has only itself), so a rook exchanged after ranging still counts as ranged, as GUIs
//! label a record by its opening; the cut at [`OPENING_PLIES`] keeps a middlegame rook drop or
//! defence (a static-rook player's ▲5八飛 at move 60) from relabelling the opening.
//!
//! **Castle**, read on the labelled position alone, the first rule that holds (K king, G gold,
//! S silver, L lance, relative squares, file then rank; promoted pieces do not count):
//!
//! | castle | key | rule |
//! |--------|-----|------|
//! | 穴熊 | anaguma | K 9九 with L 9八, or K 1九 with L 1八; and a G or S next to the king |
//! | 銀冠 | ginkan | K 2八, S 2七, G 3八 |
//! | 高美濃 | takamino | K 2八, S 3八, G 4九, G 4七 |
//! | 美濃 | mino | K 2八, S 3八, G 4九 (片美濃 and 本美濃) |
//! | 左美濃 | hidarimino | K 8八 or 8七, S 7八, G 6九 (天守閣美濃 included) |
//! | 矢倉 | yagura | K 8八 or 7九 (entered, or about to), G 7八, S 7七, and G or S on 6七 (金矢倉, 銀矢倉) |
//! | 雁木 | gangi | S 6七, S 5七, G 7八, K 6九 or 7九 |
//! | 舟囲い | funagakoi | K 7八, G 6九, G 5八 |
//! | none | none | none of the above |
//!
//! The patterns are the usual textbook diagrams (the same squares GUIs' castle tables list);
//! the order puts the more specific of overlapping patterns first (高美濃 before 美濃).
//!
//! **Family** of a position: both static — `static-vs-static` (相居飛車); one ranging —
//! `static-vs-ranging:<file>` (対抗形, whichever side ranges; `<file>` is `central`,
//! `fourth-file`, `third-file`, `opposing` or `ninth-file`); both ranging —
//! `ranging-vs-ranging` (相振り飛車). The key is the stable string form (files, reports); the
//! Japanese name is for people.

use crate::position::Position;
use crate::types::{ByColor, Color, Piece, PieceKind, Square};
use std::fmt;
use std::str::FromStr;

/// How many plies from the root the rook rule looks at.
pub const OPENING_PLIES: usize = 40;

/// The file a ranging rook went to, counted from its owner's left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RangingFile {
    /// 中飛車, file 5.
    Central,
    /// 四間飛車, relative file 6.
    FourthFile,
    /// 三間飛車, relative file 7.
    ThirdFile,
    /// 向かい飛車, relative file 8.
    Opposing,
    /// 九間飛車, relative file 9.
    NinthFile,
}

impl RangingFile {
    /// All five, central first.
    pub const ALL: [RangingFile; 5] = [
        RangingFile::Central,
        RangingFile::FourthFile,
        RangingFile::ThirdFile,
        RangingFile::Opposing,
        RangingFile::NinthFile,
    ];

    /// The rook's relative file (5..=9).
    #[must_use]
    pub const fn relative_file(self) -> u8 {
        match self {
            Self::Central => 5,
            Self::FourthFile => 6,
            Self::ThirdFile => 7,
            Self::Opposing => 8,
            Self::NinthFile => 9,
        }
    }

    const fn from_relative_file(file: u8) -> Option<Self> {
        Some(match file {
            5 => Self::Central,
            6 => Self::FourthFile,
            7 => Self::ThirdFile,
            8 => Self::Opposing,
            9 => Self::NinthFile,
            _ => return None,
        })
    }

    /// The English key: `central`, `fourth-file`, `third-file`, `opposing`, `ninth-file`.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Central => "central",
            Self::FourthFile => "fourth-file",
            Self::ThirdFile => "third-file",
            Self::Opposing => "opposing",
            Self::NinthFile => "ninth-file",
        }
    }

    /// The Japanese name: 中飛車, 四間飛車, 三間飛車, 向かい飛車, 九間飛車.
    #[must_use]
    pub const fn name_ja(self) -> &'static str {
        match self {
            Self::Central => "中飛車",
            Self::FourthFile => "四間飛車",
            Self::ThirdFile => "三間飛車",
            Self::Opposing => "向かい飛車",
            Self::NinthFile => "九間飛車",
        }
    }
}

/// What one side did with its rook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rook {
    /// 居飛車.
    Static,
    /// 振り飛車 to this file.
    Ranging(RangingFile),
}

/// A side's castle (see the module doc for the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Castle {
    Anaguma,
    Ginkan,
    TakaMino,
    Mino,
    HidariMino,
    Yagura,
    Gangi,
    Funagakoi,
    None,
}

impl Castle {
    /// All castles in the order their rules are tried, `None` last.
    pub const ALL: [Castle; 9] = [
        Castle::Anaguma,
        Castle::Ginkan,
        Castle::TakaMino,
        Castle::Mino,
        Castle::HidariMino,
        Castle::Yagura,
        Castle::Gangi,
        Castle::Funagakoi,
        Castle::None,
    ];

    /// The English key (lower case, no spaces).
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Anaguma => "anaguma",
            Self::Ginkan => "ginkan",
            Self::TakaMino => "takamino",
            Self::Mino => "mino",
            Self::HidariMino => "hidarimino",
            Self::Yagura => "yagura",
            Self::Gangi => "gangi",
            Self::Funagakoi => "funagakoi",
            Self::None => "none",
        }
    }

    /// The Japanese name (`なし` for none).
    #[must_use]
    pub const fn name_ja(self) -> &'static str {
        match self {
            Self::Anaguma => "穴熊",
            Self::Ginkan => "銀冠",
            Self::TakaMino => "高美濃",
            Self::Mino => "美濃",
            Self::HidariMino => "左美濃",
            Self::Yagura => "矢倉",
            Self::Gangi => "雁木",
            Self::Funagakoi => "舟囲い",
            Self::None => "なし",
        }
    }
}

impl fmt::Display for Castle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One side's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SideLabel {
    pub rook: Rook,
    pub castle: Castle,
}

/// The opening family of a position, from both sides' rooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// 相居飛車: both static.
    StaticVsStatic,
    /// 対抗形: one side ranges to this file.
    StaticVsRanging(RangingFile),
    /// 相振り飛車: both ranging.
    RangingVsRanging,
}

impl Family {
    /// Every family, in a fixed order (static first).
    #[must_use]
    pub fn all() -> Vec<Family> {
        std::iter::once(Family::StaticVsStatic)
            .chain(RangingFile::ALL.map(Family::StaticVsRanging))
            .chain(std::iter::once(Family::RangingVsRanging))
            .collect()
    }

    /// The stable English key, e.g. `static-vs-ranging:fourth-file`.
    #[must_use]
    pub fn key(self) -> String {
        match self {
            Self::StaticVsStatic => "static-vs-static".into(),
            Self::StaticVsRanging(file) => format!("static-vs-ranging:{}", file.key()),
            Self::RangingVsRanging => "ranging-vs-ranging".into(),
        }
    }

    /// The Japanese name, e.g. `対抗形:四間飛車`.
    #[must_use]
    pub fn name_ja(self) -> String {
        match self {
            Self::StaticVsStatic => "相居飛車".into(),
            Self::StaticVsRanging(file) => format!("対抗形:{}", file.name_ja()),
            Self::RangingVsRanging => "相振り飛車".into(),
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// Text that is not a family key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown strategy family `{0}` (expected static-vs-static, static-vs-ranging:<file> or ranging-vs-ranging)"
)]
pub struct UnknownFamily(pub String);

impl FromStr for Family {
    type Err = UnknownFamily;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Family::all()
            .into_iter()
            .find(|f| f.key() == s)
            .ok_or_else(|| UnknownFamily(s.to_string()))
    }
}

/// Both sides' labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub sente: SideLabel,
    pub gote: SideLabel,
}

impl Label {
    /// One side's label.
    #[must_use]
    pub fn side(&self, color: Color) -> SideLabel {
        match color {
            Color::Sente => self.sente,
            Color::Gote => self.gote,
        }
    }

    /// The position's family.
    #[must_use]
    pub fn family(&self) -> Family {
        match (self.sente.rook, self.gote.rook) {
            (Rook::Static, Rook::Static) => Family::StaticVsStatic,
            (Rook::Ranging(file), Rook::Static) | (Rook::Static, Rook::Ranging(file)) => {
                Family::StaticVsRanging(file)
            }
            (Rook::Ranging(_), Rook::Ranging(_)) => Family::RangingVsRanging,
        }
    }
}

/// Labels `pos`: each side's rook from the game up to `pos` (its history from its root), each
/// side's castle from `pos` itself.
#[must_use]
pub fn label(pos: &Position) -> Label {
    let mut rooks = ByColor::<Option<RangingFile>>::default();
    let mut replay = Position::from_sfen(pos.root_sfen())
        .unwrap_or_else(|e| unreachable!("a position's root SFEN is valid: {e}"));
    let mut note = |p: &Position| {
        for color in Color::BOTH {
            if let Some(file) = ranging_square(p, color) {
                rooks[color] = Some(file);
            }
        }
    };
    note(&replay);
    for mv in pos.moves().into_iter().take(OPENING_PLIES) {
        replay.play(mv);
        note(&replay);
    }
    let side = |color: Color| SideLabel {
        rook: rooks[color].map_or(Rook::Static, Rook::Ranging),
        castle: castle(pos, color),
    };
    Label {
        sente: side(Color::Sente),
        gote: side(Color::Gote),
    }
}

/// The square `(file, rank)` as `color` sees it (its own coordinates turned for gote).
fn relative(sq: Square, color: Color) -> (u8, u8) {
    match color {
        Color::Sente => (sq.file(), sq.rank()),
        Color::Gote => (10 - sq.file(), 10 - sq.rank()),
    }
}

/// The board square `color` calls `(file, rank)`.
fn absolute(file: u8, rank: u8, color: Color) -> Square {
    let (f, r) = match color {
        Color::Sente => (file, rank),
        Color::Gote => (10 - file, 10 - rank),
    };
    Square::new(f, r).unwrap_or_else(|| unreachable!("castle squares are on the board"))
}

/// The ranging file of `color`'s unpromoted rook in `pos`, if it stands on relative file 5-9
/// behind its pawn line (relative rank 7-9).
fn ranging_square(pos: &Position, color: Color) -> Option<RangingFile> {
    Square::all()
        .filter(|&s| {
            pos.piece_at(s)
                == Some(Piece {
                    color,
                    kind: PieceKind::Rook,
                })
        })
        .filter_map(|s| {
            let (file, rank) = relative(s, color);
            if rank >= 7 {
                RangingFile::from_relative_file(file)
            } else {
                None
            }
        })
        .last()
}

/// `color`'s castle in `pos` (the module doc's table).
#[must_use]
pub fn castle(pos: &Position, color: Color) -> Castle {
    let has = |kind: PieceKind, file: u8, rank: u8| {
        pos.piece_at(absolute(file, rank, color)) == Some(Piece { color, kind })
    };
    let (k, g, s, l) = (
        PieceKind::King,
        PieceKind::Gold,
        PieceKind::Silver,
        PieceKind::Lance,
    );
    let guarded = |file: u8, rank: u8| {
        (1..=9).any(|f: u8| {
            (1..=9).any(|r: u8| {
                f.abs_diff(file).max(r.abs_diff(rank)) == 1 && (has(g, f, r) || has(s, f, r))
            })
        })
    };
    let anaguma = (has(k, 9, 9) && has(l, 9, 8) && guarded(9, 9))
        || (has(k, 1, 9) && has(l, 1, 8) && guarded(1, 9));
    let rules = [
        (Castle::Anaguma, anaguma),
        (Castle::Ginkan, has(k, 2, 8) && has(s, 2, 7) && has(g, 3, 8)),
        (
            Castle::TakaMino,
            has(k, 2, 8) && has(s, 3, 8) && has(g, 4, 9) && has(g, 4, 7),
        ),
        (Castle::Mino, has(k, 2, 8) && has(s, 3, 8) && has(g, 4, 9)),
        (
            Castle::HidariMino,
            (has(k, 8, 8) || has(k, 8, 7)) && has(s, 7, 8) && has(g, 6, 9),
        ),
        (
            Castle::Yagura,
            (has(k, 8, 8) || has(k, 7, 9))
                && has(g, 7, 8)
                && has(s, 7, 7)
                && (has(g, 6, 7) || has(s, 6, 7)),
        ),
        (
            Castle::Gangi,
            has(s, 6, 7) && has(s, 5, 7) && has(g, 7, 8) && (has(k, 6, 9) || has(k, 7, 9)),
        ),
        (
            Castle::Funagakoi,
            has(k, 7, 8) && has(g, 6, 9) && has(g, 5, 8),
        ),
    ];
    rules
        .into_iter()
        .find_map(|(castle, holds)| holds.then_some(castle))
        .unwrap_or(Castle::None)
}

#[cfg(test)]
mod tests;
