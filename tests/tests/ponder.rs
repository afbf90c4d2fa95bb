//! Pondering end to end through `council-match` (docs/guide/clocks.md): a player with
//! `ponder = true` thinks in its opponent's time on the reply it expects; the arbiter counts a
//! hit when the opponent played it (`ponderhit`) and a miss otherwise (`stop`, the pondered
//! answer dropped, a fresh `go`). The mock engines all play the first legal move: `predict`
//! expects the first legal reply (always right against them), `mispredict` another one (never
//! right), and a pondered answer taken for the real position would show as a move that is not
//! the first legal one.
//!
//! Games are cut short with `max_plies` (24 plies or fewer) so the file runs in seconds.

use std::path::Path;

use council_tests::{council_match, results_lines, workspace_bin};
use engine::position::Position;
use serde_json::Value;

/// An empty scratch folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn mock_player(name: &str, scenario: &str, extra: &str) -> String {
    format!(
        "[[player]]\nname = \"{name}\"\nkind = \"usi\"\ncommand = \"{}\"\nargs = [\"{scenario}\", \"--delay-ms\", \"5\"]\nbyoyomi_ms = 300\n{extra}\n",
        workspace_bin("mock-usi").display()
    )
}

fn run(dir: &Path, config: &str) -> (std::process::Output, Vec<Value>, Value) {
    let path = dir.join("config.toml");
    std::fs::write(&path, config).expect("write config");
    let out = dir.join("out");
    let run = council_match(&path, &out, &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    let summary = serde_json::from_str(&summary).expect("summary.json is JSON");
    (run, results_lines(&out), summary)
}

/// Every move of the game is the first legal move of its position: what every mock plays, so
/// no pondered answer was taken for another position and no move was played twice.
fn each_move_is_the_first_legal_one(g: &Value) {
    let mut pos = Position::startpos();
    for (ply, mv) in g["moves"].as_array().expect("moves").iter().enumerate() {
        let first = pos.legal_moves()[0];
        assert_eq!(
            mv.as_str(),
            Some(first.to_usi().as_str()),
            "ply {ply} of {g}"
        );
        pos.play(first);
    }
}

/// `player`'s ponder hits and misses in game `g`, and the moves it played.
fn ponder_counts(g: &Value, player: &str) -> (u64, u64, u64) {
    let c = g["costs"]
        .as_array()
        .expect("costs")
        .iter()
        .find(|c| c["player"] == player)
        .expect("the player's cost");
    let n = |k: &str| c[k].as_u64().unwrap_or(0);
    (n("ponder_hits"), n("ponder_misses"), n("moves"))
}

#[test]
fn pondering_engines_hit_and_miss_and_every_move_is_played_once() {
    let dir = scratch("ponder-engines");
    let config = format!(
        "[match]\nformat = \"round-robin\"\nplayers = [\"seer\", \"blind\", \"plain\"]\ngames = 2\nmax_plies = 24\n\n{}{}{}",
        mock_player("seer", "predict", "ponder = true"),
        mock_player("blind", "mispredict", "ponder = true"),
        mock_player("plain", "normal", ""),
    );
    let (run, games, summary) = run(&dir, &config);
    assert_eq!(games.len(), 6);
    for g in &games {
        assert_eq!(
            g["reason"], "max_plies",
            "no loss on time, no illegal move: {g}"
        );
        each_move_is_the_first_legal_one(g);
        for side in ["sente", "gote"] {
            let name = g[side].as_str().expect("a name");
            let (hits, misses, moves) = ponder_counts(g, name);
            match name {
                // It pondered after each of its moves but the last.
                "seer" => assert_eq!((hits, misses), (moves - 1, 0), "{g}"),
                "blind" => assert_eq!((hits, misses), (0, moves - 1), "{g}"),
                _ => assert_eq!((hits, misses), (0, 0), "{g}"),
            }
        }
    }
    let rate = |name: &str| {
        summary["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| p["ponder_hit_rate"].clone())
    };
    assert_eq!(rate("seer"), Some(Value::from(1.0)));
    assert_eq!(rate("blind"), Some(Value::from(0.0)));
    assert_eq!(rate("plain"), Some(Value::Null));
    let _ = run;
}

#[test]
fn a_pondering_council_ponders_on_its_members_expected_reply() {
    let dir = scratch("ponder-council");
    let config = format!(
        "[match]\nplayers = [\"council\", \"plain\"]\ngames = 2\nmax_plies = 16\n\n{}{}{}{}\
         [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"p1\", \"p2\", \"m\"]\nbyoyomi_ms = 400\nponder = true\n",
        mock_player("p1", "predict", "ponder = true"),
        mock_player("p2", "predict", "ponder = true"),
        mock_player("m", "mispredict", ""),
        mock_player("plain", "normal", ""),
    );
    let (_, games, summary) = run(&dir, &config);
    for g in &games {
        assert_eq!(g["reason"], "max_plies", "{g}");
        each_move_is_the_first_legal_one(g);
        let (hits, misses, moves) = ponder_counts(g, "council");
        assert_eq!((hits, misses), (moves - 1, 0), "{g}");
        for v in g["votes"].as_array().expect("votes") {
            for m in v["members"].as_array().expect("members") {
                assert!(m["mv"].is_string(), "every member voted in time: {v}");
            }
        }
    }
    let council = summary["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == "council")
        .expect("the council");
    assert_eq!(council["ponder_hit_rate"], 1.0);
}

#[test]
fn ponder_on_the_built_in_engine_is_refused_with_the_key_named() {
    let dir = scratch("ponder-internal");
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        "[match]\nplayers = [\"a\", \"b\"]\n\n[[player]]\nname = \"a\"\nkind = \"internal\"\nponder = true\n\n[[player]]\nname = \"b\"\nkind = \"internal\"\n",
    )
    .expect("write config");
    let run = council_match(&path, &dir.join("out"), &[]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("ponder") && stderr.contains("does not ponder in process"),
        "{stderr}"
    );
}

/// The `> ` lines sent to `player` in an engine log, in order (their text after `> `).
fn sent_to(log: &str, player: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let mut w = l.splitn(5, ' ');
            let (_, _, who, dir, text) = (w.next()?, w.next()?, w.next()?, w.next()?, w.next()?);
            (who == player && dir == ">").then(|| text.to_string())
        })
        .collect()
}

