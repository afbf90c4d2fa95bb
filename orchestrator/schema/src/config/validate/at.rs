//! Where a player's problem is (the file, the table's index, the player's name), made into the
//! one-line [`ConfigError`] every check of a `[[player]]` table returns.

use std::fmt;
use std::path::Path;

use super::super::ConfigError;

/// Where a player's problem is: the file, the table's index and the player's name.
pub(super) struct PlayerAt<'a> {
    pub(super) path: &'a Path,
    pub(super) index: usize,
    pub(super) name: String,
}

impl PlayerAt<'_> {
    /// `key` below `player[i].`, with the problem as written.
    pub(super) fn bare(&self, key: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::key(self.path, format!("player[{}].{key}", self.index), problem)
    }

    /// `key` below `player[i].`, the problem said of the player by name.
    pub(super) fn err(&self, key: &str, problem: impl fmt::Display) -> ConfigError {
        self.bare(key, format!("player `{}`: {problem}", self.name))
    }

    /// A positive number, or `default` when the key is absent.
    pub(super) fn positive(
        &self,
        key: &str,
        value: Option<f64>,
        default: f64,
    ) -> Result<f64, ConfigError> {
        match value {
            Some(x) if !(x.is_finite() && x > 0.0) => {
                Err(self.err(key, format_args!("must be a positive number, got {x}")))
            }
            Some(x) => Ok(x),
            None => Ok(default),
        }
    }
}
