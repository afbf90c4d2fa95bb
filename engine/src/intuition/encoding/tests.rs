use super::*;
use crate::position::attacks::test_support::{flip_move, flipped, random_game, rotate};
use proptest::prelude::*;

fn sq(text: &str) -> Square {
    Square::from_usi(text).expect("test square")
}

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).expect("test sfen")
}

fn mv(p: &Position, text: &str) -> Move {
    p.parse_usi_move(text).expect("legal test move")
}

fn info(gives: &[u8], receives: &[u8], mutual: &[u8]) -> AttackInfo {
    AttackInfo {
        gives: gives.to_vec(),
        receives: receives.to_vec(),
        mutual: mutual.to_vec(),
    }
}

#[test]
fn fnv1a64_matches_the_published_test_vectors() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn piece_ids_follow_the_seeds_table() {
    let kinds = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Gold,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProLance,
        PieceKind::ProKnight,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];
    for (id, kind) in kinds.into_iter().enumerate() {
        assert_eq!(piece_id(kind), id as u8);
        let piece = |color| Some(Piece { color, kind });
        assert_eq!(square_info(piece(Color::Gote), Color::Gote), id as u8);
        assert_eq!(square_info(piece(Color::Sente), Color::Gote), id as u8 + 16);
    }
    assert_eq!(square_info(None, Color::Sente), 14);
}

/// The seed's figure 1: "the square info of 7八 is 6; its attack info is 利き付け 0, 14, 14,
/// 14, 14; 利き受け 7; 相互 6, 20". The figure's board is not in the text; this is the position
/// its numbers describe: sente's gold on 7八 beside a gold on 6八 (相互 6), the king on 6九
/// behind it (利き受け 7: the king attacks 7八, a gold does not attack backwards diagonally),
/// gote's bishop on 8七 (相互 20), a pawn on 7七. The figure does not add up: a gold attacks
/// six squares, two of them mutual here, so 利き付け has four entries (0 for the pawn, 14 for
/// 6七, 8八, 7九), not five.
#[test]
fn figure_1_gold_on_7h_as_far_as_the_figure_is_consistent() {
    let p = pos("8k/9/9/9/9/9/1bP6/2GG5/3K5 b - 1");
    let map = AttackMap::new(&p);
    assert_eq!(square_info(map.piece_at(sq("7h")), Color::Sente), 6);
    assert_eq!(
        AttackInfo::of(&map, sq("7h"), Color::Sente),
        info(&[0, 14, 14, 14], &[7], &[6, 20])
    );
    // The same square from gote's side: the owners swap (own pieces 0, sente's 16).
    assert_eq!(
        AttackInfo::of(&map, sq("7h"), Color::Gote),
        info(&[14, 14, 14, 16], &[23], &[4, 22])
    );
}

/// A drop, field by field: the from-square is the hand with no attack info; the empty
/// to-square gives nothing and receives from both sides' pieces.
#[test]
fn a_drop_field_by_field() {
    // Gote's gold on 5d and sente's silver on 4f both attack 5e; sente holds a gold and a pawn.
    let p = pos("4k4/9/9/4g4/9/5S3/9/9/4K4 b GP 1");
    let map = AttackMap::new(&p);
    let drop = mv(&p, "P*5e");
    let view = MoveView::of(&map, drop, Color::Sente);
    assert_eq!(
        view,
        MoveView {
            from: HAND,
            from_attacks: AttackInfo::default(),
            to: EMPTY,
            to_attacks: info(&[], &[3, 22], &[]),
            promotion: false,
            dropped: Some(0),
        }
    );
    let mut next = p.clone();
    next.play(drop);
    // After: the pawn attacks the gold, which attacks it back; the silver still backs it up.
    assert_eq!(
        AfterView::of(&AttackMap::new(&next), sq("5e"), Color::Sente),
        AfterView {
            to: 0,
            to_attacks: info(&[], &[3], &[22]),
        }
    );
    // A gold dropped on the same square: the same view but the dropped id, so another code.
    let gold = mv(&p, "G*5e");
    let gold_view = MoveView::of(&map, gold, Color::Sente);
    assert_eq!(gold_view.dropped, Some(6));
    assert_eq!((gold_view.from, gold_view.to), (view.from, view.to));
    assert_ne!(gold_view.code(), view.code());
    let mut next = p.clone();
    next.play(gold);
    assert_eq!(
        AfterView::of(&AttackMap::new(&next), sq("5e"), Color::Sente),
        AfterView {
            to: 6,
            to_attacks: info(&[14, 14, 14, 14, 14], &[3], &[22]),
        }
    );
    // Variant f: one silver against one gold, before and after.
    assert_eq!(Balance::of(&map, sq("5e"), Color::Sente), Balance::Equal);
    let codes = encode(&p, drop);
    assert_eq!(
        codes.code.f,
        fnv1a64(&[b'm', HAND, 2, EMPTY, 2, 0, 0]),
        "variant f: hand, equal, empty, equal, no promotion, pawn"
    );
    assert_eq!(codes.after.f, fnv1a64(&[b'a', 0, 2]));
}

