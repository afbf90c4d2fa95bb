//! `council-match` and `council-tune` when a file they write cannot be written (a full disk, a
//! path taken by a folder): the run stops starting games, says in one line which file failed and
//! why (one line, not a warning and then the error), exits non-zero and loses no finished game;
//! `--resume` (council-tune: the same command again) once the file can be written finishes the
//! run with the same games as a run that never stopped. Linux's `/dev/full` stands in for a full
//! disk (every write fails with ENOSPC), and a file size limit (`ulimit -f`) for one that fills
//! up mid-run, so no mount is needed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{
    assert_stopped_naming, run_tune, succeeded, tune_iterations, tune_trajectory, workspace_bin,
};
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

/// `council-match CONFIG --out OUT --quiet --concurrency 2 EXTRA...`.
fn run_match(config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    council_tests::council_match(config, out, &[&["--concurrency", "2"], extra].concat())
}

/// Each game's moves by id, from `results.jsonl` (every line must be whole JSON).
fn moves_by_id(out: &Path) -> BTreeMap<u64, Value> {
    moves_in(&out.join("results.jsonl"))
}

/// Each game's moves by id, from a results file (every line must be whole JSON).
fn moves_in(file: &Path) -> BTreeMap<u64, Value> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
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

#[test]
fn a_results_file_on_a_full_disk_stops_the_run_before_any_game_is_committed() {
    let (dir, config) = scratch("results");
    let expected = reference(&dir, &config);
    let out = dir.join("full");
    std::fs::create_dir_all(&out).expect("out");
    let results = out.join("results.jsonl");
    std::os::unix::fs::symlink("/dev/full", &results).expect("symlink to /dev/full");
    let run = run_match(&config, &out, &[]);
    assert_stopped_naming(&run, "results.jsonl", "No space left on device");
    // Room again: the first game's line never made it, so the resumed run plays every game.
    std::fs::remove_file(&results).expect("remove the symlink");
    resume_plays_the_same_games(&config, &out, &[], &expected);
}

#[test]
fn a_pgn_file_on_a_full_disk_stops_the_run_before_its_game_is_committed() {
    // -pgnout is a fastchess / Shogitest flag: the run is given as flags.
    let (dir, _) = scratch("pgnout");
    let engines = ["a", "b"].map(|name| {
        let path = dir.join(name);
        std::os::unix::fs::symlink(workspace_bin("council-engine"), &path).expect("link");
        path.display().to_string()
    });
    let flags = |out: &Path, pgn: &str| {
        let mut args: Vec<String> = Vec::new();
        for engine in &engines {
            args.extend(["-engine".into(), format!("cmd={engine}"), "nodes=50".into()]);
        }
        args.extend(
            [
                "-rounds",
                "4",
                "-maxmoves",
                "24",
                "-srand",
                "5",
                "-concurrency",
                "2",
            ]
            .map(String::from),
        );
        args.extend(["-pgnout".into(), format!("file={pgn}")]);
        args.extend(["--out".into(), out.display().to_string(), "--quiet".into()]);
        args
    };
    let play = |args: Vec<String>| {
        Command::new(workspace_bin("council-match"))
            .args(args)
            .output()
            .expect("run council-match")
    };
    let reference = dir.join("reference");
    let pgn = dir.join("games.pgn").display().to_string();
    succeeded(&play(flags(&reference, &pgn)));
    let expected = moves_by_id(&reference);
    assert_eq!(expected.len(), GAMES);
    std::fs::remove_file(&pgn).expect("remove the reference's pgn");

    let out = dir.join("full");
    std::os::unix::fs::symlink("/dev/full", &pgn).expect("symlink to /dev/full");
    let run = play(flags(&out, &pgn));
    assert_stopped_naming(&run, "games.pgn", "No space left on device");
    // The pseudo-PGN is written with the records, before the game's results line: no game
    // whose PGN failed is committed.
    assert!(moves_by_id(&out).is_empty(), "no game committed");
    std::fs::remove_file(&pgn).expect("remove the symlink");
    // Room again: the same command line with --resume, at another concurrency.
    let mut resume = flags(&out, &pgn);
    resume.extend(["--resume", "-concurrency", "1"].map(String::from));
    succeeded(&play(resume));
    assert_eq!(
        moves_by_id(&out),
        expected,
        "the resumed run played the same games"
    );
    let text = std::fs::read_to_string(&pgn).expect("the pgn file");
    assert_eq!(
        text.matches("[PlyCount ").count(),
        GAMES,
        "a PGN game per game: {text}"
    );
}

#[test]
fn a_summary_on_a_full_disk_stops_in_one_line_with_every_game_kept_and_resume_writes_it() {
    let (dir, config) = scratch("summary");
    let expected = reference(&dir, &config);
    let out = dir.join("full");
    std::fs::create_dir_all(&out).expect("out");
    let summary = out.join("summary.json");
    std::os::unix::fs::symlink("/dev/full", &summary).expect("symlink to /dev/full");
    let run = run_match(&config, &out, &[]);
    assert_stopped_naming(&run, "summary.json", "No space left on device");
    assert_eq!(moves_by_id(&out), expected, "every game kept");
    std::fs::remove_file(&summary).expect("remove the symlink");
    resume_plays_the_same_games(&config, &out, &[], &expected);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).expect("summary.json"))
            .expect("summary.json is JSON");
    assert_eq!(written["games"], GAMES, "{written}");
}

