//! `council-match` with real engines: the built-in engine in process and over USI
//! (`council-engine`), Debian's gpsshogi and Fairy-Stockfish as council members, and sjaakii
//! (non-USI banner, `P@5e` drops, no byoyomi, `startpos` read as the last SFEN: its quirks are
//! settings). Games are checked by an independent referee (cshogi). Also: same config and seed
//! replay the same games.

use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{referee_games, workspace_bin};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("engines-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn run_match(config: &Path, out: &Path, extra: &[&str]) -> Vec<Value> {
    let run = Command::new(workspace_bin("council-match"))
        .arg(config)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .expect("run council-match");
    assert!(
        run.status.success(),
        "council-match {} failed: {}",
        config.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("player") && stdout.contains("points"),
        "standings table: {stdout}"
    );
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn require(path: &str) {
    assert!(
        Path::new(path).exists(),
        "{path} is missing: install it (sudo apt-get install -y gpsshogi fairy-stockfish sjaakii)"
    );
}

/// The moves of each game and every member's vote and score (not times), in id order.
fn games_moves(games: &[Value]) -> Vec<(u64, Value, Vec<Value>)> {
    let mut v: Vec<(u64, Value, Vec<Value>)> = games
        .iter()
        .map(|g| {
            let mut votes = Vec::new();
            for d in g["votes"].as_array().into_iter().flatten() {
                votes.push(d["chosen"].clone());
                for m in d["members"].as_array().into_iter().flatten() {
                    votes.push(m["mv"].clone());
                    votes.push(m["score"].clone());
                }
            }
            (g["id"].as_u64().expect("id"), g["moves"].clone(), votes)
        })
        .collect();
    v.sort_by_key(|g| g.0);
    v
}

#[test]
fn same_config_and_seed_replay_the_same_games_on_any_concurrency() {
    let dir = scratch("replay");
    let config = dir.join("replay.toml");
    std::fs::write(
        &config,
        r#"
[match]
players = ["council", "single"]
games = 2
max_plies = 40

[[player]]
name = "council"
kind = "council"
members = ["a", "b", "c"]
method = "ml"
nodes = 400

[[player]]
name = "single"
kind = "internal"
nodes = 400

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
    )
    .expect("write config");
    let one = run_match(
        &config,
        &dir.join("one"),
        &["--seed", "5", "--concurrency", "1"],
    );
    let two = run_match(
        &config,
        &dir.join("two"),
        &["--seed", "5", "--concurrency", "2"],
    );
    assert_eq!(one.len(), 2);
    for (a, b) in games_moves(&one).iter().zip(&games_moves(&two)) {
        assert_eq!(a.0, b.0);
        assert!(
            a.1 == b.1,
            "same seed, same moves in game {}: {} vs {}",
            a.0,
            a.1,
            b.1
        );
        let diff = a.2.iter().zip(&b.2).position(|(x, y)| x != y);
        assert!(
            diff.is_none() && a.2.len() == b.2.len(),
            "same votes in game {}: {diff:?}",
            a.0
        );
    }
    assert!(
        one.iter().all(|g| g["seed"].as_u64().is_some()),
        "seeds recorded"
    );
    // The noisy members are seeded from the master seed: another seed, other votes.
    let other = run_match(
        &config,
        &dir.join("other"),
        &["--seed", "6", "--concurrency", "2"],
    );
    assert!(
        games_moves(&one) != games_moves(&other),
        "another seed, other games"
    );
}

/// A council whose Fairy-Stockfish member sets the options `options` (TOML), run with `extra`.
fn fairy_options_run(name: &str, options: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
    let dir = scratch(name);
    let config = dir.join("options.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[match]
players = ["council", "single"]
games = 2
max_plies = 8

[[player]]
name = "council"
kind = "council"
members = ["fairy", "other"]
nodes = 500

[[player]]
name = "single"
kind = "internal"
nodes = 500

[[player]]
name = "other"
kind = "internal"
nodes = 500

[[player]]
name = "fairy"
kind = "usi"
command = "/usr/games/fairy-stockfish"
options = {options}
"#
        ),
    )
    .expect("write config");
    let out = dir.join("out");
    let run = Command::new(workspace_bin("council-match"))
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .args(extra)
        .output()
        .expect("run council-match");
    (run, out)
}

