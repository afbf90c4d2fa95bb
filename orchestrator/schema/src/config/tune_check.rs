//! Reading and checking `[tune]` (the types are in `tune`): every key present and in range, each
//! parameter's path resolved against the validated players, `[tune.simulate]` against the
//! parameters, one line naming the key for each problem, like the rest of the validation.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::player_keys::{PLAYER_KEYS, RawKind, TuneAs};
use super::tune::{ParamKey, ParamTarget, SimulateBowl, TuneConfig, TuneParam};
use super::usi_engine::OptionValue;
use super::{ConfigError, CouncilSettings, Method, PlayerConfig, PlayerKind};

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

/// Default `[tune] pairs`.
const DEFAULT_PAIRS: u64 = 1;
/// Default bowl depth (Elo a whole range away from the optimum).
const DEFAULT_BOWL_ELO: f64 = 100.0;
/// Default draw ratio of the simulated games.
const DEFAULT_DRAW_RATIO: f64 = 0.3;

/// Why a parameter's `path` names no key `[tune]` can set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
enum PathProblem {
    #[error(
        "unknown key: a numeric key of the player ({numeric}), members.NAME.KEY, weights.NAME or options.NAME"
    )]
    Unknown { numeric: String },
    #[error("not a numeric key")]
    NotNumeric,
    #[error("not tunable: plumbing, not play")]
    Plumbing,
    #[error("{whose}, and `{name}` is not one")]
    OtherKind { whose: &'static str, name: String },
    #[error("`{name}` is not a council and has no members")]
    NoMembers { name: String },
    #[error("write members.NAME.KEY")]
    NoMemberKey,
    #[error("`{member}` is not a member of `{name}` (members: {members})")]
    NotAMember {
        member: String,
        name: String,
        members: String,
    },
    #[error("a member's vote weight is its council's key: write weights.{member}")]
    MemberWeight { member: String },
    #[error("no player named `{member}`")]
    NoPlayer { member: String },
    #[error("`{name}` is not a council and has no vote weights")]
    NoWeights { name: String },
    #[error("`{name}` votes by {method}: weights count only under majority and approval")]
    Unweighted { name: String, method: &'static str },
    #[error("the built-in engine has no option `{option}` (see `council-engine` `usi`)")]
    NoBuiltinOption { option: String },
    #[error("option `{option}` of `{name}` is not an integer: only integer (spin) options tune")]
    NotASpin { option: String, name: String },
    #[error("`{name}` is not a usi or internal player and has no options")]
    NoOptions { name: String },
}

/// The plain key `path` (no `members.`, `weights.` or `options.`) of `name`, a player of kind
/// `kind`, as the key it tunes; or why it cannot be tuned. All read from the table of player
/// keys.
fn numeric_key(path: &str, name: &str, kind: &PlayerKind) -> Result<ParamKey, PathProblem> {
    let Some(entry) = PLAYER_KEYS.iter().find(|k| k.name == path) else {
        let numeric: Vec<&str> = PLAYER_KEYS
            .iter()
            .filter(|k| matches!(k.tune, TuneAs::Numeric(_)))
            .map(|k| k.name)
            .collect();
        return Err(PathProblem::Unknown {
            numeric: numeric.join(", "),
        });
    };
    let key = match &entry.tune {
        TuneAs::Numeric(key) => key.clone(),
        TuneAs::NotNumeric => return Err(PathProblem::NotNumeric),
        TuneAs::Plumbing => return Err(PathProblem::Plumbing),
    };
    match entry.kinds.first() {
        Some(owner) if !entry.kinds.contains(&RawKind::of(kind)) => {
            let whose = match owner {
                RawKind::Internal => "an internal player's key",
                RawKind::Intuition => "an intuition player's key",
                RawKind::Usi => "a usi player's key",
                RawKind::Council => "a council's key",
            };
            Err(PathProblem::OtherKind {
                whose,
                name: name.to_string(),
            })
        }
        _ => Ok(key),
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
        let at = ParamAt { path, index: i };
        let param = tune_param(&at, p, (&player, tuned), players, &params)?;
        params.push(param);
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

/// Where a parameter's problem is: the file and the `[[tune.param]]`'s index.
struct ParamAt<'a> {
    path: &'a Path,
    index: usize,
}

impl ParamAt<'_> {
    fn err(&self, key: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::key(
            self.path,
            format!("tune.param[{}].{key}", self.index),
            problem,
        )
    }

    /// A finite number the table must give.
    fn need(&self, v: Option<f64>, key: &str) -> Result<f64, ConfigError> {
        let v = v.ok_or_else(|| self.err(key, "missing"))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.err(key, "must be a finite number"))
        }
    }
}