#[test]
fn the_reply_named_in_bestmove_is_pondered_on_without_any_pv() {
    // `ponder-named` prints no `info` at all: `bestmove M ponder R` (R the first legal reply,
    // which its opponent always plays) is the only place it names the reply.
    let dir = scratch("ponder-named");
    let config = format!(
        "[match]\nplayers = [\"named\", \"plain\"]\ngames = 2\nmax_plies = 16\n\n{}{}",
        mock_player("named", "ponder-named", "ponder = true\nlog = true"),
        mock_player("plain", "normal", ""),
    );
    let (run, games, _) = run(&dir, &config);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["reason"], "max_plies", "{g}");
        each_move_is_the_first_legal_one(g);
        let (hits, misses, moves) = ponder_counts(g, "named");
        assert_eq!((hits, misses), (moves - 1, 0), "{g}");
    }
    // Each `go ponder` follows the position after its move and the reply it named.
    let log = std::fs::read_to_string(dir.join("out/engines.log")).expect("engines.log");
    let sent = sent_to(&log, "named");
    let mut pondered = 0;
    for pair in sent.windows(2) {
        if !pair[1].starts_with("go ponder") {
            continue;
        }
        pondered += 1;
        let position = Position::from_usi_position(
            pair[0].strip_prefix("position ").expect("a position first"),
        )
        .expect("a position the log names");
        let moves = position.moves();
        let (reply, before) = moves.split_last().expect("a reply");
        let mut pos = Position::startpos();
        for m in before {
            pos.play(*m);
        }
        assert_eq!(*reply, pos.legal_moves()[0], "{}", pair[0]);
    }
    assert!(pondered >= 2, "it pondered: {log}");
    let _ = run;
}

