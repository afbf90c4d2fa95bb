//! The one player factory: a config's player name to a fresh [`Player`] (an in-process engine,
//! the intuition player, a USI process, or a council built from its members, recursively), and
//! the preflight that starts every USI engine once. `council-match` and `council-usi` both build their players here.
//! With [`EngineLogs`], the USI engines that should log get their place in the tree
//! (`council/gps`) as their engine log tag; an engine kept by name from game to game
//! (council-tune) gets its name ([`EngineLogs::kept_engine_tag`]).

use std::path::{Path, PathBuf};

use crate::council::vote::VoteSettings;
use crate::council::{CouncilPlayer, Member};
use crate::player::engine_log::{EngineLog, EngineLogError, LogTag};
use crate::player::internal::InternalPlayer;
use crate::player::intuition::IntuitionPlayer;
use crate::player::live::Live;
use crate::player::options::{self, OptionProblem};
use crate::player::usi::UsiPlayer;
use crate::player::{Player, PlayerError};
use council_schema::config::{Config, Leaf, PlayerConfig, PlayerKind, UsiEngineSettings};
use council_schema::results::GameResult;

/// Which engines write to an engine log: every one (`--log FILE`), or those with `log = true`
/// (themselves or a council above them).
#[derive(Debug, Clone)]
pub struct EngineLogs {
    pub log: EngineLog,
    pub every_engine: bool,
}

impl EngineLogs {
    /// The engine log of a run into `dir`: every engine to `every` (`--log FILE`), else the
    /// players with `log = true` to `dir/engines.log` (opened here, `cap` bytes a session),
    /// else none.
    pub fn for_run(
        config: &Config,
        every: Option<&EngineLog>,
        dir: &Path,
        cap: u64,
    ) -> Result<Option<Self>, EngineLogError> {
        if let Some(log) = every {
            return Ok(Some(EngineLogs {
                log: log.clone(),
                every_engine: true,
            }));
        }
        if !Self::asked_in(config) {
            return Ok(None);
        }
        Ok(Some(EngineLogs {
            log: EngineLog::open(&dir.join("engines.log"), cap)?,
            every_engine: false,
        }))
    }

    /// Whether any player of `config` asks for its engine's lines (`log = true`).
    pub fn asked_in(config: &Config) -> bool {
        config.players.values().any(|p| p.log)
    }

    /// Write game `result`'s verdict (`#` line) when the log holds lines of its players: every
    /// game with `--log FILE`, else a game where a player, or a member below it, has `log = true`.
    pub fn game_over(&self, config: &Config, result: &GameResult) {
        let logged = |name: &str| tree_logs(config, name);
        if self.every_engine || logged(&result.sente) || logged(&result.gote) {
            self.log.verdict(
                result.id,
                result.result.name(),
                result.reason.name(),
                result.plies,
                result.detail.as_deref(),
            );
        }
    }

    /// The tag of the engine `name` of `config` for a pool that keeps engines by name and seats
    /// them under councils built per game (council-tune): its name, not a path, as the same
    /// engine may sit under another council, or play alone, in the next game. It logs when
    /// every engine does, or when it or a council anywhere above it has `log = true`.
    pub fn kept_engine_tag(&self, config: &Config, name: &str) -> Option<LogTag> {
        let logged = config
            .players
            .values()
            .any(|p| p.log && in_tree(config, &p.name, name));
        self.tag(name, logged)
    }

    /// The tag of the engine at `path` whose own or a council's `log` is `logged`.
    fn tag(&self, path: &str, logged: bool) -> Option<LogTag> {
        (self.every_engine || logged).then(|| self.log.tag(path))
    }
}

/// Whether player `name` or a member anywhere below it has `log = true`.
fn tree_logs(config: &Config, name: &str) -> bool {
    let Some(p) = config.players.get(name) else {
        return false;
    };
    p.log
        || match &p.kind {
            PlayerKind::Council(c) => c.members.iter().any(|m| tree_logs(config, m)),
            _ => false,
        }
}

/// Whether `name` is `root` or a member anywhere below it.
fn in_tree(config: &Config, root: &str, name: &str) -> bool {
    root == name
        || config.players.get(root).is_some_and(|p| match &p.kind {
            PlayerKind::Council(c) => c.members.iter().any(|m| in_tree(config, m, name)),
            _ => false,
        })
}

