//! The approval method in real play: a council of built-in engines is played by `council-match`
//! and its recorded ballots are voted on again. A majority council's every decision is what
//! approval with `k = 1` chooses on the same ballots; an approval council (`approval_k = 2`)
//! records each member's ranked ballot (at most two moves, its own first) and its every recorded
//! choice is what the vote gives on those ballots.

mod common;

use std::path::{Path, PathBuf};

use orchestrator::config::Config;
use orchestrator::council::vote::{Ballot, Method, VoteSettings, decide};
use orchestrator::results::GameResult;
use orchestrator::results::votes::CouncilVote;

/// A council of three members of differing noise against a single engine, two short games.
fn config_text(method: &str) -> String {
    format!(
        r#"
[match]
players = ["council", "single"]
games = 2
max_plies = 40
seed = 5

[[player]]
name = "council"
kind = "council"
members = ["strong", "medium", "weak"]
{method}
nodes = 600

[[player]]
name = "single"
kind = "internal"
nodes = 600

[[player]]
name = "strong"
kind = "internal"
sigma = 100.0

[[player]]
name = "medium"
kind = "internal"
noise_cp = 60
sigma = 150.0

[[player]]
name = "weak"
kind = "internal"
noise_cp = 120
sigma = 150.0
"#
    )
}

/// Plays the config and returns it parsed and the run's games (the run in `<dir>/out`).
fn play(name: &str, method: &str) -> (Config, Vec<GameResult>) {
    let dir = common::scratch("approval", name);
    let path = dir.join("run.toml");
    let text = config_text(method);
    std::fs::write(&path, &text).expect("write config");
    let games = common::play(&path, &dir.join("out"));
    let config = Config::parse(Path::new("run.toml"), &text).expect("valid config");
    (config, games)
}

/// A recorded decision's ballots as the council voted on them.
fn ballots(vote: &CouncilVote, config: &Config) -> Vec<Ballot> {
    vote.members
        .iter()
        .filter_map(|m| {
            let p = config.player(&m.name);
            Some(Ballot {
                mv: m.mv.clone()?,
                eval: m.score,
                win_rate_t: p.win_rate_t,
                sigma: p.sigma,
                weight: m.weight,
                ranked: m.ranked.clone(),
            })
        })
        .collect()
}

fn decisions(games: &[GameResult]) -> Vec<&CouncilVote> {
    let v: Vec<&CouncilVote> = games.iter().flat_map(|g| &g.votes).collect();
    assert!(v.len() >= 20, "the council decided {} times", v.len());
    v
}

#[test]
fn approval_with_k_1_chooses_what_majority_chose_on_every_recorded_ballot() {
    let (config, games) = play("majority", "method = \"majority\"");
    let settings = VoteSettings { d: 100.0, k: 1 };
    let mut contested = 0;
    for v in decisions(&games) {
        let b = ballots(v, &config);
        let approval = decide(Method::Approval, settings, &b).expect("ballots");
        assert_eq!(approval.mv, v.chosen, "ply {} of {v:?}", v.ply);
        contested += usize::from(b.iter().any(|x| x.mv != b[0].mv));
    }
    assert!(contested > 0, "no decision had two different moves");
}

#[test]
fn an_approval_council_records_ranked_ballots_and_its_choices_replay_from_them() {
    let (config, games) = play("k2", "method = \"approval\"\napproval_k = 2");
    let settings = VoteSettings { d: 100.0, k: 2 };
    let mut beyond_first = 0;
    for v in decisions(&games) {
        assert_eq!(v.method, Method::Approval);
        for m in &v.members {
            let Some(mv) = &m.mv else { continue };
            assert!(
                (1..=2).contains(&m.ranked.len()) && &m.ranked[0] == mv,
                "member ballot {m:?}"
            );
        }
        let b = ballots(v, &config);
        let choice = decide(Method::Approval, settings, &b).expect("ballots");
        assert_eq!(choice.mv, v.chosen, "ply {} of {v:?}", v.ply);
        beyond_first += usize::from(b.iter().any(|x| x.ranked.len() == 2));
    }
    assert!(beyond_first > 0, "no member named a second move");

    // council-analyze council predicts the council's own method beside the four.
    let run = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("approval-k2/out");
    let out = std::process::Command::new(common::bin("council-analyze"))
        .args(["council", "--trials", "20000", "--format", "json"])
        .arg(&run)
        .output()
        .expect("run council-analyze");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let methods = report["councils"][0]["methods"]
        .as_array()
        .expect("methods");
    let names: Vec<&str> = methods
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "majority",
            "optimistic",
            "pessimistic",
            "ml",
            "approval k=2"
        ]
    );
    let p = methods[4]["predicted"].as_f64().expect("a predicted rate");
    assert!((0.0..=1.0).contains(&p), "{p}");
}
