//! Debian's Fairy-Stockfish (`/usr/games/fairy-stockfish`, 11.1) and the pawn-drop mate, for real.
//!
//! Its move generator lets a pawn-drop mate (打ち歩詰め) through as a legal move, but its search
//! scores such a drop as a loss for the dropper, so in normal play it avoids it. Here the real
//! engine, driven through the orchestrator's own USI player (no mock), is made to answer one by
//! restricting its search with `go searchmoves` (`UsiPlayer::restrict_search`, a test hook that
//! is not a config key); the arbiter must reject the answer as `illegal_move` and the game must
//! end with Fairy-Stockfish losing.

use std::path::Path;
use std::time::Duration;

use engine::position::{IllegalReason, Position};
use engine::record::{EndReason, GameRecord};
use engine::types::{ByColor, Score};
use orchestrator::config::{Config, PlayerKind};
use orchestrator::factory::build_player;
use orchestrator::game::adjudicate::judge_move;
use orchestrator::game::play::play_game;
use orchestrator::game::records::{record_paths, write_records};
use orchestrator::player::usi::UsiPlayer;
use orchestrator::player::{Budget, Decision, MoveRequest, Player};
use orchestrator::results::{Reason, Winner};
use orchestrator::run::plan::RunPlan;
use orchestrator::run::schedule::schedule;
use orchestrator::written_by::WrittenBy;
use tokio_util::sync::CancellationToken;

const FAIRY: &str = "/usr/games/fairy-stockfish";

/// Sente to move with a pawn in hand; gote's king on 1a is boxed in by its own lance and pawn,
/// and the knight on 2d guards 1b: `P*1b` would mate, so it is illegal. `P*1c` (mate in 3) is
/// what a correct engine plays.
const SFEN: &str = "7lk/7p1/9/7N1/9/9/9/9/4K4 b P 1";

fn config() -> Config {
    assert!(
        Path::new(FAIRY).exists(),
        "{FAIRY} is missing: install it (sudo apt-get install -y fairy-stockfish)"
    );
    let text = format!(
        r#"
[match]
players = ["fairy", "internal"]
games = 1
start = "{SFEN}"

[[player]]
name = "fairy"
kind = "usi"
command = "{FAIRY}"
options = {{ Threads = 1, USI_Hash = 16 }}
depth = 3

[[player]]
name = "internal"
kind = "internal"
nodes = 1000
"#
    );
    Config::parse(Path::new("pawn-drop-mate.toml"), &text).expect("valid config")
}

fn request(config: &Config, position: &Position) -> MoveRequest {
    MoveRequest {
        position: position.clone().into(),
        budget: Budget::per_move(&config.player("fairy").limits),
        deadline: tokio::time::Instant::now() + Duration::from_secs(30),
        multipv: 1,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairy_stockfish_made_to_answer_a_pawn_drop_mate_loses_by_illegal_move() {
    let config = config();
    let position = Position::from_sfen(SFEN).expect("test position");
    let fairy_config = config.player("fairy");
    let PlayerKind::Usi(settings) = &fairy_config.kind else {
        panic!("fairy is a USI engine");
    };
    let mut fairy = UsiPlayer::new(&fairy_config.name, settings, fairy_config.ponder);
    fairy.new_game(1).await.expect("fairy-stockfish starts");

    // Left alone, it avoids the drop: its answer passes the arbiter.
    let free = fairy
        .think(&request(&config, &position))
        .await
        .expect("an answer");
    let Decision::Move(free_move) = &free.decision else {
        panic!("a move, not {:?}", free.decision);
    };
    judge_move(&position, "fairy", free_move).expect("its own choice is legal");

    // Restricted to the pawn-drop mate, it plays it, and itself scores it as lost.
    fairy.restrict_search(vec!["P*1b".into()]);
    let forced = fairy
        .think(&request(&config, &position))
        .await
        .expect("an answer");
    assert_eq!(forced.decision, Decision::Move("P*1b".into()));
    assert!(
        matches!(forced.eval, Some(Score::Mate(n)) if n < 0),
        "fairy-stockfish scores its pawn-drop mate as a loss: {:?}",
        forced.eval
    );

    // The arbiter's judgement of that answer: illegal, by the pawn-drop-mate rule.
    let Decision::Move(answer) = &forced.decision else {
        unreachable!("checked above")
    };
    let rule = position
        .parse_usi_move(answer)
        .expect_err("not in the legal list");
    assert_eq!(rule.illegal_reason(), Some(&IllegalReason::PawnDropMate));
    let verdict = judge_move(&position, "fairy", answer).expect_err("pawn-drop mate is illegal");
    assert_eq!(verdict.reason, Reason::IllegalMove);
    assert_eq!(verdict.result, Winner::Gote, "the dropper (sente) loses");
    assert!(verdict.detail.contains("uchifuzume"), "{}", verdict.detail);

    // A whole game from there, refereed by the runner's own game loop: it ends at once.
    let spec = schedule(&RunPlan::of(&config), config.seed)
        .into_iter()
        .next()
        .expect("one game");
    assert_eq!(spec.sente, "fairy");
    let mut internal = build_player(&config, "internal");
    let played = play_game(
        &config,
        &spec,
        ByColor {
            sente: &mut fairy,
            gote: internal.as_mut(),
        },
        &CancellationToken::new(),
        None,
    )
    .await
    .expect("the game finishes");
    fairy.shutdown().await;
    internal.shutdown().await;
    let g = &played.result;
    assert_eq!(g.reason, Reason::IllegalMove, "{:?}", g.detail);
    assert_eq!(g.result, Winner::Gote, "fairy-stockfish (sente) loses");
    assert!(
        g.moves.is_empty() && g.plies == 0,
        "the illegal drop is not played"
    );
    let detail = g.detail.as_deref().unwrap_or_default();
    assert!(
        detail.contains("P*1b") && detail.contains("uchifuzume"),
        "{detail}"
    );

    // Its records say so too.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fairy-pawn-drop-mate");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("records folder");
    let by = WrittenBy {
        program: "fairy-test".into(),
        version: "0.1.0".into(),
        commit: "unknown".into(),
        dirty: "unknown".into(),
    };
    write_records(&dir, &config, &played, &by).expect("records written");
    let (csa, kif) = record_paths(&dir, g);
    let csa = std::fs::read_to_string(csa).expect("CSA record");
    assert!(csa.contains("%ILLEGAL_MOVE"), "{csa}");
    // The `.kif` is Shift_JIS (as Japanese tools read `.kif`) and ends in a foul (反則).
    let bytes = std::fs::read(&kif).expect("KIF record");
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the .kif is not UTF-8"
    );
    let end = GameRecord::read_file(&kif).expect("KIF record reads").end;
    assert_eq!(end.map(|e| e.reason), Some(EndReason::IllegalMove));
}
