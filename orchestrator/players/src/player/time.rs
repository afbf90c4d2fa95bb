//! Time for one move under a clock, in one place: what a council's members are sent, the
//! deadline the council keeps, and the reserve it holds back (docs/guide/clocks.md states the
//! same formula in words).
//!
//! Why one place: the council, the USI player (how long it waits for an answer to `stop`) and the
//! docs must agree on these numbers, and the arbiter's clock (the play crate's `game::adjudicate::Clock`) is
//! the rule they serve: a move is in time when it takes at most the mover's main time left plus
//! its byoyomi (plus the match's `timeout_margin_ms`, a safety net the allocation never plans to
//! use).

use std::time::Duration;

/// Moves the main time is spread over when a clock is sent as one move's time
/// (`Budget::clock_as_movetime`, and [`move_share`]).
pub(crate) const MOVES_TO_GO: u64 = 30;

/// The arbiter's clock as a USI `go` states it, milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockState {
    pub btime_ms: u64,
    pub wtime_ms: u64,
    pub byoyomi_ms: u64,
    pub binc_ms: u64,
    pub winc_ms: u64,
}

/// How long a player that sent `stop` at its deadline waits for the engine's `bestmove` before
/// it answers without it (the engine then owes that `bestmove`, see [`STOP_GRACE`]).
pub(crate) const STOP_ANSWER_WAIT: Duration = Duration::from_millis(30);

/// How long an engine has to answer a `stop` at all: one that has not sent its `bestmove` by
/// then is killed, and a council member sits out the rest of the game.
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(1500);

/// The mover's share of its clock for one move, ms: the byoyomi and the increment plus a
/// [`MOVES_TO_GO`]th of the main time left, never more than the main time left plus the byoyomi
/// (the arbiter's allowance; an increment is credited only after the move).
pub fn move_share(c: &ClockState, sente: bool) -> u64 {
    let (time, inc) = if sente {
        (c.btime_ms, c.binc_ms)
    } else {
        (c.wtime_ms, c.winc_ms)
    };
    (c.byoyomi_ms + inc + time / MOVES_TO_GO).min(time + c.byoyomi_ms)
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

/// The allocation of one council move for the side to move (`sente` or not) on `clock`, with
/// `reserve_ms` the council's reserve.
pub fn allocate(clock: &ClockState, sente: bool, reserve_ms: u64) -> Allocation {
    let move_ms = move_share(clock, sente).max(1);
    let reserve_ms = reserve_ms.min(move_ms / 4);
    Allocation {
        move_ms,
        reserve_ms,
        member_ms: (move_ms - reserve_ms).max(1),
        deadline_ms: move_ms - reserve_ms / 2,
    }
}

impl Allocation {
    /// The clock a member is sent, with `shared` members the time divided among `n` of them.
    pub fn member_clock(&self, shared: Option<usize>) -> ClockState {
        let n = shared.unwrap_or(1).max(1) as u64;
        ClockState {
            byoyomi_ms: (self.member_ms / n).max(1),
            ..ClockState::default()
        }
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

    fn clock(btime_ms: u64, wtime_ms: u64, byoyomi_ms: u64, inc: u64) -> ClockState {
        ClockState {
            btime_ms,
            wtime_ms,
            byoyomi_ms,
            binc_ms: inc,
            winc_ms: inc,
        }
    }

    #[test]
    fn byoyomi_the_council_keeps_a_reserve_and_members_get_the_rest() {
        let a = allocate(&clock(0, 0, 1000, 0), true, DEFAULT_RESERVE_MS);
        assert_eq!(
            a,
            Allocation {
                move_ms: 1000,
                reserve_ms: 100,
                member_ms: 900,
                deadline_ms: 950
            }
        );
        assert_eq!(a.member_clock(None), clock(0, 0, 900, 0));
        assert_eq!(a.member_clock(Some(3)).byoyomi_ms, 300);
        // A short byoyomi: the reserve is at most a quarter of it.
        let a = allocate(&clock(0, 0, 200, 0), false, DEFAULT_RESERVE_MS);
        assert_eq!((a.reserve_ms, a.member_ms, a.deadline_ms), (50, 150, 175));
        // Main time and byoyomi: a 30th of the main time on top.
        let a = allocate(&clock(60_000, 3000, 500, 0), true, 200);
        assert_eq!((a.move_ms, a.member_ms, a.deadline_ms), (2500, 2300, 2400));
    }

    #[test]
    fn fischer_and_sudden_death_spread_the_main_time_and_never_exceed_it() {
        // Fischer: a 30th of the main time plus the increment.
        let a = allocate(&clock(30_000, 30_000, 0, 1000), true, 100);
        assert_eq!((a.move_ms, a.member_ms, a.deadline_ms), (2000, 1900, 1950));
        // With little main time left the increment is not spent before it is credited.
        let a = allocate(&clock(150, 150, 0, 1000), false, 100);
        assert_eq!((a.move_ms, a.reserve_ms, a.member_ms), (150, 37, 113));
        // Sudden death: a 30th of what is left.
        let a = allocate(&clock(0, 90_000, 0, 0), false, 100);
        assert_eq!((a.move_ms, a.member_ms), (3000, 2900));
        // An empty clock still asks for a millisecond.
        let a = allocate(&clock(0, 0, 0, 0), true, 100);
        assert_eq!(
            (a.move_ms, a.reserve_ms, a.member_ms, a.deadline_ms),
            (1, 0, 1, 1)
        );
    }
}
