//! `council-usi` driven over stdin/stdout as a shogi GUI drives an engine: the handshake, legal
//! moves with every member's vote, replay by seed, rejected positions, a council with a USI
//! process member, config errors, and a whole council playing inside `council-match`.
//!
//! Then driven by a client nobody on the project wrote, python cshogi's USI client
//! (`tests/helpers/gui_client.py`), as a GUI drives it: analysis (`go infinite`, the council's
//! line shown while it thinks, `stop` answered with the members' vote), MultiPV, and pondering
//! games against `council-engine` and Fairy-Stockfish at 1 s byoyomi and at 2 s + 1 s, on a clock
//! kept by shogi's rule in the client: every game ends, every move is legal, and council-usi
//! never loses on time. The tests of this file run one at a time ([`one_at_a_time`]): a search
//! beside a game on a clock, on a small machine, would measure the machine.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use council_tests::{python, referee_games, workspace_bin, workspace_root};
use engine::position::Position;
use serde_json::Value;

/// A hang guard, not a timing assertion: no answer in this long is a failure.
const PATIENCE: Duration = Duration::from_secs(120);

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held by every test of this file: searches beside a game on a clock, on a small machine,
/// would measure the machine, not council-usi.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("usi-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Three in-process engines of differing noise at a node limit, voting by majority.
fn internal_council(nodes: u64) -> String {
    format!(
        r#"
[[player]]
name = "council"
kind = "council"
members = ["strong", "medium", "weak"]
nodes = {nodes}

[[player]]
name = "strong"
kind = "internal"
sigma = 100.0

[[player]]
name = "medium"
kind = "internal"
noise_cp = 60
sigma = 150.0

[[player]]
name = "weak"
kind = "internal"
noise_cp = 150
sigma = 200.0
"#
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write config");
    path
}

/// A running `council-usi`, spoken to as a GUI does.
struct Gui {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// Everything read so far, for failure messages.
    seen: Vec<String>,
}

impl Gui {
    fn start(args: &[&std::ffi::OsStr]) -> Gui {
        Self::start_exe(&workspace_bin("council-usi"), args)
    }

    fn start_exe(exe: &Path, args: &[&std::ffi::OsStr]) -> Gui {
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start council-usi");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Gui {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("council-usi reads stdin");
        self.stdin.flush().expect("flush");
    }

    /// Lines up to and including the first that `done` accepts.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    let last = done(&line);
                    got.push(line);
                    if last {
                        return got;
                    }
                }
                Err(e) => panic!(
                    "no expected line ({e}); output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    fn handshake(&mut self) -> Vec<String> {
        self.send("usi");
        let mut lines = self.until(|l| l == "usiok");
        self.send("isready");
        lines.extend(self.until(|l| l == "readyok"));
        lines
    }

    /// `position` then `go`: the lines up to `bestmove`, and the move.
    fn play(&mut self, position: &str, go: &str) -> (Vec<String>, String) {
        self.send(&format!("position {position}"));
        self.send(go);
        let lines = self.until(|l| l.starts_with("bestmove "));
        let best = lines
            .last()
            .and_then(|l| l.strip_prefix("bestmove "))
            .expect("a bestmove line")
            .split_whitespace()
            .next()
            .expect("a move")
            .to_string();
        (lines, best)
    }

    /// `quit`, then the exit status (a hang is a failure).
    fn quit(mut self) -> std::process::ExitStatus {
        self.send("quit");
        let give_up = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if std::time::Instant::now() > give_up {
                let _ = self.child.kill();
                panic!("council-usi did not exit after quit");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn assert_legal(position: &str, mv: &str) {
    let pos = Position::from_usi_position(position).expect("test position");
    pos.parse_usi_move(mv)
        .unwrap_or_else(|e| panic!("bestmove {mv} is not legal after `{position}`: {e}"));
}

/// Each member's vote line (`... member X votes ...` or `... member X has no vote: ...`), not
/// the `... chose ..., overriding the strongest member X` line that follows them.
fn vote_lines(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| {
            l.starts_with("info string council ")
                && l.contains(" member ")
                && !l.contains(" chose ")
        })
        .collect()
}

#[test]
fn the_shipped_config_handshakes_and_answers_a_legal_move_with_every_members_vote() {
    let _serial = one_at_a_time();
    let config = workspace_root().join("configs/council-usi.toml");
    let mut gui = Gui::start(&[config.as_os_str()]);
    let hello = gui.handshake();
    assert!(
        hello.contains(&"id name council (council)".to_string()),
        "{hello:?}"
    );
    assert!(
        hello.iter().any(|l| l.starts_with("id author ")),
        "{hello:?}"
    );
    assert!(
        hello.iter().any(|l| l.contains("name Seed type spin")),
        "{hello:?}"
    );
    gui.send("setoption name USI_Hash value 64");
    gui.send("setoption name USI_Ponder value false");
    gui.send("usinewgame");
    let position = "startpos moves 7g7f";
    let (lines, best) = gui.play(position, "go btime 60000 wtime 60000 byoyomi 5000");
    assert_legal(position, &best);
    let votes = vote_lines(&lines);
    for member in ["strong", "medium", "weak"] {
        assert!(
            votes
                .iter()
                .any(|l| l.contains(&format!("member {member} votes "))),
            "no vote of {member}: {lines:?}"
        );
    }
    let rule = lines
        .iter()
        .find(|l| l.starts_with("info string council council chose "))
        .unwrap_or_else(|| panic!("no rule line: {lines:?}"));
    assert!(rule.contains(&format!("chose {best} by rule ")), "{rule}");
    // The council's row for its answer is the last one: rows shown while it thought may name
    // another move.
    let info = lines
        .iter()
        .rev()
        .find(|l| l.contains(" score ") && l.contains(" pv "))
        .unwrap_or_else(|| panic!("no score and pv: {lines:?}"));
    assert!(
        info.contains(&format!(" pv {best}")) && (info.contains(" cp ") || info.contains(" mate ")),
        "{info}"
    );
    // No stray output between moves: the GUI sees exactly one bestmove.
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        1
    );
    assert!(gui.quit().success());
}

#[test]
fn the_same_positions_and_seed_give_the_same_moves() {
    let _serial = one_at_a_time();
    let dir = scratch("replay");
    let config = write(&dir, "council.toml", &internal_council(3000));
    let positions = [
        "startpos",
        "startpos moves 2g2f 8c8d 2f2e 8d8e",
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
    ];
    let run = || {
        let mut gui = Gui::start(&[config.as_os_str()]);
        gui.send("usi");
        gui.until(|l| l == "usiok");
        gui.send("setoption name Seed value 7");
        gui.send("isready");
        gui.until(|l| l == "readyok");
        gui.send("usinewgame");
        let mut moves = Vec::new();
        for p in positions {
            let (lines, best) = gui.play(p, "go btime 0 wtime 0 byoyomi 60000");
            assert_legal(p, &best);
            // Votes without their times: the same members, moves, scores and nodes.
            let votes: Vec<String> = vote_lines(&lines)
                .iter()
                .map(|l| {
                    l.rsplit_once(", ")
                        .map_or(l.as_str(), |(a, _)| a)
                        .to_string()
                })
                .collect();
            moves.push((best, votes));
        }
        // The same position again in a new game: the same move.
        gui.send("usinewgame");
        let (_, again) = gui.play(positions[1], "go nodes 3000");
        assert!(gui.quit().success());
        (moves, again)
    };
    let (first, again) = run();
    let (second, _) = run();
    assert_eq!(first, second, "two runs with Seed 7 differ");
    assert_eq!(again, first[1].0, "the same position in a new game");
}

#[test]
fn a_rejected_position_is_explained_and_the_next_go_does_not_move_from_it() {
    let _serial = one_at_a_time();
    let dir = scratch("rejected");
    let config = write(&dir, "council.toml", &internal_council(500));
    let mut gui = Gui::start(&[config.as_os_str()]);
    gui.handshake();
    for bad in [
        "startpos moves 7g7f 7g7f",
        "sfen this-is-not-a-board b - 1",
        "nonsense",
    ] {
        gui.send(&format!("position {bad}"));
        let said = gui.until(|l| l.starts_with("info string"));
        assert!(
            said.last().is_some_and(|l| l.contains("rejected")),
            "{bad}: {said:?}"
        );
        gui.send("go btime 0 wtime 0 byoyomi 1000");
        let lines = gui.until(|l| l.starts_with("bestmove"));
        assert_eq!(
            lines.last().map(String::as_str),
            Some("bestmove resign"),
            "{bad}: {lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("go without a valid position")),
            "{lines:?}"
        );
    }
    // A good position afterwards is played from again.
    let (_, best) = gui.play("startpos moves 7g7f", "go nodes 500");
    assert_legal("startpos moves 7g7f", &best);
    // Checkmated (gote's king on 5a, sente's gold on 5b guarded by a pawn): resign.
    let mated = "sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1";
    let pos = Position::from_usi_position(mated).expect("the test's position");
    assert!(pos.legal_moves().is_empty(), "the test's position is mate");
    let (lines, best) = gui.play(mated, "go nodes 500");
    assert_eq!(best, "resign", "{lines:?}");
    assert!(gui.quit().success());
}

#[test]
fn a_council_with_a_council_engine_process_member_plays_and_quits() {
    let _serial = one_at_a_time();
    let dir = scratch("process-member");
    let text = format!(
        r#"
[[player]]
name = "mixed"
kind = "council"
members = ["inside", "outside"]
nodes = 2000

[[player]]
name = "inside"
kind = "internal"

[[player]]
name = "outside"
kind = "usi"
command = "{}"
seed_option = "NoiseSeed"
"#,
        workspace_bin("council-engine").display()
    );
    let config = write(&dir, "mixed.toml", &text);
    let mut gui = Gui::start(&[config.as_os_str()]);
    let hello = gui.handshake();
    assert!(
        !hello.iter().any(|l| l.contains("member failed")),
        "{hello:?}"
    );
    gui.send("usinewgame");
    for position in ["startpos", "startpos moves 7g7f 3c3d"] {
        let (lines, best) = gui.play(position, "go btime 30000 wtime 30000 byoyomi 1000");
        assert_legal(position, &best);
        assert!(
            vote_lines(&lines)
                .iter()
                .any(|l| l.contains("member outside votes ")),
            "{lines:?}"
        );
    }
    gui.send("gameover win");
    assert!(gui.quit().success());
}

#[test]
fn a_member_that_is_not_a_usi_engine_is_named_and_the_council_still_plays() {
    let _serial = one_at_a_time();
    let dir = scratch("broken-member");
    let text = format!(
        "{}\n[[player]]\nname = \"broken\"\nkind = \"usi\"\ncommand = \"true\"\nstartup_timeout_ms = 2000\n",
        internal_council(500).replace(
            "members = [\"strong\", \"medium\", \"weak\"]",
            "members = [\"strong\", \"broken\"]"
        )
    );
    let config = write(&dir, "broken.toml", &text);
    let mut gui = Gui::start(&[config.as_os_str()]);
    let hello = gui.handshake();
    assert!(
        hello
            .iter()
            .any(|l| l.starts_with("info string member failed") && l.contains("`broken`")),
        "{hello:?}"
    );
    let (lines, best) = gui.play("startpos", "go nodes 500");
    assert_legal("startpos", &best);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("member broken has no vote")),
        "{lines:?}"
    );
    assert!(gui.quit().success());
}

