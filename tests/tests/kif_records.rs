//! `council-match`'s game records read by cshogi's own file readers :
//! Japanese tools read `.kif` as Shift_JIS (CP932) and `.kifu` as UTF-8, so a `.kif` written in
//! UTF-8 is unreadable to them. A short node-limited round robin (council games and a game
//! between two single engines) and a bishop-handicap run are played; then
//! `tests/helpers/read_records.py` reads EVERY file under `records/` with
//! `cshogi.CSA.Parser.parse_file` / `cshogi.KIF.Parser.parse_file` (which never see our
//! decoding), and each must hold exactly the moves, start position and winner of its game's
//! `results.jsonl` line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{python, workspace_bin, workspace_root};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("kif-records-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Plays `config_text` into `dir/out` and returns its results lines.
fn run_match(dir: &Path, config_text: &str) -> Vec<Value> {
    let config = dir.join("match.toml");
    std::fs::write(&config, config_text).expect("write config");
    let out = dir.join("out");
    let run = Command::new(workspace_bin("council-match"))
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("run council-match");
    assert!(
        run.status.success(),
        "council-match failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// What cshogi read from each record file of `out/records/`, by file name.
fn read_with_cshogi(out: &Path) -> BTreeMap<String, Value> {
    let script = workspace_root().join("tests/helpers/read_records.py");
    let run = Command::new(python())
        .arg(&script)
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run Python for read_records.py: {e}"));
    assert!(
        run.status.success(),
        "read_records.py failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout)
        .expect("UTF-8 JSON lines")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON line");
            (v["file"].as_str().expect("file").to_string(), v)
        })
        .collect()
}

/// Board, hands and side to move of an SFEN (cshogi and we may number the move differently).
fn position_part(sfen: &str) -> String {
    sfen.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every record file of the run, read by cshogi, agrees with its results line; each game has
/// exactly one `.csa` and one `.kif` (Shift_JIS, not UTF-8) and there is no other file.
fn check_run(dir: &Path, games: &[Value], expected_games: usize) {
    assert_eq!(games.len(), expected_games, "games played");
    let out = dir.join("out");
    let read = read_with_cshogi(&out);
    let mut problems = Vec::new();
    let mut checked = 0;
    for g in games {
        let id = g["id"].as_u64().expect("id");
        let prefix = format!("{id:04}-");
        let moves: Vec<&str> = g["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m.as_str().expect("USI move"))
            .collect();
        let start = g["start"].as_str().expect("start");
        let result = g["result"].as_str().expect("result");
        let reason = g["reason"].as_str().expect("reason");
        for ext in ["csa", "kif"] {
            let files: Vec<(&String, &Value)> = read
                .iter()
                .filter(|(name, _)| name.starts_with(&prefix) && name.ends_with(&format!(".{ext}")))
                .collect();
            let [(name, rec)] = files[..] else {
                problems.push(format!("game {id}: {} .{ext} files", files.len()));
                continue;
            };
            checked += 1;
            if let Some(e) = rec.get("error") {
                problems.push(format!("{name}: cshogi cannot read it: {e}"));
                continue;
            }
            let got: Vec<&str> = rec["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| m.as_str().expect("USI"))
                .collect();
            if got != moves {
                problems.push(format!(
                    "{name}: cshogi reads {} moves {got:?}, results.jsonl has {} {moves:?}",
                    got.len(),
                    moves.len()
                ));
            }
            let sfen = rec["sfen"].as_str().unwrap_or_default();
            if position_part(sfen) != position_part(start) {
                problems.push(format!("{name}: starts from `{sfen}`, not `{start}`"));
            }
            // cshogi names a winner for the endings it knows; a named one must agree, and a
            // resignation (both formats) or a checkmate (CSA's `%TSUMI`) must be named. KIF's
            // `まで107手で詰み` names no side, so cshogi leaves a KIF mate's winner unset.
            let win = rec["win"].as_str();
            let decisive = reason == "resign" || (ext == "csa" && reason == "checkmate");
            if (win.is_some() || decisive) && win != Some(result) {
                problems.push(format!(
                    "{name}: cshogi reads the winner as {win:?} ({}), results.jsonl says {result} by {reason}",
                    rec["endgame"]
                ));
            }
            if ext == "kif" {
                let bytes = std::fs::read(out.join("records").join(name)).expect("read .kif");
                if std::str::from_utf8(&bytes).is_ok() {
                    problems.push(format!("{name}: UTF-8, not Shift_JIS"));
                }
            }
        }
    }
    // No record file without its game, and nothing else in records/.
    assert_eq!(
        read.len(),
        2 * games.len(),
        "record files: {:?}",
        read.keys().collect::<Vec<_>>()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s) in {} record files of {}:\n{}",
        problems.len(),
        checked,
        out.display(),
        problems.join("\n")
    );
    assert_eq!(checked, 2 * expected_games);
}

#[test]
fn every_csa_and_kif_record_reads_back_in_cshogi_as_its_game() {
    let dir = scratch("round-robin");
    // Pairings: council-single, council-other (council games), single-other (single engines).
    let games = run_match(
        &dir,
        r#"
[match]
format = "round-robin"
players = ["council", "single", "other"]
games = 2
max_plies = 200
seed = 11

[[player]]
name = "council"
kind = "council"
members = ["a", "b", "c"]
method = "majority"
nodes = 300

[[player]]
name = "single"
kind = "internal"
nodes = 300

[[player]]
name = "other"
kind = "internal"
nodes = 300
noise_cp = 100

[[player]]
name = "a"
kind = "internal"
[[player]]
name = "b"
kind = "internal"
noise_cp = 80
[[player]]
name = "c"
kind = "internal"
noise_cp = 80
"#,
    );
    let pairs: Vec<(&str, &str)> = games
        .iter()
        .map(|g| (g["sente"].as_str().unwrap(), g["gote"].as_str().unwrap()))
        .collect();
    assert!(
        pairs
            .iter()
            .any(|p| !(p.0 == "council" || p.1 == "council")),
        "a game between single engines: {pairs:?}"
    );
    check_run(&dir, &games, 6);
}

#[test]
fn handicap_records_read_back_in_cshogi_with_their_start() {
    let dir = scratch("handicap");
    let games = run_match(
        &dir,
        r#"
[match]
players = ["council", "master"]
games = 2
handicap = "bishop"
handicap_giver = "master"
max_plies = 200
seed = 12

[[player]]
name = "master"
kind = "internal"
nodes = 600

[[player]]
name = "council"
kind = "council"
members = ["a", "b", "c"]
method = "optimistic"
nodes = 300

[[player]]
name = "a"
kind = "internal"
noise_cp = 30
[[player]]
name = "b"
kind = "internal"
noise_cp = 30
[[player]]
name = "c"
kind = "internal"
noise_cp = 30
"#,
    );
    assert!(
        games
            .iter()
            .all(|g| g["handicap"].as_str() == Some("bishop")),
        "{games:?}"
    );
    check_run(&dir, &games, 2);
}

/// The records' headers say when each game started and on what clock, and name the config by
/// its file name, not by a path of the machine that played it, and which build wrote them (the
/// line `council-match --version` prints, as a CSA `'` comment after `V2.2` and a KIF `#`
/// line opening the file); cshogi still reads them.
#[test]
fn record_headers_carry_the_start_time_and_the_clock_and_no_machine_path() {
    let dir = scratch("headers");
    let games = run_match(
        &dir,
        r#"
[match]
players = ["fischer", "byoyomi"]
games = 2
max_plies = 40
seed = 13

[[player]]
name = "fischer"
kind = "internal"
nodes = 200
time_ms = 60000
increment_ms = 2000

[[player]]
name = "byoyomi"
kind = "internal"
nodes = 200
time_ms = 600000
byoyomi_ms = 10000
"#,
    );
    check_run(&dir, &games, 2);
    let records = dir.join("out/records");
    let machine_path = dir.display().to_string();
    let version = Command::new(workspace_bin("council-match"))
        .arg("--version")
        .output()
        .expect("council-match --version");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    assert!(version.starts_with("council-match "), "{version}");
    for g in &games {
        let id = g["id"].as_u64().expect("id");
        let seed = g["seed"].as_u64().expect("seed");
        let stem = format!(
            "{id:04}-{}-vs-{}",
            g["sente"].as_str().unwrap(),
            g["gote"].as_str().unwrap()
        );
        let csa = std::fs::read_to_string(records.join(format!("{stem}.csa"))).expect("csa");
        assert!(
            csa.contains(&format!("\n$EVENT:match.toml game {id} (seed {seed})\n")),
            "{csa}"
        );
        assert!(!csa.contains(&machine_path), "no machine path: {csa}");
        assert!(csa.starts_with(&format!("V2.2\n'{version}\n")), "{csa}");
        let start = csa
            .lines()
            .find_map(|l| l.strip_prefix("$START_TIME:"))
            .unwrap_or_else(|| panic!("a $START_TIME: {csa}"));
        let shape: String = start
            .chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect();
        assert_eq!(shape, "9999/99/99 99:99:99", "{start}");
        // Each side's own clock (they differ): fischer 60 s + 2 s, byoyomi 10 min + 10 s.
        let (fischer, byoyomi) = ("$TIME{}:60+0+2", "$TIME{}:600+10+0");
        let (s, gt) = if g["sente"] == "fischer" {
            (fischer.replace("{}", "+"), byoyomi.replace("{}", "-"))
        } else {
            (byoyomi.replace("{}", "+"), fischer.replace("{}", "-"))
        };
        assert!(csa.contains(&s) && csa.contains(&gt), "{csa}");
        let kif = std::fs::read(records.join(format!("{stem}.kif"))).expect("kif");
        let (kif, _, _) = encoding_rs::SHIFT_JIS.decode(&kif);
        assert!(kif.contains(&format!("開始日時：{start}\n")), "{kif}");
        assert!(
            kif.contains("先手持ち時間：") && kif.contains("後手持ち時間："),
            "{kif}"
        );
        assert!(kif.contains("棋戦：match.toml game"), "{kif}");
        assert!(kif.starts_with(&format!("# {version}\n")), "{kif}");
        assert!(!kif.contains(&machine_path), "no machine path: {kif}");
    }
}
