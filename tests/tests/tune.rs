//! `council-tune` end to end: the simulated bowl's optimum is found, a seeded tune replays
//! exactly, a tune killed with SIGKILL resumes onto the uninterrupted trajectory, real games are
//! played once each and resume too, a tune split over shards (local processes on one folder)
//! takes the unsharded trajectory, and every bad `[tune]` section is one line naming its key.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use council_tests::{
    run_bin, run_tune, succeeded, tune_iterations, tune_trajectory, workspace_bin,
};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tune-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Players for every config here: `a`, `b` built-in engines, `c` a council of them, `x` a foil.
const PLAYERS: &str = r#"
[[player]]
name = "a"
kind = "internal"
nodes = 60
noise_cp = 250
[[player]]
name = "b"
kind = "internal"
nodes = 60
[[player]]
name = "c"
kind = "council"
members = ["a", "b"]
method = "ml"
[[player]]
name = "x"
kind = "internal"
nodes = 60
"#;

/// A config: `[match]`, the players, then `tune` (the `[tune]` section and its tables).
fn config(dir: &Path, name: &str, tune: &str) -> PathBuf {
    let text = format!("[match]\nplayers = [\"a\", \"x\"]\nmax_plies = 120\n{PLAYERS}\n{tune}\n");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write config");
    path
}

/// Simulated tunes of 1, 2 and 4 parameters end within 10% of each parameter's range of the
/// bowl's optimum, from starts far from it (2000 iterations; the distances measured over three
/// seeds were 0.4% to 6.5% of the range).
#[test]
fn the_simulated_optimum_is_recovered_for_one_two_and_four_parameters() {
    let dir = scratch("optimum");
    let params = [
        // path, start, min, max, c_end, optimum
        ("ml_d", 20.0, 0.0, 400.0, 40.0, 300.0),
        ("members.a.noise_cp", 250.0, 0.0, 300.0, 30.0, 100.0),
        ("members.b.win_rate_t", 300.0, 200.0, 1200.0, 100.0, 900.0),
        ("members.b.sigma", 50.0, 0.0, 500.0, 50.0, 250.0),
    ];
    for n in [1, 2, 4] {
        let mut section = String::from("[tune]\nplayer = \"c\"\niterations = 2000\npairs = 2\n");
        let mut optimum = Vec::new();
        let mut elo = Vec::new();
        for (path, start, min, max, c_end, opt) in &params[..n] {
            section.push_str(&format!(
                "[[tune.param]]\npath = \"{path}\"\nstart = {start}\nmin = {min}\nmax = {max}\n\
                 c_end = {c_end}\nr_end = 0.02\n"
            ));
            optimum.push(format!("\"{path}\" = {opt}"));
            elo.push(format!("\"{path}\" = 400"));
        }
        section.push_str(&format!(
            "[tune.simulate]\noptimum = {{ {} }}\nelo = {{ {} }}\n",
            optimum.join(", "),
            elo.join(", ")
        ));
        let path = config(&dir, &format!("bowl{n}"), &section);
        let out = dir.join(format!("out{n}"));
        let stdout = succeeded(&run_tune(&path, &out, &["--simulate", "--seed", "1"]));
        assert!(stdout.contains("2000/2000 iterations"), "{stdout}");
        let lines = tune_iterations(&out);
        assert_eq!(lines.len(), 2000);
        let last = &lines[1999]["theta_next"];
        for (i, (p, start, min, max, _, opt)) in params[..n].iter().enumerate() {
            let v = last[i].as_f64().expect("a number");
            let tolerance = 0.1 * (max - min);
            assert!(
                (v - opt).abs() <= tolerance,
                "{n} parameters: {p} ended at {v}, optimum {opt} (start {start}, tolerance {tolerance})"
            );
        }
        for (i, (p, ..)) in params[..n].iter().enumerate() {
            let svg = out.join(format!("theta-{i}-{}.svg", p.replace('.', "_")));
            let text =
                std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()));
            assert!(text.contains("<svg"), "{}", svg.display());
        }
    }
}

