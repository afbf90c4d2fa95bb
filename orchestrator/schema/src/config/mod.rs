//! The match configuration: a TOML file read into plain types and validated before any game
//! starts.
//!
//! Invariant: a [`Config`] that [`Config::load`] returned is playable: every player named in the
//! match exists, councils have members and no cycles, every USI command exists and is executable,
//! every playing player has a limit, and the start positions are valid. Every error is one line
//! that names the file, the key and the problem.
//!
//! The stages are separate files because they change for different reasons: `raw` is the file's
//! schema exactly as written (serde, unknown keys refused), its `[[player]]` table declared in
//! `player_keys` with the one table of player keys; `validate` turns it into the types
//! below, one check and one message at a time; `usi_engine` is an external engine's settings and
//! where its command is found; `load` reads the file and makes TOML errors one line. Only the
//! validated types leave this module, so the rest of the crate never sees an unchecked value.
//! `intuition` reads the candidate model files intuition players and candidate-restricted
//! searches name. Imports run one way: `load` -> `validate` -> `raw` -> `tune_check` ->
//! `player_keys` -> this file -> `usi_engine`, `intuition`, `tune` (the `[tune]` section's
//! validated types; `tune_check` reads and checks it). `flags` writes a config from a
//! fastchess / Shogitest command line, as TOML text that `load` then reads.

pub mod flags;
mod intuition;
mod load;
mod player_keys;
mod raw;
mod tune;
mod tune_check;
mod usi_engine;
mod validate;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::results::votes::Method;
pub use intuition::{Candidates, ModelFile, Models};
pub use load::closest;
pub use tune::{ParamKey, ParamTarget, SimulateBowl, TuneConfig, TuneParam};
pub use usi_engine::{DropNotation, OptionValue, UsiEngineSettings};

/// A path of the config (taken relative to its folder) as an error shows it: absolute, with
/// `.` and `..` folded away, so the reader sees where it was looked for whatever the folder the
/// program ran in.
pub(crate) fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for part in absolute.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A configuration problem, rendered as one line: `FILE: key `KEY`: PROBLEM`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {location}{problem}")]
pub struct ConfigError {
    pub file: String,
    /// `line N: key `k`: ` or `key `k`: ` (may be empty).
    location: String,
    pub problem: String,
}

impl ConfigError {
    fn key(file: &Path, key: impl fmt::Display, problem: impl Into<String>) -> Self {
        Self {
            file: file.display().to_string(),
            location: format!("key `{key}`: "),
            problem: problem.into(),
        }
    }
}

/// How the playing players are paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Exactly two players, all games between them.
    HeadToHead,
    /// Every pair of players meets, `games` games per pair.
    RoundRobin,
    /// The first player meets each of the others, `games` games per opponent.
    Gauntlet,
}

/// How a council's budget reaches its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fairness {
    /// Every member gets the council's whole budget ("three machines against one").
    Full,
    /// The members share the budget: nodes and times are divided by the number of members
    /// ("equal compute"). Depth limits are not divisible and are kept.
    Shared,
}

/// What a player may spend on one move. All times in milliseconds. A clock (`time_ms`,
/// `byoyomi_ms`, `increment_ms`) is kept by the arbiter; the others are per move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub time_ms: Option<u64>,
    pub byoyomi_ms: Option<u64>,
    pub increment_ms: Option<u64>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        *self == Limits::default()
    }

    pub fn has_clock(&self) -> bool {
        self.time_ms.is_some() || self.byoyomi_ms.is_some() || self.increment_ms.is_some()
    }

    /// The clock these limits set for the arbiter to keep, when they set one.
    pub fn time_control(&self) -> Option<engine::clock::TimeControl> {
        let ms = |x: Option<u64>| std::time::Duration::from_millis(x.unwrap_or(0));
        self.has_clock().then(|| engine::clock::TimeControl {
            main: ms(self.time_ms),
            byoyomi: ms(self.byoyomi_ms),
            increment: ms(self.increment_ms),
        })
    }
}

/// The kinds of player, each with its own settings (in `run.json` as `"kind": "usi"` and the
/// kind's keys beside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PlayerKind {
    /// The built-in engine, searched in this process.
    Internal(InternalSettings),
    /// The candidate model alone, no search.
    Intuition(IntuitionSettings),
    /// An external USI engine run as a child process (its `command` resolved on `PATH` or
    /// against the config's folder).
    Usi(UsiEngineSettings),
    /// Several players voting on one move.
    Council(CouncilSettings),
}