#[test]
fn config_errors_are_one_line_naming_the_file_and_the_choice() {
    let _serial = one_at_a_time();
    let dir = scratch("errors");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(workspace_bin("council-usi"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run council-usi");
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        err
    };
    let two = write(
        &dir,
        "two.toml",
        &format!(
            "{}\n[[player]]\nname = \"other\"\nkind = \"council\"\nmembers = [\"weak\"]\n",
            internal_council(500)
        ),
    );
    let e = run(&[two.as_os_str()]);
    assert!(
        e.contains("two.toml") && e.contains("council, other") && e.contains("--player"),
        "{e}"
    );
    let e = run(&[two.as_os_str(), "--player".as_ref(), "nobody".as_ref()]);
    assert!(e.contains("nobody") && e.contains("strong"), "{e}");
    let bad = write(
        &dir,
        "bad.toml",
        &internal_council(500).replace("noise_cp = 60", "noise_cp = 60\nnodez = 1"),
    );
    let e = run(&[bad.as_os_str()]);
    assert!(e.contains("bad.toml") && e.contains("nodez"), "{e}");

    // A bare executable reads council-usi.toml beside it, and says where it looked.
    let exe = dir.join("council-usi");
    std::fs::copy(workspace_bin("council-usi"), &exe).expect("copy the binary");
    let out = Command::new(&exe)
        .stdin(Stdio::null())
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(2)
            && err.contains(&dir.join("council-usi.toml").display().to_string()),
        "{err}"
    );
    write(&dir, "council-usi.toml", &internal_council(500));
    let mut gui = Gui::start_exe(&exe, &[]);
    let hello = gui.handshake();
    assert!(
        hello.contains(&"id name council (council)".to_string()),
        "{hello:?}"
    );
    assert!(gui.quit().success());
}

