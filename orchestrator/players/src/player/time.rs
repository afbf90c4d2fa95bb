//! Time for one move under a clock, in one place: a move's share of the mover's clock, and what
//! a council's members are sent and the deadline the council keeps ([`super::budget`] plans a
//! player whose clock someone else keeps). docs/guide/clocks.md states the same formulas in
//! words.
//!
//! Why one place: the council, the USI player (how long it waits for an answer to `stop`),
//! council-usi, council-csa and the docs must agree on these numbers. The clock itself and its
//! rule are [`engine::clock`]'s: a move is in time when it takes less than the mover's main time
//! left plus this move's increment plus its byoyomi (plus, in `council-match`, the match's
//! `timeout_margin_ms`, a safety net the allocation never plans to use).

use std::time::Duration;

use engine::clock::{Clocks, SideClock};
use engine::types::Color;

/// Moves the main time is spread over when a clock is sent as one move's time
/// (`Budget::clock_as_movetime`, and [`move_share`]).
pub const MOVES_TO_GO: u64 = 30;

/// How long a player that sent `stop` at its deadline waits for the engine's `bestmove` before
/// it answers without it (the engine then owes that `bestmove`, see [`STOP_GRACE`]).
pub const STOP_ANSWER_WAIT: Duration = Duration::from_millis(30);

/// How long an engine has to answer a `stop` at all: one that has not sent its `bestmove` by
/// then is killed, and a council member sits out the rest of the game.
pub const STOP_GRACE: Duration = Duration::from_millis(1500);

/// The mover's share of its clock for one move, ms: the byoyomi and this move's increment
/// (credited before the move) plus a [`MOVES_TO_GO`]th of the main time left; always within the
/// clock's allowance.
pub fn move_share(side: &SideClock) -> u64 {
    let ms = |d: Duration| d.as_millis() as u64;
    ms(side.byoyomi) + ms(side.increment) + ms(side.remaining) / MOVES_TO_GO
}

/// How a council spends one move of its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    /// `T`: the council's whole time for the move ([`move_share`]).
    pub move_ms: u64,
    /// `R = min(reserve_ms, T / 4)`: kept back for stopping late members, voting and the
    /// answer's way back to the arbiter.
    pub reserve_ms: u64,
    /// `T - R`: what each member is sent, as a byoyomi-only clock (`btime 0 wtime 0 byoyomi
    /// T-R`); divided by the number of members under `fairness = "shared"`.
    pub member_ms: u64,
    /// `T - R/2`: from the request on, when the council stops waiting: members that have not
    /// answered are sent `stop` and the council votes with the ballots it has.
    pub deadline_ms: u64,
}

/// The allocation of one council move for `mover` on `clocks`, with `reserve_ms` the council's
/// reserve.
pub fn allocate(clocks: &Clocks, mover: Color, reserve_ms: u64) -> Allocation {
    let move_ms = move_share(clocks.side(mover)).max(1);
    let reserve_ms = reserve_ms.min(move_ms / 4);
    Allocation {
        move_ms,
        reserve_ms,
        member_ms: (move_ms - reserve_ms).max(1),
        deadline_ms: move_ms - reserve_ms / 2,
    }
}

impl Allocation {
    /// The clocks a member is sent, with `shared` members the time divided among `n` of them.
    pub fn member_clock(&self, shared: Option<usize>) -> Clocks {
        let n = shared.unwrap_or(1).max(1) as u64;
        Clocks::byoyomi_only(Duration::from_millis((self.member_ms / n).max(1)))
    }

    /// When the council stops waiting for its members, for a move asked at `asked`.
    pub fn deadline(&self, asked: tokio::time::Instant) -> tokio::time::Instant {
        asked + Duration::from_millis(self.deadline_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::config::DEFAULT_RESERVE_MS;

    fn clocks(btime_ms: u64, wtime_ms: u64, byoyomi_ms: u64, inc: u64) -> Clocks {
        let side = |ms: u64| SideClock {
            remaining: Duration::from_millis(ms),
            byoyomi: Duration::from_millis(byoyomi_ms),
            increment: Duration::from_millis(inc),
        };
        Clocks::new(side(btime_ms), side(wtime_ms))
    }

    #[test]
    fn byoyomi_the_council_keeps_a_reserve_and_members_get_the_rest() {
        let a = allocate(&clocks(0, 0, 1000, 0), Color::Sente, DEFAULT_RESERVE_MS);
        assert_eq!(
            a,
            Allocation {
                move_ms: 1000,
                reserve_ms: 100,
                member_ms: 900,
                deadline_ms: 950
            }
        );
        assert_eq!(a.member_clock(None), clocks(0, 0, 900, 0));
        assert_eq!(
            a.member_clock(Some(3)).side(Color::Gote).byoyomi,
            Duration::from_millis(300)
        );
        // A short byoyomi: the reserve is at most a quarter of it.
        let a = allocate(&clocks(0, 0, 200, 0), Color::Gote, DEFAULT_RESERVE_MS);
        assert_eq!((a.reserve_ms, a.member_ms, a.deadline_ms), (50, 150, 175));
        // Main time and byoyomi: a 30th of the main time on top.
        let a = allocate(&clocks(60_000, 3000, 500, 0), Color::Sente, 200);
        assert_eq!((a.move_ms, a.member_ms, a.deadline_ms), (2500, 2300, 2400));
    }

    #[test]
    fn fischer_and_sudden_death_spread_the_main_time_and_never_exceed_it() {
        // Fischer: a 30th of the main time plus the increment.
        let a = allocate(&clocks(30_000, 30_000, 0, 1000), Color::Sente, 100);
        assert_eq!((a.move_ms, a.member_ms, a.deadline_ms), (2000, 1900, 1950));
        // With little main time left the increment, credited before the move, is what is spent.
        let a = allocate(&clocks(150, 150, 0, 1000), Color::Gote, 100);
        assert_eq!((a.move_ms, a.reserve_ms, a.member_ms), (1005, 100, 905));
        // Sudden death: a 30th of what is left.
        let a = allocate(&clocks(0, 90_000, 0, 0), Color::Gote, 100);
        assert_eq!((a.move_ms, a.member_ms), (3000, 2900));
        // An empty clock still asks for a millisecond.
        let a = allocate(&clocks(0, 0, 0, 0), Color::Sente, 100);
        assert_eq!(
            (a.move_ms, a.reserve_ms, a.member_ms, a.deadline_ms),
            (1, 0, 1, 1)
        );
        // The share never exceeds the allowance.
        for (t, b, i) in [(0, 0, 0), (1, 0, 0), (29, 0, 1), (150, 0, 1000), (9, 9, 9)] {
            let c = clocks(t, t, b, i);
            let side = c.side(Color::Sente);
            assert!(Duration::from_millis(move_share(side)) <= side.allowance());
        }
    }
}
