//! Many-player maximum-likelihood ratings: Ordo's model, plus optional first-move and handicap
//! parameters fitted with the ratings.
//!
//! Model (logistic Elo scale, draws as half points): in a game between sente `s` and gote `g`,
//! sente's expected score is `L(r_s - r_g + x)` with `L(d) = 1 / (1 + 10^(-d/400))` and
//! - `x = a` in an even game when the first-move parameter `a` is fitted (sente moves first), else 0;
//! - `x = h_k` in a game of handicap type `k`: the whole worth of that handicap to the receiver
//!   (sente, who keeps the full set), *including* the giver's first move, so `h_k` answers "how
//!   many Elo is a lance-handicap game worth to the weaker side between these engines". `a` and
//!   `h_k` never share a game, so neither hides the other.
//!
//! The log-likelihood `sum over games of s ln p + (1 - s) ln(1 - p)` (s = sente's points) is
//! maximised by Newton's method on counts grouped by [`GameTable`]. Ratings are only defined up to
//! a common shift; the anchor fixes it (a named player's rating, or the pool mean).
//!
//! Intervals are Wald intervals from the curvature of the log-likelihood (the inverse Fisher
//! information at the optimum), scaled by the dispersion `phi` = Pearson chi-square / degrees of
//! freedom: draws make the per-game score variance smaller than the binomial `p(1 - p)` the
//! half-point likelihood assumes, and `phi` (below 1 with many draws) corrects for it
//! (quasi-likelihood; McCullagh and Nelder, *Generalized Linear Models*, 2nd ed., section 9.2).
//! The anchor constraint enters through the covariance: errors are relative to the anchor player
//! (whose error is 0) or to the pool mean.
//!
//! Identifiability is checked, not assumed:
//! - An optional parameter whose games cannot tell it apart from the ratings (its design column
//!   lies in the span of the others, e.g. a handicap only ever given by A to B, who never played
//!   an even game) is not estimated. A first-move parameter is then simply left out; a handicap
//!   type's games are left out of the ratings (they carry no information about them once the
//!   handicap is free) and the result says so.
//! - Finite maximum-likelihood ratings exist only if no group of players scored every point (or no
//!   point) against the rest (Ford's condition: the "scored against" graph is strongly connected),
//!   and only if every fitted parameter's games went both ways. When that fails and no prior was
//!   asked for, one virtual draw per player against the pool average (and per parameter against
//!   zero) is added, as a note in the result says; `prior_draws` sets that number explicitly.
//!
//! The fit is a short sequence of steps, one file each: `design` (coordinates and the games as
//! sparse rows), `identify` (which optional parameters the games identify), `existence` (whether
//! finite estimates exist), `prior` (virtual draws when they do not, or when asked), `newton` (the
//! likelihood and its maximisation) and `intervals` (dispersion, covariance with the anchor
//! applied, LOS). The steps exchange plain numbers; the public types are defined here, but for `Estimate`,
//! which `intervals.rs` defines and this file re-exports.
//!
//! See: R. Ballicora, Ordo, <https://github.com/michiguel/Ordo> (model); L. R. Ford, "Solution of a
//! ranking problem from binary comparisons", Amer. Math. Monthly 64 (1957) (existence).

mod design;
mod existence;
mod identify;
mod intervals;
mod newton;
mod prior;

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::elo::Wdl;
use super::head_to_head::CONFIDENCE;
use super::table::{EVEN, GameTable};
use design::{Param, fitted_rows};
pub use intervals::Estimate;
use intervals::INTERVAL_METHOD;

/// Where the rating scale is pinned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Anchor {
    /// The mean rating of the pool is `elo`.
    PoolMean { elo: f64 },
    /// Player `name` is rated exactly `elo`.
    Player { name: String, elo: f64 },
}

impl Default for Anchor {
    fn default() -> Self {
        Anchor::PoolMean { elo: 0.0 }
    }
}

/// What to fit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FitOptions {
    pub anchor: Anchor,
    /// Fit the advantage of moving first (sente) in even games.
    pub first_move: bool,
    /// Virtual draws per player against the pool average (and per optional parameter against 0).
    /// `None`: 0 when the games identify every rating, else 1 (with a note).
    pub prior_draws: Option<f64>,
}

