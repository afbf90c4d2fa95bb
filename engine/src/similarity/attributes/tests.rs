use super::*;
use crate::position::attacks::test_support::{flipped, random_game};
use proptest::prelude::*;

const GOLD: usize = 6;
const PAWN: usize = 5;
const KING: usize = 7;

fn at(slot: usize, a: usize) -> usize {
    PER_SLOT * slot + a
}

/// The start position, grouping 56, worked by hand (sente to move; gote's values are the same
/// by symmetry). First sums are board + hand + attacks on pieces, e.g. the rook: 1 on board,
/// attacks on the bishop, the pawn on 2g and the knight on 2i (3) = 4; the bishop attacks the
/// pawns on 7g and 9g, the silver on 7i and the lance on 9i; each knight two pawns; each gold
/// and the king two pieces of the 6i-5i-4i row and the silvers beside them.
///
/// Last sums count region memberships of the pieces' squares and of the squares they attack.
/// With sente to move the regions are: around self's king 4h 5h 6h 4i 6i; two from it 3g-7g,
/// 3h 7h 3i 7i; lower left files 7-9 ranks 7-9, lower right files 1-3 ranks 7-9; centre files
/// 3-7 ranks 3-7; sente attacks more on 30 squares (rank 6; 9g 7g 3g 2g 1g; all of rank 8;
/// rank 9 but 8i and 1i); sente does not attack the 51 others; gote attacks nothing on ranks
/// 5-9. E.g. the rook on 2h stands in lower right, sente-more and gote-none (3); of the 9
/// squares it attacks, 2g 2i 1h are in those three regions too, 3h also two-from-king (4),
/// 4h 5h 6h around-king, sente-more, gote-none (3 each), 7h two-from-king, lower left,
/// sente-more, gote-none (4), 8h lower left, sente-more, gote-none (3): 29, so 32 in all.
const START_56: [u32; 28] = [
    4, 32, // 飛
    5, 18, // 角: 3 + (7g 5, 9g 3, 7i 4, 9i 3)
    4, 28, // 銀: 2 + 2 | 7i: 4 + (8h 3, 7h 4, 6h 3); 3i: 4 + (4h 3, 3h 4, 2h 3)
    6, 22, // 桂: 2 + 4 | 8i: 3 + (9g 3, 7g 5); 2i: 3 + (3g 5, 1g 3)
    4, 18, // 香: 2 + 2 | 9i: 3 + (9h 3, 9g 3); 1i: 3 + (1h 3, 1g 3)
    9, 57, // 歩: 9 | on 9g..1g 3 3 5 4 4 4 5 3 3 = 34; on 9f..1f 2 2 3 3 3 3 3 2 2 = 23
    6, 38, // 金: 2 + 4 | 6i: 3 + (7h 4, 6h 3, 5h 3, 7i 4, 5i 2); 4i likewise
    3, 17, // 玉: 1 + 2 | 5i: 2 + (6h 5h 4h 6i 4i: 3 each)
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // promoted kinds
];

#[test]
fn start_position_grouping_56_by_hand() {
    let g = attributes(&Position::startpos(), Grouping::G56);
    assert_eq!(g.len(), 56);
    assert_eq!(&g[..28], &START_56);
    assert_eq!(&g[28..], &START_56, "gote's slots mirror sente's");
}

