//! The match configuration: a TOML file read into plain types and validated before any game
//! starts.
//!
//! Invariant: a [`Config`] that [`Config::load`] returned is playable: every player named in the
//! match exists, councils have members and no cycles, every USI command exists and is executable,
//! every playing player has a limit, and the start positions are valid. Every error is one line
//! that names the file, the key and the problem.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub use crate::results::votes::Method;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
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
}

/// An option value sent with `setoption`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Text(s) => f.write_str(s),
        }
    }
}

/// How a USI engine writes drops: USI's `P*5e`, or `P@5e` (sjaakii, and the chess-variant
/// engines it comes from). Only the engine's own lines are translated; everything the arbiter
/// records is USI.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DropNotation {
    #[default]
    Star,
    At,
}

impl DropNotation {
    /// The character between piece and square.
    pub fn mark(self) -> char {
        match self {
            DropNotation::Star => '*',
            DropNotation::At => '@',
        }
    }
}

/// An external USI engine: how to start it and its quirks, read from a `kind = "usi"` table and
/// validated once (`UsiEngineSettings::from_raw`); `player::usi::UsiPlayer` keeps it as is.
/// A new engine quirk is a field here, its key in `RawPlayer`, `UsiEngineSettings::keys_set`
/// and `from_raw`, and the code in `player::usi` that honours it.
#[derive(Debug, Clone, PartialEq)]
pub struct UsiEngineSettings {
    /// The executable, resolved (on `PATH`, or relative to the config's folder).
    pub command: PathBuf,
    pub args: Vec<String>,
    /// Working folder, relative to the config's folder.
    pub dir: Option<PathBuf>,
    /// Sent with `setoption` after `usiok`, in name order.
    pub options: Vec<(String, OptionValue)>,
    /// Deadline for `usiok` and for `readyok`, ms.
    pub startup_timeout_ms: u64,
    /// `score cp` at or beyond this magnitude is a mate score (gpsusi reports mates as
    /// `cp +-1148897`).
    pub mate_cp: i32,
    /// Whether the engine understands `go nodes` / `go depth` (gpsusi aborts on them).
    pub go_nodes: bool,
    /// A USI option set to the game's seed before each game (e.g. `NoiseSeed` of
    /// council-engine), so noisy USI engines replay like in-process ones.
    pub seed_option: Option<String>,
    /// How the engine writes drops (sjaakii writes and reads `P@5e`, not USI's `P*5e`).
    pub drop_notation: DropNotation,
    /// Whether the engine honours `byoyomi` (sjaakii plays at once on `btime 0 wtime 0
    /// byoyomi N`); when not, the arbiter's clock is sent as `go movetime X`.
    pub go_byoyomi: bool,
    /// Whether the engine understands `position startpos` (sjaakii takes it as the last
    /// SFEN it was given); when not, the start position's SFEN is sent instead.
    pub position_startpos: bool,
}

