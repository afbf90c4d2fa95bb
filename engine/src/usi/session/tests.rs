//! Each session rule as a sequence of GUI lines and search ends, with the exact actions.

use super::*;

const ENGINE: Rules = Rules::COUNCIL_ENGINE;
const USI: Rules = Rules::COUNCIL_USI;

/// The actions as text: messages as sent, the rest by name (answers are numbers here).
fn show(actions: Vec<Action<u32>>) -> Vec<String> {
    actions
        .into_iter()
        .map(|a| match a {
            Action::Send(msg) => msg.to_string(),
            Action::Identify => "identify".into(),
            Action::SetOption { name, value } => format!("setoption {name} {value:?}"),
            Action::Prepare => "prepare".into(),
            Action::NewGame => "new game".into(),
            Action::GameOver(o) => format!("game over {o:?}"),
            Action::Search { position, go } => format!(
                "search {} ponder={} infinite={}{}",
                position.to_sfen(),
                go.ponder,
                go.infinite,
                if go.searchmoves.is_empty() {
                    String::new()
                } else {
                    format!(" searchmoves {}", go.searchmoves.join(" "))
                }
            ),
            Action::PonderHit => "ponderhit".into(),
            Action::Stop => "stop".into(),
            Action::Abandon => "abandon".into(),
            Action::Answer { position, answer } => {
                format!("answer {answer} for {}", position.to_sfen())
            }
            Action::Quit => "quit".into(),
        })
        .collect()
}

fn start() -> String {
    Position::startpos().to_sfen()
}

fn after_2g2f() -> String {
    build_position(&PositionStart::Startpos, &["2g2f".into()])
        .expect("legal")
        .to_sfen()
}

fn line(s: &mut Session<u32>, text: &str) -> Vec<String> {
    show(s.line(text))
}

fn finished(s: &mut Session<u32>, answer: u32) -> Vec<String> {
    show(s.finished(answer))
}

#[test]
fn each_go_is_answered_once_when_its_search_ends() {
    let mut s = Session::new(ENGINE);
    assert!(line(&mut s, "").is_empty());
    assert_eq!(line(&mut s, "usi"), ["identify"]);
    assert_eq!(line(&mut s, "isready"), ["prepare", "readyok"]);
    assert!(line(&mut s, "position startpos moves 2g2f").is_empty());
    assert_eq!(
        line(&mut s, "go byoyomi 1000"),
        [format!(
            "search {} ponder=false infinite=false",
            after_2g2f()
        )]
    );
    assert!(s.busy());
    assert_eq!(
        finished(&mut s, 7),
        [format!("answer 7 for {}", after_2g2f())]
    );
    assert!(!s.busy());
    // A second end (or a late one) is never a second bestmove.
    assert!(finished(&mut s, 8).is_empty());
    assert!(line(&mut s, "stop").is_empty());
}

#[test]
fn go_infinite_holds_the_answer_until_stop() {
    let mut s = Session::new(ENGINE);
    line(&mut s, "go infinite");
    assert!(finished(&mut s, 1).is_empty());
    assert_eq!(line(&mut s, "isready"), ["readyok"]);
    assert_eq!(line(&mut s, "ponderhit"), Vec::<String>::new());
    assert_eq!(line(&mut s, "stop"), [format!("answer 1 for {}", start())]);
    assert!(!s.busy());

    // stop before the end: the search is told, and its answer goes out when it ends.
    line(&mut s, "go infinite");
    assert_eq!(line(&mut s, "stop"), ["stop"]);
    assert_eq!(finished(&mut s, 2), [format!("answer 2 for {}", start())]);
}

#[test]
fn go_ponder_searches_at_once_and_answers_after_ponderhit_or_stop() {
    let mut s = Session::new(ENGINE);
    assert_eq!(
        line(&mut s, "go ponder btime 0 wtime 0 byoyomi 300"),
        [format!("search {} ponder=true infinite=false", start())]
    );
    assert!(finished(&mut s, 1).is_empty());
    assert_eq!(
        line(&mut s, "ponderhit"),
        [format!("answer 1 for {}", start())]
    );

    // ponderhit while it runs: it thinks on its clock and answers when done.
    line(&mut s, "go ponder btime 0 wtime 0 byoyomi 300");
    assert_eq!(line(&mut s, "ponderhit"), ["ponderhit"]);
    assert_eq!(finished(&mut s, 2), [format!("answer 2 for {}", start())]);

    // stop (the ponder move was wrong): still exactly one answer.
    line(&mut s, "go ponder btime 0 wtime 0 byoyomi 300");
    assert_eq!(line(&mut s, "stop"), ["stop"]);
    assert_eq!(finished(&mut s, 3), [format!("answer 3 for {}", start())]);
    assert!(line(&mut s, "stop").is_empty());
}

