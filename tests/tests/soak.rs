//! The soak benchmark's 5-minute variant as a test (`scripts/soak.py`, docs/studies/soak.md):
//! one `council-match` plays a round-robin of sleeping, pondering and misbehaving mock engines
//! (crashes, hangs, garbage, slow answers, 1 MB lines, ponder faults) for about five minutes,
//! and what must hold after any number of faults is checked: every scheduled game recorded once
//! (a fault is a result), peak memory flat after the warm-up, and open descriptors, threads and
//! child processes back to where they started, with no zombie and no orphaned grandchild. It
//! checks invariants, never times: a slow machine plays fewer moves, not a different verdict.
//!
//! 16 games at once rather than the benchmark's 64, so that it fits 2 loaded cores.
//!
//! Peak memory flat: council-match keeps counts of its finished games, not the games, and its
//! live page (served by the soak) the last hundred, so its peak RSS (VmHWM) may grow by at most
//! 2 MB from the end of the first minute to the last wave (fewer games left than run at once),
//! measured over the test's own run; the last wave and the players' stop may raise it by at
//! most 2 MB more, a one-off whose size does not grow with the run's length
//! (docs/studies/soak.md, "The end of a run").

use council_tests::{python, workspace_bin, workspace_root};
use serde_json::Value;

/// Runs the 5-minute soak into a scratch folder named `name`: soak.json's figures (pretty
/// printed for messages), the script's stderr and whether it passed every check.
fn soak(name: &str) -> (Value, String, String, bool) {
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&out);
    let run = std::process::Command::new(python())
        .arg(workspace_root().join("scripts/soak.py"))
        .args([
            "--minutes",
            "5",
            "--warmup-minutes",
            "1",
            "--concurrency",
            "16",
        ])
        .arg("--runner")
        .arg(workspace_bin("council-match"))
        .arg("--mock")
        .arg(workspace_bin("mock-usi"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run scripts/soak.py");
    let stderr = String::from_utf8_lossy(&run.stderr);
    let figures: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("soak.json"))
            .unwrap_or_else(|e| panic!("soak.json not written ({e}); the script said:\n{stderr}")),
    )
    .expect("soak.json is JSON");
    let shown = serde_json::to_string_pretty(&figures).unwrap_or_default();
    (figures, shown, stderr.into_owned(), run.status.success())
}

#[test]
fn five_minutes_of_faults_lose_no_game_and_leak_no_process_fd_thread_or_memory() {
    let (figures, shown, stderr, passed) = soak("soak");
    // Faults happened and each became a result: a soak that met none tested nothing.
    let reasons = &figures["reasons"];
    let faults: u64 = ["crash", "timeout", "illegal_move", "malformed_move"]
        .iter()
        .map(|r| reasons[*r].as_u64().unwrap_or(0))
        .sum();
    assert!(faults > 0, "no game ended in a fault:\n{shown}");
    assert_eq!(
        figures["recorded"], figures["scheduled"],
        "games recorded vs scheduled:\n{shown}"
    );
    assert_eq!(
        figures["distinct_ids"], figures["scheduled"],
        "a game recorded twice:\n{shown}"
    );
    for key in ["fds", "threads", "children"] {
        assert_eq!(
            figures["end"][key], figures["start"][key],
            "{key} at the end vs at the start:\n{shown}"
        );
    }
    assert_eq!(figures["end"]["zombies"], 0, "zombie children:\n{shown}");
    assert_eq!(figures["orphans_left"], 0, "orphaned processes:\n{shown}");
    assert_eq!(
        figures["exit_status"], 0,
        "council-match's exit after SIGTERM:\n{shown}\n{stderr}"
    );
    let growth = figures["hwm_steady_growth_mb"].as_f64();
    assert!(
        growth.is_some_and(|g| g <= 2.0),
        "peak RSS grew by {growth:?} MB from the warm-up to the last wave:\n{shown}"
    );
    let end = figures["hwm_end_bump_mb"].as_f64();
    assert!(
        end.is_some_and(|g| g <= 2.0),
        "peak RSS rose by {end:?} MB in the last wave and the stop:\n{shown}"
    );
    // Every check of the script's own (the same, and the rest of its list).
    assert!(passed, "scripts/soak.py failed:\n{stderr}");
}