impl UsiEngineSettings {
    /// Whether `p` sets each engine key (all only meaningful for `kind = "usi"`), in the order
    /// they are checked.
    fn keys_set(p: &RawPlayer) -> [(&'static str, bool); 11] {
        [
            ("command", p.command.is_some()),
            ("args", !p.args.is_empty()),
            ("dir", p.dir.is_some()),
            ("options", !p.options.is_empty()),
            ("mate_cp", p.mate_cp.is_some()),
            ("go_nodes", p.go_nodes.is_some()),
            ("seed_option", p.seed_option.is_some()),
            ("drop_notation", p.drop_notation.is_some()),
            ("go_byoyomi", p.go_byoyomi.is_some()),
            ("position_startpos", p.position_startpos.is_some()),
            ("startup_timeout_ms", p.startup_timeout_ms.is_some()),
        ]
    }

    /// The engine keys of `p` with their defaults, checked. A problem comes back as the key
    /// (below `player[i].`) and what is wrong with it.
    fn from_raw(base: &Path, p: &RawPlayer) -> Result<Self, (&'static str, String)> {
        let Some(command) = &p.command else {
            return Err(("command", "missing".into()));
        };
        let command = resolve_command(base, command).map_err(|problem| ("command", problem))?;
        let dir = p.dir.as_ref().map(|d| base.join(d));
        if let Some(d) = &dir
            && !d.is_dir()
        {
            return Err(("dir", format!("{} is not a folder", d.display())));
        }
        let mate_cp = p.mate_cp.unwrap_or(100_000);
        if mate_cp <= 0 {
            return Err(("mate_cp", "must be positive".into()));
        }
        let drop_notation = match p.drop_notation.as_deref() {
            None | Some("*") => DropNotation::Star,
            Some("@") => DropNotation::At,
            Some(other) => {
                return Err((
                    "drop_notation",
                    format!("must be \"*\" (USI drops, `P*5e`) or \"@\" (`P@5e`), got \"{other}\""),
                ));
            }
        };
        Ok(Self {
            command,
            args: p.args.clone(),
            dir,
            options: p.options.clone().into_iter().collect(),
            startup_timeout_ms: p.startup_timeout_ms.unwrap_or(10_000),
            mate_cp,
            go_nodes: p.go_nodes.unwrap_or(true),
            seed_option: p.seed_option.clone(),
            drop_notation,
            go_byoyomi: p.go_byoyomi.unwrap_or(true),
            position_startpos: p.position_startpos.unwrap_or(true),
        })
    }

    /// [`Self::startup_timeout_ms`] as a duration.
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_millis(self.startup_timeout_ms)
    }
}

/// The three kinds of player.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerKind {
    /// The built-in engine, searched in this process.
    Internal { noise_cp: u32, hash_mb: u32 },
    /// An external USI engine run as a child process.
    Usi(UsiEngineSettings),
    /// Several players voting on one move.
    Council {
        members: Vec<String>,
        method: Method,
        fairness: Fairness,
        /// The gap `d` between the best move and the others, cp (ml only).
        ml_d: f64,
    },
}

/// One player as configured.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerConfig {
    pub name: String,
    pub kind: PlayerKind,
    /// Own limits; a council member without limits takes its council's budget.
    pub limits: Limits,
    /// Hard cap on one move's wall time when no clock applies (an engine that hangs loses).
    pub move_timeout_ms: u64,
    /// Win-rate constant `T` of this player's scores (`models.md` section 1).
    pub win_rate_t: f64,
    /// Noise `s_i` of this player's judgement, cp, for ml voting.
    pub sigma: f64,
}

/// How each game starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Openings {
    /// One start position for every game (`startpos`, an SFEN, or `startpos moves ...`).
    Single(String),
    /// A handicap by name; `giver` (if any) always gives it, otherwise colours alternate.
    Handicap { name: String, giver: Option<String> },
    /// Lines of a file, each played twice with colours swapped.
    File { path: PathBuf, lines: Vec<String> },
}

/// Optional resign adjudication: both players' scores beyond `score_cp` against the same side for
/// `moves` consecutive moves each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ResignRule {
    pub score_cp: i32,
    pub moves: u32,
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub file: PathBuf,
    pub format: Format,
    /// Players that play games (in the order given).
    pub playing: Vec<String>,
    /// Every configured player, by name.
    pub players: BTreeMap<String, PlayerConfig>,
    /// Games per pairing (head-to-head: in total).
    pub games: u64,
    pub max_plies: u32,
    pub seed: u64,
    pub openings: Openings,
    pub resign: Option<ResignRule>,
    /// Grace the arbiter allows past a clock's budget before a timeout, ms.
    pub timeout_margin_ms: u64,
    /// Head-to-head only: stop when this sequential test decides (`games` is then the most
    /// games played). See `crate::stats::Sprt` for the keys.
    pub sprt: Option<crate::stats::Sprt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(rename = "match")]
    tournament: RawMatch,
    #[serde(rename = "player", default)]
    players: Vec<RawPlayer>,
}

