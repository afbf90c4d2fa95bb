//! council-tune's engine log, end to end: `--log FILE` holds every engine's lines in both
//! directions under the games they belong to and one `#` verdict per game played, and a rerun
//! of the same command appends to it; `log = true` on one player writes the tune folder's
//! `engines.log` with that player's lines only; a log that cannot be written (a full disk, one
//! that fills up mid-tune) stops the tune in one line naming it, and the same command with room
//! finishes it. The engines are mock-usi over USI, kept from game to game by the tune.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{
    assert_stopped_naming, run_tune, succeeded, tune_iterations, tune_trajectory, workspace_bin,
};
use serde_json::Value;

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tune-engine-log-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A tune of the USI player `u` (its `nodes`) against the USI opponent `v`, both mock-usi:
/// 2 iterations of 1 pair each for θ+ and θ− against `v` (4 games an iteration). `u_extra` and
/// `v_extra` are more keys of `u` and `v`.
fn config(dir: &Path, u_extra: &str, v_extra: &str) -> PathBuf {
    let mock = workspace_bin("mock-usi");
    let text = format!(
        "[match]\nplayers = [\"u\", \"v\"]\nmax_plies = 16\n\n\
         [[player]]\nname = \"u\"\nkind = \"usi\"\ncommand = {mock:?}\nargs = [\"normal\"]\nnodes = 20\n{u_extra}\n\n\
         [[player]]\nname = \"v\"\nkind = \"usi\"\ncommand = {mock:?}\nargs = [\"normal\"]\nnodes = 1\n{v_extra}\n\n\
         [tune]\nplayer = \"u\"\nopponent = \"v\"\niterations = 2\npairs = 1\nseed = 3\n\
         [[tune.param]]\npath = \"nodes\"\nstart = 20\nmin = 1\nmax = 40\nc_end = 5\nr_end = 0.1\n"
    );
    let path = dir.join("tune.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// The ids of the games in the tune folder's `games.jsonl`.
fn game_ids(out: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(out.join("games.jsonl"))
        .expect("games.jsonl")
        .lines()
        .map(|l| {
            let g: Value = serde_json::from_str(l).expect("a game is JSON");
            g["id"].to_string()
        })
        .collect()
}

/// One engine log line: `<seconds>.<millis> <game> <player> <direction> <text>`.
struct Line {
    game: String,
    who: String,
    dir: String,
    text: String,
}

fn lines(text: &str) -> Vec<Line> {
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.splitn(5, ' ').collect();
            assert_eq!(f.len(), 5, "{line}");
            let (secs, millis) = f[0].split_once('.').expect("seconds.millis");
            assert!(secs.parse::<u64>().is_ok() && millis.len() == 3, "{line}");
            assert!([">", "<", "!", "#"].contains(&f[3]), "{line}");
            Line {
                game: f[1].into(),
                who: f[2].into(),
                dir: f[3].into(),
                text: f[4].into(),
            }
        })
        .collect()
}

/// The games with a verdict line (`<id> - # result ...`), each id once, and how many there are.
fn verdicts(lines: &[Line]) -> (BTreeSet<String>, usize) {
    let v: Vec<&Line> = lines
        .iter()
        .filter(|l| l.who == "-" && l.dir == "#" && l.text.starts_with("result "))
        .collect();
    (v.iter().map(|l| l.game.clone()).collect(), v.len())
}

/// Per engine, the directions of its lines inside games (not the pre-flight's).
fn in_game_directions(lines: &[Line]) -> BTreeMap<String, BTreeSet<String>> {
    let mut by: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in lines.iter().filter(|l| l.game != "-" && l.who != "-") {
        by.entry(l.who.clone()).or_default().insert(l.dir.clone());
    }
    by
}

#[test]
fn the_log_holds_every_engine_both_ways_and_one_verdict_per_game_and_a_rerun_appends() {
    let dir = scratch("every");
    let path = config(&dir, "", "");
    let out = dir.join("out");
    let log = dir.join("engines.log");
    let log_arg = log.to_str().expect("a UTF-8 path");
    succeeded(&run_tune(
        &path,
        &out,
        &["--concurrency", "2", "--log", log_arg],
    ));
    assert_eq!(tune_iterations(&out).len(), 2);
    let ids = game_ids(&out);
    assert_eq!(ids.len(), 8, "2 iterations of 4 games");
    let first = std::fs::read_to_string(&log).expect("the log");
    let parsed = lines(&first);
    // Every line of a game is under one of the games played.
    for l in &parsed {
        assert!(l.game == "-" || ids.contains(&l.game), "{}", l.text);
    }
    // Each engine the games kept (θ+, θ−, the opponent), tagged by its name, was written to
    // and read from inside games.
    let both: BTreeSet<String> = [">", "<"].map(String::from).into();
    let by = in_game_directions(&parsed);
    for who in ["u+", "u-", "v"] {
        assert!(
            by.get(who).is_some_and(|d| d.is_superset(&both)),
            "{who}: {by:?}\n{first}"
        );
    }
    assert_eq!(
        by.keys().collect::<Vec<_>>(),
        ["u+", "u-", "v"],
        "no other engine plays"
    );
    let (with_verdict, count) = verdicts(&parsed);
    assert_eq!(
        (&with_verdict, count),
        (&ids, ids.len()),
        "one verdict per game"
    );
    // The run's note with its command line comes first.
    assert!(
        parsed[0].game == "-" && parsed[0].dir == "#" && parsed[0].text.contains("--log"),
        "{first}"
    );

    // The same command again (a finished tune's rerun) appends: its pre-flight follows the
    // first session's lines, which are kept as they were.
    succeeded(&run_tune(
        &path,
        &out,
        &["--concurrency", "2", "--log", log_arg],
    ));
    let second = std::fs::read_to_string(&log).expect("the log");
    assert!(second.len() > first.len() && second.starts_with(&first));
    let (_, count) = verdicts(&lines(&second));
    assert_eq!(count, ids.len(), "no game was played again");
}