/// Where a player sits in the tree being built: its path (`council/gps`) and whether it or a
/// council above it has `log = true`.
struct Seat {
    path: String,
    logged: bool,
}

/// A fresh instance of the player `name`.
pub fn build_player(config: &Config, name: &str) -> Box<dyn Player> {
    build_player_tree(config, name, None)
}

/// As [`build_player`]; with a GUI's `live` hook every player of the tree shares it (its stop
/// flag, its progress board, leave to ponder: [`crate::player::live`]): how `council-usi`
/// builds the player it plays as.
pub fn build_player_tree(config: &Config, name: &str, live: Option<&Live>) -> Box<dyn Player> {
    build_player_logged(config, name, live, None)
}

/// As [`build_player_tree`], its USI engines writing to `logs` as it says.
pub fn build_player_logged(
    config: &Config,
    name: &str,
    live: Option<&Live>,
    logs: Option<&EngineLogs>,
) -> Box<dyn Player> {
    let root = Seat {
        path: name.to_string(),
        logged: config.player(name).log,
    };
    let mut leaf = |pc: &PlayerConfig, leaf: Leaf<'_>, seat: &Seat| -> Box<dyn Player> {
        match leaf {
            Leaf::Internal(s) => match live {
                Some(live) => Box::new(InternalPlayer::live(
                    &pc.name,
                    s,
                    &config.models,
                    live.clone(),
                )),
                None => Box::new(InternalPlayer::new(&pc.name, s, &config.models)),
            },
            Leaf::Intuition(s) => Box::new(IntuitionPlayer::new(&pc.name, s, &config.models)),
            Leaf::Usi(s) => {
                let usi = UsiPlayer::new(&pc.name, s, pc.ponder)
                    .logged(logs.and_then(|l| l.tag(&seat.path, seat.logged)));
                match live {
                    Some(live) => Box::new(usi.live(live.clone())),
                    None => Box::new(usi),
                }
            }
        }
    };
    build_tree(config, name, &root, &mut leaf, live)
}

/// The player `name` with its councils built here and every other player (a leaf: internal,
/// intuition, USI) given by `leaf`: how `council-tune` builds fresh councils around engines it
/// keeps from game to game.
pub fn build_tree_over(
    config: &Config,
    name: &str,
    leaf: &mut dyn FnMut(&PlayerConfig, Leaf<'_>) -> Box<dyn Player>,
) -> Box<dyn Player> {
    let root = Seat {
        path: name.to_string(),
        logged: false,
    };
    build_tree(config, name, &root, &mut |pc, l, _| leaf(pc, l), None)
}

/// [`build_tree_over`] from `seat`, every council with the GUI's `live` hook when given.
fn build_tree(
    config: &Config,
    name: &str,
    seat: &Seat,
    leaf: &mut dyn FnMut(&PlayerConfig, Leaf<'_>, &Seat) -> Box<dyn Player>,
    live: Option<&Live>,
) -> Box<dyn Player> {
    let pc = config.player(name);
    let c = match pc.kind.leaf() {
        Ok(l) => return leaf(pc, l, seat),
        Err(council) => council,
    };
    let members = c
        .members
        .iter()
        .zip(&c.weights)
        .map(|(m, &weight)| {
            let mc = config.player(m);
            let member_seat = Seat {
                path: format!("{}/{m}", seat.path),
                logged: seat.logged || mc.log,
            };
            let member = build_tree(config, m, &member_seat, leaf, live);
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

/// A USI engine of a config that fails its pre-flight: the config's file, the player, why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PreflightError {
    /// It does not start as a USI engine.
    #[error(
        "{}: key `player.command`: player `{player}` does not start as a USI engine: {error}",
        file.display()
    )]
    Start {
        file: PathBuf,
        player: String,
        error: PlayerError,
    },
    /// One of its `options` is not one its engine declares, or is outside the declared range.
    #[error(
        "{}: key `player.options.{}`: player `{player}`: {problem}",
        file.display(),
        problem.option()
    )]
    Option {
        file: PathBuf,
        player: String,
        problem: OptionProblem,
    },
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
    r.map(|()| declared).map_err(|error| PreflightError::Start {
        file: config.file.clone(),
        player: name.to_string(),
        error,
    })
}

