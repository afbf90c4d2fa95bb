//! The player `council-usi` plays as: which one the config means, and which part of the config
//! it needs. The server builds it with [`council_players::factory::build_player_tree`] and a stop flag, so
//! that a GUI's `stop` reaches every in-process search: in-process engines are made
//! [`InternalPlayer::stoppable`](council_players::player::internal::InternalPlayer::stoppable): they
//! share one [`StopFlag`](engine::search::StopFlag) with the server,
//! so `stop` ends their searches at once with the best move found so far. The
//! [`council_players::player::Player`] trait has no abort, so a USI-process member cannot be stopped: it
//! thinks to its own budget.

use std::collections::BTreeSet;

use council_schema::config::{Config, PlayerKind};

/// The player to play as: `wanted` if given (it must exist), else the config's only council.
/// The error lists the choices.
pub fn choose_player(config: &Config, wanted: Option<&str>) -> Result<String, String> {
    let councils: Vec<&str> = config
        .players
        .values()
        .filter(|p| matches!(p.kind, PlayerKind::Council(_)))
        .map(|p| p.name.as_str())
        .collect();
    let all: Vec<&str> = config.players.keys().map(String::as_str).collect();
    match wanted {
        Some(name) if config.players.contains_key(name) => Ok(name.to_string()),
        Some(name) => Err(format!(
            "{}: no player `{name}` (players: {})",
            config.file.display(),
            all.join(", ")
        )),
        None => match councils.as_slice() {
            [one] => Ok((*one).to_string()),
            [] => Err(format!(
                "{}: no council in this config; choose a player with --player NAME (players: {})",
                config.file.display(),
                all.join(", ")
            )),
            many => Err(format!(
                "{}: {} councils in this config; choose one with --player NAME (councils: {})",
                config.file.display(),
                many.len(),
                many.join(", ")
            )),
        },
    }
}

/// `name` and, for councils, every member below it.
pub(crate) fn tree(config: &Config, name: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(n) = todo.pop() {
        if let Some(c) = config.player(&n).kind.council() {
            todo.extend(c.members.iter().filter(|m| !names.contains(*m)).cloned());
        }
        names.insert(n);
    }
    names
}

/// The config cut down to `name`'s tree, so [`council_players::factory::preflight`] checks only the USI
/// engines this player uses.
pub(crate) fn sub_config(config: &Config, name: &str) -> Config {
    let keep = tree(config, name);
    let mut sub = config.clone();
    sub.players.retain(|n, _| keep.contains(n));
    sub
}
