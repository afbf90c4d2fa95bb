//! Results by opening family, the way a user gets them: `summary.json`'s `by_family` and the
//! closing table of `council-match --by-family` on a real node-limited run from openings of
//! known families, and `council-elo --by family` on a results file.
//!
//! The families of the run are known without the labeller: every line of
//! `tests/fixtures/family-openings.txt` is 40 plies (the labeller's opening window), so a game's
//! family is the one written above its line, whatever the players do next. The hand count below
//! goes from each game's line to that family.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use council_tests::{run_bin, succeeded, workspace_root};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("by-family-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// The fixture's lines: their moves, and the family written in the comment above each.
fn openings() -> (PathBuf, Vec<(Vec<String>, String)>) {
    let path = workspace_root().join("tests/fixtures/family-openings.txt");
    let text = std::fs::read_to_string(&path).expect("the openings fixture");
    let mut lines = Vec::new();
    let mut family = None;
    for line in text.lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            family = Some(comment.trim().to_owned());
        } else if let Some(moves) = line.strip_prefix("startpos moves ") {
            let moves: Vec<String> = moves.split_whitespace().map(str::to_owned).collect();
            assert_eq!(moves.len(), 40, "every fixture line is 40 plies: {line}");
            let family = family.take().expect("a family comment above every line");
            lines.push((moves, family));
        }
    }
    assert!(lines.len() >= 4, "the fixture has several families");
    (path, lines)
}

/// Per family: games, and per player [wins, losses, draws].
type Count = BTreeMap<String, (u64, BTreeMap<String, [u64; 3]>)>;

#[test]
fn a_runs_results_by_family_are_the_hand_count_of_its_openings() {
    let dir = scratch("run");
    let (openings, lines) = openings();
    let games = 2 * lines.len();
    let config = dir.join("run.toml");
    std::fs::write(
        &config,
        format!(
            "[match]\nformat = \"head-to-head\"\nplayers = [\"a\", \"b\"]\ngames = {games}\n\
             max_plies = 160\nseed = 5\nopenings = {openings:?}\n\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 1500\n\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1500\nnoise_cp = 80\n"
        ),
    )
    .expect("write config");
    let out = dir.join("out");
    let stdout = succeeded(&run_bin(
        "council-match",
        &[&config, &"--out", &out, &"--by-family", &"-q"],
    ));

    // The hand count: each game's opening line gives its family.
    let mut count = Count::new();
    let results = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    let mut decisive = 0;
    for line in results.lines() {
        let g: Value = serde_json::from_str(line).expect("a results line");
        let moves: Vec<String> = serde_json::from_value(g["moves"].clone()).expect("moves");
        let family = lines
            .iter()
            .find(|(opening, _)| moves.starts_with(opening))
            .map(|(_, family)| family.clone())
            .unwrap_or_else(|| panic!("game {} starts with no fixture line", g["id"]));
        let row = count.entry(family).or_default();
        row.0 += 1;
        for side in ["sente", "gote"] {
            let player = g[side].as_str().expect("a player").to_owned();
            let wld = row.1.entry(player).or_default();
            match g["result"].as_str() {
                Some("draw") => wld[2] += 1,
                Some(r) if r == side => wld[0] += 1,
                _ => wld[1] += 1,
            }
        }
        decisive += u64::from(g["result"] != "draw");
    }
    assert!(
        decisive > 0,
        "some games are decided, so W and L are tested"
    );
    assert_eq!(count.values().map(|r| r.0).sum::<u64>(), games as u64);

    // summary.json's by_family is that count.
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    let by = summary["by_family"].as_object().expect("by_family");
    let written: Count = by
        .iter()
        .map(|(family, row)| {
            let players = row["players"]
                .as_object()
                .expect("players")
                .iter()
                .map(|(name, s)| {
                    let n = |k: &str| s[k].as_u64().expect("a count");
                    assert_eq!(
                        s["games"].as_u64(),
                        Some(n("wins") + n("losses") + n("draws"))
                    );
                    let score = s["score"].as_f64().expect("a score");
                    let points = n("wins") as f64 + 0.5 * n("draws") as f64;
                    assert!((score - points / n("games") as f64).abs() < 1e-12);
                    (name.clone(), [n("wins"), n("losses"), n("draws")])
                })
                .collect();
            let share = row["share"].as_f64().expect("a share");
            let games_here = row["games"].as_u64().expect("games");
            assert!((share - games_here as f64 / games as f64).abs() < 1e-12);
            (family.clone(), (games_here, players))
        })
        .collect();
    assert_eq!(written, count);

    // The closing table after the standings: one row per family, a's W-L-D in it.
    let table = stdout
        .split("by opening family")
        .nth(1)
        .unwrap_or_else(|| panic!("no by-family table in:\n{stdout}"));
    for (family, (n, players)) in &count {
        let row = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(family.as_str()))
            .unwrap_or_else(|| panic!("no row {family} in:\n{table}"));
        let [w, l, d] = players["a"];
        assert!(
            row.split_whitespace().nth(1) == Some(n.to_string().as_str())
                && row.contains(&format!("{w}-{l}-{d} ")),
            "{row}"
        );
    }

    // Without the flag the output is the standings alone (a finished run resumed plays nothing).
    let again = succeeded(&run_bin(
        "council-match",
        &[&config, &"--out", &out, &"--resume", &"-q"],
    ));
    assert!(!again.contains("by opening family"), "{again}");
    assert!(again.contains("games (0 this session"), "{again}");

    // The same run in two shards, merged with the flag: the same table (node-limited games
    // replay exactly).
    let shards: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("shard-{i}"))).collect();
    for (i, shard) in shards.iter().enumerate() {
        let which = format!("{i}/2");
        succeeded(&run_bin(
            "council-match",
            &[&config, &"--out", shard, &"--shard", &which, &"-q"],
        ));
    }
    let merged = dir.join("merged");
    let merge_out = succeeded(&run_bin(
        "council-match",
        &[
            &"merge",
            &shards[0],
            &shards[1],
            &"--out",
            &merged,
            &"--by-family",
        ],
    ));
    let merged_table = merge_out
        .split("by opening family")
        .nth(1)
        .unwrap_or_else(|| panic!("no by-family table after merge --by-family:\n{merge_out}"));
    let tables_rows = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| count.contains_key(l.split_whitespace().next().unwrap_or("")))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(tables_rows(merged_table), tables_rows(table));
}

