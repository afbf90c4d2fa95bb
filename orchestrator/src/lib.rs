//! The orchestrator as one library: a facade over its crates, so `orchestrator::…` paths stay
//! what they were before the split (as ripgrep's `grep` crate is over its parts).
//!
//! | crate | modules | what | programs |
//! | --- | --- | --- | --- |
//! | `council-schema` | `config`, `results`, `corpus`, `run`, `seed`, `stats`, `written_by` | the vocabulary: formats and the facts they carry | |
//! | `council-players` | `player`, `council`, `factory` | the `Player` trait, its kinds, councils | |
//! | `council-play` | `game`, `runner`, `usi_server`, `csa`, `tune`, `signals` | the game loop and the rooms that drive it | `council-usi`, `council-csa` |
//! | `council-study` | `analyze`, `learn`, `elo_report` | what studies finished games | `council-elo`, `council-analyze`, `council-learn`, `council-openings` |
//! | `council-live` | `live` | the live page | `council-match`, `council-tune` |
//!
//! The programs themselves (the last column: the crate whose code each runs) all live in one
//! program crate, `council-cli` in `orchestrator/cli/`; no library here depends on it.

pub use council_live as live;
pub use council_play::{csa, game, runner, signals, tune, usi_server};
pub use council_players::{council, factory, player};
pub use council_schema::{config, corpus, results, run, seed, stats, written_by};
pub use council_study::{analyze, elo_report, learn};