#[test]
fn council_usi_ponders_as_council_engine_does() {
    let mut s = Session::new(USI);
    assert_eq!(
        line(&mut s, "go ponder btime 0 wtime 0 byoyomi 300"),
        [
            "new game".to_string(),
            format!("search {} ponder=true infinite=false", start())
        ]
    );
    assert_eq!(line(&mut s, "ponderhit"), ["ponderhit"]);
    assert_eq!(finished(&mut s, 1), [format!("answer 1 for {}", start())]);
    // stop before ponderhit: the search is told, and its answer is the one answer.
    line(&mut s, "go ponder btime 0 wtime 0 byoyomi 300");
    assert_eq!(line(&mut s, "stop"), ["stop"]);
    assert_eq!(finished(&mut s, 2), [format!("answer 2 for {}", start())]);
    assert!(!s.busy());
}

#[test]
fn a_go_after_a_rejected_position_resigns_with_an_explanation() {
    for rules in [ENGINE, USI] {
        let mut s = Session::new(rules);
        s.line("usinewgame");
        let said = line(&mut s, "position startpos moves 7g7f 7g7f");
        assert_eq!(said.len(), 1);
        assert!(
            said[0].starts_with("info string position rejected, no position set: move 2 `7g7f`"),
            "{said:?}"
        );
        assert_eq!(
            line(&mut s, "go depth 3"),
            [
                "info string go without a valid position (the last position command was rejected)",
                "bestmove resign"
            ]
        );
        assert!(!s.busy());
        assert!(line(&mut s, "position startpos").is_empty());
        assert_eq!(
            line(&mut s, "go depth 3"),
            [format!("search {} ponder=false infinite=false", start())]
        );
    }
}

#[test]
fn a_position_that_does_not_parse_clears_it_only_where_the_rules_say() {
    let mut s = Session::new(ENGINE);
    let said = line(&mut s, "position nowhere");
    assert!(said[0].starts_with("info string ") && !said[0].contains("rejected"));
    assert_eq!(line(&mut s, "go depth 1").len(), 1, "it searches");

    let mut s = Session::new(USI);
    s.line("usinewgame");
    let said = line(&mut s, "position nowhere");
    assert!(
        said[0].starts_with("info string position rejected, no position set: "),
        "{said:?}"
    );
    assert_eq!(
        line(&mut s, "go depth 1").last().unwrap(),
        "bestmove resign"
    );

    s.line("position startpos");
    s.line("go infinite");
    let said = line(&mut s, "position nowhere");
    assert!(
        said[0].ends_with("; ignored: a search is running"),
        "{said:?}"
    );
    s.line("stop");
    s.finished(1);
    assert_eq!(line(&mut s, "go depth 1").len(), 1, "the position stayed");
}

#[test]
fn commands_during_a_search_are_ignored_with_an_info_string() {
    let mut s = Session::new(ENGINE);
    line(&mut s, "go infinite");
    assert_eq!(
        line(&mut s, "position startpos moves 2g2f"),
        ["info string position ignored: a search is running (send stop first)"]
    );
    assert_eq!(
        line(&mut s, "go depth 1"),
        ["info string go ignored: a search is already running"]
    );
    assert_eq!(
        line(&mut s, "setoption name MultiPV value 3"),
        ["info string option MultiPV ignored: a search is running"]
    );
    // Held answers still count as a search.
    s.finished(1);
    assert_eq!(
        line(&mut s, "go depth 1"),
        ["info string go ignored: a search is already running"]
    );
    line(&mut s, "stop");
    assert_eq!(
        line(&mut s, "setoption name MultiPV value 3"),
        ["setoption MultiPV Some(\"3\")"]
    );

    // council-usi applies options at any time.
    let mut s = Session::new(USI);
    line(&mut s, "go infinite");
    assert_eq!(
        line(&mut s, "setoption name Seed value 3"),
        ["setoption Seed Some(\"3\")"]
    );
}

