//! Shared by the integration tests: the perft data file and the cshogi referee process.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

#[path = "../../../tests/support/python.rs"]
mod python;

/// One line of `data/perft.txt`.
pub struct PerftCase {
    pub name: String,
    pub sfen: String,
    /// `counts[d - 1]` is the count at depth `d`.
    pub counts: Vec<u64>,
}

pub fn perft_cases() -> Vec<PerftCase> {
    let text = include_str!("../data/perft.txt");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            assert!(
                fields.len() >= 3,
                "data/perft.txt line {}: expected `name | sfen | counts`",
                i + 1
            );
            let counts = fields[2]
                .split_whitespace()
                .map(|n| {
                    n.parse().unwrap_or_else(|_| {
                        panic!("data/perft.txt line {}: bad count `{n}`", i + 1)
                    })
                })
                .collect();
            PerftCase {
                name: fields[0].to_string(),
                sfen: fields[1].to_string(),
                counts,
            }
        })
        .collect()
}

/// Runs `helpers/cshogi_referee.py <command>` on `input` lines and returns its output lines.
/// Panics (fails the test) if the tests' Python (see `python.rs`: `bash tests/run.sh` sets it
/// up) or cshogi is missing: the referee is never skipped.
pub fn referee(command: &str, input: &[String]) -> Vec<String> {
    let script: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "helpers",
        "cshogi_referee.py",
    ]
    .iter()
    .collect();
    let mut child = Command::new(python::python())
        .arg(&script)
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run Python for the cshogi referee: {e}"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let body: String = input.iter().map(|l| format!("{l}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(body.as_bytes()));
    let output = child.wait_with_output().expect("referee output");
    writer
        .join()
        .expect("writer thread")
        .expect("write to referee");
    assert!(
        output.status.success(),
        "cshogi referee failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        lines.len(),
        input.len(),
        "referee answered {} of {} lines",
        lines.len(),
        input.len()
    );
    lines
}
