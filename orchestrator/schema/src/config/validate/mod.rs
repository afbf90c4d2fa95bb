//! Raw to validated: every check of the configuration and its one-line message, one file per
//! concern: `players` (each `[[player]]` table and the keys its kind has no use for), `engines`
//! (what an internal, intuition or USI player needs), `councils` (members, votes, cycles,
//! `equal_resources`), `limits` (what a player may spend, and who keeps its clock), `tournament`
//! (`[match]`: who plays, how many games, resignation, SPRT) and `openings` (the start
//! positions). Imports run one way: this file -> `tournament`, `players` -> `councils`,
//! `engines`, `openings` -> `limits` -> `at` (where a player's problem is, as one line).

mod at;
mod councils;
mod engines;
mod limits;
mod openings;
mod players;
mod tournament;

use std::path::Path;

use super::raw::RawConfig;
use super::tune_check::validate_tune;
use super::{Config, ConfigError};

pub(super) use players::validate_players;

/// The whole file: its players, then the match that they play.
pub(super) fn validate(path: &Path, base: &Path, raw: RawConfig) -> Result<Config, ConfigError> {
    let (players, models) = validate_players(path, base, raw.players)?;
    let mut config = tournament::validate_match(path, base, raw.tournament, players, models)?;
    if let Some(t) = raw.tune {
        config.tune = Some(validate_tune(path, t, &config.players, config.seed)?);
    }
    Ok(config)
}

#[cfg(test)]
mod tests;
