//! `council-engine ebf` (docs/models.md section 8) run as a user runs it: one JSON object
//! per position, the same every run, an EBF between 1 and 6 in the ten handicap starts of
//! docs/reference/rules.md, falling as the handicap grows (Spearman ≤ -0.8 against the table's order), at
//! the default threshold. Also: a mate drops the position, a bad SFEN is an error naming it,
//! and a USI search reports its leaf counts before `bestmove`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

use council_tests::workspace_bin;
use serde_json::Value;

/// The handicap starts of docs/reference/rules.md, smallest handicap first (lance and right lance are the
/// same size: they share a rank below).
const HANDICAPS: [(&str, &str); 10] = [
    (
        "lance",
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "right lance",
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "bishop",
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "rook",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "rook and lance",
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "two pieces",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "four pieces",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "six pieces",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "eight pieces",
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "ten pieces",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
];

/// Handicap size rank of each row of [`HANDICAPS`] (lance and right lance tied).
const SIZE: [f64; 10] = [0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];

fn ebf(args: &[&str]) -> Output {
    Command::new(workspace_bin("council-engine"))
        .arg("ebf")
        .args(args)
        .output()
        .expect("run council-engine ebf")
}

/// The one JSON object a successful run prints.
fn measure(args: &[&str]) -> (String, Value) {
    let run = ebf(args);
    assert!(
        run.status.success(),
        "council-engine ebf {args:?} failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8(run.stdout).expect("UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected: {stdout}");
    let value: Value = serde_json::from_str(lines[0]).expect("a JSON object");
    (stdout, value)
}

/// Average ranks (ties share their mean rank).
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            r[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation: Pearson's correlation of the average ranks.
fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

#[test]
fn spearman_of_known_rankings() {
    assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-12);
    assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
    // Ties take their mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3): r = sqrt(3) / 2.
    assert!((spearman(&[0.0, 0.0, 1.0], &[1.0, 2.0, 3.0]) - 3f64.sqrt() / 2.0).abs() < 1e-12);
}

#[test]
fn ebf_is_deterministic() {
    let args = ["--sfen", HANDICAPS[2].1];
    let (first, value) = measure(&args);
    let (second, _) = measure(&args);
    assert_eq!(first, second);
    for key in ["depth", "nodes", "ebf", "score", "win_rate"] {
        assert!(value[key].is_number(), "{key} missing: {value}");
    }
}

#[test]
fn ebf_falls_with_the_handicap_at_the_default_threshold() {
    let mut values = Vec::new();
    let mut table = String::new();
    for (name, sfen) in HANDICAPS {
        let (_, v) = measure(&["--sfen", sfen]);
        assert_eq!(v["dropped"], Value::Null, "{name}: {v}");
        assert_eq!(v["sfen"], sfen, "{name}");
        let b = v["ebf"].as_f64().expect("ebf");
        let (depth, nodes) = (
            v["depth"].as_u64().expect("depth"),
            v["nodes"].as_u64().expect("nodes"),
        );
        // b* = exp(ln n / D), as printed.
        let expected = ((nodes.max(1) as f64).ln() / depth as f64).exp();
        assert!((b - expected).abs() < 1e-9, "{name}: {v}");
        // The giver is behind in every handicap start: negative score, win rate below one half.
        let score = v["score"].as_i64().expect("score");
        let win_rate = v["win_rate"].as_f64().expect("win_rate");
        assert!(score < 0 && win_rate < 0.5, "{name}: {v}");
        let t = 600.0;
        assert!((win_rate - 1.0 / (1.0 + (-(score as f64) / t).exp())).abs() < 1e-12);
        assert!(b > 1.0 && b < 6.0, "{name}: EBF {b} outside (1, 6): {v}");
        table.push_str(&format!(
            "{name}: EBF {b:.4} depth {depth} nodes {nodes} score {score}\n"
        ));
        values.push(b);
    }
    let rho = spearman(&SIZE, &values);
    assert!(rho <= -0.8, "Spearman {rho:.3} > -0.8:\n{table}");
}

#[test]
fn a_mate_before_the_threshold_drops_the_position() {
    // G*5b mates at once.
    let sfen = "4k4/9/4G4/9/9/9/9/9/4K4 b G2r2b2g4s4n4l18p 1";
    let run = ebf(&["--sfen", sfen, "--nodes", "1000"]);
    assert!(run.status.success());
    let v: Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(v["dropped"], "mate", "{v}");
    assert_eq!(v["mate"], 1, "{v}");
    assert_eq!(v["ebf"], Value::Null);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("position dropped") && stderr.contains("mate in 1"),
        "{stderr}"
    );
}

#[test]
fn a_bad_sfen_or_threshold_is_an_error_naming_it() {
    let run = ebf(&["--sfen", "lnsgkgsnl/9 b - 1"]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("lnsgkgsnl/9 b - 1"), "{stderr}");
    assert_eq!(run.stdout, b"");
    let run = ebf(&["--nodes", "0"]);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("--nodes"));
}

#[test]
fn a_usi_search_reports_its_leaves_before_bestmove() {
    let mut child = Command::new(workspace_bin("council-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start council-engine");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"usi\nisready\nposition startpos moves 7g7f\ngo depth 6\n")
        .expect("write");
    stdin.flush().expect("flush");
    // `quit` only after `bestmove`: an earlier one would stop the search.
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("read");
        let done = line.starts_with("bestmove ");
        lines.push(line);
        if done {
            break;
        }
    }
    stdin.write_all(b"quit\n").expect("write quit");
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    let text = lines.join("\n");
    let best = lines
        .iter()
        .position(|l| l.starts_with("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {text}"));
    let words: Vec<&str> = lines[best - 1].split_whitespace().collect();
    let ["info", "string", "leaves", n, "positive", p] = words[..] else {
        panic!("no leaves line before bestmove: {text}");
    };
    let (n, p): (u64, u64) = (n.parse().expect("N"), p.parse().expect("P"));
    // Some leaves, and (early opening, about even) neither all nor none good for sente.
    assert!(n > 100 && p > 0 && p < n, "{n} {p}");
}
