//! `council-elo` run the way a user runs it: on results files, with each output format.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use council_tests::workspace_bin;
use serde_json::Value;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("council-elo-e2e-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn line(id: u64, sente: &str, gote: &str, result: &str, reason: &str) -> String {
    format!(
        r#"{{"id":{id},"sente":"{sente}","gote":"{gote}","start":"startpos","moves":["7g7f","3c3d"],"result":"{result}","reason":"{reason}","plies":2,"seed":{id}}}"#
    )
}

/// A two-player match: A scores 14 wins, 4 draws, 6 losses in 24 games.
fn two_player_file(dir: &Path) -> PathBuf {
    let mut lines = Vec::new();
    let mut id = 0;
    let mut push = |sente: &str, gote: &str, result: &str, reason: &str, n: usize| {
        for _ in 0..n {
            lines.push(line(id, sente, gote, result, reason));
            id += 1;
        }
    };
    push("A", "B", "sente", "resign", 8);
    push("B", "A", "gote", "checkmate", 6);
    push("A", "B", "draw", "repetition", 2);
    push("B", "A", "draw", "max_plies", 2);
    push("A", "B", "gote", "resign", 2);
    push("B", "A", "sente", "timeout", 4);
    let path = dir.join("results.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(workspace_bin("council-elo"))
        .args(args)
        .output()
        .expect("council-elo runs")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "council-elo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn two_players_json_matches_the_closed_form() {
    let dir = temp_dir("json");
    let file = two_player_file(&dir);
    let v = json(&run(&[
        file.to_str().expect("utf8"),
        "--format",
        "json",
        "--anchor",
        "B=1500",
    ]));
    let players = v["players"].as_array().expect("players");
    assert_eq!(players.len(), 2);
    let a = &players[0];
    assert_eq!(a["name"], "A");
    assert_eq!(a["games"], 24);
    let score = (14.0 + 2.0) / 24.0;
    assert!((a["score"].as_f64().expect("score") - score).abs() < 1e-12);
    // Two players: the maximum-likelihood difference is 400 log10(s / (1 - s)).
    let expected = 1500.0 + 400.0 * (score / (1.0 - score)).log10();
    assert!(
        (a["elo"].as_f64().expect("elo") - expected).abs() < 1e-6,
        "{a}"
    );
    assert!(a["error"].as_f64().expect("error") > 0.0);
    assert_eq!(players[1]["elo"], 1500.0);
    assert_eq!(players[1]["error"], 0.0);
    // How games ended, and by colour.
    let reasons = v["reasons"].as_array().expect("reasons");
    let total: u64 = reasons
        .iter()
        .map(|r| r["games"].as_u64().expect("n"))
        .sum();
    assert_eq!(total, 24);
    assert_eq!(reasons[0]["reason"], "resign");
    assert_eq!(reasons[0]["games"], 10);
    assert_eq!(v["colours"][0]["games_of"], "even");
    assert_eq!(v["colours"][0]["sente_wins"], 12);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn merging_counts_a_repeated_file_once_and_says_so() {
    let dir = temp_dir("merge");
    let file = two_player_file(&dir);
    let f = file.to_str().expect("utf8");
    let once = json(&run(&[f, "--format", "json"]));
    let twice = json(&run(&[f, f, "--format", "json"]));
    assert_eq!(once["players"], twice["players"]);
    assert_eq!(twice["input"]["duplicates_merged"], 24);
    assert!(twice["notes"].to_string().contains("counted once"));
    let kept = json(&run(&[f, f, "--format", "json", "--keep-duplicates"]));
    assert_eq!(kept["input"]["games"], 48);
    std::fs::remove_dir_all(dir).ok();
}

/// The two-player file with `bad` as its line 25: council-elo stops naming the file and the
/// line, and with `--skip-malformed` counts the 24 games and the one line skipped.
fn line_25_is_malformed(name: &str, bad: &[u8]) {
    let dir = temp_dir(name);
    let file = two_player_file(&dir);
    let mut bytes = std::fs::read(&file).expect("read");
    bytes.extend_from_slice(bad);
    std::fs::write(&file, bytes).expect("write");
    let out = run(&[file.to_str().expect("utf8")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:25: malformed results line", file.display())),
        "{stderr}"
    );
    let skipped = run(&[
        file.to_str().expect("utf8"),
        "--skip-malformed",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&skipped.stderr);
    assert!(stderr.contains(":25:"), "{stderr}");
    let v = json(&skipped);
    assert_eq!(v["input"]["games"], 24);
    assert_eq!(v["input"]["malformed_skipped"], 1);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn malformed_line_is_reported_with_file_and_line() {
    line_25_is_malformed("malformed", b"{\"id\": 99, \"sente\": \"A\"\n");
}

/// A line that is not UTF-8 is a malformed line like any other: named by its number, and
/// skipped with `--skip-malformed` (it used to stop the whole read as "cannot read FILE").
#[test]
fn a_line_that_is_not_utf8_is_a_malformed_line() {
    line_25_is_malformed("utf8", b"{\"id\": 99, \"sente\": \"A\xe9\"}\n");
}

#[test]
fn text_csv_and_svg_outputs() {
    let dir = temp_dir("formats");
    let file = two_player_file(&dir);
    let svg = dir.join("ratings.svg");
    let out = run(&[
        file.to_str().expect("utf8"),
        "--svg",
        svg.to_str().expect("utf8"),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text
        .lines()
        .find(|l| l.contains("RATING"))
        .expect("table header");
    for col in ["#", "PLAYER", "RATING", "ERROR", "POINTS", "PLAYED", "(%)"] {
        assert!(header.contains(col), "{header}");
    }
    let drawn = std::fs::read_to_string(&svg).expect("svg written");
    assert!(drawn.starts_with("<svg"), "not an SVG");
    assert!(
        drawn.contains("\nA\n") && drawn.contains("\nB\n"),
        "player labels missing"
    );
    let csv = run(&[file.to_str().expect("utf8"), "--format", "csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert!(csv.starts_with("rank,player,rating,error"));
    assert_eq!(csv.lines().count(), 3);
    std::fs::remove_dir_all(dir).ok();
}

/// A cut-off last line (a run still writing it, or killed) is skipped with a note, as every
/// reader of `results.jsonl` does; a last line that is a whole game without its newline is read.
#[test]
fn a_cut_off_last_line_is_skipped_and_said() {
    let dir = temp_dir("torn");
    let file = two_player_file(&dir);
    let whole = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, format!("{whole}{{\"id\": 99, \"sen")).expect("write");
    let out = run(&[file.to_str().expect("utf8"), "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(json(&out)["input"]["games"], 24);
    assert!(
        stderr.contains(&format!(
            "{}: skipped its cut-off last line",
            file.display()
        )),
        "{stderr}"
    );
    std::fs::write(&file, whole.trim_end()).expect("write");
    let out = run(&[file.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(json(&out)["input"]["games"], 24);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(dir).ok();
}

/// Two runs whose `council` is not the same council (their run.json say so): a warning naming
/// both and what differs; `--split-names` rates them apart, and `single`, the same engine in
/// both, stays one player.
#[test]
fn one_name_for_two_players_is_warned_of_and_split_on_request() {
    let dir = temp_dir("names");
    let run_folder = |name: &str, members: &str| -> String {
        let text = format!(
            "[match]\nplayers = [\"council\", \"single\"]\ngames = 2\nmax_plies = 6\n\
             [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = {members}\nnodes = 20\n\
             [[player]]\nname = \"x\"\nkind = \"internal\"\n\
             [[player]]\nname = \"y\"\nkind = \"internal\"\nnoise_cp = 50\n\
             [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 20\n"
        );
        let cfg = dir.join(format!("{name}.toml"));
        std::fs::write(&cfg, text).expect("config");
        let out = dir.join(name);
        let _ = std::fs::remove_dir_all(&out);
        let o = council_tests::council_match(&cfg, &out, &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out.join("results.jsonl").display().to_string()
    };
    let a = run_folder("A", "[\"x\", \"y\"]");
    let b = run_folder("B", "[\"x\"]");
    let out = run(&[&a, &b, "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("warning: `council` stands for 2 different players (they differ in: members")
            && stderr.contains(&format!("council@A ({a})"))
            && stderr.contains(&format!("council@B ({b})"))
            && stderr.contains("--split-names"),
        "{stderr}"
    );
    let names = |v: &Value| -> Vec<String> {
        let mut n: Vec<String> = v["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| p["name"].as_str().expect("name").to_string())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&json(&out)), ["council", "single"]);
    let split = run(&[&a, &b, "--format", "json", "--split-names"]);
    assert_eq!(names(&json(&split)), ["council@A", "council@B", "single"]);
    std::fs::remove_dir_all(dir).ok();
}
