//! A council under a real clock, end to end through `council-match` (docs/guide/clocks.md): the
//! members think in parallel on the allocation of `player::time`, the council stops waiting at
//! its deadline and votes with the ballots it has, a member that has not answered is sent
//! `stop` and recorded late but stays in the game, and only a member that does not even answer
//! `stop` within its grace sits out. Members reached through a wrapper command (as `ssh host
//! engine` would be) play, are stopped, and are killed with their process group at the end.
//!
//! Games are cut short with `max_plies` (2 to 8 council moves each) so the file stays within
//! about two minutes on two cores: the clock contract is per move, not per game. No timing is
//! asserted beyond the rules of the game (no loss on time).

use std::path::Path;

use council_tests::{all_gone, council_match, results_lines, workspace_bin};
use serde_json::Value;

/// A mock USI engine as a player, run through `command` and `args` as written.
/// An empty scratch folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn usi_player(name: &str, command: &str, args: &str) -> String {
    format!(
        "[[player]]\nname = \"{name}\"\nkind = \"usi\"\ncommand = \"{command}\"\nargs = [{args}]\n\n"
    )
}

fn mock() -> String {
    workspace_bin("mock-usi").display().to_string()
}

/// Two quick built-in members and `third`, in a council at `byoyomi_ms`, against a built-in
/// engine at a node budget (it answers at once, so the games' time is the council's).
fn council_config(header: &str, third: &str, byoyomi_ms: u64) -> String {
    format!(
        "[match]\nplayers = [\"council\", \"single\"]\n{header}\n\n\
         [[player]]\nname = \"a\"\nkind = \"internal\"\n\n\
         [[player]]\nname = \"b\"\nkind = \"internal\"\nnoise_cp = 30\n\n\
         {third}\
         [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"a\", \"b\", \"third\"]\nbyoyomi_ms = {byoyomi_ms}\n\n\
         [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 300\n"
    )
}

fn run(dir: &Path, config: &str, extra: &[&str]) -> Vec<Value> {
    let path = dir.join("config.toml");
    std::fs::write(&path, config).expect("write config");
    let out = dir.join("out");
    let run = council_match(&path, &out, extra);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    results_lines(&out)
}

fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("out/summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// The council's decisions of every game.
fn votes(games: &[Value]) -> Vec<&Value> {
    games
        .iter()
        .flat_map(|g| g["votes"].as_array().expect("votes").iter())
        .collect()
}

#[test]
fn a_council_at_one_second_byoyomi_stops_its_stalled_member_every_move_and_never_loses_on_time() {
    let dir = scratch("clocks-stall");
    // 40 games of 4 plies: two council moves each.
    let config = council_config(
        "games = 40\nmax_plies = 4",
        &usi_player("third", &mock(), r#""stall""#),
        1000,
    );
    let games = run(&dir, &config, &["--concurrency", "2"]);
    assert_eq!(games.len(), 40);
    for g in &games {
        assert_eq!(g["reason"], "max_plies", "nobody lost on time: {g}");
    }
    let votes = votes(&games);
    assert_eq!(votes.len(), 80, "two council moves a game");
    for v in &votes {
        let m = v["members"].as_array().expect("members");
        assert_eq!(m[2]["name"], "third");
        assert_eq!(m[2]["late"], true, "stopped at the deadline: {v}");
        // Its answer to `stop`, when it came at once, is named in the error, never voted.
        assert!(m[2]["error"].is_string() && m[2]["mv"].is_null(), "{v}");
        // Timings per member; the council moved with a member that was in time.
        for member in m {
            assert!(member["time_ms"].as_u64().is_some_and(|t| t > 0), "{v}");
        }
        assert!(
            m[..2].iter().any(|x| x["mv"] == v["chosen"]),
            "voted with the ballots it had: {v}"
        );
    }
    let s = summary(&dir);
    let time = &s["councils"][0]["member_time"];
    assert_eq!(time["third"]["late"], 80, "{time}");
    assert_eq!(
        time["third"]["ballots"], 80,
        "it stayed in every game: {time}"
    );
    for m in ["a", "b", "third"] {
        assert!(
            time[m]["mean_ms"].as_f64().is_some_and(|t| t > 0.0),
            "{time}"
        );
        assert!(time[m]["max_ms"].as_u64().is_some_and(|t| t > 0), "{time}");
    }
}

#[test]
fn a_member_that_ignores_stop_sits_out_the_game_after_its_grace() {
    let dir = scratch("clocks-deaf");
    // One game of 16 plies: eight council moves at 500 ms, past the 1.5 s grace.
    let config = council_config(
        "games = 1\nmax_plies = 16",
        &usi_player("third", &mock(), r#""hang""#),
        500,
    );
    let games = run(&dir, &config, &[]);
    assert_eq!(games[0]["reason"], "max_plies", "{}", games[0]);
    let third: Vec<&Value> = votes(&games).iter().map(|v| &v["members"][2]).collect();
    assert_eq!(
        third[0]["late"], true,
        "stopped at the first deadline: {:?}",
        third[0]
    );
    let killed = third
        .iter()
        .position(|m| {
            m["error"]
                .as_str()
                .is_some_and(|e| e.contains("did not answer `stop`"))
        })
        .unwrap_or_else(|| panic!("never given up on: {third:?}"));
    assert!(
        third[..killed].iter().all(|m| m["late"] == true),
        "{third:?}"
    );
    assert!(
        killed + 1 < third.len(),
        "moves were left after it: {third:?}"
    );
    for m in &third[killed + 1..] {
        assert!(
            m["error"]
                .as_str()
                .is_some_and(|e| e.contains("out of this game")),
            "{third:?}"
        );
    }
}

#[test]
fn members_behind_a_wrapper_command_play_are_stopped_and_are_killed_with_their_group() {
    let dir = scratch("clocks-wrapped");
    let pid_file = dir.join("children.txt");
    let mock = mock();
    // As `command = "ssh"`, `args = ["host", "engine"]` would be: a command that starts the
    // engine. The stalled one stays a child of the shell and starts a grandchild of its own.
    let far = usi_player(
        "far",
        "sh",
        &format!(r#""-c", "exec env COUNCIL_REMOTE=1 {mock} normal""#),
    );
    let stalled = usi_player(
        "third",
        "sh",
        &format!(
            r#""-c", "{mock} stall --child-pid-file {}""#,
            pid_file.display()
        ),
    );
    let config = format!(
        "[match]\nplayers = [\"council\", \"single\"]\ngames = 2\nmax_plies = 6\n\n\
         [[player]]\nname = \"a\"\nkind = \"internal\"\n\n{far}{stalled}\
         [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"a\", \"far\", \"third\"]\nbyoyomi_ms = 500\n\n\
         [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 300\n"
    );
    let games = run(&dir, &config, &[]);
    assert_eq!(games.len(), 2);
    for v in votes(&games) {
        let m = &v["members"];
        assert!(m[1]["mv"].is_string(), "the wrapped member voted: {v}");
        assert_eq!(
            m[2]["late"], true,
            "the wrapped stalled member was stopped: {v}"
        );
    }
    if let Err(e) = all_gone(&pid_file) {
        panic!("the wrapped member's process group outlived the run: {e}");
    }
}

/// A head-to-head of a mock engine that spends its whole allowance as the `go` states it, plus
/// `offset_ms` (`mock-usi spend`), under 1 s + 300 ms Fischer with no timeout margin, against a
/// quick built-in engine: two games, colours swapped.
fn spender_games(dir: &Path, offset_ms: i64) -> Vec<Value> {
    let config = format!(
        "[match]\nplayers = [\"spender\", \"single\"]\ngames = 2\nmax_plies = 6\n\
         timeout_margin_ms = 0\n\n\
         [[player]]\nname = \"spender\"\nkind = \"usi\"\ncommand = \"{}\"\n\
         args = [\"spend\", \"--spend-offset-ms\", \"{offset_ms}\"]\n\
         time_ms = 1000\nincrement_ms = 300\n\n\
         [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 300\n",
        mock()
    );
    run(dir, &config, &[])
}

/// Shogi's increment rule at the arbiter (docs/guide/clocks.md): the increment is credited
/// before the move, so an engine told `btime B binc I` may spend up to `B + I`. One that spends
/// its allowance less 50 ms every move is never flagged (its first move alone takes 1.25 s, more
/// than its 1 s main time); one that spends 50 ms more loses on time at its first move.
#[test]
fn an_engine_may_spend_btime_plus_binc_and_not_past_it() {
    let dir = scratch("clocks-fischer-in-time");
    for g in spender_games(&dir, -50) {
        assert_eq!(g["reason"], "max_plies", "never flagged: {g}");
        let spender_first = usize::from(g["sente"] != "spender");
        let first_ms = g["times_ms"][spender_first].as_u64().expect("a time");
        assert!(
            first_ms > 1000,
            "the first move used the increment as well as the main time: {g}"
        );
    }
    let dir = scratch("clocks-fischer-late");
    for g in spender_games(&dir, 50) {
        assert_eq!(g["reason"], "timeout", "{g}");
        let winner = if g["sente"] == "spender" {
            "gote"
        } else {
            "sente"
        };
        assert_eq!(g["result"], winner, "the spender lost: {g}");
        let plies = g["moves"].as_array().expect("moves").len();
        assert!(plies <= 1, "flagged at its first move: {g}");
    }
}
