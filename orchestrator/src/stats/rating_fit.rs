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
//! See: R. Ballicora, Ordo, <https://github.com/michiguel/Ordo> (model); L. R. Ford, "Solution of a
//! ranking problem from binary comparisons", Amer. Math. Monthly 64 (1957) (existence).

use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use thiserror::Error;

use super::elo::{ELO_PER_NAT, Wdl, phi, z_two_sided};
use super::head_to_head::CONFIDENCE;
use super::table::{EVEN, GameTable};

/// Largest |parameter| in natural-log units (about 7000 Elo) before the fit counts as diverging.
const DIVERGENCE: f64 = 40.0;
const MAX_ITERATIONS: u32 = 200;

/// Where the rating scale is pinned.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// A value in Elo with its 95% Wald interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub error: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Estimate {
    fn new(elo: f64, variance: f64) -> Self {
        let error = z_two_sided(CONFIDENCE) * variance.max(0.0).sqrt();
        Self {
            elo,
            error,
            lower: elo - error,
            upper: elo + error,
        }
    }
}

/// One player's rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerRating {
    pub name: String,
    pub elo: f64,
    /// Half-width of the 95% interval (0 for the anchor player).
    pub error: f64,
    pub lower: f64,
    pub upper: f64,
    /// Every game the player played (including any left out of the fit; see the notes).
    pub games: u64,
    pub points: f64,
    /// Points per game.
    pub score: f64,
    pub wdl: Wdl,
}

/// An optional parameter (first move, or one handicap type).
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// Name of the interval method, as reports print it.
pub const INTERVAL_METHOD: &str = "hessian";

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
        Some(if var > 0.0 {
            phi(diff / var.sqrt())
        } else if diff > 0.0 {
            1.0
        } else if diff < 0.0 {
            0.0
        } else {
            0.5
        })
    }

    /// The whole LOS matrix, `matrix[i][j] = los(i, j)`.
    pub fn los_matrix(&self) -> Vec<Vec<Option<f64>>> {
        let n = self.players.len();
        (0..n)
            .map(|i| (0..n).map(|j| self.los(i, j)).collect())
            .collect()
    }
}

/// One group of games for the likelihood: design entries (parameter index, +-1) and counts.
struct Row {
    /// Sparse design vector in reduced coordinates.
    x: Vec<(usize, f64)>,
    games: f64,
    /// Sente's points.
    points: f64,
    /// Sum of squared per-game scores (for the dispersion); `None` for virtual games.
    squares: Option<f64>,
}

