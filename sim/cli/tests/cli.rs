//! `council-sim` run the way a user runs it: the JSON keys docs/reference/files.md promises, the seed
//! replaying on any thread count, figures written, and bad input refused with a clear message.

use std::process::{Command, Output};

use serde_json::Value;

fn council_sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_council-sim"))
        .args(args)
        .output()
        .expect("council-sim runs")
}

fn json(args: &[&str]) -> Value {
    let out = council_sim(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn has(v: &Value, path: &[&str]) {
    let mut cur = v;
    for key in path {
        cur = cur
            .get(key)
            .unwrap_or_else(|| panic!("missing key {path:?} in {v}"));
    }
}

/// The JSON without the keys that measure time.
fn without_timing(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        for k in [
            "seconds",
            "threads",
            "games_per_second",
            "trials_per_second",
        ] {
            m.remove(k);
        }
    }
    v
}

#[test]
fn game_length_json_has_the_promised_keys_and_replays_on_any_thread_count() {
    let args = ["game-length", "--games", "150000", "--json", "--seed", "9"];
    let v = json(&[&args[..], &["--threads", "1"]].concat());
    for key in ["mean", "sd", "m3", "m4", "skewness", "excess_kurtosis"] {
        has(&v, &["length", key]);
    }
    for p in [
        &["random_walk", "mean"][..],
        &["random_walk", "sd"],
        &["gamma", "shape"],
        &["gamma", "scale"],
        &["gamma", "m3"],
        &["gamma", "m4"],
        &["games_per_second"],
    ] {
        has(&v, p);
    }
    assert_eq!(v["seed"], 9);
    let two = json(&[&args[..], &["--threads", "2"]].concat());
    assert_eq!(without_timing(v), without_timing(two));
}

#[test]
fn fit_prints_a_m_s_and_matches_the_target() {
    let v = json(&[
        "fit-game-length",
        "--gamma-shape",
        "16",
        "--gamma-scale",
        "7.5",
        "--json",
    ]);
    for key in ["a", "m", "s"] {
        assert!(v[key].as_f64().expect("number") > 0.0);
    }
    assert!(v["max_relative_error"].as_f64().expect("number") < 1e-8);
    let m = json(&[
        "fit-game-length",
        "--mean",
        "120",
        "--sd",
        "30",
        "--m3",
        "13500",
        "--json",
    ]);
    assert!((m["a"].as_f64().expect("a") - v["a"].as_f64().expect("a")).abs() < 1e-9);
}

#[test]
fn council_approval_with_k_1_is_majority_on_the_same_positions() {
    let run = |k: &str| {
        json(&[
            "council",
            "--sigma",
            "1,2,2",
            "--trials",
            "20000",
            "--approval",
            k,
            "--json",
        ])
    };
    let v = run("1");
    assert_eq!(v["approval"]["k"], 1);
    assert_eq!(v["approval"]["rate"], v["rates"]["majority"]);
    let v = run("2");
    let r = v["approval"]["rate"].as_f64().expect("rate");
    assert!((0.0..=1.0).contains(&r) && r != v["rates"]["majority"].as_f64().expect("rate"));
}

#[test]
fn council_json_has_every_method_and_the_agreement_matrix() {
    let v = json(&[
        "council",
        "--candidates",
        "3",
        "--sigma",
        "1,2,2,3",
        "--gap",
        "1",
        "--sync",
        "2:3=0.5",
        "--trials",
        "100000",
        "--json",
    ]);
    assert_eq!(v["rates"]["single"].as_array().expect("list").len(), 4);
    for key in [
        "majority",
        "optimistic",
        "pessimistic",
        "ml",
        "ml_predicted",
    ] {
        let r = v["rates"][key].as_f64().expect("rate");
        assert!((0.0..=1.0).contains(&r), "{key} = {r}");
    }
    let a = v["agreement"].as_array().expect("matrix");
    assert_eq!(a.len(), 4);
    assert!(
        a.iter()
            .all(|row| row.as_array().is_some_and(|r| r.len() == 4))
    );
    has(&v, &["trials_per_second"]);
    assert_eq!(v["seed"], 1);
}

#[test]
fn majority_json_has_exact_and_monte_carlo_values() {
    let v = json(&[
        "majority",
        "--p1",
        "0.6",
        "--delta",
        "0.05",
        "--candidates",
        "3",
        "--trials",
        "100000",
        "--json",
    ]);
    for key in ["p", "strongest", "threshold_delta", "first_order_threshold"] {
        assert!(v[key].is_number(), "{key}");
    }
    assert_eq!(v["strongest"], 0.6);
    assert!(
        (v["first_order_threshold"].as_f64().expect("n") - (0.6 - 1.0 / 3.0) / 2.0).abs() < 1e-12
    );
}

#[test]
fn sweeps_write_csv_and_svg() {
    let dir = std::env::temp_dir().join(format!("council-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (csv, svg) = (dir.join("s.csv"), dir.join("s.svg"));
    let out = council_sim(&[
        "council-sweep",
        "--s2-from",
        "1",
        "--s2-to",
        "2",
        "--s2-step",
        "0.5",
        "--trials",
        "20000",
        "--csv",
        csv.to_str().expect("utf-8 path"),
        "--svg",
        svg.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = std::fs::read_to_string(&csv).expect("csv written");
    // Header plus 2 candidate counts x 2 sync rates x 3 noise values.
    assert_eq!(table.lines().count(), 1 + 12);
    assert!(table.starts_with("candidates,sync,x,"));
    let figure = std::fs::read_to_string(&svg).expect("svg written");
    assert!(figure.contains("<svg") && figure.contains("best-move rate"));
    let gl = dir.join("g.svg");
    let out = council_sim(&[
        "game-length",
        "--games",
        "20000",
        "--svg",
        gl.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&gl).expect("svg").contains("<svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_refused_with_a_message_naming_it() {
    for (args, needle) in [
        (&["council", "--sigma", "1,-2"][..], "--sigma"),
        (
            &["council", "--sync", "2:9=0.5", "--trials", "10"],
            "--sync",
        ),
        (&["council", "--sync", "2-3"], "I:J=RHO"),
        (&["game-length", "--a", "-1"], "A (--a)"),
        (&["game-length", "--games", "lots"], "whole count"),
        (&["majority", "--p1", "1.5"], "--p1"),
        (
            &[
                "fit-game-length",
                "--mean",
                "100",
                "--sd",
                "1",
                "--m3",
                "1e6",
            ],
            "too skewed",
        ),
    ] {
        let out = council_sim(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
