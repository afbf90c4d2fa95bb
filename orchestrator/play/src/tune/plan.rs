//! One iteration's games, as a pure function of the tune and k: who plays whom with which
//! colours from which opening, each game's id and seed; and the tally of their outcomes into
//! the result SPSA steps on. Simulated and real games share both, so they differ only in how a
//! game's winner is found.

use serde::{Deserialize, Serialize};

use council_schema::config::{Config, Openings, TuneConfig};
use council_schema::results::Winner;
use council_schema::run::schedule::{GameSpec, Start};
use council_schema::seed::game_seed;

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(tune_extra: &str) -> Config {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\n[[player]]\nname = \"a\"\nkind = \"internal\"\n\
             nodes = 10\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n\
             [tune]\nplayer = \"a\"\niterations = 5\npairs = 2\n{tune_extra}\n\
             [[tune.param]]\npath = \"noise_cp\"\nstart = 5\nmin = 0\nmax = 10\nc_end = 1\nr_end = 0.1\n"
        );
        Config::parse(Path::new("t.toml"), &text).expect("a valid config")
    }

    #[test]
    fn an_iteration_is_pairs_with_colours_swapped_and_its_own_ids() {
        let c = config("");
        let t = c.tune.clone().expect("[tune]");
        let g = iteration_games(&c, &t, 3);
        assert_eq!(g.len(), 4);
        assert_eq!(
            g.iter().map(|s| s.id).collect::<Vec<_>>(),
            vec![12, 13, 14, 15]
        );
        assert_eq!((g[0].sente.as_str(), g[0].gote.as_str()), ("a+", "a-"));
        assert_eq!((g[1].sente.as_str(), g[1].gote.as_str()), ("a-", "a+"));
        assert_eq!(g[0].pair, g[1].pair);
        assert_ne!(g[1].pair, g[2].pair);
        assert_ne!(g[0].seed, g[1].seed);
        let o = config("opponent = \"b\"");
        let to = o.tune.clone().expect("[tune]");
        let g = iteration_games(&o, &to, 0);
        assert_eq!(g.len(), 8);
        assert!(g[..4].iter().all(|s| s.sente == "a+" || s.gote == "a+"));
        assert!(g[4..].iter().all(|s| s.sente == "a-" || s.gote == "a-"));
        assert!(g.iter().all(|s| s.sente == "b" || s.gote == "b"));
    }

    #[test]
    fn the_tally_counts_each_side_and_its_pairs() {
        let c = config("");
        let t = c.tune.clone().expect("[tune]");
        let g = iteration_games(&c, &t, 0);
        // Pair 1: a+ wins as sente, draws as gote (1½); pair 2: a+ loses both (0).
        let w = [Winner::Sente, Winner::Draw, Winner::Gote, Winner::Sente];
        let r = tally(&t, &g.into_iter().zip(w).collect::<Vec<_>>());
        assert_eq!((r.plus.w, r.plus.l, r.plus.d), (1, 2, 1));
        assert_eq!(r.plus.penta, [1, 0, 0, 1, 0]);
        assert_eq!(r.minus, None);
        assert_eq!(r.r(), -1.0);

        let o = config("opponent = \"b\"");
        let to = o.tune.clone().expect("[tune]");
        let g = iteration_games(&o, &to, 0);
        // a+ wins all four of its games; a- draws all four.
        let w: Vec<Winner> = g
            .iter()
            .map(|s| match (s.sente.as_str(), s.gote.as_str()) {
                ("a+", _) => Winner::Sente,
                (_, "a+") => Winner::Gote,
                _ => Winner::Draw,
            })
            .collect();
        let r = tally(&to, &g.into_iter().zip(w).collect::<Vec<_>>());
        assert_eq!(r.plus.w, 4);
        assert_eq!(r.plus.penta, [0, 0, 0, 0, 2]);
        let minus = r.minus.clone().expect("θ−'s games");
        assert_eq!((minus.d, minus.penta), (4, [0, 0, 2, 0, 0]));
        assert_eq!(r.r(), 4.0);
    }
}
