//! `council-match` stops a head-to-head when its SPRT (`[match.sprt]`) decides, reports the test
//! in summary.json and the closing table, and a `--resume` of a decided run plays nothing more.

use std::path::{Path, PathBuf};
use std::process::Output;

use council_tests::workspace_bin;
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("sprt-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// `good` plays normally; `quitter` resigns after three moves of each game.
fn config(dir: &Path, players: &str, sprt: &str) -> PathBuf {
    let mock = workspace_bin("mock-usi");
    let text = format!(
        "[match]\nplayers = {players}\ngames = 200\nmax_plies = 40\nsprt = {sprt}\n\n\
         [[player]]\nname = \"good\"\nkind = \"usi\"\ncommand = \"{mock}\"\nargs = [\"normal\"]\nnodes = 1\n\n\
         [[player]]\nname = \"quitter\"\nkind = \"usi\"\ncommand = \"{mock}\"\nargs = [\"resign\", \"--after\", \"3\"]\nnodes = 1\n",
        mock = mock.display()
    );
    let path = dir.join("sprt.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// `council-match CONFIG --out OUT --quiet --concurrency 2 EXTRA...`.
fn run(config: &Path, out: &Path, extra: &[&str]) -> Output {
    council_tests::council_match(config, out, &[&["--concurrency", "2"], extra].concat())
}

fn lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .count()
}

fn summary(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

#[test]
fn a_decided_sprt_stops_the_match_and_stays_decided_on_resume() {
    let dir = scratch("h1");
    let path = config(
        &dir,
        r#"["good", "quitter"]"#,
        r#"{ elo0 = 0, elo1 = 100, model = "logistic" }"#,
    );
    let out = dir.join("run");
    let first = run(&path, &out, &[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let played = lines(&out);
    let s = summary(&out);
    let sprt = &s["sprt"];
    assert_eq!(sprt["decision"], "accept_h1", "{sprt}");
    let decided_after = sprt["decided_after_games"].as_u64().expect("decided");
    // Stopped long before the 200 games: after the decision only games already running (2, the
    // concurrency) or finished and waiting for the writer (at most 2 more) are recorded.
    assert!(played < 200, "played {played}");
    assert!(
        played as u64 >= decided_after && played as u64 <= decided_after + 4,
        "decided after {decided_after} games, played {played}"
    );
    assert_eq!(s["games"], played as u64);
    assert!(sprt["llr"].as_f64().expect("llr") >= sprt["upper"].as_f64().expect("upper"));
    assert_eq!(sprt["model"], "logistic");
    let table = String::from_utf8_lossy(&first.stdout);
    assert!(table.contains("H1 accepted after"), "{table}");

    let again = run(&path, &out, &["--resume"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(lines(&out), played, "a decided run plays no more games");
    assert_eq!(summary(&out)["sprt"]["decision"], "accept_h1");
}

#[test]
fn the_test_is_on_the_first_player_so_a_loser_first_accepts_h0() {
    let dir = scratch("h0");
    let path = config(&dir, r#"["quitter", "good"]"#, "{ elo0 = 0, elo1 = 10 }");
    let out = dir.join("run");
    let run = run(&path, &out, &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let sprt = &summary(&out)["sprt"];
    assert_eq!(sprt["decision"], "accept_h0", "{sprt}");
    assert_eq!(sprt["model"], "normalized", "the default model");
    assert!(lines(&out) < 200);
}

#[test]
fn sprt_outside_head_to_head_is_a_config_error() {
    let dir = scratch("config");
    let path = config(
        &dir,
        r#"["good", "quitter"]"#,
        "{ elo0 = 0, elo1 = 5, alpha = 2 }",
    );
    let out = run(&path, &dir.join("run"), &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("match.sprt") && stderr.contains("alpha"),
        "{stderr}"
    );
    assert!(!dir.join("run").join("results.jsonl").exists());
}
