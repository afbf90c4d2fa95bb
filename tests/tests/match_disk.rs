//! `council-match` when a file it writes cannot be written (a full disk, a record's path taken by a
//! folder): the run stops starting games, says in one line which file failed and why, exits
//! non-zero and loses no finished game; `--resume` once the file can be written finishes the run
//! with the same games as a run that never stopped. Linux's `/dev/full` stands in for a full disk
//! (every write fails with ENOSPC), so no mount is needed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::workspace_bin;
use serde_json::Value;

const GAMES: usize = 8;

/// A fresh folder for one test, with the run's config written in it.
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("match-disk-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    let mut config = format!(
        "[match]\nplayers = [\"a\", \"b\"]\ngames = {GAMES}\nmax_plies = 24\nseed = 5\n\
         training = {{ format = \"psv\" }}\n\n"
    );
    for name in ["a", "b"] {
        config.push_str(&format!(
            "[[player]]\nname = \"{name}\"\nkind = \"usi\"\ncommand = \"{}\"\nargs = [\"normal\"]\nnodes = 1\n\n",
            workspace_bin("mock-usi").display()
        ));
    }
    let path = dir.join("disk.toml");
    std::fs::write(&path, config).expect("write config");
    (dir, path)
}

fn run_match(config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(workspace_bin("council-match"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--concurrency", "2"])
        .args(extra)
        .output()
        .expect("run council-match")
}

/// Each game's moves by id, from `results.jsonl` (every line must be whole JSON).
fn moves_by_id(out: &Path) -> BTreeMap<u64, Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("each results line is whole JSON"))
        .map(|g| (g["id"].as_u64().expect("id"), g["moves"].clone()))
        .collect()
}

/// The reference: the same run on a disk with room.
fn reference(dir: &Path, config: &Path) -> BTreeMap<u64, Value> {
    let out = dir.join("reference");
    let run = run_match(config, &out, &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let games = moves_by_id(&out);
    assert_eq!(games.len(), GAMES);
    games
}

/// The stopped run's one line, its exit, and that it kept what it finished.
fn assert_stopped_naming(run: &std::process::Output, file: &str, cause: &str) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "the run exits non-zero: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains(file)).collect();
    assert!(
        errors.iter().any(|l| l.contains(cause)),
        "a line names {file} and {cause}: {stderr}"
    );
    assert!(
        stderr.lines().last().is_some_and(|l| l.contains(file)),
        "the last line names {file}: {stderr}"
    );
}

/// `--resume` (with `extra`) finishes the run with exactly the reference's games.
fn resume_plays_the_same_games(
    config: &Path,
    out: &Path,
    extra: &[&str],
    expected: &BTreeMap<u64, Value>,
) {
    let run = run_match(config, out, &[&["--resume"], extra].concat());
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        &moves_by_id(out),
        expected,
        "the resumed run played the same games"
    );
}

#[test]
fn an_engine_log_on_a_full_disk_stops_the_run_and_resume_finishes_it() {
    let (dir, config) = scratch("engine-log");
    let expected = reference(&dir, &config);
    let out = dir.join("full");
    let run = run_match(&config, &out, &["--log", "/dev/full"]);
    assert_stopped_naming(&run, "/dev/full", "No space left on device");
    let kept = moves_by_id(&out);
    assert!(kept.len() < GAMES, "the run stopped starting games");
    for (id, moves) in &kept {
        assert_eq!(&expected[id], moves, "game {id} was recorded whole");
    }
    let log = dir.join("engines.log");
    let log = log.to_str().expect("utf-8");
    resume_plays_the_same_games(&config, &out, &["--log", log], &expected);
}

#[test]
fn a_training_file_on_a_full_disk_stops_the_run_and_resume_rewrites_it() {
    let (dir, config) = scratch("training");
    let expected = reference(&dir, &config);
    let whole = std::fs::read(dir.join("reference").join("training.psv")).expect("training");
    let out = dir.join("full");
    std::fs::create_dir_all(&out).expect("out");
    let training = out.join("training.psv");
    std::os::unix::fs::symlink("/dev/full", &training).expect("symlink to /dev/full");
    let run = run_match(&config, &out, &[]);
    assert_stopped_naming(&run, "training.psv", "No space left on device");
    assert!(
        moves_by_id(&out).len() < GAMES,
        "the run stopped starting games"
    );
    // Room again: the file is an ordinary one, and the resumed run rewrites it whole.
    std::fs::remove_file(&training).expect("remove the symlink");
    resume_plays_the_same_games(&config, &out, &[], &expected);
    let resumed = std::fs::read(&training).expect("training");
    assert_eq!(resumed.len(), whole.len(), "the same training records");
}

#[test]
fn a_record_that_cannot_be_written_stops_the_run_before_its_game_is_committed() {
    let (dir, config) = scratch("records");
    let expected = reference(&dir, &config);
    let out = dir.join("blocked");
    let records = out.join("records");
    std::fs::create_dir_all(&records).expect("records folder");
    // Game 3's record is a folder already (whichever side it gives sente): its write fails.
    let blocked = ["0003-a-vs-b.csa", "0003-b-vs-a.csa"].map(|name| records.join(name));
    for path in &blocked {
        std::fs::create_dir_all(path).expect("block game 3's record");
    }
    let run = run_match(&config, &out, &[]);
    assert_stopped_naming(&run, "0003-", "Is a directory");
    // A game's results line is its commit point, written after its records: game 3 has none.
    let kept = moves_by_id(&out);
    assert!(
        !kept.contains_key(&3),
        "game 3 is not committed without its records"
    );
    assert!(kept.len() < GAMES, "the run stopped starting games");
    for (id, moves) in &kept {
        assert_eq!(&expected[id], moves, "game {id} was recorded whole");
    }
    for path in &blocked {
        std::fs::remove_dir(path).expect("unblock game 3's record");
    }
    resume_plays_the_same_games(&config, &out, &[], &expected);
    let csa = std::fs::read_dir(&records)
        .expect("records folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "csa"))
        })
        .count();
    assert_eq!(csa, GAMES, "every game has its CSA record");
}