/// The one line a refused option gives.
fn refused(run: &std::process::Output) -> String {
    assert!(!run.status.success(), "the pre-flight must refuse it");
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    stderr
}

/// Fairy-Stockfish answers `setoption name Threadz` with `No such option: Threadz` and plays on
/// with its default: the pre-flight (`--check` and a run alike) compares every member's
/// `options` with the `option name` lines the engine printed, and refuses a misspelt name with
/// the closest declared one, and a spin outside its range.
#[test]
fn a_misspelt_or_out_of_range_usi_option_is_refused_before_any_game() {
    require("/usr/games/fairy-stockfish");
    for extra in [&["--check"][..], &[]] {
        let (run, out) = fairy_options_run("threadz", "{ Threadz = 1, USI_Hash = 16 }", extra);
        let line = refused(&run);
        assert!(
            line.contains("key `player.options.Threadz`")
                && line.contains("player `fairy`")
                && line.contains("no option `Threadz` (did you mean `Threads`?)"),
            "{extra:?}: {line}"
        );
        assert!(!out.join("results.jsonl").exists(), "no game was started");
    }
    let (run, _) = fairy_options_run("threads-range", "{ Threads = 100000 }", &["--check"]);
    let line = refused(&run);
    assert!(
        line.contains("player `fairy`")
            && line.contains("`Threads` = 100000 is outside the engine's range 1..512"),
        "{line}"
    );
    // Declared names in range pass.
    let (run, _) = fairy_options_run("threads-ok", "{ Threads = 1, Hash = 16 }", &["--check"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_council_of_gpsshogi_fairy_stockfish_and_the_usi_engine_plays_real_games() {
    require("/usr/games/gpsusi");
    require("/usr/games/fairy-stockfish");
    let dir = scratch("real");
    let config = dir.join("real.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[match]
players = ["council", "single"]
games = 2
max_plies = 24

[[player]]
name = "council"
kind = "council"
members = ["fairy", "gps", "usi-internal"]
method = "optimistic"
byoyomi_ms = 20000

[[player]]
name = "single"
kind = "internal"
nodes = 2000

[[player]]
name = "fairy"
kind = "usi"
command = "/usr/games/fairy-stockfish"
options = {{ Threads = 1, USI_Hash = 16 }}
nodes = 2000

[[player]]
name = "gps"
kind = "usi"
command = "/usr/games/gpsusi"
args = ["--node-count-hard-limit", "2000", "-N", "1", "--memory-use-percent", "5"]
go_nodes = false
mate_cp = 1000000
startup_timeout_ms = 60000
byoyomi_ms = 10000
win_rate_t = 300.0

[[player]]
name = "usi-internal"
kind = "usi"
command = "{}"
nodes = 2000
"#,
            workspace_bin("council-engine").display()
        ),
    )
    .expect("write config");
    let out = dir.join("out");
    let games = run_match(&config, &out, &["--concurrency", "1"]);
    assert_eq!(games.len(), 2);
    let mut decisions = 0;
    for g in &games {
        // Nothing crashed or timed out: these engines are well-behaved at these limits.
        let reason = g["reason"].as_str().expect("reason");
        assert!(
            !["crash", "timeout", "malformed_move"].contains(&reason),
            "game ended by {reason}: {}",
            g["detail"]
        );
        for v in g["votes"].as_array().expect("council votes logged") {
            decisions += 1;
            let members = v["members"].as_array().expect("members");
            assert_eq!(members.len(), 3);
            assert!(v["chosen"].is_string());
            assert!(v["overrode_strongest"].is_boolean());
            // The chosen move is one of the members' moves.
            assert!(members.iter().any(|m| m["mv"] == v["chosen"]), "{v}");
        }
    }
    assert!(decisions >= 10, "the council played its moves: {decisions}");
    // Records carry the engines' scores as floodgate-style comments.
    let csa = std::fs::read_dir(out.join("records"))
        .expect("records")
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "csa"))
        .expect("a CSA record");
    let text = std::fs::read_to_string(csa.path()).expect("CSA text");
    assert!(text.starts_with("V2.2"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("'** ")),
        "score comments: {text}"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary"))
            .expect("JSON");
    let council = &summary["councils"][0];
    assert_eq!(council["name"], "council");
    let agreement = council["agreement"].as_array().expect("agreement matrix");
    assert_eq!(agreement.len(), 3);
    for (i, row) in agreement.iter().enumerate() {
        assert_eq!(row[i], 1.0, "a member always agrees with itself");
    }
    assert!(council["differed_from"]["gps"].is_number());
    referee_games(&out, Some(24));
}

/// The drops a player made in a game (it moved on even plies as sente, odd as gote).
fn drops_by(g: &Value, player: &str) -> usize {
    let sente_first = g["start"]
        .as_str()
        .is_some_and(|s| s.split(' ').nth(1) == Some("b"));
    let plays_first = (g["sente"] == player) == sente_first;
    g["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .enumerate()
        .filter(|(i, m)| (i % 2 == 0) == plays_first && m.as_str().is_some_and(|m| m.contains('*')))
        .count()
}

const SJAAKII: &str = r#"
[[player]]
name = "sjaakii"
kind = "usi"
command = "/usr/games/sjaakii"
options = { Ponder = false, Hash = 16 }
drop_notation = "@"
go_byoyomi = false
position_startpos = false
mate_cp = 15000
byoyomi_ms = 100
"#;

#[test]
fn sjaakii_with_its_quirks_set_plays_real_games_to_a_proper_end() {
    require("/usr/games/sjaakii");
    let dir = scratch("sjaakii");
    // The bishop handicap's SFEN first, then `startpos`: one sjaakii process plays both (one
    // game at a time), so it must get the start as an SFEN, not as `startpos`.
    std::fs::write(
        dir.join("openings.txt"),
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1\nstartpos moves 7g7f 3c3d\n",
    )
    .expect("write openings");
    let config = dir.join("sjaakii.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[match]
players = ["sjaakii", "internal"]
games = 4
max_plies = 200
openings = "openings.txt"
{SJAAKII}
[[player]]
name = "internal"
kind = "internal"
nodes = 3000
"#
        ),
    )
    .expect("write config");
    let out = dir.join("out");
    let games = run_match(&config, &out, &["--concurrency", "1"]);
    assert_eq!(games.len(), 4);
    for g in &games {
        // Its `P@5e` drops were read, ours reached it translated, the clock became a movetime
        // it keeps, and each game started where it should: nothing but a proper ending.
        let reason = g["reason"].as_str().expect("reason");
        assert!(
            [
                "checkmate",
                "resign",
                "repetition",
                "perpetual_check",
                "impasse",
                "max_plies"
            ]
            .contains(&reason),
            "game {} ended by {reason}: {}",
            g["id"],
            g["detail"]
        );
    }
    let drops: usize = games.iter().map(|g| drops_by(g, "sjaakii")).sum();
    assert!(drops > 0, "sjaakii dropped pieces (as `P@5e`) in its games");
    referee_games(&out, Some(200));
}

#[test]
fn a_drop_written_with_at_is_a_malformed_move_unless_the_engine_is_configured_for_it() {
    require("/usr/games/sjaakii");
    let dir = scratch("sjaakii-strict");
    let config = dir.join("strict.toml");
    // Sente to move; P*1c mates in 3, and Sjaak II finds it at once. It gets a second a move, not
    // the 100 ms of the other tests: at 100 ms this test failed now and then on a loaded machine.
    let sjaakii = SJAAKII.replace("byoyomi_ms = 100\n", "byoyomi_ms = 1000\n");
    let strict = sjaakii
        .replace("name = \"sjaakii\"", "name = \"strict\"")
        .replace("drop_notation = \"@\"\n", "");
    std::fs::write(
        &config,
        format!(
            r#"
[match]
format = "gauntlet"
players = ["internal", "strict", "sjaakii"]
games = 2
start = "7lk/7p1/9/7N1/9/9/9/9/4K4 b P 1"
{sjaakii}{strict}
[[player]]
name = "internal"
kind = "internal"
nodes = 3000
"#
        ),
    )
    .expect("write config");
    let out = dir.join("out");
    let games = run_match(&config, &out, &["--concurrency", "1"]);
    assert_eq!(games.len(), 4);
    let as_sente = |name: &str| {
        games
            .iter()
            .find(|g| g["sente"] == name)
            .unwrap_or_else(|| panic!("{name} played sente"))
    };
    let strict = as_sente("strict");
    assert_eq!(strict["reason"], "malformed_move", "{strict}");
    assert_eq!(strict["result"], "gote");
    assert!(
        strict["detail"]
            .as_str()
            .is_some_and(|d| d.contains("P@1c")),
        "{strict}"
    );
    let configured = as_sente("sjaakii");
    assert_eq!(configured["moves"][0], "P*1c", "{configured}");
    assert_eq!(configured["result"], "sente", "{configured}");
    referee_games(&out, None);
}

#[test]
fn a_council_inside_a_council_plays_a_handicap_game_the_giver_moving_first() {
    let dir = scratch("nested");
    let config = dir.join("nested.toml");
    std::fs::write(
        &config,
        r#"
[match]
players = ["outer", "master"]
games = 2
max_plies = 16
handicap = "bishop"
handicap_giver = "master"

[[player]]
name = "master"
kind = "internal"
nodes = 300

[[player]]
name = "outer"
kind = "council"
members = ["inner", "a"]
method = "majority"
nodes = 300

[[player]]
name = "inner"
kind = "council"
members = ["b", "c"]
method = "optimistic"
fairness = "shared"

[[player]]
name = "a"
kind = "internal"
[[player]]
name = "b"
kind = "internal"
noise_cp = 50
[[player]]
name = "c"
kind = "internal"
noise_cp = 100
"#,
    )
    .expect("write config");
    let out = dir.join("out");
    let games = run_match(&config, &out, &["--concurrency", "2"]);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["gote"], "master", "the giver always plays gote");
        assert_eq!(g["handicap"], "bishop");
        assert_eq!(
            g["start"],
            "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
        );
        let votes = g["votes"].as_array().expect("votes");
        let outer: Vec<&Value> = votes.iter().filter(|v| v["council"] == "outer").collect();
        let inner: Vec<&Value> = votes.iter().filter(|v| v["council"] == "inner").collect();
        assert!(
            !outer.is_empty() && outer.len() == inner.len(),
            "both councils log"
        );
        for (o, i) in outer.iter().zip(&inner) {
            assert_eq!(o["ply"], i["ply"]);
            // The inner council's choice is the outer council's vote of member "inner".
            assert_eq!(o["members"][0]["name"], "inner");
            assert_eq!(o["members"][0]["mv"], i["chosen"]);
            // The council moves second: its plies are odd.
            assert_eq!(o["ply"].as_u64().expect("ply") % 2, 1);
        }
    }
    let kif = std::fs::read_dir(out.join("records"))
        .expect("records")
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "kif"))
        .expect("a KIF record");
    // Shift_JIS, as Japanese tools read `.kif`, with the handicap's `手合割：角落ち`.
    let bytes = std::fs::read(kif.path()).expect("KIF record");
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the .kif is not UTF-8"
    );
    let record = engine::record::GameRecord::read_file(kif.path()).expect("KIF reads");
    assert_eq!(record.handicap(), Some(engine::position::Handicap::Bishop));
}