/// Fits the ratings of every player in `table`.
pub fn fit(table: &GameTable, options: &FitOptions) -> Result<Ratings, RatingsError> {
    if table.games() == 0 {
        return Err(RatingsError::NoGames);
    }
    if let Some(prior) = options.prior_draws
        && !(prior.is_finite() && prior >= 0.0)
    {
        return Err(RatingsError::BadPrior(prior));
    }
    let n = table.players().len();
    if let Anchor::Player { name, .. } = &options.anchor
        && table.player_index(name).is_none()
    {
        return Err(RatingsError::UnknownAnchor(name.clone()));
    }
    let mut notes = Vec::new();

    // Parameter layout: ratings of players 1..n (player 0 is fixed at 0), then the candidates.
    let rating_params = n - 1;
    let rating_col = |player: usize| (player > 0).then(|| player - 1);
    let handicap_games = handicap_game_counts(table);
    let even_games: u64 = table
        .cells()
        .filter(|((_, _, h), _)| *h == EVEN)
        .map(|(_, w)| w.games())
        .sum();

    // Candidate optional parameters, in order: first move, then handicap types.
    #[derive(Clone, Copy, PartialEq)]
    enum Param {
        FirstMove,
        Handicap(usize),
    }
    let mut candidates = Vec::new();
    let mut first_move_note = None;
    if options.first_move {
        if even_games > 0 {
            candidates.push(Param::FirstMove);
        } else {
            first_move_note = Some("not identified: no even games".to_owned());
        }
    }
    candidates.extend((0..table.handicaps().len()).map(Param::Handicap));

    // Identification: is each candidate's design column independent of the ratings' and of the
    // candidates accepted before it? (Schur complement of the Gram matrix with a tiny ridge on
    // the ratings, so that disconnected pools do not make the check itself singular.)
    let column_of = |param: Param, h: usize| match param {
        Param::FirstMove => h == EVEN,
        Param::Handicap(k) => h == k,
    };
    let mut accepted: Vec<Param> = Vec::new();
    let mut rejected: Vec<(Param, String)> = Vec::new();
    for &cand in &candidates {
        let trial: Vec<Param> = accepted.iter().copied().chain([cand]).collect();
        let dim = rating_params + trial.len();
        let mut gram = DMatrix::<f64>::zeros(dim, dim);
        for ((s, g, h), wdl) in table.cells() {
            let mut x: Vec<(usize, f64)> = Vec::new();
            push_rating(&mut x, rating_col(s), 1.0);
            push_rating(&mut x, rating_col(g), -1.0);
            for (k, &p) in trial.iter().enumerate() {
                if column_of(p, h) {
                    x.push((rating_params + k, 1.0));
                }
            }
            add_outer(&mut gram, &x, wdl.games() as f64);
        }
        let scale = (0..dim).map(|i| gram[(i, i)]).fold(0.0, f64::max).max(1.0);
        for i in 0..rating_params {
            gram[(i, i)] += 1e-9 * scale;
        }
        let last = dim - 1;
        let residual = schur_residual(&gram, last);
        if residual > 1e-6 * gram[(last, last)] {
            accepted.push(cand);
        } else {
            let why = match cand {
                Param::FirstMove => {
                    "not identified: in the even games, who moved first cannot be told apart from who played"
                        .to_owned()
                }
                Param::Handicap(_) => {
                    "not identified: its games cannot be told apart from the players' ratings (the players involved need games between them without this handicap)"
                        .to_owned()
                }
            };
            rejected.push((cand, why));
        }
    }
    let excluded_kinds: Vec<usize> = rejected
        .iter()
        .filter_map(|(p, _)| match p {
            Param::Handicap(k) => Some(*k),
            Param::FirstMove => None,
        })
        .collect();
    for &k in &excluded_kinds {
        notes.push(format!(
            "handicap {:?}: {} games left out of the ratings because its value is not identified",
            table.handicaps()[k],
            handicap_games[k]
        ));
    }

    // Rows of the likelihood over the games that are fitted.
    let param_col = |p: Param| {
        accepted
            .iter()
            .position(|&a| a == p)
            .map(|i| rating_params + i)
    };
    let dim = rating_params + accepted.len();
    let mut rows = Vec::new();
    let mut games_fitted = 0u64;
    for ((s, g, h), wdl) in table.cells() {
        if h != EVEN && excluded_kinds.contains(&h) {
            continue;
        }
        let mut x = Vec::new();
        push_rating(&mut x, rating_col(s), 1.0);
        push_rating(&mut x, rating_col(g), -1.0);
        let param = if h == EVEN {
            param_col(Param::FirstMove)
        } else {
            param_col(Param::Handicap(h))
        };
        if let Some(c) = param {
            x.push((c, 1.0));
        }
        games_fitted += wdl.games();
        rows.push(Row {
            x,
            games: wdl.games() as f64,
            points: wdl.points(),
            squares: Some(wdl.wins as f64 + 0.25 * wdl.draws as f64),
        });
    }

    // Existence of finite estimates (Ford's condition and one-sided parameters).
    let mut separation = ford_violations(table, &excluded_kinds);
    for &p in &accepted {
        let (points, games) = table
            .cells()
            .filter(|((_, _, h), _)| column_of(p, *h))
            .fold((0.0, 0u64), |(pts, n), (_, w)| {
                (pts + w.points(), n + w.games())
            });
        if points == 0.0 || points == games as f64 {
            let name = match p {
                Param::FirstMove => "first move".to_owned(),
                Param::Handicap(k) => format!("handicap {:?}", table.handicaps()[k]),
            };
            let side = if points == 0.0 { "lost" } else { "won" };
            separation.push(format!(
                "{name}: the side it favours {side} every one of its {games} games"
            ));
        }
    }
    let prior = match options.prior_draws {
        Some(prior) if prior == 0.0 && !separation.is_empty() => {
            return Err(RatingsError::NoFiniteEstimate(separation.join("; ")));
        }
        Some(prior) => prior,
        None if separation.is_empty() => 0.0,
        None => {
            notes.push(format!(
                "the games alone give no finite maximum-likelihood ratings ({}); one virtual draw per player against the pool average (and per parameter against 0) was added",
                separation.join("; ")
            ));
            1.0
        }
    };
    if prior > 0.0 {
        // Player i drawing against the pool average: x = e_i - mean of all e_j.
        for i in 0..n {
            let mut x = Vec::new();
            for j in 0..n {
                let w = if i == j { 1.0 } else { 0.0 } - 1.0 / n as f64;
                push_rating(&mut x, rating_col(j), w);
            }
            rows.push(virtual_draws(x, prior));
        }
        for c in rating_params..dim {
            rows.push(virtual_draws(vec![(c, 1.0)], prior));
        }
    }

    let (theta, info, iterations, log_likelihood) = newton(&rows, dim)?;

    // Dispersion from the real games.
    let pearson: f64 = rows
        .iter()
        .filter_map(|row| {
            let squares = row.squares?;
            let p = sigmoid(dot(&row.x, &theta));
            let var = p * (1.0 - p);
            (var > 0.0).then(|| (squares - 2.0 * p * row.points + row.games * p * p) / var)
        })
        .sum();
    let df = games_fitted as f64 - dim as f64;
    let dispersion = if df > 0.0 && pearson > 0.0 {
        pearson / df
    } else {
        notes.push("too few games to estimate the dispersion; intervals assume 1".to_owned());
        1.0
    };

    let cov_reduced = match info.clone().cholesky() {
        Some(ch) => ch.inverse() * dispersion,
        None => return Err(RatingsError::NotConverged(iterations)),
    };

    // Full coordinates: players 0..n, then accepted params. J maps reduced -> full.
    let full = n + accepted.len();
    let mut j_map = DMatrix::<f64>::zeros(full, dim);
    for i in 1..n {
        j_map[(i, i - 1)] = 1.0;
    }
    for k in 0..accepted.len() {
        j_map[(n + k, rating_params + k)] = 1.0;
    }
    // Anchor transform on the rating block.
    let mut t_map = DMatrix::<f64>::identity(full, full);
    let anchor_elo = match &options.anchor {
        Anchor::PoolMean { elo } => {
            for i in 0..n {
                for j in 0..n {
                    t_map[(i, j)] -= 1.0 / n as f64;
                }
            }
            *elo
        }
        Anchor::Player { name, elo } => {
            let a = table.player_index(name).unwrap_or(0);
            for i in 0..n {
                t_map[(i, a)] -= 1.0;
            }
            *elo
        }
    };
    let map = &t_map * &j_map * ELO_PER_NAT;
    let values = &map * DVector::from_column_slice(theta.as_slice());
    let covariance = &map * cov_reduced * map.transpose();

    let totals = table.totals();
    let players = (0..n)
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
        .collect();
    let param_estimate = |p: Param, name: String, games: u64| -> ParamEstimate {
        match accepted.iter().position(|&a| a == p) {
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
                note: rejected
                    .iter()
                    .find(|(r, _)| *r == p)
                    .map(|(_, why)| why.clone())
                    .or_else(|| first_move_note.clone()),
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
        iterations,
        log_likelihood,
        notes,
        covariance,
    })
}

