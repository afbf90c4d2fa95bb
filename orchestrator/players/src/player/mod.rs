//! The one [`Player`] abstraction the arbiter talks to: the in-process engine ([`internal`]),
//! the candidate model without search ([`intuition`]), a USI child process ([`usi`]) and a
//! council of players ([`crate::council`]).
//!
//! A player answers one move at a time with a [`Thought`]; it never judges the game's legality
//! (the arbiter does, against the full legal-move list; a council only leaves its members'
//! unplayable moves out of its vote) and never keeps the clock (the arbiter does). Failures
//! come back as [`PlayerError`], which the arbiter turns into a game result; a player that failed
//! restarts itself at its next [`Player::new_game`].

pub mod budget;
pub mod engine_log;
pub mod internal;
pub mod intuition;
pub mod live;
pub mod options;
pub mod process;
pub mod time;
pub mod usi;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use engine::position::Position;

use council_schema::results::votes::CouncilVote;
use engine::types::Score;

/// A boxed future, so `Player` stays object-safe (a council holds `Box<dyn Player>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub use budget::Budget;

/// Everything a player needs to choose a move.
#[derive(Clone)]
pub struct MoveRequest {
    /// The current position, with the game's start and every move played since: shared, not
    /// copied per request (a position carries its whole history).
    pub position: Arc<Position>,
    pub budget: Budget,
    /// Hard wall-time cap for this move (the arbiter's deadline plus a margin); a player that
    /// has not answered by then has timed out.
    pub deadline: tokio::time::Instant,
    /// MultiPV lines wanted in [`Thought::lines`] (1: the move alone; approval councils ask
    /// their members for `approval_k`).
    pub multipv: usize,
}

/// What a player decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A move as USI text, not yet checked.
    Move(String),
    Resign,
    /// Impasse declaration (`bestmove win`), to be checked by the arbiter.
    Win,
}

impl Decision {
    /// The USI word for it: the move text, `resign` or `win`.
    pub(crate) fn as_usi(&self) -> &str {
        match self {
            Decision::Move(m) => m,
            Decision::Resign => "resign",
            Decision::Win => "win",
        }
    }

    pub(crate) fn from_usi(text: &str) -> Decision {
        match text {
            "resign" => Decision::Resign,
            "win" => Decision::Win,
            m => Decision::Move(m.to_string()),
        }
    }
}

/// A player's answer to one [`MoveRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct Thought {
    pub decision: Decision,
    /// The score it reported for the move, from the mover's side.
    pub eval: Option<Score>,
    pub pv: Vec<String>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Time the engine(s) spent thinking (for councils, the slowest member): the wall time of
    /// the move minus this is the orchestrator's own overhead.
    pub engine_time: Duration,
    /// Council decisions behind this move (this council's and its member councils').
    pub votes: Vec<CouncilVote>,
    /// With `multipv` > 1 asked: each MultiPV line's first move (USI) and its score when the
    /// player has one, best first. A council gives its ranking of moves in a GUI's tree
    /// (`council-usi`) and leaves it empty elsewhere.
    pub lines: Vec<(String, Option<Score>)>,
}

/// Why a player could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    #[error("{player}: crashed: {detail}")]
    Crash { player: String, detail: String },
    #[error("{player}: timed out: {detail}")]
    Timeout { player: String, detail: String },
    /// Output where a move was required that is not a move at all.
    #[error("{player}: malformed answer: {detail}")]
    Malformed { player: String, detail: String },
}

/// How a game ended for one player (`gameover win|lose|draw` in USI): the engine crate's type,
/// so a USI player passes it on as it is.
pub use engine::usi::protocol::GameOutcome as Outcome;

/// A participant in games. One instance plays one game at a time.
pub trait Player: Send {
    fn name(&self) -> &str;

    /// Prepare for a game with this seed: (re)start a process that is not running or failed,
    /// clear hash tables, reseed noise.
    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>>;

    /// Choose a move.
    fn think<'a>(&'a mut self, req: &'a MoveRequest)
    -> BoxFuture<'a, Result<Thought, PlayerError>>;

