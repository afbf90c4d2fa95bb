//! The candidate model in play, through `council-match`: an `intuition` player (no search; with
//! a temperature, moves drawn from the game's seed) against a built-in engine whose root
//! searches only intuition's top K moves (`candidates = { model, k }`), and an approval council
//! with an intuition member. The model is learned here, through the engine API, from a few
//! pseudo-random games, and written as a model file.
//!
//! Checked: every move of the candidates player is within the model's top K in its position
//! (each game replayed); the same config and seed replay the same games; the intuition member
//! votes without a score.

mod common;

use std::path::{Path, PathBuf};

use common::{play, scratch};

use engine::intuition::{Intuition, LearnOptions, Model, Setting};
use engine::position::{Position, replay};
use orchestrator::results::GameResult;

const K: usize = 3;

/// A model learned from eight pseudo-random games of 60 plies (a fixed LCG picks the moves).
fn model() -> Model {
    let mut model = Model::new(LearnOptions::default());
    let mut x: u64 = 12345;
    for _ in 0..8 {
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        for _ in 0..60 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mv = legal[(x >> 33) as usize % legal.len()];
            moves.push(mv.to_usi());
            pos.play(mv);
        }
        model
            .learn_game("startpos", &moves, None)
            .expect("a legal game");
    }
    model
}

/// Writes the model and the config into `dir`; returns the config's path.
fn setup(dir: &Path, model: &Model, players: &str, rest: &str) -> PathBuf {
    std::fs::write(dir.join("model.bin"), model.to_bytes()).expect("write model");
    let path = dir.join("run.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[match]
players = [{players}]
games = 2
max_plies = 50
seed = 9

[[player]]
name = "intuition"
kind = "intuition"
model = "model.bin"
temperature = 0.3

[[player]]
name = "restricted"
kind = "internal"
nodes = 400
candidates = {{ model = "model.bin", k = {K} }}
{rest}
"#
        ),
    )
    .expect("write config");
    path
}

#[test]
fn a_candidates_player_stays_within_the_top_k_and_intuition_replays_from_its_seed() {
    let dir = scratch("intuition", "pair");
    let model = model();
    let config = setup(&dir, &model, r#""intuition", "restricted""#, "");
    let games = play(&config, &dir.join("a"));
    assert_eq!(games.len(), 2);
    let intuition = Intuition::new(&model, Setting::default());
    let mut checked = 0;
    for g in &games {
        let mut r = replay(&g.start, &g.moves).expect("start");
        loop {
            let pos = r.position().clone();
            let ply = r.played();
            let Some(step) = r.step() else { break };
            let mv = step.expect("a legal move");
            if g.mover_at(ply) == "restricted" {
                let top = intuition.top(&pos, K);
                assert!(
                    top.contains(&mv),
                    "game {} ply {ply}: {} is not in the top {K} {:?}",
                    g.id,
                    mv.to_usi(),
                    top.iter().map(|m| m.to_usi()).collect::<Vec<_>>()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} moves checked");

    // The same seed: the same games, move for move (the intuition player draws at temperature
    // 0.3, so this is its seed at work).
    let again = play(&config, &dir.join("b"));
    let moves = |gs: &[GameResult]| gs.iter().map(|g| g.moves.clone()).collect::<Vec<_>>();
    assert_eq!(moves(&games), moves(&again));
}

#[test]
fn an_intuition_member_votes_without_a_score_in_an_approval_council() {
    let dir = scratch("intuition", "council");
    let council = r#"
[[player]]
name = "council"
kind = "council"
members = ["intuition", "strong", "weak"]
method = "approval"
approval_k = 2
nodes = 400

[[player]]
name = "strong"
kind = "internal"
sigma = 100.0

[[player]]
name = "weak"
kind = "internal"
noise_cp = 100
"#;
    let config = setup(&dir, &model(), r#""council", "restricted""#, council);
    let games = play(&config, &dir.join("out"));
    let votes: Vec<_> = games
        .iter()
        .flat_map(|g| &g.votes)
        .flat_map(|v| &v.members)
        .filter(|m| m.name == "intuition")
        .collect();
    assert!(votes.len() >= 20, "{} intuition votes", votes.len());
    for m in votes {
        assert!(m.mv.is_some() && m.score.is_none(), "{m:?}");
        assert!((1..=2).contains(&m.ranked.len()), "{m:?}");
    }
}
