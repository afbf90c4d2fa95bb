//! `council-tune` over a council member's vote weight (`weights.NAME`): a simulated tune keeps
//! the weight in its range and replays, a real tune of a majority council of built-in engines at
//! tiny node limits plays the weights it logs (each member's recorded vote carries the weight θ±
//! gave it) and replays exactly, and paths that cannot name a weight are refused by key.

use std::path::{Path, PathBuf};

use council_tests::{run_bin, run_tune, succeeded, tune_iterations, tune_trajectory};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tune-weights-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A majority council `w` of three built-in engines at 40 nodes, `b` weighing 1.5 to begin
/// with, and `weights.b` tuned (θ+ against θ−).
const CONFIG: &str = r#"
[match]
players = ["w", "x"]
max_plies = 80

[[player]]
name = "a"
kind = "internal"
nodes = 40
noise_cp = 200
[[player]]
name = "b"
kind = "internal"
nodes = 40
[[player]]
name = "d"
kind = "internal"
nodes = 40
noise_cp = 100
[[player]]
name = "w"
kind = "council"
members = ["a", "b", "d"]
method = "majority"
weights = { b = 1.5 }
[[player]]
name = "x"
kind = "internal"
nodes = 40

[tune]
player = "w"
iterations = 2
pairs = 1
seed = 3
[[tune.param]]
path = "weights.b"
start = 1.5
min = 0
max = 3
c_end = 0.5
r_end = 0.05
"#;

fn write(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("run.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

fn number(v: &serde_json::Value) -> f64 {
    v.as_f64().expect("a number")
}

#[test]
fn a_simulated_weight_tune_stays_in_range_and_replays() {
    let dir = scratch("simulate");
    let path = write(&dir, &CONFIG.replace("iterations = 2", "iterations = 200"));
    succeeded(&run_bin("council-match", &[&path, &"--check"]));
    succeeded(&run_tune(&path, &dir.join("first"), &["--simulate"]));
    succeeded(&run_tune(&path, &dir.join("second"), &["--simulate"]));
    let lines = tune_iterations(&dir.join("first"));
    assert_eq!(lines.len(), 200);
    for l in &lines {
        for key in ["theta", "plus", "minus"] {
            let v = number(&l[key][0]);
            assert!((0.0..=3.0).contains(&v), "{key} = {v} outside [0, 3]: {l}");
        }
        // A real-valued key: θ+ is θ + c_k·Δ (clipped), not rounded (equal up to the last
        // bits of the logged numbers).
        let (theta, c) = (number(&l["theta"][0]), number(&l["c_k"][0]));
        let plus = (theta + c * number(&l["delta"][0])).clamp(0.0, 3.0);
        assert!((number(&l["plus"][0]) - plus).abs() < 1e-12, "{l}");
    }
    assert_eq!(
        tune_trajectory(&dir.join("first")),
        tune_trajectory(&dir.join("second"))
    );
}

#[test]
fn a_real_weight_tune_plays_the_logged_weights_and_replays() {
    let dir = scratch("real");
    let path = write(&dir, CONFIG);
    let first = dir.join("first");
    let stdout = succeeded(&run_tune(&path, &first, &[]));
    assert!(stdout.contains("2/2 iterations"), "{stdout}");
    let lines = tune_iterations(&first);
    assert_eq!(lines.len(), 2);
    // Game ids 0 and 1 are iteration 0's pair: w+ against w-, colours swapped.
    let plus = number(&lines[0]["plus"][0]);
    let minus = number(&lines[0]["minus"][0]);
    assert_ne!(plus, minus, "θ+ and θ− differ by 2 c_k");
    let text = std::fs::read_to_string(first.join("games.jsonl")).expect("read games.jsonl");
    let mut seen = 0;
    for line in text.lines() {
        let g: serde_json::Value = serde_json::from_str(line).expect("a game line");
        if g["id"].as_u64().expect("an id") >= 2 {
            continue;
        }
        let votes = g["votes"].as_array().expect("the councils' votes");
        assert!(!votes.is_empty(), "the councils voted: {g}");
        for v in votes {
            let council = v["council"].as_str().expect("a council");
            let want = match council {
                "w+" => plus,
                "w-" => minus,
                other => panic!("unexpected council {other}"),
            };
            let members = v["members"].as_array().expect("members");
            let name = |m: &serde_json::Value| m["name"].as_str().expect("a name").to_string();
            let b = members
                .iter()
                .find(|m| name(m) == format!("b{}", &council[1..]))
                .expect("member b voted");
            // A weight other than 1 is recorded; the others' weights are 1 and left out.
            assert_eq!(b["weight"].as_f64().unwrap_or(1.0), want, "{v}");
            for m in members.iter().filter(|m| !name(m).starts_with('b')) {
                assert!(m.get("weight").is_none(), "{m}");
            }
            seen += 1;
        }
    }
    assert!(seen > 0, "iteration 0's games hold council votes");
    // Seeded and deterministic (node limits): a second tune is the same, game for game.
    let second = dir.join("second");
    succeeded(&run_tune(&path, &second, &[]));
    assert_eq!(tune_trajectory(&first), tune_trajectory(&second));
    let games = |out: &Path| {
        let mut v: Vec<String> = std::fs::read_to_string(out.join("games.jsonl"))
            .expect("read games.jsonl")
            .lines()
            .map(|l| {
                let g: serde_json::Value = serde_json::from_str(l).expect("a game line");
                format!("{} {} {}", g["id"], g["result"], g["moves"])
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(games(&first), games(&second));
}

#[test]
fn paths_that_cannot_name_a_weight_are_refused_by_key() {
    let dir = scratch("bad");
    for (from, to, says) in [
        (
            "path = \"weights.b\"",
            "path = \"weights.x\"",
            "not a member",
        ),
        (
            "path = \"weights.b\"",
            "path = \"members.b.weight\"",
            "write weights.b",
        ),
        ("min = 0", "min = -1", "no value below 0"),
        (
            "method = \"majority\"\nweights = { b = 1.5 }",
            "method = \"ml\"",
            "only under majority and approval",
        ),
    ] {
        let text = CONFIG.replacen(from, to, 1);
        assert_ne!(text, CONFIG, "{from:?} is in the good config");
        let path = write(&dir, &text);
        let out = run_bin("council-match", &[&path, &"--check"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{to:?} was accepted");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("key `tune.param[0].") && stderr.contains(says),
            "{to:?}: {stderr}"
        );
    }
}