    /// Whether this player ponders (`ponder = true`): the arbiter then calls [`Player::ponder`]
    /// after each of its moves.
    fn ponders(&self) -> bool {
        false
    }

    /// Think in the opponent's time: `req.position` is the position after this player's own
    /// move (the opponent to move) and `req.budget` its clock as it will stand at its next move.
    /// Ponder on `expected` (a reply of the opponent), or when `None` on the reply this player
    /// expects itself. Returns at once with the reply it ponders on, `None` when it does not
    /// ponder. The next [`Player::think`] turns the pondering into its answer when the
    /// opponent played that reply (`ponderhit`), else stops it, drops its answer and searches
    /// afresh; [`Player::game_over`] stops it too.
    fn ponder<'a>(
        &'a mut self,
        req: &'a MoveRequest,
        expected: Option<&'a str>,
    ) -> BoxFuture<'a, Option<String>> {
        let _ = (req, expected);
        Box::pin(async { None })
    }

    /// The opponent's reply this player expects after its last move, legal in `after` (the
    /// position after that move): what it ponders on when asked to choose, and what
    /// `council-usi` names in `bestmove X ponder Y`. `None` when it expects none.
    fn expected_reply(&self, after: &Position) -> Option<String> {
        let _ = after;
        None
    }

    /// After a [`Player::think`] that timed out with its engine stopped but not yet answering:
    /// wait until `until` for that answer and return it (for the position of that request),
    /// `None` when there is none (the default: players that answer at once when stopped).
    fn late_answer(&mut self, until: tokio::time::Instant) -> BoxFuture<'_, Option<Thought>> {
        let _ = until;
        Box::pin(async { None })
    }

    /// Read what its engine processes write while nobody waits for its answer: between its
    /// moves, while it ponders in the opponent's time. Their pipes never fill, the engine log
    /// gets each line when it is written, an exit is seen when it happens; the lines stay for
    /// the next [`Player::think`]. Never resolves: whoever holds the player between its moves
    /// runs this beside the other wait (`select!`, e.g. the opponent's think) and drops it.
    /// The default: a player without a process has nothing to read.
    fn idle(&mut self) -> BoxFuture<'_, Infallible> {
        Box::pin(std::future::pending())
    }

    /// The game ended (players that failed may ignore it).
    fn game_over(&mut self, outcome: Outcome) -> BoxFuture<'_, ()>;

    /// Stop for good: quit processes, give back threads.
    fn shutdown(&mut self) -> BoxFuture<'_, ()>;
}

/// The reply a player expects after its move, when it is legal in `after` (the one pondering
/// rule of a single engine, in-process or USI): the one it `named` (`bestmove M ponder R`, as
/// USI says), else, only when it named none, the second move of its last pv.
pub(crate) fn expected_reply_in(
    named: Option<&str>,
    pv: &[String],
    after: &Position,
) -> Option<String> {
    let reply = match named {
        Some(r) => r,
        None => pv.get(1)?,
    };
    after
        .parse_usi_move(reply)
        .is_ok()
        .then(|| reply.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_reply_wins_and_the_pv_speaks_only_when_none_is_named() {
        let mut after = Position::startpos();
        after.play(after.parse_usi_move("7g7f").expect("legal"));
        let pv = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // `bestmove 7g7f ponder 3c3d` with no pv at all: the named reply.
        assert_eq!(
            expected_reply_in(Some("3c3d"), &[], &after).as_deref(),
            Some("3c3d")
        );
        // Named, with a pv that says otherwise: still the named one.
        assert_eq!(
            expected_reply_in(Some("3c3d"), &pv(&["7g7f", "8c8d"]), &after).as_deref(),
            Some("3c3d")
        );
        // None named: the pv's second move.
        assert_eq!(
            expected_reply_in(None, &pv(&["7g7f", "8c8d"]), &after).as_deref(),
            Some("8c8d")
        );
        // A named reply that is not legal there is no reply at all (never the pv's instead).
        assert_eq!(
            expected_reply_in(Some("7g7f"), &pv(&["7g7f", "8c8d"]), &after),
            None
        );
        assert_eq!(expected_reply_in(None, &pv(&["7g7f"]), &after), None);
    }
}