#[test]
fn log_true_on_one_player_writes_the_folders_engines_log_with_its_lines_only() {
    let dir = scratch("one");
    let path = config(&dir, "log = true", "");
    let out = dir.join("out");
    succeeded(&run_tune(&path, &out, &["--concurrency", "2"]));
    let text = std::fs::read_to_string(out.join("engines.log")).expect("DIR/engines.log");
    let parsed = lines(&text);
    // `u` (the pre-flight's), θ+ and θ− are copies of `u`; the opponent never shows.
    for l in &parsed {
        assert!(["-", "u", "u+", "u-"].contains(&l.who.as_str()), "{text}");
    }
    let both: BTreeSet<String> = [">", "<"].map(String::from).into();
    let by = in_game_directions(&parsed);
    for who in ["u+", "u-"] {
        assert!(
            by.get(who).is_some_and(|d| d.is_superset(&both)),
            "{who}: {text}"
        );
    }
    // Every game has θ+ or θ− on one side: each has its verdict.
    let ids = game_ids(&out);
    assert_eq!(verdicts(&parsed), (ids.clone(), ids.len()));
}

#[test]
fn an_engine_log_on_a_full_disk_stops_the_tune_in_one_line_naming_it() {
    let dir = scratch("full");
    let path = config(&dir, "", "");
    let out = dir.join("out");
    // Linux's /dev/full fails every write with ENOSPC, as a full disk does.
    let run = run_tune(&path, &out, &["--log", "/dev/full"]);
    assert_stopped_naming(&run, "/dev/full", "No space left on device");
    assert!(
        tune_iterations(&out).is_empty(),
        "no iteration without its log"
    );

    // The folder's engines.log (`log = true`) on a full disk stops it the same way.
    let path = config(&dir, "log = true", "");
    let out = dir.join("out-log-true");
    std::fs::create_dir_all(&out).expect("out");
    std::os::unix::fs::symlink("/dev/full", out.join("engines.log")).expect("symlink");
    let run = run_tune(&path, &out, &[]);
    assert_stopped_naming(&run, "engines.log", "No space left on device");
}

/// A disk that fills up mid-tune, without a mount: the tune runs under a file size limit
/// (`ulimit -f`, SIGXFSZ ignored, so a write past it fails with EFBIG) of half the reference's
/// engine log, which its games outgrow mid-tune; the same command with room finishes it onto
/// the reference's trajectory, every game once.
#[test]
fn an_engine_log_that_fills_up_mid_tune_stops_it_in_one_line_and_the_rerun_finishes_it() {
    let dir = scratch("mid-run");
    let path = config(&dir, "", "");
    let reference = dir.join("reference");
    let reference_log = dir.join("reference.log");
    let log_arg = reference_log.to_str().expect("a UTF-8 path");
    succeeded(&run_tune(&path, &reference, &["--log", log_arg]));
    let whole = std::fs::metadata(&reference_log).expect("the log").len();
    // sh's `ulimit -f` counts blocks of 512 bytes.
    let blocks = (whole / 2 / 512).to_string();
    let out = dir.join("limited");
    let log = dir.join("limited.log");
    let run = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f \"$0\" && exec \"$@\""])
        .arg(&blocks)
        .arg(workspace_bin("council-tune"))
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .arg("--log")
        .arg(&log)
        .arg("--quiet")
        .output()
        .expect("run council-tune under a file size limit");
    let name = log.to_str().expect("a UTF-8 path");
    assert_stopped_naming(&run, name, "File too large");
    assert!(
        game_ids(&out).len() < 8,
        "the tune stopped before its last game"
    );
    succeeded(&run_tune(&path, &out, &["--log", name]));
    assert_eq!(tune_trajectory(&out), tune_trajectory(&reference));
    assert_eq!(game_ids(&out), game_ids(&reference), "every game once");
}
