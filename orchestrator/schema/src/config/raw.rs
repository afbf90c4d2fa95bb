//! The configuration file exactly as it is written: serde structs that mirror the TOML tables,
//! with their defaults, and nothing checked beyond what serde checks (types, unknown keys).
//! (`[tune]`'s raw tables live with its checks in `tune_check.rs`.)
//! (`[[player]]`'s raw table is declared with the table of player keys in `player_keys.rs`.)

use std::path::PathBuf;

use serde::Deserialize;

use super::Format;
pub(super) use super::player_keys::RawPlayer;

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
    /// `lines` or `yaneuraou-db`; detected from the file when not given.
    pub(super) openings_format: Option<String>,
    pub(super) book_depth: Option<u64>,
    pub(super) book_min_count: Option<u64>,
    pub(super) book_score_band: Option<i64>,
    pub(super) book_choice: Option<String>,
    pub(super) book_lines: Option<u64>,
    /// `sequential` (default) or `random`: the lines shuffled by `seed`.
    pub(super) openings_order: Option<String>,
    /// The line the run starts from, 1-based (default 1).
    pub(super) openings_start: Option<u64>,
    pub(super) resign: Option<RawResign>,
    pub(super) draw: Option<RawDraw>,
    #[serde(default = "default_margin")]
    pub(super) timeout_margin_ms: u64,
    pub(super) sprt: Option<crate::stats::Sprt>,
    pub(super) training: Option<crate::training::Settings>,
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

/// `draw = { after_plies = .., plies = .., score_cp = .. }` (`after_plies` 0 when not given).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDraw {
    #[serde(default)]
    pub(super) after_plies: u32,
    pub(super) plies: u32,
    pub(super) score_cp: i32,
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
