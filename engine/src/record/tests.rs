//! Reading hand-written records, writing games, and the errors for malformed files.

use super::*;
use crate::position::{Handicap, IllegalReason};
use crate::types::PieceKind;

const FLOODGATE_CSA: &str = include_str!("../../tests/data/records/floodgate-style.csa");
const HANDICAP_CSA: &str = include_str!("../../tests/data/records/handicap-board.csa");
const EVEN_KIF: &str = include_str!("../../tests/data/records/even-game.kif");
const NON_PROMOTION_KIF: &str = include_str!("../../tests/data/records/non-promotion.kif");

fn usi(rec: &GameRecord) -> Vec<String> {
    rec.moves().iter().map(|m| m.mv.to_usi()).collect()
}

fn secs(s: u64) -> Option<Duration> {
    Some(Duration::from_secs(s))
}

#[test]
fn reads_a_floodgate_style_csa() {
    let rec = GameRecord::read_csa(FLOODGATE_CSA).expect("read");
    assert_eq!(rec.start(), &Position::startpos());
    assert_eq!(
        (rec.sente.as_deref(), rec.gote.as_deref()),
        (Some("Alice"), Some("Bob"))
    );
    assert_eq!(rec.event.as_deref(), Some("council test"));
    assert_eq!(usi(&rec), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
    let times: Vec<_> = rec.moves().iter().map(|m| m.time).collect();
    assert_eq!(times, [secs(12), secs(5), secs(3), secs(1), secs(2)]);
    assert_eq!(
        rec.moves()[1].comment.as_deref(),
        Some("a comment on gote's move")
    );
    // '** scores are from sente's view in the file, from the mover's in the record.
    let first = rec.moves()[0].engine.as_ref().expect("engine comment");
    assert_eq!(first.score, Score::Cp(30));
    assert_eq!(
        first.pv.iter().map(|m| m.to_usi()).collect::<Vec<_>>(),
        ["3c3d", "2g2f"]
    );
    let gote = rec.moves()[3].engine.as_ref().expect("gote's comment");
    assert_eq!((gote.score, gote.pv.len()), (Score::Cp(-450), 0));
    // -31995 from sente's view after sente's move: sente is mated in 5.
    assert_eq!(
        rec.moves()[4].engine.as_ref().map(|e| e.score),
        Some(Score::Mate(-5))
    );
    assert_eq!(
        rec.end,
        Some(GameEnd {
            reason: EndReason::Resign,
            winner: Some(Color::Sente)
        })
    );
}

#[test]
fn reads_a_handicap_csa_board_with_gote_to_move() {
    let rec = GameRecord::read_csa(HANDICAP_CSA).expect("read");
    assert_eq!(rec.start().to_sfen(), Handicap::Lance.sfen());
    assert_eq!(rec.handicap(), Some(Handicap::Lance));
    assert_eq!(usi(&rec), ["5a4b", "7g7f", "4b3b"]);
    // Sente is to move when time runs out: sente loses.
    assert_eq!(
        rec.end,
        Some(GameEnd {
            reason: EndReason::Timeout,
            winner: Some(Color::Gote)
        })
    );
}

#[test]
fn reads_a_kif_with_same_square_promotion_and_drop() {
    let rec = GameRecord::read_kif(EVEN_KIF).expect("read");
    assert_eq!(rec.start(), &Position::startpos());
    assert_eq!(usi(&rec), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
    assert_eq!(rec.moves()[4].time, secs(2));
    assert_eq!(rec.moves()[1].comment.as_deref(), Some("a comment"));
    assert_eq!(
        (rec.sente.as_deref(), rec.gote.as_deref()),
        (Some("Alice"), Some("Bob"))
    );
    assert_eq!(
        rec.end,
        Some(GameEnd {
            reason: EndReason::Resign,
            winner: Some(Color::Sente)
        })
    );
}

#[test]
fn reads_a_kif_board_diagram_and_non_promotion() {
    let rec = GameRecord::read_kif(NON_PROMOTION_KIF).expect("read");
    assert_eq!(
        rec.start().to_sfen(),
        "lnsgk1snl/1r4g2/p1ppppb1p/6pP1/7R1/2P6/P2PPPP1P/1SG6/LN2KGSNL b BP2p 1"
    );
    assert_eq!(usi(&rec), ["2d2c", "3b2c", "2e2c+"]);
    assert_eq!(rec.handicap(), None);
    assert_eq!(
        rec.end,
        Some(GameEnd {
            reason: EndReason::Abort,
            winner: None
        })
    );
}

fn game(line: &str) -> GameRecord {
    GameRecord::from_game(&Position::from_usi_position(line).expect("line"))
}

fn round_trip(rec: &GameRecord) {
    let csa = rec.to_csa().expect("write csa");
    assert_eq!(
        &GameRecord::read_csa(&csa).expect("read back csa"),
        rec,
        "{csa}"
    );
    let kif = rec.to_kif().expect("write kif");
    let back = GameRecord::read_kif(&kif).expect("read back kif");
    // KIF keeps no pv, and always writes a time (a missing one as 0:00).
    let mut expected = rec.clone();
    for i in 0..expected.moves().len() {
        let note = expected.annotate(i).expect("index in range");
        if let Some(engine) = note.engine.as_mut() {
            engine.pv.clear();
        }
        note.time.get_or_insert(Duration::ZERO);
    }
    assert_eq!(back, expected, "{kif}");
}

#[test]
fn every_end_reason_round_trips_through_both_formats() {
    let draw_line = format!("startpos moves {}", "5i5h 5a5b 5h5i 5b5a ".repeat(3));
    let perpetual = format!(
        "sfen 8k/9/9/9/9/9/9/7R1/K8 b - 1 moves {}",
        "2h1h 1a2b 1h2h 2b1a ".repeat(3)
    );
    let cases = [
        (
            "startpos moves 7g7f 3c3d",
            EndReason::Resign,
            Some(Color::Gote),
        ),
        (
            "sfen 8k/9/6NGP/9/9/9/9/9/K8 b - 1 moves 1c1b",
            EndReason::Checkmate,
            Some(Color::Sente),
        ),
        (draw_line.as_str(), EndReason::Repetition, None),
        (
            perpetual.as_str(),
            EndReason::PerpetualCheck,
            Some(Color::Gote),
        ),
        (
            "sfen RRBB5/4K4/PPPPPP3/9/9/9/9/9/5k3 w 2G 1 moves 4i5i",
            EndReason::Impasse,
            Some(Color::Sente),
        ),
        ("startpos moves 7g7f", EndReason::MaxPlies, None),
        (
            "startpos moves 7g7f",
            EndReason::IllegalMove,
            Some(Color::Sente),
        ),
        (
            "startpos moves 7g7f 3c3d",
            EndReason::Timeout,
            Some(Color::Gote),
        ),
        ("startpos moves 7g7f", EndReason::Crash, Some(Color::Sente)),
        ("startpos moves 7g7f", EndReason::Crash, Some(Color::Gote)),
        ("startpos moves 7g7f", EndReason::Abort, None),
        // A resignation by the side not to move (an engine resigning out of turn).
        ("startpos moves 7g7f", EndReason::Resign, Some(Color::Gote)),
        (
            "startpos moves 7g7f",
            EndReason::Timeout,
            Some(Color::Sente),
        ),
    ];
    for (line, reason, winner) in cases {
        let mut rec = game(line);
        rec.sente = Some("S".into());
        rec.gote = Some("G".into());
        rec.end = Some(GameEnd { reason, winner });
        round_trip(&rec);
    }
}

#[test]
fn annotations_and_handicaps_round_trip() {
    let mut rec = game(&format!(
        "sfen {} moves 5a4b 7g7f 3c3d 2g2f",
        Handicap::TwoPieces.sfen()
    ));
    rec.event = Some("annotated".into());
    let pv: Vec<Move> = {
        let mut p = rec.start().clone();
        p.play(rec.moves()[0].mv);
        ["7g7f", "3c3d"]
            .iter()
            .map(|t| {
                let m = p.parse_usi_move(t).expect("pv");
                p.play(m);
                m
            })
            .collect()
    };
    *rec.annotate(0).expect("move 1").engine = Some(EngineComment {
        score: Score::Cp(-120),
        pv,
    });
    *rec.annotate(0).expect("move 1").time = secs(7);
    *rec.annotate(1).expect("move 2").engine = Some(EngineComment {
        score: Score::Mate(9),
        pv: vec![],
    });
    *rec.annotate(2).expect("move 3").comment = Some("quiet move".into());
    *rec.annotate(3).expect("move 4").time = secs(61);
    rec.end = Some(GameEnd {
        reason: EndReason::Resign,
        winner: Some(Color::Gote),
    });
    round_trip(&rec);
    let kif = rec.to_kif().expect("kif");
    assert!(kif.contains("手合割：二枚落ち"), "{kif}");
    let csa = rec.to_csa().expect("csa");
    // Gote's -120 is +120 from sente's view.
    assert!(csa.contains("'** 120 +7776FU -3334FU"), "{csa}");
}

#[test]
fn push_refuses_illegal_moves() {
    let mut rec = GameRecord::new(&Position::startpos());
    let p = Position::startpos();
    let mv = p.parse_usi_move("7g7f").expect("legal");
    rec.push(RecordedMove::new(mv)).expect("legal");
    let again = rec.push(RecordedMove::new(mv)).expect_err("7g7f again");
    assert!(matches!(
        again.illegal_reason(),
        Some(IllegalReason::NoPieceOnSquare(_))
    ));
    assert_eq!(rec.moves().len(), 1);
}

#[test]
fn unwritable_ends_are_errors_not_panics() {
    let mut rec = game("startpos moves 7g7f");
    rec.end = Some(GameEnd {
        reason: EndReason::Resign,
        winner: None,
    });
    assert!(matches!(
        rec.to_csa(),
        Err(RecordError::Unwritable {
            format: Format::Csa,
            ..
        })
    ));
    assert!(matches!(
        rec.to_kif(),
        Err(RecordError::Unwritable {
            format: Format::Kif,
            ..
        })
    ));
}

fn csa_error(text: &str) -> RecordError {
    GameRecord::read_csa(text).expect_err(text)
}

fn kif_error(text: &str) -> RecordError {
    GameRecord::read_kif(text).expect_err(text)
}

/// The rule `err` says main-line move `number` (on `line` of a `format` file) breaks; panics
/// if `err` says anything else.
fn illegal_move_reason(
    err: &RecordError,
    format: Format,
    line: usize,
    number: usize,
) -> &IllegalReason {
    match err {
        RecordError::IllegalMove {
            format: f,
            line: l,
            number: n,
            error,
        } if (*f, *l, *n) == (format, line, number) => error
            .illegal_reason()
            .unwrap_or_else(|| panic!("not a rule: {error}")),
        other => panic!("{other}"),
    }
}

#[test]
fn malformed_csa_names_line_and_problem() {
    let err = csa_error("V2.2\nPI\n+\n+7776FU\n-3334FU\n+7674FU\n%TORYO\n");
    let reason = illegal_move_reason(&err, Format::Csa, 6, 3);
    assert!(
        matches!(
            reason,
            IllegalReason::CannotReach {
                kind: PieceKind::Pawn,
                ..
            }
        ),
        "{reason:?}"
    );
    let err = csa_error("V2.2\nPI\n+\n+7776FU\nhello world\n%TORYO\n");
    assert!(matches!(err, RecordError::Syntax { line: 5, .. }), "{err}");
    assert!(err.to_string().contains("line 5") && err.to_string().contains("hello world"));
    let err = csa_error("V2.2\nPI\n+\n-3334FU\n");
    assert!(matches!(err, RecordError::Syntax { line: 4, .. }), "{err}");
    // A board without kings.
    let err = csa_error("V2.2\nP1-KY-KE\n+\n+7776FU\n");
    assert!(
        matches!(err, RecordError::StartPosition { line: 2, .. }),
        "{err}"
    );
    // Nifu by a drop.
    let err = csa_error("V2.2\nPI\n+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0055FU\n");
    let reason = illegal_move_reason(&err, Format::Csa, 8, 5);
    assert!(
        matches!(reason, IllegalReason::NotInHand(PieceKind::Pawn)),
        "{reason:?}"
    );
}

#[test]
fn malformed_kif_names_line_and_problem() {
    let err = kif_error("手合割：九枚落ち\n手数----指手---------消費時間--\n   1 ７六歩(77)\n");
    assert!(
        matches!(err, RecordError::Syntax { line: 1, .. }) && err.to_string().contains("九枚落ち"),
        "{err}"
    );
    let err = kif_error("手合割：平手\n   1 ７六歩(77)\n   2 ほげほげ\n");
    assert!(matches!(err, RecordError::Syntax { line: 3, .. }), "{err}");
    let err = kif_error("手合割：平手\n   1 ７六歩(77)\n   3 ３四歩(33)\n");
    assert!(
        matches!(err, RecordError::Syntax { line: 3, .. }) && err.to_string().contains("expected"),
        "{err}"
    );
    let err = kif_error("手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ７四歩(76)\n");
    let reason = illegal_move_reason(&err, Format::Kif, 4, 3);
    assert!(
        matches!(reason, IllegalReason::CannotReach { .. }),
        "{reason:?}"
    );
    // 二歩 in KIF.
    let err = kif_error(
        "手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 ７五歩打\n",
    );
    let reason = illegal_move_reason(&err, Format::Kif, 6, 5);
    assert!(
        matches!(reason, IllegalReason::NotInHand(PieceKind::Pawn)),
        "{reason:?}"
    );
}