#[test]
fn start_position_raw_spot_checks_by_hand() {
    let r = raw(&Position::startpos());
    assert_eq!(r.len(), 1568);
    // Self's rook (slot 0): on board, attacks its bishop, a pawn and a knight.
    assert_eq!(r[at(0, ON_BOARD)], 1);
    assert_eq!(r[at(0, IN_HAND)], 0);
    assert_eq!(r[at(0, ATTACKS_ON + 1)], 1);
    assert_eq!(r[at(0, ATTACKS_ON + PAWN)], 1);
    assert_eq!(r[at(0, ATTACKS_ON + 3)], 1);
    assert_eq!(r[at(0, ATTACKS_ON + 14)], 0, "no gote rook in reach");
    // It stands in lower right (7), sente-more (9) and gote-none (12).
    let presence: Vec<u32> = (0..13).map(|i| r[at(0, IN_REGION + i)]).collect();
    assert_eq!(presence, [0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1]);
    // Its 9 attacked squares: 4h 5h 6h around the king, 3h 7h two away, 7h 8h lower left,
    // 2g 2i 1h 3h lower right, none central, all sente-more and gote-none.
    let attacks: Vec<u32> = (0..13).map(|i| r[at(0, ATTACKS_REGION + i)]).collect();
    assert_eq!(attacks, [3, 0, 2, 0, 0, 0, 2, 4, 0, 9, 0, 0, 9]);
    // The king defends both golds.
    assert_eq!(r[at(KING, ATTACKS_ON + GOLD)], 2);
    // Pawns: 9 on board, 5 in the centre (3g-7g), 4 on squares sente does not attack (8g 6g
    // 5g 4g), 5 attacks on the centre (3f-7f).
    assert_eq!(r[at(PAWN, ON_BOARD)], 9);
    assert_eq!(r[at(PAWN, IN_REGION + 8)], 5);
    assert_eq!(r[at(PAWN, IN_REGION + 11)], 4);
    assert_eq!(r[at(PAWN, ATTACKS_REGION + 8)], 5);
    // Gote's bishop (slot 15) defends two of its pawns (slot 19), its silver and its lance.
    assert_eq!(r[at(15, ATTACKS_ON + 19)], 2);
    assert_eq!(r[at(15, ATTACKS_ON + 16)], 1);
    assert_eq!(r[at(15, ATTACKS_ON + 18)], 1);
    // Grouping 112: 20 pieces a side; sente's pieces defend its pawns 9 times (9g 3, 7g 2,
    // 3g 1, 2g 1, 1g 2).
    let g = group(&r, Grouping::G112);
    assert_eq!((g[ON_BOARD], g[PER_SLOT + ON_BOARD]), (20, 20));
    assert_eq!(g[ATTACKS_ON + PAWN], 9);
    assert_eq!(g[PER_SLOT + ATTACKS_ON + 14 + PAWN], 9);
}

#[test]
fn hands_belong_to_the_side_to_move_or_the_opponent() {
    let sente = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2Pr 1").expect("sfen");
    let r = raw(&sente);
    assert_eq!(r[at(PAWN, IN_HAND)], 2);
    assert_eq!(r[at(14, IN_HAND)], 1, "gote's rook in hand");
    let gote = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w 2Pr 1").expect("sfen");
    let r = raw(&gote);
    assert_eq!(r[at(0, IN_HAND)], 1, "self is gote now");
    assert_eq!(r[at(14 + PAWN, IN_HAND)], 2);
}

#[test]
fn indices_are_described_as_documented() {
    assert_eq!(
        describe(12, Grouping::G56),
        "self 金: first 30 (board, hand, attacks on pieces)"
    );
    assert_eq!(
        describe(29, Grouping::G56),
        "opponent 飛: last 26 (regions, attacks on regions)"
    );
    assert_eq!(
        describe(at(1, ATTACKS_ON + 21), Grouping::Raw),
        "self 角: attacks on opponent 玉"
    );
    assert_eq!(
        describe(at(27, ATTACKS_REGION + 4), Grouping::Raw),
        "opponent と: attacks on region upper left"
    );
    assert_eq!(
        describe(PER_SLOT + IN_REGION, Grouping::G112),
        "opponent pieces: in region around self's king"
    );
    for g in [Grouping::Raw, Grouping::G56, Grouping::G112] {
        assert_eq!(g.to_string().parse::<Grouping>(), Ok(g));
        // The swap is a permutation, and swapping twice is the identity.
        let mut seen = vec![false; g.size()];
        for i in 0..g.size() {
            let j = swapped_index(i, g);
            assert!(!seen[j], "{g}: {j} twice");
            seen[j] = true;
            assert_eq!(swapped_index(j, g), i);
        }
    }
    assert!("57".parse::<Grouping>().is_err());
}

/// The same board with the other side to move.
fn other_side_to_move(pos: &Position) -> Position {
    let sfen = pos.to_sfen();
    let mut fields: Vec<&str> = sfen.split(' ').collect();
    fields[1] = if fields[1] == "b" { "w" } else { "b" };
    Position::from_sfen(&fields.join(" ")).expect("valid with the other side to move")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// The colour-flipped position has the same attributes; the same board with the other side
    /// to move permutes them as `swapped_index` says, in every grouping.
    #[test]
    fn swapping_sides_permutes_the_attributes_as_documented(
        seed in any::<u64>(),
        plies in 0usize..160,
    ) {
        let pos = random_game(seed, plies);
        let r = raw(&pos);
        prop_assert_eq!(&raw(&flipped(&pos)), &r);
        // With the side to move in check, the other side to move would be an illegal position.
        prop_assume!(!pos.in_check());
        let swapped = raw(&other_side_to_move(&pos));
        for g in [Grouping::Raw, Grouping::G56, Grouping::G112] {
            let (a, b) = (group(&r, g), group(&swapped, g));
            for i in 0..g.size() {
                prop_assert_eq!(b[swapped_index(i, g)], a[i], "{} attribute {}: {}", g, i, describe(i, g));
            }
        }
    }
}
