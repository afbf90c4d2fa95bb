//! Unit tests of the facade: each rule of docs/reference/rules.md on a small hand-made position.

use super::*;
use crate::types::{Color, Move, Piece, PieceKind, Square};

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{e}"))
}

fn sq(text: &str) -> Square {
    Square::from_usi(text).expect("test square")
}

fn illegal(p: &Position, text: &str) -> IllegalReason {
    match p.parse_usi_move(text) {
        Err(MoveError::Illegal { reason, .. }) => reason,
        other => panic!("{text}: expected an illegal move, got {other:?}"),
    }
}

fn legal(p: &Position, text: &str) -> Move {
    p.parse_usi_move(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn startpos_basics() {
    let p = Position::startpos();
    assert_eq!(
        p.to_sfen(),
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    );
    assert_eq!(p.legal_moves().len(), 30);
    assert_eq!(p.side_to_move(), Color::Sente);
    assert_eq!(p.ply(), 1);
    assert!(!p.in_check() && !p.is_checkmate());
    assert_eq!(
        p.piece_at(sq("5i")),
        Some(Piece {
            color: Color::Sente,
            kind: PieceKind::King
        })
    );
    assert_eq!(
        p.piece_at(sq("8b")),
        Some(Piece {
            color: Color::Gote,
            kind: PieceKind::Rook
        })
    );
    assert_eq!(p.piece_at(sq("5e")), None);
    assert_eq!(p.king_square(Color::Gote), sq("5a"));
    assert_eq!(p.to_usi_position(), "startpos");
}

#[test]
fn sfen_round_trips_and_move_number_defaults_to_one() {
    for sfen in [
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    ] {
        assert_eq!(pos(sfen).to_sfen(), sfen);
    }
    assert_eq!(
        pos("4k4/9/9/9/9/9/9/9/4K4 w 2P").to_sfen(),
        "4k4/9/9/9/9/9/9/9/4K4 w 2P 1"
    );
}

#[test]
fn sfen_errors_name_the_field_or_rule() {
    let err = |s: &str| Position::from_sfen(s).expect_err(s);
    let field = |s: &str| match err(s) {
        SfenError::BadField { field, .. } | SfenError::MissingField { field, .. } => field,
        other => panic!("{s}: {other}"),
    };
    let rule = |s: &str| match err(s) {
        SfenError::IllegalPosition { rule, .. } => rule,
        other => panic!("{s}: {other}"),
    };
    assert_eq!(field(""), SfenField::Board);
    assert_eq!(field("4k4/9/9/9/9/9/9/9/4K4"), SfenField::SideToMove);
    assert_eq!(field("4k4/9/9/9/9/9/9/9/4K4 b"), SfenField::Hands);
    assert_eq!(field("4k4/9/9/9/9/9/9/9/4K3 b - 1"), SfenField::Board);
    assert_eq!(field("4k4/9/9/9/9/9/9/4K4 b - 1"), SfenField::Board);
    assert_eq!(field("4k4/9/9/9/9/9/9/9/4X4 b - 1"), SfenField::Board);
    assert_eq!(field("4k4/9/9/9/9/9/9/9/4K4 x - 1"), SfenField::SideToMove);
    assert_eq!(field("4k4/9/9/9/9/9/9/9/4K4 b 2Q 1"), SfenField::Hands);
    assert_eq!(
        field("4k4/9/9/9/9/9/9/9/4K4 b - one"),
        SfenField::MoveNumber
    );
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/9/4K4 b - 1 2"),
        SfenError::TrailingText { .. }
    ));
    assert_eq!(
        rule("9/9/9/9/9/9/9/9/4K4 b - 1"),
        PositionRule::NoKing(Color::Gote)
    );
    assert_eq!(
        rule("4k4/9/9/9/9/9/9/K8/4K4 b - 1"),
        PositionRule::TwoKings(Color::Sente)
    );
    assert_eq!(
        rule("4k4/9/9/9/4P4/9/4P4/9/4K4 b - 1"),
        PositionRule::DoublePawn {
            color: Color::Sente,
            file: 5
        }
    );
    assert_eq!(
        rule("P3k4/9/9/9/9/9/9/9/4K4 b - 1"),
        PositionRule::DeadPiece {
            kind: PieceKind::Pawn,
            square: sq("9a")
        }
    );
    assert_eq!(
        rule("4k4/9/9/9/9/9/9/n8/4K4 b - 1"),
        PositionRule::DeadPiece {
            kind: PieceKind::Knight,
            square: sq("9h")
        }
    );
    assert!(matches!(
        rule("4k4/9/9/9/9/9/9/9/4K4 b 3B 1"),
        PositionRule::TooManyPieces {
            kind: PieceKind::Bishop,
            count: 3,
            limit: 2
        }
    ));
    // The side to move may be in check; the other side may not.
    assert!(Position::from_sfen("4k4/4R4/9/9/9/9/9/9/4K4 w - 1").is_ok());
    assert_eq!(
        rule("4k4/4R4/9/9/9/9/9/9/4K4 b - 1"),
        PositionRule::OpponentInCheck(Color::Gote)
    );
    // The message carries the SFEN and the field.
    let text = err("4k4/9/9/9/9/9/9/9/4K4 b - one").to_string();
    assert!(
        text.contains("move number") && text.contains("one"),
        "{text}"
    );
}