/// [`Config::load_players`]: the players, with any `[match]` table left unread.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlayers {
    #[serde(rename = "match", default)]
    _tournament: Option<toml::Table>,
    #[serde(rename = "player", default)]
    players: Vec<RawPlayer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    #[serde(default = "default_format")]
    format: Format,
    players: Vec<String>,
    #[serde(default = "default_games")]
    games: u64,
    #[serde(default = "default_max_plies")]
    max_plies: u32,
    #[serde(default)]
    seed: u64,
    start: Option<String>,
    handicap: Option<String>,
    handicap_giver: Option<String>,
    openings: Option<PathBuf>,
    resign: Option<ResignRule>,
    #[serde(default = "default_margin")]
    timeout_margin_ms: u64,
    sprt: Option<crate::stats::Sprt>,
}

fn default_format() -> Format {
    Format::HeadToHead
}
fn default_games() -> u64 {
    2
}
fn default_max_plies() -> u32 {
    320
}
fn default_margin() -> u64 {
    1000
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RawKind {
    Internal,
    Usi,
    Council,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlayer {
    name: String,
    kind: RawKind,
    #[serde(flatten)]
    limits: RawLimits,
    move_timeout_ms: Option<u64>,
    win_rate_t: Option<f64>,
    sigma: Option<f64>,
    // internal
    noise_cp: Option<u32>,
    hash_mb: Option<u32>,
    // usi
    command: Option<PathBuf>,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<PathBuf>,
    #[serde(default)]
    options: BTreeMap<String, OptionValue>,
    startup_timeout_ms: Option<u64>,
    mate_cp: Option<i32>,
    go_nodes: Option<bool>,
    seed_option: Option<String>,
    drop_notation: Option<String>,
    go_byoyomi: Option<bool>,
    position_startpos: Option<bool>,
    // council
    members: Option<Vec<String>>,
    method: Option<Method>,
    fairness: Option<Fairness>,
    ml_d: Option<f64>,
}

// `flatten` and `deny_unknown_fields` do not mix in serde, so the limits are listed here and
// copied into `Limits`.
#[derive(Deserialize)]
struct RawLimits {
    nodes: Option<u64>,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    time_ms: Option<u64>,
    byoyomi_ms: Option<u64>,
    increment_ms: Option<u64>,
}

/// Default win-rate constant `T` (many engines are near 600, `models.md` section 1).
pub const DEFAULT_WIN_RATE_T: f64 = 600.0;
/// Default per-member noise `s_i` (cp) for ml voting.
pub const DEFAULT_SIGMA: f64 = 200.0;
/// Default gap `d` (cp) between the best candidate and the others for ml voting.
pub const DEFAULT_ML_D: f64 = 100.0;

impl Config {
    /// Read, parse and validate `path`. Relative paths inside (openings, engine commands that
    /// contain a `/`, working folders) are taken relative to the config file's folder.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.display().to_string(),
            location: String::new(),
            problem: format!("cannot read: {e}"),
        })?;
        Self::parse(path, &text)
    }

    /// Parse and validate `text` as if read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| toml_error(path, text, &e))?;
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        validate(path, &base, raw)
    }

    /// Read and validate only the `[[player]]` tables of `path` (`council-usi`): `[match]` may be
    /// absent and is not read. The result has no playing players and default match settings;
    /// any of its players can be built.
    pub fn load_players(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.display().to_string(),
            location: String::new(),
            problem: format!("cannot read: {e}"),
        })?;
        let raw: RawPlayers = toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let players = validate_players(path, base, raw.players)?;
        if players.is_empty() {
            return Err(ConfigError::key(path, "player", "no [[player]] table"));
        }
        Ok(Config {
            file: path.to_path_buf(),
            format: Format::HeadToHead,
            playing: Vec::new(),
            players,
            games: default_games(),
            max_plies: default_max_plies(),
            seed: 0,
            openings: Openings::Single("startpos".into()),
            resign: None,
            timeout_margin_ms: default_margin(),
            sprt: None,
        })
    }

    /// Every player that `name` needs (itself and, for councils, its members recursively).
    pub fn player(&self, name: &str) -> &PlayerConfig {
        &self.players[name]
    }
}

fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let mut location = String::new();
    if let Some(span) = e.span() {
        let start = span.start.min(text.len());
        let line = text[..start].matches('\n').count() + 1;
        location.push_str(&format!("line {line}: "));
        // A bad value: name the key it was given for, as written on that line.
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_text = text[line_start..].lines().next().unwrap_or("");
        if let Some((key, _)) = line_text.split_once('=')
            && start > line_start + key.len()
            && !key.trim().is_empty()
            && !key.contains('[')
        {
            location.push_str(&format!("key `{}`: ", key.trim()));
        }
        let snippet = text.get(span.clone()).unwrap_or("").trim();
        if !snippet.is_empty() && !snippet.contains('\n') && snippet.len() < 60 {
            location.push_str(&format!("at `{snippet}`: "));
        }
    }
    ConfigError {
        file: path.display().to_string(),
        location,
        problem: e.message().trim().replace('\n', " "),
    }
}

fn validate(path: &Path, base: &Path, raw: RawConfig) -> Result<Config, ConfigError> {
    let players = validate_players(path, base, raw.players)?;
    validate_match(path, base, raw.tournament, players)
}

/// The `[[player]]` tables alone, checked as [`Config::load`] checks them.
fn validate_players(
    path: &Path,
    base: &Path,
    raw: Vec<RawPlayer>,
) -> Result<BTreeMap<String, PlayerConfig>, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let mut players = BTreeMap::new();
    for (i, p) in raw.into_iter().enumerate() {
        let name = p.name.trim().to_string();
        let key = |k: &str| format!("player[{i}].{k}");
        if name.is_empty() {
            return Err(err(&key("name"), "must not be empty".into()));
        }
        if players.contains_key(&name) {
            return Err(err(&key("name"), format!("`{name}` is defined twice")));
        }
        let limits = Limits {
            nodes: p.limits.nodes,
            depth: p.limits.depth,
            movetime_ms: p.limits.movetime_ms,
            time_ms: p.limits.time_ms,
            byoyomi_ms: p.limits.byoyomi_ms,
            increment_ms: p.limits.increment_ms,
        };
        if limits.increment_ms.is_some() && limits.time_ms.is_none() {
            return Err(err(
                &key("increment_ms"),
                format!(
                    "player `{name}`: a Fischer increment needs a main time (time_ms): the \
                     increment is credited after each move"
                ),
            ));
        }
        if limits.nodes == Some(0) || limits.depth == Some(0) || limits.movetime_ms == Some(0) {
            return Err(err(
                &key("nodes/depth/movetime_ms"),
                format!("player `{name}`: limits must be positive"),
            ));
        }
        let positive = |k: &str, v: Option<f64>, default: f64| -> Result<f64, ConfigError> {
            match v {
                Some(x) if !(x.is_finite() && x > 0.0) => Err(err(
                    &key(k),
                    format!("player `{name}`: must be a positive number, got {x}"),
                )),
                Some(x) => Ok(x),
                None => Ok(default),
            }
        };
        let win_rate_t = positive("win_rate_t", p.win_rate_t, DEFAULT_WIN_RATE_T)?;
        let sigma = positive("sigma", p.sigma, DEFAULT_SIGMA)?;
        let only = |k: &str, set: bool, kind: &str| -> Result<(), ConfigError> {
            if set {
                Err(err(
                    &key(k),
                    format!("player `{name}`: only meaningful for kind = \"{kind}\""),
                ))
            } else {
                Ok(())
            }
        };
        let is_usi = matches!(p.kind, RawKind::Usi);
        let is_council = matches!(p.kind, RawKind::Council);
        let is_internal = matches!(p.kind, RawKind::Internal);
        for (k, set) in UsiEngineSettings::keys_set(&p) {
            only(k, set && !is_usi, "usi")?;
        }
        only("members", p.members.is_some() && !is_council, "council")?;
        only("method", p.method.is_some() && !is_council, "council")?;
        only("fairness", p.fairness.is_some() && !is_council, "council")?;
        only("ml_d", p.ml_d.is_some() && !is_council, "council")?;
        only("noise_cp", p.noise_cp.is_some() && !is_internal, "internal")?;
        only("hash_mb", p.hash_mb.is_some() && !is_internal, "internal")?;
        let kind = match p.kind {
            RawKind::Internal => PlayerKind::Internal {
                noise_cp: p.noise_cp.unwrap_or(0),
                hash_mb: p.hash_mb.unwrap_or(16),
            },
            RawKind::Usi => PlayerKind::Usi(
                UsiEngineSettings::from_raw(base, &p)
                    .map_err(|(k, problem)| err(&key(k), format!("player `{name}`: {problem}")))?,
            ),
            RawKind::Council => {
                let members = p.members.unwrap_or_default();
                if members.is_empty() {
                    return Err(err(
                        &key("members"),
                        format!("player `{name}`: a council needs at least one member"),
                    ));
                }
                PlayerKind::Council {
                    members,
                    method: p.method.unwrap_or(Method::Majority),
                    fairness: p.fairness.unwrap_or(Fairness::Full),
                    ml_d: positive("ml_d", p.ml_d, DEFAULT_ML_D)?,
                }
            }
        };
        players.insert(
            name.clone(),
            PlayerConfig {
                name,
                kind,
                limits,
                move_timeout_ms: p.move_timeout_ms.unwrap_or(60_000),
                win_rate_t,
                sigma,
            },
        );
    }

    // Council members exist, and no council contains itself (directly or not).
    for (name, p) in &players {
        if let PlayerKind::Council { members, .. } = &p.kind {
            for m in members {
                if !players.contains_key(m) {
                    return Err(err(
                        "player.members",
                        format!("council `{name}` names unknown member `{m}`"),
                    ));
                }
            }
            for m in members {
                if players[m].limits.time_ms.is_some() {
                    return Err(err(
                        "player.members",
                        format!(
                            "council `{name}`: member `{m}` sets time_ms, but the arbiter keeps \
                             one clock per playing player: give the council the clock, or the \
                             member movetime_ms or byoyomi_ms"
                        ),
                    ));
                }
            }
            let mut seen = HashSet::new();
            if contains_cycle(&players, name, &mut seen) {
                return Err(err(
                    "player.members",
                    format!("council `{name}` contains itself"),
                ));
            }
        }
    }
    Ok(players)
}