/// Bad input to [`fit`].
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum RatingsError {
    #[error("no games to rate")]
    NoGames,
    #[error("anchor player {0:?} played no game")]
    UnknownAnchor(String),
    #[error("prior_draws must be a finite number >= 0, got {0}")]
    BadPrior(f64),
    #[error("the rating fit did not converge in {0} iterations")]
    NotConverged(u32),
    #[error("no finite maximum-likelihood ratings without a prior: {0}")]
    NoFiniteEstimate(String),
}

/// One player's rating. Serialized flat, in this order (`council-elo --format json`'s
/// `players[]` holds it): `wdl` as `wins`, `draws`, `losses`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerRating {
    pub name: String,
    pub elo: f64,
    /// Half-width of the 95% interval (0 for the anchor player).
    pub error: f64,
    pub lower: f64,
    pub upper: f64,
    /// Every game the player played (including any left out of the fit; see the notes).
    pub games: u64,
    /// Points per game.
    pub score: f64,
    pub points: f64,
    #[serde(flatten)]
    pub wdl: Wdl,
}

/// An optional parameter (first move, or one handicap type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamEstimate {
    /// `first_move`, or the handicap type's name.
    pub name: String,
    /// Games this parameter applies to.
    pub games: u64,
    /// `None` when the data do not identify it (`note` says why).
    pub estimate: Option<Estimate>,
    pub note: Option<String>,
}

/// The fitted ratings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratings {
    /// In the table's player order (reports sort them).
    pub players: Vec<PlayerRating>,
    /// Present when the first-move parameter was asked for.
    pub first_move: Option<ParamEstimate>,
    /// One per handicap type in the games.
    pub handicaps: Vec<ParamEstimate>,
    pub anchor: Anchor,
    /// How the intervals were computed.
    pub interval_method: &'static str,
    pub confidence: f64,
    /// Pearson chi-square / degrees of freedom; the covariance is scaled by it.
    pub dispersion: f64,
    /// Virtual draws per player that were used (0 = pure maximum likelihood).
    pub prior_draws: f64,
    pub games_fitted: u64,
    pub iterations: u32,
    pub log_likelihood: f64,
    /// Things a reader must know about this fit (left-out games, priors, unidentified values).
    pub notes: Vec<String>,
    /// Covariance in Elo^2 of (players..., first move, handicaps...), anchor applied.
    #[serde(skip)]
    covariance: DMatrix<f64>,
}

impl Ratings {
    /// Covariance (Elo^2) of two players' ratings, anchor applied.
    pub fn covariance(&self, i: usize, j: usize) -> f64 {
        self.covariance[(i, j)]
    }

    /// Likelihood of superiority of player i over player j: `Phi((r_i - r_j) / sd(r_i - r_j))`;
    /// `None` on the diagonal.
    pub fn los(&self, i: usize, j: usize) -> Option<f64> {
        if i == j {
            return None;
        }
        let var = self.covariance[(i, i)] + self.covariance[(j, j)] - 2.0 * self.covariance[(i, j)];
        let diff = self.players[i].elo - self.players[j].elo;
        Some(intervals::los(diff, var))
    }

    /// The whole LOS matrix, `matrix[i][j] = los(i, j)`.
    pub fn los_matrix(&self) -> Vec<Vec<Option<f64>>> {
        let n = self.players.len();
        (0..n)
            .map(|i| (0..n).map(|j| self.los(i, j)).collect())
            .collect()
    }
}

