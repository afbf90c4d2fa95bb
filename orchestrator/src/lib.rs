//! The orchestrator as one library: a facade over its crates, so `orchestrator::…` paths stay
//! what they were before the split (as ripgrep's `grep` crate is over its parts).
//!
//! | crate | modules | what | programs |
//! | --- | --- | --- | --- |
//! | `council-schema` | `config`, `results`, `corpus`, `run`, `seed`, `stats`, `written_by` | the vocabulary: formats and the facts they carry | |
//! | `council-players` | `player`, `council`, `factory` | the `Player` trait, its kinds, councils | |
//! | `council-play` | `game`, `runner`, `usi_server`, `csa`, `tune`, `signals` | the game loop and the programs that play | `council-usi`, `council-csa` |
//! | `council-study` | `analyze`, `learn`, `elo_report` | the programs that study finished games | `council-elo`, `council-analyze`, `council-learn`, `council-openings` |
//! | `council-live` | `live` | the live page | `council-match`, `council-tune` |
//!
//! The programs themselves live in the crates whose code they run.

pub use council_live as live;
pub use council_play::{csa, game, runner, signals, tune, usi_server};
pub use council_players::{council, factory, player};
pub use council_schema::{config, corpus, init_logging, results, run, seed, stats, written_by};
pub use council_study::{analyze, elo_report, learn};
