//! What `council-match` tells a person who watches it, the way a user runs it (stdout to a pipe,
//! as `> log 2>&1` or a Slurm job has it): a line per finished game and standings every N games
//! while it plays, the closing table with an interval or `n/a` for every rating, nothing but the
//! table with `--quiet`; the engine log (`--log FILE`, `log = true`); extending a finished run;
//! the interruption message with the command that resumes, and that command; SIGTERM ending a
//! page served after the run.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use council_tests::workspace_bin;
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("console-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A head-to-head of two mock engines, `games` games of at most 8 plies; `extra` goes into
/// player `b`'s table; `delay_ms` slows each move of `a`.
fn config(dir: &Path, games: u64, delay_ms: u64, extra: &str) -> PathBuf {
    let mock = workspace_bin("mock-usi");
    let text = format!(
        "[match]\nplayers = [\"a\", \"b\"]\ngames = {games}\nmax_plies = 8\nseed = 3\n\n\
         [[player]]\nname = \"a\"\nkind = \"usi\"\ncommand = \"{m}\"\nargs = [\"normal\", \"--delay-ms\", \"{delay_ms}\"]\nnodes = 1\n\n\
         [[player]]\nname = \"b\"\nkind = \"usi\"\ncommand = \"{m}\"\nargs = [\"normal\"]\nnodes = 1\n{extra}\n",
        m = mock.display()
    );
    let path = dir.join("mock.toml");
    std::fs::write(&path, text).expect("write the config");
    path
}

fn council_match(config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(workspace_bin("council-match"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run council-match")
}

fn ok(o: &std::process::Output) -> (String, String) {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{:?}\n{stdout}\n{stderr}", o.status);
    (stdout, stderr)
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_piped_run_prints_a_line_per_game_and_standings_every_n_games() {
    let dir = scratch("lines");
    let cfg = config(&dir, 12, 0, "");
    let out = dir.join("run");
    let (stdout, stderr) = ok(&council_match(
        &cfg,
        &out,
        &["--concurrency", "2", "--report-every", "5"],
    ));
    let games = results(&out);
    let finished: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Finished game "))
        .collect();
    assert_eq!(finished.len(), 12, "{stdout}");
    // One line per game of results.jsonl, with its players, result, reason and plies.
    for g in &games {
        let head = format!(
            "Finished game {} ({} vs {}): ",
            g["id"],
            g["sente"].as_str().expect("sente"),
            g["gote"].as_str().expect("gote")
        );
        let line = finished
            .iter()
            .find(|l| l.starts_with(&head))
            .unwrap_or_else(|| panic!("no line for game {}: {stdout}", g["id"]));
        let reason = g["reason"].as_str().expect("a reason");
        assert!(line.contains(reason), "{line}");
        assert!(
            line.contains(&format!(", {} plies, ", g["plies"])),
            "{line}"
        );
        let result = g["result"].as_str().expect("a result");
        let said = if result == "draw" {
            "draw by".to_string()
        } else {
            format!("{result} (")
        };
        assert!(line.contains(&said), "{line}");
    }
    // Standings after the 5th and the 10th finished game, each with a rating or n/a for both.
    let standings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Standings after "))
        .collect();
    assert_eq!(standings.len(), 2, "{stdout}");
    assert!(standings[0].starts_with("Standings after 5 of 12 games: "));
    assert!(standings[0].contains("n/a (") && !standings[0].contains(" ± "));
    assert!(standings[1].starts_with("Standings after 10 of 12 games: "));
    for p in ["a ", "b "] {
        assert!(standings[1].contains(p), "{}", standings[1]);
    }
    let rated = standings[1].matches(" ± ").count() + standings[1].matches("n/a (").count();
    assert_eq!(rated, 2, "{}", standings[1]);
    // The lines come before the closing table, which has an interval or n/a for every rating.
    let table = stdout.find(" #  player").expect("the closing table");
    assert!(stdout.rfind("Finished game ").expect("lines") < table);
    for row in stdout[table..].lines().skip(1).take(2) {
        assert!(row.contains(" ± ") || row.contains("n/a"), "{row}");
    }
    // No progress bar when stderr is not a terminal.
    assert!(
        !stderr.contains('\r') && !stderr.contains("games ["),
        "{stderr}"
    );

    // --quiet: the closing table only.
    let quiet = dir.join("quiet");
    let (stdout, _) = ok(&council_match(&cfg, &quiet, &["--quiet"]));
    assert!(!stdout.contains("Finished game") && !stdout.contains("Standings after"));
    assert!(stdout.contains(" #  player"), "{stdout}");
    // The same games either way: the console does not touch the play.
    let moves = |out: &Path| -> Vec<(Value, Value)> {
        let mut v: Vec<(Value, Value)> = results(out)
            .into_iter()
            .map(|g| (g["id"].clone(), g["moves"].clone()))
            .collect();
        v.sort_by_key(|(id, _)| id.as_u64());
        v
    };
    assert_eq!(moves(&out), moves(&quiet));
}

#[test]
fn the_engine_log_has_every_line_of_every_engine_under_its_game() {
    let dir = scratch("log");
    let cfg = config(&dir, 2, 0, "");
    let out = dir.join("run");
    let log = dir.join("engines.log");
    ok(&council_match(
        &cfg,
        &out,
        &["--quiet", "--log", log.to_str().expect("a UTF-8 path")],
    ));
    let text = std::fs::read_to_string(&log).expect("the log");
    let ids: Vec<String> = results(&out).iter().map(|g| g["id"].to_string()).collect();
    let mut bestmoves = std::collections::BTreeMap::<(String, String), usize>::new();
    for line in text.lines() {
        let f: Vec<&str> = line.splitn(5, ' ').collect();
        assert_eq!(f.len(), 5, "{line}");
        let (secs, millis) = f[0].split_once('.').expect("seconds.millis");
        assert!(secs.parse::<u64>().is_ok() && millis.len() == 3, "{line}");
        assert!(f[1] == "-" || ids.contains(&f[1].to_string()), "{line}");
        assert!(["a", "b", "-"].contains(&f[2]), "{line}");
        assert!([">", "<", "!", "#"].contains(&f[3]), "{line}");
        if f[3] == "<" && f[4].starts_with("bestmove ") {
            *bestmoves.entry((f[1].into(), f[2].into())).or_default() += 1;
        }
    }
    // Every move of every game is there, under its game and its player.
    for g in results(&out) {
        let moves = g["moves"].as_array().expect("moves").len();
        let by = |p: &str| {
            bestmoves
                .get(&(g["id"].to_string(), p.to_string()))
                .copied()
                .unwrap_or(0)
        };
        assert_eq!(by("a") + by("b"), moves, "game {}", g["id"]);
    }
    assert!(text.lines().next().is_some_and(|l| l.contains(" - - # ")));
    assert!(text.contains(" - a > usi\n") && text.contains(" a # started pid "));

    // `log = true` on one player: the run folder's engines.log, that player's lines only.
    let cfg = config(&dir, 2, 0, "log = true");
    let out = dir.join("run-log-true");
    ok(&council_match(&cfg, &out, &["--quiet"]));
    let text = std::fs::read_to_string(out.join("engines.log")).expect("engines.log");
    assert!(text.contains(" b < bestmove "), "{text}");
    assert!(
        text.lines().all(|l| l.split(' ').nth(2) != Some("a")),
        "{text}"
    );
}

/// Every game of the engine log ends with its verdict, a `#` line under its id: result,
/// reason, plies and the arbiter's detail, as `results.jsonl` has them. One run ends a game by
/// checkmate (the built-in engine over USI mates at once from a mate-in-1 start), one by
/// adjudication (the mock's score 0 meets `mu = 0` on its fourth move) and one by a time loss
/// (the mock that hangs on its second move); each engine's `bestmove` is under the game of the
/// `go` it answers.
#[test]
fn the_engine_log_ends_every_game_with_its_verdict() {
    let dir = scratch("verdicts");
    let mock = workspace_bin("mock-usi");
    let text = format!(
        "[match]\nformat = \"gauntlet\"\nplayers = [\"engine\", \"mock\", \"hang\"]\ngames = 2\n\
         max_plies = 40\nstart = \"4k4/9/4P4/9/9/9/9/9/4K4 b G 1\"\n\
         resign = {{ model = \"shueso\", mu = 0.0, sigma = 100.0, moves = 4 }}\n\n\
         [[player]]\nname = \"engine\"\nkind = \"usi\"\ncommand = \"{e}\"\nnodes = 2000\n\n\
         [[player]]\nname = \"mock\"\nkind = \"usi\"\ncommand = \"{m}\"\nargs = [\"normal\"]\nnodes = 1\n\n\
         [[player]]\nname = \"hang\"\nkind = \"usi\"\ncommand = \"{m}\"\nargs = [\"hang\", \"--after\", \"1\"]\n\
         nodes = 1\nmove_timeout_ms = 500\n",
        e = workspace_bin("council-engine").display(),
        m = mock.display()
    );
    let cfg = dir.join("verdicts.toml");
    std::fs::write(&cfg, text).expect("write the config");
    let out = dir.join("run");
    let log = dir.join("engines.log");
    ok(&council_match(
        &cfg,
        &out,
        &[
            "--quiet",
            "--concurrency",
            "1",
            "--log",
            log.to_str().expect("a UTF-8 path"),
        ],
    ));
    let text = std::fs::read_to_string(&log).expect("the log");
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.splitn(5, ' ').collect()).collect();
    let games = results(&out);
    let mut reasons: Vec<&str> = games.iter().filter_map(|g| g["reason"].as_str()).collect();
    reasons.sort_unstable();
    reasons.dedup();
    assert_eq!(
        reasons,
        ["adjudication", "checkmate", "timeout"],
        "{games:?}"
    );
    for g in &games {
        let id = g["id"].to_string();
        let verdicts: Vec<&str> = lines
            .iter()
            .filter(|f| f[1] == id && f[2] == "-" && f[3] == "#")
            .map(|f| f[4])
            .collect();
        let wanted = format!(
            "result {} reason {} plies {} detail {}",
            g["result"].as_str().expect("result"),
            g["reason"].as_str().expect("reason"),
            g["plies"],
            g["detail"].as_str().expect("detail")
        );
        assert_eq!(verdicts, [wanted.as_str()], "game {id}");
    }
    // Each engine's bestmove is under the game of its latest go.
    let mut go_game = std::collections::BTreeMap::<&str, &str>::new();
    for f in &lines {
        if f[3] == ">" && f[4].starts_with("go") {
            go_game.insert(f[2], f[1]);
        }
        if f[3] == "<" && f[4].starts_with("bestmove") {
            assert_eq!(go_game.get(f[2]), Some(&f[1]), "{}", f.join(" "));
        }
    }
}

#[test]
fn resume_with_more_games_extends_a_finished_run_with_the_same_games() {
    let dir = scratch("extend");
    let cfg = config(&dir, 2, 0, "");
    let out = dir.join("run");
    ok(&council_match(&cfg, &out, &["--quiet", "--games", "4"]));
    let before = std::fs::read_to_string(out.join("results.jsonl")).expect("results");
    let (stdout, _) = ok(&council_match(
        &cfg,
        &out,
        &["--quiet", "--resume", "--games", "8"],
    ));
    assert!(stdout.contains("(4 this session, "), "{stdout}");
    let after = std::fs::read_to_string(out.join("results.jsonl")).expect("results");
    assert!(after.starts_with(&before), "the first games are kept");
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(
        (info["games"].as_u64(), info["plan"]["games"].as_u64()),
        (Some(8), Some(8))
    );
    // As if started with --games 8: the same games, ids and seeds.
    let whole = dir.join("whole");
    ok(&council_match(&cfg, &whole, &["--quiet", "--games", "8"]));
    let games = |out: &Path| -> Vec<(Value, Value, Value)> {
        let mut v: Vec<_> = results(out)
            .into_iter()
            .map(|g| (g["id"].clone(), g["seed"].clone(), g["moves"].clone()))
            .collect();
        v.sort_by_key(|(id, _, _)| id.as_u64());
        v
    };
    assert_eq!(games(&out), games(&whole));
    // Fewer games than the run's: refused, saying what can be done.
    let o = council_match(&cfg, &out, &["--quiet", "--resume", "--games", "2"]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("can extend it (a larger --games)"),
        "{stderr}"
    );
}

fn sigterm(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// The child's exit status, waiting at most two minutes (a liveness bound, not a timing
/// assert).
fn exited(child: &mut Child) -> std::process::ExitStatus {
    for _ in 0..1200 {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("council-match did not end");
}

#[test]
fn an_interrupted_run_says_how_to_resume_and_that_command_resumes_it() {
    let dir = scratch("interrupt");
    let cfg = config(&dir, 8, 100, "");
    let out = dir.join("run");
    let mut child = Command::new(workspace_bin("council-match"))
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .args(["--concurrency", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start council-match");
    // The first game's line, then SIGTERM.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    while !line.starts_with("Finished game ") {
        line.clear();
        assert!(
            stdout.read_line(&mut line).expect("read") > 0,
            "no game finished"
        );
    }
    sigterm(&child);
    let status = exited(&mut child);
    assert_eq!(status.code(), Some(130));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("stderr");
    let lines: Vec<&str> = stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "council-match: interrupted; finishing the writes. Resume with:")
        .unwrap_or_else(|| panic!("the message on a line of its own:\n{stderr}"));
    let command = lines[at + 1].trim();
    assert!(
        command.contains(" --resume") && command.contains(&format!("--out {}", out.display())),
        "{command}"
    );
    let played = results(&out).len();
    assert!((1..8).contains(&played), "{played} games");

    // The command as printed, word for word (no word here needs quoting), finishes the run.
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(Path::new(words[0]), workspace_bin("council-match"));
    let o = Command::new(words[0])
        .args(&words[1..])
        .output()
        .expect("run the resume command");
    ok(&o);
    assert_eq!(results(&out).len(), 8);
}

#[test]
fn sigterm_ends_a_page_served_after_the_run() {
    let dir = scratch("serve");
    let cfg = config(&dir, 2, 0, "");
    let out = dir.join("run");
    let mut child = Command::new(workspace_bin("council-match"))
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--serve", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start council-match");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    while !line.contains("its live page stays up") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).expect("read") > 0,
            "the run never ended"
        );
    }
    sigterm(&child);
    assert!(exited(&mut child).success());
}