/// A GUI shows what an engine answers, not its stderr: with a broken config, council-usi
/// answers `usi` with its `id name` and an `info string` naming the config's problem, then
/// exits with status 2 (without `usiok`: there is no engine to load).
#[test]
fn a_broken_config_is_told_to_the_gui_in_answer_to_usi() {
    let _serial = one_at_a_time();
    let dir = scratch("broken-config");
    let bad = write(
        &dir,
        "broken.toml",
        &internal_council(500).replacen("nodes = 500", "node = 500", 1),
    );
    let mut child = Command::new(workspace_bin("council-usi"))
        .arg(&bad)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run council-usi");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "usi").expect("send usi");
    // Held open: the answer must come from `usi`, not from the end of input.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let out = child.wait_with_output();
        let _ = tx.send(out);
    });
    let out = rx
        .recv_timeout(PATIENCE)
        .expect("council-usi exits after answering usi")
        .expect("its output");
    drop(stdin);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.starts_with("id name council-usi")),
        "{stdout}"
    );
    let info = lines
        .iter()
        .find(|l| l.starts_with("info string "))
        .unwrap_or_else(|| panic!("an info string: {stdout}"));
    assert!(
        info.contains("broken.toml") && info.contains("did you mean `nodes`?"),
        "{info}"
    );
    assert!(!lines.contains(&"usiok"), "{stdout}");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.toml"), "{stderr}");
}

