//! The one [`Player`] abstraction the arbiter talks to: the in-process engine ([`internal`]),
//! the candidate model without search ([`intuition`]), a USI child process ([`usi`]) and a
//! council of players ([`crate::council`]).
//!
//! A player answers one move at a time with a [`Thought`]; it never judges the game's legality
//! (the arbiter does, against the full legal-move list; a council only leaves its members'
//! unplayable moves out of its vote) and never keeps the clock (the arbiter does). Failures
//! come back as [`PlayerError`], which the arbiter turns into a game result; a player that failed
//! restarts itself at its next [`Player::new_game`].

pub mod internal;
pub mod intuition;
pub mod process;
pub mod time;
pub mod usi;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use engine::position::Position;

use council_schema::config::Limits;
use council_schema::results::votes::CouncilVote;
use engine::clock::{Clocks, TimeControl};
use engine::types::Color;
use engine::types::Score;

/// A boxed future, so `Player` stays object-safe (a council holds `Box<dyn Player>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What one move may cost: per-move limits and, under a clock, both sides' clocks as the move's
/// `go` states them (shogi's rule, [`engine::clock`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub clock: Option<Clocks>,
}

impl Budget {
    /// The per-move part of `limits` (councils' members, a clockless match, or a player whose
    /// clock someone else keeps): its byoyomi and increment as a clock with no main time; a main
    /// time (`time_ms`) is the arbiter's to keep, never a per-move limit.
    pub fn per_move(limits: &Limits) -> Budget {
        Budget {
            nodes: limits.nodes,
            depth: limits.depth,
            movetime_ms: limits.movetime_ms,
            clock: (limits.byoyomi_ms.is_some() || limits.increment_ms.is_some()).then(|| {
                Clocks::start(TimeControl {
                    main: Duration::ZERO,
                    byoyomi: Duration::from_millis(limits.byoyomi_ms.unwrap_or(0)),
                    increment: Duration::from_millis(limits.increment_ms.unwrap_or(0)),
                })
            }),
        }
    }

    /// This budget shared by `n` players thinking at once: nodes and times divided, depth kept.
    pub fn shared(&self, n: usize) -> Budget {
        let n = n.max(1) as u64;
        let div = |x: u64| (x / n).max(1);
        Budget {
            nodes: self.nodes.map(div),
            depth: self.depth,
            movetime_ms: self.movetime_ms.map(div),
            clock: self.clock.map(|c| c.shared(n as u32)),
        }
    }

    /// The clock as one move's time, for engines that ignore byoyomi (sjaakii): the mover's
    /// [`time::move_share`]; the per-move `movetime_ms`, if set, caps it too. `None` when this
    /// budget has no clock.
    pub fn clock_as_movetime(&self, mover: Color) -> Option<u64> {
        let share = time::move_share(self.clock?.side(mover));
        let cap = self.movetime_ms.unwrap_or(u64::MAX);
        // `go movetime 0` means "no limit" to some engines: at least a millisecond.
        Some(share.min(cap).max(1))
    }

