//! The `[tune]` section: what `council-tune` tunes (a player's numeric keys), over how many SPSA
//! iterations, against whom, and the bowl `--simulate` plays instead of games. Read here, beside
//! the rest of the configuration, so a bad section is refused by `council-match --check` with the
//! same one-line messages; the tuner itself (`crate::tune`) only sees validated values.
//!
//! A parameter's `path` names a key of the tuned player (`nodes`, `noise_cp`, `ml_d`, ...), a key
//! of one of its council's members (`members.NAME.KEY`), or an integer USI option the config
//! sets for the player (`options.NAME`). [`ParamTarget::apply`] writes a value into a
//! [`PlayerConfig`]; integer keys are rounded there, when played, never in θ.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::usi_engine::OptionValue;
use super::{ConfigError, PlayerConfig, PlayerKind};

/// `[tune]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTune {
    player: Option<String>,
    iterations: Option<u64>,
    pairs: Option<u64>,
    opponent: Option<String>,
    seed: Option<u64>,
    #[serde(rename = "param", default)]
    params: Vec<RawParam>,
    simulate: Option<RawSimulate>,
}

/// One `[[tune.param]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParam {
    path: Option<String>,
    start: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
    c_end: Option<f64>,
    r_end: Option<f64>,
    integer: Option<bool>,
}

/// `[tune.simulate]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSimulate {
    #[serde(default)]
    optimum: BTreeMap<String, f64>,
    #[serde(default)]
    elo: BTreeMap<String, f64>,
    draw_ratio: Option<f64>,
}

/// The validated `[tune]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneConfig {
    /// The player whose keys are tuned.
    pub player: String,
    /// SPSA iterations K (one θ update each).
    pub iterations: u64,
    /// Game pairs (colours swapped) per iteration: θ+ against θ−, or each against `opponent`.
    pub pairs: u64,
    /// `None`: θ+ plays θ− (fishtest's way, the default: one pair measures the gradient
    /// directly). Some player: θ+ and θ− each play it.
    pub opponent: Option<String>,
    pub seed: u64,
    pub params: Vec<TuneParam>,
    pub simulate: SimulateBowl,
}

/// One tuned parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneParam {
    /// As written (`noise_cp`, `members.a.nodes`, `options.Threads`).
    pub path: String,
    pub target: ParamTarget,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation at the last iteration (fishtest's `c_end`).
    pub c_end: f64,
    /// The step at the last iteration relative to `c_end²` (fishtest's `r_end`).
    pub r_end: f64,
    /// Rounded to the nearest integer when played.
    pub integer: bool,
}

/// `--simulate`'s known Elo function: `Elo(θ) = −Σ elo_i · ((θ_i − optimum_i) / (max_i − min_i))²`.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulateBowl {
    /// Per parameter, in the order of `params`.
    pub optimum: Vec<f64>,
    /// Per parameter: the Elo lost a whole range away from the optimum.
    pub elo: Vec<f64>,
    /// Probability of a draw between equals (it falls with the Elo gap).
    pub draw_ratio: f64,
}

/// Default `[tune] pairs`.
const DEFAULT_PAIRS: u64 = 1;
/// Default bowl depth (Elo a whole range away from the optimum).
const DEFAULT_BOWL_ELO: f64 = 100.0;
/// Default draw ratio of the simulated games.
const DEFAULT_DRAW_RATIO: f64 = 0.3;

/// Which key of which player a parameter sets.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamTarget {
    /// The player that holds the key (the tuned player or one of its members).
    pub player: String,
    pub key: ParamKey,
}

/// The numeric keys a tune can set.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamKey {
    Nodes,
    Depth,
    MovetimeMs,
    TimeMs,
    ByoyomiMs,
    IncrementMs,
    MoveTimeoutMs,
    WinRateT,
    Sigma,
    NoiseCp,
    HashMb,
    Temperature,
    MlD,
    ApprovalK,
    /// An integer USI option the config sets (`options.NAME`).
    UsiOption(String),
}

/// Keys of a player that exist but are not numbers.
const NON_NUMERIC: [&str; 18] = [
    "name",
    "kind",
    "candidates",
    "model",
    "setting",
    "command",
    "args",
    "dir",
    "options",
    "go_nodes",
    "seed_option",
    "drop_notation",
    "go_byoyomi",
    "position_startpos",
    "restart",
    "members",
    "method",
    "fairness",
];

