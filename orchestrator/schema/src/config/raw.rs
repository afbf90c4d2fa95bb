//! The configuration file exactly as it is written: serde structs that mirror the TOML tables,
//! with their defaults, and nothing checked beyond what serde checks (types, unknown keys).
//! (`[tune]`'s raw tables live with its checks in `tune_check.rs`.)

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::usi_engine::OptionValue;
use super::{Fairness, Format, Limits, Method};

/// A whole configuration file: `[match]` and the `[[player]]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    #[serde(rename = "match")]
    pub(super) tournament: RawMatch,
    #[serde(rename = "player", default)]
    pub(super) players: Vec<RawPlayer>,
    pub(super) tune: Option<super::tune_check::RawTune>,
}

/// `Config::load_players`: the players, with any `[match]` table left unread.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlayers {
    #[serde(rename = "match", default)]
    _tournament: Option<toml::Table>,
    #[serde(rename = "player", default)]
    pub(super) players: Vec<RawPlayer>,
    #[serde(rename = "tune", default)]
    _tune: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMatch {
    #[serde(default = "default_format")]
    pub(super) format: Format,
    pub(super) players: Vec<String>,
    #[serde(default = "default_games")]
    pub(super) games: u64,
    #[serde(default = "default_max_plies")]
    pub(super) max_plies: u32,
    #[serde(default)]
    pub(super) seed: u64,
    pub(super) start: Option<String>,
    pub(super) handicap: Option<String>,
    pub(super) handicap_giver: Option<String>,
    pub(super) openings: Option<PathBuf>,
    pub(super) resign: Option<RawResign>,
    #[serde(default = "default_margin")]
    pub(super) timeout_margin_ms: u64,
    pub(super) sprt: Option<crate::stats::Sprt>,
}

fn default_format() -> Format {
    Format::HeadToHead
}
pub(super) fn default_games() -> u64 {
    2
}
pub(super) fn default_max_plies() -> u32 {
    320
}
pub(super) fn default_margin() -> u64 {
    1000
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawKind {
    Internal,
    Usi,
    Council,
    Intuition,
}

/// `candidates = { model = "...", k = K, setting = "d" }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCandidates {
    pub(super) model: PathBuf,
    pub(super) k: i64,
    pub(super) setting: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlayer {
    pub(super) name: String,
    pub(super) kind: RawKind,
    // limits (see `Limits`)
    pub(super) nodes: Option<u64>,
    pub(super) depth: Option<u32>,
    pub(super) movetime_ms: Option<u64>,
    pub(super) time_ms: Option<u64>,
    pub(super) byoyomi_ms: Option<u64>,
    pub(super) increment_ms: Option<u64>,
    pub(super) move_timeout_ms: Option<u64>,
    pub(super) win_rate_t: Option<f64>,
    pub(super) sigma: Option<f64>,
    // internal
    pub(super) noise_cp: Option<u32>,
    pub(super) hash_mb: Option<u32>,
    pub(super) candidates: Option<RawCandidates>,
    // intuition
    pub(super) model: Option<PathBuf>,
    pub(super) setting: Option<String>,
    pub(super) temperature: Option<f64>,
    // usi
    pub(super) command: Option<PathBuf>,
    #[serde(default)]
    pub(super) args: Vec<String>,
    pub(super) dir: Option<PathBuf>,
    #[serde(default)]
    pub(super) options: BTreeMap<String, OptionValue>,
    pub(super) startup_timeout_ms: Option<u64>,
    pub(super) mate_cp: Option<i32>,
    pub(super) go_nodes: Option<bool>,
    pub(super) seed_option: Option<String>,
    pub(super) drop_notation: Option<String>,
    pub(super) go_byoyomi: Option<bool>,
    pub(super) position_startpos: Option<bool>,
    pub(super) restart: Option<bool>,
    // council
    pub(super) members: Option<Vec<String>>,
    pub(super) method: Option<Method>,
    pub(super) fairness: Option<Fairness>,
    pub(super) ml_d: Option<f64>,
    pub(super) approval_k: Option<i64>,
    pub(super) weights: Option<BTreeMap<String, f64>>,
    pub(super) equal_resources: Option<bool>,
    pub(super) reserve_ms: Option<u64>,
    // any kind (refused where it cannot be honoured)
    pub(super) ponder: Option<bool>,
}

impl RawPlayer {
    /// The limit keys as one [`Limits`]. They are fields of this table rather than a flattened
    /// struct because serde's `flatten` hides the accepted keys from the unknown-key error, which
    /// lists them (and the docs test reads that list).
    pub(super) fn limits(&self) -> Limits {
        Limits {
            nodes: self.nodes,
            depth: self.depth,
            movetime_ms: self.movetime_ms,
            time_ms: self.time_ms,
            byoyomi_ms: self.byoyomi_ms,
            increment_ms: self.increment_ms,
        }
    }
}

/// `resign = { score_cp = .., moves = .. }` or `{ model = "shueso", mu = .., sigma = .., moves = .. }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawResign {
    pub(super) score_cp: Option<i32>,
    pub(super) model: Option<String>,
    pub(super) mu: Option<f64>,
    pub(super) sigma: Option<f64>,
    pub(super) moves: u32,
}
