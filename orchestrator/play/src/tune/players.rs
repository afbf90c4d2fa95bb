//! Players kept from game to game of a tune. Building a USI player means starting its engine
//! (seconds for gpsshogi), and a tune's players change only by θ between iterations, so the
//! engines (the leaves of a player tree: internal, intuition and USI players) are kept here, one
//! per name and game in flight, and re-parameterised in place before each game; councils, which
//! are plain data around their members, are built fresh for every game around the kept engines
//! ([`council_players::factory::build_tree_over`]), so their keys (vote weights, `ml_d`, `approval_k`, the
//! members' `win_rate_t`, `sigma` and limits) take their new values for free.
//!
//! In place: an internal player takes any key (its engine keeps its tables; `new_game` applies
//! the settings, a new `hash_mb` reallocates); a USI player takes new option values (sent with
//! `setoption` before the next `usinewgame`) and its orchestrator-side keys. Rebuilt: a USI
//! player whose `command`, `args` or `dir` changes or which would lose an option, an intuition
//! player whose config changes at all (it is in-process and cheap), a leaf whose kind changes.
//! Every game still starts with `new_game` and its seed, so a game plays as it did with fresh
//! players (for engines that forget their past at `usinewgame`; `restart = true` is for those
//! that do not, as in `council-match`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Mutex;

use council_players::factory::build_tree_over;
use council_players::player::internal::InternalPlayer;
use council_players::player::intuition::IntuitionPlayer;
use council_players::player::usi::UsiPlayer;
use council_players::player::{BoxFuture, MoveRequest, Outcome, Player, PlayerError, Thought};
use council_schema::config::{Config, Leaf, PlayerConfig};

/// An engine kept by the pool, with the config it was last given.
struct Kept {
    config: PlayerConfig,
    engine: Engine,
}

enum Engine {
    Internal(InternalPlayer),
    Usi(Box<UsiPlayer>),
    Intuition(IntuitionPlayer),
}

impl Engine {
    fn build(pc: &PlayerConfig, leaf: Leaf<'_>) -> Self {
        match leaf {
            Leaf::Internal(s) => Engine::Internal(InternalPlayer::new(&pc.name, s)),
            Leaf::Usi(s) => Engine::Usi(Box::new(UsiPlayer::new(&pc.name, s, pc.ponder))),
            Leaf::Intuition(s) => Engine::Intuition(IntuitionPlayer::new(&pc.name, s)),
        }
    }

    fn player(&mut self) -> &mut dyn Player {
        match self {
            Engine::Internal(p) => p,
            Engine::Usi(p) => p.as_mut(),
            Engine::Intuition(p) => p,
        }
    }
}

impl Kept {
    /// Take `pc` in place; false when it cannot (build a new engine then).
    fn reconfigure(&mut self, pc: &PlayerConfig, leaf: Leaf<'_>) -> bool {
        if self.config == *pc {
            return true;
        }
        let done = match (&mut self.engine, leaf) {
            (Engine::Internal(p), Leaf::Internal(s)) => {
                p.reconfigure(&pc.name, s);
                true
            }
            (Engine::Usi(p), Leaf::Usi(s)) => p.reconfigure(&pc.name, s, pc.ponder),
            _ => false,
        };
        if done {
            self.config = pc.clone();
        }
        done
    }
}

/// The kept engines, idle between games, by player name.
#[derive(Default)]
pub struct KeptPlayers {
    idle: std::sync::Mutex<HashMap<String, Vec<Arc<Mutex<Kept>>>>>,
    built: AtomicU64,
}

/// The engines a game has borrowed; give them back with [`KeptPlayers::give_back`].
pub struct Lent(Vec<Arc<Mutex<Kept>>>);

impl KeptPlayers {
    /// The player `name` of `config` for one game: councils built fresh, engines taken from the
    /// pool (re-parameterised to `config`) or built. The borrowed engines are added to `lent`.
    pub async fn take(&self, config: &Config, name: &str, lent: &mut Lent) -> Box<dyn Player> {
        // Collect the engines first (reconfiguring may have to shut one down, which awaits),
        // then build the tree over them in the order the factory asks for them.
        let mut leaves = Vec::new();
        collect_leaves(config, name, &mut leaves);
        let mut handles = Vec::with_capacity(leaves.len());
        for (pc, leaf) in leaves {
            handles.push(self.engine_for(pc, leaf).await);
        }
        lent.0.extend(handles.iter().cloned());
        let mut next = handles.into_iter();
        build_tree_over(config, name, &mut |pc, _| {
            let Some(kept) = next.next() else {
                unreachable!("one kept engine per leaf, in the factory's order")
            };
            Box::new(Borrowed {
                name: pc.name.clone(),
                ponders: pc.ponder,
                kept,
            })
        })
    }