impl ParamKey {
    fn parse(key: &str) -> Option<ParamKey> {
        Some(match key {
            "nodes" => ParamKey::Nodes,
            "depth" => ParamKey::Depth,
            "movetime_ms" => ParamKey::MovetimeMs,
            "time_ms" => ParamKey::TimeMs,
            "byoyomi_ms" => ParamKey::ByoyomiMs,
            "increment_ms" => ParamKey::IncrementMs,
            "move_timeout_ms" => ParamKey::MoveTimeoutMs,
            "win_rate_t" => ParamKey::WinRateT,
            "sigma" => ParamKey::Sigma,
            "noise_cp" => ParamKey::NoiseCp,
            "hash_mb" => ParamKey::HashMb,
            "temperature" => ParamKey::Temperature,
            "ml_d" => ParamKey::MlD,
            "approval_k" => ParamKey::ApprovalK,
            _ => return None,
        })
    }

    /// Whether the key holds whole numbers only.
    fn integer_only(&self) -> bool {
        !matches!(
            self,
            ParamKey::WinRateT | ParamKey::Sigma | ParamKey::Temperature | ParamKey::MlD
        )
    }

    /// The smallest value the key takes.
    fn floor(&self) -> f64 {
        match self {
            ParamKey::Nodes
            | ParamKey::Depth
            | ParamKey::MovetimeMs
            | ParamKey::MoveTimeoutMs
            | ParamKey::ApprovalK
            | ParamKey::HashMb => 1.0,
            ParamKey::UsiOption(_) => f64::NEG_INFINITY,
            _ => 0.0,
        }
    }

    /// Why `kind` has no such key, if it has none.
    fn wrong_kind(&self, kind: &PlayerKind) -> Option<&'static str> {
        match (self, kind) {
            (ParamKey::NoiseCp | ParamKey::HashMb, PlayerKind::Internal { .. })
            | (ParamKey::Temperature, PlayerKind::Intuition { .. })
            | (ParamKey::MlD | ParamKey::ApprovalK, PlayerKind::Council { .. })
            | (ParamKey::UsiOption(_), PlayerKind::Usi(_)) => None,
            (ParamKey::NoiseCp | ParamKey::HashMb, _) => Some("an internal player's key"),
            (ParamKey::Temperature, _) => Some("an intuition player's key"),
            (ParamKey::MlD | ParamKey::ApprovalK, _) => Some("a council's key"),
            (ParamKey::UsiOption(_), _) => Some("a usi player's key"),
            _ => None,
        }
    }
}

impl ParamTarget {
    /// Set this key of `player` (the target player's config) to `value`, rounded when the key
    /// holds whole numbers. The value is already within the parameter's [min, max].
    pub fn apply(&self, player: &mut PlayerConfig, value: f64) {
        let whole = value.round().max(0.0) as u64;
        let small = u32::try_from(whole).unwrap_or(u32::MAX);
        let l = &mut player.limits;
        match (&self.key, &mut player.kind) {
            (ParamKey::Nodes, _) => l.nodes = Some(whole.max(1)),
            (ParamKey::Depth, _) => l.depth = Some(small.max(1)),
            (ParamKey::MovetimeMs, _) => l.movetime_ms = Some(whole.max(1)),
            (ParamKey::TimeMs, _) => l.time_ms = Some(whole),
            (ParamKey::ByoyomiMs, _) => l.byoyomi_ms = Some(whole),
            (ParamKey::IncrementMs, _) => l.increment_ms = Some(whole),
            (ParamKey::MoveTimeoutMs, _) => player.move_timeout_ms = whole.max(1),
            (ParamKey::WinRateT, _) => player.win_rate_t = value,
            (ParamKey::Sigma, _) => player.sigma = value,
            (ParamKey::NoiseCp, PlayerKind::Internal { noise_cp, .. }) => *noise_cp = small,
            (ParamKey::HashMb, PlayerKind::Internal { hash_mb, .. }) => *hash_mb = small.max(1),
            (ParamKey::Temperature, PlayerKind::Intuition { temperature, .. }) => {
                *temperature = value
            }
            (ParamKey::MlD, PlayerKind::Council { ml_d, .. }) => *ml_d = value,
            (ParamKey::ApprovalK, PlayerKind::Council { approval_k, .. }) => {
                *approval_k = (whole as usize).max(1)
            }
            (ParamKey::UsiOption(name), PlayerKind::Usi(settings)) => {
                for (n, v) in &mut settings.options {
                    if n == name {
                        *v = OptionValue::Int(value.round() as i64);
                    }
                }
            }
            // Validation made sure the key belongs to the player's kind.
            _ => {}
        }
    }
}