/// Fits the ratings of every player in `table`.
pub fn fit(table: &GameTable, options: &FitOptions) -> Result<Ratings, RatingsError> {
    check_input(table, options)?;
    let mut notes = Vec::new();
    let handicap_games = handicap_game_counts(table);
    let even_games: u64 = table
        .cells()
        .filter(|((_, _, h), _)| *h == EVEN)
        .map(|(_, w)| w.games())
        .sum();

    // Which optional parameters the games identify; the games of a handicap type that is not
    // identified are left out.
    let identified = identify::identify(
        table,
        options.first_move,
        even_games,
        &handicap_games,
        &mut notes,
    );
    let layout = &identified.layout;
    let (mut rows, games_fitted) = fitted_rows(table, layout, &identified.excluded_kinds);

    // A prior where the games alone give no finite estimates (or where one was asked for).
    let separation = existence::separation(table, &identified);
    let prior = prior::prior_draws(options.prior_draws, &separation, &mut notes)?;
    rows.extend(prior::prior_rows(layout, prior));

    let optimum = newton::maximise(&rows, layout.dim()).map_err(RatingsError::NotConverged)?;

    // Intervals: dispersion from the real games, covariance with the anchor applied.
    let dispersion = intervals::dispersion(
        &rows,
        &optimum.theta,
        games_fitted,
        layout.dim(),
        &mut notes,
    );
    let (anchor_player, anchor_elo) = match &options.anchor {
        Anchor::PoolMean { elo } => (None, *elo),
        Anchor::Player { name, elo } => (Some(table.player_index(name).unwrap_or(0)), *elo),
    };
    let Some((values, covariance)) = intervals::in_elo(&optimum, dispersion, layout, anchor_player)
    else {
        return Err(RatingsError::NotConverged(optimum.iterations));
    };

    let players = player_ratings(table, &values, &covariance, anchor_elo);
    let n = layout.players;
    let param_estimate = |p: Param, name: String, games: u64| -> ParamEstimate {
        match layout.params.iter().position(|&a| a == p) {
            Some(k) => ParamEstimate {
                name,
                games,
                estimate: Some(Estimate::new(values[n + k], covariance[(n + k, n + k)])),
                note: None,
            },
            None => ParamEstimate {
                name,
                games,
                estimate: None,
                note: identified.why_not(p),
            },
        }
    };
    let first_move = options
        .first_move
        .then(|| param_estimate(Param::FirstMove, "first_move".to_owned(), even_games));
    let handicaps = (0..table.handicaps().len())
        .map(|k| {
            param_estimate(
                Param::Handicap(k),
                table.handicaps()[k].clone(),
                handicap_games[k],
            )
        })
        .collect();
    Ok(Ratings {
        players,
        first_move,
        handicaps,
        anchor: options.anchor.clone(),
        interval_method: INTERVAL_METHOD,
        confidence: CONFIDENCE,
        dispersion,
        prior_draws: prior,
        games_fitted,
        iterations: optimum.iterations,
        log_likelihood: optimum.log_likelihood,
        notes,
        covariance,
    })
}

/// The errors of [`fit`] that its input alone shows.
fn check_input(table: &GameTable, options: &FitOptions) -> Result<(), RatingsError> {
    if table.games() == 0 {
        return Err(RatingsError::NoGames);
    }
    if let Some(prior) = options.prior_draws
        && !(prior.is_finite() && prior >= 0.0)
    {
        return Err(RatingsError::BadPrior(prior));
    }
    if let Anchor::Player { name, .. } = &options.anchor
        && table.player_index(name).is_none()
    {
        return Err(RatingsError::UnknownAnchor(name.clone()));
    }
    Ok(())
}

/// Each player's rating (`values` and `covariance` in full coordinates, anchor applied) with the
/// games the table holds for it.
fn player_ratings(
    table: &GameTable,
    values: &DVector<f64>,
    covariance: &DMatrix<f64>,
    anchor_elo: f64,
) -> Vec<PlayerRating> {
    let n = table.players().len();
    let totals = table.totals();
    (0..n)
        .map(|i| {
            let est = Estimate::new(values[i] + anchor_elo, covariance[(i, i)]);
            let wdl = totals[i];
            PlayerRating {
                name: table.players()[i].clone(),
                elo: est.elo,
                error: est.error,
                lower: est.lower,
                upper: est.upper,
                games: wdl.games(),
                points: wdl.points(),
                score: wdl.points() / wdl.games().max(1) as f64,
                wdl,
            }
        })
        .collect()
}

