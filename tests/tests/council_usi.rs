//! `council-usi` driven over stdin/stdout as a shogi GUI drives an engine: the handshake, legal
//! moves with every member's vote, replay by seed, rejected positions, a council with a USI
//! process member, config errors, and a whole council playing inside `council-match`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use council_tests::{referee_games, workspace_bin, workspace_root};
use engine::position::Position;
use serde_json::Value;

/// A hang guard, not a timing assertion: no answer in this long is a failure.
const PATIENCE: Duration = Duration::from_secs(120);

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
    let info = lines
        .iter()
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

#[test]
fn council_usi_plays_as_a_usi_engine_inside_council_match() {
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
    let best = lines
        .last()
        .and_then(|l| l.strip_prefix("bestmove "))
        .expect("bestmove");
    assert_legal("startpos moves 2g2f", best);
    assert_eq!(vote_lines(&lines).len(), 3, "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("abandoned")), "{lines:?}");
    assert!(gui.quit().success());
}
