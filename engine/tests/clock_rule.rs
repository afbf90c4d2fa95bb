//! The one clock (`engine::clock`) held against shogi-server's own rule, written out here as its
//! `ChessClock` states it (floodgate, WCSC and Denryu-sen run it): for a move charged `t` whole
//! units, time is up when `mytime - t + byoyomi + fischer <= 0` (when the game has a clock at
//! all); otherwise `mytime` becomes `max(0, mytime + fischer - t)`. Random time controls and
//! move times, in random units: the same moves are late and the clocks agree after every move.

use std::time::Duration;

use engine::clock::{SideClock, TimeControl};
use proptest::prelude::*;

/// shogi-server's clock of one player, in whole units of its `Time_Unit`.
struct ServerClock {
    mytime: i64,
    total: i64,
    byoyomi: i64,
    fischer: i64,
}

impl ServerClock {
    fn timeout(&self, t: i64) -> bool {
        self.mytime - t + self.byoyomi + self.fischer <= 0
            && (self.total > 0 || self.byoyomi > 0 || self.fischer > 0)
    }

    fn process_time(&mut self, t: i64) {
        self.mytime += self.fischer;
        self.mytime -= t;
        if self.mytime < 0 {
            self.mytime = 0;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_same_moves_are_late_as_on_shogi_server(
        total in 0u64..900,
        byoyomi in 0u64..60,
        fischer in 0u64..30,
        unit_ms in prop::sample::select(vec![1u64, 1000, 60_000]),
        moves in prop::collection::vec(0u64..90, 1..150),
    ) {
        let control = TimeControl {
            main: Duration::from_millis(total * unit_ms),
            byoyomi: Duration::from_millis(byoyomi * unit_ms),
            increment: Duration::from_millis(fischer * unit_ms),
        };
        let mut server = ServerClock {
            mytime: total as i64,
            total: total as i64,
            byoyomi: byoyomi as i64,
            fischer: fischer as i64,
        };
        if control.is_unlimited() {
            // No clock at all: the server never calls time, and the workspace keeps no clock.
            prop_assert!(moves.iter().all(|&t| !server.timeout(t as i64)));
            return Ok(());
        }
        let mut ours = SideClock::new(control);
        for (n, &t) in moves.iter().enumerate() {
            let late = server.timeout(t as i64);
            let charged = ours.charge(Duration::from_millis(t * unit_ms), Duration::ZERO);
            prop_assert_eq!(charged.is_err(), late, "move {} of {} units", n, t);
            if late {
                break;
            }
            server.process_time(t as i64);
            prop_assert_eq!(
                ours.remaining,
                Duration::from_millis(server.mytime as u64 * unit_ms),
                "after move {}", n
            );
        }
    }

    /// WCSC's wording of the same rule: the n-th move loses when the time used by the first n
    /// moves reaches the main time plus n increments (without byoyomi).
    #[test]
    fn the_nth_move_loses_when_the_time_used_reaches_main_plus_n_increments(
        total in 1u64..900,
        fischer in 0u64..30,
        moves in prop::collection::vec(0u64..60, 1..150),
    ) {
        let mut ours = SideClock::new(TimeControl {
            main: Duration::from_secs(total),
            byoyomi: Duration::ZERO,
            increment: Duration::from_secs(fischer),
        });
        let mut used = 0;
        for (i, &t) in moves.iter().enumerate() {
            let n = i as u64 + 1;
            used += t;
            let late = ours.charge(Duration::from_secs(t), Duration::ZERO).is_err();
            prop_assert_eq!(late, used >= total + n * fischer, "move {}", n);
            if late {
                break;
            }
        }
    }
}