#[test]
fn council_usi_plays_as_a_usi_engine_inside_council_match() {
    let _serial = one_at_a_time();
    let dir = scratch("in-match");
    let config = dir.join("match.toml");
    // One file for both programs: council-usi reads its players and ignores [match].
    let text = format!(
        r#"
[match]
players = ["gui-council", "single"]
games = 2
max_plies = 24
seed = 3

[[player]]
name = "gui-council"
kind = "usi"
command = "{exe}"
args = ["{config}", "--player", "council"]
seed_option = "Seed"
nodes = 1000

[[player]]
name = "single"
kind = "internal"
nodes = 1000
{council}"#,
        exe = workspace_bin("council-usi").display(),
        config = config.display(),
        council = internal_council(1000),
    );
    std::fs::write(&config, text).expect("write config");
    let out = dir.join("out");
    let run = Command::new(workspace_bin("council-match"))
        .arg(&config)
        .args(["--out"])
        .arg(&out)
        .args(["--quiet", "--concurrency", "1"])
        .output()
        .expect("run council-match");
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let results = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    let games: Vec<Value> = results
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(games.len(), 2, "{results}");
    for g in &games {
        let reason = g["reason"].as_str().expect("reason");
        assert!(
            !matches!(
                reason,
                "crash" | "timeout" | "illegal_move" | "malformed_move" | "illegal_impasse"
            ),
            "council-usi failed in a game: {g}"
        );
        assert!(g["plies"].as_u64().expect("plies") > 0, "{g}");
        let moves: Vec<&str> = g["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m.as_str().expect("move text"))
            .collect();
        Position::from_usi_position(&format!("startpos moves {}", moves.join(" ")))
            .unwrap_or_else(|e| panic!("an illegal game: {e}: {g}"));
    }
    referee_games(&out, Some(24));
}

#[test]
fn stop_ends_go_infinite_with_the_councils_own_vote() {
    let _serial = one_at_a_time();
    let dir = scratch("infinite");
    // No node limit and a ten-minute cap: only `stop` reaching every member's search can bring
    // the answer within the test's patience, and it must be the council's vote (not the
    // fallback of an abandoned think).
    let text = internal_council(1).replace("nodes = 1\n", "move_timeout_ms = 600000\n");
    let config = write(&dir, "infinite.toml", &text);
    let mut gui = Gui::start(&[config.as_os_str()]);
    gui.handshake();
    gui.send("usinewgame");
    gui.send("position startpos moves 2g2f");
    gui.send("go infinite");
    // The answer waits for `stop`: isready is still answered meanwhile.
    gui.send("isready");
    let early = gui.until(|l| l == "readyok");
    assert!(
        !early.iter().any(|l| l.starts_with("bestmove")),
        "{early:?}"
    );
    std::thread::sleep(Duration::from_millis(300));
    gui.send("stop");
    let lines = gui.until(|l| l.starts_with("bestmove"));
    let words: Vec<&str> = lines.last().expect("bestmove").split_whitespace().collect();
    let ["bestmove", best, "ponder", reply] = words[..] else {
        panic!("not `bestmove X ponder Y`: {lines:?}");
    };
    assert_legal("startpos moves 2g2f", best);
    // The reply the council expects, legal after its move.
    assert_legal(&format!("startpos moves 2g2f {best}"), reply);
    assert_eq!(vote_lines(&lines).len(), 3, "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("abandoned")), "{lines:?}");
    assert!(gui.quit().success());
}

/// A council of an in-process engine and a `council-engine` process, playing at the GUI's
/// clock (no node limit).
fn mixed_council() -> String {
    format!(
        r#"
[[player]]
name = "mixed"
kind = "council"
members = ["inside", "outside"]

[[player]]
name = "inside"
kind = "internal"
sigma = 100.0

[[player]]
name = "outside"
kind = "usi"
command = "{}"
seed_option = "NoiseSeed"
sigma = 150.0
"#,
        workspace_bin("council-engine").display()
    )
}

/// A bare executable that starts council-usi on `config`, as a GUI registers an engine
/// (cshogi's client, like GUIs, starts a command without arguments).
fn gui_engine(dir: &Path, config: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("council-usi-gui");
    let script = format!(
        "#!/bin/sh\nexec '{}' '{}' \"$@\"\n",
        workspace_bin("council-usi").display(),
        config.display()
    );
    std::fs::write(&path, script).expect("write the wrapper");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Runs `tests/helpers/gui_client.py` with `args`; its JSON report.
fn gui_client(args: &[&std::ffi::OsStr]) -> Value {
    let script = workspace_root().join("tests/helpers/gui_client.py");
    let out = Command::new(python())
        .arg(script)
        .args(args)
        .output()
        .expect("run the cshogi client");
    assert!(
        out.status.success(),
        "the cshogi client failed: {}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not the client's JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The lines of an analysis report, and how long after `go` each came.
fn analysis_lines(report: &Value) -> Vec<(f64, String)> {
    report["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| {
            (
                l[0].as_f64().expect("ms"),
                l[1].as_str().expect("text").to_string(),
            )
        })
        .collect()
}

/// An `info` line with a pv that is the engine's own line (not an `info string`).
fn is_pv_row(line: &str) -> bool {
    line.starts_with("info ") && !line.starts_with("info string") && line.contains(" pv ")
}

fn multipv_of(line: &str) -> Option<u32> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == "multipv")?;
    words.next()?.parse().ok()
}

fn first_pv_move(line: &str) -> &str {
    line.split(" pv ")
        .nth(1)
        .and_then(|pv| pv.split_whitespace().next())
        .unwrap_or("")
}

#[test]
fn analysis_shows_the_councils_line_while_it_thinks_and_stop_answers_with_its_vote() {
    let _serial = one_at_a_time();
    let dir = scratch("analysis");
    let config = write(&dir, "mixed.toml", &mixed_council());
    let engine = gui_engine(&dir, &config);
    let position = "startpos moves 2g2f";
    // `stop` goes 1 s after `go infinite`.
    let report = gui_client(&[
        "analysis".as_ref(),
        engine.as_os_str(),
        "--position".as_ref(),
        position.as_ref(),
    ]);
    let lines = analysis_lines(&report);
    let stop_ms = report["stop_ms"].as_f64().expect("stop was sent");
    let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    // The council's line within the first second, before `stop`; and each member's line.
    let before_stop: Vec<&str> = lines
        .iter()
        .filter(|(t, _)| *t < stop_ms)
        .map(|(_, l)| l.as_str())
        .collect();
    assert!(
        before_stop
            .iter()
            .any(|l| is_pv_row(l) && l.contains(" score ")),
        "no `info ... score ... pv` before stop: {text:#?}"
    );
    for member in ["inside", "outside"] {
        assert!(
            before_stop
                .iter()
                .any(|l| l.starts_with(&format!("info string {member}: "))),
            "no line of {member} before stop: {text:#?}"
        );
    }
    for (_, l) in lines.iter().filter(|(_, l)| is_pv_row(l)) {
        let pos = Position::from_usi_position(position).expect("test position");
        let mv = first_pv_move(l);
        pos.parse_usi_move(mv)
            .unwrap_or_else(|e| panic!("a row's first move is not legal: {l}: {e}"));
    }
    // The answer is the council's vote, with the USI member's answer to `stop` in it.
    let best = report["bestmove"].as_str().expect("bestmove");
    assert_legal(position, best);
    let owned: Vec<String> = text.iter().map(|l| l.to_string()).collect();
    let votes = vote_lines(&owned);
    assert!(
        votes
            .iter()
            .any(|l| l.contains("member outside votes ") || l.contains("member inside votes ")),
        "{text:#?}"
    );
    assert!(
        votes.iter().any(|l| l.contains(&format!(" votes {best} "))),
        "bestmove {best} is no member's vote: {votes:#?}"
    );
    assert!(
        !text
            .iter()
            .any(|l| l.contains("quick search") || l.contains("abandoned")),
        "{text:#?}"
    );
}

#[test]
fn multipv_rows_rank_the_councils_moves_in_analysis_and_in_its_answer() {
    let _serial = one_at_a_time();
    let dir = scratch("multipv");
    let config = write(
        &dir,
        "council.toml",
        &internal_council(1).replace("nodes = 1\n", ""),
    );
    let engine = gui_engine(&dir, &config);
    let position = "startpos";
    let report = gui_client(&[
        "analysis".as_ref(),
        engine.as_os_str(),
        "--position".as_ref(),
        position.as_ref(),
        "--multipv".as_ref(),
        "3".as_ref(),
    ]);
    let lines = analysis_lines(&report);
    let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    assert!(
        text.iter()
            .any(|l| is_pv_row(l) && multipv_of(l) == Some(3)),
        "no third row while thinking: {text:#?}"
    );
    // The answer's rows: 1, 2, 3, distinct legal moves, the first the move played.
    let best = report["bestmove"].as_str().expect("bestmove");
    let at = text
        .iter()
        .rposition(|l| l.starts_with("info string council council chose "))
        .expect("the vote's rule line");
    let rows: Vec<&str> = text[at + 1..]
        .iter()
        .filter(|l| is_pv_row(l))
        .copied()
        .collect();
    assert_eq!(
        rows.iter().map(|l| multipv_of(l)).collect::<Vec<_>>(),
        [Some(1), Some(2), Some(3)],
        "{text:#?}"
    );
    let firsts: Vec<&str> = rows.iter().map(|l| first_pv_move(l)).collect();
    assert_eq!(firsts[0], best, "{rows:#?}");
    assert!(
        firsts[1] != firsts[0] && firsts[2] != firsts[0] && firsts[1] != firsts[2],
        "{rows:#?}"
    );
    for mv in &firsts {
        assert_legal(position, mv);
    }
}

/// Plays `games` games of council-usi (on `config`) against `opponent` with `clock` flags of
/// the client, pondering; checks they end with legal moves and no loss on time by
/// council-usi, and that pondering happened (hits or misses) with every answer to `stop` after
/// `go ponder` a move of the pondered position. Returns the report.
fn pondering_games(name: &str, config: &str, opponent: &Path, clock: &[&str], opts: &str) -> Value {
    let dir = scratch(name);
    let config = write(&dir, "council.toml", config);
    let engine = gui_engine(&dir, &config);
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "games".as_ref(),
        engine.as_os_str(),
        opponent.as_os_str(),
        "--games".as_ref(),
        "2".as_ref(),
        "--max-plies".as_ref(),
        "24".as_ref(),
        "--ponder".as_ref(),
        "--options2".as_ref(),
        opts.as_ref(),
        // A hang ends the client with the last lines it saw, as a failure, in 5 minutes.
        "--deadline".as_ref(),
        "300".as_ref(),
    ];
    args.extend(clock.iter().map(|a| std::ffi::OsStr::new(*a)));
    let report = gui_client(&args);
    let games = report["games"].as_array().expect("games");
    assert_eq!(games.len(), 2, "{report}");
    for g in games {
        let reason = g["reason"].as_str().expect("reason");
        assert!(
            !reason.starts_with("illegal"),
            "an illegal move or impasse declaration: {g}"
        );
        let moves: Vec<&str> = g["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m.as_str().expect("move"))
            .collect();
        Position::from_usi_position(&format!("startpos moves {}", moves.join(" ")))
            .unwrap_or_else(|e| panic!("an illegal game: {e}: {g}"));
    }
    let us = &report["engines"][engine.to_str().expect("utf-8 path")];
    assert_eq!(us["time_losses"], 0, "council-usi lost on time: {report}");
    assert_eq!(us["illegal"], 0, "{report}");
    assert!(
        us["hits"].as_u64().expect("hits") + us["misses"].as_u64().expect("misses") > 0,
        "council-usi never pondered: {us}"
    );
    assert_eq!(
        us["bad_stop_answers"].as_array().map(Vec::len),
        Some(0),
        "{us}"
    );
    report
}

#[test]
fn pondering_games_against_council_engine_at_byoyomi_and_at_fischer_end_in_time() {
    let _serial = one_at_a_time();
    let engine = workspace_bin("council-engine");
    pondering_games(
        "ponder-engine-byoyomi",
        &mixed_council(),
        &engine,
        &["--byoyomi", "1000"],
        "",
    );
    pondering_games(
        "ponder-engine-fischer",
        &mixed_council(),
        &engine,
        &["--time", "2000", "--inc", "1000"],
        "",
    );
}

#[test]
fn pondering_games_against_fairy_stockfish_end_in_time() {
    let _serial = one_at_a_time();
    let fairy = Path::new("/usr/games/fairy-stockfish");
    assert!(
        fairy.exists(),
        "{} is missing: install it (sudo apt-get install -y fairy-stockfish)",
        fairy.display()
    );
    let council = internal_council(1).replace("nodes = 1\n", "");
    // Fairy-Stockfish keeps 30 ms for itself by default and overshoots a byoyomi on a busy
    // machine: its own losses on time would end the games before council-usi ponders.
    pondering_games(
        "ponder-fairy",
        &council,
        fairy,
        &["--byoyomi", "1000"],
        "Threads=1,USI_Hash=16,Move Overhead=200",
    );
}

/// The council `trio` of the internal player `inside`, `staller` (`mock-usi stall`: searches
/// until `stop` and answers it) and a third mock member `name` run as `mock-usi MODE`.
fn trio_with(dir: &Path, name: &str, mode: &str) -> PathBuf {
    let mock = workspace_bin("mock-usi");
    let text = format!(
        r#"
[[player]]
name = "trio"
kind = "council"
members = ["inside", "staller", "{name}"]

[[player]]
name = "inside"
kind = "internal"
sigma = 100.0

[[player]]
name = "staller"
kind = "usi"
command = "{mock}"
args = ["stall"]
sigma = 150.0

[[player]]
name = "{name}"
kind = "usi"
command = "{mock}"
args = ["{mode}"]
sigma = 200.0
"#,
        mock = mock.display()
    );
    write(dir, "trio.toml", &text)
}

/// `stop` after `go infinite` from the start: the `bestmove` is legal, `inside` and `staller`
/// vote, and the vote answers within the grace (no quick search, nothing abandoned). Returns
/// the lines read and the move.
fn stop_and_check_the_vote(gui: &mut Gui) -> (Vec<String>, String) {
    gui.send("stop");
    let lines = gui.until(|l| l.starts_with("bestmove"));
    let best = lines
        .last()
        .and_then(|l| l.split_whitespace().nth(1))
        .expect("bestmove")
        .to_string();
    assert_legal("startpos", &best);
    let votes = vote_lines(&lines);
    for member in ["inside", "staller"] {
        assert!(
            votes
                .iter()
                .any(|l| l.contains(&format!("member {member} votes "))),
            "{member} answered stop and votes: {lines:#?}"
        );
    }
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("quick search") || l.contains("abandoned")),
        "the remaining members' vote answers, within the grace: {lines:#?}"
    );
    (lines, best)
}

