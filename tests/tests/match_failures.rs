//! `council-match` against misbehaving engines (the scriptable `mock-usi`): the runner survives
//! every failure, records the right reason against the right player, restarts the engine for
//! its next game, and loses no finished game; bad configs fail before any game with one line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{all_gone, workspace_bin};
use serde_json::Value;

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("match-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn mock_player(name: &str, args: &str, extra: &str) -> String {
    format!(
        "[[player]]\nname = \"{name}\"\nkind = \"usi\"\ncommand = \"{}\"\nargs = [{args}]\nnodes = 1\n{extra}\n",
        workspace_bin("mock-usi").display()
    )
}

fn results(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn run_match(config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(workspace_bin("council-match"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--quiet"])
        .args(extra)
        .output()
        .expect("run council-match")
}

const HANGER_ARGS: &str = r#""hang", "--after", "1""#;
// Passes the runner's pre-flight handshake, then never starts again.
const MUTE_ARGS: &str = r#""normal", "--mute-after-first-start""#;

#[test]
fn the_runner_survives_every_kind_of_engine_failure() {
    let dir = scratch("failures");
    // Each misbehaving engine meets a well-behaved one twice (once per colour).
    let offenders: [(&str, &str, &str, &str); 11] = [
        ("crasher", r#""crash-on-go", "--after", "2""#, "", "crash"),
        ("hanger", HANGER_ARGS, "move_timeout_ms = 1000", "timeout"),
        ("garbler", r#""garbage""#, "", "malformed_move"),
        (
            "cheater",
            r#""illegal", "--after", "1""#,
            "",
            "illegal_move",
        ),
        ("quitter", r#""resign", "--after", "3""#, "", "resign"),
        ("boaster", r#""win""#, "", "illegal_impasse"),
        ("mute", MUTE_ARGS, "startup_timeout_ms = 500", "timeout"),
        (
            "sleepy",
            r#""slow-start", "--delay-ms", "300""#,
            "startup_timeout_ms = 5000",
            "",
        ),
        ("chatty", r#""banner""#, "", ""),
        ("flooder", r#""flood""#, "", ""),
        // Answers, but long after its byoyomi and the arbiter's margin: the arbiter's clock.
        (
            "slowpoke",
            r#""normal", "--delay-ms", "1500""#,
            "byoyomi_ms = 200",
            "timeout",
        ),
    ];
    let pid_file = dir.join("children.txt");
    let hanger_args = format!(
        "{HANGER_ARGS}, \"--child-pid-file\", \"{}\"",
        pid_file.display()
    );
    let mute_args = format!("{MUTE_ARGS}, \"{}\"", dir.join("mute-started").display());
    let mut offenders = offenders;
    offenders[1].1 = &hanger_args;
    let mute = offenders
        .iter()
        .position(|o| o.0 == "mute")
        .expect("mute listed");
    offenders[mute].1 = &mute_args;
    let mut config = String::from(
        "[match]\nformat = \"gauntlet\"\ngames = 2\nmax_plies = 12\nplayers = [\"good\"",
    );
    for (name, ..) in &offenders {
        config.push_str(&format!(", \"{name}\""));
    }
    config.push_str("]\n\n");
    config.push_str(&mock_player("good", r#""normal""#, ""));
    for (name, args, extra, _) in &offenders {
        config.push_str(&mock_player(name, args, extra));
    }
    let path = dir.join("failures.toml");
    std::fs::write(&path, config).expect("write config");
    let out = dir.join("out");
    let run = run_match(&path, &out, &["--concurrency", "3"]);
    assert!(
        run.status.success(),
        "council-match failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );

    let games = results(&out);
    assert_eq!(games.len(), 2 * offenders.len(), "every game finished");
    let mut ids: Vec<u64> = games
        .iter()
        .map(|g| g["id"].as_u64().expect("id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..2 * offenders.len() as u64).collect::<Vec<_>>());

    for (name, _, _, reason) in &offenders {
        let theirs: Vec<&Value> = games
            .iter()
            .filter(|g| g["sente"] == *name || g["gote"] == *name)
            .collect();
        assert_eq!(theirs.len(), 2, "{name} played twice");
        for g in theirs {
            let side = if g["sente"] == *name { "sente" } else { "gote" };
            if reason.is_empty() {
                // Well-behaved after all: the game goes the distance.
                assert_eq!(g["reason"], "max_plies", "{name}: {g}");
                continue;
            }
            assert_eq!(g["reason"], *reason, "{name}: {g}");
            let winner = if side == "sente" { "gote" } else { "sente" };
            assert_eq!(g["result"], winner, "{name} is the one that loses: {g}");
        }
    }
    // The crasher dies on its third `go` in each game: its second game got that far too, so
    // it was restarted after the first crash.
    for g in games
        .iter()
        .filter(|g| g["sente"] == "crasher" || g["gote"] == "crasher")
    {
        let crasher_moves = g["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .enumerate()
            .filter(|(i, _)| (i % 2 == 0) == (g["sente"] == "crasher"))
            .count();
        assert_eq!(crasher_moves, 2, "{g}");
    }
    // The hanging engine's own child process died with it: stopping kills the process group.
    if let Err(e) = all_gone(&pid_file) {
        panic!("a stopped engine's child: {e}");
    }
    // Every finished game has its records.
    for id in ids {
        let prefix = format!("{id:04}-");
        let found: Vec<String> = std::fs::read_dir(out.join("records"))
            .expect("records")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect();
        assert!(
            found.iter().any(|n| n.ends_with(".csa")),
            "csa for game {id}: {found:?}"
        );
        assert!(
            found.iter().any(|n| n.ends_with(".kif")),
            "kif for game {id}: {found:?}"
        );
    }
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("summary is JSON");
    let good = summary["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == "good")
        .expect("good in summary");
    // 8 offenders lose both games; the 3 well-behaved ones draw at max_plies.
    assert_eq!(good["wins"], 16);
    assert_eq!(good["draws"], 6);
}

#[test]
fn a_bad_config_fails_before_any_game_with_one_line() {
    let dir = scratch("bad-config");
    let cases: [(&str, &str, &str); 4] = [
        (
            "not-usi.toml",
            "[match]\nplayers = [\"a\", \"b\"]\n[[player]]\nname = \"a\"\nkind = \"usi\"\ncommand = \"cat\"\nstartup_timeout_ms = 300\nnodes = 1\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1\n",
            "player.command",
        ),
        (
            "missing-engine.toml",
            "[match]\nplayers = [\"a\", \"b\"]\n[[player]]\nname = \"a\"\nkind = \"usi\"\ncommand = \"/no/such/engine\"\nnodes = 1\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1\n",
            "command",
        ),
        (
            "typo.toml",
            "[match]\nplayers = [\"a\", \"b\"]\n[[player]]\nname = \"a\"\nkind = \"internal\"\nnodez = 1\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1\n",
            "nodez",
        ),
        (
            "bad-handicap.toml",
            "[match]\nplayers = [\"a\", \"b\"]\nhandicap = \"queen\"\n[[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 1\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1\n",
            "match.handicap",
        ),
    ];
    for (file, text, key) in cases {
        let path = dir.join(file);
        std::fs::write(&path, text).expect("write config");
        let out = dir.join(format!("out-{file}"));
        let run = run_match(&path, &out, &[]);
        assert!(!run.status.success(), "{file} must be rejected");
        let stderr = String::from_utf8_lossy(&run.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line: {stderr}");
        assert!(lines[0].contains(file), "names the file: {stderr}");
        assert!(lines[0].contains(key), "names the key: {stderr}");
        assert!(!out.join("results.jsonl").exists(), "no game was started");
    }
}

/// Run `config` to completion in a fresh folder and return each game's moves by id.
fn moves_by_id(out: &Path) -> BTreeMap<u64, Value> {
    results(out)
        .into_iter()
        .map(|g| (g["id"].as_u64().expect("id"), g["moves"].clone()))
        .collect()
}

#[test]
fn resume_after_sigkill_keeps_finished_games_and_plays_the_rest_once() {
    let dir = scratch("resume");
    let mut config = String::from(
        "[match]\nplayers = [\"a\", \"b\"]\ngames = 12\nmax_plies = 30\nopenings = \"openings.txt\"\n\n",
    );
    config.push_str(&mock_player("a", r#""normal", "--delay-ms", "15""#, ""));
    config.push_str(&mock_player("b", r#""normal", "--delay-ms", "15""#, ""));
    let path = dir.join("resume.toml");
    std::fs::write(&path, config).expect("write config");
    std::fs::write(
        dir.join("openings.txt"),
        "# one opening a line\nstartpos moves 7g7f 3c3d\nstartpos moves 2g2f\nlnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1\n",
    )
    .expect("write openings");

    // The reference: the same run without interruption.
    let reference = dir.join("reference");
    let run = run_match(&path, &reference, &["--concurrency", "2"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = moves_by_id(&reference);
    assert_eq!(expected.len(), 12);

    // Kill the run with SIGKILL once some, but not all, games are finished.
    let out = dir.join("killed");
    let mut child = Command::new(workspace_bin("council-match"))
        .arg(&path)
        .args(["--quiet", "--concurrency", "2", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start council-match");
    let results_path = out.join("results.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let lines = std::fs::read_to_string(&results_path)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 3 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no game finished in time"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL council-match");
    let _ = child.wait();
    let before = std::fs::read_to_string(&results_path).expect("results after kill");
    let kept = before.lines().count();
    assert!(kept < 12, "killed before the end (got {kept} games)");
    // A cut-off last line is what a SIGKILL mid-write leaves: simulate one on top.
    std::fs::write(&results_path, format!("{before}{{\"id\": 99, \"sen")).expect("append junk");

    let run = run_match(&path, &out, &["--concurrency", "2", "--resume"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let after = std::fs::read_to_string(&results_path).expect("results after resume");
    assert!(
        after.starts_with(&before),
        "finished games are kept as they were"
    );
    let games = results(&out);
    assert_eq!(games.len(), 12, "every game exactly once");
    assert_eq!(
        moves_by_id(&out),
        expected,
        "the resumed run played the same games"
    );

    // Resuming a finished run plays nothing more, and still reports the run's speed: games
    // over the time during which games were being played, in every session.
    let summary = |out: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary"))
            .expect("summary is JSON")
    };
    let finished = summary(&out);
    let run = run_match(&path, &out, &["--resume"]);
    assert!(run.status.success());
    assert_eq!(results(&out).len(), 12);
    let again = summary(&out);
    assert_eq!(again["played_this_session"], 0);
    let rate = again["games_per_minute"].as_f64().expect("known games/min");
    assert_eq!(again["games_per_minute"], finished["games_per_minute"]);
    // The same figure from the results lines: 12 games over the union of their intervals.
    let mut spans: Vec<(u64, u64)> = results(&out)
        .iter()
        .map(|g| {
            let start = g["started_unix_ms"].as_u64().expect("start recorded");
            (
                start,
                start + g["wall_ms"].as_u64().expect("duration recorded"),
            )
        })
        .collect();
    spans.sort_unstable();
    let mut playing_ms = 0;
    let mut end = 0;
    for (a, b) in spans {
        playing_ms += b.saturating_sub(a.max(end));
        end = end.max(b);
    }
    let playing = again["playing_seconds"].as_f64().expect("playing time");
    assert!(
        (playing - playing_ms as f64 / 1000.0).abs() < 1e-9,
        "{playing} s"
    );
    assert!(
        (rate - 12.0 / (playing_ms as f64 / 60_000.0)).abs() < 1e-9,
        "{rate} games/min"
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("(0 this session, "), "{stdout}");
    // A fresh run into a folder with results is refused instead of mixing runs.
    let run = run_match(&path, &out, &[]);
    assert!(!run.status.success());
}

#[test]
fn fairness_gives_members_the_whole_budget_or_a_share() {
    let dir = scratch("fairness");
    let mut config = String::from(
        "[match]\nformat = \"gauntlet\"\nplayers = [\"good\", \"full\", \"shared\"]\ngames = 1\nmax_plies = 6\n\n",
    );
    config.push_str(&mock_player("good", r#""normal""#, ""));
    // Members without limits of their own take the council's budget, whole or shared.
    for m in ["m1", "m2"] {
        config.push_str(&format!(
            "[[player]]\nname = \"{m}\"\nkind = \"usi\"\ncommand = \"{}\"\nargs = [\"normal\"]\n\n",
            workspace_bin("mock-usi").display()
        ));
    }
    config.push_str(
        "[[player]]\nname = \"full\"\nkind = \"council\"\nmembers = [\"m1\", \"m2\"]\nfairness = \"full\"\nnodes = 1000\n\n\
         [[player]]\nname = \"shared\"\nkind = \"council\"\nmembers = [\"m1\", \"m2\"]\nfairness = \"shared\"\nnodes = 1000\n",
    );
    let path = dir.join("fairness.toml");
    std::fs::write(&path, &config).expect("write config");
    let out = dir.join("out");
    let run = run_match(&path, &out, &[]);
    assert!(
        run.status.success(),
        "{config}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let games = results(&out);
    let mut seen = 0;
    for g in &games {
        for v in g["votes"].as_array().expect("votes") {
            let expect = if v["council"] == "full" { 1000 } else { 500 };
            for m in v["members"].as_array().expect("members") {
                assert_eq!(m["nodes"], expect, "{v}");
                seen += 1;
            }
        }
    }
    assert!(seen >= 4, "both councils voted");
}

#[test]
fn a_council_with_a_hanging_member_still_moves_in_time_with_the_others() {
    let dir = scratch("council-hang");
    let mut config =
        String::from("[match]\nplayers = [\"council\", \"good\"]\ngames = 2\nmax_plies = 8\n\n");
    config.push_str(&mock_player("good", r#""normal""#, ""));
    // Members without limits of their own take the council's clock.
    for (m, args) in [("hang-m", r#""hang""#), ("ok-m", r#""normal""#)] {
        config.push_str(&format!(
            "[[player]]\nname = \"{m}\"\nkind = \"usi\"\ncommand = \"{}\"\nargs = [{args}]\n\n",
            workspace_bin("mock-usi").display()
        ));
    }
    // The arbiter allows 300 ms + its 1000 ms margin a move; the hanging member must time out
    // early enough for the council to answer with the other member's move.
    config.push_str(
        "[[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"hang-m\", \"ok-m\"]\nbyoyomi_ms = 300\n",
    );
    let path = dir.join("council-hang.toml");
    std::fs::write(&path, &config).expect("write config");
    let out = dir.join("out");
    let run = run_match(&path, &out, &["--concurrency", "1"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let games = results(&out);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(
            g["reason"], "max_plies",
            "the council did not lose on time: {g}"
        );
        let first = &g["votes"][0];
        assert_eq!(first["members"][0]["name"], "hang-m");
        assert!(
            first["members"][0]["error"]
                .as_str()
                .is_some_and(|e| e.contains("timed out")),
            "{first}"
        );
        assert_eq!(first["chosen"], first["members"][1]["mv"], "{first}");
    }
}

#[test]
fn an_engine_that_exits_while_its_child_holds_its_output_crashes_with_its_status() {
    let dir = scratch("exit-with-child");
    let pid_file = dir.join("children.txt");
    // Plays one move a game, then exits with status 7; the `sleep 600` it started keeps its
    // stdout open. The move timeout is long: waiting for the pipe would end as a timeout.
    let args = format!(
        r#""crash-on-go", "--after", "1", "--exit-status", "7", "--child-pid-file", "{}""#,
        pid_file.display()
    );
    let mut config = String::from(
        "[match]\nformat = \"gauntlet\"\nplayers = [\"good\", \"orphaner\"]\ngames = 2\nmax_plies = 12\n\n",
    );
    config.push_str(&mock_player("good", r#""normal""#, ""));
    config.push_str(&mock_player("orphaner", &args, "move_timeout_ms = 60000"));
    let path = dir.join("exit-with-child.toml");
    std::fs::write(&path, &config).expect("write config");
    let out = dir.join("out");
    let run = run_match(&path, &out, &["--concurrency", "2"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let games = results(&out);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["reason"], "crash", "{g}");
        let loser = if g["sente"] == "orphaner" {
            "gote"
        } else {
            "sente"
        };
        assert_eq!(g["result"], loser, "the orphaner loses: {g}");
        let detail = g["detail"].as_str().expect("a detail");
        assert!(
            detail.contains("orphaner") && detail.contains("exited with status 7"),
            "{g}"
        );
        assert!(
            !detail.contains("0ns") && !detail.contains("timed out"),
            "{g}"
        );
    }
    // Every start left a `sleep 600` behind it: all of them were killed with the engine.
    if let Err(e) = all_gone(&pid_file) {
        panic!("{e}");
    }
}

#[test]
fn an_engine_that_exits_before_usiok_while_its_child_holds_its_output_fails_the_start() {
    let dir = scratch("exit-before-usiok");
    let pid_file = dir.join("children.txt");
    let args = format!(
        r#""crash-on-usi", "--exit-status", "5", "--child-pid-file", "{}""#,
        pid_file.display()
    );
    let mut config =
        String::from("[match]\nplayers = [\"good\", \"orphaner\"]\ngames = 2\nmax_plies = 12\n\n");
    config.push_str(&mock_player("good", r#""normal""#, ""));
    // A long start-up timeout: waiting for the pipe to close would end as a timeout.
    config.push_str(&mock_player(
        "orphaner",
        &args,
        "startup_timeout_ms = 60000",
    ));
    let path = dir.join("exit-before-usiok.toml");
    std::fs::write(&path, &config).expect("write config");
    let out = dir.join("out");
    let run = run_match(&path, &out, &[]);
    assert!(!run.status.success(), "the start-up check must fail");
    let stderr = String::from_utf8_lossy(&run.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0].contains("`orphaner`") && lines[0].contains("crashed"),
        "names the engine and the crash: {stderr}"
    );
    assert!(
        lines[0].contains("waiting for usiok: exited with status 5"),
        "says when and with what status it exited: {stderr}"
    );
    assert!(!lines[0].contains("timed out"), "{stderr}");
    assert!(!out.join("results.jsonl").exists(), "no game was started");
    if let Err(e) = all_gone(&pid_file) {
        panic!("{e}");
    }
}

/// Each game's moves as sente and as gote of player `a`, by game id.
fn games_of_a(out: &Path) -> (Vec<Value>, Vec<Value>) {
    let mut as_sente = Vec::new();
    let mut as_gote = Vec::new();
    for g in results(out) {
        if g["sente"] == "a" {
            as_sente.push(g["moves"].clone());
        } else {
            as_gote.push(g["moves"].clone());
        }
    }
    (as_sente, as_gote)
}

#[test]
fn restart_gives_an_engine_that_remembers_a_fresh_process_every_game() {
    let dir = scratch("restart");
    // `a` plays its k-th legal move in the k-th game of a process: without restart its games
    // depend on what its process played before; with `restart = true` every game is its first.
    let write = |name: &str, restart: &str| {
        let mut config =
            String::from("[match]\nplayers = [\"a\", \"b\"]\ngames = 6\nmax_plies = 12\n\n");
        config.push_str(&mock_player("a", r#""remembers""#, restart));
        config.push_str(&mock_player("b", r#""normal""#, ""));
        let path = dir.join(name);
        std::fs::write(&path, config).expect("write config");
        path
    };
    for (name, restart) in [("reuse.toml", ""), ("restart.toml", "restart = true")] {
        let out = dir.join(name.trim_end_matches(".toml"));
        let run = run_match(&write(name, restart), &out, &["--concurrency", "1"]);
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let (as_sente, as_gote) = games_of_a(&out);
        assert_eq!((as_sente.len(), as_gote.len()), (3, 3), "{name}");
        let all_alike = |games: &[Value]| games.iter().all(|g| *g == games[0]);
        if restart.is_empty() {
            assert!(
                !all_alike(&as_sente) && !all_alike(&as_gote),
                "{name}: a reused process should carry the mock's memory into later games"
            );
        } else {
            assert!(
                all_alike(&as_sente) && all_alike(&as_gote),
                "{name}: every game from a fresh process is the same game: {as_sente:?} {as_gote:?}"
            );
        }
    }
}
