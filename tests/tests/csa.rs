//! `council-csa` through the project's CSA test server (`csa-test-server`, which behaves as
//! shogi-server does: a login per game, the connection closed after it, a disconnect lost as a
//! resignation): two clients play each other (or a scripted raw client) for every ending the
//! protocol names, and each game leaves its records, its `results.jsonl` line and a protocol
//! log; the clocks, a stop by SIGTERM, rejected games, reconnection, floodgate's move comments
//! and a pondering council are held to the server too, and so are the network's faults (a
//! silent server, a reset, garbage, a line too long, a close during `LOGIN`), the password's
//! sources and the output folder. Short clocks, small node limits and
//! `--max-moves` keep the file to seconds a game, except the Fischer clock game (about 20 s)
//! and the pondering council's four games (a few minutes).

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
    text.push_str(&usi("slow", r#""normal", "--delay-ms", "150""#));
    // Pondering faults (see `mock-usi`): at their first `go ponder`.
    for fault in ["crash", "deaf", "illegal", "malformed", "early"] {
        text.push_str(&usi(
            &format!("ponder-{fault}"),
            &format!("\"ponder-{fault}\""),
        ));
        text.push_str("ponder = true\n\n");
    }
    text.push_str(&usi("slow-start", r#""slow-start", "--delay-ms", "2500""#));
    // A pondering council of three `council-engine` USI processes (the built-in engine does not
    // ponder in process) and one of them alone, without pondering, as its opponent.
    let engine = workspace_bin("council-engine");
    let member = |name: &str, extra: &str| {
        format!(
            "[[player]]\nname = \"{name}\"\nkind = \"usi\"\ncommand = \"{}\"\n{extra}\n",
            engine.display()
        )
    };
    text.push_str(
        "[[player]]\nname = \"pcouncil\"\nkind = \"council\"\nmembers = [\"p-strong\", \"p-medium\", \"p-weak\"]\nponder = true\n\n",
    );
    text.push_str(&member("p-strong", "sigma = 100.0\nponder = true\n"));
    text.push_str(&member(
        "p-medium",
        "options = { NoiseSD = 60 }\nseed_option = \"NoiseSeed\"\nsigma = 150.0\nponder = true\n",
    ));
    text.push_str(&member(
        "p-weak",
        "options = { NoiseSD = 120 }\nseed_option = \"NoiseSeed\"\nsigma = 200.0\nponder = true\n",
    ));
    text.push_str(&member("single", ""));
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

/// A running `csa-test-server --games N`: its port and its stdout lines. Killed when dropped
/// before it has ended (a failed test leaves no server behind).
struct Server {
    child: Option<Child>,
    port: u16,
    lines: mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
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
        Server {
            child: Some(child),
            port,
            lines,
        }
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's `end <id> <ending> <sente result>` lines, once it has hosted its games.
    fn ends(self) -> Vec<String> {
        self.output()
            .into_iter()
            .filter(|l| l.starts_with("end "))
            .collect()
    }

    /// Every line the server printed after the port, once it has hosted its games.
    fn output(mut self) -> Vec<String> {
        let child = self.child.take().expect("the server runs");
        let (status, _, _) = finish(child, "csa-test-server");
        assert!(status.success(), "csa-test-server: {status:?}");
        // The reader thread sees the end of stdout once the server has exited.
        let mut lines = Vec::new();
        while let Ok(l) = self.lines.recv_timeout(PATIENCE) {
            lines.push(l);
        }
        lines
    }
}

/// Start `council-csa CONFIG PLAYER` on the server as `id`, writing to `out` (the password
/// `test,pw-secret`, the server's default game, unless `extra` gives another).
fn client(
    config: &Path,
    player: &str,
    server: &Server,
    id: &str,
    out: &Path,
    extra: &[&str],
) -> Child {
    let password = if extra.iter().any(|a| a.starts_with("--password")) {
        &[][..]
    } else {
        &["--password", "test,pw-secret"][..]
    };
    client_command(config, player, server, id, out, &[password, extra].concat())
        .spawn()
        .expect("start council-csa")
}

/// The command [`client`] runs without a password of its own (`extra` gives it, or the
/// environment), to add to before it starts.
fn client_command(
    config: &Path,
    player: &str,
    server: &Server,
    id: &str,
    out: &Path,
    extra: &[&str],
) -> Command {
    let mut command = Command::new(workspace_bin("council-csa"));
    command
        .env_remove(PASSWORD_VARIABLE)
        .arg(config)
        .arg(player)
        .args(["--server", &server.address(), "--id", id])
        .arg("--out")
        .arg(out)
        .args(["--keep-alive", "1"])
        .args(if extra.contains(&"--margin-ms") {
            &[][..]
        } else {
            &["--margin-ms", "200"][..]
        })
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Where `council-csa` finds the password when no option gives it.
const PASSWORD_VARIABLE: &str = "COUNCIL_CSA_PASSWORD";

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
    // The log and the records open with the build that wrote them, as `--version` says it.
    let version = Command::new(workspace_bin("council-csa"))
        .arg("--version")
        .output()
        .expect("council-csa --version");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let first = log.lines().next().unwrap_or_default();
    assert!(
        first.ends_with(&format!(" # written by {version}")),
        "{first:?}, --version {version:?}"
    );
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
        for csa in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "csa"))
        {
            let text = std::fs::read_to_string(csa).expect("csa record");
            assert!(text.starts_with(&format!("V2.2\n'{version}\n")), "{text}");
        }
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
    // The server closes the connection after each game without answering LOGOUT, as
    // shogi-server does: a normal end, never a failure in the log.
    assert_eq!(
        log.matches("# the server closed the connection after the game")
            .count(),
        2,
        "{log}"
    );
    assert!(
        !log.contains("reading failed") && !log.contains("cannot write"),
        "{log}"
    );
    // The records' $EVENT is the server's Game_ID.
    for (line, csa) in lines.iter().zip(
        record_files(&outs[0])
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "csa")),
    ) {
        let id = line["detail"]
            .as_str()
            .and_then(|d| d.split(':').next())
            .expect("the detail begins with the game id");
        let text = std::fs::read_to_string(csa).expect("record");
        assert!(text.contains(&format!("$EVENT:{id}\n")), "{id}: {text}");
    }

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
                    // As shogi-server, the test server closes the connection without an
                    // answer: the LOGOUT may meet a closed socket.
                    let _ = writeln!(self.stream, "LOGOUT");
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

/// The protocol log's `# clocks after move N: sente S ms, gote G ms` notes, as
/// `(N, S, G)`.
fn client_clocks(out: &Path) -> Vec<(u64, u64, u64)> {
    let log = std::fs::read_to_string(out.join("protocol.log")).expect("protocol log");
    log.lines()
        .filter_map(|l| {
            let rest = l.split_once("# clocks after move ")?.1;
            let (n, rest) = rest.split_once(": sente ")?;
            let (s, rest) = rest.split_once(" ms, gote ")?;
            let g = rest.strip_suffix(" ms")?;
            Some((n.parse().ok()?, s.parse().ok()?, g.parse().ok()?))
        })
        .collect()
}

/// A scripted sente on a raw socket that plays the first legal move of each position and
/// spends on each move its whole Fischer allowance less 400 ms (room for a loaded machine):
/// the main time left (by the server's `,T` charges) plus the increment, until `max_moves`.
/// Returns the `,T` charges of its moves and the last line the server sent.
fn spend_all_but_400_ms(
    server: &Server,
    game: &str,
    (total, increment): (u64, u64),
    max_moves: usize,
) -> (Vec<u64>, String) {
    use engine::position::Position;
    let stream = TcpStream::connect(server.address()).expect("connect");
    stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut stream = stream;
    let mut line = || {
        let mut l = String::new();
        reader.read_line(&mut l).expect("read");
        l.trim_end().to_string()
    };
    writeln!(stream, "LOGIN spender {game},x").expect("login");
    assert_eq!(line(), "LOGIN:spender OK");
    let id = loop {
        if let Some(id) = line().strip_prefix("Game_ID:") {
            break id.to_string();
        }
    };
    while line() != "END Game_Summary" {}
    writeln!(stream, "AGREE {id}").expect("agree");
    assert!(line().starts_with("START:"));
    let mut pos = Position::startpos();
    let mut remaining = Duration::from_secs(total);
    let mut charged = Vec::new();
    let mut plies = 0;
    loop {
        if plies >= max_moves {
            // `#MAX_MOVES`, then `#CENSORED`.
            loop {
                let l = line();
                if l == "#CENSORED" {
                    return (charged, l);
                }
            }
        }
        let mv = pos.legal_moves()[0];
        let word = engine::record::csa_move(&pos, mv).expect("a CSA word");
        std::thread::sleep(remaining + Duration::from_secs(increment) - Duration::from_millis(400));
        writeln!(stream, "{word}").expect("move");
        // Our move's echo, then the opponent's move, or the end.
        let mut ours = true;
        loop {
            let l = line();
            if l.starts_with('#') && !matches!(l.as_str(), "#MAX_MOVES" | "#TIME_UP" | "#RESIGN") {
                return (charged, l);
            }
            let Some((w, t)) = l.split_once(",T") else {
                continue;
            };
            let usi = engine::record::csa_move_to_usi(&pos, w).expect("a move here");
            pos.play(pos.parse_usi_move(&usi).expect("legal"));
            plies += 1;
            let t: u64 = t.parse().expect("seconds");
            if ours {
                charged.push(t);
                remaining = (remaining + Duration::from_secs(increment))
                    .saturating_sub(Duration::from_secs(t));
                ours = false;
            } else {
                break;
            }
        }
    }
}

#[test]
fn a_fischer_game_keeps_both_clocks_as_the_server_does_when_the_opponent_spends_all_but_400_ms() {
    let dir = scratch("fischer");
    let config = config(&dir);
    // 3 s + 2 s Fischer, from the game name as shogi-server reads it; the client asks for gote
    // (`-W`) though it logs in first.
    let server = Server::start(&["--games", "1", "--max-moves", "10"]);
    let out = dir.join("gote");
    let c = client(
        &config,
        "engine",
        &server,
        "engine",
        &out,
        &["--password", "fischer-3-2F-W,pw"],
    );
    wait_logged_in(&out);
    let (charged, last) = spend_all_but_400_ms(&server, "fischer-3-2F", (3, 2), 10);
    let (status, o, e) = finish(c, "council-csa");
    assert!(status.success(), "{status:?}\n{o}\n{e}");
    // Each move of the spender took its main time left plus the increment, less 400 ms: the
    // server charged it one whole second under that (3 + 2 - 1 = 4 first, then 1 + 2 - 1 = 2)
    // and never flagged it.
    assert_eq!(charged, vec![4, 2, 2, 2, 2], "{last}");
    assert_eq!(last, "#CENSORED");
    let r = one_result(&out);
    assert_eq!(ending(&r), ("draw", "max_plies"));
    assert_eq!(r["gote"], "engine");
    // After every move, both clocks as the client keeps them are the server's.
    let ends = server.output();
    let served: Vec<(u64, u64, u64)> = ends
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.strip_prefix("clock ")?.split(' ').collect();
            Some((w[1].parse().ok()?, w[2].parse().ok()?, w[3].parse().ok()?))
        })
        .collect();
    assert_eq!(served.len(), 10, "{ends:?}");
    assert_eq!(client_clocks(&out), served);
    // The spender's clock stands at 1 s before each of its moves; ours gains 2 s a move.
    assert_eq!(served[0], (1, 1000, 3000));
    assert_eq!(served[9].1, 1000);
}

