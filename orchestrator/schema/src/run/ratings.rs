//! The ratings a run shows (the closing table, the standings lines while it plays,
//! `summary.json`, the live page): `council-elo`'s estimator on the run's games, so the run and
//! `council-elo runs/X/results.jsonl` give the same numbers. Ordo's model with the pool mean at
//! 0, Wald intervals scaled by the dispersion, a virtual draw per player only where the games
//! alone have no finite estimate (with the fit's note), and LOS from the fit's covariance.
//!
//! Invariant: a number is shown only where the sample supports one. A player with fewer than
//! [`MIN_RATED_GAMES`] games, or a fit that did not converge, has no rating but the reason
//! (`n/a`), never a value without its interval.

use serde::{Deserialize, Serialize};

use crate::results::GameResult;
use crate::stats::rating_fit::Estimate;
use crate::stats::{Anchor, FitOptions, GameTable, fit};

/// Fewer games than this give no rating (a rating from a handful of games would read as a
/// finding). `council-elo --by` leaves groups this small unrated too.
pub const MIN_RATED_GAMES: u64 = 10;

/// One player's rating in a run, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRating {
    /// The rating on the pool-mean scale with its 95% interval; `None` when `unrated` says why.
    pub rating: Option<Estimate>,
    /// The probability that this player is stronger than the next one down in rating order
    /// (`los_over`); `None` for the lowest rated player and the unrated.
    pub los: Option<f64>,
    pub los_over: Option<String>,
    /// Why there is no rating: too few games, a fit that did not converge.
    pub unrated: Option<String>,
}

/// How a run's ratings were fitted (`summary.json`'s `ratings`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingFit {
    /// The estimator (`council-elo`'s).
    pub model: String,
    /// How the intervals were computed, as `council-elo --format json` names it.
    pub interval_method: String,
    pub anchor: Anchor,
    /// Virtual draws per player against the pool mean (0: maximum likelihood alone).
    pub prior_draws: f64,
    /// Players with fewer games are not rated.
    pub min_games: u64,
    /// The fit's sentences (a prior added, the dispersion not estimated, ...).
    pub notes: Vec<String>,
}

/// The ratings of a run's players.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRatings {
    /// In the order of `playing`.
    pub players: Vec<(String, RunRating)>,
    /// `None` when nothing was fitted (no player had enough games, or the fit failed).
    pub fit: Option<RatingFit>,
}

impl RunRatings {
    /// The ratings of `playing` from `games`.
    pub fn of(playing: &[String], games: &[GameResult]) -> RunRatings {
        let mut table = GameTable::new();
        for g in games {
            table.add(g);
        }
        Self::of_table(playing, &table)
    }