/// One `[[tune.param]]` of the tuned player (`name`, `config`), after the `before` ones.
fn tune_param(
    at: &ParamAt<'_>,
    p: RawParam,
    (name, tuned): (&str, &PlayerConfig),
    players: &BTreeMap<String, PlayerConfig>,
    before: &[TuneParam],
) -> Result<TuneParam, ConfigError> {
    let p_path = p.path.ok_or_else(|| at.err("path", "missing"))?;
    let target = resolve_path(&p_path, name, tuned, players)
        .map_err(|problem| at.err("path", format!("`{p_path}`: {problem}")))?;
    if before.iter().any(|q| q.path == p_path) {
        return Err(at.err("path", format!("`{p_path}` is tuned twice")));
    }
    let (start, min, max) = (
        at.need(p.start, "start")?,
        at.need(p.min, "min")?,
        at.need(p.max, "max")?,
    );
    let (c_end, r_end) = (at.need(p.c_end, "c_end")?, at.need(p.r_end, "r_end")?);
    check_range(at, &p_path, &target, players, (start, min, max))?;
    if c_end <= 0.0 {
        return Err(at.err("c_end", "must be positive"));
    }
    if r_end <= 0.0 {
        return Err(at.err("r_end", "must be positive"));
    }
    let integer = match (p.integer, target.key.integer_only()) {
        (Some(false), true) => {
            return Err(at.err(
                "integer",
                format!("`{p_path}` holds whole numbers: integer = false cannot be played"),
            ));
        }
        (Some(i), _) => i,
        (None, whole) => whole,
    };
    Ok(TuneParam {
        path: p_path,
        target,
        start,
        min,
        max,
        c_end,
        r_end,
        integer,
    })
}

/// `min <= start <= max`, within what the key takes (a built-in engine option: its range).
fn check_range(
    at: &ParamAt<'_>,
    p_path: &str,
    target: &ParamTarget,
    players: &BTreeMap<String, PlayerConfig>,
    (start, min, max): (f64, f64, f64),
) -> Result<(), ConfigError> {
    if min > max {
        return Err(at.err("min", format!("min {min} is above max {max}")));
    }
    if min < target.key.floor() {
        return Err(at.err(
            "min",
            format!("`{p_path}` takes no value below {}", target.key.floor()),
        ));
    }
    if let ParamKey::UsiOption(option) = &target.key
        && let Some(PlayerKind::Internal(_)) = players.get(&target.player).map(|p| &p.kind)
        && let Some((_, t)) = engine::search::options::find(option)
    {
        for (k, v) in [("min", min), ("max", max)] {
            if v < f64::from(t.min) || v > f64::from(t.max) {
                return Err(at.err(
                    k,
                    format!(
                        "{k} {v} is outside option `{}`'s range [{}, {}]",
                        t.name, t.min, t.max
                    ),
                ));
            }
        }
    }
    if !(min..=max).contains(&start) {
        return Err(at.err(
            "start",
            format!("start {start} is outside [min, max] = [{min}, {max}]"),
        ));
    }
    Ok(())
}

/// `path` of a parameter of `name` (config `tuned`) as the key it sets.
fn resolve_path(
    path: &str,
    name: &str,
    tuned: &PlayerConfig,
    players: &BTreeMap<String, PlayerConfig>,
) -> Result<ParamTarget, PathProblem> {
    let target = |key| ParamTarget {
        player: name.to_string(),
        key,
    };
    if let Some(rest) = path.strip_prefix("members.") {
        let (member, key) = member_key(rest, name, tuned)?;
        // Validation made sure every member is a configured player.
        let mc = players.get(member).ok_or_else(|| PathProblem::NoPlayer {
            member: member.to_string(),
        })?;
        return resolve_path(key, member, mc, players);
    }
    if let Some(member) = path.strip_prefix("weights.") {
        return weight_of(member, name, tuned).map(target);
    }
    if let Some(option) = path.strip_prefix("options.") {
        return option_of(option, name, tuned).map(target);
    }
    numeric_key(path, name, &tuned.kind).map(target)
}

