//! Intervals from the curvature at the optimum: Wald intervals from the inverse Fisher
//! information, scaled by the dispersion `phi` (Pearson chi-square / degrees of freedom), with the
//! anchor applied through the covariance; and the likelihood of superiority between two players.
//!
//! See: McCullagh and Nelder, *Generalized Linear Models*, 2nd ed., section 9.2 (quasi-likelihood).

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use super::design::{Layout, Row, dot, sigmoid};
use super::newton::Optimum;
use crate::stats::elo::{ELO_PER_NAT, phi, z_two_sided};
use crate::stats::head_to_head::CONFIDENCE;

/// Name of the interval method, as reports print it.
pub(super) const INTERVAL_METHOD: &str = "hessian";

/// A value in Elo with its 95% Wald interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub error: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Estimate {
    pub(super) fn new(elo: f64, variance: f64) -> Self {
        let error = z_two_sided(CONFIDENCE) * variance.max(0.0).sqrt();
        Self {
            elo,
            error,
            lower: elo - error,
            upper: elo + error,
        }
    }
}

/// The dispersion `phi` from the real games (virtual ones have no `squares`); 1, with a note, when
/// there are too few games to estimate it.
pub(super) fn dispersion(
    rows: &[Row],
    theta: &DVector<f64>,
    games_fitted: u64,
    dim: usize,
    notes: &mut Vec<String>,
) -> f64 {
    let pearson: f64 = rows
        .iter()
        .filter_map(|row| {
            let squares = row.squares?;
            let p = sigmoid(dot(&row.x, theta));
            let var = p * (1.0 - p);
            (var > 0.0).then(|| (squares - 2.0 * p * row.points + row.games * p * p) / var)
        })
        .sum();
    let df = games_fitted as f64 - dim as f64;
    if df > 0.0 && pearson > 0.0 {
        pearson / df
    } else {
        notes.push("too few games to estimate the dispersion; intervals assume 1".to_owned());
        1.0
    }
}

/// The optimum in Elo and its covariance (Elo^2), in full coordinates (players 0..n, then the
/// parameters) with the anchor applied: relative to player `anchor_player`, or to the pool mean
/// when `None` (the anchor's own Elo is not added). `None` when the information is singular.
pub(super) fn in_elo(
    optimum: &Optimum,
    dispersion: f64,
    layout: &Layout,
    anchor_player: Option<usize>,
) -> Option<(DVector<f64>, DMatrix<f64>)> {
    let cov_reduced = optimum.info.clone().cholesky()?.inverse() * dispersion;

    let n = layout.players;
    let params = layout.params.len();
    let dim = layout.dim();
    // Full coordinates: players 0..n, then accepted params. J maps reduced -> full.
    let full = n + params;
    let mut j_map = DMatrix::<f64>::zeros(full, dim);
    for i in 1..n {
        j_map[(i, i - 1)] = 1.0;
    }
    for k in 0..params {
        j_map[(n + k, layout.rating_params() + k)] = 1.0;
    }
    // Anchor transform on the rating block.
    let mut t_map = DMatrix::<f64>::identity(full, full);
    match anchor_player {
        None => {
            for i in 0..n {
                for j in 0..n {
                    t_map[(i, j)] -= 1.0 / n as f64;
                }
            }
        }
        Some(a) => {
            for i in 0..n {
                t_map[(i, a)] -= 1.0;
            }
        }
    }
    let map = &t_map * &j_map * ELO_PER_NAT;
    let values = &map * DVector::from_column_slice(optimum.theta.as_slice());
    let covariance = &map * cov_reduced * map.transpose();
    Some((values, covariance))
}

/// Likelihood of superiority for an Elo difference `diff` of variance `var`:
/// `Phi(diff / sd)`, or 1, 0 or 1/2 when the variance is 0.
pub(super) fn los(diff: f64, var: f64) -> f64 {
    if var > 0.0 {
        phi(diff / var.sqrt())
    } else if diff > 0.0 {
        1.0
    } else if diff < 0.0 {
        0.0
    } else {
        0.5
    }
}
