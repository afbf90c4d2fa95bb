//! Drives the real `council-engine` binary over stdin/stdout the way a GUI does, and checks
//! every `bestmove` against the rules facade's legal moves.
//!
//! Reads have a generous deadline only so that a hung engine fails the test instead of
//! hanging it; nothing here asserts how fast the engine is.

use engine::position::Position;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(60);

struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_council-engine"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start council-engine");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut s = Self {
            child,
            stdin,
            lines: rx,
        };
        s.send("usi");
        s.until(|l| l == "usiok");
        s.send("isready");
        s.until(|l| l == "readyok");
        s
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to engine");
        self.stdin.flush().expect("flush");
    }

    fn next(&self) -> String {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => panic!("engine silent for {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("engine closed its output"),
        }
    }

    /// Reads lines until one satisfies `stop`; returns all lines read, that one last.
    fn until(&self, stop: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self.next();
            let done = stop(&line);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// Sends a position and a go command; returns the lines up to and including `bestmove`.
    fn go(&mut self, position: &str, go: &str) -> Vec<String> {
        self.send(position);
        self.send(go);
        self.until(|l| l.starts_with("bestmove"))
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().expect("engine exits");
        assert!(status.success(), "exit status {status}");
    }
}

fn bestmove(lines: &[String]) -> String {
    let last = lines.last().expect("a bestmove line");
    last.split_whitespace()
        .nth(1)
        .expect("bestmove has a move")
        .to_string()
}

/// Asserts that `mv` is one of the facade's legal moves in the USI `position` line.
fn assert_legal(position_line: &str, mv: &str) {
    let args = position_line
        .strip_prefix("position ")
        .expect("position line");
    let pos = Position::from_usi_position(args).expect("test positions are valid");
    let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_usi()).collect();
    assert!(
        legal.contains(&mv.to_string()),
        "{mv} is not legal in {position_line}; legal: {legal:?}"
    );
}

#[test]
fn handshake_declares_the_options() {
    let mut s = Session::start();
    s.send("usi");
    let lines = s.until(|l| l == "usiok");
    assert!(lines.iter().any(|l| l.starts_with("id name ")));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for option in [
        "USI_Hash",
        "MultiPV",
        "NodeLimit",
        "DepthLimit",
        "MoveTime",
        "NoiseSD",
        "NoiseSeed",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type "))),
            "option {option} missing: {lines:?}"
        );
    }
    s.quit();
}

#[test]
fn every_go_variant_answers_a_legal_move_with_full_info() {
    let mut s = Session::start();
    s.send("setoption name USI_Hash value 16");
    s.send("usinewgame");
    let positions = [
        "position startpos",
        "position startpos moves 7g7f 3c3d 8h2b+ 3a2b",
        "position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "position sfen lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d 7g7f",
    ];
    let gos = [
        "go depth 4",
        "go nodes 3000",
        "go movetime 200",
        "go btime 0 wtime 0 byoyomi 300",
        "go btime 2000 wtime 2000 binc 100 winc 100",
    ];
    for (i, position) in positions.iter().enumerate() {
        for go in gos {
            let lines = s.go(position, go);
            let mv = bestmove(&lines);
            assert_legal(position, &mv);
            let info = lines
                .iter()
                .rev()
                .find(|l| l.starts_with("info depth"))
                .unwrap_or_else(|| panic!("no info line for `{go}` in position {i}: {lines:?}"));
            for key in [
                " seldepth ",
                " nodes ",
                " nps ",
                " time ",
                " score ",
                " multipv ",
                " pv ",
            ] {
                assert!(info.contains(key), "`{key}` missing in {info}");
            }
            assert!(
                info.contains(" score cp ") || info.contains(" score mate "),
                "{info}"
            );
        }
    }
    s.send("gameover win");
    s.quit();
}

