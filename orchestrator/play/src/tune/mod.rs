//! `council-tune`: SPSA over a player's numeric keys (models.md section 12), with games played
//! by the shared game loop (`crate::game`) or, under `--simulate`, drawn from a known Elo bowl.
//!
//! One place per concern: `spsa` is the algorithm as pure functions of (θ, k, seed); `plan`
//! is an iteration's games and the tally of their outcomes; `simulate` is the bowl; `games` plays
//! real games on the one game scheduler (`crate::game::scheduler`, whose pool keeps the engines
//! from game to game and re-parameterises them) and writes `games.jsonl`; `shards` shares each
//! iteration between shards; `log` is `tune.jsonl` (the resume point); `report` is the closing
//! table (the SVGs are the live crate's `tune_svg`); `run` is the loop that ties them. Imports
//! run one way: `run` -> `games`; `run` -> `shards`,
//! `simulate`, `report`, `log` -> `plan`, `spsa`, this file (the error type); out of the room
//! only to `council_schema`, `crate::game` and `council_players`, never to another room.

pub mod games;
pub mod log;
pub mod plan;
pub mod report;
pub mod run;
pub mod shards;
pub mod simulate;
pub mod spsa;

use std::path::{Path, PathBuf};

/// A tune that cannot go on. Games that fail (an engine crash) are results, never this.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    #[error("{}: no [tune] section: see docs/guide/tune.md", config.display())]
    NoTuneSection { config: PathBuf },
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}:{line}: {problem}", path.display())]
    Log {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    /// Resuming with something other than what the tune was started with.
    #[error(
        "{}: this tune was started with {what} {was}, not {now}: rerun it with the same config and flags, or choose another --out",
        path.display()
    )]
    Mismatch {
        path: PathBuf,
        what: &'static str,
        was: String,
        now: String,
    },
    #[error(transparent)]
    Results(#[from] council_schema::results::read::ReadError),
    #[error("{0}")]
    Preflight(String),
    /// A USI engine of the tune does not start.
    #[error(transparent)]
    Start(#[from] council_players::factory::PreflightError),
    /// Other shards' games of an iteration did not come.
    #[error(
        "iteration {k}: waited {waited_s} s without a game from shard {shards} ({games} games of this iteration missing): every shard must run at the same time on the same --out folder; start the missing shard (it resumes), or raise --shard-wait"
    )]
    ShardSilent {
        k: u64,
        shards: String,
        games: usize,
        waited_s: u64,
    },
    /// The engine log (`--log FILE`, `DIR/engines.log`) cannot be opened.
    #[error(transparent)]
    EngineLog(#[from] council_players::player::engine_log::EngineLogError),
    /// A line of the engine log could not be written (a full disk): the tune stops; the same
    /// command again resumes it.
    #[error("cannot write the engine log {}: {cause}", path.display())]
    EngineLogWrite {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot draw {}: {message}", path.display())]
    Svg { path: PathBuf, message: String },
}

impl TuneError {
    /// An error naming `log` if one of its writes has failed (a full disk).
    fn engine_log_whole(
        log: Option<&council_players::player::engine_log::EngineLog>,
    ) -> Result<(), Self> {
        match log.and_then(|log| Some((log, log.failure()?))) {
            Some((log, cause)) => Err(TuneError::EngineLogWrite {
                path: log.path().to_path_buf(),
                cause,
            }),
            None => Ok(()),
        }
    }

    fn io(path: &Path, cause: std::io::Error) -> Self {
        TuneError::Io {
            path: path.to_path_buf(),
            cause,
        }
    }
}