/// `members.NAME.KEY` (`rest` is `NAME.KEY`) of the council `name` as the member and its key.
fn member_key<'p>(
    rest: &'p str,
    name: &str,
    tuned: &PlayerConfig,
) -> Result<(&'p str, &'p str), PathProblem> {
    let Some(CouncilSettings { members, .. }) = tuned.kind.council() else {
        return Err(PathProblem::NoMembers {
            name: name.to_string(),
        });
    };
    let (member, key) = rest.split_once('.').ok_or(PathProblem::NoMemberKey)?;
    if !members.iter().any(|m| m == member) {
        return Err(PathProblem::NotAMember {
            member: member.to_string(),
            name: name.to_string(),
            members: members.join(", "),
        });
    }
    if matches!(key, "weight" | "weights") {
        return Err(PathProblem::MemberWeight {
            member: member.to_string(),
        });
    }
    Ok((member, key))
}

/// `weights.MEMBER` of the council `name`: the positions where `member` is listed.
fn weight_of(member: &str, name: &str, tuned: &PlayerConfig) -> Result<ParamKey, PathProblem> {
    let Some(CouncilSettings {
        members, method, ..
    }) = tuned.kind.council()
    else {
        return Err(PathProblem::NoWeights {
            name: name.to_string(),
        });
    };
    if !matches!(method, Method::Majority | Method::Approval) {
        return Err(PathProblem::Unweighted {
            name: name.to_string(),
            method: method.name(),
        });
    }
    let at: Vec<usize> = (0..members.len())
        .filter(|&i| members[i] == member)
        .collect();
    if at.is_empty() {
        return Err(PathProblem::NotAMember {
            member: member.to_string(),
            name: name.to_string(),
            members: members.join(", "),
        });
    }
    Ok(ParamKey::Weight(at))
}

/// `options.OPTION` of `name`: an integer option of a USI engine, or a tunable of the built-in
/// engine.
fn option_of(option: &str, name: &str, tuned: &PlayerConfig) -> Result<ParamKey, PathProblem> {
    let key = |option: &str| ParamKey::UsiOption(option.to_string());
    match &tuned.kind {
        // The built-in engine's options are known here; a USI engine's are asked of the
        // engine when the tune starts (`tune::games::check_declared_spins`).
        PlayerKind::Internal(_) => match engine::search::options::find(option) {
            Some((_, t)) => Ok(key(t.name)),
            None => Err(PathProblem::NoBuiltinOption {
                option: option.to_string(),
            }),
        },
        PlayerKind::Usi(settings) => match settings.options.iter().find(|(n, _)| n == option) {
            Some((_, OptionValue::Int(_))) | None => Ok(key(option)),
            Some(_) => Err(PathProblem::NotASpin {
                option: option.to_string(),
                name: name.to_string(),
            }),
        },
        _ => Err(PathProblem::NoOptions {
            name: name.to_string(),
        }),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Fairness;

    /// A plain path is tuned, or refused with its reason, by the one table of player keys.
    #[test]
    fn a_plain_key_is_tuned_or_refused_by_the_table_of_player_keys() {
        let council = PlayerKind::Council(CouncilSettings {
            members: vec!["a".into()],
            method: Method::Majority,
            fairness: Fairness::Full,
            ml_d: 100.0,
            approval_k: 1,
            weights: vec![1.0],
            equal_resources: None,
            reserve_ms: 100,
        });
        let key = |path: &str| numeric_key(path, "c", &council).map_err(|e| e.to_string());
        assert_eq!(key("ml_d"), Ok(ParamKey::MlD));
        assert_eq!(key("nodes"), Ok(ParamKey::Nodes));
        assert_eq!(
            key("noise_cp"),
            Err("an internal player's key, and `c` is not one".into())
        );
        assert_eq!(
            key("temperature"),
            Err("an intuition player's key, and `c` is not one".into())
        );
        for not_numeric in ["method", "ponder", "equal_resources", "command", "name"] {
            assert_eq!(
                key(not_numeric),
                Err("not a numeric key".into()),
                "{not_numeric}"
            );
        }
        for plumbing in ["mate_cp", "startup_timeout_ms", "reserve_ms"] {
            assert_eq!(
                key(plumbing),
                Err("not tunable: plumbing, not play".into()),
                "{plumbing}"
            );
        }
        let unknown = key("nodez").expect_err("no such key");
        assert!(
            unknown.contains(
                "(nodes, depth, movetime_ms, time_ms, byoyomi_ms, increment_ms, move_timeout_ms, \
                 win_rate_t, sigma, noise_cp, hash_mb, temperature, ml_d, approval_k)"
            ),
            "{unknown}"
        );
    }
}
