//! Raw to validated: every check of the configuration and its one-line message (players, engine
//! keys, councils and their cycles, time needs, the match and its start positions).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::intuition::{self, Candidates};
use super::raw::{RawConfig, RawKind, RawMatch, RawPlayer, RawResign};
use super::tune_check::validate_tune;
use super::usi_engine::{
    BadDropNotation, CommandProblem, DropNotation, OptionValue, UsiEngineSettings, resolve_command,
};
use super::{
    Config, ConfigError, CouncilSettings, DEFAULT_ML_D, DEFAULT_SIGMA, DEFAULT_WIN_RATE_T,
    Fairness, Format, InternalSettings, IntuitionSettings, Limits, Method, Openings, PlayerConfig,
    PlayerKind, ResignRule,
};

/// The whole file: its players, then the match that they play.
pub(super) fn validate(path: &Path, base: &Path, raw: RawConfig) -> Result<Config, ConfigError> {
    let players = validate_players(path, base, raw.players)?;
    let mut config = validate_match(path, base, raw.tournament, players)?;
    if let Some(t) = raw.tune {
        config.tune = Some(validate_tune(path, t, &config.players, config.seed)?);
    }
    Ok(config)
}

/// Whether `p` sets each engine key (all only meaningful for `kind = "usi"`), in the order they
/// are checked.
fn usi_keys_set(p: &RawPlayer) -> [(&'static str, bool); 11] {
    [
        ("command", p.command.is_some()),
        ("args", !p.args.is_empty()),
        ("dir", p.dir.is_some()),
        ("mate_cp", p.mate_cp.is_some()),
        ("go_nodes", p.go_nodes.is_some()),
        ("seed_option", p.seed_option.is_some()),
        ("drop_notation", p.drop_notation.is_some()),
        ("go_byoyomi", p.go_byoyomi.is_some()),
        ("position_startpos", p.position_startpos.is_some()),
        ("restart", p.restart.is_some()),
        ("startup_timeout_ms", p.startup_timeout_ms.is_some()),
    ]
}

/// What is wrong with an engine key of a `kind = "usi"` player.
#[derive(Debug, thiserror::Error)]
enum UsiKeyProblem {
    #[error("missing")]
    NoCommand,
    #[error(transparent)]
    Command(#[from] CommandProblem),
    #[error("{} is not a folder", .0.display())]
    NotAFolder(std::path::PathBuf),
    #[error("must be positive")]
    MateCp,
    #[error(transparent)]
    DropNotation(#[from] BadDropNotation),
}

impl UsiKeyProblem {
    /// The key at fault, below `player[i].`.
    fn key(&self) -> &'static str {
        match self {
            UsiKeyProblem::NoCommand | UsiKeyProblem::Command(_) => "command",
            UsiKeyProblem::NotAFolder(_) => "dir",
            UsiKeyProblem::MateCp => "mate_cp",
            UsiKeyProblem::DropNotation(_) => "drop_notation",
        }
    }
}

/// An internal player's `options`: each a tunable of the built-in engine, a whole number in its
/// range; an error names the option and what is wrong.
fn internal_options(
    options: &BTreeMap<String, OptionValue>,
) -> Result<engine::search::options::Tuning, (String, String)> {
    let mut tuning = engine::search::options::Tuning::default();
    for (k, v) in options {
        let OptionValue::Int(n) = v else {
            return Err((k.clone(), format!("must be a whole number, got `{v}`")));
        };
        tuning.set(k, *n).map_err(|e| (k.clone(), e.to_string()))?;
    }
    Ok(tuning)
}

/// The engine keys of `p` with their defaults, checked.
fn usi_engine(base: &Path, p: &RawPlayer) -> Result<UsiEngineSettings, UsiKeyProblem> {
    let command = p.command.as_ref().ok_or(UsiKeyProblem::NoCommand)?;
    let command = resolve_command(base, command)?;
    let dir = p.dir.as_ref().map(|d| base.join(d));
    if let Some(d) = &dir
        && !d.is_dir()
    {
        return Err(UsiKeyProblem::NotAFolder(d.clone()));
    }
    let mate_cp = p.mate_cp.unwrap_or(100_000);
    if mate_cp <= 0 {
        return Err(UsiKeyProblem::MateCp);
    }
    let drop_notation = DropNotation::from_key(p.drop_notation.as_deref())?;
    Ok(UsiEngineSettings {
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
        restart: p.restart.unwrap_or(false),
    })
}

/// The `[[player]]` tables alone, checked as [`Config::load`] checks them.
pub(super) fn validate_players(
    path: &Path,
    base: &Path,
    raw: Vec<RawPlayer>,
) -> Result<BTreeMap<String, PlayerConfig>, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let mut players = BTreeMap::new();
    let mut wants_equal: Vec<String> = Vec::new();
    for (i, p) in raw.into_iter().enumerate() {
        let name = p.name.trim().to_string();
        let key = |k: &str| format!("player[{i}].{k}");
        if name.is_empty() {
            return Err(err(&key("name"), "must not be empty".into()));
        }
        if players.contains_key(&name) {
            return Err(err(&key("name"), format!("`{name}` is defined twice")));
        }
        let limits = p.limits();
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
        for (k, set) in usi_keys_set(&p) {
            only(k, set && !is_usi, "usi")?;
        }
        only("members", p.members.is_some() && !is_council, "council")?;
        only("method", p.method.is_some() && !is_council, "council")?;
        only("fairness", p.fairness.is_some() && !is_council, "council")?;
        only("ml_d", p.ml_d.is_some() && !is_council, "council")?;
        only(
            "approval_k",
            p.approval_k.is_some() && !is_council,
            "council",
        )?;
        only("weights", p.weights.is_some() && !is_council, "council")?;
        only(
            "equal_resources",
            p.equal_resources.is_some() && !is_council,
            "council",
        )?;
        only(
            "reserve_ms",
            p.reserve_ms.is_some() && !is_council,
            "council",
        )?;
        if p.ponder == Some(true) && !(is_usi || is_council) {
            return Err(err(
                &key("ponder"),
                format!(
                    "player `{name}`: only USI engines and councils ponder; the built-in engine does not ponder in process (run it as a USI engine, kind = \"usi\" with command = the council-engine binary, to ponder)"
                ),
            ));
        }
        if p.equal_resources == Some(true) {
            wants_equal.push(name.clone());
        }
        if !p.options.is_empty() && !is_usi && !is_internal {
            return Err(err(
                &key("options"),
                format!("player `{name}`: only meaningful for kind = \"usi\" or \"internal\""),
            ));
        }
        only("noise_cp", p.noise_cp.is_some() && !is_internal, "internal")?;
        only("hash_mb", p.hash_mb.is_some() && !is_internal, "internal")?;
        only(
            "candidates",
            p.candidates.is_some() && !is_internal,
            "internal",
        )?;
        let is_intuition = matches!(p.kind, RawKind::Intuition);
        only("model", p.model.is_some() && !is_intuition, "intuition")?;
        only("setting", p.setting.is_some() && !is_intuition, "intuition")?;
        only(
            "temperature",
            p.temperature.is_some() && !is_intuition,
            "intuition",
        )?;
        let kind = match p.kind {
            RawKind::Internal => PlayerKind::Internal(InternalSettings {
                noise_cp: p.noise_cp.unwrap_or(0),
                hash_mb: p.hash_mb.unwrap_or(16),
                options: internal_options(&p.options).map_err(|(k, problem)| {
                    err(
                        &key(&format!("options.{k}")),
                        format!("player `{name}`: {problem}"),
                    )
                })?,
                candidates: match &p.candidates {
                    None => None,
                    Some(c) => {
                        let problem = |k: &str, e: String| {
                            err(
                                &key(&format!("candidates.{k}")),
                                format!("player `{name}`: {e}"),
                            )
                        };
                        if c.k < 1 {
                            return Err(problem("k", format!("must be at least 1, got {}", c.k)));
                        }
                        Some(Candidates {
                            model: intuition::load_model(base, &c.model)
                                .map_err(|e| problem("model", e))?,
                            k: c.k as usize,
                            setting: intuition::setting(c.setting.as_deref())
                                .map_err(|e| problem("setting", e))?,
                        })
                    }
                },
            }),
            RawKind::Intuition => {
                let Some(file) = &p.model else {
                    return Err(err(
                        &key("model"),
                        format!("player `{name}`: an intuition player needs a model file"),
                    ));
                };
                let temperature = p.temperature.unwrap_or(0.0);
                if !(temperature.is_finite() && temperature >= 0.0) {
                    return Err(err(
                        &key("temperature"),
                        format!("player `{name}`: must be a number >= 0, got {temperature}"),
                    ));
                }
                PlayerKind::Intuition(IntuitionSettings {
                    model: intuition::load_model(base, file)
                        .map_err(|e| err(&key("model"), format!("player `{name}`: {e}")))?,
                    setting: intuition::setting(p.setting.as_deref())
                        .map_err(|e| err(&key("setting"), format!("player `{name}`: {e}")))?,
                    temperature,
                })
            }
            RawKind::Usi => PlayerKind::Usi(usi_engine(base, &p).map_err(|problem| {
                err(&key(problem.key()), format!("player `{name}`: {problem}"))
            })?),
            RawKind::Council => {
                let members = p.members.unwrap_or_default();
                if members.is_empty() {
                    return Err(err(
                        &key("members"),
                        format!("player `{name}`: a council needs at least one member"),
                    ));
                }
                let method = p.method.unwrap_or(Method::Majority);
                let approval_k = match (method, p.approval_k) {
                    (Method::Approval, Some(k)) if k >= 1 => k as usize,
                    (Method::Approval, Some(k)) => {
                        return Err(err(
                            &key("approval_k"),
                            format!("player `{name}`: must be at least 1, got {k}"),
                        ));
                    }
                    (Method::Approval, None) => {
                        return Err(err(
                            &key("approval_k"),
                            format!(
                                "player `{name}`: method = \"approval\" needs approval_k, how \
                                 many moves each member names (1 is majority)"
                            ),
                        ));
                    }
                    (_, Some(_)) => {
                        return Err(err(
                            &key("approval_k"),
                            format!("player `{name}`: only meaningful with method = \"approval\""),
                        ));
                    }
                    (_, None) => 1,
                };
                let weights = member_weights(&members, method, p.weights.as_ref())
                    .map_err(|(k, problem)| err(&key(&k), format!("player `{name}`: {problem}")))?;
                PlayerKind::Council(CouncilSettings {
                    members,
                    method,
                    approval_k,
                    weights,
                    fairness: p.fairness.unwrap_or(Fairness::Full),
                    ml_d: positive("ml_d", p.ml_d, DEFAULT_ML_D)?,
                    equal_resources: None,
                    reserve_ms: p.reserve_ms.unwrap_or(super::DEFAULT_RESERVE_MS),
                })
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
                ponder: p.ponder.unwrap_or(false),
            },
        );
    }

    // Council members exist, and no council contains itself (directly or not).
    for (name, p) in &players {
        if let PlayerKind::Council(CouncilSettings { members, .. }) = &p.kind {
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
    for council in wants_equal {
        let reference = equal_resources_player(&players, &council).map_err(|problem| {
            err(
                "player.equal_resources",
                format!("council `{council}`: {problem}"),
            )
        })?;
        if let Some(PlayerKind::Council(CouncilSettings {
            equal_resources, ..
        })) = players.get_mut(&council).map(|p| &mut p.kind)
        {
            *equal_resources = Some(reference.name.clone());
        }
        players.insert(reference.name.clone(), reference);
    }
    Ok(players)
}

/// Why a council's `equal_resources` player cannot be made.
#[derive(Debug, thiserror::Error)]
enum EqualResourcesProblem {
    #[error("not a council")]
    NotACouncil,
    #[error("a council needs members")]
    NoMembers,
    #[error(
        "equal_resources multiplies a budget, and `{0}` is limited by depth: give it nodes or time"
    )]
    DepthLimited(String),
    #[error("equal_resources adds a player `{0}`, and a player of that name exists")]
    NameTaken(String),
}

/// A council's `weights = { NAME = W, ... }` as one weight per member in member order (1 for a
/// member it leaves out), or the key (below the player) and the problem.
fn member_weights(
    members: &[String],
    method: Method,
    given: Option<&BTreeMap<String, f64>>,
) -> Result<Vec<f64>, (String, String)> {
    let Some(given) = given else {
        return Ok(vec![1.0; members.len()]);
    };
    if !matches!(method, Method::Majority | Method::Approval) && !given.is_empty() {
        return Err((
            "weights".into(),
            "only meaningful with method = \"majority\" or \"approval\"".into(),
        ));
    }
    for (m, &w) in given {
        if !members.contains(m) {
            return Err((
                format!("weights.{m}"),
                format!("`{m}` is not a member (members: {})", members.join(", ")),
            ));
        }
        if !(w.is_finite() && w >= 0.0) {
            return Err((
                format!("weights.{m}"),
                format!("must be a finite number >= 0, got {w}"),
            ));
        }
    }
    Ok(members
        .iter()
        .map(|m| given.get(m).copied().unwrap_or(1.0))
        .collect())
}

/// The fair reference of a council of `N` members (models.md section 9): its strongest member
/// (smallest `sigma`, then first listed) alone, with `N` times the budget that member has in
/// the council (its own limits, else the council's, divided among the members when shared).
fn equal_resources_player(
    players: &BTreeMap<String, PlayerConfig>,
    council: &str,
) -> Result<PlayerConfig, EqualResourcesProblem> {
    let c = &players[council];
    let PlayerKind::Council(CouncilSettings {
        members, fairness, ..
    }) = &c.kind
    else {
        return Err(EqualResourcesProblem::NotACouncil);
    };
    let n = members.len() as u64;
    let strongest = members
        .iter()
        .fold(None::<&PlayerConfig>, |best, m| {
            let p = &players[m];
            match best {
                Some(b) if b.sigma <= p.sigma => Some(b),
                _ => Some(p),
            }
        })
        .ok_or(EqualResourcesProblem::NoMembers)?;
    let base = if !strongest.limits.is_empty() {
        strongest.limits
    } else if *fairness == Fairness::Shared {
        let share = |v: Option<u64>| v.map(|x| x / n);
        Limits {
            nodes: share(c.limits.nodes),
            movetime_ms: share(c.limits.movetime_ms),
            time_ms: share(c.limits.time_ms),
            byoyomi_ms: share(c.limits.byoyomi_ms),
            increment_ms: share(c.limits.increment_ms),
            ..c.limits
        }
    } else {
        c.limits
    };
    if base.depth.is_some() {
        return Err(EqualResourcesProblem::DepthLimited(strongest.name.clone()));
    }
    let times = |v: Option<u64>| v.map(|x| x.saturating_mul(n));
    let name = format!("{}-x{n}", strongest.name);
    if players.contains_key(&name) {
        return Err(EqualResourcesProblem::NameTaken(name));
    }
    Ok(PlayerConfig {
        name,
        limits: Limits {
            nodes: times(base.nodes),
            depth: None,
            movetime_ms: times(base.movetime_ms),
            time_ms: times(base.time_ms),
            byoyomi_ms: times(base.byoyomi_ms),
            increment_ms: times(base.increment_ms),
        },
        ..strongest.clone()
    })
}

fn validate_match(
    path: &Path,
    base: &Path,
    m: RawMatch,
    players: BTreeMap<String, PlayerConfig>,
) -> Result<Config, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    // A playing council with equal_resources brings its reference player into the run.
    let mut m = m;
    for name in m.players.clone() {
        if let Some(PlayerConfig {
            kind:
                PlayerKind::Council(CouncilSettings {
                    equal_resources: Some(reference),
                    ..
                }),
            ..
        }) = players.get(&name)
        {
            if m.format == Format::HeadToHead {
                return Err(err(
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
    }
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
    let resign = match &m.resign {
        None => None,
        Some(r) => {
            Some(resign_rule(r).map_err(|problem| err("match.resign", problem.to_string()))?)
        }
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
        check_handicap(&h).map_err(|p| err("match.handicap", p.to_string()))?;
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
        check_start(&start).map_err(|p| err("match.start", p.to_string()))?;
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
        resign,
        timeout_margin_ms: m.timeout_margin_ms,
        sprt: m.sprt,
        tune: None,
    })
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

/// A start position or handicap name the engine refuses: the text, and the engine's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}`: {problem}")]
struct BadStart {
    text: String,
    problem: String,
}

/// A start position the engine accepts: `startpos`, an SFEN (with or without the `sfen ` word),
/// either followed by `moves ...` (every move legal).
fn check_start(text: &str) -> Result<(), BadStart> {
    engine::position::Position::from_start_text(text)
        .map(|_| ())
        .map_err(|e| BadStart {
            text: text.to_owned(),
            problem: e.to_string(),
        })
}

fn check_handicap(name: &str) -> Result<(), BadStart> {
    name.parse::<engine::position::Handicap>()
        .map(|_| ())
        .map_err(|e| BadStart {
            text: name.to_owned(),
            problem: e.to_string(),
        })
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
        kind: PlayerKind::Council(CouncilSettings { members, .. }),
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
        PlayerKind::Council(c) => c
            .members
            .iter()
            .try_for_each(|m| check_time_needs(path, players, m, limits)),
        _ => Ok(()),
    }
}

/// A player has a limit if it sets one, is an intuition player (it does not search), or is a
/// council whose members all have one.
fn has_limit(players: &BTreeMap<String, PlayerConfig>, name: &str) -> bool {
    let p = &players[name];
    !p.limits.is_empty()
        // Intuition does not search: it needs no budget.
        || matches!(p.kind, PlayerKind::Intuition(_))
        || matches!(&p.kind, PlayerKind::Council(c)
            if c.members.iter().all(|m| has_limit(players, m)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::intuition::Setting;

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
            PlayerKind::Council(CouncilSettings {
                method, fairness, ..
            }) => {
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

    /// An internal player takes the engine's tunable options by their USI names; an unknown
    /// name, a value out of range or a non-number is refused naming the option.
    #[test]
    fn internal_options_are_the_engines_tunables() {
        let with = |opts: &str| {
            BASE.replace(
                "nodes = 1000\n\n[[player]]\nname = \"a\"",
                &format!("nodes = 1000\noptions = {{ {opts} }}\n\n[[player]]\nname = \"a\""),
            )
        };
        let c = parse(&with("Eval_Silver = 200, search_rfpmargin = 90")).expect("valid");
        let PlayerKind::Internal(InternalSettings { options, .. }) = &c.player("single").kind
        else {
            panic!("internal");
        };
        assert_eq!(options.get("Eval_Silver"), Some(200));
        assert_eq!(options.get("Search_RfpMargin"), Some(90));
        assert_eq!(options.get("Eval_Gold"), Some(540));
        let e = one_line_error(&with("Eval_Queen = 900"));
        assert!(
            e.contains("player[0].options.Eval_Queen") && e.contains("unknown option"),
            "{e}"
        );
        let e = one_line_error(&with("Eval_Silver = 5000"));
        assert!(
            e.contains("player[0].options.Eval_Silver") && e.contains("outside [0, 4000]"),
            "{e}"
        );
        let e = one_line_error(&with("Eval_Silver = \"lots\""));
        assert!(
            e.contains("player[0].options.Eval_Silver") && e.contains("whole number"),
            "{e}"
        );
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

    #[test]
    fn approval_needs_a_positive_k_and_k_needs_approval() {
        let council = |extra: &str| {
            BASE.replace(
                "members = [\"a\", \"single\"]",
                &format!("members = [\"a\", \"single\"]\n{extra}"),
            )
        };
        let c = parse(&council("method = \"approval\"\napproval_k = 3")).expect("valid");
        assert!(matches!(
            c.player("council").kind,
            PlayerKind::Council(CouncilSettings {
                method: Method::Approval,
                approval_k: 3,
                ..
            })
        ));
        for (extra, expect) in [
            ("method = \"approval\"", "needs approval_k"),
            ("method = \"approval\"\napproval_k = 0", "at least 1, got 0"),
            (
                "approval_k = 2",
                "only meaningful with method = \"approval\"",
            ),
        ] {
            let e = one_line_error(&council(extra));
            assert!(
                e.contains("player[2].approval_k") && e.contains(expect),
                "{e}"
            );
        }
    }

    #[test]
    fn weights_are_per_member_finite_and_not_negative() {
        let council = |extra: &str| {
            BASE.replace(
                "members = [\"a\", \"single\"]",
                &format!("members = [\"a\", \"single\"]\n{extra}"),
            )
        };
        let weights = |text: &str| match &parse(text).expect("valid").player("council").kind {
            PlayerKind::Council(c) => c.weights.clone(),
            k => panic!("{k:?}"),
        };
        assert_eq!(weights(BASE), vec![1.0, 1.0]);
        assert_eq!(
            weights(&council("weights = { single = 2.5 }")),
            vec![1.0, 2.5]
        );
        assert_eq!(
            weights(&council(
                "method = \"approval\"\napproval_k = 2\nweights = { a = 0, single = 3 }"
            )),
            vec![0.0, 3.0]
        );
        for (extra, at, expect) in [
            (
                "weights = { single = -1.0 }",
                "weights.single",
                "finite number >= 0, got -1",
            ),
            ("weights = { single = nan }", "weights.single", "got NaN"),
            ("weights = { a = inf }", "weights.a", "got inf"),
            ("weights = { b = 2.0 }", "weights.b", "`b` is not a member"),
            ("weights = { a = \"x\" }", "weights", ""),
            (
                "method = \"ml\"\nweights = { a = 2.0 }",
                "weights",
                "only meaningful with method = \"majority\" or \"approval\"",
            ),
        ] {
            let e = one_line_error(&council(extra));
            assert!(e.contains(at) && e.contains(expect), "{extra}: {e}");
        }
        let e = one_line_error(&BASE.replace(
            "kind = \"internal\"\nnodes",
            "kind = \"internal\"\nweights = { a = 1.0 }\nnodes",
        ));
        assert!(
            e.contains("weights") && e.contains("only meaningful"),
            "{e}"
        );
    }

    #[test]
    fn intuition_and_candidates_read_their_model_and_name_a_bad_one() {
        let dir = std::env::temp_dir().join(format!("council-intuition-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let model = engine::intuition::Model::new(engine::intuition::LearnOptions::default());
        std::fs::write(dir.join("good.bin"), model.to_bytes()).expect("write");
        std::fs::write(dir.join("bad.bin"), b"not a model").expect("write");
        let path = dir.join("c.toml");
        let config = |players: &str| {
            format!(
                "[match]\nplayers = [\"i\", \"r\"]\n[[player]]\nname = \"i\"\nkind = \"intuition\"\n\
                 {players}\n[[player]]\nname = \"r\"\nkind = \"internal\"\nnodes = 100\n\
                 candidates = {{ model = \"good.bin\", k = 4, setting = \"b\" }}\n"
            )
        };
        let c = Config::parse(&path, &config("model = \"good.bin\"\ntemperature = 0.5"))
            .expect("valid");
        match &c.player("i").kind {
            PlayerKind::Intuition(i) => assert_eq!((i.setting, i.temperature), (Setting::D, 0.5)),
            k => panic!("{k:?}"),
        }
        match &c.player("r").kind {
            PlayerKind::Internal(InternalSettings {
                candidates: Some(cand),
                ..
            }) => assert_eq!((cand.k, cand.setting), (4, Setting::B)),
            k => panic!("{k:?}"),
        }
        for (players, key, expect) in [
            (
                "model = \"bad.bin\"",
                "player[0].model",
                "bad.bin is not a usable model file",
            ),
            (
                "model = \"none.bin\"",
                "player[0].model",
                "cannot read the model file",
            ),
            ("", "player[0].model", "needs a model file"),
            (
                "model = \"good.bin\"\nsetting = \"z\"",
                "player[0].setting",
                "unknown setting",
            ),
            (
                "model = \"good.bin\"\ntemperature = -1.0",
                "player[0].temperature",
                ">= 0",
            ),
            (
                "model = \"good.bin\"\nnodes = 5\nnoise_cp = 3",
                "player[0].noise_cp",
                "only meaningful",
            ),
        ] {
            let e = Config::parse(&path, &config(players))
                .expect_err(players)
                .to_string();
            assert!(e.contains(key) && e.contains(expect), "{players}: {e}");
        }
        let bad_k = config("model = \"good.bin\"").replace("k = 4", "k = 0");
        let e = Config::parse(&path, &bad_k).expect_err("k = 0").to_string();
        assert!(
            e.contains("player[1].candidates.k") && e.contains("at least 1"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
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

#[cfg(test)]
mod equal_resources_tests {
    use super::*;

    fn parse(format: &str, council: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "[match]\nformat = \"{format}\"\nplayers = [\"council\", \"single\"]\n\n\
             [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"weak\", \"strong\", \"mid\"]\n\
             equal_resources = true\n{council}\n\n\
             [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 1000\n\n\
             [[player]]\nname = \"weak\"\nkind = \"internal\"\nsigma = 200.0\n\n\
             [[player]]\nname = \"strong\"\nkind = \"internal\"\nsigma = 100.0\n\n\
             [[player]]\nname = \"mid\"\nkind = \"internal\"\nsigma = 100.0\nnoise_cp = 50\n"
        );
        Config::parse(Path::new("t.toml"), &text)
    }

    #[test]
    fn the_strongest_member_alone_with_n_times_the_budget_joins_the_run() {
        let c = parse("round-robin", "nodes = 2000").expect("valid");
        // strong and mid tie on sigma: the first listed of them is the strongest.
        let r = &c.players["strong-x3"];
        assert_eq!(r.limits.nodes, Some(6000));
        assert!(matches!(
            r.kind,
            PlayerKind::Internal(InternalSettings { noise_cp: 0, .. })
        ));
        assert_eq!(c.playing, ["council", "single", "strong-x3"]);
        let c = parse("gauntlet", "nodes = 3000\nfairness = \"shared\"").expect("valid");
        assert_eq!(c.players["strong-x3"].limits.nodes, Some(3000));
        let c = parse("round-robin", "byoyomi_ms = 100").expect("valid");
        assert_eq!(c.players["strong-x3"].limits.byoyomi_ms, Some(300));
    }

    #[test]
    fn what_cannot_be_multiplied_or_added_is_refused() {
        let e = parse("head-to-head", "nodes = 2000")
            .unwrap_err()
            .to_string();
        assert!(e.contains("strong-x3") && e.contains("gauntlet"), "{e}");
        let e = parse("round-robin", "depth = 4").unwrap_err().to_string();
        assert!(e.contains("limited by depth"), "{e}");
        let text = "[match]\nplayers = [\"a\", \"b\"]\n[[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 1\nequal_resources = true\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1\n";
        let e = Config::parse(Path::new("t.toml"), text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("only meaningful for kind = \"council\""), "{e}");
    }
}

#[cfg(test)]
mod resign_rule_tests {
    use super::*;

    fn parse(resign: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\nresign = {resign}\n\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n"
        );
        Config::parse(Path::new("t.toml"), &text)
    }

    #[test]
    fn both_resign_rules_and_what_is_wrong_with_a_bad_one() {
        assert_eq!(
            parse("{ score_cp = 1500, moves = 5 }").unwrap().resign,
            Some(ResignRule::Scores {
                score_cp: 1500,
                moves: 5
            })
        );
        assert_eq!(
            parse("{ model = \"shueso\", mu = 900.0, sigma = 250.0, moves = 3 }")
                .unwrap()
                .resign,
            Some(ResignRule::Model {
                mu: 900.0,
                sigma: 250.0,
                moves: 3
            })
        );
        for (bad, says) in [
            (
                "{ score_cp = 10, model = \"shueso\", mu = 1.0, sigma = 1.0, moves = 1 }",
                "not both",
            ),
            (
                "{ model = \"other\", mu = 1.0, sigma = 1.0, moves = 1 }",
                "only resignation model",
            ),
            (
                "{ model = \"shueso\", mu = 1.0, moves = 1 }",
                "needs mu and sigma",
            ),
            (
                "{ model = \"shueso\", mu = 1.0, sigma = 0.0, moves = 1 }",
                "sigma a positive",
            ),
            ("{ score_cp = 0, moves = 1 }", "positive"),
            ("{ score_cp = 100, moves = 0 }", "at least 1"),
            ("{ score_cp = 100, moves = 2, mu = 3.0 }", "belong to model"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("match.resign") && e.contains(says), "{bad}: {e}");
        }
    }
}
