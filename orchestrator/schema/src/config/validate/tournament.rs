//! `[match]`: who plays (with the references `equal_resources` brings), each with a budget, in a
//! format that takes that many players; how many games, how long; resignation, draw adjudication and the SPRT.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::super::raw::{RawMatch, RawResign};
use super::super::{
    Config, ConfigError, DrawRule, Format, Limits, Models, PlayerConfig, ResignRule,
};
use super::{limits, openings};

/// `[match]` over the validated players: the whole config but its `[tune]`.
pub(super) fn validate_match(
    path: &Path,
    base: &Path,
    mut m: RawMatch,
    players: BTreeMap<String, PlayerConfig>,
    models: Models,
) -> Result<Config, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    add_references(path, &mut m, &players)?;
    check_playing(path, &m, &players)?;
    if m.games == 0 {
        return Err(err("match.games", "must be at least 1".into()));
    }
    if m.max_plies == 0 {
        return Err(err("match.max_plies", "must be at least 1".into()));
    }
    let resign = match &m.resign {
        None => None,
        Some(r) => {
            Some(resign_rule(r).map_err(|problem| err("match.resign", problem.to_string()))?)
        }
    };
    let draw = match &m.draw {
        None => None,
        Some(d) if d.plies == 0 => {
            return Err(err("match.draw", "plies must be at least 1".into()));
        }
        Some(d) if d.score_cp < 0 => {
            return Err(err("match.draw", "score_cp must be 0 or more".into()));
        }
        Some(d) => Some(DrawRule {
            after_plies: d.after_plies,
            plies: d.plies,
            score_cp: d.score_cp,
        }),
    };
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
    let openings = openings::openings(path, base, &m)?;
    if let Some(t) = &m.training
        && t.max_score.is_some_and(|b| b < 0)
    {
        return Err(err(
            "match.training",
            "max_score: give a bound of 0 or more centipawns".into(),
        ));
    }
    Ok(Config {
        file: path.to_path_buf(),
        // `Config::parse` keeps the text it validated.
        text: String::new(),
        format: m.format,
        playing: m.players,
        players,
        models,
        games: m.games,
        max_plies: m.max_plies,
        seed: m.seed,
        openings,
        resign,
        draw,
        timeout_margin_ms: m.timeout_margin_ms,
        sprt: m.sprt,
        training: m.training,
        tune: None,
    })
}

/// A playing council with `equal_resources` brings its reference player into the run.
fn add_references(
    path: &Path,
    m: &mut RawMatch,
    players: &BTreeMap<String, PlayerConfig>,
) -> Result<(), ConfigError> {
    for name in m.players.clone() {
        let Some(c) = players.get(&name).and_then(|p| p.kind.council()) else {
            continue;
        };
        let Some(reference) = &c.equal_resources else {
            continue;
        };
        if m.format == Format::HeadToHead {
            return Err(ConfigError::key(
                path,
                "match.format",
                format!(
                    "council `{name}` has equal_resources, which adds `{reference}` to the run: use format = \"gauntlet\" or \"round-robin\""
                ),
            ));
        }
        if !m.players.contains(reference) {
            m.players.push(reference.clone());
        }
    }
    Ok(())
}

/// Every playing player is defined, listed once and has a budget, and the format takes that
/// many players.
fn check_playing(
    path: &Path,
    m: &RawMatch,
    players: &BTreeMap<String, PlayerConfig>,
) -> Result<(), ConfigError> {
    let err = |problem: String| ConfigError::key(path, "match.players", problem);
    let mut seen = HashSet::new();
    for name in &m.players {
        if !players.contains_key(name) {
            return Err(err(format!(
                "unknown player `{name}` (define it in a [[player]] table)"
            )));
        }
        if !seen.insert(name) {
            return Err(err(format!("`{name}` is listed twice")));
        }
        if !limits::has_limit(players, name) {
            return Err(err(format!(
                "player `{name}` has no limit (set nodes, depth, movetime_ms or a clock: \
                 time_ms/byoyomi_ms/increment_ms)"
            )));
        }
    }
    for name in &m.players {
        limits::check_time_needs(path, players, name, &Limits::default())?;
    }
    match (m.format, m.players.len()) {
        (Format::HeadToHead, 2) => Ok(()),
        (Format::HeadToHead, n) => Err(err(format!(
            "head-to-head needs exactly 2 players, got {n}"
        ))),
        (_, n) if n < 2 => Err(err(format!("needs at least 2 players, got {n}"))),
        _ => Ok(()),
    }
}

/// What is wrong with a `resign = { ... }` table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ResignProblem {
    #[error("moves must be at least 1")]
    NoMoves,
    #[error(
        "give either score_cp (both players' scores) or model = \"shueso\" (the resignation model), not both"
    )]
    Both,
    #[error("mu and sigma belong to model = \"shueso\"")]
    ModelKeysWithScores,
    #[error("score_cp must be positive")]
    ScoreNotPositive,
    #[error("give score_cp, or model = \"shueso\" with mu and sigma")]
    Neither,
    #[error("model `{0}`: the only resignation model is \"shueso\" (seed 004)")]
    UnknownModel(String),
    #[error("model = \"shueso\" needs mu and sigma (council-analyze resign --no-ebf fits them)")]
    NoModelParameters,
    #[error("mu must be a number and sigma a positive number")]
    BadModelParameters,
}

/// The resign rule a `resign = { ... }` table describes.
fn resign_rule(r: &RawResign) -> Result<ResignRule, ResignProblem> {
    if r.moves == 0 {
        return Err(ResignProblem::NoMoves);
    }
    match (&r.model, r.score_cp) {
        (Some(_), Some(_)) => Err(ResignProblem::Both),
        (None, Some(score_cp)) if score_cp > 0 => {
            if r.mu.is_some() || r.sigma.is_some() {
                return Err(ResignProblem::ModelKeysWithScores);
            }
            Ok(ResignRule::Scores {
                score_cp,
                moves: r.moves,
            })
        }
        (None, Some(_)) => Err(ResignProblem::ScoreNotPositive),
        (None, None) => Err(ResignProblem::Neither),
        (Some(model), None) => {
            if model != "shueso" {
                return Err(ResignProblem::UnknownModel(model.clone()));
            }
            let (Some(mu), Some(sigma)) = (r.mu, r.sigma) else {
                return Err(ResignProblem::NoModelParameters);
            };
            if !mu.is_finite() || !sigma.is_finite() || sigma <= 0.0 {
                return Err(ResignProblem::BadModelParameters);
            }
            Ok(ResignRule::Model {
                mu,
                sigma,
                moves: r.moves,
            })
        }
    }
}
