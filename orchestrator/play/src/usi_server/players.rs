//! The player `council-usi` plays as: which one the config means, and which part of the config
//! it needs. The server builds it with [`council_players::factory::build_player_tree`] and a
//! GUI's [`Live`](council_players::player::live::Live) hook, through which `stop` reaches every
//! search of the tree and every line it finds reaches the GUI.

use std::collections::BTreeSet;

use std::path::PathBuf;

use council_schema::config::{Config, PlayerKind};

/// Why the config names no player to play as; each lists the choices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChooseError {
    #[error("{}: no player `{name}` (players: {players})", file.display())]
    NoSuchPlayer {
        file: PathBuf,
        name: String,
        players: String,
    },
    #[error(
        "{}: no council in this config; choose a player with --player NAME (players: {players})",
        file.display()
    )]
    NoCouncil { file: PathBuf, players: String },
    #[error(
        "{}: {count} councils in this config; choose one with --player NAME (councils: {councils})",
        file.display()
    )]
    ManyCouncils {
        file: PathBuf,
        count: usize,
        councils: String,
    },
}

/// The player to play as: `wanted` if given (it must exist), else the config's only council.
/// The error lists the choices.
pub fn choose_player(config: &Config, wanted: Option<&str>) -> Result<String, ChooseError> {
    let councils: Vec<&str> = config
        .players
        .values()
        .filter(|p| matches!(p.kind, PlayerKind::Council(_)))
        .map(|p| p.name.as_str())
        .collect();
    let all: Vec<&str> = config.players.keys().map(String::as_str).collect();
    let file = config.file.clone();
    match wanted {
        Some(name) if config.players.contains_key(name) => Ok(name.to_string()),
        Some(name) => Err(ChooseError::NoSuchPlayer {
            file,
            name: name.to_string(),
            players: all.join(", "),
        }),
        None => match councils.as_slice() {
            [one] => Ok((*one).to_string()),
            [] => Err(ChooseError::NoCouncil {
                file,
                players: all.join(", "),
            }),
            many => Err(ChooseError::ManyCouncils {
                file,
                count: many.len(),
                councils: many.join(", "),
            }),
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