#[test]
fn move_numbers_leave_room_for_the_game() {
    let board = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";
    // The largest accepted move number still lets a game go on, move after move.
    let mut p = Position::from_sfen(&format!("{board} {MAX_SFEN_MOVE_NUMBER}")).expect("limit");
    for text in ["7g7f", "3c3d", "8h2b+", "3a2b"] {
        let mv = p.parse_usi_move(text).expect(text);
        p.try_play(mv).expect(text);
    }
    assert_eq!(p.ply(), u32::from(MAX_SFEN_MOVE_NUMBER) + 4);
    // A game that does run into rsshogi's ply counter gets an error, not a panic.
    let shuffle = ["2h3h", "8b7b", "3h2h", "7b8b"];
    let mut refused = None;
    for i in 0..usize::from(u16::MAX) {
        let mv = p.parse_usi_move(shuffle[i % 4]).expect("shuffle");
        if let Err(e) = p.try_play(mv) {
            refused = Some(e);
            break;
        }
    }
    assert_eq!(p.ply(), u32::from(u16::MAX));
    assert_eq!(
        refused.as_ref().and_then(MoveError::illegal_reason),
        Some(&IllegalReason::PlyLimit)
    );
    // Beyond it (and beyond what rsshogi can count at all) the move number is refused.
    for number in [
        (MAX_SFEN_MOVE_NUMBER + 1).to_string(),
        "65535".to_string(),
        "65536".to_string(),
    ] {
        match Position::from_sfen(&format!("{board} {number}")) {
            Err(e @ SfenError::BadField { field, .. }) => {
                assert_eq!(field, SfenField::MoveNumber, "{number}");
                let text = e.to_string();
                assert!(
                    text.contains(&number) && text.contains(&MAX_SFEN_MOVE_NUMBER.to_string()),
                    "{text}"
                );
            }
            other => panic!("{number}: {other:?}"),
        }
    }
}

#[test]
fn malformed_and_illegal_moves_are_told_apart() {
    let p = Position::startpos();
    assert!(matches!(
        p.parse_usi_move("7g7"),
        Err(MoveError::Malformed(_))
    ));
    assert!(matches!(
        p.parse_usi_move("K*5e"),
        Err(MoveError::Malformed(_))
    ));
    assert!(matches!(
        p.parse_usi_move("resign"),
        Err(MoveError::Malformed(_))
    ));
    assert_eq!(
        illegal(&p, "5e5d"),
        IllegalReason::NoPieceOnSquare(sq("5e"))
    );
    assert_eq!(
        illegal(&p, "3c3d"),
        IllegalReason::NotYourPiece {
            square: sq("3c"),
            owner: Color::Gote
        }
    );
    assert_eq!(
        illegal(&p, "6i7i"),
        IllegalReason::OwnPieceOnDestination(sq("7i"))
    );
    assert!(matches!(
        illegal(&p, "7g7e"),
        IllegalReason::CannotReach {
            kind: PieceKind::Pawn,
            ..
        }
    ));
    assert!(matches!(
        illegal(&p, "8h5e"),
        IllegalReason::CannotReach {
            kind: PieceKind::Bishop,
            ..
        }
    ));
    assert_eq!(
        illegal(&p, "6i6h+"),
        IllegalReason::CannotPromote(PieceKind::Gold)
    );
    assert_eq!(illegal(&p, "7g7f+"), IllegalReason::PromotionOutsideZone);
    assert_eq!(
        illegal(&p, "P*5e"),
        IllegalReason::NotInHand(PieceKind::Pawn)
    );
    let err = p.parse_usi_move("3c3d").expect_err("gote pawn");
    assert!(err.to_string().contains("3c3d") && err.illegal_reason().is_some());
}

