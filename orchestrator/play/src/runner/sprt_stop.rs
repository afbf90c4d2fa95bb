//! Stopping a head-to-head early when its SPRT (`[match.sprt]`) decides.
//!
//! Invariants: the test is always on the first listed player against the second, over every
//! finished game (resumed ones included); the decision is sticky: once a bound is crossed no new
//! game starts, games already being played finish and are recorded, and `summary.json` reports
//! both the decision and the test on every finished game.

use council_schema::results::GameResult;
use council_schema::run::plan::RunPlan;
use council_schema::stats::{HeadToHeadTally, Sprt, SprtReport, SprtStatus, SprtSummary};

/// The SPRT of a running head-to-head.
#[derive(Debug, Clone)]
pub struct SprtStop {
    sprt: Sprt,
    tally: HeadToHeadTally,
    games: u64,
    last: SprtReport,
    decision: Option<(SprtStatus, u64)>,
}

impl SprtStop {
    /// `None` unless the run asks for an SPRT (head-to-head only, checked by the config).
    pub fn new(config: &RunPlan) -> Option<Self> {
        let sprt = config.sprt?;
        let [first, second] = config.playing.as_slice() else {
            return None;
        };
        let tally = HeadToHeadTally::new(first, second);
        let last = sprt.test(&tally.head_to_head());
        Some(Self {
            sprt,
            tally,
            games: 0,
            last,
            decision: None,
        })
    }

    /// Counts a finished game; returns the decision the first time a bound is crossed.
    pub fn add(&mut self, game: &GameResult) -> Option<SprtStatus> {
        if !self.tally.add(game) {
            return None;
        }
        self.games += 1;
        self.last = self.sprt.test(&self.tally.head_to_head());
        if self.decision.is_none() && self.last.status != SprtStatus::Continue {
            self.decision = Some((self.last.status, self.games));
            return Some(self.last.status);
        }
        None
    }

    /// Whether a bound has been crossed: start no more games.
    pub fn decided(&self) -> bool {
        self.decision.is_some()
    }

    /// The test on every game counted so far.
    pub fn last(&self) -> &SprtReport {
        &self.last
    }

    pub fn summary(&self) -> SprtSummary {
        SprtSummary {
            settings: self.sprt,
            last: self.last,
            decision: self
                .decision
                .map_or(SprtStatus::Continue, |(status, _)| status),
            decided_after_games: self.decision.map(|(_, games)| games),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::config::Config;
    use council_schema::results::{Reason, Winner};
    use std::path::Path;

    fn config(sprt: &str) -> RunPlan {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\ngames = 100\n{sprt}\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n"
        );
        RunPlan::of(&Config::parse(Path::new("t.toml"), &text).expect("valid config"))
    }

    fn game(id: u64, sente: &str, gote: &str, result: Winner) -> GameResult {
        let line = serde_json::json!({
            "id": id, "pair": id / 2, "sente": sente, "gote": gote, "start": "startpos",
            "moves": [], "result": result, "reason": Reason::Resign, "plies": 0,
        });
        serde_json::from_value(line).expect("a results line")
    }

    #[test]
    fn decides_once_and_keeps_counting() {
        let c = config("sprt = { elo0 = 0, elo1 = 200, model = \"logistic\" }");
        let mut stop = SprtStop::new(&c).expect("sprt configured");
        let mut decided_at = None;
        for id in 0..40 {
            // a wins every game, in colour-swapped pairs.
            let (s, g, r) = if id % 2 == 0 {
                ("a", "b", Winner::Sente)
            } else {
                ("b", "a", Winner::Gote)
            };
            if let Some(status) = stop.add(&game(id, s, g, r)) {
                assert_eq!(status, SprtStatus::AcceptH1);
                assert!(decided_at.is_none(), "decides only once");
                decided_at = Some(id + 1);
            }
        }
        let at = decided_at.expect("a perfect score accepts H1");
        assert!(stop.decided());
        let summary = stop.summary();
        assert_eq!(summary.decided_after_games, Some(at));
        assert_eq!(summary.decision, SprtStatus::AcceptH1);
        assert!(summary.last.pentanomial);
        assert_eq!(summary.last.samples, 20);
    }

    #[test]
    fn only_when_configured() {
        assert!(SprtStop::new(&config("")).is_none());
    }

    #[test]
    fn config_refuses_bad_sprt_settings() {
        let text = "[match]\nplayers = [\"a\", \"b\"]\nsprt = { elo0 = 5, elo1 = 0 }\n\
                    [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                    [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";
        let e = Config::parse(Path::new("t.toml"), text).expect_err("elo0 > elo1");
        assert!(e.to_string().contains("key `match.sprt`"), "{e}");
        let round_robin = text.replace(
            "sprt = { elo0 = 5, elo1 = 0 }",
            "format = \"round-robin\"\nsprt = { elo0 = 0, elo1 = 5 }",
        );
        let e = Config::parse(Path::new("t.toml"), &round_robin).expect_err("not head-to-head");
        assert!(e.to_string().contains("head-to-head"), "{e}");
    }
}