fn line(id: u64, sente: &str, gote: &str, moves: &[&str], result: &str) -> String {
    serde_json::json!({
        "id": id, "sente": sente, "gote": gote, "start": "startpos", "moves": moves,
        "result": result, "reason": "resign", "plies": moves.len(), "seed": id,
    })
    .to_string()
}

/// 24 static-vs-static games among A, B and C, 12 where sente ranges to the fourth file,
/// and 3 that cannot be replayed.
fn results_file(dir: &Path) -> (PathBuf, PathBuf) {
    let statics = ["2g2f", "8c8d", "2f2e", "8d8e"];
    let ranging = ["7g7f", "3c3d", "6g6f", "8c8d", "2h6h"];
    let pairs = [("A", "B"), ("B", "C"), ("C", "A"), ("B", "A")];
    let (mut all, mut only_static) = (Vec::new(), Vec::new());
    for id in 0..24u64 {
        let (s, g) = pairs[id as usize % 4];
        let result = ["sente", "sente", "gote", "draw", "sente"][id as usize % 5];
        let l = line(id, s, g, &statics, result);
        only_static.push(l.clone());
        all.push(l);
    }
    for id in 24..36u64 {
        let (s, g) = pairs[id as usize % 3];
        let result = ["gote", "sente", "sente"][id as usize % 3];
        all.push(line(id, s, g, &ranging, result));
    }
    for id in 36..39u64 {
        all.push(line(id, "A", "B", &["7g7f", "7g7f"], "sente"));
    }
    let (a, s) = (dir.join("all.jsonl"), dir.join("static.jsonl"));
    std::fs::write(&a, all.join("\n") + "\n").expect("write");
    std::fs::write(&s, only_static.join("\n") + "\n").expect("write");
    (a, s)
}

fn elo_json(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Value {
    serde_json::from_str(&succeeded(&run_bin("council-elo", args))).expect("JSON")
}

#[test]
fn council_elo_rates_each_family_on_its_own_games() {
    let dir = scratch("elo");
    let (all, only_static) = results_file(&dir);
    for anchor in [None, Some("A=1500")] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&all, &"--by", &"family", &"--format", &"json"];
        let mut alone: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&only_static, &"--format", &"json"];
        if let Some(a) = &anchor {
            args.extend([&"--anchor" as &dyn AsRef<std::ffi::OsStr>, a]);
            alone.extend([&"--anchor" as &dyn AsRef<std::ffi::OsStr>, a]);
        }
        let grouped = elo_json(&args);
        let families = grouped["by_family"].as_array().expect("by_family");
        let keys: Vec<&str> = families
            .iter()
            .map(|f| f["key"].as_str().expect("a key"))
            .collect();
        assert_eq!(
            keys,
            [
                "static-vs-static",
                "static-vs-ranging:fourth-file",
                "unlabelled"
            ]
        );
        let games: Vec<u64> = families
            .iter()
            .map(|f| f["games"].as_u64().expect("games"))
            .collect();
        assert_eq!(games, [24, 12, 3]);
        // The family's table is the main table of its games alone: same estimator, same anchor.
        let by_itself = elo_json(&alone);
        assert_eq!(families[0]["players"], by_itself["players"], "{anchor:?}");
        assert!(families[0]["unrated"].is_null());
        assert_eq!(families[1]["players"].as_array().map(Vec::len), Some(3));
        assert_eq!(families[2]["unrated"], "too few games to rate (3 < 10)");
        assert_eq!(families[2]["players"], serde_json::json!([]));
        // The main report is still all the games.
        assert_eq!(grouped["input"]["games"], 39);
    }

    let text = succeeded(&run_bin("council-elo", &[&all, &"--by", &"family"]));
    let section = text
        .split("Ratings by opening family")
        .nth(1)
        .unwrap_or_else(|| panic!("no by-family section in:\n{text}"));
    assert!(
        section.contains("\nstatic-vs-static (相居飛車): 24 games\n"),
        "{section}"
    );
    assert!(
        section.contains("\nunlabelled (未分類): 3 games: too few games to rate (3 < 10)\n"),
        "{section}"
    );

    let plain = elo_json(&[&all, &"--format", &"json"]);
    assert!(plain.get("by_family").is_none(), "no --by, no by_family");
    let csv = run_bin(
        "council-elo",
        &[&all, &"--by", &"family", &"--format", &"csv"],
    );
    assert!(!csv.status.success());
    assert!(
        String::from_utf8_lossy(&csv.stderr).contains("--by prints text or json, not csv"),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
}
