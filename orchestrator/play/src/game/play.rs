//! One game between two players: the arbiter's steps in order. Kept apart from the arbiter so
//! the game's course (seat, then ask and judge until a verdict, then finish) reads in one place.
//!
//! Invariants: only the side to move is asked; every answer is judged before the next question;
//! the first rule that applies ends the game, and a failure of a player is a result, not an error.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::arbiter::{Arbiter, Judgement};
use super::feed::RunFeed;
use super::sheet::PlayedGame;
use council_players::player::Player;
use council_schema::config::Config;
use council_schema::run::schedule::GameSpec;
use engine::types::ByColor;

/// Play `spec` between `sente` and `gote`, telling `feed` (if any) of its start and every move.
/// `None` when cancelled (the game is not finished and must not be recorded).
pub async fn play_game(
    config: &Config,
    spec: &GameSpec,
    mut players: ByColor<&mut dyn Player>,
    cancel: &CancellationToken,
    feed: Option<Arc<dyn RunFeed>>,
) -> Option<PlayedGame> {
    // The game's own token, cancelled with the run's: it is polled at every wake-up of the game
    // (each line an engine writes), and the run's is shared by all games' threads, its lock
    // and waiters with it; this one is this game's alone.
    let cancel = &cancel.child_token();
    let mut arbiter = match Arbiter::new(config, spec) {
        Ok(a) => a.with_feed(feed),
        Err(e) => {
            // Validated with the config, so this is a bug, not bad input: fail loudly but safely.
            tracing::error!(game = spec.id, "cannot set up the start position: {e}");
            return None;
        }
    };
    let mut judgement = arbiter.seat(&mut players, cancel).await.ok()?;
    let verdict = loop {
        match judgement {
            Judgement::End(verdict) => break verdict,
            Judgement::Continue => {
                let answer = arbiter.ask(&mut players, cancel).await.ok()?;
                judgement = arbiter.judge(answer);
                if judgement == Judgement::Continue {
                    tokio::select! {
                        () = arbiter.ponder(&mut players) => {}
                        () = cancel.cancelled() => return None,
                    }
                }
            }
        }
    };
    Some(arbiter.finish(players, verdict).await)
}
