//! The run folder's own facts: `run.json` (what `--resume` continues, and what every reader of
//! the folder learns of the run), the schedule of games, shards of it, and `summary.json`.
//! Types and their files only: the runner that writes them lives in the play crate.

pub mod by_family;
pub mod schedule;
pub mod shard;
pub mod summary;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use shard::Shard;

/// A run folder's `run.json` that cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunInfoError {
    #[error("{}: not a run folder ({cause})", path.display())]
    NotARun {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}: {problem}", path.display())]
    Malformed { path: PathBuf, problem: String },
    #[error("{}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// What the run folder remembers so `--resume` continues the same run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub seed: u64,
    pub config_file: String,
    pub config_text: String,
    pub games: u64,
    /// The shard of the run this folder plays; absent for a whole (or merged) run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl RunInfo {
    /// Read `DIR/run.json`.
    pub fn read(dir: &Path) -> Result<RunInfo, RunInfoError> {
        let path = dir.join("run.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(cause) => return Err(RunInfoError::NotARun { path, cause }),
        };
        serde_json::from_str(&text).map_err(|e| RunInfoError::Malformed {
            path,
            problem: e.to_string(),
        })
    }

    /// Write `DIR/run.json`.
    pub fn write(&self, dir: &Path) -> Result<(), RunInfoError> {
        let path = dir.join("run.json");
        // Plain data with string keys: serializing cannot fail.
        let json = serde_json::to_string_pretty(self).unwrap_or_default();
        std::fs::write(&path, json).map_err(|cause| RunInfoError::Write { path, cause })
    }
}
