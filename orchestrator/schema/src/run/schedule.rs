//! The schedule: which games a run plays, as a pure function of the run's plan (its config as
//! validated, or as `run.json` recorded it).
//!
//! Invariants: the same config gives the same list, in the same order, with the same ids and
//! seeds, so `--resume` can skip the ids already in `results.jsonl` and play exactly the rest.
//! Games that share a start position with colours swapped share a `pair` number. Rounds are
//! interleaved across pairings so an interrupted tournament is balanced.

use super::plan::RunPlan;
use crate::config::{Format, Openings};
pub(crate) use crate::seed::game_seed;

/// How a game starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// A USI position: `startpos`, `sfen ...`, with optional `moves ...`.
    Position(String),
    /// A handicap by name; the handicap giver plays gote and moves first.
    Handicap(String),
}

/// One game to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSpec {
    pub id: u64,
    pub pair: Option<u64>,
    pub sente: String,
    pub gote: String,
    pub start: Start,
    /// This game's seed, derived from the run's master seed and the game id.
    pub seed: u64,
}

/// The pairings of a format, as (first, second) player names.
pub(crate) fn pairings(format: Format, players: &[String]) -> Vec<(String, String)> {
    match format {
        Format::HeadToHead => vec![(players[0].clone(), players[1].clone())],
        Format::Gauntlet => players[1..]
            .iter()
            .map(|o| (players[0].clone(), o.clone()))
            .collect(),
        Format::RoundRobin => {
            let mut v = Vec::new();
            for (i, a) in players.iter().enumerate() {
                for b in &players[i + 1..] {
                    v.push((a.clone(), b.clone()));
                }
            }
            v
        }
    }
}

/// Every game of the run, in schedule order.
pub fn schedule(config: &RunPlan, seed: u64) -> Vec<GameSpec> {
    let pairs = pairings(config.format, &config.playing);
    let mut games = Vec::new();
    let mut id = 0;
    for round in 0..config.games {
        for (p, (a, b)) in pairs.iter().enumerate() {
            // Game `round` of this pairing: pair `round / 2`, colours swapped within the pair.
            let pair_no = round / 2;
            let swapped = round % 2 == 1;
            let (mut sente, mut gote) = if swapped { (b, a) } else { (a, b) };
            let (start, pair) = match &config.openings {
                Openings::Single(s) => (
                    Start::Position(s.clone()),
                    Some(pair_no * pairs.len() as u64 + p as u64),
                ),
                Openings::File { lines, .. } => (
                    Start::Position(lines[(pair_no % lines.len() as u64) as usize].clone()),
                    Some(pair_no * pairs.len() as u64 + p as u64),
                ),
                Openings::Handicap { name, giver } => match giver {
                    // A fixed giver always plays gote; its games are not colour-swapped pairs.
                    Some(g) => {
                        if sente == g {
                            std::mem::swap(&mut sente, &mut gote);
                        }
                        (Start::Handicap(name.clone()), None)
                    }
                    None => (
                        Start::Handicap(name.clone()),
                        Some(pair_no * pairs.len() as u64 + p as u64),
                    ),
                },
            };
            games.push(GameSpec {
                id,
                pair,
                sente: sente.clone(),
                gote: gote.clone(),
                start,
                seed: game_seed(seed, id),
            });
            id += 1;
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use std::path::Path;

    fn config(extra: &str, players: &str, format: &str) -> RunPlan {
        let text = format!(
            r#"
[match]
format = "{format}"
players = {players}
games = 4
{extra}

[[player]]
name = "a"
kind = "internal"
nodes = 10
[[player]]
name = "b"
kind = "internal"
nodes = 10
[[player]]
name = "c"
kind = "internal"
nodes = 10
"#
        );
        RunPlan::of(&Config::parse(Path::new("t.toml"), &text).expect("valid"))
    }

    #[test]
    fn head_to_head_swaps_colours_within_pairs() {
        let c = config("", r#"["a", "b"]"#, "head-to-head");
        let s = schedule(&c, 1);
        assert_eq!(s.len(), 4);
        let ids: Vec<u64> = s.iter().map(|g| g.id).collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        assert_eq!((s[0].sente.as_str(), s[0].gote.as_str()), ("a", "b"));
        assert_eq!((s[1].sente.as_str(), s[1].gote.as_str()), ("b", "a"));
        assert_eq!(s[0].pair, s[1].pair);
        assert_ne!(s[1].pair, s[2].pair);
    }

    #[test]
    fn round_robin_and_gauntlet_pairings() {
        let names = ["a", "b", "c"].map(String::from);
        assert_eq!(pairings(Format::RoundRobin, &names).len(), 3);
        let g = pairings(Format::Gauntlet, &names);
        assert!(g.iter().all(|(x, _)| x == "a"));
        assert_eq!(g.len(), 2);
        let c = config("", r#"["a", "b", "c"]"#, "round-robin");
        let s = schedule(&c, 1);
        assert_eq!(s.len(), 12);
        // Every player plays as many games as sente as gote.
        for p in &names {
            let as_sente = s.iter().filter(|g| &g.sente == p).count();
            let as_gote = s.iter().filter(|g| &g.gote == p).count();
            assert_eq!(as_sente, as_gote);
            assert_eq!(as_sente + as_gote, 8);
        }
    }

    #[test]
    fn a_fixed_handicap_giver_always_plays_gote() {
        let c = config(
            "handicap = \"bishop\"\nhandicap_giver = \"b\"",
            r#"["a", "b"]"#,
            "head-to-head",
        );
        for g in schedule(&c, 3) {
            assert_eq!(g.gote, "b");
            assert_eq!(g.start, Start::Handicap("bishop".into()));
            assert_eq!(g.pair, None);
        }
    }

    #[test]
    fn schedule_and_seeds_replay_and_depend_on_the_master_seed() {
        let c = config("", r#"["a", "b"]"#, "head-to-head");
        assert_eq!(schedule(&c, 7), schedule(&c, 7));
        let seeds: std::collections::HashSet<u64> =
            schedule(&c, 7).iter().map(|g| g.seed).collect();
        assert_eq!(seeds.len(), 4, "each game its own seed");
        assert_ne!(schedule(&c, 7)[0].seed, schedule(&c, 8)[0].seed);
    }
}