#[test]
fn stop_votes_with_the_members_that_answer_it_and_leaves_out_one_that_ignores_it() {
    let _serial = one_at_a_time();
    let dir = scratch("stop-deaf");
    // `hang` ignores `stop`.
    let config = trio_with(&dir, "deaf", "hang");
    let mut gui = Gui::start(&[config.as_os_str()]);
    gui.handshake();
    gui.send("usinewgame");
    gui.send("position startpos");
    gui.send("go infinite");
    // The council's line shows before `stop` (not a timing assertion: the test waits for it).
    gui.until(is_pv_row);
    let (lines, best) = stop_and_check_the_vote(&mut gui);
    let votes = vote_lines(&lines);
    assert!(
        votes.iter().any(|l| l.contains("member deaf has no vote")),
        "{lines:#?}"
    );
    assert!(
        votes.iter().any(|l| l.contains(&format!(" votes {best} "))),
        "{lines:#?}"
    );
    assert!(gui.quit().success());
}

#[test]
fn a_member_that_crashes_in_go_infinite_leaves_the_others_streaming_and_voting() {
    let _serial = one_at_a_time();
    let dir = scratch("infinite-crash");
    // `crash-on-go` exits at its first `go`.
    let config = trio_with(&dir, "crasher", "crash-on-go");
    let mut gui = Gui::start(&[config.as_os_str()]);
    gui.handshake();
    gui.send("usinewgame");
    gui.send("position startpos");
    gui.send("go infinite");
    // The crasher is gone at once; the council's line is still shown, and changes: the others
    // stream on (not a timing assertion: the test waits for the rows).
    let first = gui.until(is_pv_row);
    let second = gui.until(is_pv_row);
    assert_ne!(first.last(), second.last());
    gui.send("isready");
    gui.until(|l| l == "readyok");
    let (lines, _) = stop_and_check_the_vote(&mut gui);
    assert!(
        vote_lines(&lines)
            .iter()
            .any(|l| l.contains("member crasher has no vote") && l.contains("exited with status 3")),
        "{lines:#?}"
    );
    assert!(gui.quit().success());
}

