//! Reading and checking `[tune]` (the types are in `tune`): every key present and in range, each
//! parameter's path resolved against the validated players, `[tune.simulate]` against the
//! parameters, one line naming the key for each problem, like the rest of the validation.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

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

/// Why `kind` has no key `key`, if it has none.
fn wrong_kind(key: &ParamKey, kind: &PlayerKind) -> Option<&'static str> {
    match (key, kind) {
        (ParamKey::NoiseCp | ParamKey::HashMb, PlayerKind::Internal(_))
        | (ParamKey::Temperature, PlayerKind::Intuition(_))
        | (ParamKey::MlD | ParamKey::ApprovalK | ParamKey::Weight(_), PlayerKind::Council(_))
        | (ParamKey::UsiOption(_), PlayerKind::Usi(_)) => None,
        (ParamKey::NoiseCp | ParamKey::HashMb, _) => Some("an internal player's key"),
        (ParamKey::Temperature, _) => Some("an intuition player's key"),
        (ParamKey::MlD | ParamKey::ApprovalK | ParamKey::Weight(_), _) => Some("a council's key"),
        (ParamKey::UsiOption(_), _) => Some("a usi player's key"),
        _ => None,
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
        if let ParamKey::UsiOption(option) = &target.key
            && let Some(PlayerKind::Internal(_)) = players.get(&target.player).map(|p| &p.kind)
            && let Some((_, t)) = engine::search::options::find(option)
        {
            for (k, v) in [("min", min), ("max", max)] {
                if v < f64::from(t.min) || v > f64::from(t.max) {
                    return Err(err(
                        &key(k),
                        format!(
                            "{k} {v} is outside option `{}`'s range [{}, {}]",
                            t.name, t.min, t.max
                        ),
                    ));
                }
            }
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
        let Some(CouncilSettings { members, .. }) = tuned.kind.council() else {
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
        if matches!(key, "weight" | "weights") {
            return Err(format!(
                "a member's vote weight is its council's key: write weights.{member}"
            ));
        }
        // Validation made sure every member is a configured player.
        let Some(mc) = players.get(member) else {
            return Err(format!("no player named `{member}`"));
        };
        return resolve_path(key, member, mc, players);
    }
    if let Some(member) = path.strip_prefix("weights.") {
        let Some(CouncilSettings {
            members, method, ..
        }) = tuned.kind.council()
        else {
            return Err(format!("`{name}` is not a council and has no vote weights"));
        };
        if !matches!(method, Method::Majority | Method::Approval) {
            return Err(format!(
                "`{name}` votes by {}: weights count only under majority and approval",
                method.name()
            ));
        }
        let at: Vec<usize> = (0..members.len())
            .filter(|&i| members[i] == member)
            .collect();
        if at.is_empty() {
            return Err(format!(
                "`{member}` is not a member of `{name}` (members: {})",
                members.join(", ")
            ));
        }
        return Ok(ParamTarget {
            player: name.to_string(),
            key: ParamKey::Weight(at),
        });
    }
    if let Some(option) = path.strip_prefix("options.") {
        let target = |option: &str| ParamTarget {
            player: name.to_string(),
            key: ParamKey::UsiOption(option.to_string()),
        };
        return match &tuned.kind {
            // The built-in engine's options are known here; a USI engine's are asked of the
            // engine when the tune starts (`tune::games::check_declared_spins`).
            PlayerKind::Internal(_) => match engine::search::options::find(option) {
                Some((_, t)) => Ok(target(t.name)),
                None => Err(format!(
                    "the built-in engine has no option `{option}` (see `council-engine` `usi`)"
                )),
            },
            PlayerKind::Usi(settings) => match settings.options.iter().find(|(n, _)| n == option) {
                Some((_, OptionValue::Int(_))) | None => Ok(target(option)),
                Some(_) => Err(format!(
                    "option `{option}` of `{name}` is not an integer: only integer (spin) options tune"
                )),
            },
            _ => Err(format!(
                "`{name}` is not a usi or internal player and has no options"
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
             temperature, ml_d, approval_k), members.NAME.KEY, weights.NAME or options.NAME"
                .into()
        });
    };
    if let Some(owner) = wrong_kind(&key, &tuned.kind) {
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