#[test]
fn a_sigterm_mid_game_records_the_game_so_far_and_the_opponent_wins_as_by_resignation() {
    let dir = scratch("sigterm");
    let config = config(&dir);
    let server = Server::start(&["--games", "1", "--total", "600", "--max-moves", "400"]);
    let outs = [dir.join("stopped"), dir.join("survivor")];
    let a = client(&config, "slow", &server, "slow-1", &outs[0], &[]);
    wait_logged_in(&outs[0]);
    let b = client(&config, "slow", &server, "slow-2", &outs[1], &[]);
    // Wait for a few moves, then stop the first client as a batch scheduler would.
    let began = Instant::now();
    loop {
        let log = std::fs::read_to_string(outs[0].join("protocol.log")).unwrap_or_default();
        if log.matches(",T").count() >= 8 {
            break;
        }
        assert!(began.elapsed() < PATIENCE, "no moves: {log}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &a.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let (sa, _, ea) = finish(a, "council-csa (stopped)");
    let (sb, ob, eb) = finish(b, "council-csa (survivor)");
    assert_eq!(sa.code(), Some(130), "{ea}");
    assert!(sb.success(), "{ob}\n{eb}");
    assert!(ea.contains("SIGTERM"), "{ea}");
    // The stopped client recorded the game so far, without a result, and says who stopped it.
    let r = one_result(&outs[0]);
    assert_eq!(ending(&r), ("draw", "aborted"));
    assert!(r["plies"].as_u64().is_some_and(|n| n >= 4), "{r}");
    assert!(
        r["detail"].as_str().is_some_and(|d| d.contains("SIGTERM")),
        "{}",
        r["detail"]
    );
    assert_eq!(
        csa_moves(&outs[0]),
        r["moves"].as_array().map_or(0, Vec::len)
    );
    // The server hears a disconnect: the survivor wins as by resignation, as on shogi-server.
    let s = one_result(&outs[1]);
    assert_eq!(ending(&s), ("gote", "resign"));
    let log = std::fs::read_to_string(outs[1].join("protocol.log")).expect("log");
    assert!(
        log.contains("< %TORYO\n") || log.contains(" < %TORYO"),
        "{log}"
    );
    assert!(log.contains("< #RESIGN") && log.contains("< #WIN"), "{log}");
    let ends = server.ends();
    assert!(ends[0].ends_with("#RESIGN #LOSE"), "{ends:?}");
}

#[test]
fn a_rejected_game_does_not_count_three_games_are_three_played() {
    let dir = scratch("reject");
    let config = config(&dir);
    let server = Server::start(&["--games", "4", "--max-moves", "6", "--reject-game", "2"]);
    let outs = [dir.join("a"), dir.join("b")];
    let printed = play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &["--games", "3"],
    );
    let ends = server.ends();
    assert_eq!(ends.len(), 4, "{ends:?}");
    assert!(ends[1].contains("#REJECT"), "{ends:?}");
    for (out, (stdout, stderr)) in outs.iter().zip(&printed) {
        let ids: Vec<u64> = results(out)
            .iter()
            .filter_map(|r| r["id"].as_u64())
            .collect();
        assert_eq!(ids, vec![0, 1, 2], "{}", out.display());
        assert!(stderr.contains("was rejected"), "{stderr}");
        assert!(stdout.contains(": 3 games:"), "{stdout}");
    }
}

#[test]
fn a_client_reconnects_with_a_back_off_and_gives_up_after_its_attempts() {
    let dir = scratch("reconnect");
    let config = config(&dir);
    // The server hosts one game and is gone; the client wants two.
    let server = Server::start(&["--games", "1", "--max-moves", "4"]);
    let outs = [dir.join("a"), dir.join("b")];
    let a = client(
        &config,
        "engine",
        &server,
        "a",
        &outs[0],
        &["--games", "2", "--reconnect", "2"],
    );
    wait_logged_in(&outs[0]);
    let b = client(&config, "engine", &server, "b", &outs[1], &[]);
    let (sb, _, eb) = finish(b, "council-csa (one game)");
    assert!(sb.success(), "{eb}");
    let (sa, oa, ea) = finish(a, "council-csa (two games)");
    assert_eq!(sa.code(), Some(1), "{oa}\n{ea}");
    assert!(
        ea.contains("connecting again in 1 s (attempt 1 of 2)")
            && ea.contains("connecting again in 2 s (attempt 2 of 2)"),
        "{ea}"
    );
    assert!(
        ea.lines()
            .last()
            .is_some_and(|l| l.contains("cannot connect")),
        "{ea}"
    );
    assert_eq!(results(&outs[0]).len(), 1, "the game played is recorded");
    let _ = server.ends();
}

#[test]
fn a_stop_watch_game_name_is_refused_before_connecting() {
    let dir = scratch("stop-watch");
    let config = config(&dir);
    let out = Command::new(workspace_bin("council-csa"))
        .arg(&config)
        .arg("engine")
        .args(["--server", "127.0.0.1:1", "--id", "x"])
        .args(["--password", "sw-600-060,secret"])
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("run council-csa");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("`sw-600-060` is a stop-watch game") && !err.contains("secret"),
        "{err}"
    );
}