/// Start every USI engine of the config once (handshake, then quit), all at once, so an engine
/// that is not a USI engine or cannot start, or one whose `options` it does not declare
/// ([`options::check`]), stops the run before any game. The error is one line naming the config
/// file, the key and the player.
pub async fn preflight(config: &Config) -> Result<(), PreflightError> {
    preflight_logged(config, None).await
}

/// As [`preflight`], the handshakes written to `logs` (every engine logs its own, under its
/// name, outside any game).
pub async fn preflight_logged(
    config: &Config,
    logs: Option<&EngineLogs>,
) -> Result<(), PreflightError> {
    let checks = config
        .players
        .values()
        .filter_map(|p| match &p.kind {
            PlayerKind::Usi(s) => Some((p, s)),
            _ => None,
        })
        .map(|(p, s)| async move {
            let mut player = UsiPlayer::new(&p.name, s, p.ponder)
                .logged(logs.and_then(|l| l.tag(&p.name, p.log)));
            let r = player.new_game(0).await;
            let declared = player.declared_options().to_vec();
            player.shutdown().await;
            r.map_err(|error| PreflightError::Start {
                file: config.file.clone(),
                player: p.name.clone(),
                error,
            })?;
            options::check(&s.options, &declared).map_err(|problem| PreflightError::Option {
                file: config.file.clone(),
                player: p.name.clone(),
                problem,
            })
        });
    futures::future::join_all(checks)
        .await
        .into_iter()
        .collect::<Result<Vec<()>, PreflightError>>()
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::engine_log::DEFAULT_CAP_BYTES;
    use std::path::Path;

    /// `c`, a council of `a` and `b`, with `log = true` on `log_on` (if any); `x` alone.
    fn config(log_on: &str) -> Config {
        let log = |n: &str| if n == log_on { "log = true\n" } else { "" };
        let text = format!(
            "[match]\nplayers = [\"c\", \"x\"]\n\
            [[player]]\nname = \"a\"\nkind = \"usi\"\ncommand = \"sh\"\nnodes = 1\n{}\
            [[player]]\nname = \"b\"\nkind = \"usi\"\ncommand = \"sh\"\nnodes = 1\n{}\
            [[player]]\nname = \"c\"\nkind = \"council\"\nmembers = [\"a\", \"b\"]\nmethod = \"majority\"\nnodes = 1\n{}\
            [[player]]\nname = \"x\"\nkind = \"usi\"\ncommand = \"sh\"\nnodes = 1\n{}",
            log("a"),
            log("b"),
            log("c"),
            log("x")
        );
        Config::parse(Path::new("t.toml"), &text).expect("valid")
    }

    /// The engines of `config` a kept-engine pool tags, with their tags.
    fn tagged(logs: &EngineLogs, config: &Config) -> Vec<(String, String)> {
        ["a", "b", "x"]
            .into_iter()
            .filter_map(|n| Some((n.to_string(), logs.kept_engine_tag(config, n)?.who().into())))
            .collect()
    }

    #[test]
    fn a_kept_engine_logs_under_its_name_when_it_or_a_council_above_it_asks() {
        let path =
            std::env::temp_dir().join(format!("council-kept-tag-{}.log", std::process::id()));
        let log = EngineLog::open(&path, DEFAULT_CAP_BYTES).expect("open");
        let asked = EngineLogs {
            log: log.clone(),
            every_engine: false,
        };
        let pair = |n: &str| (n.to_string(), n.to_string());
        assert_eq!(tagged(&asked, &config("a")), [pair("a")]);
        assert_eq!(tagged(&asked, &config("c")), [pair("a"), pair("b")]);
        assert_eq!(tagged(&asked, &config("x")), [pair("x")]);
        assert_eq!(tagged(&asked, &config("none")), []);
        let every = EngineLogs {
            log,
            every_engine: true,
        };
        assert_eq!(
            tagged(&every, &config("none")),
            [pair("a"), pair("b"), pair("x")]
        );
        let _ = std::fs::remove_file(&path);
    }
}
