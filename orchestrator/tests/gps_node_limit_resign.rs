//! Debian's gpsshogi (`/usr/games/gpsusi`) resigns winning positions under a small node limit,
//! for real: the condition behind the round robin of `configs/gps-round-robin.toml`, where
//! gpsshogi "resigned" 6 games of 6, several times while reporting itself ahead.
//!
//! gpsusi's `--node-count-hard-limit` counts the nodes of its root mate search (詰み探索) too.
//! When that search eats the limit before the first iteration of the main search completes, it
//! answers `bestmove resign` (its log: `time limit over`, 96-99.7% of the nodes in
//! `checkmate`, `%TORYO`), whatever the quiescence search before it said. Game 4 of the round
//! robin (gpsshogi sente against the built-in engine, from `data/openings/gps-ply36.txt`'s
//! opening) is replayed here through the orchestrator's own USI player, with the engine log on:
//! at 20000 nodes gpsshogi resigns its fifth move with `score cp 440` on its last `info`
//! (Fairy-Stockfish at depth 18 puts sente at +504), and at 200000 nodes the same moves are
//! answered with moves. The engine log shows what it was sent and what it said.

use std::path::Path;
use std::time::Duration;

use engine::position::replay;
use engine::types::Score;
use orchestrator::config::{Config, PlayerKind};
use orchestrator::player::engine_log::{EngineLog, in_game};
use orchestrator::player::usi::UsiPlayer;
use orchestrator::player::{Budget, Decision, MoveRequest, Player, Thought};

const GPS: &str = "/usr/games/gpsusi";

/// The round robin's opening (ply 36), then the moves of game 4 before each of gpsshogi's
/// first five moves.
const OPENING: &str = "7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 3a3b 5g5f 5c5d 4i5h 3b4c 3g3f 8c8d \
                       7i7h 8d8e 7h7g 7a6b 8h7i 4a3b 2e2d 2c2d 7i2d 3c2d 2h2d P*2b 5i6h 6b5c \
                       6h7h 5c6d 4h5g 2b2c 2d2h 7c7d 6g6f 7d7e";
const GAME: [&str; 8] = [
    "7f7e", "6d7e", "P*7f", "8e8f", "8g8f", "B*7c", "4g4f", "7e8f",
];

fn config(nodes: u32) -> Config {
    assert!(
        Path::new(GPS).exists(),
        "{GPS} is missing: install it (sudo apt-get install -y gpsshogi)"
    );
    let text = format!(
        r#"
[match]
players = ["gps", "builtin"]

[[player]]
name = "builtin"
kind = "internal"
nodes = 20000

[[player]]
name = "gps"
kind = "usi"
command = "{GPS}"
args = ["--node-count-hard-limit", "{nodes}", "-N", "1", "--memory-use-percent", "5"]
go_nodes = false
byoyomi_ms = 1000
mate_cp = 1000000
startup_timeout_ms = 60000
"#
    );
    Config::parse(Path::new("gps-resign.toml"), &text).expect("valid config")
}

/// gpsshogi's answers to its first five moves of game 4, with a node limit of `nodes`, its
/// lines logged to `log`.
async fn answers(nodes: u32, log: &EngineLog) -> Vec<Thought> {
    let config = config(nodes);
    let pc = config.player("gps");
    let PlayerKind::Usi(settings) = &pc.kind else {
        panic!("gps is a USI engine");
    };
    let mut gps = UsiPlayer::new("gps", settings, false).logged(Some(log.tag("gps")));
    let mut thoughts = Vec::new();
    in_game(4, async {
        gps.new_game(4).await.expect("gpsusi starts");
        let opening: Vec<&str> = OPENING.split_whitespace().collect();
        for k in 0..5 {
            let mut moves = opening.clone();
            moves.extend(&GAME[..2 * k]);
            let position = replay("startpos", &moves)
                .expect("the start")
                .finish()
                .expect("the game's moves are legal");
            let request = MoveRequest {
                position: position.into(),
                budget: Budget::per_move(&pc.limits),
                deadline: tokio::time::Instant::now() + Duration::from_secs(30),
                multipv: 1,
            };
            thoughts.push(gps.think(&request).await.expect("an answer"));
        }
    })
    .await;
    gps.shutdown().await;
    thoughts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gpsshogi_resigns_ahead_when_its_mate_search_eats_a_small_node_limit() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gps-node-limit-resign");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("engines.log");
    let log = EngineLog::open(&path, 10_000_000).expect("the engine log");

    let small = answers(20_000, &log).await;
    let played: Vec<&Decision> = small.iter().map(|t| &t.decision).collect();
    let expected: Vec<Decision> = ["7f7e", "P*7f", "8g8f", "4g4f"]
        .iter()
        .map(|m| Decision::Move((*m).to_string()))
        .chain([Decision::Resign])
        .collect();
    assert_eq!(played, expected.iter().collect::<Vec<_>>());
    // It resigns with its own last score in its favour.
    assert!(
        matches!(small[4].eval, Some(Score::Cp(cp)) if cp > 300),
        "{:?}",
        small[4].eval
    );

    // The log shows the whole exchange, under the game's id: the `go`, the one depth-1 `info`
    // of the aborted search, then the resignation.
    let text = std::fs::read_to_string(&path).expect("the log");
    let lines: Vec<&str> = text.lines().collect();
    let resign = lines
        .iter()
        .position(|l| l.ends_with(" 4 gps < bestmove resign"))
        .unwrap_or_else(|| panic!("the resignation is logged:\n{text}"));
    // Its stderr (`!`) is read apart from its stdout, so its lines may fall between the two.
    let before = lines[..resign]
        .iter()
        .rev()
        .find(|l| !l.contains(" 4 gps ! "))
        .expect("a line before the resignation");
    assert!(
        before.contains(" 4 gps < info depth 1 ") && before.contains("score cp 440"),
        "{before}"
    );
    assert!(
        lines[..resign]
            .iter()
            .rev()
            .find(|l| l.contains(" > "))
            .is_some_and(|l| l.contains(" 4 gps > go ")),
        "the last line sent before it is the go"
    );
    assert!(
        lines[0].contains(" - gps # started pid ") || lines[0].contains(" 4 gps # started pid "),
        "{}",
        lines[0]
    );

    // Ten times the nodes: the same positions get moves, the fifth the one Fairy-Stockfish
    // prefers too.
    let large = answers(200_000, &log).await;
    assert!(
        large
            .iter()
            .all(|t| matches!(t.decision, Decision::Move(_))),
        "{:?}",
        large.iter().map(|t| &t.decision).collect::<Vec<_>>()
    );
    assert_eq!(large[4].decision, Decision::Move("7g8f".into()));
}