/// Every move line sent in a protocol log, and the results line of its game.
fn sent_moves(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("protocol.log"))
        .expect("log")
        .lines()
        .filter_map(|l| l.split_once(" > ").map(|(_, sent)| sent.to_string()))
        .filter(|l| l.starts_with('+') || l.starts_with('-'))
        .collect()
}

#[test]
fn every_move_carries_floodgates_comment_score_from_sentes_view_and_the_line_after_it() {
    use engine::position::Position;
    let PairGame {
        sente, gote, outs, ..
    } = pair_game(
        "pv-comment",
        &["--games", "1", "--total", "60", "--max-moves", "20"],
        "council",
        "engine",
        &[],
    );
    // Both clients sent floodgate's comment on every move: `<move>,'* <int> <moves>`, the score
    // the player's from sente's view (as floodgate's records and this project's CSA records
    // write `'**`), the moves legal from the position after the move.
    for (out, r) in outs.iter().zip([&sente, &gote]) {
        let sent = sent_moves(out);
        assert_eq!(sent.len(), 10, "{sent:?}");
        let moves: Vec<&str> = r["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .filter_map(|m| m.as_str())
            .collect();
        let ours = if r["sente"] == "council" { 0 } else { 1 };
        for (k, line) in sent.iter().enumerate() {
            let ply = 2 * k + ours;
            let (word, comment) = line.split_once(",'* ").unwrap_or_else(|| panic!("{line}"));
            let mut words = comment.split(' ');
            let value: i32 = words
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no score: {line}"));
            let score = r["scores"][ply].clone();
            let own = score["cp"]
                .as_i64()
                .unwrap_or_else(|| panic!("ply {ply}: {score}")) as i32;
            assert_eq!(value, if ours == 0 { own } else { -own }, "{line}");
            let mut pos = Position::startpos();
            for m in &moves[..ply] {
                pos.play(pos.parse_usi_move(m).expect("legal"));
            }
            assert_eq!(
                engine::record::csa_move_to_usi(&pos, word).as_deref(),
                Some(moves[ply]),
                "{line}"
            );
            pos.play(pos.parse_usi_move(moves[ply]).expect("legal"));
            for w in words {
                let usi = engine::record::csa_move_to_usi(&pos, w)
                    .unwrap_or_else(|| panic!("`{w}` of `{line}` is not a move here"));
                pos.play(pos.parse_usi_move(&usi).expect("a legal pv"));
            }
        }
    }
}

#[test]
fn pv_comments_can_be_turned_off() {
    let PairGame { outs, .. } = pair_game(
        "pv-comment-off",
        &["--games", "1", "--total", "60", "--max-moves", "6"],
        "engine",
        "engine",
        &["--pv-comment", "off"],
    );
    for out in &outs {
        let sent = sent_moves(out);
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert!(sent.iter().all(|l| !l.contains(',')), "{sent:?}");
    }
}

#[test]
fn a_pondering_council_plays_four_games_at_ten_seconds_and_a_one_second_byoyomi_in_time() {
    let dir = scratch("ponder");
    let config = config(&dir);
    let server = Server::start(&[
        "--games",
        "4",
        "--total",
        "10",
        "--byoyomi",
        "1",
        "--max-moves",
        "60",
    ]);
    let outs = [dir.join("council"), dir.join("single")];
    let margin = ["--games", "4", "--margin-ms", "300"];
    let printed = play_pair(
        &server,
        &config,
        ("pcouncil", &outs[0]),
        ("single", &outs[1]),
        &margin,
    );
    let ends = server.ends();
    assert_eq!(ends.len(), 4, "{ends:?}");
    assert!(ends.iter().all(|e| !e.contains("#TIME_UP")), "{ends:?}");
    let games = results(&outs[0]);
    assert_eq!(games.len(), 4);
    let (mut hits, mut misses) = (0, 0);
    for g in &games {
        assert_ne!(g["reason"], "timeout", "{g}");
        let c = &g["costs"][0];
        assert_eq!(c["player"], "pcouncil");
        hits += c["ponder_hits"].as_u64().unwrap_or(0);
        misses += c["ponder_misses"].as_u64().unwrap_or(0);
    }
    assert!(hits + misses > 0, "the council pondered");
    let summary = printed[0].0.lines().last().unwrap_or_default().to_string();
    assert!(
        summary.starts_with("pcouncil: 4 games:")
            && summary.contains(&format!("({hits} of {})", hits + misses)),
        "{summary}"
    );
    eprintln!("{summary}");
}

#[test]
fn moves_the_server_gives_with_the_summary_are_not_charged() {
    let dir = scratch("from-moves");
    let config = config(&dir);
    let position = fixture("from-moves.csa");
    let server = Server::start(&[
        "--games",
        "1",
        "--total",
        "60",
        "--max-moves",
        "8",
        "--position",
        &position,
    ]);
    let outs = [dir.join("sente"), dir.join("gote")];
    play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &[],
    );
    let served: Vec<(u64, u64, u64)> = server
        .output()
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.strip_prefix("clock ")?.split(' ').collect();
            Some((w[1].parse().ok()?, w[2].parse().ok()?, w[3].parse().ok()?))
        })
        .collect();
    // Six moves played after the two given: both clocks start full (the given moves' 30 s and
    // 20 s are not charged), and each client keeps them as the server does.
    assert_eq!(served.len(), 6);
    assert_eq!(served[0].0, 3);
    for out in &outs {
        assert_eq!(client_clocks(out), served, "{}", out.display());
        let r = one_result(out);
        assert_eq!(r["moves"][0], "7g7f");
        assert_eq!(r["plies"], 8);
    }
    let first = client_clocks(&outs[0])[0];
    assert!(first.1 > 50_000 && first.2 == 60_000, "{first:?}");
}