#[test]
fn forced_and_optional_promotion() {
    let p = pos("4k4/8P/9/7N1/9/9/9/9/4K4 b - 1");
    assert_eq!(
        illegal(&p, "1b1a"),
        IllegalReason::MustPromote {
            kind: PieceKind::Pawn,
            to: sq("1a")
        }
    );
    legal(&p, "1b1a+");
    assert_eq!(
        illegal(&p, "2d3b"),
        IllegalReason::MustPromote {
            kind: PieceKind::Knight,
            to: sq("3b")
        }
    );
    legal(&p, "2d3b+");
    // Optional promotions, including the pawn and bishop non-promotions some generators omit.
    let p = pos("4k4/9/9/2P5B/9/9/9/9/4K4 b - 1");
    for text in [
        "7d7c", "7d7c+", "1d3b", "1d3b+", "1d2c", "1d2c+", "1d2e", "1d5h",
    ] {
        legal(&p, text);
    }
    assert_eq!(illegal(&p, "1d2e+"), IllegalReason::PromotionOutsideZone);
    // Moving out of the zone may promote too.
    let p = pos("4k4/9/2S6/9/9/9/9/9/4K4 b - 1");
    legal(&p, "7c8d+");
    legal(&p, "7c8d");
}

#[test]
fn drop_rules_nifu_dead_squares_and_pawn_drop_mate() {
    let p = pos("4k4/9/9/9/9/9/4P4/9/4K4 b PLN 1");
    assert_eq!(illegal(&p, "P*5e"), IllegalReason::Nifu { file: 5 });
    legal(&p, "P*4e");
    assert_eq!(
        illegal(&p, "P*1a"),
        IllegalReason::DropWithNoFurtherMove {
            kind: PieceKind::Pawn,
            to: sq("1a")
        }
    );
    assert_eq!(
        illegal(&p, "L*1a"),
        IllegalReason::DropWithNoFurtherMove {
            kind: PieceKind::Lance,
            to: sq("1a")
        }
    );
    assert_eq!(
        illegal(&p, "N*1b"),
        IllegalReason::DropWithNoFurtherMove {
            kind: PieceKind::Knight,
            to: sq("1b")
        }
    );
    legal(&p, "N*1c");
    assert_eq!(illegal(&p, "P*5i"), IllegalReason::DropOnOccupied(sq("5i")));
    // A promoted pawn does not count for nifu.
    legal(&pos("4k4/9/9/9/9/9/4+P4/9/4K4 b P 1"), "P*5e");
    // Gote's side of the board is the other way round.
    let g = pos("4k4/4p4/9/9/9/9/9/9/4K4 w pn 1");
    assert_eq!(illegal(&g, "P*5f"), IllegalReason::Nifu { file: 5 });
    assert_eq!(
        illegal(&g, "N*1h"),
        IllegalReason::DropWithNoFurtherMove {
            kind: PieceKind::Knight,
            to: sq("1h")
        }
    );
    legal(&g, "N*1g");

    // 打ち歩詰め: the dropped pawn is defended by the gold, 2a and 2b are covered.
    let p = pos("8k/9/6NG1/9/9/9/9/9/K8 b P 1");
    assert_eq!(illegal(&p, "P*1b"), IllegalReason::PawnDropMate);
    // A pawn drop check that is not mate (2a is free without the knight) is legal.
    let mut p = pos("8k/9/7G1/9/9/9/9/9/K8 b P 1");
    let drop = legal(&p, "P*1b");
    assert!(p.gives_check(drop));
    p.play(drop);
    assert!(p.in_check() && !p.is_checkmate());
    // A pawn *move* that mates is legal, promoting or not.
    let mut p = pos("8k/9/6NGP/9/9/9/9/9/K8 b - 1");
    let push = legal(&p, "1c1b");
    legal(&p, "1c1b+");
    p.play(push);
    assert!(p.in_check() && p.is_checkmate());
}