    async fn engine_for(&self, pc: &PlayerConfig, leaf: Leaf<'_>) -> Arc<Mutex<Kept>> {
        let idle = self
            .idle
            .lock()
            .ok()
            .and_then(|mut m| m.get_mut(&pc.name).and_then(Vec::pop));
        if let Some(handle) = idle {
            let mut kept = handle.lock().await;
            if kept.reconfigure(pc, leaf) {
                drop(kept);
                return handle;
            }
            kept.engine.player().shutdown().await;
        }
        self.built.fetch_add(1, Ordering::Relaxed);
        Arc::new(Mutex::new(Kept {
            config: pc.clone(),
            engine: Engine::build(pc, leaf),
        }))
    }

    /// Return a finished game's engines to the pool.
    pub fn give_back(&self, lent: Lent) {
        for handle in lent.0 {
            let name = match handle.try_lock() {
                Ok(k) => k.config.name.clone(),
                // Still held: the game's tree was not dropped; leave the engine to it.
                Err(_) => continue,
            };
            if let Ok(mut m) = self.idle.lock() {
                m.entry(name).or_default().push(handle);
            }
        }
    }

    /// Engines built so far (a USI engine started once per build, at its first game).
    pub fn built(&self) -> u64 {
        self.built.load(Ordering::Relaxed)
    }

    /// Stop every kept engine.
    pub async fn shutdown(&self) {
        let all: Vec<Arc<Mutex<Kept>>> = match self.idle.lock() {
            Ok(mut m) => m.drain().flat_map(|(_, v)| v).collect(),
            Err(_) => Vec::new(),
        };
        for handle in all {
            handle.lock().await.engine.player().shutdown().await;
        }
    }
}

impl Lent {
    pub fn new() -> Self {
        Lent(Vec::new())
    }
}

impl Default for Lent {
    fn default() -> Self {
        Self::new()
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
/// back to the pool, which stops it at the end of the tune.
struct Borrowed {
    name: String,
    /// The kept engine's `ponder` (fixed: a change of it builds a new engine).
    ponders: bool,
    kept: Arc<Mutex<Kept>>,
}

impl Player for Borrowed {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        Box::pin(async move { self.kept.lock().await.engine.player().new_game(seed).await })
    }

    fn think<'a>(
        &'a mut self,
        req: &'a MoveRequest,
    ) -> BoxFuture<'a, Result<Thought, PlayerError>> {
        Box::pin(async move { self.kept.lock().await.engine.player().think(req).await })
    }

    fn ponders(&self) -> bool {
        self.ponders
    }

    fn ponder<'a>(
        &'a mut self,
        req: &'a MoveRequest,
        expected: Option<&'a str>,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let mut kept = self.kept.lock().await;
            kept.engine.player().ponder(req, expected).await
        })
    }

    fn late_answer(&mut self, until: tokio::time::Instant) -> BoxFuture<'_, Option<Thought>> {
        Box::pin(async move {
            let mut kept = self.kept.lock().await;
            kept.engine.player().late_answer(until).await
        })
    }

    fn idle(&mut self) -> BoxFuture<'_, std::convert::Infallible> {
        Box::pin(async move {
            // Never waits for the engine: a think that needs it takes it (the idle is dropped).
            match self.kept.try_lock() {
                Ok(mut kept) => kept.engine.player().idle().await,
                Err(_) => std::future::pending().await,
            }
        })
    }

    fn game_over(&mut self, outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.kept
                .lock()
                .await
                .engine
                .player()
                .game_over(outcome)
                .await;
        })
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
        let pool = KeptPlayers::default();
        let first = config("a = 1.0, b = 2.0", 0);
        let mut lent = Lent::new();
        let c = pool.take(&first, "c", &mut lent).await;
        assert_eq!(c.name(), "c");
        assert_eq!(pool.built(), 2, "one engine per member");
        drop(c);
        pool.give_back(lent);
        // New weights and a new noise: the same two engines, re-parameterised.
        let second = config("a = 3.0, b = 1.0", 7);
        let mut lent = Lent::new();
        let c = pool.take(&second, "c", &mut lent).await;
        assert_eq!(pool.built(), 2);
        let a = lent.0[0].lock().await;
        assert_eq!(a.config, *second.player("a"));
        drop(a);
        // A second game in flight at the same time gets its own engines.
        let mut other = Lent::new();
        let _c2 = pool.take(&second, "c", &mut other).await;
        assert_eq!(pool.built(), 4);
        drop(c);
        pool.give_back(lent);
        pool.shutdown().await;
    }
}