/// A player that is not a council: a leaf of a player tree, with its kind's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Leaf<'a> {
    Internal(&'a InternalSettings),
    Intuition(&'a IntuitionSettings),
    Usi(&'a UsiEngineSettings),
}

impl PlayerKind {
    /// The leaf this player is, or its council's settings.
    pub fn leaf(&self) -> Result<Leaf<'_>, &CouncilSettings> {
        match self {
            PlayerKind::Internal(s) => Ok(Leaf::Internal(s)),
            PlayerKind::Intuition(s) => Ok(Leaf::Intuition(s)),
            PlayerKind::Usi(s) => Ok(Leaf::Usi(s)),
            PlayerKind::Council(c) => Err(c),
        }
    }

    /// The council's settings, if this player is a council.
    pub fn council(&self) -> Option<&CouncilSettings> {
        match self {
            PlayerKind::Council(c) => Some(c),
            _ => None,
        }
    }
}

/// `kind = "internal"`: the built-in engine; with `candidates`, its root searches only the
/// model's top K moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InternalSettings {
    pub noise_cp: u32,
    pub hash_mb: u32,
    /// The engine's tunable options (`options = { Eval_Pawn = 120 }`, the names
    /// `council-engine` declares over USI), defaults where not set; in `run.json` those that
    /// differ from the defaults, by name.
    #[serde(with = "tuning_changes")]
    pub options: engine::search::options::Tuning,
    pub candidates: Option<Candidates>,
}

/// `kind = "intuition"`: the best-scoring legal move under `setting`, or with `temperature` > 0
/// a move drawn with weights `exp((score - best) / temperature)` from the game's seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntuitionSettings {
    pub model: ModelFile,
    /// In `run.json` as its letter (`a`..`f`).
    #[serde(with = "intuition::letter")]
    pub setting: engine::intuition::Setting,
    pub temperature: f64,
}

/// `kind = "council"`: who votes, how, and with what share of the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CouncilSettings {
    pub members: Vec<String>,
    pub method: Method,
    pub fairness: Fairness,
    /// The gap `d` between the best move and the others, cp (ml only).
    pub ml_d: f64,
    /// How many moves each member names (approval only; 1 for the other methods).
    pub approval_k: usize,
    /// Each member's vote weight, in the order of `members` (majority and approval; all 1
    /// unless `weights` gives some).
    pub weights: Vec<f64>,
    /// `equal_resources = true`: the player added to the run beside this council, its
    /// strongest member alone with N times the budget (models.md section 9).
    pub equal_resources: Option<String>,
    /// Under a clock, the time it keeps back from each move for stopping late members and
    /// voting, ms (`player::time::allocate`).
    pub reserve_ms: u64,
}

/// A council's `reserve_ms` when its table does not set it (docs/guide/clocks.md).
pub const DEFAULT_RESERVE_MS: u64 = 100;

/// One player as configured, and as `run.json` records it (in its plan's `players`, keyed by
/// the name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerConfig {
    /// The key it is recorded under (`run.json` keeps it there, not here).
    #[serde(skip)]
    pub name: String,
    #[serde(flatten)]
    pub kind: PlayerKind,
    /// Own limits; a council member without limits takes its council's budget.
    pub limits: Limits,
    /// Hard cap on one move's wall time when no clock applies (an engine that hangs loses).
    pub move_timeout_ms: u64,
    /// Win-rate constant `T` of this player's scores (`models.md` section 1).
    pub win_rate_t: f64,
    /// Noise `s_i` of this player's judgement, cp, for ml voting.
    pub sigma: f64,
    /// `ponder = true`: think in the opponent's time (USI engines and councils).
    pub ponder: bool,
    /// `log = true`: its engine's lines (a council's: its USI members') go to the engine log
    /// (recorded only when set).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub log: bool,
}

/// How each game starts (in `run.json` as `{"single": TEXT}`, `{"handicap": {"name", "giver"}}`
/// or `{"file": {"path", "lines"}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Openings {
    /// One start position for every game (`startpos`, an SFEN, or `startpos moves ...`).
    Single(String),
    /// A handicap by name; `giver` (if any) always gives it, otherwise colours alternate.
    Handicap { name: String, giver: Option<String> },
    /// Lines of a file, each played twice with colours swapped.
    File { path: PathBuf, lines: Vec<String> },
}

