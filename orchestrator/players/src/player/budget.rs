//! What one move may cost ([`Budget`]: per-move limits and both sides' clocks as the move's `go`
//! states them), and the [`plan`] of a move whose clock someone else keeps (a GUI's `go` for
//! council-usi, a CSA server's clock for council-csa): the keeper's allowance is the deadline,
//! and the player is handed the clock less a safety margin. The margin rule is one: a fifth of
//! the allowance, at most the keeper's margin ([`safety`]); council-csa keeps up to a second,
//! council-usi its `MarginMs` option.

use std::time::Duration;

use council_schema::config::Limits;
use engine::clock::{Clocks, TimeControl};
use engine::types::Color;

use super::time;

/// What one move may cost: per-move limits and, under a clock, both sides' clocks as the move's
/// `go` states them (shogi's rule, [`engine::clock`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub clock: Option<Clocks>,
    /// Think until stopped (a GUI's `go infinite`): no time limit of its own; whoever asked
    /// ends it.
    pub infinite: bool,
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
            infinite: false,
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
            infinite: self.infinite,
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
    /// byoyomi, [`engine::clock::SideClock::allowance`]), whichever is shorter. `None` for an
    /// infinite budget.
    pub fn time_allowance(&self, mover: Color) -> Option<Duration> {
        if self.infinite {
            return None;
        }
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

/// The most kept back from a clock someone else keeps, for the player's own work
/// ([`safety`]): council-csa's margin.
pub const MAX_SAFETY: Duration = Duration::from_millis(1000);

/// How long an infinite think may last at most (a GUI's `go infinite` that is never stopped):
/// a day, so every wait still has a deadline.
pub const INFINITE_THINK: Duration = Duration::from_secs(24 * 60 * 60);

/// What a player whose clock someone else keeps gets for one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub budget: Budget,
    /// From the request to the hard deadline of the move: the keeper's allowance.
    pub deadline: Duration,
}

/// The margin kept back from an allowance: a fifth of it, at most `margin` (the keeper's:
/// [`MAX_SAFETY`] for a CSA server, `MarginMs` for a GUI). The one margin rule.
pub fn safety(allowance: Duration, margin: Duration) -> Duration {
    (allowance / 5).min(margin)
}

/// [`plan_with_margin`] with a CSA server's margin, [`MAX_SAFETY`].
pub fn plan(budget: Budget, move_timeout_ms: u64, mover: Color) -> Plan {
    plan_with_margin(budget, move_timeout_ms, mover, MAX_SAFETY)
}