/// A capture with promotion, with all three relations at both squares.
#[test]
fn a_capture_with_promotion_field_by_field() {
    // Sente's silver on 3d takes gote's pawn on 3c and promotes; gote's gold on 2c guards 3c
    // and attacks 3d; sente's knight on 4f backs the silver up.
    let p = pos("8k/9/6pg1/6S2/9/5N3/9/9/K8 b - 1");
    let map = AttackMap::new(&p);
    let take = mv(&p, "3d3c+");
    let view = MoveView::of(&map, take, Color::Sente);
    assert_eq!(
        view,
        MoveView {
            from: 3,
            // Silver 3d attacks 4c, 4e, 2e (empty), 3c (pawn) and 2c (gold); both of those
            // attack 3d; the knight on 4f attacks 3d without being attacked.
            from_attacks: info(&[14, 14, 14], &[2], &[16, 22]),
            to: 16,
            // The pawn on 3c attacks only 3d, whose silver attacks it back; the gold on 2c
            // attacks 3c and is not attacked by the pawn.
            to_attacks: info(&[], &[22], &[3]),
            promotion: true,
            dropped: None,
        }
    );
    let mut next = p.clone();
    next.play(take);
    // After: a promoted silver (11) attacking like a gold: 4b, 3b, 2b, 4c, 3d empty; the gold
    // on 2c in both directions.
    assert_eq!(
        AfterView::of(&AttackMap::new(&next), sq("3c"), Color::Sente),
        AfterView {
            to: 11,
            to_attacks: info(&[14, 14, 14, 14, 14], &[], &[22]),
        }
    );
    // Variant f: 3d is attacked once by sente (knight), twice by gote (pawn, gold); 3c once
    // each; after the move only gote's gold attacks 3c.
    let codes = encode(&p, take);
    assert_eq!(codes.code.f, fnv1a64(&[b'm', 3, 1, 16, 2, 1, u8::MAX]));
    assert_eq!(codes.after.f, fnv1a64(&[b'a', 11, 1]));
    // The same capture without promotion differs in both encodings' move codes.
    let plain = encode(&p, mv(&p, "3d3c"));
    assert_ne!(plain.code.full, codes.code.full);
    assert_ne!(plain.code.f, codes.code.f);
    assert_eq!(
        plain.code.full,
        MoveView {
            promotion: false,
            ..view
        }
        .code()
    );
}

#[test]
fn start_and_the_four_tags_keep_codes_apart() {
    let p = Position::startpos();
    let e = encode(&p, mv(&p, "7g7f"));
    let all = [e.code.full, e.code.f, e.after.full, e.after.f, START];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Every legal move's codes: `encode_all` agrees with `encode`, and the colour-flipped
    /// position gives the flipped move the same codes (the encoding only sees the mover's
    /// side, never the colour).
    #[test]
    fn codes_are_colour_blind_and_encode_all_agrees(seed in any::<u64>(), plies in 0usize..120) {
        let p = random_game(seed, plies);
        let flip = flipped(&p);
        for (m, e) in encode_all(&p) {
            prop_assert_eq!(e, encode(&p, m));
            prop_assert_eq!(e, encode(&flip, flip_move(m)), "{} in {}", m, p.to_sfen());
        }
        let map = AttackMap::new(&p);
        let flip_map = AttackMap::new(&flip);
        for s in Square::all() {
            prop_assert_eq!(
                AttackInfo::of(&map, s, p.side_to_move()),
                AttackInfo::of(&flip_map, rotate(s), flip.side_to_move())
            );
        }
    }
}