/// Optional resign adjudication (`[match] resign = { ... }`; in `run.json` as
/// `{"scores": {...}}` or `{"model": {...}}`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResignRule {
    /// Both players' scores beyond `score_cp` against the same side for `moves` consecutive
    /// moves each.
    Scores { score_cp: i32, moves: u32 },
    /// Seed 004's resignation model, "v only" (models.md section 8): a player resigns when
    /// `p_r = ½[1 + erf((-v - mu) / (√2 sigma))] >= 0.5` on `moves` consecutive moves of its
    /// own, `v` its own score (cp) for the move (`model = "shueso"`; `mu`, `sigma` from
    /// `council-analyze resign --no-ebf`).
    Model { mu: f64, sigma: f64, moves: u32 },
}

/// Optional draw adjudication (`[match] draw = { after_plies, plies, score_cp }`, the rule of
/// Shogitest's and fastchess's `-draw`): once the engines have played `after_plies` plies (the
/// opening's not counted), a game whose last `plies` plies were all scored within `±score_cp`
/// by the player that moved is a draw. A mate score or a move without a score breaks the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    pub after_plies: u32,
    pub plies: u32,
    pub score_cp: i32,
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub file: PathBuf,
    /// The file's text as it was read, once, and validated: what a run records of its config
    /// (`run.json`, `tune.jsonl`), so a record never holds text that was not validated.
    pub text: String,
    pub format: Format,
    /// Players that play games (in the order given).
    pub playing: Vec<String>,
    /// Every configured player, by name.
    pub players: BTreeMap<String, PlayerConfig>,
    /// The models its players play from, read when it was validated.
    pub models: Models,
    /// Games per pairing (head-to-head: in total).
    pub games: u64,
    pub max_plies: u32,
    pub seed: u64,
    pub openings: Openings,
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
    /// Grace the arbiter allows past a clock's budget before a timeout, ms.
    pub timeout_margin_ms: u64,
    /// Head-to-head only: stop when this sequential test decides (`games` is then the most
    /// games played). See `crate::stats::Sprt` for the keys.
    pub sprt: Option<crate::stats::Sprt>,
    /// `[match] training`: write the training records of every finished game into the run
    /// folder (`training.<format>`), as `council-learn export` of the run would.
    pub training: Option<crate::training::Settings>,
    /// `[tune]`: what `council-tune` tunes (other programs ignore it).
    pub tune: Option<TuneConfig>,
}

/// Default win-rate constant `T` (many engines are near 600, `models.md` section 1).
pub const DEFAULT_WIN_RATE_T: f64 = 600.0;
/// Default per-member noise `s_i` (cp) for ml voting.
pub(crate) const DEFAULT_SIGMA: f64 = 200.0;
/// Default gap `d` (cp) between the best candidate and the others for ml voting.
pub(crate) const DEFAULT_ML_D: f64 = 100.0;

impl Config {
    /// The player named `name` (validation made sure every name a config uses exists).
    pub fn player(&self, name: &str) -> &PlayerConfig {
        &self.players[name]
    }
}

/// Whether two config texts say the same: the same TOML values, comments and layout aside
/// (a resume may fix a comment; a run from fastchess flags records its command line, run
/// options such as `-concurrency` included, as a comment). Text that is not TOML is compared as
/// text.
pub fn same_config(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (a.parse::<toml::Table>(), b.parse::<toml::Table>()),
            (Ok(x), Ok(y)) if x == y
        )
}

/// An internal player's options as `run.json` records them: those that differ from the
/// engine's defaults, by name, read back over the defaults.
mod tuning_changes {
    use std::collections::BTreeMap;

    use engine::search::options::{TUNABLES, Tuning};
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(tuning: &Tuning, s: S) -> Result<S::Ok, S::Error> {
        let defaults = Tuning::default();
        let changed: BTreeMap<&str, i32> = TUNABLES
            .iter()
            .filter_map(|t| {
                let value = tuning.get(t.name)?;
                (defaults.get(t.name) != Some(value)).then_some((t.name, value))
            })
            .collect();
        changed.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Tuning, D::Error> {
        let mut tuning = Tuning::default();
        for (name, value) in BTreeMap::<String, i64>::deserialize(d)? {
            tuning.set(&name, value).map_err(D::Error::custom)?;
        }
        Ok(tuning)
    }
}

#[cfg(test)]
mod tests {
    use super::same_config;

    #[test]
    fn same_config_ignores_comments_and_layout_not_values() {
        let a = "# -engine cmd=x -concurrency 2\n[match]\ngames = 2\n";
        assert!(same_config(
            a,
            "# -engine cmd=x -concurrency 4\n[match]\ngames  =  2 # two\n"
        ));
        assert!(!same_config(a, "[match]\ngames = 3\n"));
    }
}
