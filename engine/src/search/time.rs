//! Time management: how long to think for one move, from the USI clock.
//!
//! Two budgets: a soft one (do not start another iteration past it; iterations roughly
//! triple in cost, so we stop early rather than waste half-finished work) and a hard one (abort
//! the search). Invariant: the hard budget never exceeds what the clock allows minus a safety
//! margin, so the engine never loses on time; with byoyomi it uses the byoyomi fully but for
//! the margin, since byoyomi time cannot be saved for later.
//! See: chessprogramming wiki "Time Management".

use super::limits::Limits;
use crate::types::Color;
use std::time::Duration;

/// Soft and hard thinking budgets for one search; `None` means unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

/// Default safety margin: GUI round trip and process scheduling (moves took up to 140 ms longer
/// than the hard budget with 2 cores shared by ~9 busy processes; on a quiet machine a few ms).
/// Every ms kept back is thinking time lost, so busier set-ups raise `ByoyomiMargin` instead.
pub const DEFAULT_MARGIN_MS: u64 = 150;

/// Works out the budget for the side to move, `mover`.
pub(crate) fn budget(limits: &Limits, mover: Color, margin_ms: u64) -> Budget {
    if limits.infinite {
        return Budget {
            soft: None,
            hard: None,
        };
    }
    let mut soft: Option<u64> = None;
    let mut hard: Option<u64> = None;
    if let Some(mt) = limits.movetime {
        let ms = (mt.as_millis() as u64)
            .saturating_sub(margin_ms.min(mt.as_millis() as u64 / 4))
            .max(1);
        soft = Some(ms);
        hard = Some(ms);
    }
    if let Some(clocks) = &limits.clock {
        let side = clocks.side(mover);
        let remaining = side.remaining.as_millis() as u64;
        let inc = side.increment.as_millis() as u64;
        let byoyomi = side.byoyomi.as_millis() as u64;
        // What we may spend on this move at most: the clock's allowance (main time, this move's
        // increment, which shogi credits before the move, and the byoyomi) less the margin.
        // With very short clocks the margin shrinks to a third of the time, rather than leaving
        // nothing to think with.
        let available = side.allowance().as_millis() as u64;
        let safe_total = available.saturating_sub(margin_ms.min(available / 3));
        // Expect the game to go on for a while: spread the main time over ~40 more moves.
        let share = remaining / 40 + inc * 3 / 4;
        let clock_soft = if byoyomi > 0 {
            // Byoyomi cannot be banked: plan to use most of it every move.
            (share + byoyomi * 7 / 10).min(safe_total)
        } else {
            share.min(safe_total)
        };
        let clock_hard = if byoyomi > 0 {
            (share * 3 + byoyomi)
                .min(remaining / 3 + byoyomi)
                .min(safe_total)
        } else {
            (share * 4).min(remaining / 4 + inc * 3 / 4).min(safe_total)
        };
        // Byoyomi only: nothing to save for later moves, so never stop before the hard limit.
        let clock_soft = if remaining == 0 && byoyomi > 0 {
            clock_hard_for_byoyomi(byoyomi, safe_total) * 2
        } else {
            clock_soft
        };
        let clock_soft = clock_soft.max(1);
        let clock_hard = clock_hard.max(clock_soft.min(safe_total.max(1)));
        soft = Some(soft.map_or(clock_soft, |s| s.min(clock_soft)));
        hard = Some(hard.map_or(clock_hard, |h| h.min(clock_hard)));
    }
    Budget {
        soft: soft.map(Duration::from_millis),
        hard: hard.map(Duration::from_millis),
    }
}

fn clock_hard_for_byoyomi(byoyomi: u64, safe_total: u64) -> u64 {
    byoyomi.min(safe_total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clocks, SideClock};

    fn clock(btime: u64, wtime: u64, byoyomi: u64, inc: u64) -> Limits {
        let side = |time| SideClock {
            remaining: Duration::from_millis(time),
            byoyomi: Duration::from_millis(byoyomi),
            increment: Duration::from_millis(inc),
        };
        Limits {
            clock: Some(Clocks::new(side(btime), side(wtime))),
            ..Limits::default()
        }
    }

    #[test]
    fn byoyomi_only_stays_inside_the_byoyomi() {
        let b = budget(&clock(0, 0, 1000, 0), Color::Sente, DEFAULT_MARGIN_MS);
        let hard = b.hard.expect("hard").as_millis();
        assert!(hard <= u128::from(1000 - DEFAULT_MARGIN_MS), "{hard}");
        assert!(hard >= 500, "{hard}");
        assert!(
            b.soft.expect("soft") >= b.hard.expect("hard"),
            "byoyomi is used to the end"
        );
    }

    #[test]
    fn main_time_is_spread_and_never_overspent() {
        let b = budget(&clock(60_000, 1_000, 0, 0), Color::Sente, DEFAULT_MARGIN_MS);
        assert!(b.hard.expect("hard").as_millis() <= 15_000);
        assert!(b.soft.expect("soft").as_millis() >= 1_000);
        // Gote has one second left and no byoyomi: still within it.
        let b = budget(&clock(60_000, 1_000, 0, 0), Color::Gote, DEFAULT_MARGIN_MS);
        assert!(b.hard.expect("hard").as_millis() <= 800);
    }

    #[test]
    fn increment_is_used() {
        let without = budget(
            &clock(10_000, 10_000, 0, 0),
            Color::Sente,
            DEFAULT_MARGIN_MS,
        );
        let with = budget(
            &clock(10_000, 10_000, 0, 2_000),
            Color::Sente,
            DEFAULT_MARGIN_MS,
        );
        assert!(with.soft > without.soft);
    }

    #[test]
    fn short_byoyomi_still_thinks() {
        // A 200 ms byoyomi is shorter than the default margin: think about 130 ms, not 1 ms.
        let b = budget(&clock(0, 0, 200, 0), Color::Sente, DEFAULT_MARGIN_MS);
        let hard = b.hard.expect("hard").as_millis();
        assert!((100..=150).contains(&hard), "{hard}");
    }

    #[test]
    fn the_increment_is_spendable_on_the_move_it_is_credited_for() {
        // 400 ms left and a 10 s increment: shogi credits the increment before the move, so
        // the move may use most of it, and never the whole 10.4 s.
        let b = budget(&clock(400, 400, 0, 10_000), Color::Sente, DEFAULT_MARGIN_MS);
        let hard = b.hard.expect("hard").as_millis();
        assert!(hard > 5_000, "{hard}");
        assert!(hard <= 10_400 - u128::from(DEFAULT_MARGIN_MS), "{hard}");
    }

    #[test]
    fn infinite_has_no_budget() {
        let limits = Limits {
            infinite: true,
            ..clock(0, 0, 1000, 0)
        };
        assert_eq!(
            budget(&limits, Color::Sente, DEFAULT_MARGIN_MS),
            Budget {
                soft: None,
                hard: None
            }
        );
    }
}
