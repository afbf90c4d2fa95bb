//! Seed 002's 13 regions of the board, seen from the side to move ("self").
//!
//! | # | region | squares |
//! |---|--------|---------|
//! | 0 | around self's king | the up to 8 squares at Chebyshev distance 1 of self's king |
//! | 1 | around the opponent's king | the same around the opponent's king |
//! | 2 | two from self's king | the up to 16 squares at Chebyshev distance exactly 2 |
//! | 3 | two from the opponent's king | the same for the opponent's king |
//! | 4 | upper left | files 7-9, ranks 1-3 as the side to move sees the board |
//! | 5 | upper right | files 1-3, ranks 1-3, likewise |
//! | 6 | lower left | files 7-9, ranks 7-9, likewise |
//! | 7 | lower right | files 1-3, ranks 7-9, likewise |
//! | 8 | centre | files 3-7, ranks 3-7 (25 squares) |
//! | 9 | self attacks more | squares attacked by more of self's pieces than of the opponent's |
//! | 10 | the opponent attacks more | the reverse |
//! | 11 | self does not attack | squares no piece of self attacks |
//! | 12 | the opponent does not attack | squares no piece of the opponent attacks |
//!
//! "As the side to move sees the board": the diagram as Japanese books draw it for the side to
//! move at the bottom — upper is the opponent's camp, left is the side of file 9 for sente. For
//! gote to move the board is turned round: gote's upper left is files 1-3, ranks 7-9. So the
//! regions, and with them the attributes, do not depend on which colour is to move: the
//! colour-flipped position (board turned, colours swapped, the other side to move) has the
//! same regions, turned. Near the edge the king regions have fewer squares (off-board squares
//! are not counted). Attacks follow [`crate::position::attacks`].

use crate::position::attacks::{AttackMap, SquareSet};
use crate::types::{ByColor, Color, Square};

/// The number of regions.
pub const COUNT: usize = 13;

/// The regions' short names, in index order (see the module doc).
pub const NAMES: [&str; COUNT] = [
    "around self's king",
    "around the opponent's king",
    "two from self's king",
    "two from the opponent's king",
    "upper left",
    "upper right",
    "lower left",
    "lower right",
    "centre",
    "self attacks more",
    "the opponent attacks more",
    "self does not attack",
    "the opponent does not attack",
];

/// The region each region becomes when the other side is to move on the same board (self and
/// opponent swap, and the view turns round): 0 <-> 1, 2 <-> 3, upper left <-> lower right,
/// upper right <-> lower left, centre stays, 9 <-> 10, 11 <-> 12.
pub const SWAPPED: [usize; COUNT] = [1, 0, 3, 2, 7, 6, 5, 4, 8, 10, 9, 12, 11];

/// The 13 regions of a position whose side to move is `us`, from its attack map.
#[must_use]
pub fn regions(map: &AttackMap, us: Color, kings: ByColor<Square>) -> [SquareSet; COUNT] {
    let them = us.opposite();
    let (own_king, their_king) = (kings[us], kings[them]);
    // A square's (file, rank) as `us` sees the board.
    let seen = |s: Square| match us {
        Color::Sente => (s.file(), s.rank()),
        Color::Gote => (10 - s.file(), 10 - s.rank()),
    };
    let by = |keep: &dyn Fn(Square) -> bool| -> SquareSet {
        Square::all().filter(|&s| keep(s)).collect()
    };
    let ring = |king: Square, d: u8| {
        by(&|s: Square| {
            s.file()
                .abs_diff(king.file())
                .max(s.rank().abs_diff(king.rank()))
                == d
        })
    };
    let corner = |files: (u8, u8), ranks: (u8, u8)| {
        by(&|s: Square| {
            let (f, r) = seen(s);
            (files.0..=files.1).contains(&f) && (ranks.0..=ranks.1).contains(&r)
        })
    };
    let count = |s: Square, c: Color| map.attack_count(s, c);
    [
        ring(own_king, 1),
        ring(their_king, 1),
        ring(own_king, 2),
        ring(their_king, 2),
        corner((7, 9), (1, 3)),
        corner((1, 3), (1, 3)),
        corner((7, 9), (7, 9)),
        corner((1, 3), (7, 9)),
        corner((3, 7), (3, 7)),
        by(&|s| count(s, us) > count(s, them)),
        by(&|s| count(s, them) > count(s, us)),
        by(&|s| count(s, us) == 0),
        by(&|s| count(s, them) == 0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    fn set(squares: &str) -> SquareSet {
        squares
            .split_whitespace()
            .map(|s| Square::from_usi(s).expect("square"))
            .collect()
    }

    #[test]
    fn start_position_regions_by_hand() {
        let pos = Position::startpos();
        let map = AttackMap::new(&pos);
        let kings = ByColor::new_with(|c| pos.king_square(c));
        let r = regions(&map, Color::Sente, kings);
        assert_eq!(r[0], set("4h 5h 6h 4i 6i"));
        assert_eq!(r[1], set("4a 6a 4b 5b 6b"));
        assert_eq!(r[2], set("3g 4g 5g 6g 7g 3h 7h 3i 7i"));
        assert_eq!(r[3], set("3a 7a 3b 7b 3c 4c 5c 6c 7c"));
        assert_eq!(r[4], set("7a 8a 9a 7b 8b 9b 7c 8c 9c"));
        assert_eq!(r[5], set("1a 2a 3a 1b 2b 3b 1c 2c 3c"));
        assert_eq!(r[6], set("7g 8g 9g 7h 8h 9h 7i 8i 9i"));
        assert_eq!(r[7], set("1g 2g 3g 1h 2h 3h 1i 2i 3i"));
        assert_eq!(r[8].len(), 25);
        assert!(r[8].contains(Square::from_usi("3c").expect("sq")));
        assert!(!r[8].contains(Square::from_usi("2e").expect("sq")));
        // Sente attacks rank 6 (pawns), all of rank 8 and these of ranks 7 and 9; gote the
        // same turned round; nobody attacks rank 5.
        let more = set(
            "9f 8f 7f 6f 5f 4f 3f 2f 1f 9g 7g 3g 2g 1g 9h 8h 7h 6h 5h 4h 3h 2h 1h \
             9i 7i 6i 5i 4i 3i 2i",
        );
        assert_eq!(r[9], more);
        assert_eq!(r[10].len(), 30);
        assert_eq!(r[11].len(), 51);
        assert!(r[11].contains(Square::from_usi("8i").expect("sq")));
        assert_eq!(r[12].len(), 51);
        // Gote to move on a board turned round: the same regions, turned.
        let gote =
            Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
                .expect("sfen");
        let g = regions(&AttackMap::new(&gote), Color::Gote, kings);
        for (i, j) in SWAPPED.iter().enumerate() {
            assert_eq!(g[i], r[*j], "region {i}");
        }
    }
}
