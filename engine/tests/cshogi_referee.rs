//! The rules checked against an independent implementation (cshogi, via a Python helper):
//! every count of the perft suite, and the legal-move sets along seeded random games.
//! These tests fail, never skip, when the tests' Python (`.venv/`, set up by
//! `bash tests/run.sh`) or cshogi is missing.

mod common;

use engine::position::{Position, Repetition};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn cshogi_agrees_with_every_count_of_the_perft_suite() {
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for case in common::perft_cases() {
        for (i, &count) in case.counts.iter().enumerate() {
            queries.push(format!("{} {}", i + 1, case.sfen));
            expected.push(format!("{} depth {}: {count}", case.name, i + 1));
        }
    }
    let answers = common::referee("perft", &queries);
    let mismatches: Vec<String> = expected
        .iter()
        .zip(&answers)
        .filter(|(e, a)| !e.ends_with(&format!(": {a}")))
        .map(|(e, a)| format!("{e} (cshogi says {a})"))
        .collect();
    assert!(
        mismatches.is_empty(),
        "data/perft.txt disagrees with cshogi:\n{}",
        mismatches.join("\n")
    );
}

/// Plays seeded random games and returns every position met (as SFEN) with our legal moves and
/// check flag.
fn random_positions(seed: u64, games: usize, max_plies: usize) -> Vec<(String, bool, Vec<String>)> {
    use rand::RngExt;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let starts = [
        Position::startpos(),
        Position::handicap("two-pieces".parse().expect("handicap")),
        Position::from_sfen("9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1").expect("sfen"),
    ];
    let mut out = Vec::new();
    for game in 0..games {
        let mut pos = starts[game % starts.len()].clone();
        for _ in 0..max_plies {
            let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_usi()).collect();
            moves.sort();
            out.push((pos.to_sfen(), pos.in_check(), moves));
            let legal = pos.legal_moves();
            if legal.is_empty() || pos.repetition() != Repetition::None {
                break;
            }
            pos.play(legal[rng.random_range(0..legal.len())]);
        }
    }
    out
}

#[test]
fn random_games_have_the_same_legal_moves_as_cshogi() {
    let positions = random_positions(20_240_601, 60, 200);
    assert!(
        positions.len() > 5_000,
        "only {} positions",
        positions.len()
    );
    let answers = common::referee(
        "legal",
        &positions
            .iter()
            .map(|(s, _, _)| s.clone())
            .collect::<Vec<_>>(),
    );
    let mut mismatches = Vec::new();
    for ((sfen, check, ours), answer) in positions.iter().zip(&answers) {
        let mut words = answer.split_whitespace();
        let their_check = words.next() == Some("1");
        let theirs: Vec<String> = words.map(str::to_string).collect();
        if *check != their_check || *ours != theirs {
            let missing: Vec<_> = theirs.iter().filter(|m| !ours.contains(m)).collect();
            let extra: Vec<_> = ours.iter().filter(|m| !theirs.contains(m)).collect();
            mismatches.push(format!(
                "{sfen}: check {check}/{their_check}, we miss {missing:?}, we add {extra:?}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} positions differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