/// Validate `[tune]` against the validated players.
pub(super) fn validate_tune(
    path: &Path,
    raw: RawTune,
    players: &BTreeMap<String, PlayerConfig>,
    match_seed: u64,
) -> Result<TuneConfig, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let player = raw
        .player
        .ok_or_else(|| err("tune.player", "missing: name the player to tune".into()))?;
    let Some(tuned) = players.get(&player) else {
        return Err(err(
            "tune.player",
            format!("no player named `{player}` in this config"),
        ));
    };
    let iterations = raw
        .iterations
        .ok_or_else(|| err("tune.iterations", "missing".into()))?;
    if iterations == 0 {
        return Err(err("tune.iterations", "must be at least 1".into()));
    }
    let pairs = raw.pairs.unwrap_or(DEFAULT_PAIRS);
    if pairs == 0 {
        return Err(err("tune.pairs", "must be at least 1".into()));
    }
    if let Some(o) = &raw.opponent {
        if !players.contains_key(o) {
            return Err(err(
                "tune.opponent",
                format!("no player named `{o}` in this config"),
            ));
        }
        if *o == player {
            return Err(err(
                "tune.opponent",
                format!("`{o}` is the tuned player; leave opponent out to play θ+ against θ−"),
            ));
        }
    }
    if raw.params.is_empty() {
        return Err(err(
            "tune.param",
            "no [[tune.param]]: give at least one parameter".into(),
        ));
    }
    let mut params: Vec<TuneParam> = Vec::new();
    for (i, p) in raw.params.into_iter().enumerate() {
        let key = |k: &str| format!("tune.param[{i}].{k}");
        let need = |v: Option<f64>, k: &str| {
            let v = v.ok_or_else(|| err(&key(k), "missing".into()))?;
            if v.is_finite() {
                Ok(v)
            } else {
                Err(err(&key(k), "must be a finite number".into()))
            }
        };
        let p_path = p.path.ok_or_else(|| err(&key("path"), "missing".into()))?;
        let target = resolve_path(&p_path, &player, tuned, players)
            .map_err(|problem| err(&key("path"), format!("`{p_path}`: {problem}")))?;
        if params.iter().any(|q| q.path == p_path) {
            return Err(err(&key("path"), format!("`{p_path}` is tuned twice")));
        }
        let (start, min, max) = (
            need(p.start, "start")?,
            need(p.min, "min")?,
            need(p.max, "max")?,
        );
        let (c_end, r_end) = (need(p.c_end, "c_end")?, need(p.r_end, "r_end")?);
        if min > max {
            return Err(err(&key("min"), format!("min {min} is above max {max}")));
        }
        if min < target.key.floor() {
            return Err(err(
                &key("min"),
                format!("`{p_path}` takes no value below {}", target.key.floor()),
            ));
        }
        if !(min..=max).contains(&start) {
            return Err(err(
                &key("start"),
                format!("start {start} is outside [min, max] = [{min}, {max}]"),
            ));
        }
        if c_end <= 0.0 {
            return Err(err(&key("c_end"), "must be positive".into()));
        }
        if r_end <= 0.0 {
            return Err(err(&key("r_end"), "must be positive".into()));
        }
        let integer = match (p.integer, target.key.integer_only()) {
            (Some(false), true) => {
                return Err(err(
                    &key("integer"),
                    format!("`{p_path}` holds whole numbers: integer = false cannot be played"),
                ));
            }
            (Some(i), _) => i,
            (None, whole) => whole,
        };
        params.push(TuneParam {
            path: p_path,
            target,
            start,
            min,
            max,
            c_end,
            r_end,
            integer,
        });
    }
    let simulate = simulate_bowl(path, raw.simulate, &params)?;
    Ok(TuneConfig {
        player,
        iterations,
        pairs,
        opponent: raw.opponent,
        seed: raw.seed.unwrap_or(match_seed),
        params,
        simulate,
    })
}