fn virtual_draws(x: Vec<(usize, f64)>, count: f64) -> Row {
    Row {
        x,
        games: count,
        points: count / 2.0,
        squares: None,
    }
}

fn push_rating(x: &mut Vec<(usize, f64)>, col: Option<usize>, w: f64) {
    if let Some(c) = col {
        if let Some(entry) = x.iter_mut().find(|(i, _)| *i == c) {
            entry.1 += w;
        } else {
            x.push((c, w));
        }
    }
}

fn add_outer(m: &mut DMatrix<f64>, x: &[(usize, f64)], weight: f64) {
    for &(i, xi) in x {
        for &(j, xj) in x {
            m[(i, j)] += weight * xi * xj;
        }
    }
}

fn dot(x: &[(usize, f64)], theta: &DVector<f64>) -> f64 {
    x.iter().map(|&(i, w)| w * theta[i]).sum()
}

fn sigmoid(eta: f64) -> f64 {
    1.0 / (1.0 + (-eta).exp())
}

/// `ln L(eta)` for `points` out of `games`, computed without overflow.
fn log_likelihood_row(eta: f64, games: f64, points: f64) -> f64 {
    // ln p = -ln(1 + e^-eta), ln(1 - p) = -ln(1 + e^eta)
    let ln1pexp = |z: f64| {
        if z > 0.0 {
            z + (-z).exp().ln_1p()
        } else {
            z.exp().ln_1p()
        }
    };
    -points * ln1pexp(-eta) - (games - points) * ln1pexp(eta)
}

/// Squared norm of the last column's residual after projecting on the others, from the Gram
/// matrix: `G_ll - G_lS G_SS^-1 G_Sl`.
fn schur_residual(gram: &DMatrix<f64>, last: usize) -> f64 {
    if last == 0 {
        return gram[(0, 0)];
    }
    let g_ss = gram.view((0, 0), (last, last)).into_owned();
    let g_sl = gram.view((0, last), (last, 1)).into_owned();
    match g_ss.cholesky() {
        Some(ch) => {
            let solved = ch.solve(&g_sl);
            gram[(last, last)] - (g_sl.transpose() * solved)[(0, 0)]
        }
        None => 0.0,
    }
}