/// The plan for `mover` of a move with `budget` (per-move limits, and the clocks a GUI or a
/// server keeps), keeping back at most `margin`: the deadline is the budget's allowance, and
/// the player is handed the budget less its [`safety`] margin, so members that use their whole
/// budget (USI engines told `byoyomi N` use nearly all of it) answer before the council's
/// deadline and the council before the keeper's flag falls. A budget with no limit at all
/// thinks for `move_timeout_ms`; an infinite one until it is stopped (at most
/// [`INFINITE_THINK`]).
pub fn plan_with_margin(
    budget: Budget,
    move_timeout_ms: u64,
    mover: Color,
    margin: Duration,
) -> Plan {
    let mut budget = budget;
    if budget.infinite {
        return Plan {
            budget,
            deadline: INFINITE_THINK,
        };
    }
    if budget == Budget::default() {
        budget.movetime_ms = Some(move_timeout_ms.max(1));
    }
    match budget.time_allowance(mover) {
        Some(allowance) => Plan {
            budget: budget.less(mover, safety(allowance, margin)),
            deadline: allowance,
        },
        None => Plan {
            budget,
            deadline: Duration::from_millis(move_timeout_ms),
        },
    }
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
            infinite: false,
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

    #[test]
    fn a_keepers_clock_keeps_a_safety_margin_and_its_allowance_is_the_deadline() {
        // Byoyomi 2 s: a fifth kept back.
        let budget = Budget {
            nodes: Some(20_000),
            clock: Some(clock(0, 0, 2000, 0).clock.expect("a clock")),
            ..Budget::default()
        };
        let p = plan(budget, 60_000, Color::Sente);
        assert_eq!(p.budget.nodes, Some(20_000));
        assert_eq!(p.deadline, Duration::from_millis(2000));
        let c = p.budget.clock.expect("the keeper's clock");
        assert_eq!(c.side(Color::Sente).byoyomi, Duration::from_millis(1600));
        // Main time and an increment: the allowance counts the increment, and the margin
        // (at most a second) comes out of the main time.
        let budget = Budget {
            clock: Some(Clocks::new(
                SideClock {
                    remaining: Duration::from_millis(100_000),
                    byoyomi: Duration::ZERO,
                    increment: Duration::from_millis(1000),
                },
                SideClock {
                    remaining: Duration::from_millis(30_000),
                    byoyomi: Duration::ZERO,
                    increment: Duration::from_millis(1000),
                },
            )),
            ..Budget::default()
        };
        let p = plan(budget, 60_000, Color::Gote);
        assert_eq!(p.deadline, Duration::from_millis(31_000));
        let c = p.budget.clock.expect("clock");
        assert_eq!(c.side(Color::Gote).remaining, Duration::from_millis(29_000));
        assert_eq!(c.side(Color::Gote).increment, Duration::from_millis(1000));
        assert_eq!(
            c.side(Color::Sente).remaining,
            Duration::from_millis(100_000)
        );
        // No limit at all: the move timeout, less its margin.
        let p = plan(Budget::default(), 10_000, Color::Sente);
        assert_eq!(p.budget.movetime_ms, Some(9000));
        assert_eq!(p.deadline, Duration::from_millis(10_000));
        // Only nodes: no time, no margin, the move timeout as the deadline.
        let nodes = Budget {
            nodes: Some(500),
            ..Budget::default()
        };
        let p = plan(nodes, 60_000, Color::Sente);
        assert_eq!(
            (p.budget, p.deadline),
            (nodes, Duration::from_millis(60_000))
        );
    }

    #[test]
    fn a_guis_margin_is_kept_up_to_a_fifth_of_the_allowance_and_infinite_has_no_limit() {
        let byoyomi = |ms| Budget {
            clock: clock(0, 0, ms, 0).clock,
            ..Budget::default()
        };
        let ms = Duration::from_millis;
        // 50 ms of a 1 s byoyomi; a fifth of a short one.
        let p = plan_with_margin(byoyomi(1000), 60_000, Color::Sente, ms(50));
        let c = p.budget.clock.expect("clock");
        assert_eq!(
            (c.side(Color::Sente).byoyomi, p.deadline),
            (ms(950), ms(1000))
        );
        let p = plan_with_margin(byoyomi(100), 60_000, Color::Gote, ms(50));
        let c = p.budget.clock.expect("clock");
        assert_eq!(c.side(Color::Gote).byoyomi, ms(80));
        // Fischer: the margin comes out of the main time, the increment stays.
        let p = plan_with_margin(clock(2000, 2000, 0, 1000), 60_000, Color::Sente, ms(50));
        let c = *p.budget.clock.expect("clock").side(Color::Sente);
        assert_eq!(
            (c.remaining, c.increment, p.deadline),
            (ms(1950), ms(1000), ms(3000))
        );
        // Infinite: no time of its own, the longest deadline, and it stays infinite when shared.
        let inf = Budget {
            infinite: true,
            ..Budget::default()
        };
        assert_eq!(inf.time_allowance(Color::Sente), None);
        let p = plan_with_margin(inf, 10_000, Color::Sente, ms(50));
        assert_eq!((p.budget, p.deadline), (inf, INFINITE_THINK));
        assert!(inf.shared(3).infinite);
    }
}
