//! The maximum-likelihood ratings agree with an independent implementation: Python's `choix`
//! (Bradley-Terry by iterative Luce spectral ranking), run as a test helper under the project's
//! Python (`.venv/`, which `bash tests/run.sh` sets up with tests/requirements.txt); the test
//! fails, loudly, when it or choix is missing rather than skipping.

use std::io::Write;
use std::process::{Command, Stdio};

#[path = "../../tests/support/python.rs"]
mod python;

use orchestrator::stats::elo::ELO_PER_NAT;
use orchestrator::stats::simulate::Pool;
use orchestrator::stats::{Anchor, FitOptions, GameTable, fit};

fn choix_strengths(comparisons: &[Vec<f64>]) -> Vec<f64> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/choix_reference.py");
    let mut child = Command::new(python::python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the tests' Python (set up by `bash tests/run.sh`)");
    let input = serde_json::json!({ "comparisons": comparisons }).to_string();
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("write to Python");
    let out = child.wait_with_output().expect("Python runs");
    assert!(
        out.status.success(),
        "choix_reference.py failed (is choix installed? run `bash tests/run.sh`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("choix_reference.py prints a JSON list")
}

#[test]
fn ratings_match_choix_bradley_terry() {
    let pool = Pool {
        players: (0..8)
            .map(|i| (format!("P{i}"), -300.0 + 85.0 * i as f64))
            .collect(),
        first_move: 0.0,
        draw_rate: 0.35,
        handicaps: vec![],
        handicap_share: 0.0,
    };
    let mut table = GameTable::new();
    for game in pool.games(3000, 20240611) {
        table.add(&game);
    }
    let ratings = fit(
        &table,
        &FitOptions {
            anchor: Anchor::PoolMean { elo: 0.0 },
            first_move: false,
            prior_draws: Some(0.0),
        },
    )
    .expect("fit");

    // Draws are half a win for each side, as in our likelihood.
    let cross = table.crosstable();
    let comparisons: Vec<Vec<f64>> = cross
        .iter()
        .map(|row| row.iter().map(|w| w.points()).collect())
        .collect();
    let reference = choix_strengths(&comparisons);
    assert_eq!(reference.len(), ratings.players.len());
    for (player, strength) in ratings.players.iter().zip(&reference) {
        let expected = strength * ELO_PER_NAT;
        assert!(
            (player.elo - expected).abs() < 1e-3,
            "{}: ours {} vs choix {}",
            player.name,
            player.elo,
            expected
        );
    }
}
