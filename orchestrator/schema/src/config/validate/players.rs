//! Each `[[player]]` table: its name, limits and judgement numbers, the keys its kind has no
//! use for (read from the table of player keys), then its kind's own settings; after all of
//! them, what a council asks of the others.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::player_keys::{PLAYER_KEYS, RawKind, RawPlayer};
use super::super::{
    ConfigError, DEFAULT_SIGMA, DEFAULT_WIN_RATE_T, Models, PlayerConfig, PlayerKind,
};
use super::at::PlayerAt;
use super::{councils, engines, limits};

/// The `[[player]]` tables alone, checked as [`Config::load`](super::super::Config::load)
/// checks them, with the models they play from.
pub(in super::super) fn validate_players(
    path: &Path,
    base: &Path,
    raw: Vec<RawPlayer>,
) -> Result<(BTreeMap<String, PlayerConfig>, Models), ConfigError> {
    let mut players = BTreeMap::new();
    let mut models = Models::default();
    let mut wants_equal: Vec<String> = Vec::new();
    for (index, p) in raw.into_iter().enumerate() {
        let at = PlayerAt {
            path,
            index,
            name: p.name.trim().to_string(),
        };
        if at.name.is_empty() {
            return Err(at.bare("name", "must not be empty"));
        }
        if players.contains_key(&at.name) {
            return Err(at.bare("name", format!("`{}` is defined twice", at.name)));
        }
        if p.equal_resources == Some(true) {
            wants_equal.push(at.name.clone());
        }
        let player = player(&at, base, p, &mut models)?;
        players.insert(player.name.clone(), player);
    }
    councils::check_members(path, &players)?;
    for council in wants_equal {
        councils::add_equal_resources(path, &mut players, &council)?;
    }
    Ok((players, models))
}

/// One player, its checks in the order a reader of its table would make them.
fn player(
    at: &PlayerAt<'_>,
    base: &Path,
    p: RawPlayer,
    models: &mut Models,
) -> Result<PlayerConfig, ConfigError> {
    let limits = limits::limits(at, &p)?;
    let win_rate_t = at.positive("win_rate_t", p.win_rate_t, DEFAULT_WIN_RATE_T)?;
    let sigma = at.positive("sigma", p.sigma, DEFAULT_SIGMA)?;
    if let Some((key, kinds)) = key_of_another_kind(&p) {
        return Err(at.err(key, format_args!("only meaningful for kind = {kinds}")));
    }
    if p.ponder == Some(true) && !matches!(p.kind, RawKind::Usi | RawKind::Council) {
        return Err(at.err(
            "ponder",
            "only USI engines and councils ponder; the built-in engine does not ponder in \
             process (run it as a USI engine, kind = \"usi\" with command = the council-engine \
             binary, to ponder)",
        ));
    }
    let kind = match p.kind {
        RawKind::Internal => PlayerKind::Internal(engines::internal(at, base, &p, models)?),
        RawKind::Intuition => PlayerKind::Intuition(engines::intuition(at, base, &p, models)?),
        RawKind::Usi => PlayerKind::Usi(engines::usi(at, base, &p)?),
        RawKind::Council => PlayerKind::Council(councils::council(at, &p)?),
    };
    Ok(PlayerConfig {
        name: at.name.clone(),
        kind,
        limits,
        move_timeout_ms: p.move_timeout_ms.unwrap_or(60_000),
        win_rate_t,
        sigma,
        ponder: p.ponder.unwrap_or(false),
        log: p.log.unwrap_or(false),
    })
}

/// The first key `p` gives that its kind has no use for, with the kinds it is for
/// (`"usi" or "internal"`).
fn key_of_another_kind(p: &RawPlayer) -> Option<(&'static str, String)> {
    let given = p.keys_given();
    let k = PLAYER_KEYS
        .iter()
        .find(|k| given.contains(&k.name) && !k.kinds.is_empty() && !k.kinds.contains(&p.kind))?;
    let kinds: Vec<String> = k
        .kinds
        .iter()
        .map(|k| format!("\"{}\"", k.name()))
        .collect();
    Some((k.name, kinds.join(" or ")))
}