const ONE_PARAM: &str = r#"
[tune]
player = "a"
iterations = 3000
seed = 5
[[tune.param]]
path = "noise_cp"
start = 250
min = 0
max = 300
c_end = 30
r_end = 0.02
[tune.simulate]
optimum = { noise_cp = 100 }
"#;

#[test]
fn a_seeded_tune_replays_exactly_and_another_seed_does_not() {
    let dir = scratch("replay");
    let path = config(&dir, "one", ONE_PARAM);
    let args = ["--simulate", "--iterations", "300"];
    succeeded(&run_tune(&path, &dir.join("first"), &args));
    succeeded(&run_tune(&path, &dir.join("second"), &args));
    let first = tune_trajectory(&dir.join("first"));
    assert_eq!(first.len(), 300);
    assert_eq!(first, tune_trajectory(&dir.join("second")));
    let other = [&args[..], &["--seed", "6"]].concat();
    succeeded(&run_tune(&path, &dir.join("other"), &other));
    assert_ne!(first, tune_trajectory(&dir.join("other")));
    // The line holds what was played: θ± around θ by c_k·Δ, clipped, rounded (integer key).
    let l = &tune_iterations(&dir.join("first"))[0];
    let theta = l["theta"][0].as_f64().expect("θ");
    let c = l["c_k"][0].as_f64().expect("c_k");
    let d = l["delta"][0].as_f64().expect("Δ");
    let plus = l["plus"][0].as_f64().expect("θ+");
    assert_eq!(plus, (theta + c * d).clamp(0.0, 300.0).round());
}

/// Start `council-tune` and SIGKILL it once `file` in `out` has at least `lines` lines.
fn kill_when(config: &Path, out: &Path, args: &[&str], file: &str, lines: usize) {
    let mut child = Command::new(workspace_bin("council-tune"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start council-tune");
    let path = out.join(file);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let n = std::fs::read_to_string(&path).map_or(0, |t| t.lines().count());
        if n >= lines {
            break;
        }
        assert!(Instant::now() < deadline, "{file} did not grow in time");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL council-tune");
    let _ = child.wait();
}

#[test]
fn a_tune_killed_with_sigkill_resumes_onto_the_uninterrupted_trajectory() {
    let dir = scratch("resume");
    let path = config(&dir, "one", ONE_PARAM);
    let reference = dir.join("reference");
    succeeded(&run_tune(&path, &reference, &["--simulate"]));
    let expected = tune_trajectory(&reference);
    assert_eq!(expected.len(), 3000);

    let out = dir.join("killed");
    kill_when(&path, &out, &["--simulate"], "tune.jsonl", 50);
    let kept = tune_iterations(&out).len();
    assert!(kept < 3000, "killed before the end (got {kept} iterations)");
    // What a SIGKILL mid-write leaves: a cut-off last line.
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join("tune.jsonl"))
        .expect("open tune.jsonl");
    f.write_all(b"{\"k\":").expect("write a torn line");
    drop(f);

    // Another seed or mode is refused by name; the same command resumes.
    let wrong = run_tune(&path, &out, &["--simulate", "--seed", "9"]);
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(stderr.contains("started with seed 5, not 9"), "{stderr}");
    let wrong = run_tune(&path, &out, &[]);
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("mode --simulate, not real games"),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );
    let stdout = succeeded(&run_tune(&path, &out, &["--simulate"]));
    assert!(stdout.contains("resumed at iteration"), "{stdout}");
    assert_eq!(tune_trajectory(&out), expected);
}

/// A tune cut after any iteration resumes onto the uninterrupted trajectory bit for bit: θ read
/// back from `tune.jsonl` is the θ that was written (serde_json's `float_roundtrip`).
#[test]
fn a_tune_cut_anywhere_resumes_bit_for_bit() {
    let dir = scratch("resume-cuts");
    let path = config(
        &dir,
        "one",
        &ONE_PARAM.replace("iterations = 3000", "iterations = 400"),
    );
    let reference = dir.join("reference");
    succeeded(&run_tune(&path, &reference, &["--simulate"]));
    let expected = tune_trajectory(&reference);
    assert_eq!(expected.len(), 400);
    let text = std::fs::read_to_string(reference.join("tune.jsonl")).expect("tune.jsonl");
    let lines: Vec<&str> = text.lines().collect();
    for cut in [1, 37, 64, 99, 150, 201, 333, 399] {
        let out = dir.join(format!("cut-{cut}"));
        std::fs::create_dir_all(&out).expect("a folder");
        // The header and the first `cut` iterations, as a tune stopped there leaves them.
        let kept: String = lines[..=cut].iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(out.join("tune.jsonl"), kept).expect("write the cut tune");
        let stdout = succeeded(&run_tune(&path, &out, &["--simulate"]));
        assert!(stdout.contains("resumed at iteration"), "{stdout}");
        assert_eq!(
            tune_trajectory(&out),
            expected,
            "resumed after {cut} iterations"
        );
    }
}

