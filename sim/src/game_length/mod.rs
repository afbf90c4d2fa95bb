//! The random-walk model of game length (models.md section 2, seed 000 "酔歩"): `L = W + K`,
//! `W` the number of steps (the decisive one included) of a Gaussian walk `X_{t+1} = X_t + A Z_t`
//! from 0 until `|X_t| >= 1`, and `K ~ N(M, S^2)` the moves outside the walk.
//!
//! `kernel` computes `W` deterministically, `simulate` plays the games (with `walk`'s exact
//! two-steps-per-normal sampler of `W`), `fit` finds `A, M, S`
//! from target moments, `gamma` is the comparison distribution.

pub mod fit;
pub mod gamma;
pub mod kernel;
pub mod simulate;
pub mod walk;

use serde::Serialize;

use crate::error::{SimError, check};
use crate::moments::Moments;

/// The model's three parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GameLengthParams {
    /// Standard deviation of one random-walk step on the transformed scale (decided at +-1).
    pub a: f64,
    /// Mean number of non-random-walk moves.
    pub m: f64,
    /// Standard deviation of the number of non-random-walk moves.
    pub s: f64,
}

impl GameLengthParams {
    pub fn new(a: f64, m: f64, s: f64) -> Result<GameLengthParams, SimError> {
        Ok(GameLengthParams {
            // The kernel's range: smaller steps make games of 1e4+ moves (and long runs).
            a: check("A (--a)", a, "in [0.01, 20]", |a| {
                (0.01..=20.0).contains(&a)
            })?,
            m: check("M (--m)", m, "a finite number", f64::is_finite)?,
            s: check("S (--s)", s, "a finite number >= 0", |s| {
                s.is_finite() && s >= 0.0
            })?,
        })
    }

    /// Exact moments of `L = W + K` and of `W` from the deterministic kernel.
    pub fn exact_moments(&self) -> Result<ExactMoments, SimError> {
        let walk = kernel::WalkKernel::new(self.a)?.moments();
        Ok(ExactMoments {
            walk,
            length: walk.add_independent(&Moments::normal(self.m, self.s)),
        })
    }
}

/// Moments computed without random numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExactMoments {
    pub walk: Moments,
    pub length: Moments,
}

/// The parameter sets published in the source (seed 000), each fitted there with 1e8 games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Professional games (棋士棋譜集, November 2015).
    Pro,
    /// Computer games on floodgate (2012-2015).
    Floodgate,
}

impl Preset {
    pub fn params(self) -> GameLengthParams {
        match self {
            Preset::Pro => GameLengthParams {
                a: 0.2474,
                m: 95.46,
                s: 21.72,
            },
            Preset::Floodgate => GameLengthParams {
                a: 0.2262,
                m: 107.4,
                s: 25.13,
            },
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Preset::Pro => "professional games (source: A = 0.2474, M = 95.46, S = 21.72)",
            Preset::Floodgate => "floodgate games (source: A = 0.2262, M = 107.4, S = 25.13)",
        }
    }
}
