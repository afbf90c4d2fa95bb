//! What the played-run tests share: a scratch folder and one `council-match` run read back.

use std::path::{Path, PathBuf};
use std::process::Command;

use orchestrator::results::GameResult;

/// A program of the workspace, built beside this test (`cargo test --workspace` builds every
/// crate's programs first: each program's crate has a test of its own that runs it).
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    // target/<profile>/deps/<test> -> target/<profile>/<name>
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in target/<profile>/deps");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} not found: build it with `cargo build --workspace --bins` (with --release if testing with --release)",
        path.display()
    );
    path
}

/// An empty folder `<prefix>-<name>` under the test target's temporary folder.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Plays `config` into `out` with `council-match` and returns the games, in id order.
pub fn play(config: &Path, out: &Path) -> Vec<GameResult> {
    let run = Command::new(bin("council-match"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .output()
        .expect("run council-match");
    assert!(
        run.status.success(),
        "council-match {} failed: {}",
        config.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let mut games: Vec<GameResult> = std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a game result"))
        .collect();
    games.sort_by_key(|g| g.id);
    games
}