const REAL: &str = r#"
[tune]
player = "a"
iterations = 4
pairs = 2
seed = 11
[[tune.param]]
path = "noise_cp"
start = 280
min = 0
max = 300
c_end = 40
r_end = 0.05
"#;

/// (id, sente, gote, result, moves) of each game in `games.jsonl`, by id.
fn games(out: &Path) -> Vec<(u64, String)> {
    games_in(out, "games.jsonl")
}

/// As [`games`], of the games file `file` in `out`.
fn games_in(out: &Path, file: &str) -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(out.join(file)).expect("read a games file");
    let mut v: Vec<(u64, String)> = text
        .lines()
        .map(|l| {
            let g: serde_json::Value = serde_json::from_str(l).expect("a game line");
            let key = format!(
                "{} {} {} {}",
                g["sente"], g["gote"], g["result"], g["moves"]
            );
            (g["id"].as_u64().expect("an id"), key)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn real_games_are_played_once_each_and_a_killed_tune_resumes_onto_the_same_trajectory() {
    let dir = scratch("real");
    let path = config(&dir, "real", REAL);
    let reference = dir.join("reference");
    let stdout = succeeded(&run_tune(&path, &reference, &["--concurrency", "2"]));
    assert!(stdout.contains("4/4 iterations"), "{stdout}");
    let lines = tune_iterations(&reference);
    assert_eq!(lines.len(), 4);
    let played = games(&reference);
    // 4 iterations of 2 pairs, each game once, ids 0..16 in order.
    assert_eq!(
        played.iter().map(|g| g.0).collect::<Vec<_>>(),
        (0..16).collect::<Vec<_>>()
    );
    for (k, l) in lines.iter().enumerate() {
        let r = &l["result"]["plus"];
        let n = |key: &str| r[key].as_u64().expect("a count");
        assert_eq!(n("w") + n("l") + n("d"), 4, "iteration {k}: {r}");
        let penta: u64 = r["penta"]
            .as_array()
            .expect("penta")
            .iter()
            .map(|x| x.as_u64().expect("a count"))
            .sum();
        assert_eq!(penta, 2, "iteration {k}: two pairs");
        assert_eq!(
            l["r"].as_f64(),
            Some(n("w") as f64 - n("l") as f64),
            "iteration {k}"
        );
    }
    // θ+ and θ− are the tuned player under its own names, against each other.
    assert!(played[0].1.starts_with("\"a+\" \"a-\""), "{}", played[0].1);
    assert!(played[1].1.starts_with("\"a-\" \"a+\""), "{}", played[1].1);

    let out = dir.join("killed");
    kill_when(&path, &out, &["--concurrency", "2"], "games.jsonl", 5);
    let kept = tune_iterations(&out).len();
    assert!(kept < 4, "killed before the end (got {kept} iterations)");
    succeeded(&run_tune(&path, &out, &["--concurrency", "2"]));
    assert_eq!(tune_trajectory(&out), tune_trajectory(&reference));
    assert_eq!(
        games(&out),
        played,
        "every game once, as in the uninterrupted tune"
    );
}

/// Each bad `[tune]` section: the text replaced in a good one, and the key its error names.
#[test]
fn each_bad_tune_section_is_one_line_naming_the_key() {
    let dir = scratch("bad");
    let good = config(&dir, "good", REAL);
    succeeded(&run_bin("council-match", &[&good, &"--check"]));
    let cases: [(&str, &str, &str); 13] = [
        ("min = 0", "min = 301", "tune.param[0].min"),
        ("start = 280", "start = 400", "tune.param[0].start"),
        (
            "path = \"noise_cp\"",
            "path = \"no_such_key\"",
            "tune.param[0].path",
        ),
        (
            "path = \"noise_cp\"",
            "path = \"method\"",
            "tune.param[0].path",
        ),
        (
            "path = \"noise_cp\"",
            "path = \"ml_d\"",
            "tune.param[0].path",
        ),
        (
            "path = \"noise_cp\"",
            "path = \"members.a.nodes\"",
            "tune.param[0].path",
        ),
        ("c_end = 40\n", "", "tune.param[0].c_end"),
        ("r_end = 0.05", "r_end = 0", "tune.param[0].r_end"),
        ("player = \"a\"", "player = \"nobody\"", "tune.player"),
        ("player = \"a\"\n", "", "tune.player"),
        ("iterations = 4", "iterations = 0", "tune.iterations"),
        ("seed = 11", "seed = 11\nopponent = \"zz\"", "tune.opponent"),
        (
            "r_end = 0.05",
            "r_end = 0.05\ninteger = false",
            "tune.param[0].integer",
        ),
    ];
    for (from, to, key) in cases {
        let text = REAL.replacen(from, to, 1);
        assert_ne!(text, REAL, "{from:?} is in the good section");
        let path = config(&dir, "bad", &text);
        for bin in ["council-match", "council-tune"] {
            let out = if bin == "council-match" {
                run_bin(bin, &[&path, &"--check"])
            } else {
                run_tune(&path, &dir.join("never"), &["--simulate"])
            };
            assert!(!out.status.success(), "{bin}: {to:?} was accepted");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(stderr.trim().lines().count(), 1, "{bin}: {stderr}");
            assert!(
                stderr.contains(&format!("key `{key}`")),
                "{bin}: {to:?} should name `{key}`: {stderr}"
            );
        }
    }
    // An unknown key in [[tune.param]] is refused by name too.
    let path = config(
        &dir,
        "bad",
        &REAL.replacen("c_end = 40", "c_end = 40\nstep = 1", 1),
    );
    let out = run_bin("council-match", &[&path, &"--check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("unknown key `step`"),
        "{stderr}"
    );
}

/// The built-in engine with a silver worth 100 cp on the board (495 by default).
const SILVER: &str = r#"[match]
players = ["a", "b"]
max_plies = 160

[[player]]
name = "a"
kind = "internal"
nodes = 300
options = { Eval_Silver = 100 }

[[player]]
name = "b"
kind = "internal"
nodes = 300

[tune]
player = "a"
iterations = 30
pairs = 2
seed = 1

[[tune.param]]
path = "options.Eval_Silver"
start = 100
min = 0
max = 1000
c_end = 80
r_end = 0.05
"#;

/// A piece value set far below its default moves back up in a short node-limited tune of real
/// games (direction only; node-limited games from the start position replay exactly, so the
/// trajectory is fixed: measured 100 -> 193.8).
#[test]
fn a_piece_value_set_far_off_moves_back_toward_its_default() {
    let dir = scratch("silver");
    let path = dir.join("silver.toml");
    std::fs::write(&path, SILVER).expect("write config");
    let out = dir.join("out");
    succeeded(&run_tune(&path, &out, &["--concurrency", "2"]));
    let lines = tune_iterations(&out);
    assert_eq!(lines.len(), 30);
    let first = &lines[0];
    let (plus, minus) = (first["plus"][0].as_f64(), first["minus"][0].as_f64());
    assert_ne!(plus, minus, "θ+ and θ− play different silvers: {first}");
    let last = lines.last().expect("an iteration")["theta_next"][0]
        .as_f64()
        .expect("θ");
    eprintln!("Eval_Silver: 100 -> {last:.1} (default 495)");
    assert!(last > 130.0, "the silver's value rose towards 495: {last}");
}

/// `options.NAME` of a USI engine must be a spin the engine declares (asked at the start);
/// of an internal player, one of the built-in engine's options in range. One line each,
/// naming the key.
#[test]
fn tuned_options_must_be_spins_the_engine_declares() {
    let dir = scratch("spins");
    let engine = workspace_bin("council-engine");
    let usi = |option: &str| {
        format!(
            "[match]\nplayers = [\"u\", \"b\"]\nmax_plies = 20\n\
             [[player]]\nname = \"u\"\nkind = \"usi\"\ncommand = {engine:?}\nnodes = 50\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 50\n\
             [tune]\nplayer = \"u\"\niterations = 1\n\
             [[tune.param]]\npath = \"options.{option}\"\nstart = 1\nmin = 0\nmax = 2\n\
             c_end = 1\nr_end = 0.1\n"
        )
    };
    for (option, expect) in [
        ("Eval_Queen", "declares no option `Eval_Queen`"),
        ("USI_Ponder", "declares `USI_Ponder`, but not as a spin"),
    ] {
        let path = dir.join("usi.toml");
        std::fs::write(&path, usi(option)).expect("write config");
        let out = run_tune(&path, &dir.join(format!("never-{option}")), &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{option} was accepted");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("key `tune.param[0].path`") && stderr.contains(expect),
            "{stderr}"
        );
    }
    // A declared spin tunes (one iteration of one pair).
    let path = dir.join("usi.toml");
    std::fs::write(&path, usi("Eval_Tempo")).expect("write config");
    succeeded(&run_tune(&path, &dir.join("ok"), &[]));

    for (from, to, key) in [
        (
            "path = \"options.Eval_Silver\"",
            "path = \"options.Eval_Queen\"",
            "tune.param[0].path",
        ),
        ("max = 1000", "max = 5000", "tune.param[0].max"),
    ] {
        let path = dir.join("internal.toml");
        std::fs::write(&path, SILVER.replacen(from, to, 1)).expect("write config");
        let out = run_bin("council-match", &[&path, &"--check"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{to} was accepted");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&format!("key `{key}`")), "{stderr}");
    }
}

/// A council `w` of a built-in engine and council-engine over USI (`u`, started through `sh` so
/// that each start is counted in `starts`), tuning `u`'s vote weight and its `Eval_Silver` spin.
fn kept_config(engine: &Path, starts: &Path, restart: bool) -> String {
    format!(
        r#"[match]
players = ["w", "x"]
max_plies = 300

[[player]]
name = "a"
kind = "internal"
nodes = 60
noise_cp = 200
[[player]]
name = "u"
kind = "usi"
command = "sh"
args = ["-c", "echo started >> '{starts}'; exec '{engine}'"]
seed_option = "NoiseSeed"
options = {{ Eval_Silver = 300, NoiseSD = 50 }}
nodes = 60
restart = {restart}
[[player]]
name = "w"
kind = "council"
members = ["a", "u"]
method = "majority"
weights = {{ u = 1.5 }}
[[player]]
name = "x"
kind = "internal"
nodes = 60

[tune]
player = "w"
iterations = 3
pairs = 2
seed = 5
[[tune.param]]
path = "weights.u"
start = 1.5
min = 0
max = 3
c_end = 0.5
r_end = 0.05
[[tune.param]]
path = "members.u.options.Eval_Silver"
start = 300
min = 100
max = 800
c_end = 60
r_end = 0.05
"#,
        starts = starts.display(),
        engine = engine.display(),
    )
}

/// A tune keeps its engines from game to game: the USI engine starts once per side (θ+, θ−)
/// and game in flight, takes each iteration's spin value by `setoption` between games, and the
/// games and trajectory are exactly those of a tune that starts a fresh engine for every game
/// (`restart = true`, which sends every option at start).
#[test]
fn engines_are_kept_across_games_and_play_as_fresh_ones() {
    let dir = scratch("kept");
    let engine = workspace_bin("council-engine");
    let run = |name: &str, restart: bool, concurrency: &str| {
        let starts = dir.join(format!("{name}.starts"));
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, kept_config(&engine, &starts, restart)).expect("write config");
        let out = dir.join(name);
        succeeded(&run_tune(&path, &out, &["--concurrency", concurrency]));
        let started = std::fs::read_to_string(&starts)
            .expect("the engine started")
            .lines()
            .count();
        (out, started)
    };
    let (kept, kept_starts) = run("kept", false, "1");
    let (fresh, fresh_starts) = run("fresh", true, "2");
    let lines = tune_iterations(&kept);
    assert_eq!(lines.len(), 3);
    // The preflight starts the engine 4 times (the spin check, then `u`, `u+` and `u-` once
    // each); then the kept tune starts one engine per side for all 12 games, the fresh one two
    // per game.
    assert_eq!(kept_starts, 4 + 2, "kept engines");
    assert_eq!(fresh_starts, 4 + 2 * 12, "a fresh engine per game and side");
    assert_ne!(
        lines[0]["plus"][1], lines[1]["plus"][1],
        "Eval_Silver changed between iterations"
    );
    assert_eq!(tune_trajectory(&kept), tune_trajectory(&fresh));
    assert_eq!(games(&kept), games(&fresh));
}

/// `council-tune` on `config` into `out` as shard `shard` (I/N), started, not waited for.
fn start_shard(config: &Path, out: &Path, shard: &str) -> std::process::Child {
    Command::new(workspace_bin("council-tune"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--concurrency", "1", "--shard", shard])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a council-tune shard")
}

fn finished(child: std::process::Child, shard: &str) {
    let out = child.wait_with_output().expect("wait for a shard");
    assert!(
        out.status.success(),
        "shard {shard} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Three shards (local processes) on one folder play each iteration's pairs between them (pair
/// p by shard p mod 3), wait for each other, and take the unsharded trajectory; shard 1 killed
/// with SIGKILL mid-tune and started again rejoins it; a shard left alone stops naming the
/// shard it waited for.
#[test]
fn shards_share_each_iteration_and_take_the_unsharded_trajectory() {
    let dir = scratch("shards");
    let path = config(&dir, "shards", REAL);
    let reference = dir.join("reference");
    succeeded(&run_tune(&path, &reference, &["--concurrency", "1"]));
    let played = games(&reference);

    let out = dir.join("sharded");
    let shards: Vec<_> = (0..3)
        .map(|i| start_shard(&path, &out, &format!("{i}/3")))
        .collect();
    for (i, child) in shards.into_iter().enumerate() {
        finished(child, &format!("{i}/3"));
    }
    assert_eq!(tune_trajectory(&out), tune_trajectory(&reference));
    let mut union = Vec::new();
    for i in 0..3u64 {
        let mine = games_in(&out, &format!("games-shard-{i}.jsonl"));
        assert!(
            mine.iter().all(|(id, _)| (id / 2) % 3 == i),
            "shard {i} plays its pairs only: {mine:?}"
        );
        union.extend(mine);
    }
    union.sort();
    assert_eq!(
        union, played,
        "every game once, as the unsharded tune plays it"
    );
    assert!(!out.join("games.jsonl").exists());

    // Shard 1 killed once it has played a game; started again, it rejoins the others.
    let out = dir.join("killed");
    let mut others: Vec<_> = [0, 2]
        .iter()
        .map(|i| (i, start_shard(&path, &out, &format!("{i}/3"))))
        .collect();
    let mut one = start_shard(&path, &out, "1/3");
    let file = out.join("games-shard-1.jsonl");
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&file).map_or(0, |t| t.lines().count()) < 1 {
        assert!(Instant::now() < deadline, "shard 1 played no game in time");
        std::thread::sleep(Duration::from_millis(5));
    }
    one.kill().expect("SIGKILL shard 1");
    let _ = one.wait();
    assert!(
        tune_iterations(&out).len() < 4,
        "the others wait for shard 1"
    );
    finished(start_shard(&path, &out, "1/3"), "1/3 again");
    for (i, child) in others.drain(..) {
        finished(child, &format!("{i}/3"));
    }
    assert_eq!(tune_trajectory(&out), tune_trajectory(&reference));

    // Alone, shard 0 of 2 plays its pairs of iteration 0, then waits for shard 1 in vain.
    let alone = dir.join("alone");
    let out = run_tune(
        &path,
        &alone,
        &["--concurrency", "1", "--shard", "0/2", "--shard-wait", "1"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("iteration 0") && stderr.contains("shard 1/2"),
        "{stderr}"
    );
}