#[test]
fn the_password_comes_from_a_file_or_the_environment_and_never_from_the_command_line() {
    let dir = scratch("password");
    let config = config(&dir);
    let server = Server::start(&["--games", "1", "--max-moves", "4"]);
    let outs = [dir.join("file"), dir.join("env")];
    // The game name is read from the password: the two clients meet in `secret-60-1`, not in
    // the server's default game, only if each read its password where it was told to.
    let file = dir.join("password.txt");
    std::fs::write(&file, "secret-60-1,pw-in-a-file\nsecond line ignored\n").expect("file");
    let from_file = ["--password-file", file.to_str().expect("a UTF-8 path")];
    let a = client(&config, "engine", &server, "a", &outs[0], &from_file);
    wait_logged_in(&outs[0]);
    let b = client_command(&config, "engine", &server, "b", &outs[1], &[])
        .env(PASSWORD_VARIABLE, "secret-60-1,pw-in-the-environment")
        .spawn()
        .expect("start council-csa");
    for (child, out) in [(a, &outs[0]), (b, &outs[1])] {
        let (status, o, e) = finish(child, "council-csa");
        assert!(status.success(), "{status:?}\n{o}\n{e}");
        let log = std::fs::read_to_string(out.join("protocol.log")).expect("log");
        assert!(!log.contains("pw-in-"), "the password is masked: {log}");
        assert_eq!(results(out).len(), 1);
    }
    let ends = server.ends();
    assert!(ends[0].starts_with("end secret-60-1+a+b+1 "), "{ends:?}");
}