    /// The ratings of `playing` from the games counted in `table`.
    pub fn of_table(playing: &[String], table: &GameTable) -> RunRatings {
        let games_of = |name: &str| {
            table
                .player_index(name)
                .map_or(0, |i| table.totals()[i].games())
        };
        let unrated = |why: String| RunRating {
            rating: None,
            los: None,
            los_over: None,
            unrated: Some(why),
        };
        let few = |n: u64| {
            if n == 0 {
                "no games".to_string()
            } else {
                format!("{n} games; a rating needs {MIN_RATED_GAMES}")
            }
        };
        let enough = playing.iter().any(|p| games_of(p) >= MIN_RATED_GAMES);
        let fitted = if enough {
            Some(fit(table, &FitOptions::default()))
        } else {
            None
        };
        let ratings = match fitted {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                return RunRatings {
                    players: playing
                        .iter()
                        .map(|p| (p.clone(), unrated(format!("no rating: {e}"))))
                        .collect(),
                    fit: None,
                };
            }
            None => {
                return RunRatings {
                    players: playing
                        .iter()
                        .map(|p| (p.clone(), unrated(few(games_of(p)))))
                        .collect(),
                    fit: None,
                };
            }
        };
        // The rated players, best first: each one's LOS is over the next.
        let mut rated: Vec<(usize, &String)> = playing
            .iter()
            .filter(|p| games_of(p) >= MIN_RATED_GAMES)
            .filter_map(|p| table.player_index(p).map(|i| (i, p)))
            .collect();
        rated.sort_by(|a, b| {
            ratings.players[b.0]
                .elo
                .total_cmp(&ratings.players[a.0].elo)
        });
        let players = playing
            .iter()
            .map(|p| {
                let Some(k) = rated.iter().position(|(_, name)| *name == p) else {
                    return (p.clone(), unrated(few(games_of(p))));
                };
                let i = rated[k].0;
                let r = &ratings.players[i];
                let next = rated.get(k + 1);
                (
                    p.clone(),
                    RunRating {
                        rating: Some(Estimate {
                            elo: r.elo,
                            error: r.error,
                            lower: r.lower,
                            upper: r.upper,
                        }),
                        los: next.and_then(|(j, _)| ratings.los(i, *j)),
                        los_over: next.map(|(_, name)| (*name).clone()),
                        unrated: None,
                    },
                )
            })
            .collect();
        RunRatings {
            players,
            fit: Some(RatingFit {
                model: "maximum likelihood, Ordo's model".to_string(),
                interval_method: ratings.interval_method.to_string(),
                anchor: ratings.anchor.clone(),
                prior_draws: ratings.prior_draws,
                min_games: MIN_RATED_GAMES,
                notes: ratings.notes.clone(),
            }),
        }
    }

    /// The rating of `name`, if it plays.
    pub fn of_player(&self, name: &str) -> Option<&RunRating> {
        self.players.iter().find(|(n, _)| n == name).map(|(_, r)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64, sente: &str, gote: &str, result: &str) -> GameResult {
        serde_json::from_value(serde_json::json!({
            "id": id, "sente": sente, "gote": gote, "start": "startpos", "moves": [],
            "result": result, "reason": "resign", "plies": 0,
        }))
        .expect("a results line")
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The numbers of `council-elo` on the same games: a two-player fit is the closed form.
    #[test]
    fn a_head_to_head_is_rated_as_council_elo_rates_it_with_los() {
        // 13-7 over 20 games, colours alternating.
        let games: Vec<GameResult> = (0..20)
            .map(|i| {
                let (s, g) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
                let a_wins = i < 13;
                let winner_is_sente = (s == "a") == a_wins;
                game(i, s, g, if winner_is_sente { "sente" } else { "gote" })
            })
            .collect();
        let r = RunRatings::of(&names(&["a", "b"]), &games);
        let a = r.of_player("a").expect("a");
        let b = r.of_player("b").expect("b");
        let (ea, eb) = (a.rating.expect("rated"), b.rating.expect("rated"));
        let diff = crate::stats::elo::elo_from_score(0.65);
        assert!((ea.elo - eb.elo - diff).abs() < 1e-6, "{ea:?} {eb:?}");
        assert!((ea.elo + eb.elo).abs() < 1e-9, "the pool mean is 0");
        assert!(ea.error > 50.0 && ea.error.is_finite());
        assert_eq!(a.los_over.as_deref(), Some("b"));
        assert!(a.los.expect("a LOS") > 0.9);
        assert_eq!((b.los, b.unrated.as_ref()), (None, None));
        let fit = r.fit.expect("fitted");
        assert_eq!((fit.prior_draws, fit.min_games), (0.0, MIN_RATED_GAMES));
    }

    /// 6-0 is rated with the prior council-elo adds (and its note), never clamped; too few
    /// games are `n/a` with the count.
    #[test]
    fn small_and_one_sided_samples_are_said_so() {
        let four: Vec<GameResult> = (0..4).map(|i| game(i, "a", "b", "draw")).collect();
        let r = RunRatings::of(&names(&["a", "b", "c"]), &four);
        assert_eq!(r.fit, None);
        let a = r.of_player("a").expect("a");
        assert_eq!(a.rating, None);
        assert_eq!(a.unrated.as_deref(), Some("4 games; a rating needs 10"));
        assert_eq!(
            r.of_player("c").and_then(|c| c.unrated.as_deref()),
            Some("no games")
        );

        let sweep: Vec<GameResult> = (0..12)
            .map(|i| {
                if i % 2 == 0 {
                    game(i, "a", "b", "sente")
                } else {
                    game(i, "b", "a", "gote")
                }
            })
            .collect();
        let r = RunRatings::of(&names(&["a", "b"]), &sweep);
        let a = r.of_player("a").and_then(|a| a.rating).expect("rated");
        assert!(
            a.elo > 0.0 && a.elo < 1200.0 && a.error.is_finite(),
            "{a:?}"
        );
        let fit = r.fit.expect("fitted");
        assert_eq!(fit.prior_draws, 1.0);
        assert!(
            fit.notes.iter().any(|n| n.contains("a never lost")),
            "{:?}",
            fit.notes
        );
    }
}