fn validate_match(
    path: &Path,
    base: &Path,
    m: RawMatch,
    players: BTreeMap<String, PlayerConfig>,
) -> Result<Config, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let mut seen = HashSet::new();
    for name in &m.players {
        if !players.contains_key(name) {
            return Err(err(
                "match.players",
                format!("unknown player `{name}` (define it in a [[player]] table)"),
            ));
        }
        if !seen.insert(name) {
            return Err(err("match.players", format!("`{name}` is listed twice")));
        }
        if !has_limit(&players, name) {
            return Err(err(
                "match.players",
                format!(
                    "player `{name}` has no limit (set nodes, depth, movetime_ms or a clock: \
                     time_ms/byoyomi_ms/increment_ms)"
                ),
            ));
        }
    }
    for name in &m.players {
        check_time_needs(path, &players, name, &Limits::default())?;
    }
    match (m.format, m.players.len()) {
        (Format::HeadToHead, 2) => {}
        (Format::HeadToHead, n) => {
            return Err(err(
                "match.players",
                format!("head-to-head needs exactly 2 players, got {n}"),
            ));
        }
        (_, n) if n < 2 => {
            return Err(err(
                "match.players",
                format!("needs at least 2 players, got {n}"),
            ));
        }
        _ => {}
    }
    if m.games == 0 {
        return Err(err("match.games", "must be at least 1".into()));
    }
    if m.max_plies == 0 {
        return Err(err("match.max_plies", "must be at least 1".into()));
    }
    if let Some(r) = &m.resign
        && (r.score_cp <= 0 || r.moves == 0)
    {
        return Err(err(
            "match.resign",
            "score_cp and moves must be positive".into(),
        ));
    }

    if let Some(sprt) = &m.sprt {
        if m.format != Format::HeadToHead {
            return Err(err(
                "match.sprt",
                "only for format = \"head-to-head\"".into(),
            ));
        }
        sprt.validate()
            .map_err(|e| err("match.sprt", e.to_string()))?;
    }

    let chosen = [
        m.start.is_some(),
        m.handicap.is_some(),
        m.openings.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if chosen > 1 {
        return Err(err(
            "match.start/handicap/openings",
            "set at most one of them".into(),
        ));
    }
    if m.handicap_giver.is_some() && m.handicap.is_none() {
        return Err(err("match.handicap_giver", "needs match.handicap".into()));
    }
    let openings = if let Some(h) = m.handicap {
        if let Some(g) = &m.handicap_giver
            && !m.players.contains(g)
        {
            return Err(err(
                "match.handicap_giver",
                format!("`{g}` is not one of match.players"),
            ));
        }
        check_handicap(&h).map_err(|p| err("match.handicap", p))?;
        Openings::Handicap {
            name: h,
            giver: m.handicap_giver,
        }
    } else if let Some(file) = m.openings {
        let full = base.join(&file);
        let text = std::fs::read_to_string(&full).map_err(|e| {
            err(
                "match.openings",
                format!("cannot read {}: {e}", full.display()),
            )
        })?;
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            check_start(line).map_err(|p| {
                err(
                    "match.openings",
                    format!("{} line {}: {p}", full.display(), i + 1),
                )
            })?;
            lines.push(line.to_string());
        }
        if lines.is_empty() {
            return Err(err(
                "match.openings",
                format!("{} has no positions", full.display()),
            ));
        }
        Openings::File { path: full, lines }
    } else {
        let start = m.start.unwrap_or_else(|| "startpos".into());
        check_start(&start).map_err(|p| err("match.start", p))?;
        Openings::Single(start)
    };

    Ok(Config {
        file: path.to_path_buf(),
        format: m.format,
        playing: m.players,
        players,
        games: m.games,
        max_plies: m.max_plies,
        seed: m.seed,
        openings,
        resign: m.resign,
        timeout_margin_ms: m.timeout_margin_ms,
        sprt: m.sprt,
    })
}