#[test]
fn a_missing_or_empty_password_is_one_clear_line_before_connecting() {
    let dir = scratch("no-password");
    let config = config(&dir);
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "\n").expect("file");
    let missing = dir.join("missing.txt");
    let cases: [(&[&str], &str); 4] = [
        (
            &[],
            "no password: give --password-file PATH, the environment variable COUNCIL_CSA_PASSWORD",
        ),
        (
            &["--password-file", empty.to_str().expect("utf-8")],
            "the first line is empty",
        ),
        (
            &["--password-file", missing.to_str().expect("utf-8")],
            "missing.txt: No such file",
        ),
        (
            &[
                "--password",
                "x",
                "--password-file",
                empty.to_str().expect("utf-8"),
            ],
            "cannot be used with",
        ),
    ];
    for (args, expected) in cases {
        let out = Command::new(workspace_bin("council-csa"))
            .env_remove(PASSWORD_VARIABLE)
            .arg(&config)
            .arg("engine")
            .args(["--server", "127.0.0.1:1", "--id", "x"])
            .args(args)
            .arg("--out")
            .arg(dir.join("out"))
            .output()
            .expect("run council-csa");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        if !expected.contains("cannot be used") {
            assert_eq!(err.lines().count(), 1, "{err}");
        }
        assert!(!dir.join("out").exists(), "nothing is created");
    }
}

#[test]
fn the_test_server_explains_its_options() {
    let out = Command::new(workspace_bin("csa-test-server"))
        .arg("--help")
        .output()
        .expect("run csa-test-server --help");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for option in [
        "--port",
        "--games",
        "--total",
        "--drop-after",
        "--reject-game",
    ] {
        assert!(text.contains(option), "{option}: {text}");
    }
}

/// A `runs/csa-YYYY-MM-DDTHH-MM-SS` folder name.
fn utc_folder_name(name: &str) -> bool {
    let Some(when) = name.strip_prefix("csa-") else {
        return false;
    };
    let shape = "dddd-dd-ddTdd-dd-dd";
    when.len() == shape.len()
        && when.chars().zip(shape.chars()).all(|(c, s)| match s {
            'd' => c.is_ascii_digit(),
            s => c == s,
        })
}