#[test]
fn go_mate_and_searchmoves_are_answered_without_pretending() {
    let mut s = Session::new(ENGINE);
    assert_eq!(line(&mut s, "go mate 1000"), ["checkmate notimplemented"]);
    assert!(!s.busy());
    // council-engine searches the listed legal moves and says which it leaves out.
    assert_eq!(
        line(&mut s, "go depth 2 searchmoves 7g7f 5a4b 2g2f"),
        [
            "info string searchmoves: `5a4b` is not a legal move here; left out".to_string(),
            format!(
                "search {} ponder=false infinite=false searchmoves 7g7f 2g2f",
                start()
            ),
        ]
    );
    finished(&mut s, 1);
    assert_eq!(
        line(&mut s, "go depth 2 searchmoves 5a4b"),
        [
            "info string searchmoves: `5a4b` is not a legal move here; left out".to_string(),
            "info string searchmoves: no legal move listed; searching all moves".to_string(),
            format!("search {} ponder=false infinite=false", start()),
        ]
    );
    // council-usi does not restrict its player tree: it says so and searches everything.
    let mut s = Session::new(USI);
    let actions = line(&mut s, "go depth 2 searchmoves 7g7f");
    assert_eq!(
        actions[0],
        "info string searchmoves is not supported; searching all moves"
    );
    assert!(
        actions.iter().any(|a| a.starts_with("search ")),
        "{actions:?}"
    );
}

#[test]
fn usinewgame_and_gameover_end_a_search_answered_or_not_as_the_rules_say() {
    let mut s = Session::new(ENGINE);
    line(&mut s, "go infinite");
    assert_eq!(line(&mut s, "usinewgame"), ["stop", "new game"]);
    assert_eq!(finished(&mut s, 1), [format!("answer 1 for {}", start())]);
    line(&mut s, "go infinite");
    s.finished(2);
    assert_eq!(
        line(&mut s, "gameover win"),
        [format!("answer 2 for {}", start()), "game over Win".into()]
    );

    let mut s = Session::new(USI);
    line(&mut s, "go infinite");
    assert_eq!(line(&mut s, "usinewgame"), ["abandon", "new game"]);
    assert!(finished(&mut s, 1).is_empty());
    line(&mut s, "go infinite");
    s.finished(2);
    assert_eq!(line(&mut s, "gameover lose"), ["game over Lose"]);
    assert!(!s.busy());
}

#[test]
fn a_game_starts_at_isready_or_go_where_the_rules_want_one() {
    let mut s = Session::new(USI);
    assert_eq!(line(&mut s, "isready"), ["prepare", "new game", "readyok"]);
    assert_eq!(line(&mut s, "isready"), ["prepare", "readyok"]);
    line(&mut s, "gameover draw");
    assert_eq!(
        line(&mut s, "go depth 1"),
        [
            "new game".to_string(),
            format!("search {} ponder=false infinite=false", start())
        ]
    );
    // No preparation while a search runs; readyok always.
    assert_eq!(line(&mut s, "isready"), ["readyok"]);
    s.finished(1);
    // A player lost with its search: the next isready starts a game again.
    s.game_lost();
    assert_eq!(line(&mut s, "isready"), ["prepare", "new game", "readyok"]);

    let mut s = Session::new(ENGINE);
    assert_eq!(line(&mut s, "isready"), ["prepare", "readyok"]);
}

#[test]
fn quit_and_the_end_of_input_end_the_session() {
    let mut s = Session::new(ENGINE);
    assert_eq!(line(&mut s, "quit"), ["quit"]);
    line(&mut s, "go infinite");
    assert_eq!(show(s.end_of_input()), ["stop", "quit"]);
    assert_eq!(finished(&mut s, 1), [format!("answer 1 for {}", start())]);

    let mut s = Session::new(USI);
    line(&mut s, "go infinite");
    assert_eq!(line(&mut s, "quit"), ["quit"]);
    assert!(finished(&mut s, 1).is_empty());
}

#[test]
fn a_line_that_does_not_parse_is_named_and_ignored() {
    let mut s = Session::new(ENGINE);
    let said = line(&mut s, "frobnicate now");
    assert_eq!(said.len(), 1);
    assert!(
        said[0].starts_with("info string ") && said[0].contains("frobnicate"),
        "{said:?}"
    );
}

#[test]
fn a_bad_position_names_the_move() {
    let e = build_position(&PositionStart::Startpos, &["7g7f".into(), "7g7f".into()])
        .expect_err("illegal");
    assert!(e.contains("move 2") && e.contains("7g7f"), "{e}");
    let e =
        build_position(&PositionStart::Sfen("nonsense b - 1".into()), &[]).expect_err("bad sfen");
    assert!(e.contains("nonsense"), "{e}");
}
