//! Reading hand-written records, writing games, and the errors for malformed files.

use super::*;
use crate::position::Position;
use crate::position::{Handicap, IllegalReason};
use crate::types::PieceKind;
use crate::types::{ByColor, Color, Move, Score};
use std::time::Duration;

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
    // KIF always writes a time (a missing one as 0:00).
    let mut expected = rec.clone();
    for i in 0..expected.moves().len() {
        let note = expected.annotate(i).expect("index in range");
        note.time.get_or_insert(Duration::ZERO);
    }
    assert_eq!(back, expected, "{kif}");
    let sjis = rec.to_kif_shift_jis().expect("write Shift_JIS kif");
    assert_eq!(
        GameRecord::from_kif_bytes(&sjis).expect("read back Shift_JIS"),
        expected
    );
}

/// The program that wrote a record: a plain `'` comment right after CSA's `V2.2` and a `#`
/// line opening the KIF, which readers skip (the moves, names and comments read back as
/// written, and no move takes the line as its comment).
#[test]
fn the_writer_is_a_comment_line_readers_skip() {
    let mut rec = game("startpos moves 7g7f 3c3d");
    rec.sente = Some("Alice".into());
    rec.written_by = Some("council-match 0.1.0 (commit 0123456789ab, clean)".into());
    let csa = rec.to_csa().expect("csa");
    assert!(
        csa.starts_with("V2.2\n'council-match 0.1.0 (commit 0123456789ab, clean)\nN+Alice\n"),
        "{csa}"
    );
    let kif = rec.to_kif().expect("kif");
    assert!(
        kif.starts_with("# council-match 0.1.0 (commit 0123456789ab, clean)\n"),
        "{kif}"
    );
    let back = GameRecord::read_csa(&csa).expect("read back csa");
    assert_eq!(back.written_by, None);
    assert!(back.moves().iter().all(|m| m.comment.is_none()), "{csa}");
    round_trip(&rec);
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

/// The start time and the clocks are written in both formats' own header lines and read back;
/// a clock with a fraction of a second (neither format has one) is left out.
#[test]
fn start_time_and_clocks_round_trip() {
    let clock = |main: u64, byoyomi: u64, increment: u64| {
        Some(crate::clock::TimeControl {
            main: Duration::from_secs(main),
            byoyomi: Duration::from_secs(byoyomi),
            increment: Duration::from_secs(increment),
        })
    };
    let mut rec = game("startpos moves 7g7f 3c3d");
    rec.start_time = Some("2026/11/29 04:05:06".into());
    rec.clocks = ByColor::new_with(|_| clock(600, 10, 0));
    round_trip(&rec);
    let csa = rec.to_csa().expect("csa");
    assert!(csa.contains("\n$START_TIME:2026/11/29 04:05:06\n"), "{csa}");
    assert!(csa.contains("\n$TIME_LIMIT:00:10+10\n"), "{csa}");
    let kif = rec.to_kif().expect("kif");
    assert!(kif.contains("開始日時：2026/11/29 04:05:06\n"), "{kif}");
    assert!(kif.contains("持ち時間：10分秒読み10秒\n"), "{kif}");

    // Fischer, and a different clock per side.
    rec.clocks = ByColor {
        sente: clock(300, 0, 5),
        gote: clock(120, 0, 2),
    };
    round_trip(&rec);
    let kif = rec.to_kif().expect("kif");
    assert!(kif.contains("先手持ち時間：300+0+5\n"), "{kif}");

    // 0.1 s of byoyomi: no clock line.
    rec.clocks = ByColor::default();
    let mut tenth = clock(0, 0, 0);
    if let Some(c) = tenth.as_mut() {
        c.byoyomi = Duration::from_millis(100);
    }
    let mut fractional = rec.clone();
    fractional.clocks = ByColor::new_with(|_| tenth);
    assert_eq!(
        GameRecord::read_csa(&fractional.to_csa().expect("csa")).expect("reads"),
        rec
    );
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

// ---------------------------------------------------------------------------------------------
// KIF as GUIs and databases write it

const KFW_SJIS: &[u8] = include_bytes!("../../tests/data/records/kifu-for-windows.kif");
const SHOGIGUI_KIFU: &[u8] = include_bytes!("../../tests/data/records/shogigui-handicap.kifu");
const BOARD_SJIS: &[u8] = include_bytes!("../../tests/data/records/handicap-board.kif");
const CLUB24_SJIS: &[u8] = include_bytes!("../../tests/data/records/shogiclub24.kif");

fn end(reason: EndReason, winner: Option<Color>) -> Option<GameEnd> {
    Some(GameEnd { reason, winner })
}

#[test]
fn reads_a_shift_jis_kifu_for_windows_file_with_variations_bookmarks_and_hash_lines() {
    assert!(
        String::from_utf8(KFW_SJIS.to_vec()).is_err(),
        "fixture is Shift_JIS"
    );
    let rec = GameRecord::from_kif_bytes(KFW_SJIS).expect("read");
    assert_eq!(rec.start(), &Position::startpos());
    // The main line only: 変化 blocks (3手, nested 5手, 4手) are not main-line moves.
    assert_eq!(
        usi(&rec),
        ["7g7f", "3c3d", "2g2f", "4c4d", "2f2e", "2b3c", "3i4h"]
    );
    assert_eq!(
        (rec.sente.as_deref(), rec.gote.as_deref()),
        (Some("先手の人"), Some("後手の人"))
    );
    assert_eq!(rec.event.as_deref(), Some("council 練習対局"));
    let times: Vec<_> = rec.moves().iter().map(|m| m.time).collect();
    assert_eq!(
        times,
        [
            secs(1),
            secs(2),
            secs(3),
            secs(4),
            secs(5),
            secs(6),
            secs(7)
        ]
    );
    // `&` bookmarks are not comments; `*` lines are.
    assert_eq!(rec.moves()[1].comment, None);
    assert_eq!(rec.moves()[2].comment.as_deref(), Some("角交換を避けた"));
    assert_eq!(rec.end, end(EndReason::Resign, Some(Color::Sente)));
    // The same text as UTF-8, with and without a byte-order mark, reads the same.
    let text = encoding_rs::SHIFT_JIS.decode(KFW_SJIS).0.into_owned();
    assert_eq!(GameRecord::read_kif(&text).expect("utf-8"), rec);
    let bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
    assert_eq!(GameRecord::from_kif_bytes(&bom).expect("bom"), rec);
    assert_eq!(
        GameRecord::from_kif_bytes(text.as_bytes()).expect("bytes"),
        rec
    );
}

#[test]
fn reads_a_shogigui_handicap_kifu_with_uwate_shitate_labels_and_a_pv() {
    let rec = GameRecord::from_kif_bytes(SHOGIGUI_KIFU).expect("read");
    assert_eq!(rec.handicap(), Some(Handicap::Lance));
    // 上手 (the giver) is gote and moves first.
    assert_eq!(rec.start().side_to_move(), Color::Gote);
    assert_eq!(
        (rec.sente.as_deref(), rec.gote.as_deref()),
        (Some("下手エンジン"), Some("上手エンジン"))
    );
    assert_eq!(
        usi(&rec),
        [
            "3c3d", "7g7f", "4c4d", "2g2f", "2b3c", "3i4h", "8b4b", "5i6h"
        ]
    );
    // 上手 resigns at move 9: 下手 (sente) wins, as `まで8手で下手の勝ち` says.
    assert_eq!(rec.end, end(EndReason::Resign, Some(Color::Sente)));
    // -150 from sente's view after gote's move is +150 for gote; the pv ends with a drop.
    let engine = rec.moves()[0].engine.as_ref().expect("engine comment");
    assert_eq!(engine.score, Score::Cp(150));
    assert_eq!(
        engine.pv.iter().map(|m| m.to_usi()).collect::<Vec<_>>(),
        ["7g7f", "4c4d"],
        "the pv stops where it stops being legal (sente has no bishop in hand)"
    );
}

#[test]
fn handicap_games_are_written_with_uwate_and_shitate_labels() {
    let rec = GameRecord::from_kif_bytes(SHOGIGUI_KIFU).expect("read");
    let kif = rec.to_kif().expect("write");
    assert!(kif.contains("手合割：香落ち"), "{kif}");
    assert!(kif.contains("上手：上手エンジン\n"), "{kif}");
    assert!(kif.contains("下手：下手エンジン\n"), "{kif}");
    assert!(!kif.contains("先手：") && !kif.contains("後手："), "{kif}");
    assert!(kif.contains("まで8手で下手の勝ち"), "{kif}");
    assert_eq!(GameRecord::read_kif(&kif).expect("read back"), rec);
    // Even games keep 先手/後手.
    let even = GameRecord::from_kif_bytes(CLUB24_SJIS).expect("24");
    let kif = even.to_kif().expect("write");
    assert!(
        kif.contains("先手：sente24\n") && kif.contains("後手：gote24\n"),
        "{kif}"
    );
}

#[test]
fn reads_a_handicap_board_diagram_with_uwate_to_move() {
    let rec = GameRecord::from_kif_bytes(BOARD_SJIS).expect("read");
    // The diagram is the lance handicap start, 上手番 = gote to move.
    assert_eq!(rec.start().to_sfen(), Handicap::Lance.sfen());
    assert_eq!(
        (rec.sente.as_deref(), rec.gote.as_deref()),
        (Some("Shitate"), Some("Uwate"))
    );
    assert_eq!(usi(&rec), ["3c3d", "7g7f"]);
    // 上手 (to move at move 3) loses by a foul.
    assert_eq!(rec.end, end(EndReason::IllegalMove, Some(Color::Sente)));
    // 下手番 is sente to move.
    let text = encoding_rs::SHIFT_JIS.decode(BOARD_SJIS).0.into_owned();
    let text = text.replace("上手番", "下手番").replace(
        "   1 ３四歩(33)\n   2 ７六歩(77)\n   3 反則負け\nまで2手で上手の反則負け\n",
        "   1 ７六歩(77)\n",
    );
    let rec = GameRecord::read_kif(&text).expect("read 下手番");
    assert_eq!(rec.start().side_to_move(), Color::Sente);
    assert_eq!(usi(&rec), ["7g7f"]);
}

#[test]
fn reads_a_shogi_club_24_file_ending_on_time() {
    let rec = GameRecord::from_kif_bytes(CLUB24_SJIS).expect("read");
    assert_eq!(usi(&rec), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "B*5d"]);
    assert_eq!(rec.moves()[4].time, secs(10));
    assert_eq!(rec.end, end(EndReason::Timeout, Some(Color::Gote)));
}

#[test]
fn every_kif_end_line_maps_to_its_reason_and_winner() {
    // After 7g7f gote is to move: the end word is about gote.
    let cases = [
        ("投了", EndReason::Resign, Some(Color::Sente)),
        ("中断", EndReason::Abort, None),
        ("詰み", EndReason::Checkmate, Some(Color::Sente)),
        ("千日手", EndReason::Repetition, None),
        // 持将棋 (a drawn impasse) is a draw by rule, as %JISHOGI is.
        ("持将棋", EndReason::MaxPlies, None),
        // 反則勝ち: the side to move wins by the other's foul; 反則負け: it loses by its own.
        ("反則勝ち", EndReason::IllegalMove, Some(Color::Gote)),
        ("反則負け", EndReason::IllegalMove, Some(Color::Sente)),
        ("切れ負け", EndReason::Timeout, Some(Color::Sente)),
        ("入玉勝ち", EndReason::Impasse, Some(Color::Gote)),
    ];
    for (word, reason, winner) in cases {
        for time in ["", "   ( 0:03/00:00:03)"] {
            let text = format!(
                "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)   ( 0:01/00:00:01)\n   2 {word}{time}\n"
            );
            let rec = GameRecord::read_kif(&text).unwrap_or_else(|e| panic!("{word}: {e}"));
            assert_eq!(usi(&rec), ["7g7f"], "{word}");
            assert_eq!(rec.end, end(reason, winner), "{word}{time}");
        }
    }
    // Summary lines alone.
    let summaries = [
        (
            "まで1手で先手の勝ち",
            end(EndReason::Resign, Some(Color::Sente)),
        ),
        (
            "まで1手で時間切れにより先手の勝ち",
            end(EndReason::Timeout, Some(Color::Sente)),
        ),
        ("まで1手で中断", end(EndReason::Abort, None)),
        ("まで1手で千日手", end(EndReason::Repetition, None)),
        (
            "まで1手で後手の反則負け",
            end(EndReason::IllegalMove, Some(Color::Sente)),
        ),
    ];
    for (line, expected) in summaries {
        let text = format!("手合割：平手\n   1 ７六歩(77)\n{line}\n");
        assert_eq!(
            GameRecord::read_kif(&text).expect(line).end,
            expected,
            "{line}"
        );
    }
}

#[test]
fn kif_survives_what_real_files_hold_besides_moves() {
    let text = "#KIF version=2.0 encoding=UTF-8\n\
                # 手書き\n\
                開始日時：2024/06/01 10:00:00\n\
                場所：どこか\n\
                持ち時間：10分+30秒\n\
                手合割：平手\n\
                先手：A\n\
                後手：B\n\
                戦型：その他\n\
                手数----指手---------消費時間--\n\
                &しおり\n\
                   1 ７六歩(77)\n\
                # 途中のコメント行\n\
                   2 ３四歩(33)   ( 0:02/00:00:02)+\n\
                &しおり2\n\
                   3 ２二角成(88)\n\
                   4 同　銀(31)   (00:01/00:00:01)\n\
                   5 ４五角打\n\
                   6 中断\n\
                まで5手で中断\n";
    let rec = GameRecord::read_kif(text).expect("read");
    assert_eq!(usi(&rec), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
    assert_eq!(rec.moves()[0].time, None);
    assert_eq!(rec.moves()[1].time, secs(2));
    assert_eq!(rec.moves()[3].time, secs(1));
    assert_eq!(rec.end, end(EndReason::Abort, None));
    // CR LF and CR-only line ends read alike.
    assert_eq!(
        GameRecord::read_kif(&text.replace('\n', "\r\n")).expect("crlf"),
        rec
    );
}

#[test]
fn nested_variations_are_never_main_line_moves() {
    // Variations that would be legal, illegal, or out of sequence as main-line moves.
    let text = "手合割：平手\n\
                手数----指手---------消費時間--\n\
                   1 ７六歩(77)\n\
                   2 ３四歩(33)+\n\
                   3 ２六歩(27)\n\
                \n\
                変化：2手\n\
                   2 ８四歩(83)+\n\
                   3 ２六歩(27)\n\
                   4 ８五歩(84)\n\
                \n\
                変化：2手\n\
                   2 ４四歩(43)\n\
                   3 ９九玉(11)\n\
                \n\
                変化：4手\n\
                   4 ３四歩(33)\n";
    let rec = GameRecord::read_kif(text).expect("read");
    assert_eq!(usi(&rec), ["7g7f", "3c3d", "2g2f"]);
    assert_eq!(rec.end, None);
}

#[test]
fn a_pv_with_drops_and_same_square_moves_round_trips_through_kif() {
    let mut rec = game("startpos moves 7g7f 3c3d 8h2b+");
    let mut after = rec.position().clone();
    let pv: Vec<Move> = ["3a2b", "B*4e", "8b3b", "4e3d"]
        .iter()
        .map(|t| {
            let m = after.parse_usi_move(t).expect("pv move");
            after.play(m);
            m
        })
        .collect();
    *rec.annotate(2).expect("move 3").engine = Some(EngineComment {
        score: Score::Cp(321),
        pv,
    });
    *rec.annotate(2).expect("move 3").comment = Some("角交換".into());
    rec.end = end(EndReason::Abort, None);
    let kif = rec.to_kif().expect("kif");
    assert!(
        kif.contains("**読み筋=△同　銀(31) ▲４五角打 △３二飛(82) ▲３四角(45)\n*角交換\n"),
        "{kif}"
    );
    round_trip(&rec);
}

#[test]
fn shift_jis_kif_is_written_on_request_and_unencodable_names_are_errors() {
    let rec = GameRecord::from_kif_bytes(KFW_SJIS).expect("read");
    let bytes = rec.to_kif_shift_jis().expect("sjis");
    assert!(std::str::from_utf8(&bytes).is_err());
    assert_eq!(GameRecord::from_kif_bytes(&bytes).expect("read back"), rec);
    let mut odd = rec.clone();
    odd.sente = Some("ドラゴン🐉".into());
    let err = odd.to_kif_shift_jis().expect_err("emoji");
    assert!(
        matches!(
            err,
            RecordError::Unwritable {
                format: Format::Kif,
                ..
            }
        ) && err.to_string().contains("U+1F409"),
        "{err}"
    );
    // UTF-8 stays possible for it.
    assert!(odd.to_kif().is_ok());
}

#[test]
fn bytes_in_neither_encoding_are_an_error_naming_line_and_offset() {
    let mut bytes = KFW_SJIS.to_vec();
    // Line 11 is `   1 ７六歩(77) ...`: spoil its first byte after the indent.
    let line_start = bytes
        .split(|&b| b == b'\n')
        .take(10)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let offset = line_start + 3;
    bytes[offset] = 0xFF;
    let err = GameRecord::from_kif_bytes(&bytes).expect_err("0xFF");
    assert_eq!(
        err,
        RecordError::Encoding {
            format: Format::Kif,
            line: 11,
            offset,
            bytes: "ff".into()
        }
    );
    assert!(
        err.to_string().contains("line 11") && err.to_string().contains(&format!("byte {offset}"))
    );
    // A lead byte followed by a byte that cannot trail it.
    let err = GameRecord::from_kif_bytes(b"\x81\x20").expect_err("bad pair");
    assert!(
        matches!(
            err,
            RecordError::Encoding {
                line: 1,
                offset: 0,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn read_file_names_the_file_in_every_error() {
    let dir = std::env::temp_dir().join(format!("council-kif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let good = dir.join("good.kif");
    std::fs::write(&good, KFW_SJIS).expect("write");
    assert_eq!(
        GameRecord::read_file(&good).expect("read"),
        GameRecord::from_kif_bytes(KFW_SJIS).expect("bytes")
    );
    let kifu = dir.join("g.KIFU");
    std::fs::write(&kifu, SHOGIGUI_KIFU).expect("write");
    assert_eq!(
        GameRecord::read_file(&kifu).expect("kifu").handicap(),
        Some(Handicap::Lance)
    );
    let csa = dir.join("g.csa");
    std::fs::write(&csa, FLOODGATE_CSA).expect("write");
    assert_eq!(GameRecord::read_file(&csa).expect("csa").moves().len(), 5);

    let bad = dir.join("bad.kif");
    std::fs::write(&bad, b"V2\n\xFF\xFE\n").expect("write");
    let err = GameRecord::read_file(&bad).expect_err("bad bytes");
    let shown = err.to_string();
    assert!(
        shown.contains("bad.kif") && shown.contains("line 2"),
        "{shown}"
    );
    let broken = dir.join("broken.kif");
    std::fs::write(&broken, "手合割：平手\n   1 ７六歩(77)\n   2 ほげ\n").expect("write");
    let shown = GameRecord::read_file(&broken)
        .expect_err("syntax")
        .to_string();
    assert!(
        shown.contains("broken.kif") && shown.contains("line 3"),
        "{shown}"
    );
    let missing = GameRecord::read_file(dir.join("missing.kif")).expect_err("missing");
    assert!(matches!(missing, RecordError::Io { .. }), "{missing}");
    let other = GameRecord::read_file(dir.join("x.txt")).expect_err("extension");
    assert!(other.to_string().contains("x.txt"), "{other}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- Board diagrams (BOD) ----

/// Seed 000's diagram after move 74 (△５三同飛), pasted from the article: ASCII file numbers
/// and colons, no `手数＝` line, sente to move, names under it.
const SEED000_BOD: &str = include_str!("../../../tests/fixtures/seed000_ply74.kif");
/// The same diagram as Kifu for Windows lays it out (full-width, `手数＝74`), two moves on.
const SEED000_KIF: &str = include_str!("../../../tests/fixtures/seed000_ply74_moves.kif");
/// Its position, read square by square off the diagram (counted: 40 pieces, 18 pawns).
const SEED000_SFEN: &str = "l4k2l/7g1/p3rpn1p/2p3pB1/4s4/1Ps1pSP2/P4P1RP/2GS5/LN1K3NL b G3Pbgn4p 1";

#[test]
fn reads_a_bare_board_diagram() {
    let rec = GameRecord::read_kif(SEED000_BOD).expect("read the seed 000 diagram");
    assert_eq!(rec.start().to_sfen(), SEED000_SFEN);
    assert!(rec.moves().is_empty());
    assert_eq!(rec.end, None);
    assert_eq!(rec.sente.as_deref(), Some("リスナー全員"));
    // The article's position: 108 legal moves for sente (cshogi agrees: tests/tests/engine_ebf.rs).
    assert_eq!(rec.start().legal_moves().len(), 108);
}

#[test]
fn reads_a_kif_that_starts_from_a_board_diagram() {
    let rec = GameRecord::read_kif(SEED000_KIF).expect("read");
    assert_eq!(rec.start().to_sfen(), SEED000_SFEN);
    assert_eq!(usi(&rec), ["2d3c+", "2b3c"]);
    assert_eq!(rec.end, end(EndReason::Abort, None));
    // `後手番` under the `手数＝` line still makes gote the side to move.
    let gote = SEED000_KIF.replace(
        "手数＝74  △５三飛(54)  まで\n",
        "手数＝74  △５三飛(54)  まで\n後手番\n",
    );
    let gote = gote.split("手数----").next().expect("header").to_string();
    let rec = GameRecord::read_kif(&gote).expect("read with 後手番");
    assert_eq!(rec.start().side_to_move(), Color::Gote);
}

#[test]
fn a_game_from_a_diagram_is_written_with_the_diagram_and_reads_back() {
    let start = Position::from_sfen(SEED000_SFEN).expect("sfen");
    let mut line = start.clone();
    let mut rec = GameRecord::new(&start);
    for usi in ["2d3c+", "2b3c", "G*4b"] {
        let mv = line.parse_usi_move(usi).expect("legal");
        line.play(mv);
        rec.push(RecordedMove::new(mv)).expect("push");
    }
    let kif = rec.to_kif().expect("write");
    assert!(!kif.contains("手合割"), "{kif}");
    assert!(kif.contains("|v香 ・ ・ ・ ・v玉 ・ ・v香|一"), "{kif}");
    let back = GameRecord::read_kif(&kif).expect("read back");
    assert_eq!(back.start(), rec.start(), "{kif}");
    assert_eq!(usi(&back), usi(&rec));
    // Gote to move (the position after 2d3c+) round-trips too, as a bare diagram and as a KIF.
    let mut after = start.clone();
    after.play(after.parse_usi_move("2d3c+").expect("legal"));
    // A diagram carries no move number: the start is read as move 1.
    let sfen = after.to_sfen();
    let (position_part, _) = sfen.rsplit_once(' ').expect("SFEN fields");
    let gote_start = Position::from_sfen(&format!("{position_part} 1")).expect("sfen");
    let bod = board_diagram(&gote_start);
    assert!(bod.ends_with("後手番"), "{bod}");
    assert_eq!(
        GameRecord::read_kif(&bod).expect("read bod").start(),
        &gote_start
    );
    let kif = GameRecord::new(&gote_start).to_kif().expect("write");
    assert_eq!(
        GameRecord::read_kif(&kif).expect("read").start(),
        &gote_start,
        "{kif}"
    );
    // Named starts keep their 手合割 line.
    for h in [Handicap::Even, Handicap::Bishop] {
        let kif = GameRecord::new(&Position::handicap(h))
            .to_kif()
            .expect("write");
        assert!(
            kif.contains(&format!("手合割：{}", h.japanese_name())),
            "{kif}"
        );
        assert!(!kif.contains("+-----"), "{kif}");
    }
}

#[test]
fn malformed_board_diagrams_name_the_line_and_the_problem() {
    // (what to change in the seed diagram, the 1-based line the error names, words it says)
    let cases: [(&str, &str, usize, &str); 9] = [
        (
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            "| ・ ・v歩 ・ ・ ・v歩 角|四",
            7,
            "16 characters",
        ),
        (
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            "| ・ ・v歩 ・ ・ ・v歩 象 ・|四",
            7,
            "square 2四: `象` is not a piece",
        ),
        (
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            "| ・ ・v歩 ・ ・ ・v歩x角 ・|四",
            7,
            "`x角`",
        ),
        (
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            " ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            7,
            "does not start with `|`",
        ),
        (
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            "| ・ ・v歩 ・ ・ ・v歩 角 ・ 四",
            7,
            "no closing `|`",
        ),
        (
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|四",
            "| ・ ・v歩 ・ ・ ・v歩 角 ・|五",
            7,
            "rank `五`",
        ),
        (
            "先手の持駒:金 歩三",
            "先手の持駒:金 象三",
            14,
            "`象` is not a piece that can be held",
        ),
        (
            "後手の持駒:角 金 桂 歩四",
            "後手の持駒:角 金 桂 歩4",
            1,
            "the count `4`",
        ),
        ("  9 8 7 6 5 4 3 2 1\n", "", 2, "without the file numbers"),
    ];
    for (from, to, line, words) in cases {
        let text = SEED000_BOD.replacen(from, to, 1);
        assert_ne!(text, SEED000_BOD, "{from}");
        let e = kif_error(&text);
        let shown = e.to_string();
        assert!(
            matches!(e, RecordError::Syntax { line: l, .. } if l == line) && shown.contains(words),
            "{to}: {shown}"
        );
    }
    // A grid cut short: the error says how many rows there were.
    let short: String = SEED000_BOD.lines().take(9).collect::<Vec<_>>().join("\n");
    let shown = kif_error(&short).to_string();
    assert!(shown.contains("after 6 of its 9 rows"), "{shown}");
    // A position no game can reach (a third king) is an error naming the diagram.
    let shown =
        kif_error(&SEED000_BOD.replacen("| ・ ・ ・ ・v銀", "| ・ ・ ・ ・v玉", 1)).to_string();
    assert!(shown.contains("start position"), "{shown}");
}

#[test]
fn csa_move_words_convert_to_usi_and_back() {
    use super::{csa_move, csa_move_to_usi};
    let mut pos = Position::startpos();
    assert_eq!(csa_move_to_usi(&pos, "+7776FU").as_deref(), Some("7g7f"));
    // Wrong piece code, wrong sign, not a move word.
    assert_eq!(csa_move_to_usi(&pos, "+7776KA"), None);
    assert_eq!(csa_move_to_usi(&pos, "-3334FU"), None);
    assert_eq!(csa_move_to_usi(&pos, "%TORYO"), None);
    let mv = pos.parse_usi_move("7g7f").expect("legal");
    assert_eq!(csa_move(&pos, mv).as_deref(), Some("+7776FU"));
    pos.play(mv);
    let mv = pos.parse_usi_move("3c3d").expect("legal");
    assert_eq!(csa_move(&pos, mv).as_deref(), Some("-3334FU"));
    pos.play(mv);
    // A bishop exchange with promotion, then a drop.
    assert_eq!(csa_move_to_usi(&pos, "+8822UM").as_deref(), Some("8h2b+"));
    assert_eq!(csa_move_to_usi(&pos, "+8822KA").as_deref(), Some("8h2b"));
    let mv = pos.parse_usi_move("8h2b+").expect("legal");
    assert_eq!(csa_move(&pos, mv).as_deref(), Some("+8822UM"));
    pos.play(mv);
    pos.play(pos.parse_usi_move("3a2b").expect("legal"));
    assert_eq!(csa_move_to_usi(&pos, "+0055KA").as_deref(), Some("B*5e"));
}

#[test]
fn floodgate_comments_give_sentes_view_and_the_line_after_the_move() {
    let mut pos = Position::startpos();
    let mv = pos.parse_usi_move("7g7f").expect("move");
    pos.play(mv);
    let pv: Vec<Move> = ["3c3d", "2g2f"]
        .iter()
        .scan(pos.clone(), |p, m| {
            let mv = p.parse_usi_move(m).ok()?;
            p.play(mv);
            Some(mv)
        })
        .collect();
    assert_eq!(
        floodgate_comment(&pos, Color::Sente, Score::Cp(30), &pv),
        "'* 30 -3334FU +2726FU"
    );
    // Gote's own +30 is sente's -30; a mate in 3 for gote is -(32000 - 3).
    let mut after = pos.clone();
    after.play(pv[0]);
    assert_eq!(
        floodgate_comment(&after, Color::Gote, Score::Cp(30), &pv[1..]),
        "'* -30 +2726FU"
    );
    assert_eq!(
        floodgate_comment(&after, Color::Gote, Score::Mate(3), &[]),
        "'* -31997"
    );
    // A pv that is not legal after the move is cut where it stops being legal.
    assert_eq!(
        floodgate_comment(&pos, Color::Sente, Score::Mate(-2), &pv[1..]),
        "'* -31998"
    );
}

#[test]
fn kif_move_text_is_the_kif_records_own() {
    // A promotion, a recapture on the same square, a drop and a declined promotion.
    let rec = game("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e 9c9d 4e6c");
    let mut pos = rec.start().clone();
    let mut texts = Vec::new();
    for m in rec.moves() {
        texts.push(super::kif_move(&pos, m.mv).expect("a legal move"));
        pos.play(m.mv);
    }
    assert_eq!(
        texts,
        [
            "７六歩(77)",
            "３四歩(33)",
            "２二角成(88)",
            "同　銀(31)",
            "４五角打",
            "９四歩(93)",
            "６三角不成(45)"
        ]
    );
    // Each is the move as our KIF record writes it, in order, but for a declined promotion,
    // which rsshogi's writer leaves bare and Kifu for Windows (and this text) marks 不成.
    let kif = rec.to_kif().expect("write kif");
    let written: Vec<&str> = kif
        .lines()
        .filter_map(|l| l.trim_start().split_once(' '))
        .filter(|(n, _)| n.parse::<usize>().is_ok())
        .filter_map(|(_, rest)| rest.split(' ').next())
        .take(texts.len())
        .collect();
    let ours: Vec<String> = texts.iter().map(|t| t.replace("不成", "")).collect();
    assert_eq!(ours, written, "{kif}");
}

/// rsshogi's `export_kif` of the whole record: what the KIF writer must write, byte for byte.
fn rsshogi_kif(rec: &GameRecord) -> Result<String, RecordError> {
    let out = super::convert::to_rs(rec, Format::Kif)?;
    Ok(rsshogi::records::formats::kif::export_kif(&out).expect("rsshogi writes it"))
}

#[test]
fn the_kif_writer_writes_what_rsshogis_export_kif_writes() {
    let files = [
        GameRecord::read_csa(FLOODGATE_CSA).expect("floodgate"),
        GameRecord::read_csa(HANDICAP_CSA).expect("handicap board"),
        GameRecord::read_kif(EVEN_KIF).expect("even"),
        GameRecord::read_kif(NON_PROMOTION_KIF).expect("non-promotion"),
        GameRecord::from_kif_bytes(KFW_SJIS).expect("kifu for windows"),
        GameRecord::from_kif_bytes(SHOGIGUI_KIFU).expect("shogigui"),
        GameRecord::from_kif_bytes(BOARD_SJIS).expect("handicap board kif"),
        GameRecord::from_kif_bytes(CLUB24_SJIS).expect("shogi club 24"),
    ];
    let gote_board =
        Position::from_sfen("lnsgk2nl/6g2/ppppppbpp/9/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w Rb 1")
            .expect("sfen");
    let mut rest = vec![GameRecord::new(&gote_board)];
    let mut annotated = files[0].clone();
    annotated.sente = Some("先手の人".into());
    annotated.written_by = Some("council-match test".into());
    annotated.start_time = Some("2026/11/29 04:05:06".into());
    let tc = |main, byoyomi| crate::clock::TimeControl {
        main: Duration::from_secs(main),
        byoyomi: Duration::from_secs(byoyomi),
        increment: Duration::ZERO,
    };
    annotated.clocks = ByColor {
        sente: Some(tc(600, 10)),
        gote: Some(tc(300, 0)),
    };
    for i in 0..annotated.moves().len() {
        let after: Vec<Move> = annotated.moves()[i + 1..].iter().map(|m| m.mv).collect();
        let a = annotated.annotate(i).expect("move");
        // Times past a minute and an hour in total, a move without one, and every score.
        *a.time = (i != 2).then(|| Duration::from_millis(1999 + 2_400_000 * i as u64));
        *a.comment = Some(format!("  line one of {i}\n\n line two  "));
        *a.engine = Some(EngineComment {
            score: [
                Score::Cp(-120),
                Score::Mate(3),
                Score::Mate(-4),
                Score::Cp(0),
            ][i % 4],
            pv: after,
        });
    }
    rest.push(annotated);
    let mut compared = 0;
    for base in files.iter().chain(&rest) {
        for reason in EndReason::ALL {
            for winner in [None, Some(Color::Sente), Some(Color::Gote)] {
                let mut rec = base.clone();
                rec.end = Some(GameEnd { reason, winner });
                let Ok(expected) = rsshogi_kif(&rec) else {
                    assert!(
                        super::kif_write::write(&rec).is_err(),
                        "{reason} {winner:?}"
                    );
                    continue;
                };
                let written = super::kif_write::write(&rec).expect("write");
                assert_eq!(written, expected, "{reason} {winner:?}");
                compared += 1;
            }
        }
        let mut open = base.clone();
        open.end = None;
        assert_eq!(super::kif_write::write(&open), rsshogi_kif(&open));
    }
    assert!(compared > 100, "{compared} records compared");
}
