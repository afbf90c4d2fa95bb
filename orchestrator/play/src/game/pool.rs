//! The players a run keeps from game to game, so a USI engine (seconds to start for gpsshogi)
//! starts once, not once per game. One pool per game worker ([`super::scheduler`]): a kept
//! player's pipes belong to the runtime of the worker that built it, so it never moves to
//! another; the pool is shared only by that worker's games.
//!
//! Two policies ([`Keep`]), one per program:
//! - **council-match** ([`Keep::Whole`]): whole players by name; a game takes an idle instance of
//!   its player or builds one (its USI engines logging as `--log` or `log = true` says), and
//!   gives it back after the game, failed or not: a player that failed restarts itself at its
//!   next `new_game`.
//! - **council-tune** ([`Keep::Leaves`]): the engines (the leaves of a player tree: internal,
//!   intuition and USI players) by name, re-parameterised in place to each game's config (θ±
//!   change between iterations) or rebuilt when they cannot be; councils, plain data around
//!   their members, are built fresh for every game around the kept engines
//!   ([`build_tree_over`]), so their keys (vote weights, `ml_d`, `approval_k`, the members'
//!   `win_rate_t`, `sigma` and limits) take their new values for free. In place: an internal
//!   player takes any key (its engine keeps its tables; `new_game` applies the settings, a new
//!   `hash_mb` reallocates); a USI player takes new option values (sent with `setoption` before
//!   the next `usinewgame`) and its orchestrator-side keys. Rebuilt: a USI player whose
//!   `command`, `args` or `dir` changes or which would lose an option, an intuition player whose
//!   config changes at all (it is in-process and cheap), a leaf whose kind changes. A USI engine
//!   that should log (`--log`, `log = true` on it or a council above it) is tagged with its
//!   name when it is built ([`EngineLogs::kept_engine_tag`]): it is kept by name and may sit
//!   under another council, or play alone, in the next game, so a path in one game's tree would
//!   mislabel its later lines.
//!
//! Every game still starts with `new_game` and its seed, so a game plays as it did with fresh
//! players (for engines that forget their past at `usinewgame`; `restart = true` is for those
//! that do not).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Mutex;

use council_players::factory::{EngineLogs, build_player_logged, build_tree_over};
use council_players::player::engine_log::LogTag;
use council_players::player::internal::InternalPlayer;
use council_players::player::intuition::IntuitionPlayer;
use council_players::player::usi::UsiPlayer;
use council_players::player::{BoxFuture, MoveRequest, Outcome, Player, PlayerError, Thought};
use council_schema::config::{Config, Leaf, Models, PlayerConfig};

/// What a pool keeps, and how a game's player is made from it.
#[derive(Debug, Clone)]
pub enum Keep {
    /// Whole players by name, reused as they are (council-match: the config never changes).
    Whole { logs: Option<EngineLogs> },
    /// Engines by name, re-parameterised in place or rebuilt; councils built per game
    /// (council-tune: every iteration plays another config).
    Leaves { logs: Option<EngineLogs> },
}

/// The kept players of one game worker.
pub struct Pool {
    keep: Keep,
    idle: std::sync::Mutex<HashMap<String, Vec<Kept>>>,
    built: AtomicU64,
}

/// One idle kept player.
enum Kept {
    Whole(Box<dyn Player>),
    Engine(Arc<Mutex<Engine>>),
}

/// One side's player for one game, with the engines it borrowed; give it back with
/// [`Pool::give_back`].
pub struct Seated {
    pub player: Box<dyn Player>,
    lent: Vec<Arc<Mutex<Engine>>>,
}

impl Pool {
    pub fn new(keep: Keep) -> Self {
        Pool {
            keep,
            idle: std::sync::Mutex::new(HashMap::new()),
            built: AtomicU64::new(0),
        }
    }