#[test]
fn moves_that_leave_the_king_in_check_are_illegal() {
    // The gold on 5h is pinned by the rook on 5a.
    let p = pos("4r3k/9/9/9/9/9/9/4G4/4K4 b - 1");
    assert_eq!(illegal(&p, "5h4h"), IllegalReason::LeavesKingInCheck);
    legal(&p, "5h5g");
    // In check: a move that does not answer it, and a drop that does not block.
    let p = pos("4r3k/9/9/9/9/9/9/6G2/4K4 b P 1");
    assert!(p.in_check());
    assert_eq!(illegal(&p, "3h3g"), IllegalReason::LeavesKingInCheck);
    assert_eq!(illegal(&p, "P*3e"), IllegalReason::LeavesKingInCheck);
    legal(&p, "P*5e");
    // A king may not step along the line of the checking rook (attacked through itself).
    assert_eq!(illegal(&p, "5i5h"), IllegalReason::LeavesKingInCheck);
    legal(&p, "5i4i");
}

#[test]
fn play_undo_and_usi_position_round_trip() {
    let mut p =
        Position::from_usi_position("position startpos moves 7g7f 3c3d 8h2b+").expect("line");
    assert_eq!(p.ply(), 4);
    assert_eq!(p.side_to_move(), Color::Gote);
    assert_eq!(p.hand_count(Color::Sente, PieceKind::Bishop), 1);
    assert_eq!(p.to_usi_position(), "startpos moves 7g7f 3c3d 8h2b+");
    assert_eq!(p.last_move().map(|m| m.to_usi()), Some("8h2b+".into()));
    let again = Position::from_usi_position(&p.to_usi_position()).expect("again");
    assert_eq!(again, p);
    assert_eq!(again.key(), p.key());
    assert_eq!(p.undo().map(|m| m.to_usi()), Some("8h2b+".into()));
    assert_eq!(p.undo().map(|m| m.to_usi()), Some("3c3d".into()));
    assert_eq!(p.undo().map(|m| m.to_usi()), Some("7g7f".into()));
    assert_eq!(p.undo(), None);
    assert_eq!(p, Position::startpos());
    assert_eq!(p.key(), Position::startpos().key());

    let h = Position::from_usi_position(&format!("sfen {} moves 5a4b", Handicap::Lance.sfen()))
        .expect("lance");
    assert_eq!(
        h.to_usi_position(),
        format!("sfen {} moves 5a4b", Handicap::Lance.sfen())
    );
    assert_eq!(h.side_to_move(), Color::Sente);
}

