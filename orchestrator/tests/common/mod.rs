//! What the played-run tests share: a scratch folder and one `council-match` run read back.

use std::path::{Path, PathBuf};
use std::process::Command;

use orchestrator::results::GameResult;

/// An empty folder `<prefix>-<name>` under the test target's temporary folder.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Plays `config` into `out` with `council-match` and returns the games, in id order.
pub fn play(config: &Path, out: &Path) -> Vec<GameResult> {
    let run = Command::new(env!("CARGO_BIN_EXE_council-match"))
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
