//! The game sheet: what one game records as it is played (its start, the moves, each played
//! move's time, score and pv, the council votes, each kept side's cost, when it began), closed
//! with the verdict into the [`PlayedGame`] that the records and the `results.jsonl` line are
//! written from. The arbiter fills it for council-match and council-tune, the CSA client for a
//! game on a server: one sheet, so a game on a server is recorded as a local one is.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use council_schema::results::votes::CouncilVote;
use council_schema::results::{GameResult, PlayerCost};
use engine::types::{ByColor, Color, Score};
use tokio::time::Instant;

use super::adjudicate::Verdict;

/// Everything about a finished game: the results line plus what the records need.
#[derive(Debug, Clone)]
pub struct PlayedGame {
    pub result: GameResult,
    /// The principal variation each mover reported, per played move (for record comments).
    pub pvs: Vec<Vec<String>>,
    /// Number of leading moves in `result.moves` that came from the opening, not the players.
    pub opening_plies: usize,
}

/// What the sheet does not learn by playing: which game of the output it is, and who played.
#[derive(Debug, Clone)]
pub(crate) struct Heading {
    pub(crate) id: u64,
    pub(crate) pair: Option<u64>,
    pub(crate) seed: u64,
    pub(crate) names: ByColor<String>,
}

/// One game's record as it grows: one entry per played move (opening moves excepted in all but
/// `moves`), the council votes, and the cost of each side whose player is ours.
#[derive(Debug, Clone)]
pub(crate) struct Sheet {
    /// SFEN of the base position.
    start: String,
    handicap: Option<String>,
    opening_plies: usize,
    moves: Vec<String>,
    times_ms: Vec<u64>,
    scores: Vec<Option<Score>>,
    pvs: Vec<Vec<String>>,
    votes: Vec<CouncilVote>,
    /// `None` for a side whose player is not ours (a CSA server's opponent).
    costs: ByColor<Option<PlayerCost>>,
    began: Instant,
    started_unix_ms: Option<u64>,
}

impl Sheet {
    /// A new sheet from `start` (SFEN) after the `opening` moves, keeping the cost of each side
    /// `ours` names a player for. The game's clock of record starts now.
    pub(crate) fn new(
        start: String,
        handicap: Option<String>,
        opening: Vec<String>,
        ours: ByColor<Option<&str>>,
    ) -> Self {
        Sheet {
            start,
            handicap,
            opening_plies: opening.len(),
            moves: opening,
            times_ms: Vec::new(),
            scores: Vec::new(),
            pvs: Vec::new(),
            votes: Vec::new(),
            costs: ours.map(|name| {
                name.map(|n| PlayerCost {
                    player: n.to_string(),
                    ..PlayerCost::default()
                })
            }),
            began: Instant::now(),
            started_unix_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .ok()
                .map(|d| d.as_millis() as u64),
        }
    }

    /// SFEN of the base position.
    pub(crate) fn start(&self) -> &str {
        &self.start
    }

    /// Every move of the game so far, the opening's included, USI.
    pub(crate) fn moves(&self) -> &[String] {
        &self.moves
    }

    /// The council votes recorded so far.
    pub(crate) fn votes(&self) -> &[CouncilVote] {
        &self.votes
    }

    /// A played move (USI), the time it took, and what its mover said of it (`None` and no pv
    /// for a mover that is not ours).
    pub(crate) fn record_move(
        &mut self,
        usi: String,
        spent: Duration,
        score: Option<Score>,
        pv: Vec<String>,
    ) {
        self.moves.push(usi);
        self.times_ms.push(spent.as_millis() as u64);
        self.scores.push(score);
        self.pvs.push(pv);
    }

    pub(crate) fn add_votes(&mut self, votes: impl IntoIterator<Item = CouncilVote>) {
        self.votes.extend(votes);
    }

    /// `side` answered: one move's cost, its engines' time and the rest of `spent` (from the
    /// question to the answer) as overhead.
    pub(crate) fn charge(&mut self, side: Color, engine_time: Duration, spent: Duration) {
        if let Some(cost) = &mut self.costs[side] {
            cost.moves += 1;
            cost.engine_us += engine_time.as_micros() as u64;
            cost.overhead_us += spent.saturating_sub(engine_time).as_micros() as u64;
        }
    }

