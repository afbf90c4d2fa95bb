//! One iteration's games, as a pure function of the tune and k: who plays whom with which
//! colours from which opening, each game's id and seed; and the tally of their outcomes into
//! the result SPSA steps on. Simulated and real games share both, so they differ only in how a
//! game's winner is found.

use serde::{Deserialize, Serialize};

use crate::config::{Config, Openings, TuneConfig};
use crate::results::Winner;
use crate::runner::schedule::{GameSpec, Start};
use crate::seed::game_seed;

/// The name θ+ plays under (the tuned player's name and `+`).
pub fn plus_name(tune: &TuneConfig) -> String {
    format!("{}+", tune.player)
}

/// The name θ− plays under (the tuned player's name and `-`).
pub fn minus_name(tune: &TuneConfig) -> String {
    format!("{}-", tune.player)
}

/// Games per iteration: `pairs` pairs of θ+ against θ−, or `pairs` pairs of each against the
/// opponent.
pub fn games_per_iteration(tune: &TuneConfig) -> u64 {
    if tune.opponent.is_some() {
        4 * tune.pairs
    } else {
        2 * tune.pairs
    }
}

/// The games of iteration `k`: ids `k·G .. (k+1)·G` (G games per iteration), pair numbers
/// `id / 2`, colours swapped within a pair, openings taken in turn from the config's suite.
pub fn iteration_games(config: &Config, tune: &TuneConfig, k: u64) -> Vec<GameSpec> {
    let per = games_per_iteration(tune);
    let (plus, minus) = (plus_name(tune), minus_name(tune));
    let matchups: Vec<(String, String)> = match &tune.opponent {
        None => vec![(plus, minus)],
        Some(o) => vec![(plus, o.clone()), (minus, o.clone())],
    };
    let mut games = Vec::new();
    let mut id = k * per;
    for (a, b) in &matchups {
        for _ in 0..tune.pairs {
            let pair = id / 2;
            let start = match &config.openings {
                Openings::Single(s) => Start::Position(s.clone()),
                Openings::File { lines, .. } => {
                    Start::Position(lines[(pair % lines.len() as u64) as usize].clone())
                }
                Openings::Handicap { name, .. } => Start::Handicap(name.clone()),
            };
            for (sente, gote) in [(a, b), (b, a)] {
                games.push(GameSpec {
                    id,
                    pair: Some(pair),
                    sente: sente.clone(),
                    gote: gote.clone(),
                    start: start.clone(),
                    seed: game_seed(tune.seed, id),
                });
                id += 1;
            }
        }
    }
    games
}

/// One side's games in an iteration, from that side's point of view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideResult {
    pub w: u32,
    pub l: u32,
    pub d: u32,
    /// Pairs by the side's score in half points: 0, ½, 1, 1½, 2 (the pentanomial counts).
    pub penta: [u32; 5],
}

impl SideResult {
    fn add_pair(&mut self, half_points: [u8; 2]) {
        for h in half_points {
            match h {
                2 => self.w += 1,
                1 => self.d += 1,
                _ => self.l += 1,
            }
        }
        self.penta[usize::from(half_points[0] + half_points[1])] += 1;
    }
}

/// An iteration's result: θ+'s games, and in opponent mode θ−'s.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IterationResult {
    pub plus: SideResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<SideResult>,
}

impl IterationResult {
    /// What SPSA steps on: θ+'s wins minus losses (opponent mode: minus θ−'s).
    pub fn r(&self) -> f64 {
        let net = |s: &SideResult| f64::from(s.w) - f64::from(s.l);
        net(&self.plus) - self.minus.as_ref().map_or(0.0, net)
    }
}

/// Tally `outcomes` (each game of [`iteration_games`] with its winner, in that order).
pub fn tally(tune: &TuneConfig, outcomes: &[(GameSpec, Winner)]) -> IterationResult {
    let plus = plus_name(tune);
    let minus = minus_name(tune);
    let mut result = IterationResult {
        plus: SideResult::default(),
        minus: tune.opponent.as_ref().map(|_| SideResult::default()),
    };
    for two in outcomes.chunks(2) {
        let [(g1, w1), (g2, w2)] = two else { continue };
        // The measured side is θ+ in self-play and whichever θ plays in opponent mode.
        let against_opponent = tune.opponent.is_some();
        let minus_plays = g1.sente == minus || g1.gote == minus;
        let side = if against_opponent && minus_plays {
            &minus
        } else {
            &plus
        };
        let half = |g: &GameSpec, w: &Winner| -> u8 {
            match (w, g.sente == *side) {
                (Winner::Draw, _) => 1,
                (Winner::Sente, true) | (Winner::Gote, false) => 2,
                _ => 0,
            }
        };
        let target = if against_opponent && minus_plays {
            result.minus.get_or_insert_with(SideResult::default)
        } else {
            &mut result.plus
        };
        target.add_pair([half(g1, w1), half(g2, w2)]);
    }
    result
}