    fn pop(&self, name: &str) -> Option<Kept> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.get_mut(name).and_then(Vec::pop)
    }

    fn push(&self, name: String, kept: Kept) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.entry(name).or_default().push(kept);
    }

    /// The engine log its players write to, when there is one (`--log`, `log = true`).
    pub fn engine_logs(&self) -> Option<&EngineLogs> {
        match &self.keep {
            Keep::Whole { logs } | Keep::Leaves { logs } => logs.as_ref(),
        }
    }

    /// The player `name` of `config` for one game, taken from the pool or built.
    pub async fn take(&self, config: &Config, name: &str) -> Seated {
        let logs = match &self.keep {
            Keep::Whole { logs } => logs,
            Keep::Leaves { .. } => return self.take_over_engines(config, name).await,
        };
        let player = match self.pop(name) {
            Some(Kept::Whole(p)) => p,
            _ => {
                self.built.fetch_add(1, Ordering::Relaxed);
                build_player_logged(config, name, None, logs.as_ref())
            }
        };
        Seated {
            player,
            lent: Vec::new(),
        }
    }

    /// A tree built fresh around kept engines ([`Keep::Leaves`]).
    async fn take_over_engines(&self, config: &Config, name: &str) -> Seated {
        // Collect the engines first (reconfiguring may have to shut one down, which awaits),
        // then build the tree over them in the order the factory asks for them.
        let mut leaves = Vec::new();
        collect_leaves(config, name, &mut leaves);
        let mut lent = Vec::with_capacity(leaves.len());
        for (pc, leaf) in leaves {
            lent.push(self.engine_for(config, pc, leaf).await);
        }
        let mut next = lent.iter().cloned();
        let player = build_tree_over(config, name, &mut |pc, _| {
            let Some(kept) = next.next() else {
                unreachable!("one kept engine per leaf, in the factory's order")
            };
            Box::new(Borrowed {
                name: pc.name.clone(),
                ponders: pc.ponder,
                kept,
            })
        });
        Seated { player, lent }
    }

    /// The kept engine `pc` of `config`, re-parameterised, or one built (logging as the
    /// pool's engine log says).
    async fn engine_for(
        &self,
        config: &Config,
        pc: &PlayerConfig,
        leaf: Leaf<'_>,
    ) -> Arc<Mutex<Engine>> {
        if let Some(Kept::Engine(handle)) = self.pop(&pc.name) {
            let mut kept = handle.lock().await;
            if kept.reconfigure(pc, leaf, &config.models) {
                drop(kept);
                return handle;
            }
            kept.player().shutdown().await;
        }
        self.built.fetch_add(1, Ordering::Relaxed);
        let tag = self
            .engine_logs()
            .and_then(|logs| logs.kept_engine_tag(config, &pc.name));
        Arc::new(Mutex::new(Engine::build(pc, leaf, &config.models, tag)))
    }

    /// Return a finished game's player (whole, or its engines) to the pool.
    pub fn give_back(&self, seated: Seated) {
        let Seated { player, lent } = seated;
        if matches!(self.keep, Keep::Whole { .. }) {
            self.push(player.name().to_string(), Kept::Whole(player));
            return;
        }
        drop(player);
        for handle in lent {
            let name = match handle.try_lock() {
                Ok(k) => k.config.name.clone(),
                // Still held: leave the engine to whoever holds it.
                Err(_) => continue,
            };
            self.push(name, Kept::Engine(handle));
        }
    }

    /// Players (or engines) built so far.
    pub fn built(&self) -> u64 {
        self.built.load(Ordering::Relaxed)
    }

    /// Stop every kept player, all at once.
    pub async fn shutdown(&self) {
        let all: Vec<Kept> = {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            idle.drain().flat_map(|(_, v)| v).collect()
        };
        futures::future::join_all(all.into_iter().map(|kept| async move {
            match kept {
                Kept::Whole(mut p) => p.shutdown().await,
                Kept::Engine(handle) => handle.lock().await.player().shutdown().await,
            }
        }))
        .await;
    }
}

/// A kept engine, with the config it was last given.
struct Engine {
    config: PlayerConfig,
    player: LeafPlayer,
}

enum LeafPlayer {
    Internal(InternalPlayer),
    Usi(Box<UsiPlayer>),
    Intuition(IntuitionPlayer),
}

impl Engine {
    /// Engine `pc`; a USI one writes its lines under `tag` when given.
    fn build(pc: &PlayerConfig, leaf: Leaf<'_>, models: &Models, tag: Option<LogTag>) -> Self {
        let player = match leaf {
            Leaf::Internal(s) => LeafPlayer::Internal(InternalPlayer::new(&pc.name, s, models)),
            Leaf::Usi(s) => {
                LeafPlayer::Usi(Box::new(UsiPlayer::new(&pc.name, s, pc.ponder).logged(tag)))
            }
            Leaf::Intuition(s) => LeafPlayer::Intuition(IntuitionPlayer::new(&pc.name, s, models)),
        };
        Engine {
            config: pc.clone(),
            player,
        }
    }

    fn player(&mut self) -> &mut dyn Player {
        match &mut self.player {
            LeafPlayer::Internal(p) => p,
            LeafPlayer::Usi(p) => p.as_mut(),
            LeafPlayer::Intuition(p) => p,
        }
    }

    /// Take `pc` in place; false when it cannot (build a new engine then).
    fn reconfigure(&mut self, pc: &PlayerConfig, leaf: Leaf<'_>, models: &Models) -> bool {
        if self.config == *pc {
            return true;
        }
        let done = match (&mut self.player, leaf) {
            (LeafPlayer::Internal(p), Leaf::Internal(s)) => {
                p.reconfigure(&pc.name, s, models);
                true
            }
            (LeafPlayer::Usi(p), Leaf::Usi(s)) => p.reconfigure(&pc.name, s, pc.ponder),
            _ => false,
        };
        if done {
            self.config = pc.clone();
        }
        done
    }
}

