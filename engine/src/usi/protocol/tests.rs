//! Protocol tests without a process: canonical lines round-trip, odd but valid lines parse,
//! malformed values are refused with the line quoted.

use super::*;
use crate::clock::TimeControl;
use proptest::prelude::*;

fn gui(line: &str) -> GuiCommand {
    parse_gui_command(line).unwrap_or_else(|e| panic!("{e}"))
}

fn engine(line: &str) -> EngineMessage {
    parse_engine_message(line).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn canonical_gui_lines_round_trip() {
    for line in [
        "usi",
        "isready",
        "usinewgame",
        "stop",
        "ponderhit",
        "quit",
        "setoption name USI_Hash value 256",
        "setoption name EvalNoise Seed value 42",
        "setoption name Clear Hash",
        "position startpos",
        "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
        "position sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 5a4b",
        "go btime 60000 wtime 50000 byoyomi 1000",
        "go ponder btime 1 wtime 2 binc 3 winc 4",
        "go movetime 500",
        "go nodes 10000 depth 12",
        "go infinite",
        "go mate 3000",
        "go mate infinite",
        "go depth 3 searchmoves 7g7f 2g2f",
        "gameover win",
        "gameover lose",
        "gameover draw",
    ] {
        assert_eq!(gui(line).to_string(), line);
    }
}

#[test]
fn gui_commands_carry_their_values() {
    assert_eq!(
        gui("go btime 1000 wtime 2000 byoyomi 500 nodes 77"),
        GuiCommand::Go(Go {
            btime: Some(1000),
            wtime: Some(2000),
            byoyomi: Some(500),
            nodes: Some(77),
            ..Go::default()
        })
    );
    assert_eq!(
        gui("setoption name MultiPV value 3"),
        GuiCommand::SetOption {
            name: "MultiPV".into(),
            value: Some("3".into())
        }
    );
    assert_eq!(
        gui("setoption name BookFile value"),
        GuiCommand::SetOption {
            name: "BookFile".into(),
            value: Some(String::new())
        }
    );
    assert_eq!(
        gui("position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1"),
        GuiCommand::Position {
            start: PositionStart::Sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1".into()),
            moves: vec![]
        }
    );
    // Extra blanks and unknown go tokens are tolerated; negative clock times read as 0.
    assert_eq!(
        gui("  go   btime -20 wtime 100 movestogo 40 frobnicate byoyomi 1000  "),
        GuiCommand::Go(Go {
            btime: Some(0),
            wtime: Some(100),
            byoyomi: Some(1000),
            ..Go::default()
        })
    );
}

#[test]
fn malformed_gui_lines_are_refused_with_the_line() {
    let kind = |line: &str| parse_gui_command(line).expect_err(line).kind;
    assert_eq!(kind("   "), ProtocolErrorKind::Empty);
    assert_eq!(
        kind("hello"),
        ProtocolErrorKind::UnknownCommand("hello".into())
    );
    assert!(matches!(
        kind("go btime"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("go btime soon"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("go depth -3"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("go nodes 1.5"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("setoption value 3"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("setoption name"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("position"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("position sfen"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("position fen x"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("gameover maybe"),
        ProtocolErrorKind::BadValue { .. }
    ));
    let err = parse_gui_command("go wtime x").expect_err("x");
    assert!(err.to_string().contains("go wtime x") && err.to_string().contains("wtime"));
}

#[test]
fn canonical_engine_lines_round_trip() {
    for line in [
        "usiok",
        "readyok",
        "id name council 0.1",
        "id author the council team",
        "option name USI_Hash type spin default 256 min 1 max 4096",
        "option name USI_Ponder type check default false",
        "option name Style type combo default Normal var Solid var Normal var Risky",
        "option name Clear Hash type button",
        "option name BookFile type filename default <empty>",
        "option name Greeting type string default hello world",
        "info depth 12 seldepth 20 time 1234 nodes 567890 nps 460000 hashfull 12 multipv 1 score cp 35 pv 7g7f 3c3d 2g2f",
        "info depth 9 score cp -120 lowerbound",
        "info depth 9 score cp 80 upperbound",
        "info depth 5 score mate 7 pv 2b3c+ 4a3b",
        "info score mate -4",
        "info score mate +",
        "info score mate -",
        "info currmove 7g7f",
        "info nodes 10 string hello   spaced world",
        "info depth 1 pv 7g7f string after pv",
        "bestmove 7g7f",
        "bestmove 8h2b+ ponder 3a2b",
        "bestmove P*5e",
        "bestmove resign",
        "bestmove win",
        "checkmate nomate",
        "checkmate timeout",
        "checkmate notimplemented",
        "checkmate G*5b 4a5b",
    ] {
        assert_eq!(engine(line).to_string(), line);
    }
}

#[test]
fn an_info_line_read_in_place_is_the_info_parse_engine_message_reads() {
    let info = parse_info_line("  info depth 4 multipv 2 score cp 12 pv  7g7f   3c3d nodes 9 ")
        .expect("valid");
    // The pv is read off the line as written, its words in order.
    assert_eq!(info.pv().collect::<Vec<_>>(), ["7g7f", "3c3d"]);
    assert_eq!(
        (info.depth, info.multipv, info.nodes),
        (Some(4), Some(2), Some(9))
    );
    let string = parse_info_line("info nodes 3 string  two   words ").expect("valid");
    assert_eq!(string.string, Some("two   words"));
    assert_eq!(string.pv().next(), None);
    for line in [
        "info depth 12 seldepth 20 time 1234 nodes 567890 nps 460000 hashfull 12 multipv 1 score cp 35 pv 7g7f 3c3d 2g2f",
        "info depth 9 score cp -120 lowerbound pv 2g2f",
        "info score mate + pv 8h2b+ currmove 8h2b+",
        "info pv 7g7f pv",
        "info depth 1 pv 7g7f string after pv",
        "info score cp 5 upperbound string x",
    ] {
        assert_eq!(
            EngineMessage::Info(parse_info_line(line).expect("valid").to_info()),
            engine(line),
            "{line}"
        );
    }
    // The same refusals, quoting the line; a line that is not `info` is refused too.
    for line in [
        "info depth",
        "info score cp",
        "info score pawns 3",
        "info currmove",
    ] {
        assert_eq!(
            parse_info_line(line).map(|i| i.to_info()),
            parse_engine_message(line).map(|_| Info::default()),
            "{line}"
        );
    }
    assert!(matches!(
        parse_info_line("bestmove 7g7f").map_err(|e| e.kind),
        Err(ProtocolErrorKind::UnknownCommand(_))
    ));
}

#[test]
fn engine_lines_carry_their_values() {
    let EngineMessage::Info(info) =
        engine("info depth 3 seldepth 5 multipv 2 score mate -3 upperbound nodes 99 pv 5a4b 5i4h")
    else {
        panic!("not info");
    };
    assert_eq!(info.depth, Some(3));
    assert_eq!(info.seldepth, Some(5));
    assert_eq!(info.multipv, Some(2));
    assert_eq!(info.nodes, Some(99));
    assert_eq!(
        info.score,
        Some(InfoScore {
            value: Score::Mate(-3),
            bound: ScoreBound::Upper
        })
    );
    assert_eq!(info.pv, vec!["5a4b".to_string(), "5i4h".to_string()]);
    // Unknown keys (and YaneuraOu's `cpuload`) are skipped; a key after pv ends the pv.
    let EngineMessage::Info(info) = engine("info depth 2 frob cpuload 50 pv 7g7f nodes 5") else {
        panic!("not info");
    };
    assert_eq!(
        (info.depth, info.nodes, info.pv.len()),
        (Some(2), Some(5), 1)
    );
    assert_eq!(
        engine("info score mate +5"),
        EngineMessage::Info(Info {
            score: Some(InfoScore {
                value: Score::Mate(5),
                bound: ScoreBound::Exact
            }),
            ..Info::default()
        })
    );
    assert_eq!(
        engine("option name USI_Hash type spin default 16 min 1 max 33554432"),
        EngineMessage::Option(OptionSpec {
            name: "USI_Hash".into(),
            kind: OptionKind::Spin {
                default: Some(16),
                min: Some(1),
                max: Some(33_554_432)
            }
        })
    );
    assert_eq!(
        engine("bestmove 7g7f ponder 3c3d"),
        EngineMessage::BestMove(UsiBestMove::Move {
            mv: "7g7f".into(),
            ponder: Some("3c3d".into())
        })
    );
    // Whatever the engine calls its move stays text: the arbiter judges it.
    assert_eq!(
        engine("bestmove 7g7"),
        EngineMessage::BestMove(UsiBestMove::Move {
            mv: "7g7".into(),
            ponder: None
        })
    );
    assert_eq!(
        engine("id name  Lesserkai  1.5 "),
        EngineMessage::Id(IdField::Name("Lesserkai  1.5".into()))
    );
}

#[test]
fn malformed_engine_lines_are_refused_with_the_line() {
    let kind = |line: &str| parse_engine_message(line).expect_err(line).kind;
    assert_eq!(kind(""), ProtocolErrorKind::Empty);
    assert!(matches!(
        kind("Hello from my engine"),
        ProtocolErrorKind::UnknownCommand(_)
    ));
    assert!(matches!(
        kind("bestmove"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("bestmove 7g7f ponder"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("info depth"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("info depth ten"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("info nodes -5"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("info score"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("info score cp"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("info score cp 1.5"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("info score mate x"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("info score pawns 3"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("option name X"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("option type spin"),
        ProtocolErrorKind::MissingValue { .. }
    ));
    assert!(matches!(
        kind("option name X type spin default lots"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("option name X type check default maybe"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("option name X type slider"),
        ProtocolErrorKind::BadValue { .. }
    ));
    assert!(matches!(
        kind("id nickname x"),
        ProtocolErrorKind::BadValue { .. }
    ));
    let err = parse_engine_message("info depth ten").expect_err("ten");
    assert!(err.to_string().contains("info depth ten"));
}

fn usi_move() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u8..=9, 0u8..9, 1u8..=9, 0u8..9, any::<bool>()).prop_map(|(f1, r1, f2, r2, p)| {
            format!(
                "{f1}{}{f2}{}{}",
                (b'a' + r1) as char,
                (b'a' + r2) as char,
                if p { "+" } else { "" }
            )
        }),
        (
            prop::sample::select(vec!['P', 'L', 'N', 'S', 'G', 'B', 'R']),
            1u8..=9,
            0u8..9
        )
            .prop_map(|(p, f, r)| format!("{p}*{f}{}", (b'a' + r) as char)),
    ]
}

fn score() -> impl Strategy<Value = InfoScore> {
    let value = prop_oneof![
        any::<i32>().prop_map(Score::Cp),
        (-Score::MATE_UNKNOWN..=Score::MATE_UNKNOWN).prop_map(Score::Mate),
    ];
    let bound = prop::sample::select(vec![
        ScoreBound::Exact,
        ScoreBound::Lower,
        ScoreBound::Upper,
    ]);
    (value, bound).prop_map(|(value, bound)| InfoScore { value, bound })
}

prop_compose! {
    fn info()(
        depth in proptest::option::of(any::<u32>()),
        seldepth in proptest::option::of(any::<u32>()),
        time in proptest::option::of(any::<u64>()),
        nodes in proptest::option::of(any::<u64>()),
        nps in proptest::option::of(any::<u64>()),
        hashfull in proptest::option::of(0u32..=1000),
        multipv in proptest::option::of(1u32..10),
        score in proptest::option::of(score()),
        currmove in proptest::option::of(usi_move()),
        pv in prop::collection::vec(usi_move(), 0..6),
        string in proptest::option::of("[a-z]([a-z ]{0,10}[a-z])?"),
    ) -> Info {
        Info { depth, seldepth, time, nodes, nps, hashfull, multipv, score, currmove, pv, string }
    }
}

prop_compose! {
    fn go()(
        ponder in any::<bool>(),
        times in prop::array::uniform6(proptest::option::of(any::<u32>().prop_map(u64::from))),
        nodes in proptest::option::of(any::<u64>()),
        depth in proptest::option::of(any::<u32>()),
        mate in proptest::option::of(prop_oneof![
            any::<u64>().prop_map(MateLimit::Millis),
            Just(MateLimit::Infinite),
        ]),
        infinite in any::<bool>(),
        searchmoves in prop::collection::vec(usi_move(), 0..4),
    ) -> Go {
        let [btime, wtime, byoyomi, binc, winc, movetime] = times;
        Go { ponder, btime, wtime, byoyomi, binc, winc, movetime, nodes, depth, mate, infinite, searchmoves }
    }
}

proptest! {
    #[test]
    fn any_info_round_trips(info in info()) {
        let message = EngineMessage::Info(info);
        prop_assert_eq!(parse_engine_message(&message.to_string()).expect("parse"), message);
    }

    #[test]
    fn any_go_round_trips(go in go()) {
        let command = GuiCommand::Go(go);
        prop_assert_eq!(parse_gui_command(&command.to_string()).expect("parse"), command);
    }

    #[test]
    fn arbitrary_text_never_panics(line in "\\PC{0,60}") {
        let _ = parse_gui_command(&line);
        let _ = parse_engine_message(&line);
    }
}

fn ms(x: u64) -> Duration {
    Duration::from_millis(x)
}

#[test]
fn a_go_states_clocks_and_reads_back_as_them() {
    let mut clocks = Clocks::new(
        SideClock::new(TimeControl {
            main: ms(60_000),
            byoyomi: ms(0),
            increment: ms(2000),
        }),
        SideClock::new(TimeControl {
            main: ms(30_000),
            byoyomi: ms(0),
            increment: ms(1000),
        }),
    );
    clocks
        .side_mut(Color::Sente)
        .charge(ms(5000), Duration::ZERO)
        .expect("in time");
    let mut go = Go::default();
    go.state_clocks(&clocks, Color::Gote);
    assert_eq!(
        (go.btime, go.wtime, go.byoyomi, go.binc, go.winc),
        (Some(57_000), Some(30_000), None, Some(2000), Some(1000))
    );
    assert_eq!(go.clocks(), Some(clocks));
    let byoyomi = Clocks::byoyomi_only(ms(900));
    let mut go = Go::default();
    go.state_clocks(&byoyomi, Color::Sente);
    assert_eq!(
        (go.btime, go.wtime, go.byoyomi, go.binc, go.winc),
        (Some(0), Some(0), Some(900), None, None)
    );
    assert_eq!(Go::default().clocks(), None);
}