/// Games per handicap type.
fn handicap_game_counts(table: &GameTable) -> Vec<u64> {
    let mut counts = vec![0u64; table.handicaps().len()];
    for ((_, _, h), wdl) in table.cells() {
        if h != EVEN {
            counts[h] += wdl.games();
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Reason, Winner};
    use crate::stats::elo::{ELO_PER_NAT, elo_from_score};

    fn add(t: &mut GameTable, s: &str, g: &str, h: Option<&str>, result: Winner, n: usize) {
        for _ in 0..n {
            t.add_game(s, g, h, result, Reason::Resign);
        }
    }

    /// Two players: the maximum-likelihood Elo difference is the closed form
    /// `400 log10(score / (1 - score))`, and its variance is the delta-method one.
    #[test]
    fn two_players_match_the_closed_form() {
        let mut t = GameTable::new();
        add(&mut t, "A", "B", None, Winner::Sente, 30);
        add(&mut t, "B", "A", None, Winner::Gote, 25);
        add(&mut t, "A", "B", None, Winner::Gote, 20);
        add(&mut t, "B", "A", None, Winner::Sente, 15);
        add(&mut t, "A", "B", None, Winner::Draw, 10);
        let r = fit(
            &t,
            &FitOptions {
                anchor: Anchor::Player {
                    name: "B".into(),
                    elo: 1000.0,
                },
                ..FitOptions::default()
            },
        )
        .expect("fit");
        let games = 100.0;
        let score = (55.0 + 5.0) / games;
        let expected = elo_from_score(score);
        assert!((r.players[0].elo - 1000.0 - expected).abs() < 1e-6);
        assert_eq!(r.players[1].elo, 1000.0);
        assert_eq!(r.players[1].error, 0.0);
        // Wald variance of the logit: 1 / (n p (1 - p)), times the dispersion.
        let sd = (r.dispersion / (games * score * (1.0 - score))).sqrt() * ELO_PER_NAT;
        assert!((r.players[0].error - 1.959964 * sd).abs() < 1e-3);
        // With draws the per-game variance is below p(1 - p): the dispersion is below 1.
        let var =
            (55.0 * (1.0 - score).powi(2) + 10.0 * (0.5 - score).powi(2) + 35.0 * score.powi(2))
                / games;
        let expected_phi = var / (score * (1.0 - score)) * games / (games - 1.0);
        assert!(
            (r.dispersion - expected_phi).abs() < 1e-9,
            "{}",
            r.dispersion
        );
        assert!(r.los(0, 1).expect("off-diagonal") > 0.9);
    }

    #[test]
    fn pool_mean_anchor_centres_the_ratings() {
        let mut t = GameTable::new();
        add(&mut t, "A", "B", None, Winner::Sente, 6);
        add(&mut t, "B", "A", None, Winner::Sente, 4);
        add(&mut t, "B", "C", None, Winner::Sente, 7);
        add(&mut t, "C", "B", None, Winner::Sente, 3);
        add(&mut t, "C", "A", None, Winner::Sente, 2);
        add(&mut t, "A", "C", None, Winner::Sente, 8);
        add(&mut t, "A", "C", None, Winner::Gote, 1);
        let r = fit(
            &t,
            &FitOptions {
                anchor: Anchor::PoolMean { elo: 2000.0 },
                ..FitOptions::default()
            },
        )
        .expect("fit");
        let mean: f64 = r.players.iter().map(|p| p.elo).sum::<f64>() / 3.0;
        assert!((mean - 2000.0).abs() < 1e-9);
        assert!(r.players[0].elo > r.players[1].elo && r.players[1].elo > r.players[2].elo);
        // Centred ratings sum to a constant: their covariances sum to 0 along a row.
        let row: f64 = (0..3).map(|j| r.covariance(0, j)).sum();
        assert!(row.abs() < 1e-6, "{row}");
        assert_eq!(r.prior_draws, 0.0);
    }

    #[test]
    fn perfect_scores_fall_back_to_a_prior_with_a_note() {
        let mut t = GameTable::new();
        add(&mut t, "A", "B", None, Winner::Sente, 5);
        add(&mut t, "B", "A", None, Winner::Gote, 5);
        add(&mut t, "B", "C", None, Winner::Draw, 5);
        let r = fit(&t, &FitOptions::default()).expect("fit");
        assert_eq!(r.prior_draws, 1.0);
        assert!(
            r.notes.iter().any(|n| n.contains("A never lost")),
            "{:?}",
            r.notes
        );
        assert!(r.players[0].elo.is_finite() && r.players[0].elo > r.players[1].elo + 200.0);
        let pure = fit(
            &t,
            &FitOptions {
                prior_draws: Some(0.0),
                ..FitOptions::default()
            },
        );
        assert!(
            matches!(&pure, Err(RatingsError::NoFiniteEstimate(why)) if why.contains("A never lost")),
            "{pure:?}"
        );
    }

    #[test]
    fn first_move_and_handicap_are_estimated_when_identified() {
        let mut t = GameTable::new();
        // Even games in both colours: sente scores better than gote.
        add(&mut t, "A", "B", None, Winner::Sente, 40);
        add(&mut t, "A", "B", None, Winner::Gote, 20);
        add(&mut t, "B", "A", None, Winner::Sente, 35);
        add(&mut t, "B", "A", None, Winner::Gote, 25);
        // Lance handicap: A gives, B receives (sente). B does well.
        add(&mut t, "B", "A", Some("lance"), Winner::Sente, 30);
        add(&mut t, "B", "A", Some("lance"), Winner::Gote, 20);
        let r = fit(
            &t,
            &FitOptions {
                first_move: true,
                ..FitOptions::default()
            },
        )
        .expect("fit");
        let a = r.first_move.as_ref().and_then(|p| p.estimate).expect("a");
        assert!(a.elo > 0.0);
        let lance = r.handicaps[0].estimate.expect("lance");
        assert_eq!(r.handicaps[0].games, 50);
        // r_A - r_B is pinned by the even games: lance games give B 60%, i.e. h - (r_A - r_B)
        // = elo(0.6).
        let diff = r.players[0].elo - r.players[1].elo;
        assert!((lance.elo - diff - elo_from_score(0.6)).abs() < 1e-6);
    }

    #[test]
    fn a_handicap_only_between_players_who_never_played_even_is_not_identified() {
        let mut t = GameTable::new();
        add(&mut t, "A", "B", None, Winner::Sente, 10);
        add(&mut t, "B", "A", None, Winner::Sente, 10);
        add(&mut t, "B", "A", None, Winner::Gote, 3);
        add(&mut t, "C", "A", Some("bishop"), Winner::Sente, 4);
        add(&mut t, "C", "A", Some("bishop"), Winner::Gote, 6);
        add(&mut t, "C", "B", None, Winner::Draw, 2);
        add(&mut t, "B", "C", None, Winner::Sente, 2);
        add(&mut t, "B", "C", None, Winner::Gote, 1);
        // C-B even games connect C, so "bishop" IS identified here...
        let r = fit(&t, &FitOptions::default()).expect("fit");
        assert!(r.handicaps[0].estimate.is_some());
        // ...but not once C's only games are bishop games against A.
        let mut t2 = GameTable::new();
        add(&mut t2, "A", "B", None, Winner::Sente, 10);
        add(&mut t2, "B", "A", None, Winner::Sente, 10);
        add(&mut t2, "B", "A", None, Winner::Gote, 3);
        add(&mut t2, "C", "A", Some("bishop"), Winner::Sente, 4);
        add(&mut t2, "C", "A", Some("bishop"), Winner::Gote, 6);
        let r2 = fit(&t2, &FitOptions::default()).expect("fit");
        assert!(r2.handicaps[0].estimate.is_none());
        assert!(
            r2.notes.iter().any(|n| n.contains("10 games left out")),
            "{:?}",
            r2.notes
        );
        // C then has no fitted games: the fallback prior keeps it at the pool average.
        assert_eq!(r2.prior_draws, 1.0);
    }

    #[test]
    fn first_move_without_even_games_is_reported_not_identified() {
        let mut t = GameTable::new();
        add(&mut t, "A", "B", Some("lance"), Winner::Sente, 3);
        add(&mut t, "A", "B", Some("lance"), Winner::Gote, 3);
        add(&mut t, "B", "A", Some("lance"), Winner::Sente, 3);
        add(&mut t, "B", "A", Some("lance"), Winner::Gote, 2);
        let r = fit(
            &t,
            &FitOptions {
                first_move: true,
                ..FitOptions::default()
            },
        )
        .expect("fit");
        let fm = r.first_move.expect("asked for");
        assert!(fm.estimate.is_none());
        assert_eq!(fm.note.as_deref(), Some("not identified: no even games"));
    }

    #[test]
    fn bad_options_are_errors() {
        let mut t = GameTable::new();
        assert_eq!(fit(&t, &FitOptions::default()), Err(RatingsError::NoGames));
        add(&mut t, "A", "B", None, Winner::Draw, 1);
        let unknown = FitOptions {
            anchor: Anchor::Player {
                name: "Z".into(),
                elo: 0.0,
            },
            ..FitOptions::default()
        };
        assert_eq!(
            fit(&t, &unknown),
            Err(RatingsError::UnknownAnchor("Z".into()))
        );
        let bad_prior = FitOptions {
            prior_draws: Some(-1.0),
            ..FitOptions::default()
        };
        assert_eq!(fit(&t, &bad_prior), Err(RatingsError::BadPrior(-1.0)));
    }
}