/// A start position the engine accepts: `startpos`, an SFEN (with or without the `sfen ` word),
/// either followed by `moves ...` (every move legal).
fn check_start(text: &str) -> Result<(), String> {
    engine::position::Position::from_start_text(text)
        .map(|_| ())
        .map_err(|e| format!("`{text}`: {e}"))
}

fn check_handicap(name: &str) -> Result<(), String> {
    name.parse::<engine::position::Handicap>()
        .map(|_| ())
        .map_err(|e| format!("`{name}`: {e}"))
}

fn contains_cycle(
    players: &BTreeMap<String, PlayerConfig>,
    name: &str,
    stack: &mut HashSet<String>,
) -> bool {
    if !stack.insert(name.to_string()) {
        return true;
    }
    if let Some(PlayerConfig {
        kind: PlayerKind::Council { members, .. },
        ..
    }) = players.get(name)
    {
        for m in members {
            if contains_cycle(players, m, stack) {
                return true;
            }
        }
    }
    stack.remove(name);
    false
}

/// A USI engine that cannot be given `go nodes` / `go depth` (`go_nodes = false`) needs a time
/// in the budget it plays with (its own limits, else the nearest council's that sets some):
/// otherwise it would get a bare `go` and think until its timeout.
fn check_time_needs(
    path: &Path,
    players: &BTreeMap<String, PlayerConfig>,
    name: &str,
    inherited: &Limits,
) -> Result<(), ConfigError> {
    let p = &players[name];
    let limits = if p.limits.is_empty() {
        inherited
    } else {
        &p.limits
    };
    match &p.kind {
        PlayerKind::Usi(usi)
            if !usi.go_nodes && limits.movetime_ms.is_none() && !limits.has_clock() =>
        {
            Err(ConfigError::key(
                path,
                "player.go_nodes",
                format!(
                    "player `{name}`: go_nodes = false needs a time limit (movetime_ms or a clock: \
                 time_ms/byoyomi_ms/increment_ms), its own or its council's; with only nodes or \
                 depth it would get a bare `go`"
                ),
            ))
        }
        PlayerKind::Council { members, .. } => members
            .iter()
            .try_for_each(|m| check_time_needs(path, players, m, limits)),
        _ => Ok(()),
    }
}

