//! Shogi's clock, as the servers rule it and USI states it: a [`TimeControl`] says what a side
//! gets (main time, byoyomi, Fischer increment), a [`SideClock`] is one side's clock as it stands
//! before its next move, and [`Clocks`] holds both sides' and is what a `go` line says.
//!
//! The rule is shogi-server's (floodgate, WCSC, Denryu-sen): the increment is credited *before*
//! each move. A move that took `t` is late when `remaining - t + byoyomi + increment <= 0`;
//! otherwise `remaining` becomes `max(0, remaining + increment - t)` (byoyomi is never banked).
//! WCSC words the same rule as "the n-th move loses when the time used so far reaches
//! main + n × increment". In USI's `go`, `btime`/`wtime` are the main time *before* this move's
//! increment, `binc`/`winc` the increments and `byoyomi` the mover's byoyomi, so an engine may
//! spend up to `btime + binc + byoyomi` on the move (less than that: at it the move is late).
//!
//! Why one type in this crate: the built-in engine's time manager, the arbiter, a council
//! dividing a move among its members, council-usi (from a GUI's `go`) and council-csa (from a
//! server's `Time` section and its `,T` echoes) all hold the same clock and apply the same rule;
//! every budget, margin and member's share derives from these values, and nothing rebuilds a
//! clock from text. The rule is shogi's, like the rest of this crate.

use std::time::Duration;

use crate::types::{ByColor, Color};

/// What one side gets: a main time, then a byoyomi for every move once the main time is spent,
/// and an increment credited before every move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    pub main: Duration,
    pub byoyomi: Duration,
    pub increment: Duration,
}

impl TimeControl {
    /// No time at all: shogi-server plays such a game without a clock.
    pub fn is_unlimited(&self) -> bool {
        *self == TimeControl::default()
    }
}

/// One side's clock as it stands before its next move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideClock {
    /// Main time left, before this move's increment (USI's `btime`/`wtime`).
    pub remaining: Duration,
    pub byoyomi: Duration,
    pub increment: Duration,
}

/// A move that took its side's whole allowance or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Late {
    /// How far past the allowance the move went (zero: it took the allowance exactly).
    pub over: Duration,
}

impl SideClock {
    /// The clock at the start of a game under `control`.
    pub fn new(control: TimeControl) -> Self {
        SideClock {
            remaining: control.main,
            byoyomi: control.byoyomi,
            increment: control.increment,
        }
    }

    /// The time the next move has: a move that takes less is in time, one that takes this long
    /// or longer is late. Main time left plus this move's increment plus the byoyomi.
    pub fn allowance(&self) -> Duration {
        self.remaining + self.increment + self.byoyomi
    }

    /// Charge a move that took `spent`, shogi-server's way: late when `spent` reaches the
    /// allowance plus `grace` (the arbiter's safety net for its own overhead; zero for a server's
    /// clock), otherwise the increment is credited, `spent` taken off, and what the main time
    /// cannot pay the byoyomi absorbs.
    ///
    /// # Errors
    /// [`Late`] when the move was late; the clock is then left as it was.
    pub fn charge(&mut self, spent: Duration, grace: Duration) -> Result<(), Late> {
        let allowance = self.allowance();
        if spent >= allowance + grace {
            return Err(Late {
                over: spent - allowance,
            });
        }
        self.remaining = (self.remaining + self.increment).saturating_sub(spent);
        Ok(())
    }

    /// This clock with `keep` held back from its allowance, for what the thinker never sees
    /// (a network round trip, the council's own work): taken from the byoyomi first, then from
    /// the main time, then from the increment. The one margin rule of the workspace.
    pub fn less(&self, keep: Duration) -> SideClock {
        let from_byoyomi = keep.min(self.byoyomi);
        let keep = keep - from_byoyomi;
        let from_main = keep.min(self.remaining);
        let keep = keep - from_main;
        SideClock {
            remaining: self.remaining - from_main,
            byoyomi: self.byoyomi - from_byoyomi,
            increment: self.increment.saturating_sub(keep),
        }
    }

    /// This clock divided among `n` thinkers at once.
    fn shared(&self, n: u32) -> SideClock {
        let n = n.max(1);
        SideClock {
            remaining: self.remaining / n,
            byoyomi: self.byoyomi / n,
            increment: self.increment / n,
        }
    }
}

/// Both sides' clocks: what the arbiter keeps and what a USI `go` states (`Go::clocks`,
/// `Go::state_clocks` in the USI protocol module).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clocks {
    sides: ByColor<SideClock>,
}

impl Clocks {
    pub fn new(sente: SideClock, gote: SideClock) -> Self {
        Clocks {
            sides: ByColor { sente, gote },
        }
    }

    /// Both sides at the start of a game under the same `control`.
    pub fn start(control: TimeControl) -> Self {
        let side = SideClock::new(control);
        Clocks::new(side, side)
    }

    /// A byoyomi of `byoyomi` a move for both sides and nothing else: what a council's member is
    /// sent for its share of one move.
    pub fn byoyomi_only(byoyomi: Duration) -> Self {
        Clocks::start(TimeControl {
            byoyomi,
            ..TimeControl::default()
        })
    }

