//! `council-learn similarity` and `council-analyze similarity` as a user runs them, on the
//! shipped slice of the gpsshogi self-play corpus: the weights file is the same twice over (bar
//! its date), its weights lie in [0, 1] and its counts agree with the report and with the
//! analysis; a broken weights file is refused by name.

use std::path::PathBuf;

use council_tests::{run_bin as run, succeeded as ok, workspace_root};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("similarity-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn learn(out: &PathBuf) -> (String, Value) {
    let corpus = workspace_root().join("tests/fixtures/corpus/gps-slice.txt");
    let stdout = ok(&run(
        "council-learn",
        &[
            &"similarity",
            &corpus,
            &"--plies",
            &"20-40",
            &"--grouping",
            &"56",
            &"--far-pairs",
            &"200",
            &"--seed",
            &"3",
            &"--out",
            out,
        ],
    ));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    (stdout, file)
}

#[test]
fn weights_are_deterministic_bounded_and_agree_with_the_analysis() {
    let dir = scratch("slice");
    let corpus = workspace_root().join("tests/fixtures/corpus/gps-slice.txt");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let (out_a, mut file_a) = learn(&a);
    let (out_b, mut file_b) = learn(&b);
    // The same report and the same file, bar the output path and the date.
    assert_eq!(out_a.replace("a.json", "b.json"), out_b);
    for f in [&mut file_a, &mut file_b] {
        let p = &mut f["provenance"];
        p["date"] = Value::Null;
        p["command"] = Value::Null;
    }
    assert_eq!(file_a, file_b);

    assert_eq!(file_a["format"], "council-similarity-weights");
    assert_eq!(file_a["version"], 1);
    assert_eq!(file_a["grouping"], "56");
    assert_eq!(file_a["provenance"]["seed"], 3);
    let weights: Vec<f64> = file_a["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_f64().unwrap())
        .collect();
    assert_eq!(weights.len(), 56);
    assert!(
        weights.iter().all(|w| (0.0..=1.0).contains(w)),
        "{weights:?}"
    );
    let relevant = weights.iter().filter(|&&w| w > 1e-9).count();
    assert!(relevant > 0 && relevant < 56, "{relevant} relevant");
    assert_eq!(file_a["relevant"], relevant);
    assert!(
        out_a.contains(&format!("relevant:  {relevant} of 56 attributes")),
        "{out_a}"
    );
    let far = file_a["far_pairs"].as_u64().unwrap();
    assert!(far > 0 && far <= 200, "{far} pairs");
    let positions = file_a["provenance"]["positions"].as_u64().unwrap();
    // 30 games of the slice, plies 20, 25, ..., 40: at most 5 each.
    assert!(positions > 0 && positions <= 5 * 30, "{positions}");
    assert!(out_a.contains(&format!("{positions} positions")), "{out_a}");

    let json = |w: &PathBuf| {
        let text = ok(&run(
            "council-analyze",
            &[&"similarity", w, &"--corpus", &corpus, &"--format", &"json"],
        ));
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let report = json(&a);
    assert_eq!(report["games"], 30);
    let mut analysis = report["stages"][0].clone();
    let mut again = json(&b)["stages"][0].clone();
    analysis["weights"] = Value::Null;
    again["weights"] = Value::Null;
    assert_eq!(analysis, again);
    assert_eq!(analysis["positions"], positions);
    assert_eq!(analysis["relevant"], relevant);
    let counted: u64 = analysis["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[1].as_u64().unwrap())
        .sum();
    assert_eq!(counted, positions);
    for key in ["weighted", "unweighted", "majority"] {
        let x = analysis[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{key} {x}");
    }
    // The seed's own figures for plies 20-40, grouping 56, stand beside the row.
    assert_eq!(analysis["seed"]["weighted"], 0.689);
    assert_eq!(analysis["seed"]["positions"], 61);
    let text = ok(&run(
        "council-analyze",
        &[&"similarity", &a, &"--corpus", &corpus],
    ));
    assert!(text.contains("20-40 step 5"), "{text}");
    assert!(text.contains(&format!("{relevant}/56")), "{text}");
    assert!(text.contains("61 0.689 / 0.705  13"), "{text}");
}

#[test]
fn several_weights_files_give_one_row_each_over_one_corpus() {
    let dir = scratch("rows");
    let corpus = workspace_root().join("tests/fixtures/corpus/gps-slice.txt");
    let early = dir.join("early.json");
    learn(&early);
    let late = dir.join("late.json");
    ok(&run(
        "council-learn",
        &[
            &"similarity",
            &corpus,
            &"--plies",
            &"33",
            &"--grouping",
            &"112",
            &"--out",
            &late,
        ],
    ));
    let text = ok(&run(
        "council-analyze",
        &[
            &"similarity",
            &early,
            &late,
            &"--corpus",
            &corpus,
            &"--format",
            &"json",
        ],
    ));
    let report: Value = serde_json::from_str(&text).unwrap();
    let stages = report["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2);
    assert_eq!(stages[0]["plies"]["first"], 20);
    assert_eq!(stages[1]["grouping"], "112");
    assert_eq!(stages[1]["attributes"], 112);
    // Ply 33 is none of the seed's stages: nothing stands beside it.
    assert_eq!(stages[1]["seed"], Value::Null);
    // One position a game at a single ply, from the games long enough.
    let positions = stages[1]["positions"].as_u64().unwrap();
    assert!(positions > 0 && positions <= 30, "{positions}");
}

#[test]
fn a_broken_weights_file_is_refused_by_name() {
    let dir = scratch("broken");
    let corpus = workspace_root().join("tests/fixtures/corpus/gps-slice.txt");
    let out = dir.join("w.json");
    learn(&out);
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    file["weights"][4] = Value::from(1.5);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, file.to_string()).unwrap();
    let o = run(
        "council-analyze",
        &[&"similarity", &bad, &"--corpus", &corpus],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.json") && err.contains("weight 4 is 1.5"),
        "{err}"
    );
}