#[test]
fn infinite_and_ponder_wait_for_the_gui() {
    let mut s = Session::start();
    // go infinite: no bestmove until stop, even though isready is answered meanwhile.
    s.send("position startpos moves 2g2f");
    s.send("go infinite");
    s.send("isready");
    let before = s.until(|l| l == "readyok");
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "{before:?}"
    );
    s.send("stop");
    let lines = s.until(|l| l.starts_with("bestmove"));
    assert_legal("position startpos moves 2g2f", &bestmove(&lines));

    // go ponder with a clock, then ponderhit: the search finishes on its own clock.
    s.send("position startpos moves 2g2f 8c8d");
    s.send("go ponder btime 0 wtime 0 byoyomi 300");
    s.send("isready");
    let before = s.until(|l| l == "readyok");
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "{before:?}"
    );
    s.send("ponderhit");
    let lines = s.until(|l| l.starts_with("bestmove"));
    assert_legal("position startpos moves 2g2f 8c8d", &bestmove(&lines));

    // go ponder, then stop (the GUI's ponder move was wrong): still exactly one bestmove.
    s.send("go ponder btime 0 wtime 0 byoyomi 300");
    s.send("stop");
    let lines = s.until(|l| l.starts_with("bestmove"));
    assert_legal("position startpos moves 2g2f 8c8d", &bestmove(&lines));
    s.send("isready");
    let after = s.until(|l| l == "readyok");
    assert!(
        !after.iter().any(|l| l.starts_with("bestmove")),
        "a second bestmove: {after:?}"
    );
    s.send("gameover lose");
    s.quit();
}

#[test]
fn mated_side_resigns() {
    let mut s = Session::start();
    // Gote to move, mated by the gold on 5b supported from 5c.
    let lines = s.go(
        "position sfen 4k4/4G4/4G4/9/9/9/9/9/4K4 w 2r2b2g4s4n4l18p 2",
        "go depth 5",
    );
    assert_eq!(lines.last().map(String::as_str), Some("bestmove resign"));
    // Mated by a sequence of moves in the game (not only by a SFEN).
    let lines = s.go(
        "position sfen 4k4/9/4G4/9/9/9/9/9/4K4 b G2r2b2g4s4n4l18p 1 moves G*5b",
        "go depth 3",
    );
    assert_eq!(lines.last().map(String::as_str), Some("bestmove resign"));
    s.quit();
}

#[test]
fn mate_in_one_is_played_and_reported() {
    let mut s = Session::start();
    let position = "position sfen 4k4/9/4G4/9/9/9/9/9/4K4 b G2r2b2g4s4n4l18p 1";
    let lines = s.go(position, "go depth 4");
    assert_eq!(bestmove(&lines), "G*5b");
    assert!(
        lines.iter().any(|l| l.contains(" score mate 1 ")),
        "{lines:?}"
    );
    s.quit();
}

#[test]
fn impasse_declaration_answers_win_only_when_it_holds() {
    let mut s = Session::start();
    // Sente's king and 14 pieces in Gote's camp, 32 points with the hand, not in check.
    let lines = s.go(
        "position sfen KRBGGGGSS/SSLL5/2NN5/9/9/9/9/9/4k4 b RB2n2l18p 1",
        "go depth 3",
    );
    assert_eq!(lines.last().map(String::as_str), Some("bestmove win"));
    // Same camp but too few points (no rook and bishop in hand): no declaration.
    let position = "position sfen KRBGGGGSS/SSLL5/2NN5/9/9/9/9/9/4k4 b 2n2l18prb 1";
    let lines = s.go(position, "go depth 3");
    let mv = bestmove(&lines);
    assert_ne!(mv, "win");
    assert_legal(position, &mv);
    s.quit();
}

