//! Councils: members, method and weights of one council's table; then, over all players, that
//! every member exists and no council contains itself; and the fair reference player that
//! `equal_resources` adds (models.md section 9).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::super::player_keys::RawPlayer;
use super::super::{
    ConfigError, CouncilSettings, DEFAULT_ML_D, DEFAULT_RESERVE_MS, Fairness, Method, PlayerConfig,
    PlayerKind,
};
use super::at::PlayerAt;
use super::limits::{self, EqualResourcesProblem};

/// `kind = "council"`.
pub(super) fn council(at: &PlayerAt<'_>, p: &RawPlayer) -> Result<CouncilSettings, ConfigError> {
    let members = p.members.clone().unwrap_or_default();
    if members.is_empty() {
        return Err(at.err("members", "a council needs at least one member"));
    }
    let method = p.method.unwrap_or(Method::Majority);
    let approval_k = match (method, p.approval_k) {
        (Method::Approval, Some(k)) if k >= 1 => k as usize,
        (Method::Approval, Some(k)) => {
            return Err(at.err("approval_k", format_args!("must be at least 1, got {k}")));
        }
        (Method::Approval, None) => {
            return Err(at.err(
                "approval_k",
                "method = \"approval\" needs approval_k, how many moves each member names (1 \
                 is majority)",
            ));
        }
        (_, Some(_)) => {
            return Err(at.err("approval_k", "only meaningful with method = \"approval\""));
        }
        (_, None) => 1,
    };
    let weights = member_weights(&members, method, p.weights.as_ref())
        .map_err(|problem| at.err(&problem.key(), problem))?;
    Ok(CouncilSettings {
        members,
        method,
        approval_k,
        weights,
        fairness: p.fairness.unwrap_or(Fairness::Full),
        ml_d: at.positive("ml_d", p.ml_d, DEFAULT_ML_D)?,
        equal_resources: None,
        reserve_ms: p.reserve_ms.unwrap_or(DEFAULT_RESERVE_MS),
    })
}

/// What is wrong with a council's `weights`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum WeightsProblem {
    #[error("only meaningful with method = \"majority\" or \"approval\"")]
    Method,
    #[error("`{member}` is not a member (members: {members})")]
    NotAMember { member: String, members: String },
    #[error("must be a finite number >= 0, got {weight}")]
    Weight { member: String, weight: f64 },
}

impl WeightsProblem {
    /// The key at fault, below the player.
    fn key(&self) -> String {
        match self {
            WeightsProblem::Method => "weights".into(),
            WeightsProblem::NotAMember { member, .. } | WeightsProblem::Weight { member, .. } => {
                format!("weights.{member}")
            }
        }
    }
}

/// A council's `weights = { NAME = W, ... }` as one weight per member in member order (1 for a
/// member it leaves out).
fn member_weights(
    members: &[String],
    method: Method,
    given: Option<&BTreeMap<String, f64>>,
) -> Result<Vec<f64>, WeightsProblem> {
    let Some(given) = given else {
        return Ok(vec![1.0; members.len()]);
    };
    if !matches!(method, Method::Majority | Method::Approval) && !given.is_empty() {
        return Err(WeightsProblem::Method);
    }
    for (m, &w) in given {
        if !members.contains(m) {
            return Err(WeightsProblem::NotAMember {
                member: m.clone(),
                members: members.join(", "),
            });
        }
        if !(w.is_finite() && w >= 0.0) {
            return Err(WeightsProblem::Weight {
                member: m.clone(),
                weight: w,
            });
        }
    }
    Ok(members
        .iter()
        .map(|m| given.get(m).copied().unwrap_or(1.0))
        .collect())
}

/// Every council's members exist, keep no clock of their own, and no council contains itself
/// (directly or not).
pub(super) fn check_members(
    path: &Path,
    players: &BTreeMap<String, PlayerConfig>,
) -> Result<(), ConfigError> {
    let err = |problem: String| ConfigError::key(path, "player.members", problem);
    for (name, p) in players {
        let Some(c) = p.kind.council() else { continue };
        if let Some(m) = c.members.iter().find(|m| !players.contains_key(*m)) {
            return Err(err(format!("council `{name}` names unknown member `{m}`")));
        }
        limits::members_keep_no_clock(path, players, name, &c.members)?;
        if contains_cycle(players, name, &mut HashSet::new()) {
            return Err(err(format!("council `{name}` contains itself")));
        }
    }
    Ok(())
}

fn contains_cycle(
    players: &BTreeMap<String, PlayerConfig>,
    name: &str,
    stack: &mut HashSet<String>,
) -> bool {
    if !stack.insert(name.to_string()) {
        return true;
    }
    if let Some(c) = players.get(name).and_then(|p| p.kind.council()) {
        for m in &c.members {
            if contains_cycle(players, m, stack) {
                return true;
            }
        }
    }
    stack.remove(name);
    false
}

/// `equal_resources = true` of `council`: its reference player joins the players, and the
/// council names it.
pub(super) fn add_equal_resources(
    path: &Path,
    players: &mut BTreeMap<String, PlayerConfig>,
    council: &str,
) -> Result<(), ConfigError> {
    let reference = equal_resources_player(players, council).map_err(|problem| {
        ConfigError::key(
            path,
            "player.equal_resources",
            format!("council `{council}`: {problem}"),
        )
    })?;
    if let Some(PlayerKind::Council(c)) = players.get_mut(council).map(|p| &mut p.kind) {
        c.equal_resources = Some(reference.name.clone());
    }
    players.insert(reference.name.clone(), reference);
    Ok(())
}

/// The fair reference of a council of `N` members (models.md section 9): its strongest member
/// (smallest `sigma`, then first listed) alone, with `N` times the budget that member has in
/// the council.
fn equal_resources_player(
    players: &BTreeMap<String, PlayerConfig>,
    council: &str,
) -> Result<PlayerConfig, EqualResourcesProblem> {
    let c = &players[council];
    let Some(settings) = c.kind.council() else {
        return Err(EqualResourcesProblem::NotACouncil);
    };
    let strongest = settings
        .members
        .iter()
        .fold(None::<&PlayerConfig>, |best, m| {
            let p = &players[m];
            match best {
                Some(b) if b.sigma <= p.sigma => Some(b),
                _ => Some(p),
            }
        })
        .ok_or(EqualResourcesProblem::NoMembers)?;
    let n = settings.members.len() as u64;
    let limits = limits::equal_resources_limits(c, settings.fairness, strongest, n)?;
    let name = format!("{}-x{n}", strongest.name);
    if players.contains_key(&name) {
        return Err(EqualResourcesProblem::NameTaken(name));
    }
    Ok(PlayerConfig {
        name,
        limits,
        ..strongest.clone()
    })
}