    /// `side` is asked to move after pondering on `expected` (if it pondered): a hit when the
    /// opponent played it, a miss otherwise.
    pub(crate) fn count_ponder(&mut self, side: Color, expected: Option<String>) {
        let (Some(expected), Some(cost)) = (expected, &mut self.costs[side]) else {
            return;
        };
        if self.moves.last() == Some(&expected) {
            cost.ponder_hits += 1;
        } else {
            cost.ponder_misses += 1;
        }
    }

    /// The played game: the sheet closed with its `verdict` under `heading`.
    pub(crate) fn finish(self, heading: Heading, verdict: Verdict) -> PlayedGame {
        let Heading {
            id,
            pair,
            seed,
            names: ByColor { sente, gote },
        } = heading;
        PlayedGame {
            result: GameResult {
                id,
                pair,
                sente,
                gote,
                start: self.start,
                handicap: self.handicap,
                plies: self.moves.len() as u32,
                opening_plies: Some(self.opening_plies as u32),
                moves: self.moves,
                result: verdict.result,
                reason: verdict.reason,
                seed,
                votes: self.votes,
                detail: Some(verdict.detail),
                times_ms: self.times_ms,
                scores: self.scores,
                costs: self.costs.into_iter().flatten().collect(),
                started_unix_ms: self.started_unix_ms,
                wall_ms: Some(self.began.elapsed().as_millis() as u64),
            },
            pvs: self.pvs,
            opening_plies: self.opening_plies,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::results::{Reason, Winner};

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    fn heading() -> Heading {
        Heading {
            id: 4,
            pair: None,
            seed: 9,
            names: ByColor {
                sente: "a".into(),
                gote: "server's".into(),
            },
        }
    }

    #[test]
    fn only_our_sides_costs_are_kept_and_ponder_is_judged_on_the_last_move() {
        let mut s = Sheet::new(
            "startpos".into(),
            None,
            vec!["7g7f".into()],
            ByColor {
                sente: None,
                gote: Some("us"),
            },
        );
        s.count_ponder(Color::Gote, Some("3c3d".into()));
        s.charge(Color::Sente, ms(5), ms(6));
        s.record_move("3c3d".into(), ms(7), None, Vec::new());
        s.count_ponder(Color::Gote, Some("2g2f".into()));
        s.count_ponder(Color::Gote, None);
        s.charge(Color::Gote, ms(30), ms(35));
        s.count_ponder(Color::Gote, Some("3c3d".into()));
        let verdict = Verdict {
            result: Winner::Gote,
            reason: Reason::Resign,
            detail: "a resigned".into(),
        };
        let g = s.finish(heading(), verdict).result;
        assert_eq!(g.costs.len(), 1, "the server's player costs us nothing");
        let c = &g.costs[0];
        assert_eq!(c.player, "us");
        assert_eq!((c.moves, c.engine_us, c.overhead_us), (1, 30_000, 5_000));
        assert_eq!((c.ponder_hits, c.ponder_misses), (1, 2));
    }

    #[test]
    fn the_played_game_holds_the_heading_the_moves_and_the_verdict() {
        let mut s = Sheet::new(
            "sfen x".into(),
            Some("2-piece".into()),
            vec!["7g7f".into()],
            ByColor {
                sente: Some("a"),
                gote: Some("b"),
            },
        );
        s.record_move(
            "3c3d".into(),
            ms(20),
            Some(Score::Cp(5)),
            vec!["3c3d".into()],
        );
        s.add_votes([]);
        let verdict = Verdict {
            result: Winner::Draw,
            reason: Reason::MaxPlies,
            detail: "2 plies".into(),
        };
        let p = s.finish(heading(), verdict);
        let g = &p.result;
        assert_eq!((g.id, g.pair, g.seed), (4, None, 9));
        assert_eq!((g.sente.as_str(), g.gote.as_str()), ("a", "server's"));
        assert_eq!(
            (g.start.as_str(), g.handicap.as_deref()),
            ("sfen x", Some("2-piece"))
        );
        assert_eq!(g.moves, ["7g7f", "3c3d"]);
        assert_eq!((g.plies, g.opening_plies, p.opening_plies), (2, Some(1), 1));
        assert_eq!(
            (g.times_ms.as_slice(), g.scores.as_slice()),
            (&[20][..], &[Some(Score::Cp(5))][..])
        );
        assert_eq!(p.pvs, [vec!["3c3d".to_string()]]);
        assert_eq!(
            (g.result, g.reason, g.detail.as_deref()),
            (Winner::Draw, Reason::MaxPlies, Some("2 plies"))
        );
        assert_eq!(g.costs.len(), 2);
    }
}
