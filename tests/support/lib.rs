//! Helpers for the end-to-end tests: find the workspace's binaries the way a user would run them.
//!
//! `cargo test --workspace` builds every binary of a package that has integration tests before
//! any test runs, so the binaries sit next to this test executable's `deps/` folder. Running only
//! this package (`cargo test -p council-tests`) may find stale or missing binaries: build the
//! workspace first.

use std::path::PathBuf;

#[path = "python.rs"]
mod interpreter;
pub use interpreter::{SETUP_COMMAND, python};

/// The path of a workspace binary (`council-engine`, `council-match`, ...) in the same target
/// profile folder as the running test.
///
/// Panics with a message naming the missing binary and the command that builds it.
pub fn workspace_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    // target/<profile>/deps/<test-binary> -> target/<profile>/<name>
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binary lives in target/<profile>/deps");
    let path = profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "binary {} not found; run `cargo build --workspace --bins` (with --release if testing with --release) first",
        path.display()
    );
    path
}

/// The workspace root (where `configs/` and `Cargo.toml` are).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace root")
        .to_path_buf()
}

/// Checks every game of a `council-match` run folder with the independent cshogi referee
/// (`tests/helpers/match_referee.py`): legal moves only, an ending that fits the final position
/// (and `max_plies`, when given), and CSA and KIF records that cshogi reads back as the same
/// game. Panics with the referee's complaints; a missing Python (see [`python`]) or cshogi is a
/// failure too, never a skip.
pub fn referee_games(out: &std::path::Path, max_plies: Option<u32>) {
    let script = workspace_root().join("tests/helpers/match_referee.py");
    let mut cmd = std::process::Command::new(python());
    cmd.arg(&script).arg(out);
    if let Some(n) = max_plies {
        cmd.arg(n.to_string());
    }
    let run = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run Python for the cshogi referee: {e}"));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the cshogi referee failed: {}{stdout}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bad: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok ")).collect();
    assert!(
        bad.is_empty(),
        "the cshogi referee disagrees:\n{}",
        bad.join("\n")
    );
    assert!(stdout.lines().count() > 0, "the referee saw no game");
}

/// Runs one of the workspace's binaries with `args` and waits for it.
///
/// # Panics
/// When the binary cannot be started.
#[must_use]
pub fn run_bin(bin: &str, args: &[&dyn AsRef<std::ffi::OsStr>]) -> std::process::Output {
    let mut cmd = std::process::Command::new(workspace_bin(bin));
    for a in args {
        cmd.arg(a.as_ref());
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"))
}

/// The standard output of a run that must have succeeded.
///
/// # Panics
/// When the run failed, showing its status, output and errors.
pub fn succeeded(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run stopped by a file it could not write: it exits non-zero, and exactly one line of its
/// stderr, its last, names `file`, with `cause`.
///
/// # Panics
/// When it does not.
pub fn assert_stopped_naming(run: &std::process::Output, file: &str, cause: &str) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "the run exits non-zero: {stderr}");
    let naming: Vec<&str> = stderr.lines().filter(|l| l.contains(file)).collect();
    assert!(
        naming.len() == 1 && naming[0].contains(cause),
        "one line names {file}, with {cause}: {stderr}"
    );
    assert!(
        stderr.lines().last().is_some_and(|l| l.contains(file)),
        "the last line names {file}: {stderr}"
    );
}

/// The built-in engine's search of `pos` as the analysis reference makes it (`council-analyze
/// moves`, `council-openings`): one thread, a 16 MB hash, cleared tables, single line, `nodes`
/// nodes. Tests re-search with it what a binary reported.
#[must_use]
pub fn reference_search(
    pos: &engine::position::Position,
    nodes: u64,
) -> engine::search::SearchResult {
    use engine::search::{Engine, EngineSettings, Limits, Silent, StopFlag};
    let mut engine = Engine::new(EngineSettings {
        hash_mb: 16,
        multipv: 1,
        ..EngineSettings::default()
    });
    engine.new_game();
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    engine.search(pos, &limits, &StopFlag::new(), &mut Silent)
}

/// `council-tune CONFIG --out OUT --quiet ARGS...`, as a user runs it.
pub fn run_tune(
    config: &std::path::Path,
    out: &std::path::Path,
    args: &[&str],
) -> std::process::Output {
    let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&config, &"--out", &out, &"--quiet"];
    for a in args {
        all.push(a);
    }
    run_bin("council-tune", &all)
}

/// The iteration lines of `OUT/tune.jsonl` as JSON values, after checking that the first line
/// is the tune's header.
pub fn tune_iterations(out: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("tune.jsonl")).expect("read tune.jsonl");
    let mut lines = text.lines();
    let header: serde_json::Value =
        serde_json::from_str(lines.next().expect("a header")).expect("header is JSON");
    assert!(header.get("tune").is_some(), "first line is the header");
    lines
        .map(|l| serde_json::from_str(l).expect("an iteration line is JSON"))
        .collect()
}

/// The iteration lines without their wall times, as text: what must replay exactly.
pub fn tune_trajectory(out: &std::path::Path) -> Vec<String> {
    tune_iterations(out)
        .into_iter()
        .map(|mut v| {
            v.as_object_mut().expect("an object").remove("wall_ms");
            v.to_string()
        })
        .collect()
}

/// Whether every pid listed in `pid_file` is gone (or a zombie its adopter has yet to reap),
/// waiting up to ten seconds: a killed process dies when the kernel next schedules it, which on
/// a loaded machine can be after the program that killed it has exited.
pub fn all_gone(pid_file: &std::path::Path) -> Result<(), String> {
    // Generous: on a loaded machine the kill and the reaping can take seconds.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match gone_now(pid_file) {
            Err(e) if std::time::Instant::now() < deadline && e.contains("still running") => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Whether every pid listed in `pid_file` is gone (or a zombie) at this moment.
fn gone_now(pid_file: &std::path::Path) -> Result<(), String> {
    let pids = std::fs::read_to_string(pid_file).map_err(|e| format!("no children: {e}"))?;
    if pids.lines().count() == 0 {
        return Err("no children".into());
    }
    for pid in pids.lines() {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(") ").next().and_then(|r| r.chars().next());
        // A pid the system has given to another process since is gone too: the grandchild is
        // always `sleep 600`.
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let reused = !cmdline.starts_with(b"sleep\x00600");
        if !(stat.is_empty() || state == Some('Z') || reused) {
            return Err(format!("grandchild {pid} is still running: {stat}"));
        }
    }
    Ok(())
}

/// `council-match CONFIG --out OUT --quiet EXTRA...`, run to its end.
pub fn council_match(
    config: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    std::process::Command::new(workspace_bin("council-match"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .expect("run council-match")
}

/// The lines of a run's `results.jsonl`.
pub fn results_lines(out: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}