#[test]
fn the_default_folder_is_named_by_the_utc_time_and_made_only_once_connected() {
    let dir = scratch("default-out");
    let config = config(&dir);
    let run_in = |cwd: &Path, server: &str| {
        std::fs::create_dir_all(cwd).expect("cwd");
        Command::new(workspace_bin("council-csa"))
            .current_dir(cwd)
            .env_remove(PASSWORD_VARIABLE)
            .arg(&config)
            .arg("engine")
            .args(["--server", server, "--id", "lone", "--password", "test,x"])
            .args(["--keep-alive", "1", "--margin-ms", "200"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start council-csa")
    };
    // No server there: one line, nothing made.
    let refused = dir.join("refused");
    let (status, _, err) = finish(run_in(&refused, "127.0.0.1:1"), "council-csa (refused)");
    assert_eq!(status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot connect to 127.0.0.1:1"), "{err}");
    assert!(
        !refused.join("runs").exists(),
        "nothing is made before a connection"
    );
    // A game: recorded in runs/csa-<UTC date-time>.
    let server = Server::start(&["--games", "1", "--max-moves", "2"]);
    let here = dir.join("here");
    let a = run_in(&here, &server.address());
    let runs = here.join("runs");
    let began = Instant::now();
    let out = loop {
        let made = std::fs::read_dir(&runs)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .next();
        if let Some(out) = made.filter(|p| p.join("protocol.log").exists()) {
            break out;
        }
        assert!(
            began.elapsed() < PATIENCE,
            "no folder in {}",
            runs.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    wait_logged_in(&out);
    let b = client(&config, "engine", &server, "other", &dir.join("other"), &[]);
    let (sa, oa, ea) = finish(a, "council-csa (default folder)");
    let (sb, _, eb) = finish(b, "council-csa (other)");
    assert!(sa.success() && sb.success(), "{oa}\n{ea}\n{eb}");
    let name = out.file_name().and_then(|n| n.to_str()).expect("a name");
    assert!(utc_folder_name(name), "{name}");
    assert_eq!(std::fs::read_dir(&runs).expect("runs").count(), 1);
    assert_eq!(results(&out).len(), 1);
    let _ = server.ends();
}

/// Two clients of `--games 2` on a server whose first game has a fault (`fault`): the first
/// game's results lines (sente's client's, gote's), the second's, what each printed, and the
/// server's `end` lines.
struct FaultyFirstGame {
    first: [Value; 2],
    second: [Value; 2],
    printed: [(String, String); 2],
    ends: Vec<String>,
    outs: [PathBuf; 2],
}

fn faulty_first_game(name: &str, fault: &[&str], extra: &[&str]) -> FaultyFirstGame {
    let dir = scratch(name);
    let config = config(&dir);
    let mut args = vec!["--games", "2", "--max-moves", "6", "--fault-game", "1"];
    args.extend_from_slice(fault);
    let server = Server::start(&args);
    let outs = [dir.join("sente"), dir.join("gote")];
    let mut extra = extra.to_vec();
    extra.extend_from_slice(&["--games", "2"]);
    let printed = play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &extra,
    );
    let ends = server.ends();
    assert_eq!(ends.len(), 2, "{ends:?}");
    let [a, b] = [results(&outs[0]), results(&outs[1])];
    assert_eq!((a.len(), b.len()), (2, 2), "{a:?}\n{b:?}");
    for r in [&a[1], &b[1]] {
        assert_eq!(
            ending(r),
            ("draw", "max_plies"),
            "the second game is played: {r}"
        );
    }
    FaultyFirstGame {
        first: [a[0].clone(), b[0].clone()],
        second: [a[1].clone(), b[1].clone()],
        printed,
        ends,
        outs,
    }
}

/// The stderr line of a game without a result: it names the server and the moves.
fn no_result_line(stderr: &str, moves: u64) -> &str {
    let line = stderr
        .lines()
        .find(|l| l.contains("ended without a result"))
        .unwrap_or_else(|| panic!("no clear line: {stderr}"));
    assert!(
        line.contains("127.0.0.1:") && line.contains(&format!("after {moves} moves")),
        "{line}"
    );
    line
}

#[test]
fn a_server_that_goes_silent_mid_game_is_left_after_the_read_timeout_and_the_next_game_played() {
    let g = faulty_first_game(
        "silent-game",
        &["--silent-after", "4"],
        &["--read-timeout", "2"],
    );
    assert!(g.ends[0].contains("#SILENT"), "{:?}", g.ends);
    for (r, (_, err)) in g.first.iter().zip(&g.printed) {
        assert_eq!(ending(r), ("draw", "aborted"), "{r}");
        assert_eq!(r["plies"], 4);
        let line = no_result_line(err, 4);
        assert!(
            line.contains("the server went silent: no answer for 2 s"),
            "{line}"
        );
    }
    // Nothing came back, yet every line was written: the connection stayed open.
    for out in &g.outs {
        let log = std::fs::read_to_string(out.join("protocol.log")).expect("log");
        assert!(
            log.contains("no answer for 2 s: the server is silent"),
            "{log}"
        );
    }
    assert_eq!(g.second[0]["id"], 1);
}

#[test]
fn a_server_silent_while_waiting_for_a_game_is_left_and_logged_into_again() {
    let dir = scratch("silent-waiting");
    let config = config(&dir);
    // The first login is answered, then nothing: no game, no keep-alive answered.
    let server = Server::start(&["--games", "1", "--max-moves", "4", "--silent-logins", "1"]);
    let outs = [dir.join("a"), dir.join("b")];
    let printed = play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &["--read-timeout", "2"],
    );
    let err = &printed[0].1;
    assert!(
        err.contains("no answer for 2 s: the server went silent without closing the connection; connecting again in 1 s (attempt 1 of 10)"),
        "{err}"
    );
    let log = std::fs::read_to_string(outs[0].join("protocol.log")).expect("log");
    assert_eq!(log.matches("> LOGIN ").count(), 2, "{log}");
    assert!(log.contains("> (keep-alive)"), "{log}");
    for out in &outs {
        assert_eq!(ending(&one_result(out)), ("draw", "max_plies"));
    }
    assert_eq!(server.ends().len(), 1);
}

#[test]
fn a_connection_reset_mid_move_is_recorded_and_the_next_game_played() {
    let g = faulty_first_game("reset", &["--reset-after", "4"], &[]);
    // Sente's fifth move arrived and its connection was reset: sente's client records the
    // four moves without a result; the server heard a disconnect, and gote won as by
    // resignation.
    assert!(g.ends[0].ends_with("#RESIGN #LOSE"), "{:?}", g.ends);
    assert_eq!(ending(&g.first[0]), ("draw", "aborted"), "{}", g.first[0]);
    assert_eq!(g.first[0]["plies"], 4);
    let line = no_result_line(&g.printed[0].1, 4);
    assert!(line.contains("the connection dropped"), "{line}");
    assert_eq!(ending(&g.first[1]), ("gote", "resign"), "{}", g.first[1]);
    let log = std::fs::read_to_string(g.outs[0].join("protocol.log")).expect("log");
    assert_eq!(
        log.matches("> LOGIN ").count(),
        2,
        "a login for the next game: {log}"
    );
    assert_eq!(g.second[1]["id"], 1);
}

#[test]
fn garbage_from_the_server_is_logged_and_ignored_and_the_game_goes_on() {
    let PairGame { sente, outs, .. } = pair_game(
        "garbage",
        &[
            "--games",
            "1",
            "--total",
            "60",
            "--max-moves",
            "8",
            "--garbage-after",
            "3",
        ],
        "engine",
        "engine",
        &[],
    );
    assert_eq!(ending(&sente), ("draw", "max_plies"));
    assert_eq!(sente["plies"], 8);
    for out in &outs {
        let log = std::fs::read_to_string(out.join("protocol.log")).expect("log");
        assert!(
            log.contains("< \u{fffd}\u{fffd}\u{fffd} not UTF-8")
                && log.contains("control characters")
                && log.contains("< ##[ERROR] unknown command LOREM-IPSUM"),
            "{log}"
        );
    }
}

#[test]
fn an_over_long_line_ends_the_game_without_a_result_and_the_next_game_is_played() {
    let g = faulty_first_game("long-line", &["--long-line-after", "3"], &[]);
    for (r, (_, err)) in g.first.iter().zip(&g.printed) {
        assert_eq!(ending(r), ("draw", "aborted"), "{r}");
        assert_eq!(r["plies"], 3);
        let line = no_result_line(err, 3);
        assert!(
            line.contains("the server sent a line longer than 65536 bytes"),
            "{line}"
        );
    }
    for out in &g.outs {
        let log = std::fs::metadata(out.join("protocol.log")).expect("log");
        assert!(
            log.len() < 64 * 1024,
            "the long line is not kept: {} bytes",
            log.len()
        );
    }
}

#[test]
fn a_server_that_closes_during_login_is_connected_to_again() {
    let dir = scratch("close-at-login");
    let config = config(&dir);
    let server = Server::start(&["--games", "1", "--max-moves", "4", "--close-logins", "1"]);
    let outs = [dir.join("a"), dir.join("b")];
    let printed = play_pair(
        &server,
        &config,
        ("engine", &outs[0]),
        ("engine", &outs[1]),
        &[],
    );
    let err = &printed[0].1;
    assert!(
        err.contains("the server closed the connection before answering LOGIN; connecting again in 1 s (attempt 1 of 10)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    for out in &outs {
        assert_eq!(ending(&one_result(out)), ("draw", "max_plies"));
    }
    assert_eq!(server.ends().len(), 1);
}

/// Whether this machine lets a test mount a tmpfs in a user and mount namespace of its own
/// (`unshare`), as the disk tests do; the reason when not.
fn can_mount(dir: &Path) -> Result<(), String> {
    let probe = dir.join("probe");
    std::fs::create_dir_all(&probe).expect("probe folder");
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg("mount -t tmpfs -o size=4k tmpfs \"$0\"")
        .arg(&probe)
        .output();
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Err(format!("unshare: {e}")),
    }
}

/// `inner` run in a namespace of its own where `mount` (a shell command, its target `"$0"`)
/// has mounted `target` first.
fn with_mount(inner: &Command, mount: &str, target: &Path) -> Command {
    let mut c = Command::new("unshare");
    c.args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(format!("{mount} \"$0\" && exec \"$@\""))
        .arg(target)
        .arg(inner.get_program())
        .args(inner.get_args())
        .env_remove(PASSWORD_VARIABLE)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Whether this process runs as root (who writes into a folder of mode 555 all the same).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// One client of `--games 2` beside one of `--games 1`, the first started by `start` (its
/// command as `client_command` makes it) and, when its protocol log can be read from here
/// (`sente`), logged in first: the first's exit, stdout, stderr, and both folders.
fn faulty_disk_pair(
    dir: &Path,
    sente: bool,
    start: impl FnOnce(Command) -> Child,
) -> ((std::process::ExitStatus, String, String), [PathBuf; 2]) {
    let config = config(dir);
    let server = Server::start(&["--games", "1", "--max-moves", "40"]);
    let outs = [dir.join("faulty"), dir.join("other")];
    let command = client_command(
        &config,
        "engine",
        &server,
        "faulty",
        &outs[0],
        &["--password", "test,x", "--games", "2"],
    );
    let a = start(command);
    if sente {
        wait_logged_in(&outs[0]);
    }
    let b = client(&config, "engine", &server, "other", &outs[1], &[]);
    let (sb, ob, eb) = finish(b, "council-csa (other)");
    assert!(sb.success(), "{ob}\n{eb}");
    let first = finish(a, "council-csa (faulty disk)");
    assert_eq!(server.ends().len(), 1);
    (first, outs)
}

#[test]
fn a_protocol_log_that_fills_the_disk_mid_game_keeps_the_game_and_stops_in_one_line() {
    let dir = scratch("disk-full");
    if let Err(why) = can_mount(&dir) {
        println!("skipped: no tmpfs can be mounted here to fill ({why})");
        return;
    }
    // The protocol log lives on a tmpfs of one page (4 KiB), which a game of 40 moves
    // outgrows: its writes fail with ENOSPC mid-game; records and results.jsonl have room.
    let small = dir.join("small");
    std::fs::create_dir_all(&small).expect("mount point");
    let out = dir.join("faulty");
    std::fs::create_dir_all(&out).expect("out");
    std::os::unix::fs::symlink(small.join("protocol.log"), out.join("protocol.log"))
        .expect("symlink");
    // The log is on the namespace's tmpfs, out of the test's sight: the first to log in plays
    // sente, whichever it is.
    let ((status, stdout, stderr), outs) = faulty_disk_pair(&dir, false, |inner| {
        with_mount(&inner, "mount -t tmpfs -o size=4k tmpfs", &small)
            .spawn()
            .expect("start council-csa under unshare")
    });
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let r = one_result(&outs[0]);
    assert_eq!(
        ending(&r),
        ("draw", "max_plies"),
        "the game in play was played out"
    );
    assert!(
        last.contains(&format!(
            "cannot write {}: No space left on device",
            outs[0].join("protocol.log").display()
        )) && last.contains(&format!(
            "is kept in {} and {}; stopping",
            outs[0].join("records").display(),
            outs[0].join("results.jsonl").display()
        )),
        "{last}"
    );
    assert_eq!(csa_moves(&outs[0]), 40);
    assert!(stdout.contains(": 1 games:"), "no second game: {stdout}");
}

/// `results.jsonl` on a full disk (`/dev/full`: every write fails with ENOSPC): the game is
/// played out and kept in its records and the protocol log, and the client stops in one line
/// naming the file and where the game is.
#[test]
fn a_results_file_on_a_full_disk_keeps_the_game_in_its_records_and_stops_in_one_line() {
    let dir = scratch("results-full");
    let faulty = dir.join("faulty");
    std::fs::create_dir_all(&faulty).expect("out");
    let results = faulty.join("results.jsonl");
    std::os::unix::fs::symlink("/dev/full", &results).expect("symlink to /dev/full");
    let ((status, stdout, stderr), outs) = faulty_disk_pair(&dir, true, |mut inner| {
        inner.spawn().expect("start council-csa")
    });
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    let naming: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("results.jsonl"))
        .collect();
    assert!(
        naming.len() == 1
            && naming[0].contains(&format!(
                "cannot write {}: No space left on device",
                results.display()
            ))
            && naming[0].contains(&format!(
                "is kept in {} and {}; stopping",
                outs[0].join("records").display(),
                outs[0].join("protocol.log").display()
            )),
        "{stderr}"
    );
    assert_eq!(record_files(&outs[0]).len(), 2, "its CSA and KIF records");
    assert!(stdout.contains(": 1 games:"), "no second game: {stdout}");
}

/// The engine log on a full disk (`/dev/full`: every write fails with ENOSPC): its first line,
/// the session's note, cannot be written, and the client stops before its first game in one
/// line naming the file (the log's own warning is not a second one).
#[test]
fn an_engine_log_on_a_full_disk_stops_the_client_before_its_first_game_in_one_line() {
    let dir = scratch("engine-log-full");
    let config = config(&dir);
    let server = Server::start(&["--games", "1"]);
    let out = dir.join("faulty");
    let child = client(
        &config,
        "engine",
        &server,
        "faulty",
        &out,
        &["--log", "/dev/full"],
    );
    let (status, stdout, stderr) = finish(child, "council-csa (engine log on a full disk)");
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    let naming: Vec<&str> = stderr.lines().filter(|l| l.contains("/dev/full")).collect();
    assert!(
        naming.len() == 1
            && naming[0].contains("No space left on device")
            && naming[0].contains("stopping before the next game"),
        "{stderr}"
    );
    assert!(
        !out.join("results.jsonl").exists(),
        "no game played: {stdout}"
    );
}

#[test]
fn a_read_only_records_folder_keeps_the_game_in_results_and_the_log_and_stops_in_one_line() {
    let dir = scratch("read-only");
    let records = dir.join("faulty").join("records");
    std::fs::create_dir_all(&records).expect("records");
    let mounted = can_mount(&dir);
    if let Err(why) = &mounted
        && is_root()
    {
        println!(
            "skipped: root writes into a folder of mode 555, and no read-only tmpfs can be mounted here ({why})"
        );
        return;
    }
    let ((status, stdout, stderr), outs) = faulty_disk_pair(&dir, true, |inner| match &mounted {
        Ok(()) => with_mount(&inner, "mount -t tmpfs -o ro,size=4k tmpfs", &records)
            .spawn()
            .expect("start council-csa under unshare"),
        Err(_) => {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&records, std::fs::Permissions::from_mode(0o555))
                .expect("chmod");
            let mut inner = inner;
            inner.spawn().expect("start council-csa")
        }
    });
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let line = stderr.trim_end();
    let record = outs[0].join("records").join("0000-engine-vs-other.csa");
    assert!(
        line.contains(&format!("cannot write {} (and .kif): ", record.display()))
            && (line.contains("Read-only file system") || line.contains("Permission denied"))
            && line.contains(&format!(
                "is kept in {} and {}; stopping",
                outs[0].join("results.jsonl").display(),
                outs[0].join("protocol.log").display()
            )),
        "{line}"
    );
    let r = one_result(&outs[0]);
    assert_eq!(ending(&r), ("draw", "max_plies"));
    let log = std::fs::read_to_string(outs[0].join("protocol.log")).expect("log");
    assert!(
        log.contains("< #CENSORED"),
        "the whole game is in the log: {log}"
    );
    assert!(stdout.contains(": 1 games:"), "no second game: {stdout}");
}

#[test]
fn the_first_connection_waits_for_the_engines_without_a_keep_alive_before_login() {
    // The engine takes 2.5 s to start (preflight), the keep-alive is 1 s: the connection made
    // before the start sends nothing until LOGIN (an empty line in place of a LOGIN is no
    // keep-alive), then keeps alive as usual.
    let PairGame { outs, .. } = pair_game(
        "slow-start",
        &["--games", "1", "--total", "60", "--max-moves", "2"],
        "slow-start",
        "engine",
        &[],
    );
    let log = std::fs::read_to_string(outs[0].join("protocol.log")).expect("log");
    let sent: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split_once(" > ").map(|(_, line)| line))
        .collect();
    assert!(
        sent.first().is_some_and(|l| l.starts_with("LOGIN ")),
        "{log}"
    );
}

/// Each pondering fault (`mock-usi`'s `ponder-*`, at its first `go ponder`) ends the game by
/// the offender's resignation at its next move, its fault in the detail; nothing illegal is
/// ever sent to the server.
#[test]
fn a_pondering_fault_is_the_offenders_resignation_with_the_fault_named() {
    for (fault, words) in [
        ("crash", "exited with status 3"),
        ("deaf", "did not answer `stop`"),
        ("illegal", "not a legal move"),
        ("malformed", "5e5%"),
        ("early", "while pondering"),
    ] {
        let name = format!("ponder-{fault}");
        let PairGame { sente: s, ends, .. } = pair_game(
            &name,
            &["--games", "1", "--total", "60"],
            &name,
            "engine",
            &[],
        );
        assert_eq!(ending(&s), ("gote", "resign"), "{name}: {s}");
        assert!(
            s["detail"].as_str().is_some_and(|d| d.contains(words)),
            "{name}: {}",
            s["detail"]
        );
        assert!(ends[0].ends_with("#RESIGN #LOSE"), "{name}: {ends:?}");
    }
}