/// Each pondering fault (the `ponder-*` mocks commit theirs at their first `go ponder`, after
/// their first move) against a well-behaved engine: the offender loses at its next move, with
/// the reason and a detail naming it; the opponent played every move it was asked for.
#[test]
fn each_pondering_fault_is_a_loss_of_the_offender_and_nothing_else() {
    let dir = scratch("ponder-faults");
    // (name, scenario, reason, words of the detail)
    let offenders = [
        ("crasher", "ponder-crash", "crash", "exited with status 3"),
        ("deaf", "ponder-deaf", "crash", "did not answer `stop`"),
        ("cheater", "ponder-illegal", "illegal_move", ""),
        ("garbler", "ponder-malformed", "malformed_move", "5e5%"),
        ("eager", "ponder-early", "malformed_move", "while pondering"),
    ];
    let mut config = String::from(
        "[match]\nformat = \"gauntlet\"\ngames = 2\nmax_plies = 16\nplayers = [\"good\"",
    );
    for (name, ..) in &offenders {
        config.push_str(&format!(", \"{name}\""));
    }
    config.push_str("]\n\n");
    config.push_str(&mock_player("good", "normal", ""));
    for (name, scenario, ..) in &offenders {
        config.push_str(&mock_player(name, scenario, "ponder = true"));
    }
    let (_, games, _) = run(&dir, &config);
    assert_eq!(games.len(), 2 * offenders.len(), "every game recorded");
    for (name, scenario, reason, words) in offenders {
        let theirs: Vec<&Value> = games
            .iter()
            .filter(|g| g["sente"] == name || g["gote"] == name)
            .collect();
        assert_eq!(theirs.len(), 2, "{name} played twice");
        for g in theirs {
            let (side, other) = if g["sente"] == name {
                ("sente", "gote")
            } else {
                ("gote", "sente")
            };
            assert_eq!(g["reason"], reason, "{name}: {g}");
            assert_eq!(g["result"], other, "{name} is the one that loses: {g}");
            let detail = g["detail"].as_str().expect("a detail");
            assert!(
                detail.contains(name) && detail.contains(words),
                "{name}: {detail}"
            );
            // It failed at its second move, right after its first ponder: as sente after two
            // plies, as gote after three; every move played is a well-behaved one. The early
            // `bestmove` is seen when it came before `ponderhit` was sent: on a loaded machine
            // the opponent's move may come first, and then a later ponder is the one caught,
            // still at a move of its own.
            let first = if side == "sente" { 2 } else { 3 };
            let plies = g["moves"].as_array().map_or(0, Vec::len);
            if scenario == "ponder-early" {
                assert!(plies >= first && plies % 2 == first % 2, "{g}");
            } else {
                assert_eq!(plies, first, "{g}");
            }
            each_move_is_the_first_legal_one(g);
        }
    }
}

/// The same faults in council members: the faulty member is left out of the vote at the move
/// after its ponder (its error in the vote record), and the council plays on to the end.
#[test]
fn a_council_member_with_a_pondering_fault_is_left_out_of_that_vote() {
    let dir = scratch("ponder-council-faults");
    let faults = [
        ("ponder-crash", "exited with status 3"),
        ("ponder-deaf", "did not answer `stop`"),
        ("ponder-illegal", "illegal move"),
        ("ponder-malformed", "5e5%"),
        ("ponder-early", "while pondering"),
    ];
    for (scenario, words) in faults {
        // The council ponders on the reply most members expect: for `stop` to reach the deaf
        // member, that reply must be one the opponent does not play.
        let friends = if scenario == "ponder-deaf" {
            "mispredict"
        } else {
            "predict"
        };
        let config = format!(
            "[match]\nplayers = [\"council\", \"plain\"]\ngames = 2\nmax_plies = 12\n\n{}{}{}{}\
             [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"p1\", \"p2\", \"bad\"]\nbyoyomi_ms = 3000\nponder = true\n",
            mock_player("p1", friends, "ponder = true"),
            mock_player("p2", friends, "ponder = true"),
            mock_player("bad", scenario, "ponder = true"),
            mock_player("plain", "normal", ""),
        );
        let sub = dir.join(scenario);
        std::fs::create_dir_all(&sub).expect("a folder");
        let (_, games, _) = run(&sub, &config);
        assert_eq!(games.len(), 2, "{scenario}");
        for g in &games {
            assert_eq!(g["reason"], "max_plies", "{scenario}: {g}");
            each_move_is_the_first_legal_one(g);
            let errors: Vec<String> = g["votes"]
                .as_array()
                .expect("votes")
                .iter()
                .flat_map(|v| v["members"].as_array().expect("members").clone())
                .filter(|m| m["name"] == "bad")
                .filter_map(|m| m["error"].as_str().map(String::from))
                .collect();
            assert!(
                errors.first().is_some_and(|e| e.contains(words)),
                "{scenario}: the member's first error names its fault: {errors:?}"
            );
        }
    }
}