    /// The longest this budget lets `mover` think, when it is a time budget at all: the
    /// `movetime_ms`, or the clock's allowance (main time left, this move's increment and the
    /// byoyomi, [`engine::clock::SideClock::allowance`]), whichever is shorter.
    pub fn time_allowance(&self, mover: Color) -> Option<Duration> {
        let clock = self.clock.map(|c| c.side(mover).allowance());
        match (self.movetime_ms.map(Duration::from_millis), clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// This budget with `keep` held back from `mover`'s time: from the movetime, and from the
    /// clock by its one margin rule ([`Clocks::less`]).
    pub fn less(&self, mover: Color, keep: Duration) -> Budget {
        let keep_ms = keep.as_millis() as u64;
        Budget {
            movetime_ms: self.movetime_ms.map(|t| t.saturating_sub(keep_ms).max(1)),
            clock: self.clock.map(|c| c.less(mover, keep)),
            ..*self
        }
    }
}

/// Everything a player needs to choose a move.
#[derive(Clone)]
pub struct MoveRequest {
    /// The current position, with the game's start and every move played since.
    pub position: Position,
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
    /// player has one, best first. Players that cannot give lines (councils) leave it empty.
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

    /// After a [`Player::think`] that timed out with its engine stopped but not yet answering:
    /// wait until `until` for that answer and return it (for the position of that request),
    /// `None` when there is none (the default: players that answer at once when stopped).
    fn late_answer(&mut self, until: tokio::time::Instant) -> BoxFuture<'_, Option<Thought>> {
        let _ = until;
        Box::pin(async { None })
    }

    /// The game ended (players that failed may ignore it).
    fn game_over(&mut self, outcome: Outcome) -> BoxFuture<'_, ()>;

    /// Stop for good: quit processes, give back threads.
    fn shutdown(&mut self) -> BoxFuture<'_, ()>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::clock::SideClock;

    fn side(remaining: u64, byoyomi: u64, increment: u64) -> SideClock {
        SideClock {
            remaining: Duration::from_millis(remaining),
            byoyomi: Duration::from_millis(byoyomi),
            increment: Duration::from_millis(increment),
        }
    }

    fn clock(btime: u64, wtime: u64, byoyomi: u64, inc: u64) -> Budget {
        Budget {
            clock: Some(Clocks::new(
                side(btime, byoyomi, inc),
                side(wtime, byoyomi, inc),
            )),
            ..Budget::default()
        }
    }

    #[test]
    fn a_shared_budget_divides_nodes_and_time_but_not_depth() {
        let b = Budget {
            nodes: Some(3000),
            depth: Some(5),
            movetime_ms: Some(600),
            clock: Some(Clocks::new(side(9000, 900, 0), side(3000, 900, 30))),
        };
        let s = b.shared(3);
        assert_eq!(s.nodes, Some(1000));
        assert_eq!(s.depth, Some(5));
        assert_eq!(s.movetime_ms, Some(200));
        let c = s.clock.expect("clock kept");
        assert_eq!(*c.side(Color::Sente), side(3000, 300, 0));
        assert_eq!(*c.side(Color::Gote), side(1000, 300, 10));
        assert_eq!(b.shared(1), b);
    }

    #[test]
    fn time_allowance_is_the_movers_time_with_its_increment_and_byoyomi() {
        let limits = Limits {
            byoyomi_ms: Some(500),
            ..Limits::default()
        };
        let mut b = Budget::per_move(&limits);
        assert_eq!(
            b.time_allowance(Color::Sente),
            Some(Duration::from_millis(500))
        );
        b.clock = Some(Clocks::new(side(1000, 0, 100), side(2000, 0, 200)));
        assert_eq!(
            b.time_allowance(Color::Sente),
            Some(Duration::from_millis(1100))
        );
        assert_eq!(
            b.time_allowance(Color::Gote),
            Some(Duration::from_millis(2200))
        );
        b.movetime_ms = Some(300);
        assert_eq!(
            b.time_allowance(Color::Gote),
            Some(Duration::from_millis(300))
        );
        assert_eq!(Budget::default().time_allowance(Color::Sente), None);
        // A margin comes off the movetime and off the mover's clock.
        let kept = b.less(Color::Gote, Duration::from_millis(250));
        assert_eq!(kept.movetime_ms, Some(50));
        assert_eq!(
            kept.clock.map(|c| c.side(Color::Gote).allowance()),
            Some(Duration::from_millis(1950))
        );
        assert_eq!(
            kept.clock.map(|c| *c.side(Color::Sente)),
            b.clock.map(|c| *c.side(Color::Sente))
        );
    }

    #[test]
    fn a_clock_as_one_moves_time_is_a_share_of_the_main_time_plus_byoyomi_and_increment() {
        // Byoyomi only: all of it.
        assert_eq!(
            clock(0, 0, 700, 0).clock_as_movetime(Color::Sente),
            Some(700)
        );
        // Main time: the mover's, spread over MOVES_TO_GO moves, plus the byoyomi.
        assert_eq!(
            clock(30_000, 60_000, 500, 0).clock_as_movetime(Color::Sente),
            Some(1500)
        );
        assert_eq!(
            clock(30_000, 60_000, 500, 0).clock_as_movetime(Color::Gote),
            Some(2500)
        );
        // Fischer: the increment on top, credited before the move, so spendable even with
        // little main time left.
        assert_eq!(
            clock(3000, 150, 0, 200).clock_as_movetime(Color::Gote),
            Some(205)
        );
        assert_eq!(
            clock(3000, 3000, 0, 200).clock_as_movetime(Color::Gote),
            Some(300)
        );
        // Never zero, capped by a per-move limit.
        assert_eq!(clock(0, 0, 0, 0).clock_as_movetime(Color::Sente), Some(1));
        let mut b = clock(0, 0, 700, 0);
        b.movetime_ms = Some(250);
        assert_eq!(b.clock_as_movetime(Color::Sente), Some(250));
        assert_eq!(Budget::default().clock_as_movetime(Color::Sente), None);
    }
}