#[test]
fn malformed_input_is_reported_and_never_moves_from_a_wrong_position() {
    let mut s = Session::start();
    for bad in [
        "frobnicate now",
        "setoption name NodeLimit value lots",
        "setoption name NoSuchOption value 1",
        "go depth deep",
        "position sfen this is not a sfen",
    ] {
        s.send(bad);
        s.send("isready");
        let lines = s.until(|l| l == "readyok");
        assert!(
            lines.iter().any(|l| l.starts_with("info string ")),
            "no complaint about `{bad}`: {lines:?}"
        );
    }
    // Bytes that are not UTF-8 are complained about, not fatal.
    s.stdin
        .write_all(b"posi\xfftion startpos\n")
        .expect("write");
    s.send("isready");
    let lines = s.until(|l| l == "readyok");
    assert!(
        lines.iter().any(|l| l.starts_with("info string ")),
        "{lines:?}"
    );

    // The rejected SFEN left no position: go must not move from a stale one.
    s.send("go depth 3");
    let lines = s.until(|l| l.starts_with("bestmove"));
    assert!(
        lines.iter().any(|l| l.starts_with("info string ")),
        "{lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("bestmove resign"));

    // An illegal move in the game record: named, and again no move from a wrong position.
    s.send("position startpos moves 7g7f 3c3d 7f7e 7f7e");
    s.send("go depth 3");
    let lines = s.until(|l| l.starts_with("bestmove"));
    let complaint = lines
        .iter()
        .find(|l| l.starts_with("info string "))
        .expect("a complaint");
    assert!(complaint.contains("7f7e"), "{complaint}");
    assert_eq!(lines.last().map(String::as_str), Some("bestmove resign"));

    // A good position afterwards works again.
    let lines = s.go("position startpos moves 7g7f", "go depth 3");
    assert_legal("position startpos moves 7g7f", &bestmove(&lines));
    s.quit();
}

#[test]
fn extreme_move_numbers_are_searched_safely() {
    let mut s = Session::start();
    for number in ["65535", "65000"] {
        let position = format!(
            "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - {number}"
        );
        let lines = s.go(&position, "go depth 3");
        let mv = bestmove(&lines);
        if lines
            .iter()
            .any(|l| l.starts_with("info string position rejected"))
        {
            assert_eq!(mv, "resign");
        } else {
            assert_legal(&position, &mv);
        }
    }
    s.quit();
}

#[test]
fn multipv_reports_distinct_ranked_lines() {
    let mut s = Session::start();
    s.send("setoption name MultiPV value 3");
    let lines = s.go("position startpos", "go depth 4");
    let last_depth: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 4 "))
        .collect();
    assert_eq!(last_depth.len(), 3, "{lines:?}");
    let firsts: std::collections::HashSet<&str> = last_depth
        .iter()
        .map(|l| {
            l.split(" pv ")
                .nth(1)
                .and_then(|pv| pv.split_whitespace().next())
                .expect("pv")
        })
        .collect();
    assert_eq!(firsts.len(), 3, "{last_depth:?}");
    for (i, l) in last_depth.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} ", i + 1)), "{l}");
    }
    s.quit();
}

#[test]
fn same_seed_same_move_and_end_of_input_is_quit() {
    let run = || {
        let mut s = Session::start();
        s.send("setoption name NoiseSD value 100");
        s.send("setoption name NoiseSeed value 77");
        s.send("setoption name NodeLimit value 4000");
        let lines = s.go(
            "position startpos moves 7g7f 3c3d",
            "go btime 0 wtime 0 byoyomi 5000",
        );
        // Close stdin without quit: the engine must exit cleanly.
        drop(s.stdin);
        let status = s.child.wait().expect("exit");
        assert!(status.success());
        bestmove(&lines)
    };
    assert_eq!(run(), run());
}

#[test]
fn bench_prints_a_deterministic_node_total() {
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_council-engine"))
            .args(["bench", "--depth", "5"])
            .output()
            .expect("run bench");
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let last = text.lines().last().expect("output").to_string();
        let words: Vec<&str> = last.split_whitespace().collect();
        assert_eq!(words.len(), 4, "{last}");
        assert_eq!(words[1], "nodes");
        assert_eq!(words[3], "nps");
        words[0].parse::<u64>().expect("node count")
    };
    let first = run();
    assert!(first > 0);
    assert_eq!(first, run());
}