#[test]
fn usi_position_errors_name_the_move() {
    let err = Position::from_usi_position("startpos moves 7g7f 3c3d 7f7e 3d3c").expect_err("bad");
    match &err {
        UsiPositionError::Move {
            number,
            text,
            error,
        } => {
            assert_eq!((*number, text.as_str()), (4, "3d3c"));
            assert!(error.illegal_reason().is_some());
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("move 4"));
    assert!(matches!(
        Position::from_usi_position("startpos moves 7g7f xx"),
        Err(UsiPositionError::Move { number: 2, .. })
    ));
    assert!(matches!(
        Position::from_usi_position("sfen 4k4 b - 1"),
        Err(UsiPositionError::Sfen(_))
    ));
    assert!(matches!(
        Position::from_usi_position("startfen"),
        Err(UsiPositionError::NoStart { .. })
    ));
    assert!(matches!(
        Position::from_usi_position("startpos 7g7f"),
        Err(UsiPositionError::Unexpected { .. })
    ));
    assert!(Position::from_usi_position("startpos moves").is_ok());
    assert!(Position::from_usi_position("sfen 4k4/9/9/9/9/9/9/9/4K4 b - moves 5i5h").is_ok());
}

fn play_line(p: &mut Position, line: &str) -> Vec<Repetition> {
    line.split_whitespace()
        .map(|t| {
            let mv = legal(p, t);
            p.play(mv);
            p.repetition()
        })
        .collect()
}

#[test]
fn fourth_occurrence_is_a_draw() {
    let mut p = Position::startpos();
    let cycle = "5i5h 5a5b 5h5i 5b5a ";
    let verdicts = play_line(&mut p, &cycle.repeat(3));
    // The start position occurs for the 2nd, 3rd, 4th time after plies 4, 8, 12.
    assert!(verdicts[..11].iter().all(|v| *v == Repetition::None));
    assert_eq!(verdicts[11], Repetition::Draw);
}

#[test]
fn perpetual_check_loses_for_the_checking_side() {
    // Sente's rook checks on every move, the gote king shuttles between 1a and 2b.
    let mut p = pos("8k/9/9/9/9/9/9/7R1/K8 b - 1");
    let verdicts = play_line(&mut p, &"2h1h 1a2b 1h2h 2b1a ".repeat(3));
    assert!(verdicts[..11].iter().all(|v| *v == Repetition::None));
    assert_eq!(
        verdicts[11],
        Repetition::PerpetualCheck {
            loser: Color::Sente
        }
    );

    // The same from gote's side (rotated board).
    let mut p = pos("8k/1r7/9/9/9/9/9/9/K8 w - 1");
    let verdicts = play_line(&mut p, &"8b9b 9i8h 9b8b 8h9i ".repeat(3));
    assert_eq!(
        verdicts[11],
        Repetition::PerpetualCheck { loser: Color::Gote }
    );

    // One quiet move in the first cycle is enough to make it a plain draw.
    let mut p = pos("8k/9/9/9/9/9/9/7R1/K8 b - 1");
    let line = format!("2h2g 1a1b 2g2h 1b1a {}", "2h1h 1a2b 1h2h 2b1a ".repeat(2));
    let verdicts = play_line(&mut p, &line);
    assert_eq!(verdicts[11], Repetition::Draw);
}

#[test]
fn impasse_declaration_27_point_rule() {
    // Sente: king in camp, 10 pieces in camp (2R 2B 6P = 26 points) + 2 golds in hand = 28.
    assert_eq!(
        pos("RRBB5/4K4/PPPPPP3/9/9/9/9/9/4k4 b 2G 1").impasse_declaration(),
        Ok(())
    );
    assert_eq!(
        pos("RRBB5/4K4/PPPPPP3/9/9/9/9/9/4k4 b G 1").impasse_declaration(),
        Err(ImpasseError::TooFewPoints { have: 27, need: 28 })
    );
    assert_eq!(
        pos("RRBB5/4K4/PPPPP4/9/9/9/9/9/4k4 b 3G 1").impasse_declaration(),
        Err(ImpasseError::TooFewPiecesInCamp { have: 9 })
    );
    assert_eq!(
        pos("RRBB5/9/PPPPPP3/4K4/9/9/9/9/4k4 b 2G 1").impasse_declaration(),
        Err(ImpasseError::KingNotInCamp)
    );
    assert_eq!(
        pos("RRBB1g3/4K4/PPPPPP3/9/9/9/9/9/4k4 b 2G 1").impasse_declaration(),
        Err(ImpasseError::InCheck)
    );
    // Gote needs only 27.
    assert_eq!(
        pos("4K4/9/9/9/9/9/3pppppp/4k4/5bbrr w g 1").impasse_declaration(),
        Ok(())
    );
    assert_eq!(
        pos("4K4/9/9/9/9/9/3pppppp/4k4/5bbrr w - 1").impasse_declaration(),
        Err(ImpasseError::TooFewPoints { have: 26, need: 27 })
    );
    assert_eq!(
        Position::startpos().impasse_declaration(),
        Err(ImpasseError::KingNotInCamp)
    );
}

#[test]
fn handicap_positions_start_with_gote() {
    for h in Handicap::ALL {
        let p = Position::handicap(h);
        assert_eq!(p.to_sfen(), h.sfen());
        let expected = if h == Handicap::Even {
            Color::Sente
        } else {
            Color::Gote
        };
        assert_eq!(p.side_to_move(), expected, "{h}");
        assert!(!p.legal_moves().is_empty());
    }
}

#[test]
fn position_is_send_and_clone() {
    fn assert_send<T: Send + Clone>() {}
    assert_send::<Position>();
}

#[test]
fn replay_of_a_legal_game_gives_every_position_up_to_the_one_played_by_hand() {
    let moves = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"];
    let mut by_hand = Position::startpos();
    let mut sfens = vec![by_hand.to_sfen()];
    for m in moves {
        let mv = legal(&by_hand, m);
        by_hand.play(mv);
        sfens.push(by_hand.to_sfen());
    }
    let mut r = replay("startpos", &moves).expect("start");
    let mut seen = vec![r.position().to_sfen()];
    let mut played = Vec::new();
    while let Some(step) = r.step() {
        played.push(step.expect("legal").to_usi());
        seen.push(r.position().to_sfen());
    }
    assert_eq!(seen.len(), moves.len() + 1);
    assert_eq!(seen, sfens);
    assert_eq!(played, moves);
    assert_eq!(r.played(), moves.len());
    assert_eq!(
        r.into_position().to_usi_position(),
        by_hand.to_usi_position()
    );
    // Every spelling of the start, and `finish`, end in the same place.
    let sfen = Position::startpos().to_sfen();
    for start in [
        sfen.clone(),
        format!("sfen {sfen}"),
        format!("position sfen {sfen}"),
    ] {
        let end = replay(&start, &moves)
            .expect("start")
            .finish()
            .expect("legal");
        assert_eq!(end.to_sfen(), by_hand.to_sfen());
    }
    assert_eq!(replay::<&str>("startpos", &[]).expect("start").peek(), None);
}

#[test]
fn replay_names_the_first_move_that_cannot_be_played() {
    fn first_error(start: &str, moves: &[&str]) -> ReplayError {
        replay(start, moves)
            .expect("start")
            .finish()
            .expect_err("a bad move")
    }
    // 打ち歩詰め as the second move (index 1), after a legal king move.
    let e = first_error("8k/9/p5NG1/9/9/9/9/9/K8 w P 1", &["9c9d", "P*1b", "1a2a"]);
    assert_eq!((e.index, e.text.as_str()), (1, "P*1b"));
    assert_eq!(e.error.illegal_reason(), Some(&IllegalReason::PawnDropMate));
    let e = first_error("8k/9/6NG1/9/9/9/9/9/K8 b P 1", &["P*1b"]);
    assert_eq!((e.index, e.number()), (0, 1));
    assert_eq!(e.error.illegal_reason(), Some(&IllegalReason::PawnDropMate));
    assert_eq!(
        e.to_string(),
        "move 1 `P*1b`: illegal move `P*1b`: uchifuzume: a pawn drop may not give checkmate"
    );
    // A drop on an occupied square, fifth move.
    let e = first_error("startpos", &["7g7f", "3c3d", "8h2b+", "3a2b", "B*2b"]);
    assert_eq!((e.index, e.text.as_str()), (4, "B*2b"));
    assert_eq!(
        e.error.illegal_reason(),
        Some(&IllegalReason::DropOnOccupied(sq("2b")))
    );
    // Garbage text: malformed, not illegal.
    let e = first_error("startpos", &["7g7f", "hello"]);
    assert_eq!((e.index, e.text.as_str()), (1, "hello"));
    assert!(matches!(e.error, MoveError::Malformed(_)), "{e}");
    // The bad move is not played: the position is the one before it, and it stays the answer.
    let mut r = replay("startpos", &["7g7f", "7g7f"]).expect("start");
    assert!(matches!(r.step(), Some(Ok(_))));
    let before = r.position().to_sfen();
    assert_eq!(r.step().map(|s| s.map_err(|e| e.index)), Some(Err(1)));
    assert_eq!(r.step().map(|s| s.map_err(|e| e.index)), Some(Err(1)));
    assert_eq!((r.played(), r.position().to_sfen()), (1, before));
    // A bad start is the SFEN's own error.
    assert!(matches!(
        replay("4k4/9/9/9/9/9/9/9/9 b - 1", &["5a4a"]),
        Err(SfenError::IllegalPosition { .. })
    ));
    assert!(matches!(
        replay("startpos moves 7g7f", &["3c3d"]),
        Err(SfenError::BadField { .. } | SfenError::TrailingText { .. })
    ));
}

proptest::proptest! {
    #[test]
    fn replaying_a_random_legal_game_ends_where_playing_it_does(
        picks in proptest::collection::vec(proptest::num::usize::ANY, 0..60)
    ) {
        let mut by_hand = Position::startpos();
        let mut texts = Vec::new();
        for pick in picks {
            let legal = by_hand.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[pick % legal.len()];
            texts.push(mv.to_usi());
            by_hand.play(mv);
        }
        let mut r = replay("startpos", &texts).expect("start");
        let mut n = 0;
        while let Some(step) = r.step() {
            proptest::prop_assert_eq!(step.expect("legal").to_usi(), texts[n].clone());
            n += 1;
        }
        proptest::prop_assert_eq!(n, texts.len());
        proptest::prop_assert_eq!(r.into_position().to_usi_position(), by_hand.to_usi_position());
    }
}

/// Every move there could be in `p` (each square to each square, with and without promotion,
/// and each hand piece to each square) judged alone against the generated legal moves.
fn judged_alone_as_generated(p: &Position) {
    use std::collections::HashSet;
    let generated: HashSet<String> = p.legal_moves().iter().map(|m| m.to_usi()).collect();
    let mut candidates = Vec::with_capacity(81 * 81 * 2 + 7 * 81);
    for to in Square::all() {
        for from in Square::all() {
            candidates.push(Move::normal(from, to, false));
            candidates.push(Move::normal(from, to, true));
        }
        for kind in PieceKind::HAND {
            candidates.push(Move::drop(kind, to));
        }
    }
    let judged: HashSet<String> = candidates
        .into_iter()
        .filter(|&m| p.is_legal(m))
        .map(Move::to_usi)
        .collect();
    assert_eq!(
        judged,
        generated,
        "{}: judged alone but not generated {:?}, generated but not judged {:?}",
        p.to_sfen(),
        judged.difference(&generated).collect::<Vec<_>>(),
        generated.difference(&judged).collect::<Vec<_>>()
    );
}

#[test]
fn one_move_judged_alone_agrees_with_the_generated_legal_moves() {
    use rand::{RngExt, SeedableRng};
    // Hand-made positions: pawn-drop mate and its near misses, nifu, dead squares, pins.
    for sfen in [
        "8k/9/6NG1/9/9/9/9/9/K8 b P 1",
        "8k/9/7G1/9/9/9/9/9/K8 b P 1",
        "8k/9/6NGP/9/9/9/9/9/K8 b - 1",
        "4k4/9/9/9/9/9/4P4/9/4K4 b PLN 1",
        "4k4/4p4/9/9/9/9/9/9/4K4 w pn 1",
        "k8/9/1GN6/9/9/9/9/9/8K w p 1",
        "k3r4/9/9/9/9/9/9/4G4/4K4 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
    ] {
        judged_alone_as_generated(&pos(sfen));
    }
    // Random games from every start, biased to checks and drops so that pawn-drop checks,
    // evasions and pins come up; seeded, so a failure replays.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20261129);
    let mut starts = vec![Position::startpos()];
    starts.extend(Handicap::ALL.iter().map(|h| pos(h.sfen())));
    for start in starts {
        for _ in 0..6 {
            let mut p = start.clone();
            for _ in 0..160 {
                judged_alone_as_generated(&p);
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let checks: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|&m| p.gives_check(m))
                    .collect();
                let drops: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|m| m.from().is_none())
                    .collect();
                let pool = match rng.random_range(0..4) {
                    0 if !checks.is_empty() => &checks,
                    1 if !drops.is_empty() => &drops,
                    _ => &legal,
                };
                let mv = pool[rng.random_range(0..pool.len())];
                p.play(mv);
                if p.repetition() != Repetition::None {
                    break;
                }
            }
        }
    }
}
