//! The orchestrator's vocabulary: what every program speaks and every file holds. The match
//! config as validated data, the `results.jsonl` line with its one reader and writer, corpora of
//! recorded games, seeds, statistics as numbers, and the run folder's own files (`run.json`, the
//! schedule, shards, `summary.json`); and the training records finished games give.
//!
//! Formats and the facts they carry, no async runtime and no player: every program and every
//! reader of a run folder (on this machine or another) stands on this crate.

pub mod config;
pub mod corpus;
pub mod results;
pub mod run;
pub mod seed;
pub mod stats;
pub mod training;
pub mod utc;
pub mod written_by;