/// A tune's folder for one test, with its config: the built-in `a` tuned against `x`, 4
/// iterations of 2 colour-swapped pairs.
fn tune_scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tune-disk-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    let config = "[match]\nplayers = [\"a\", \"x\"]\nmax_plies = 60\n\
        [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 60\nnoise_cp = 250\n\
        [[player]]\nname = \"x\"\nkind = \"internal\"\nnodes = 60\n\
        [tune]\nplayer = \"a\"\niterations = 4\npairs = 2\nseed = 11\n\
        [[tune.param]]\npath = \"noise_cp\"\nstart = 280\nmin = 0\nmax = 300\nc_end = 40\nr_end = 0.05\n";
    let path = dir.join("tune.toml");
    std::fs::write(&path, config).expect("write config");
    (dir, path)
}

fn tune(config: &Path, out: &Path) -> std::process::Output {
    run_tune(config, out, &["--concurrency", "2"])
}

/// The same tune in a folder with room: its trajectory and its games.
fn tune_reference(dir: &Path, config: &Path) -> (Vec<String>, BTreeMap<u64, Value>) {
    let out = dir.join("reference");
    succeeded(&tune(config, &out));
    let games = moves_in(&out.join("games.jsonl"));
    assert_eq!(games.len(), 16, "4 iterations of 2 pairs");
    (tune_trajectory(&out), games)
}

/// Running the tune again in `out` (room again) finishes it onto the reference's trajectory with
/// the reference's games.
fn rerun_finishes_the_tune(
    config: &Path,
    out: &Path,
    reference: &(Vec<String>, BTreeMap<u64, Value>),
) {
    succeeded(&tune(config, out));
    assert_eq!(tune_trajectory(out), reference.0, "the same trajectory");
    assert_eq!(
        moves_in(&out.join("games.jsonl")),
        reference.1,
        "the same games, each once"
    );
}

#[test]
fn a_tune_whose_games_file_is_on_a_full_disk_stops_in_one_line_and_the_rerun_finishes_it() {
    let (dir, config) = tune_scratch("games");
    let reference = tune_reference(&dir, &config);
    let out = dir.join("full");
    std::fs::create_dir_all(&out).expect("out");
    let games = out.join("games.jsonl");
    std::os::unix::fs::symlink("/dev/full", &games).expect("symlink to /dev/full");
    let run = tune(&config, &out);
    assert_stopped_naming(&run, "games.jsonl", "No space left on device");
    assert!(
        tune_iterations(&out).is_empty(),
        "no iteration is written without its games"
    );
    std::fs::remove_file(&games).expect("remove the symlink");
    rerun_finishes_the_tune(&config, &out, &reference);
}

/// A disk that fills up mid-run, without a mount: the tune runs under a file size limit
/// (`ulimit -f`, SIGXFSZ ignored, so a write past it fails with EFBIG) of half the reference's
/// `games.jsonl`, which its games outgrow mid-tune, leaving a torn last line.
#[test]
fn a_tune_whose_games_file_fills_up_mid_run_stops_in_one_line_and_the_rerun_finishes_it() {
    let (dir, config) = tune_scratch("mid-run");
    let reference = tune_reference(&dir, &config);
    let whole = std::fs::metadata(dir.join("reference").join("games.jsonl"))
        .expect("the reference's games")
        .len();
    // sh's `ulimit -f` counts blocks of 512 bytes.
    let blocks = (whole / 2 / 512).to_string();
    let out = dir.join("limited");
    let run = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f \"$0\" && exec \"$@\""])
        .arg(&blocks)
        .arg(workspace_bin("council-tune"))
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--concurrency", "2"])
        .output()
        .expect("run council-tune under a file size limit");
    assert_stopped_naming(&run, "games.jsonl", "File too large");
    let kept = tune_iterations(&out).len();
    assert!(
        (1..4).contains(&kept),
        "stopped mid-tune, after {kept} iterations"
    );
    rerun_finishes_the_tune(&config, &out, &reference);
}

#[test]
fn a_tune_log_on_a_full_disk_stops_the_tune_before_its_first_game() {
    let (dir, config) = tune_scratch("log");
    let reference = tune_reference(&dir, &config);
    let out = dir.join("full");
    std::fs::create_dir_all(&out).expect("out");
    let log = out.join("tune.jsonl");
    std::os::unix::fs::symlink("/dev/full", &log).expect("symlink to /dev/full");
    let run = tune(&config, &out);
    assert_stopped_naming(&run, "tune.jsonl", "No space left on device");
    assert!(
        moves_in(&out.join("games.jsonl")).is_empty(),
        "no game is played without the tune's log"
    );
    std::fs::remove_file(&log).expect("remove the symlink");
    rerun_finishes_the_tune(&config, &out, &reference);
}

#[test]
fn a_parameter_chart_that_cannot_be_written_stops_the_tune_in_one_line_with_every_iteration_kept() {
    let (dir, config) = tune_scratch("svg");
    let reference = tune_reference(&dir, &config);
    let out = dir.join("blocked");
    std::fs::create_dir_all(&out).expect("out");
    let svg = out.join("theta-0-noise_cp.svg");
    // A full disk, then a folder in the chart's place: each is one line, the iterations kept.
    std::os::unix::fs::symlink("/dev/full", &svg).expect("symlink to /dev/full");
    let run = tune(&config, &out);
    assert_stopped_naming(&run, "theta-0-noise_cp.svg", "No space left on device");
    assert_eq!(tune_trajectory(&out), reference.0, "every iteration kept");
    std::fs::remove_file(&svg).expect("remove the symlink");
    std::fs::create_dir(&svg).expect("a folder in the chart's place");
    let run = tune(&config, &out);
    assert_stopped_naming(&run, "theta-0-noise_cp.svg", "Is a directory");
    std::fs::remove_dir(&svg).expect("remove the folder");
    rerun_finishes_the_tune(&config, &out, &reference);
    let text = std::fs::read_to_string(&svg).expect("the chart is drawn");
    assert!(text.contains("<svg"), "{text}");
}
