//! `council-csa` through the project's CSA test server (`csa-test-server`): two clients play
//! each other (or a scripted raw client) for every ending the protocol names, and each game
//! leaves its records, its `results.jsonl` line and a protocol log. Short clocks, small node
//! limits and `--max-moves` keep the file to seconds a game.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use council_tests::{referee_games, workspace_bin, workspace_root};
use serde_json::Value;

/// A hang guard, not a timing assertion: a process still running after this long is a failure.
const PATIENCE: Duration = Duration::from_secs(90);

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("csa-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Players: the built-in engine at a small node limit, a council of three of them, and
/// mock-usi engines that resign, hang, repeat, declare, or play an illegal move.
fn config(dir: &Path) -> PathBuf {
    let mock = workspace_bin("mock-usi");
    let usi = |name: &str, args: &str| {
        format!(
            "[[player]]\nname = \"{name}\"\nkind = \"usi\"\ncommand = \"{}\"\nargs = [{args}]\nnodes = 1\n\n",
            mock.display()
        )
    };
    let mut text = String::from(
        r#"
[[player]]
name = "engine"
kind = "internal"
nodes = 300

[[player]]
name = "council"
kind = "council"
members = ["strong", "medium", "weak"]
nodes = 600

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

"#,
    );
    text.push_str(&usi("resigner", r#""resign", "--after", "3""#));
    text.push_str(&usi("hanger", r#""hang", "--after", "2""#));
    text.push_str(&usi("repeater", r#""repeat""#));
    text.push_str(&usi("declarer", r#""win""#));
    text.push_str(&usi("cheat", r#""illegal", "--after", "2""#));
    let path = dir.join("players.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Wait for `child`, killing it after [`PATIENCE`]; its stdout and stderr.
fn finish(mut child: Child, what: &str) -> (std::process::ExitStatus, String, String) {
    let began = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if began.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("{what} still running after {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    let mut err = String::new();
    use std::io::Read;
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    (status, out, err)
}

/// A running `csa-test-server --games N`: its port and its stdout lines.
struct Server {
    child: Child,
    port: u16,
    lines: mpsc::Receiver<String>,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(workspace_bin("csa-test-server"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start csa-test-server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let first = lines
            .recv_timeout(PATIENCE)
            .expect("the server's port line");
        let port = first
            .strip_prefix("port ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("not a port line: {first}"));
        Server { child, port, lines }
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's `end <id> <ending> <sente result>` lines, once it has hosted its games.
    fn ends(self) -> Vec<String> {
        let (status, _, _) = finish(self.child, "csa-test-server");
        assert!(status.success(), "csa-test-server: {status:?}");
        self.lines
            .try_iter()
            .filter(|l| l.starts_with("end "))
            .collect()
    }
}

/// Start `council-csa CONFIG PLAYER` on the server as `id`, writing to `out`.
fn client(
    config: &Path,
    player: &str,
    server: &Server,
    id: &str,
    out: &Path,
    extra: &[&str],
) -> Child {
    Command::new(workspace_bin("council-csa"))
        .arg(config)
        .arg(player)
        .args([
            "--server",
            &server.address(),
            "--id",
            id,
            "--password",
            "test,pw-secret",
        ])
        .arg("--out")
        .arg(out)
        .args(["--margin-ms", "200", "--keep-alive", "1"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start council-csa")
}

/// Log `first` in, then `second` (the first to log in plays sente), and wait for both.
fn play_pair(
    server: &Server,
    config: &Path,
    first: (&str, &Path),
    second: (&str, &Path),
    extra: &[&str],
) -> [(String, String); 2] {
    let a = client(
        config,
        first.0,
        server,
        &format!("{}-1", first.0),
        first.1,
        extra,
    );
    wait_logged_in(first.1);
    let b = client(
        config,
        second.0,
        server,
        &format!("{}-2", second.0),
        second.1,
        extra,
    );
    let (sa, oa, ea) = finish(a, "council-csa (first)");
    let (sb, ob, eb) = finish(b, "council-csa (second)");
    assert!(sa.success(), "first client: {sa:?}\n{oa}\n{ea}");
    assert!(sb.success(), "second client: {sb:?}\n{ob}\n{eb}");
    [(oa, ea), (ob, eb)]
}

/// Wait until the client writing to `out` has logged in (its protocol log says so).
fn wait_logged_in(out: &Path) {
    let began = Instant::now();
    while began.elapsed() < PATIENCE {
        let log = std::fs::read_to_string(out.join("protocol.log")).unwrap_or_default();
        if log.contains(" OK") {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no login in {}", out.display());
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a results line"))
        .collect()
}

fn one_result(out: &Path) -> Value {
    let r = results(out);
    assert_eq!(r.len(), 1, "{r:?}");
    r[0].clone()
}

fn ending(r: &Value) -> (&str, &str) {
    (
        r["result"].as_str().expect("result"),
        r["reason"].as_str().expect("reason"),
    )
}

fn record_files(out: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out.join("records"))
        .expect("records folder")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
}

/// The CSA record's move lines.
fn csa_moves(out: &Path) -> usize {
    let csa = record_files(out)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "csa"))
        .expect("a .csa record");
    std::fs::read_to_string(csa)
        .expect("read record")
        .lines()
        .filter(|l| {
            let b = l.as_bytes();
            b.len() >= 7 && matches!(b[0], b'+' | b'-') && b[1].is_ascii_digit()
        })
        .count()
}

fn fixture(name: &str) -> String {
    workspace_root()
        .join("tests/fixtures/csa")
        .join(name)
        .display()
        .to_string()
}

/// A game between two clients: both results lines (sente's client's, gote's), the server's
/// `end` lines, what each client printed (stdout, stderr), and their output folders.
struct PairGame {
    sente: Value,
    gote: Value,
    ends: Vec<String>,
    printed: [(String, String); 2],
    outs: [PathBuf; 2],
}

/// Two clients on one server, checked to tell the same game.
fn pair_game(
    name: &str,
    server_args: &[&str],
    sente: &str,
    gote: &str,
    extra: &[&str],
) -> PairGame {
    let dir = scratch(name);
    let config = config(&dir);
    let server = Server::start(server_args);
    let outs = [dir.join("sente"), dir.join("gote")];
    let printed = play_pair(&server, &config, (sente, &outs[0]), (gote, &outs[1]), extra);
    let ends = server.ends();
    let (s, g) = (one_result(&outs[0]), one_result(&outs[1]));
    assert_eq!(s["moves"], g["moves"], "both clients record the same moves");
    assert_eq!(
        ending(&s),
        ending(&g),
        "both clients record the same ending"
    );
    for out in &outs {
        assert_eq!(csa_moves(out), s["moves"].as_array().map_or(0, Vec::len));
    }
    PairGame {
        sente: s,
        gote: g,
        ends,
        printed,
        outs,
    }
}

#[test]
fn a_council_plays_the_builtin_engine_to_max_moves_with_records_and_a_masked_log() {
    let PairGame {
        sente: s,
        gote: g,
        ends,
        printed,
        outs,
    } = pair_game(
        "council",
        &[
            "--games",
            "1",
            "--total",
            "60",
            "--byoyomi",
            "2",
            "--max-moves",
            "40",
        ],
        "council",
        "engine",
        &[],
    );
    assert_eq!(ending(&s), ("draw", "max_plies"));
    assert_eq!(s["plies"], 40);
    assert_eq!(
        (s["sente"].as_str(), g["gote"].as_str()),
        (Some("council"), Some("engine"))
    );
    assert!(
        s["votes"].as_array().is_some_and(|v| v.len() == 20),
        "one vote per council move: {}",
        s["votes"]
    );
    assert_eq!(ends.len(), 1);
    assert!(ends[0].ends_with("#MAX_MOVES #CENSORED"), "{ends:?}");
    assert!(
        printed[0].0.contains("draw by max_plies after 40 moves"),
        "{}",
        printed[0].0
    );
    let log = std::fs::read_to_string(outs[0].join("protocol.log")).expect("protocol log");
    assert!(!log.contains("pw-secret"), "the password is masked");
    assert!(log.contains("> LOGIN council-1 ********"), "{log}");
    assert!(
        log.contains("< #MAX_MOVES") && log.contains("> AGREE "),
        "{log}"
    );
    for out in &outs {
        let files = record_files(out);
        assert!(
            files
                .iter()
                .any(|f| f.extension().is_some_and(|e| e == "kif")),
            "{files:?}"
        );
        referee_games(out, Some(40));
    }
}

#[test]
fn a_resignation_ends_the_game_for_both() {
    let PairGame { sente: s, ends, .. } = pair_game(
        "resign",
        &["--games", "1", "--total", "60"],
        "resigner",
        "engine",
        &[],
    );
    assert_eq!(ending(&s), ("gote", "resign"));
    assert_eq!(s["plies"], 6, "three moves each, then sente resigns");
    assert!(ends[0].ends_with("#RESIGN #LOSE"), "{ends:?}");
}

#[test]
fn a_player_that_never_answers_loses_on_the_servers_clock_and_the_connection_is_kept_alive() {
    let PairGame {
        sente: s,
        ends,
        outs,
        ..
    } = pair_game(
        "time-up",
        &["--games", "1", "--total", "0", "--byoyomi", "1"],
        "hanger",
        "engine",
        &[],
    );
    assert_eq!(ending(&s), ("gote", "timeout"));
    assert_eq!(s["plies"], 4);
    assert!(ends[0].ends_with("#TIME_UP #LOSE"), "{ends:?}");
    let log = std::fs::read_to_string(outs[0].join("protocol.log")).expect("log");
    assert!(
        log.contains("> (keep-alive)"),
        "an empty line while waiting: {log}"
    );
}

#[test]
fn repeating_players_draw_by_sennichite() {
    let PairGame { sente: s, ends, .. } = pair_game(
        "sennichite",
        &["--games", "1", "--total", "60"],
        "repeater",
        "repeater",
        &[],
    );
    assert_eq!(ending(&s), ("draw", "repetition"));
    assert_eq!(s["plies"], 12, "the start position a fourth time");
    assert!(ends[0].ends_with("#SENNICHITE #DRAW"), "{ends:?}");
}

#[test]
fn an_impasse_declaration_that_holds_wins_by_jishogi() {
    let position = fixture("impasse.csa");
    let PairGame { sente: s, ends, .. } = pair_game(
        "jishogi",
        &["--games", "1", "--total", "60", "--position", &position],
        "declarer",
        "engine",
        &[],
    );
    assert_eq!(ending(&s), ("sente", "impasse"));
    assert_eq!(s["plies"], 0);
    assert!(ends[0].ends_with("#JISHOGI #WIN"), "{ends:?}");
}

#[test]
fn a_player_s_illegal_move_is_never_sent_the_client_resigns_instead() {
    let PairGame { sente: s, ends, .. } = pair_game(
        "cheat",
        &["--games", "1", "--total", "60"],
        "cheat",
        "engine",
        &[],
    );
    assert_eq!(ending(&s), ("gote", "resign"));
    assert!(
        s["detail"]
            .as_str()
            .is_some_and(|d| d.contains("not a legal move")),
        "{}",
        s["detail"]
    );
    assert!(ends[0].ends_with("#RESIGN #LOSE"), "{ends:?}");
}

#[test]
fn a_dropped_connection_leaves_the_moves_so_far_and_a_clear_line() {
    let PairGame {
        sente: s,
        gote: g,
        ends,
        printed,
        ..
    } = pair_game(
        "drop",
        &["--games", "1", "--total", "60", "--drop-after", "6"],
        "engine",
        "engine",
        &[],
    );
    assert_eq!(ending(&s), ("draw", "aborted"));
    assert_eq!(
        (s["plies"].as_u64(), g["plies"].as_u64()),
        (Some(6), Some(6))
    );
    assert!(ends[0].contains("#DROPPED"), "{ends:?}");
    for (_, err) in &printed {
        let line = err
            .lines()
            .find(|l| l.contains("ended without a result"))
            .unwrap_or_else(|| panic!("no clear line: {err}"));
        assert!(
            line.contains("127.0.0.1:")
                && line.contains("after 6 moves")
                && line.contains("connection dropped"),
            "{line}"
        );
    }
}

#[test]
fn a_game_the_server_stops_is_recorded_without_a_result() {
    let PairGame {
        sente: s,
        ends,
        printed,
        ..
    } = pair_game(
        "chudan",
        &["--games", "1", "--total", "60", "--chudan-after", "4"],
        "engine",
        "engine",
        &["--quiet"],
    );
    assert_eq!(ending(&s), ("draw", "aborted"));
    assert_eq!(s["plies"], 4);
    assert!(
        s["detail"].as_str().is_some_and(|d| d.contains("#CHUDAN")),
        "{}",
        s["detail"]
    );
    assert!(ends[0].contains("#CHUDAN"), "{ends:?}");
    assert!(printed[0].0.is_empty(), "--quiet prints no game line");
    assert!(printed[0].1.contains("#CHUDAN"), "{}", printed[0].1);
}

#[test]
fn a_client_reconnects_for_each_of_its_games() {
    let dir = scratch("games");
    let config = config(&dir);
    let server = Server::start(&["--games", "2", "--total", "60", "--max-moves", "6"]);
    let outs = [dir.join("a"), dir.join("b")];
    play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &["--games", "2"],
    );
    assert_eq!(server.ends().len(), 2);
    let lines = results(&outs[0]);
    let ids: Vec<u64> = lines.iter().filter_map(|r| r["id"].as_u64()).collect();
    assert_eq!(ids, vec![0, 1]);
    assert!(lines.iter().all(|r| r["reason"] == "max_plies"));
    let log = std::fs::read_to_string(outs[0].join("protocol.log")).expect("log");
    assert_eq!(log.matches("> LOGIN ").count(), 2, "one login per game");
    assert_eq!(log.matches("> LOGOUT").count(), 2, "one logout per game");

    // Another session into the same folders goes on from the games there: id 2, not 0 again.
    let server = Server::start(&["--games", "1", "--total", "60", "--max-moves", "6"]);
    play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &["--games", "1"],
    );
    for out in &outs {
        let ids: Vec<u64> = results(out)
            .iter()
            .filter_map(|r| r["id"].as_u64())
            .collect();
        assert_eq!(ids, vec![0, 1, 2], "{}", out.display());
    }
}

/// A scripted client on a raw socket: logs in (first, so it plays sente), agrees, and plays
/// `moves` in turn until the server ends the game; returns every line it received.
struct Raw {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Raw {
    fn login(server: &Server) -> Raw {
        let stream = TcpStream::connect(server.address()).expect("connect");
        stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
        let reader = BufReader::new(stream.try_clone().expect("clone"));
        let mut raw = Raw { stream, reader };
        raw.send("LOGIN raw test,x");
        assert_eq!(raw.line(), "LOGIN:raw OK");
        raw
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stream, "{line}").expect("send");
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        self.reader.read_line(&mut l).expect("read");
        l.trim_end().to_string()
    }

    fn play(&mut self, moves: &[&str]) -> Vec<String> {
        let mut seen = Vec::new();
        let id = loop {
            let l = self.line();
            seen.push(l.clone());
            if let Some(id) = l.strip_prefix("Game_ID:") {
                break id.to_string();
            }
        };
        while self.line() != "END Game_Summary" {}
        self.send(&format!("AGREE {id}"));
        assert!(self.line().starts_with("START:"));
        for mv in moves.iter().cycle() {
            self.send(mv);
            // Our move's echo, then the opponent's move, or the end.
            let mut echoes = 0;
            while echoes < 2 {
                let l = self.line();
                seen.push(l.clone());
                if matches!(l.as_str(), "#WIN" | "#LOSE" | "#DRAW" | "#CENSORED" | "") {
                    self.send("LOGOUT");
                    return seen;
                }
                if l.contains(",T") {
                    echoes += 1;
                }
            }
        }
        seen
    }
}

fn raw_against(name: &str, position: &str, moves: &[&str]) -> (Value, Vec<String>, Vec<String>) {
    let dir = scratch(name);
    let config = config(&dir);
    let position = fixture(position);
    let server = Server::start(&["--games", "1", "--total", "60", "--position", &position]);
    let mut raw = Raw::login(&server);
    let out = dir.join("gote");
    let c = client(&config, "engine", &server, "engine", &out, &[]);
    let seen = raw.play(moves);
    let (status, o, e) = finish(c, "council-csa");
    assert!(status.success(), "{status:?}\n{o}\n{e}");
    (one_result(&out), seen, server.ends())
}

#[test]
fn a_pawn_drop_mate_is_an_illegal_move_that_the_opponent_wins_by() {
    let (r, seen, ends) = raw_against("pawn-drop-mate", "pawn-drop-mate.csa", &["+0012FU"]);
    assert!(seen.contains(&"#ILLEGAL_MOVE".to_string()), "{seen:?}");
    assert_eq!(ending(&r), ("gote", "illegal_move"));
    assert_eq!(r["plies"], 0);
    assert!(ends[0].ends_with("#ILLEGAL_MOVE #LOSE"), "{ends:?}");
}

#[test]
fn perpetual_check_loses_for_the_checking_side() {
    let (r, seen, ends) = raw_against(
        "oute-sennichite",
        "perpetual-check.csa",
        &["+9291HI", "+9192HI"],
    );
    assert!(seen.contains(&"#OUTE_SENNICHITE".to_string()), "{seen:?}");
    assert_eq!(ending(&r), ("gote", "perpetual_check"));
    assert_eq!(r["plies"], 12);
    assert!(ends[0].ends_with("#OUTE_SENNICHITE #LOSE"), "{ends:?}");
}
