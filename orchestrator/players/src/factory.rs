//! The one player factory: a config's player name to a fresh [`Player`] (an in-process engine,
//! the intuition player, a USI process, or a council built from its members, recursively), and
//! the preflight that starts every USI engine once. `council-match` and `council-usi` both build their players here.

use std::path::PathBuf;

use crate::council::vote::VoteSettings;
use crate::council::{CouncilPlayer, Member};
use crate::player::internal::InternalPlayer;
use crate::player::intuition::IntuitionPlayer;
use crate::player::live::Live;
use crate::player::usi::UsiPlayer;
use crate::player::{Player, PlayerError};
use council_schema::config::{Config, Leaf, PlayerConfig, PlayerKind, UsiEngineSettings};

/// A fresh instance of the player `name`.
pub fn build_player(config: &Config, name: &str) -> Box<dyn Player> {
    build_player_tree(config, name, None)
}

/// As [`build_player`]; with a GUI's `live` hook every player of the tree shares it (its stop
/// flag, its progress board, leave to ponder: [`crate::player::live`]): how `council-usi`
/// builds the player it plays as.
pub fn build_player_tree(config: &Config, name: &str, live: Option<&Live>) -> Box<dyn Player> {
    let Some(live) = live else {
        return build_tree_over(config, name, &mut |pc, leaf| match leaf {
            Leaf::Internal(s) => Box::new(InternalPlayer::new(&pc.name, s)),
            Leaf::Intuition(s) => Box::new(IntuitionPlayer::new(&pc.name, s)),
            Leaf::Usi(s) => Box::new(UsiPlayer::new(&pc.name, s, pc.ponder)),
        });
    };
    let mut leaf = |pc: &PlayerConfig, leaf: Leaf<'_>| -> Box<dyn Player> {
        match leaf {
            Leaf::Internal(s) => Box::new(InternalPlayer::live(&pc.name, s, live.clone())),
            Leaf::Intuition(s) => Box::new(IntuitionPlayer::new(&pc.name, s)),
            Leaf::Usi(s) => Box::new(UsiPlayer::new(&pc.name, s, pc.ponder).live(live.clone())),
        }
    };
    build_tree(config, name, &mut leaf, Some(live))
}

/// The player `name` with its councils built here and every other player (a leaf: internal,
/// intuition, USI) given by `leaf`: how `council-tune` builds fresh councils around engines it
/// keeps from game to game.
pub fn build_tree_over(
    config: &Config,
    name: &str,
    leaf: &mut dyn FnMut(&PlayerConfig, Leaf<'_>) -> Box<dyn Player>,
) -> Box<dyn Player> {
    build_tree(config, name, leaf, None)
}

/// [`build_tree_over`], every council with the GUI's `live` hook when given.
fn build_tree(
    config: &Config,
    name: &str,
    leaf: &mut dyn FnMut(&PlayerConfig, Leaf<'_>) -> Box<dyn Player>,
    live: Option<&Live>,
) -> Box<dyn Player> {
    let pc = config.player(name);
    let c = match pc.kind.leaf() {
        Ok(l) => return leaf(pc, l),
        Err(council) => council,
    };
    let members = c
        .members
        .iter()
        .zip(&c.weights)
        .map(|(m, &weight)| {
            let mc = config.player(m);
            let member = build_tree(config, m, leaf, live);
            Member::new(member, mc.win_rate_t, mc.sigma, weight, mc.limits)
        })
        .collect();
    Box::new(
        CouncilPlayer::new(
            name,
            c.method,
            c.fairness,
            VoteSettings {
                d: c.ml_d,
                k: c.approval_k,
            },
            members,
        )
        .with_time(c.reserve_ms, pc.ponder)
        .with_live(live.cloned()),
    )
}

/// A USI engine of a config that does not start as one: the config's file, the player, why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[error(
    "{}: key `player.command`: player `{player}` does not start as a USI engine: {error}",
    file.display()
)]
pub struct PreflightError {
    pub file: PathBuf,
    pub player: String,
    pub error: PlayerError,
}

/// The options the USI player `name` of `config` declares: its engine is started (handshake),
/// asked, and quit.
pub async fn declared_options(
    config: &Config,
    name: &str,
    settings: &UsiEngineSettings,
) -> Result<Vec<engine::usi::protocol::OptionSpec>, PreflightError> {
    let mut usi = UsiPlayer::new(name, settings, false);
    let r = usi.new_game(0).await;
    let declared = usi.declared_options().to_vec();
    usi.shutdown().await;
    r.map(|()| declared).map_err(|error| PreflightError {
        file: config.file.clone(),
        player: name.to_string(),
        error,
    })
}

/// Start every USI engine of the config once (handshake, then quit), all at once, so an engine
/// that is not a USI engine or cannot start stops the run before any game. The error is one
/// line naming the config file, the key and the player.
pub async fn preflight(config: &Config) -> Result<(), PreflightError> {
    let checks = config
        .players
        .values()
        .filter_map(|p| match &p.kind {
            PlayerKind::Usi(s) => Some((p, s)),
            _ => None,
        })
        .map(|(p, s)| async move {
            let mut player = UsiPlayer::new(&p.name, s, p.ponder);
            let r = player.new_game(0).await;
            player.shutdown().await;
            r.map_err(|error| PreflightError {
                file: config.file.clone(),
                player: p.name.clone(),
                error,
            })
        });
    futures::future::join_all(checks)
        .await
        .into_iter()
        .collect::<Result<Vec<()>, PreflightError>>()
        .map(|_| ())
}