    pub fn side(&self, color: Color) -> &SideClock {
        &self.sides[color]
    }

    pub fn side_mut(&mut self, color: Color) -> &mut SideClock {
        &mut self.sides[color]
    }

    /// `keep` held back from `mover`'s clock ([`SideClock::less`]); the other side's is as it is.
    pub fn less(&self, mover: Color, keep: Duration) -> Self {
        let mut c = *self;
        *c.side_mut(mover) = self.side(mover).less(keep);
        c
    }

    /// Every time divided among `n` thinkers at once (a council's members under
    /// `fairness = "shared"`).
    pub fn shared(&self, n: u32) -> Self {
        Clocks {
            sides: self.sides.map(|s| s.shared(n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    fn control(main: u64, byoyomi: u64, increment: u64) -> TimeControl {
        TimeControl {
            main: ms(main),
            byoyomi: ms(byoyomi),
            increment: ms(increment),
        }
    }

    #[test]
    fn main_time_then_byoyomi_which_is_never_banked() {
        let mut c = SideClock::new(control(1000, 500, 0));
        assert_eq!(c.allowance(), ms(1500));
        c.charge(ms(800), Duration::ZERO).expect("in time");
        assert_eq!(c.remaining, ms(200));
        // 200 ms main time + 500 ms byoyomi: 650 ms is in time and the main time is gone.
        c.charge(ms(650), Duration::ZERO).expect("in byoyomi");
        assert_eq!(c.remaining, Duration::ZERO);
        assert_eq!(c.allowance(), ms(500));
        // The whole byoyomi is late (shogi-server: remaining - t + byoyomi <= 0), and so is more.
        assert_eq!(c.charge(ms(500), Duration::ZERO), Err(Late { over: ms(0) }));
        assert_eq!(c.charge(ms(600), ms(50)), Err(Late { over: ms(100) }));
        // Within the grace it is not, and the clock stays at zero.
        c.charge(ms(520), ms(50)).expect("within the grace");
        assert_eq!(c.remaining, Duration::ZERO);
    }

    #[test]
    fn the_increment_is_credited_before_the_move() {
        // shogi-server accepted a 6.3 s first move at 3 s + 5 s Fischer (`+7776FU,T6`).
        let mut c = SideClock::new(control(3000, 0, 5000));
        assert_eq!(c.allowance(), ms(8000));
        c.charge(ms(6000), Duration::ZERO)
            .expect("the increment is spendable now");
        assert_eq!(c.remaining, ms(2000));
        c.charge(ms(1000), Duration::ZERO).expect("in time");
        assert_eq!(c.remaining, ms(6000));
        assert_eq!(
            c.charge(ms(11_000), Duration::ZERO),
            Err(Late { over: ms(0) })
        );
    }

    #[test]
    fn a_margin_comes_from_the_byoyomi_then_the_main_time_then_the_increment() {
        let c = SideClock {
            remaining: ms(6000),
            byoyomi: ms(3000),
            increment: ms(1000),
        };
        assert_eq!(c.less(ms(500)).byoyomi, ms(2500));
        let l = c.less(ms(4000));
        assert_eq!(
            (l.byoyomi, l.remaining, l.increment),
            (ms(0), ms(5000), ms(1000))
        );
        let l = c.less(ms(9500));
        assert_eq!(
            (l.byoyomi, l.remaining, l.increment),
            (ms(0), ms(0), ms(500))
        );
        assert_eq!(c.less(ms(20_000)).allowance(), Duration::ZERO);
        for keep in [0, 1, 999, 3000, 9999, 10_000] {
            assert_eq!(
                c.less(ms(keep)).allowance(),
                c.allowance().saturating_sub(ms(keep))
            );
        }
    }

    #[test]
    fn clocks_are_shared_among_thinkers() {
        let clocks = Clocks::new(
            SideClock::new(control(57_000, 0, 2000)),
            SideClock::new(control(30_000, 0, 1000)),
        );
        let half = clocks.shared(2);
        assert_eq!(half.side(Color::Sente).remaining, ms(28_500));
        assert_eq!(half.side(Color::Gote).increment, ms(500));
        let kept = clocks.less(Color::Gote, ms(1500));
        assert_eq!(kept.side(Color::Gote).remaining, ms(28_500));
        assert_eq!(kept.side(Color::Sente), clocks.side(Color::Sente));
    }

    #[test]
    fn wcsc_fifteen_minutes_plus_five_seconds() {
        // WCSC: 15 min + 5 s a move; the n-th move loses when the time used so far reaches
        // 15 min + n × 5 s. Forty moves of 25 s use 1000 s, under 900 + 40 × 5 = 1100 s.
        let mut c = SideClock::new(control(900_000, 0, 5000));
        for _ in 0..40 {
            c.charge(ms(25_000), Duration::ZERO).expect("in time");
        }
        assert_eq!(c.remaining, ms(100_000));
        // The 41st move has 100 s + 5 s: 104.999 s is in time, 105 s is not.
        let mut in_time = c;
        assert!(in_time.charge(ms(104_999), Duration::ZERO).is_ok());
        assert!(c.charge(ms(105_000), Duration::ZERO).is_err());
    }
}