/// Newton's method with step halving. Returns (theta, Fisher information, iterations, log L).
fn newton(
    rows: &[Row],
    dim: usize,
) -> Result<(DVector<f64>, DMatrix<f64>, u32, f64), RatingsError> {
    let mut theta = DVector::<f64>::zeros(dim);
    let evaluate = |theta: &DVector<f64>| -> f64 {
        rows.iter()
            .map(|r| log_likelihood_row(dot(&r.x, theta), r.games, r.points))
            .sum()
    };
    let mut ll = evaluate(&theta);
    for iteration in 1..=MAX_ITERATIONS {
        let mut grad = DVector::<f64>::zeros(dim);
        let mut info = DMatrix::<f64>::zeros(dim, dim);
        for r in rows {
            let p = sigmoid(dot(&r.x, &theta));
            let residual = r.points - r.games * p;
            for &(i, w) in &r.x {
                grad[i] += residual * w;
            }
            add_outer(&mut info, &r.x, r.games * p * (1.0 - p));
        }
        let Some(ch) = info.clone().cholesky() else {
            return Err(RatingsError::NotConverged(iteration));
        };
        let step = ch.solve(&grad);
        let mut t = 1.0;
        let mut next = &theta + &step * t;
        let mut next_ll = evaluate(&next);
        while next_ll < ll - 1e-12 * ll.abs().max(1.0) && t > 1e-10 {
            t /= 2.0;
            next = &theta + &step * t;
            next_ll = evaluate(&next);
        }
        let moved = (&step * t).amax();
        theta = next;
        ll = next_ll;
        if theta.amax() > DIVERGENCE {
            return Err(RatingsError::NotConverged(iteration));
        }
        if moved < 1e-10 || dim == 0 {
            // Information at the optimum, for the covariance.
            let mut info = DMatrix::<f64>::zeros(dim, dim);
            for r in rows {
                let p = sigmoid(dot(&r.x, &theta));
                add_outer(&mut info, &r.x, r.games * p * (1.0 - p));
            }
            return Ok((theta, info, iteration, ll));
        }
    }
    Err(RatingsError::NotConverged(MAX_ITERATIONS))
}

fn handicap_game_counts(table: &GameTable) -> Vec<u64> {
    let mut counts = vec![0u64; table.handicaps().len()];
    for ((_, _, h), wdl) in table.cells() {
        if h != EVEN {
            counts[h] += wdl.games();
        }
    }
    counts
}

/// Ford's condition: for every split of the players into two groups, each group scored something
/// against the other. Returns a description of each violation (empty when ratings are finite).
fn ford_violations(table: &GameTable, excluded_kinds: &[usize]) -> Vec<String> {
    let n = table.players().len();
    if n < 2 {
        return Vec::new();
    }
    // scored[i] lists j when i scored a point or half against j.
    let mut scored = vec![Vec::new(); n];
    for ((s, g, h), wdl) in table.cells() {
        if s == g || (h != EVEN && excluded_kinds.contains(&h)) {
            continue;
        }
        if wdl.wins + wdl.draws > 0 {
            scored[s].push(g);
        }
        if wdl.losses + wdl.draws > 0 {
            scored[g].push(s);
        }
    }
    let components = strongly_connected_components(&scored);
    if components.iter().max().copied().unwrap_or(0) == 0 {
        return Vec::new();
    }
    let count = components.iter().max().map_or(0, |m| m + 1);
    // A component nobody outside scored against, and one that scored against nobody outside.
    let mut scored_on = vec![false; count];
    let mut scores_out = vec![false; count];
    for (i, targets) in scored.iter().enumerate() {
        for &j in targets {
            if components[i] != components[j] {
                scores_out[components[i]] = true;
                scored_on[components[j]] = true;
            }
        }
    }
    let names = |c: usize| -> String {
        let members: Vec<&str> = (0..n)
            .filter(|&i| components[i] == c)
            .map(|i| table.players()[i].as_str())
            .collect();
        let shown = members
            .iter()
            .take(5)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if members.len() > 5 {
            format!("{shown}, ... ({} players)", members.len())
        } else {
            shown
        }
    };
    let mut out = Vec::new();
    for c in 0..count {
        match (scored_on[c], scores_out[c]) {
            (false, false) => out.push(format!("{} never played the others", names(c))),
            (false, true) => out.push(format!("{} never lost a point to the others", names(c))),
            (true, false) => out.push(format!("{} never scored against the others", names(c))),
            (true, true) => {}
        }
    }
    out
}

/// Tarjan's algorithm (iterative); returns each node's component number.
fn strongly_connected_components(edges: &[Vec<usize>]) -> Vec<usize> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut next_component = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next edge to look at)
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = call.last_mut() {
            if *e < edges[v].len() {
                let w = edges[v][*e];
                *e += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component[w] = next_component;
                        if w == v {
                            break;
                        }
                    }
                    next_component += 1;
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Reason, Winner};
    use crate::stats::elo::elo_from_score;

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

    #[test]
    fn tarjan_finds_components() {
        // 0 <-> 1 -> 2 <-> 3
        let edges = vec![vec![1], vec![0, 2], vec![3], vec![2]];
        let c = strongly_connected_components(&edges);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[2], c[3]);
        assert_ne!(c[0], c[2]);
    }
}
