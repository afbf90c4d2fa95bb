//! `council-engine perft` run as a user runs it: the last line printed is the count alone.

use council_tests::workspace_bin;
use std::process::Command;

fn perft(args: &[&str]) -> std::process::Output {
    Command::new(workspace_bin("council-engine"))
        .arg("perft")
        .args(args)
        .output()
        .expect("run council-engine")
}

fn stdout_lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn perft_prints_the_count_last() {
    let out = perft(&["3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_lines(&out).last().map(String::as_str), Some("25470"));
}

#[test]
fn perft_divide_lists_each_move_then_the_total() {
    let out = perft(&["2", "--divide"]);
    assert!(out.status.success());
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 31);
    assert!(lines[..30].iter().all(|l| l.ends_with(": 30")), "{lines:?}");
    assert!(lines.iter().any(|l| l == "7g7f: 30"));
    assert_eq!(lines[30], "900");
}

#[test]
fn perft_from_an_sfen() {
    // The 593-move position.
    let out = perft(&[
        "1",
        "--sfen",
        "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    ]);
    assert!(out.status.success());
    assert_eq!(stdout_lines(&out).last().map(String::as_str), Some("593"));
}

#[test]
fn a_bad_sfen_is_one_clear_error() {
    let out = perft(&["1", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 b 2Q 1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--sfen") && err.contains("pieces in hand") && err.contains("2Q"),
        "{err}"
    );
    assert!(stdout_lines(&out).is_empty());
}
