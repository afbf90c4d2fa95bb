//! Seeded simulation of games between players of known strength, under the rating model of
//! [`super::rating_fit`]: the test suite's coverage checks and the `synthetic_results` benchmark
//! generator both draw their games here, so they replay exactly from a seed.
//!
//! Invariants: sente's expected score is `L(r_s - r_g + x)` as in the rating model (`x` is the
//! first-move advantage in even games, the handicap's worth in handicap games); the draw
//! probability is `draw_rate * 2 min(p, 1 - p)`, so the expected score is exactly `p` and draws
//! are most common between equals.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::elo::score_from_elo;
use crate::results::{GameResult, Reason, Winner};

/// A pool of players with true ratings, and how their games are played.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// (name, true Elo).
    pub players: Vec<(String, f64)>,
    /// Elo advantage of moving first in even games.
    pub first_move: f64,
    /// Draw probability between equal players, in `[0, 1]`.
    pub draw_rate: f64,
    /// (handicap name, true Elo worth to the receiver).
    pub handicaps: Vec<(String, f64)>,
    /// Fraction of games played with a handicap (receiver is sente), in `[0, 1]`.
    pub handicap_share: f64,
}

impl Pool {
    /// Draws one game's result for sente with expected score `p`.
    pub fn outcome(&self, rng: &mut ChaCha8Rng, p: f64) -> Winner {
        let draw = self.draw_rate * 2.0 * p.min(1.0 - p);
        let u: f64 = rng.random();
        if u < p - draw / 2.0 {
            Winner::Sente
        } else if u < p + draw / 2.0 {
            Winner::Draw
        } else {
            Winner::Gote
        }
    }

    /// `count` games, replayable from `seed`. Even games come in colour-swapped pairs between two
    /// random players (consecutive ids, same `pair`); a handicap game (chosen with probability
    /// `handicap_share` per pair slot) is a single game with the receiver as sente.
    pub fn games(&self, count: u64, seed: u64) -> impl Iterator<Item = GameResult> + '_ {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = self.players.len();
        let mut id = 0u64;
        let mut pending: Option<GameResult> = None;
        std::iter::from_fn(move || {
            if id >= count || n < 2 {
                return None;
            }
            if let Some(game) = pending.take() {
                id += 1;
                return Some(game);
            }
            let i = rng.random_range(0..n);
            let j = (i + rng.random_range(1..n)) % n;
            let (ri, rj) = (self.players[i].1, self.players[j].1);
            let game_id = id;
            id += 1;
            if !self.handicaps.is_empty() && rng.random::<f64>() < self.handicap_share {
                let k = rng.random_range(0..self.handicaps.len());
                let (name, worth) = &self.handicaps[k];
                let result = self.outcome(&mut rng, score_from_elo(ri - rj + worth));
                return Some(self.game(game_id, None, i, j, Some(name), result));
            }
            let first = self.outcome(&mut rng, score_from_elo(ri - rj + self.first_move));
            let second = self.outcome(&mut rng, score_from_elo(rj - ri + self.first_move));
            if id < count {
                pending = Some(self.game(id, Some(game_id), j, i, None, second));
            }
            Some(self.game(game_id, Some(game_id), i, j, None, first))
        })
    }

    fn game(
        &self,
        id: u64,
        pair: Option<u64>,
        sente: usize,
        gote: usize,
        handicap: Option<&str>,
        result: Winner,
    ) -> GameResult {
        GameResult {
            id,
            pair,
            sente: self.players[sente].0.clone(),
            gote: self.players[gote].0.clone(),
            start: match handicap {
                None => "startpos".to_owned(),
                Some(h) => format!("simulated {h} handicap"),
            },
            handicap: handicap.map(str::to_owned),
            moves: Vec::new(),
            opening_plies: Some(0),
            result,
            reason: if result == Winner::Draw {
                Reason::Repetition
            } else {
                Reason::Resign
            },
            plies: 0,
            seed: id,
            votes: Vec::new(),
            detail: None,
            times_ms: Vec::new(),
            scores: Vec::new(),
            costs: Vec::new(),
            started_unix_ms: None,
            wall_ms: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Pool {
        Pool {
            players: vec![("A".into(), 100.0), ("B".into(), 0.0), ("C".into(), -50.0)],
            first_move: 30.0,
            draw_rate: 0.3,
            handicaps: vec![("lance".into(), 120.0)],
            handicap_share: 0.2,
        }
    }

    #[test]
    fn same_seed_same_games() {
        let p = pool();
        let a: Vec<_> = p.games(500, 7).collect();
        let b: Vec<_> = p.games(500, 7).collect();
        let c: Vec<_> = p.games(500, 8).collect();
        assert_eq!(a.len(), 500);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().enumerate().all(|(i, g)| g.id == i as u64));
        assert!(a.iter().any(|g| g.handicap.is_some()));
        // A pair is one game with each colour.
        let paired: Vec<_> = a.iter().filter(|g| g.pair == Some(0)).collect();
        if paired.len() == 2 {
            assert_eq!(paired[0].sente, paired[1].gote);
        }
    }

    #[test]
    fn outcome_frequencies_have_the_intended_mean() {
        let p = pool();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let n = 200_000;
        let (mut points, mut draws) = (0.0, 0);
        for _ in 0..n {
            match p.outcome(&mut rng, 0.7) {
                Winner::Sente => points += 1.0,
                Winner::Draw => {
                    points += 0.5;
                    draws += 1
                }
                Winner::Gote => {}
            }
        }
        // Binomial standard errors are about 0.001: allow 4 of them.
        assert!((points / n as f64 - 0.7).abs() < 0.004);
        assert!((draws as f64 / n as f64 - 0.3 * 2.0 * 0.3).abs() < 0.004);
    }
}
