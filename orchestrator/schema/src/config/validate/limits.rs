//! What a player may spend: its limit keys as [`Limits`], who keeps a clock (the arbiter keeps
//! one per playing player, so a council member keeps none), the budget an `equal_resources`
//! reference gets, and that every playing player has a budget its engines can be given.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::player_keys::RawPlayer;
use super::super::{ConfigError, Fairness, Limits, PlayerConfig, PlayerKind};
use super::at::PlayerAt;

/// A player's limit keys as its [`Limits`]: a Fischer increment needs a main time, and a
/// per-move limit is positive.
pub(super) fn limits(at: &PlayerAt<'_>, p: &RawPlayer) -> Result<Limits, ConfigError> {
    let limits = p.limits();
    if limits.increment_ms.is_some() && limits.time_ms.is_none() {
        return Err(at.err(
            "increment_ms",
            "a Fischer increment needs a main time (time_ms): the increment is credited before \
             each move",
        ));
    }
    if limits.nodes == Some(0) || limits.depth == Some(0) || limits.movetime_ms == Some(0) {
        return Err(at.err("nodes/depth/movetime_ms", "limits must be positive"));
    }
    Ok(limits)
}

/// No member of `council` sets a main time: the arbiter keeps one clock per playing player.
pub(super) fn members_keep_no_clock(
    path: &Path,
    players: &BTreeMap<String, PlayerConfig>,
    council: &str,
    members: &[String],
) -> Result<(), ConfigError> {
    match members
        .iter()
        .find(|m| players[*m].limits.time_ms.is_some())
    {
        Some(m) => Err(ConfigError::key(
            path,
            "player.members",
            format!(
                "council `{council}`: member `{m}` sets time_ms, but the arbiter keeps one clock \
                 per playing player: give the council the clock, or the member movetime_ms or \
                 byoyomi_ms"
            ),
        )),
        None => Ok(()),
    }
}

/// Why a council's `equal_resources` player cannot be made.
#[derive(Debug, thiserror::Error)]
pub(super) enum EqualResourcesProblem {
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

/// `n` times the budget `strongest` has in the council `c`: its own limits, else the council's
/// (divided among the `n` members when shared). Depth does not multiply.
pub(super) fn equal_resources_limits(
    c: &PlayerConfig,
    fairness: Fairness,
    strongest: &PlayerConfig,
    n: u64,
) -> Result<Limits, EqualResourcesProblem> {
    let base = if !strongest.limits.is_empty() {
        strongest.limits
    } else if fairness == Fairness::Shared {
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
    Ok(Limits {
        nodes: times(base.nodes),
        depth: None,
        movetime_ms: times(base.movetime_ms),
        time_ms: times(base.time_ms),
        byoyomi_ms: times(base.byoyomi_ms),
        increment_ms: times(base.increment_ms),
    })
}

/// A USI engine that cannot be given `go nodes` / `go depth` (`go_nodes = false`) needs a time
/// in the budget it plays with (its own limits, else the nearest council's that sets some):
/// otherwise it would get a bare `go` and think until its timeout.
pub(super) fn check_time_needs(
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
pub(super) fn has_limit(players: &BTreeMap<String, PlayerConfig>, name: &str) -> bool {
    let p = &players[name];
    !p.limits.is_empty()
        // Intuition does not search: it needs no budget.
        || matches!(p.kind, PlayerKind::Intuition(_))
        || matches!(&p.kind, PlayerKind::Council(c)
            if c.members.iter().all(|m| has_limit(players, m)))
}
