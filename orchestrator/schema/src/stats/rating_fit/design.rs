//! The model's coordinates: which column each rating and optional parameter takes, and the games
//! grouped into sparse design rows with their counts. Every later step (identification, prior,
//! Newton, intervals) works on these rows.
//!
//! Reduced coordinates: the ratings of players 1..n (player 0 is fixed at 0; the anchor is applied
//! only when the result is read out), then the optional parameters in their order.

use nalgebra::{DMatrix, DVector};

use crate::stats::table::{EVEN, GameTable};

/// An optional parameter fitted with the ratings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Param {
    /// The advantage of moving first, in even games.
    FirstMove,
    /// The worth of handicap type `k` to its receiver.
    Handicap(usize),
}

impl Param {
    /// Whether games of handicap index `h` (`EVEN` for even games) carry this parameter.
    pub(super) fn applies_to(self, h: usize) -> bool {
        match self {
            Param::FirstMove => h == EVEN,
            Param::Handicap(k) => h == k,
        }
    }
}

/// Where each rating and parameter sits in the reduced coordinates.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Layout {
    /// Players in the table (the first one is not a coordinate).
    pub(super) players: usize,
    /// The optional parameters, in column order after the ratings.
    pub(super) params: Vec<Param>,
}

impl Layout {
    /// Columns taken by ratings.
    pub(super) fn rating_params(&self) -> usize {
        self.players - 1
    }

    /// Number of coordinates.
    pub(super) fn dim(&self) -> usize {
        self.rating_params() + self.params.len()
    }

    /// The column of `player`'s rating; `None` for player 0, fixed at 0.
    pub(super) fn rating_col(&self, player: usize) -> Option<usize> {
        (player > 0).then(|| player - 1)
    }

    /// The design row of a game between sente `s` and gote `g` of handicap index `h`: `+1` for
    /// sente's rating, `-1` for gote's, `+1` for the parameter the game carries (if fitted).
    pub(super) fn design(&self, s: usize, g: usize, h: usize) -> Vec<(usize, f64)> {
        let mut x = Vec::new();
        push_rating(&mut x, self.rating_col(s), 1.0);
        push_rating(&mut x, self.rating_col(g), -1.0);
        for (k, &p) in self.params.iter().enumerate() {
            if p.applies_to(h) {
                x.push((self.rating_params() + k, 1.0));
            }
        }
        x
    }
}

/// One group of games for the likelihood: design entries (parameter index, +-1) and counts.
pub(super) struct Row {
    /// Sparse design vector in reduced coordinates.
    pub(super) x: Vec<(usize, f64)>,
    pub(super) games: f64,
    /// Sente's points.
    pub(super) points: f64,
    /// Sum of squared per-game scores (for the dispersion); `None` for virtual games.
    pub(super) squares: Option<f64>,
}

/// The rows of every game that is fitted (all but those of `excluded_kinds`), and their number.
pub(super) fn fitted_rows(
    table: &GameTable,
    layout: &Layout,
    excluded_kinds: &[usize],
) -> (Vec<Row>, u64) {
    let mut rows = Vec::new();
    let mut games_fitted = 0u64;
    for ((s, g, h), wdl) in table.cells() {
        if h != EVEN && excluded_kinds.contains(&h) {
            continue;
        }
        games_fitted += wdl.games();
        rows.push(Row {
            x: layout.design(s, g, h),
            games: wdl.games() as f64,
            points: wdl.points(),
            squares: Some(wdl.wins as f64 + 0.25 * wdl.draws as f64),
        });
    }
    (rows, games_fitted)
}

/// `count` virtual draws with design `x`.
pub(super) fn virtual_draws(x: Vec<(usize, f64)>, count: f64) -> Row {
    Row {
        x,
        games: count,
        points: count / 2.0,
        squares: None,
    }
}

/// Adds `w` to the entry of `col` (a rating; none for player 0).
pub(super) fn push_rating(x: &mut Vec<(usize, f64)>, col: Option<usize>, w: f64) {
    if let Some(c) = col {
        if let Some(entry) = x.iter_mut().find(|(i, _)| *i == c) {
            entry.1 += w;
        } else {
            x.push((c, w));
        }
    }
}

/// `m += weight * x x^T` for a sparse `x`.
pub(super) fn add_outer(m: &mut DMatrix<f64>, x: &[(usize, f64)], weight: f64) {
    for &(i, xi) in x {
        for &(j, xj) in x {
            m[(i, j)] += weight * xi * xj;
        }
    }
}

/// `x . theta` for a sparse `x`.
pub(super) fn dot(x: &[(usize, f64)], theta: &DVector<f64>) -> f64 {
    x.iter().map(|&(i, w)| w * theta[i]).sum()
}

/// Sente's expected score at linear predictor `eta` (natural-log units).
pub(super) fn sigmoid(eta: f64) -> f64 {
    1.0 / (1.0 + (-eta).exp())
}