/// A council of two well-behaved pondering mocks and `bad`, whose `go ponder` faults as
/// `scenario` says (from its first ponder after a move of its own, see `mock-usi`).
fn ponder_fault_council(mock: &Path, scenario: &str) -> String {
    format!(
        r#"
[[player]]
name = "trio"
kind = "council"
members = ["p1", "p2", "bad"]

[[player]]
name = "p1"
kind = "usi"
command = "{mock}"
args = ["predict"]

[[player]]
name = "p2"
kind = "usi"
command = "{mock}"
args = ["predict"]

[[player]]
name = "bad"
kind = "usi"
command = "{mock}"
args = ["{scenario}"]
"#,
        mock = mock.display()
    )
}

#[test]
fn a_member_with_a_pondering_fault_is_left_out_of_the_vote_the_gui_gets() {
    let _serial = one_at_a_time();
    let dir = scratch("ponder-faults");
    let mock = workspace_bin("mock-usi");
    // (scenario, how the GUI ends the ponder, words of the member's error): the deaf one is
    // sent `stop` only when the GUI stops the ponder.
    let faults = [
        ("ponder-crash", "ponderhit", "exited with status 3"),
        ("ponder-deaf", "stop", "sent `stop`"),
        ("ponder-illegal", "ponderhit", "illegal move"),
        ("ponder-malformed", "ponderhit", "5e5%"),
        ("ponder-early", "ponderhit", "while pondering"),
    ];
    let go = "go btime 0 wtime 0 byoyomi 3000";
    for (scenario, end, words) in faults {
        let config = write(
            &dir,
            &format!("{scenario}.toml"),
            &ponder_fault_council(&mock, scenario),
        );
        let mut gui = Gui::start(&[config.as_os_str()]);
        gui.handshake();
        gui.send("setoption name USI_Ponder value true");
        gui.send("usinewgame");
        let mut game = "startpos".to_string();
        // An early `bestmove` is caught when it came before `ponderhit` was sent; on a loaded
        // machine it may cross it (the member not yet scheduled to write it), and a later
        // ponder from the same position is the one caught. The whole suite running beside it
        // crossed five in a row.
        let attempts = if scenario == "ponder-early" { 20 } else { 1 };
        let mut caught = false;
        let mut heard = Vec::new();
        for _ in 0..attempts {
            let (lines, best) = gui.play(&game, go);
            let words_of: Vec<&str> = lines.last().expect("bestmove").split_whitespace().collect();
            let ["bestmove", _, "ponder", reply] = words_of[..] else {
                panic!("{scenario}: not `bestmove X ponder Y`: {lines:?}");
            };
            let pondered = format!("{game} {}{best} {reply}", moves_word(&game));
            gui.send(&format!("position {pondered}"));
            gui.send("go ponder btime 0 wtime 0 byoyomi 3000");
            gui.send("isready");
            gui.until(|l| l == "readyok");
            gui.send(end);
            let lines = gui.until(|l| l.starts_with("bestmove"));
            let answer = lines
                .last()
                .and_then(|l| l.split_whitespace().nth(1))
                .expect("bestmove")
                .to_string();
            assert_legal(&pondered, &answer);
            let votes = vote_lines(&lines);
            for member in ["p1", "p2"] {
                assert!(
                    votes
                        .iter()
                        .any(|l| l.contains(&format!("member {member} votes "))),
                    "{scenario}: {member} votes: {lines:#?}"
                );
            }
            assert!(
                !lines
                    .iter()
                    .any(|l| l.contains("quick search") || l.contains("abandoned")),
                "{scenario}: the others' vote answers: {lines:#?}"
            );
            caught = votes
                .iter()
                .any(|l| l.contains("member bad has no vote") && l.contains(words));
            heard = lines;
            if caught {
                game = format!("{pondered} {answer}");
                break;
            }
        }
        assert!(caught, "{scenario}: bad was never left out: {heard:#?}");
        // The game goes on without it.
        let reply = Position::from_usi_position(&game)
            .expect("a position")
            .legal_moves()[0]
            .to_usi();
        let next = format!("{game} {reply}");
        let (_, mv) = gui.play(&next, go);
        assert_legal(&next, &mv);
        assert!(gui.quit().success(), "{scenario}");
    }
}

