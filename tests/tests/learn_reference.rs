//! `council-analyze candidates --reference-nodes N`: where the built-in engine's best move ranks
//! under the candidate model, on the same positions as the played moves — the section's shape
//! on a slice of the shipped gpsshogi corpus (positions, monotone rates, replay across worker
//! counts), and one position's numbers recomputed from the engine and the model directly.

use std::path::PathBuf;
use std::process::{Command, Output};

use council_tests::{reference_search, workspace_bin, workspace_root};
use engine::intuition::{Model, Ranking, Setting};
use engine::position::Position;
use engine::search::BestMove;
use serde_json::Value;

fn model() -> PathBuf {
    workspace_root().join("data/models/gps-candidates.bin")
}

fn slice() -> PathBuf {
    workspace_root().join("tests/fixtures/corpus/gps-slice.txt")
}

fn analyze(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut cmd = Command::new(workspace_bin("council-analyze"));
    cmd.arg("candidates");
    for a in args {
        cmd.arg(a.as_ref());
    }
    cmd.output().expect("run council-analyze")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// `candidates` of the shipped model on the test side (0.3, seed 1) of the slice, with `extra`.
fn on_slice(extra: &[&str]) -> String {
    let (model, slice) = (model(), slice());
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![
        &model,
        &slice,
        &"--test-share",
        &"0.3",
        &"--split-seed",
        &"1",
    ];
    args.extend(extra.iter().map(|a| a as &dyn AsRef<std::ffi::OsStr>));
    ok(&analyze(&args))
}

#[test]
fn the_reference_section_ranks_every_ranked_position_and_replays() {
    let json = |concurrency: &str| {
        on_slice(&[
            "--reference-nodes",
            "300",
            "--concurrency",
            concurrency,
            "-q",
            "--format",
            "json",
        ])
    };
    let first = json("2");
    // Same output twice, whatever the number of workers.
    assert_eq!(first, json("2"));
    assert_eq!(first, json("1"));
    let report: Value = serde_json::from_str(&first).expect("json");
    let r = &report["reference"];
    assert_eq!(r["nodes"], 300);
    assert!(report["positions"].as_u64().expect("positions") > 100);
    assert_eq!(r["positions"], report["positions"]);
    assert_eq!(r["without_move"], 0);
    let ks: Vec<u64> = r["outside_k"]
        .as_array()
        .expect("outside_k")
        .iter()
        .map(|k| k.as_u64().expect("k"))
        .collect();
    assert_eq!(ks, [1, 2, 3, 4, 5, 6, 7, 8, 16, 32]);
    let settings = r["settings"].as_array().expect("settings");
    assert_eq!(settings.len(), 6);
    for s in settings {
        let hit = floats(&s["hit"]);
        let outside = floats(&s["outside"]);
        assert_eq!(hit.len(), 10);
        assert!(hit.iter().all(|h| (0.0..=1.0).contains(h)), "{s}");
        assert!(hit.windows(2).all(|w| w[0] <= w[1]), "{s}");
        assert!(outside.iter().all(|o| (0.0..=1.0).contains(o)), "{s}");
        assert!(outside.windows(2).all(|w| w[0] >= w[1]), "{s}");
        // Outside the top K is the complement of a top-K hit.
        for (i, &k) in ks.iter().enumerate().filter(|(_, k)| **k <= 10) {
            assert!((outside[i] + hit[k as usize - 1] - 1.0).abs() < 1e-9, "{s}");
        }
        let rank = s["mean_normalised_rank"].as_f64().expect("rank");
        assert!((0.0..=1.0).contains(&rank));
    }
    // The engine's move is not the played move everywhere: the numbers differ from the played.
    assert_ne!(settings[3]["hit"], report["settings"][3]["all"]["hit"]);

    // Without a reference limit, no section (the report is as before).
    let plain: Value = serde_json::from_str(&on_slice(&["--format", "json"])).expect("json");
    assert!(plain.get("reference").is_none());
    assert_eq!(plain["settings"], report["settings"]);

    let text = on_slice(&["--reference-depth", "2", "-q"]);
    assert!(text.contains("best move at depth 2 per position"), "{text}");
    assert!(text.contains("outside the model's top K"), "{text}");
}

#[test]
fn one_position_matches_the_engine_and_the_model_directly() {
    // A middle-game position of the slice's first game, as the start of a one-move game.
    let line = std::fs::read_to_string(slice()).expect("slice");
    let game = line
        .lines()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .expect("a game");
    let moves: Vec<&str> = game
        .split_whitespace()
        .skip_while(|w| *w != "moves")
        .skip(1)
        .collect();
    let pos = Position::from_usi_position(&format!("startpos moves {}", moves[..40].join(" ")))
        .expect("replays");
    let sfen = pos.to_sfen();
    let pos = Position::from_sfen(&sfen).expect("sfen");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("learn-reference");
    std::fs::create_dir_all(&dir).expect("scratch");
    let corpus = dir.join("one.txt");
    std::fs::write(&corpus, format!("sfen {sfen} moves {}\n", moves[40])).expect("write");

    let out = ok(&analyze(&[
        &model(),
        &corpus,
        &"--test-share",
        &"1",
        &"--split-seed",
        &"1",
        &"--reference-nodes",
        &"500",
        &"-q",
        &"--format",
        &"json",
    ]));
    let report: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(report["positions"], 1);
    assert_eq!(report["reference"]["positions"], 1);

    // The engine's move, searched as the analysis does (one thread, fresh tables, 500 nodes).
    let BestMove::Move(best) = reference_search(&pos, 500).best else {
        panic!("no move");
    };
    let bytes = std::fs::read(model()).expect("model");
    let model = Model::from_bytes(&bytes).expect("model file");
    let ranking = Ranking::of_position(&model, &pos);
    for (i, setting) in Setting::ALL.into_iter().enumerate() {
        let stat = ranking.rank_of(best, setting).expect("legal");
        let s = &report["reference"]["settings"][i];
        assert_eq!(s["setting"], setting.to_string());
        let hit = floats(&s["hit"]);
        for k in 1..=10 {
            assert!((hit[k - 1] - stat.hit(k)).abs() < 1e-12, "{setting} k={k}");
        }
        let rank = s["mean_normalised_rank"].as_f64().expect("rank");
        assert!((rank - stat.normalised()).abs() < 1e-12, "{setting}");
        let outside = floats(&s["outside"]);
        assert!(
            (outside[9] - (1.0 - stat.hit(32))).abs() < 1e-12,
            "{setting}"
        );
    }
}