/// `path` of a parameter of `name` (config `tuned`) as the key it sets.
fn resolve_path(
    path: &str,
    name: &str,
    tuned: &PlayerConfig,
    players: &BTreeMap<String, PlayerConfig>,
) -> Result<ParamTarget, String> {
    if let Some(rest) = path.strip_prefix("members.") {
        let PlayerKind::Council { members, .. } = &tuned.kind else {
            return Err(format!("`{name}` is not a council and has no members"));
        };
        let Some((member, key)) = rest.split_once('.') else {
            return Err("write members.NAME.KEY".into());
        };
        if !members.iter().any(|m| m == member) {
            return Err(format!(
                "`{member}` is not a member of `{name}` (members: {})",
                members.join(", ")
            ));
        }
        // Validation made sure every member is a configured player.
        let Some(mc) = players.get(member) else {
            return Err(format!("no player named `{member}`"));
        };
        return resolve_path(key, member, mc, players);
    }
    if let Some(option) = path.strip_prefix("options.") {
        let PlayerKind::Usi(settings) = &tuned.kind else {
            return Err(format!("`{name}` is not a usi player and has no options"));
        };
        return match settings.options.iter().find(|(n, _)| n == option) {
            Some((_, OptionValue::Int(_))) => Ok(ParamTarget {
                player: name.to_string(),
                key: ParamKey::UsiOption(option.to_string()),
            }),
            Some(_) => Err(format!(
                "option `{option}` of `{name}` is not an integer: only integer (spin) options tune"
            )),
            None => Err(format!(
                "`{name}` sets no option `{option}`: set it in its options table first"
            )),
        };
    }
    let Some(key) = ParamKey::parse(path) else {
        return Err(if NON_NUMERIC.contains(&path) {
            "not a numeric key".into()
        } else if matches!(path, "mate_cp" | "startup_timeout_ms") {
            "not tunable: an engine's plumbing, not its play".into()
        } else {
            "unknown key: a numeric key of the player (nodes, depth, movetime_ms, time_ms, \
             byoyomi_ms, increment_ms, move_timeout_ms, win_rate_t, sigma, noise_cp, hash_mb, \
             temperature, ml_d, approval_k), members.NAME.KEY or options.NAME"
                .into()
        });
    };
    if let Some(owner) = key.wrong_kind(&tuned.kind) {
        return Err(format!("{owner}, and `{name}` is not one"));
    }
    Ok(ParamTarget {
        player: name.to_string(),
        key,
    })
}

/// `[tune.simulate]` against the parameters: every key a tuned path, values in range.
fn simulate_bowl(
    path: &Path,
    raw: Option<RawSimulate>,
    params: &[TuneParam],
) -> Result<SimulateBowl, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let raw = raw.unwrap_or(RawSimulate {
        optimum: BTreeMap::new(),
        elo: BTreeMap::new(),
        draw_ratio: None,
    });
    for (table, map) in [("optimum", &raw.optimum), ("elo", &raw.elo)] {
        if let Some(k) = map.keys().find(|k| !params.iter().any(|p| p.path == **k)) {
            return Err(err(
                &format!("tune.simulate.{table}"),
                format!("`{k}` is not a tuned parameter's path"),
            ));
        }
    }
    let mut optimum = Vec::new();
    let mut elo = Vec::new();
    for p in params {
        let o = raw
            .optimum
            .get(&p.path)
            .copied()
            .unwrap_or((p.min + p.max) / 2.0);
        if !(p.min..=p.max).contains(&o) {
            return Err(err(
                "tune.simulate.optimum",
                format!(
                    "`{}` = {o} is outside [min, max] = [{}, {}]",
                    p.path, p.min, p.max
                ),
            ));
        }
        let e = raw.elo.get(&p.path).copied().unwrap_or(DEFAULT_BOWL_ELO);
        if !(e.is_finite() && e >= 0.0) {
            return Err(err(
                "tune.simulate.elo",
                format!("`{}` = {e}: must be a number >= 0", p.path),
            ));
        }
        optimum.push(o);
        elo.push(e);
    }
    let draw_ratio = raw.draw_ratio.unwrap_or(DEFAULT_DRAW_RATIO);
    if !(0.0..=1.0).contains(&draw_ratio) {
        return Err(err(
            "tune.simulate.draw_ratio",
            format!("{draw_ratio} is outside [0, 1]"),
        ));
    }
    Ok(SimulateBowl {
        optimum,
        elo,
        draw_ratio,
    })
}