/// `moves ` when `game` (a USI position) has none yet.
fn moves_word(game: &str) -> &'static str {
    if game.contains(" moves ") {
        ""
    } else {
        "moves "
    }
}

/// What a process holds now: threads, open descriptors, resident memory (kB) and live child
/// processes, from `/proc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Holdings {
    threads: usize,
    fds: usize,
    rss_kb: u64,
    children: usize,
}

fn holdings(pid: u32) -> Holdings {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /proc/{pid}/status"))
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("/proc fd")
        .count();
    // Children: processes whose parent is `pid` (the field after the command's closing paren).
    let children = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let mut rest = stat.rsplit(") ").next().unwrap_or("").split_whitespace();
            let state = rest.next();
            state != Some("Z") && rest.next() == Some(pid.to_string().as_str())
        })
        .count();
    Holdings {
        threads: field("Threads:") as usize,
        fds,
        rss_kb: field("VmRSS:"),
        children,
    }
}

/// `go infinite`/`stop` and `go ponder`/`ponderhit` cycles against a council of two cheap mock
/// engines: threads, descriptors and child processes after the run are those after warm-up;
/// the growth of resident memory is printed (a figure, not an assertion). Cycles:
/// `COUNCIL_USI_CYCLES` (default 10,000, about 8 s on a loaded 2-core machine; the figures
/// printed with
/// `COUNCIL_USI_CYCLES=30000 cargo test --release -p council-tests --test council_usi -- cycles --nocapture`).
/// The members answer at once, so the cycles are many and quick; the soak's GUI run
/// (`scripts/soak.py --gui`, docs/studies/soak.md) is the slow one, with searching members.
#[test]
fn go_stop_and_ponder_cycles_hold_threads_descriptors_and_children_flat() {
    let _serial = one_at_a_time();
    let cycles: usize = std::env::var("COUNCIL_USI_CYCLES")
        .ok()
        .map(|v| v.parse().expect("COUNCIL_USI_CYCLES is a whole number"))
        .unwrap_or(10_000);
    let warm_up = 50.min(cycles / 2);
    let dir = scratch("cycles");
    let mock = workspace_bin("mock-usi");
    let text = format!(
        r#"
[[player]]
name = "pair"
kind = "council"
members = ["p1", "p2"]

[[player]]
name = "p1"
kind = "usi"
command = "{mock}"
args = ["predict"]

[[player]]
name = "p2"
kind = "usi"
command = "{mock}"
args = ["mispredict"]
"#,
        mock = mock.display()
    );
    let config = write(&dir, "pair.toml", &text);
    let mut gui = Gui::start(&[config.as_os_str()]);
    let pid = gui.child.id();
    gui.handshake();
    gui.send("setoption name USI_Ponder value true");
    gui.send("usinewgame");
    let bestmove = |gui: &mut Gui| -> Vec<String> {
        let lines = gui.until(|l| l.starts_with("bestmove"));
        gui.seen.clear();
        lines
            .last()
            .expect("bestmove")
            .split_whitespace()
            .skip(1)
            .map(String::from)
            .collect()
    };
    let mut warm = None;
    let mut unnamed = 0;
    let began = std::time::Instant::now();
    for cycle in 0..cycles {
        if cycle == warm_up {
            warm = Some(holdings(pid));
        }
        gui.send("position startpos");
        gui.send("go infinite");
        gui.send("stop");
        let answer = bestmove(&mut gui);
        let (best, reply) = match &answer[..] {
            [best, ponder, reply] if ponder == "ponder" => (best.clone(), reply.clone()),
            // No reply named: on a loaded machine both members may miss the moment `stop`
            // gives them, and the built-in engine answers. The GUI ponders on a reply anyway.
            [best] => {
                unnamed += 1;
                let mut after = Position::startpos();
                after.play(after.parse_usi_move(best).expect("a legal bestmove"));
                (best.clone(), after.legal_moves()[0].to_usi())
            }
            other => panic!("cycle {cycle}: not a bestmove: {other:?}"),
        };
        assert_legal("startpos", &best);
        let pondered = format!("startpos moves {best} {reply}");
        gui.send(&format!("position {pondered}"));
        gui.send("go ponder btime 0 wtime 0 byoyomi 2000");
        gui.send("ponderhit");
        let answer = bestmove(&mut gui);
        assert_legal(&pondered, &answer[0]);
    }
    let took = began.elapsed();
    let end = holdings(pid);
    let warm = warm.expect("measured after warm-up");
    println!(
        "{cycles} cycles (each go infinite/stop and go ponder/ponderhit) in {:.1} s ({unnamed} stops answered without a reply named); after {warm_up}: {warm:?}; at the end: {end:?}; RSS growth {} kB",
        took.as_secs_f64(),
        end.rss_kb as i64 - warm.rss_kb as i64
    );
    assert_eq!(end.fds, warm.fds, "descriptors: {warm:?} then {end:?}");
    assert!(
        end.threads <= warm.threads,
        "threads: {warm:?} then {end:?}"
    );
    assert_eq!(end.children, 2, "the two members, no more: {end:?}");
    assert!(gui.quit().success());
}