/// The leaves under `name`, in the order [`build_tree_over`] asks for them (members in order,
/// depth first).
fn collect_leaves<'c>(config: &'c Config, name: &str, out: &mut Vec<(&'c PlayerConfig, Leaf<'c>)>) {
    let pc = config.player(name);
    match pc.kind.leaf() {
        Ok(leaf) => out.push((pc, leaf)),
        Err(council) => {
            for m in &council.members {
                collect_leaves(config, m, out);
            }
        }
    }
}

/// A kept engine as a member of one game's tree. Its `shutdown` does nothing: the engine goes
/// back to the pool, which stops it at the end of the run.
struct Borrowed {
    name: String,
    /// The kept engine's `ponder` (fixed: a change of it builds a new engine).
    ponders: bool,
    kept: Arc<Mutex<Engine>>,
}

impl Player for Borrowed {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        Box::pin(async move { self.kept.lock().await.player().new_game(seed).await })
    }

    fn think<'a>(
        &'a mut self,
        req: &'a MoveRequest,
    ) -> BoxFuture<'a, Result<Thought, PlayerError>> {
        Box::pin(async move { self.kept.lock().await.player().think(req).await })
    }

    fn ponders(&self) -> bool {
        self.ponders
    }

    fn ponder<'a>(
        &'a mut self,
        req: &'a MoveRequest,
        expected: Option<&'a str>,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move { self.kept.lock().await.player().ponder(req, expected).await })
    }

    fn late_answer(&mut self, until: tokio::time::Instant) -> BoxFuture<'_, Option<Thought>> {
        Box::pin(async move { self.kept.lock().await.player().late_answer(until).await })
    }

    fn idle(&mut self) -> BoxFuture<'_, std::convert::Infallible> {
        Box::pin(async move {
            // Never waits for the engine: a think that needs it takes it (the idle is dropped).
            match self.kept.try_lock() {
                Ok(mut kept) => kept.player().idle().await,
                Err(_) => std::future::pending().await,
            }
        })
    }

    fn game_over(&mut self, outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(async move { self.kept.lock().await.player().game_over(outcome).await })
    }

    fn shutdown(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(weights: &str, noise: u32) -> Config {
        let text = format!(
            "[match]\nplayers = [\"c\", \"x\"]\n\
            [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\nnoise_cp = {noise}\n\
            [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n\
            [[player]]\nname = \"c\"\nkind = \"council\"\nmembers = [\"a\", \"b\"]\nmethod = \"majority\"\nweights = {{ {weights} }}\n\
            [[player]]\nname = \"x\"\nkind = \"internal\"\nnodes = 10\n"
        );
        Config::parse(Path::new("t.toml"), &text).expect("valid")
    }

    #[tokio::test]
    async fn engines_are_kept_across_games_and_new_values_taken_in_place() {
        let pool = Pool::new(Keep::Leaves { logs: None });
        let first = config("a = 1.0, b = 2.0", 0);
        let c = pool.take(&first, "c").await;
        assert_eq!(c.player.name(), "c");
        assert_eq!(pool.built(), 2, "one engine per member");
        pool.give_back(c);
        // New weights and a new noise: the same two engines, re-parameterised.
        let second = config("a = 3.0, b = 1.0", 7);
        let c = pool.take(&second, "c").await;
        assert_eq!(pool.built(), 2);
        let a = c.lent[0].lock().await;
        assert_eq!(a.config, *second.player("a"));
        drop(a);
        // A second game in flight at the same time gets its own engines.
        let c2 = pool.take(&second, "c").await;
        assert_eq!(pool.built(), 4);
        pool.give_back(c);
        pool.give_back(c2);
        pool.shutdown().await;
    }

    #[tokio::test]
    async fn whole_players_are_reused_by_name_and_built_when_none_is_idle() {
        let pool = Pool::new(Keep::Whole { logs: None });
        let config = config("a = 1.0, b = 1.0", 0);
        let c = pool.take(&config, "c").await;
        let x = pool.take(&config, "x").await;
        assert_eq!((c.player.name(), x.player.name()), ("c", "x"));
        assert_eq!(pool.built(), 2, "a council is one kept player");
        pool.give_back(c);
        pool.give_back(x);
        let c = pool.take(&config, "c").await;
        let c2 = pool.take(&config, "c").await;
        assert_eq!(pool.built(), 3, "the idle `c` reused, a second built");
        pool.give_back(c);
        pool.give_back(c2);
        pool.shutdown().await;
    }
}