/// A player has a limit if it sets one, or is a council whose members all have one.
fn has_limit(players: &BTreeMap<String, PlayerConfig>, name: &str) -> bool {
    let p = &players[name];
    !p.limits.is_empty()
        || matches!(&p.kind, PlayerKind::Council { members, .. }
            if members.iter().all(|m| has_limit(players, m)))
}

/// Find an engine command: a bare name is looked up on `PATH`, anything with a `/` is taken
/// relative to the config's folder. The result must be an executable file.
fn resolve_command(base: &Path, command: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &Path| {
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if command.components().count() > 1 {
        let full = base.join(command);
        if !full.exists() {
            return Err(format!("{} does not exist", full.display()));
        }
        if !is_exec(&full) {
            return Err(format!("{} is not an executable file", full.display()));
        }
        return Ok(full);
    }
    let paths = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&paths) {
        let full = dir.join(command);
        if is_exec(&full) {
            return Ok(full);
        }
    }
    Err(format!("`{}` not found on PATH", command.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("test.toml"), text)
    }

    const BASE: &str = r#"
[match]
players = ["council", "single"]
games = 4

[[player]]
name = "single"
kind = "internal"
nodes = 1000

[[player]]
name = "a"
kind = "internal"

[[player]]
name = "council"
kind = "council"
members = ["a", "single"]
nodes = 1000
"#;

    #[test]
    fn a_valid_config_parses_with_defaults() {
        let c = parse(BASE).expect("valid");
        assert_eq!(c.format, Format::HeadToHead);
        assert_eq!(c.games, 4);
        assert_eq!(c.max_plies, 320);
        assert_eq!(c.openings, Openings::Single("startpos".into()));
        match &c.player("council").kind {
            PlayerKind::Council {
                method, fairness, ..
            } => {
                assert_eq!(*method, Method::Majority);
                assert_eq!(*fairness, Fairness::Full);
            }
            k => panic!("{k:?}"),
        }
    }

    fn one_line_error(text: &str) -> String {
        let e = parse(text).expect_err("must fail").to_string();
        assert!(!e.contains('\n'), "error is one line: {e}");
        assert!(e.starts_with("test.toml: "), "error names the file: {e}");
        e
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "nodez = 1\n\n[[player]]\nname = \"a\"",
        ));
        assert!(e.contains("nodez"), "{e}");
        assert!(e.contains("line "), "{e}");
    }

    #[test]
    fn unknown_player_in_match_is_rejected() {
        let e =
            one_line_error(&BASE.replace("[\"council\", \"single\"]", "[\"council\", \"nobody\"]"));
        assert!(e.contains("match.players") && e.contains("nobody"), "{e}");
    }

    #[test]
    fn council_cycles_and_unknown_members_are_rejected() {
        let e = one_line_error(&BASE.replace(
            "members = [\"a\", \"single\"]",
            "members = [\"a\", \"council\"]",
        ));
        assert!(e.contains("contains itself"), "{e}");
        let e = one_line_error(
            &BASE.replace("members = [\"a\", \"single\"]", "members = [\"a\", \"b\"]"),
        );
        assert!(e.contains("unknown member `b`"), "{e}");
    }

    #[test]
    fn missing_engine_and_missing_limits_are_rejected() {
        let text = format!(
            "{BASE}\n[[player]]\nname = \"x\"\nkind = \"usi\"\ncommand = \"/no/such/engine\"\n"
        );
        let e = one_line_error(&text);
        assert!(
            e.contains("player[3].command") && e.contains("does not exist"),
            "{e}"
        );
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "\n[[player]]\nname = \"a\"",
        ));
        assert!(e.contains("no limit"), "{e}");
    }

    #[test]
    fn bad_values_are_rejected() {
        let e = one_line_error(&BASE.replace("games = 4", "games = 0"));
        assert!(e.contains("match.games"), "{e}");
        let e = one_line_error(&BASE.replace("games = 4", "games = 4\nformat = \"swiss\""));
        assert!(e.contains("swiss"), "{e}");
        let e = one_line_error(&BASE.replace("games = 4", "games = 4\nhandicap = \"queen\""));
        assert!(e.contains("match.handicap"), "{e}");
        let e = one_line_error(&BASE.replace("games = 4", "games = 4\nstart = \"not an sfen\""));
        assert!(e.contains("match.start"), "{e}");
        let e = one_line_error(&BASE.replace(
            "kind = \"internal\"\nnodes",
            "kind = \"internal\"\nmembers = []\nnodes",
        ));
        assert!(e.contains("only meaningful"), "{e}");
    }

    fn with_usi(extra: &str) -> String {
        BASE.replace(
            "[[player]]\nname = \"a\"\nkind = \"internal\"\n",
            &format!("[[player]]\nname = \"a\"\nkind = \"usi\"\ncommand = \"sh\"\n{extra}\n"),
        )
    }

    #[test]
    fn engine_quirks_are_read_and_checked() {
        let c = parse(&with_usi(
            "drop_notation = \"@\"\ngo_byoyomi = false\nposition_startpos = false",
        ))
        .expect("valid");
        match &c.player("a").kind {
            PlayerKind::Usi(usi) => {
                assert_eq!(usi.drop_notation, DropNotation::At);
                assert!(!usi.go_byoyomi && !usi.position_startpos && usi.go_nodes);
            }
            k => panic!("{k:?}"),
        }
        // Defaults: strict USI.
        match &parse(&with_usi("")).expect("valid").player("a").kind {
            PlayerKind::Usi(usi) => {
                assert_eq!(usi.drop_notation, DropNotation::Star);
                assert!(usi.go_byoyomi && usi.position_startpos);
            }
            k => panic!("{k:?}"),
        }
        let e = one_line_error(&with_usi("drop_notation = \"#\""));
        assert!(
            e.contains("player[1].drop_notation") && e.contains("\"#\""),
            "{e}"
        );
        let e = one_line_error(&with_usi("go_byoyomi = \"no\""));
        assert!(e.contains("go_byoyomi"), "{e}");
        let e = one_line_error(&BASE.replace(
            "kind = \"internal\"\nnodes",
            "kind = \"internal\"\ndrop_notation = \"@\"\nnodes",
        ));
        assert!(
            e.contains("drop_notation") && e.contains("only meaningful"),
            "{e}"
        );
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "nodes = 1000\nincrement_ms = 100\n\n[[player]]\nname = \"a\"",
        ));
        assert!(
            e.contains("player[0].increment_ms") && e.contains("time_ms"),
            "{e}"
        );
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "nodes = 1000\ntime_ms = 60000\n\n[[player]]\nname = \"a\"",
        ));
        assert!(e.contains("member `single` sets time_ms"), "{e}");
        // An engine that takes no `go nodes` under a council that only gives nodes would get
        // a bare `go`.
        let e = one_line_error(&with_usi("go_nodes = false"));
        assert!(e.contains("go_nodes") && e.contains("`a`"), "{e}");
        parse(&with_usi("go_nodes = false\nbyoyomi_ms = 500")).expect("own time limit");
    }
}
