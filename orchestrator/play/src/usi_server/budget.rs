//! A GUI's `go` as the player's [`Budget`] and deadline.
//!
//! The GUI keeps the clock, so its `btime wtime byoyomi binc winc` replace any clock the config
//! gives the player; its `nodes depth movetime` replace the config's per-move limits of the same
//! kind, which otherwise stay (a council at a node limit keeps it under the GUI's clock). A `go`
//! that leaves no limit at all (`go infinite`, a bare `go` with a config without per-move
//! limits) thinks for the player's `move_timeout_ms`. A council's fairness then applies to
//! this budget exactly as in `council-match`.
//!
//! The deadline is the GUI's: the time the `go` allows (`Budget::time_allowance`, main time
//! left plus byoyomi, or the movetime). The budget handed to the player is that time less a
//! [`safety`] margin, so members that use their whole budget (USI engines told `byoyomi N` use
//! nearly all of it) answer before the council's members' deadline and the council before the
//! GUI's flag falls.

use std::time::Duration;

use engine::usi::protocol::Go;

use council_players::player::{Budget, ClockState};
use council_schema::config::Limits;

/// The most kept back from the GUI's time for the council's own work.
pub(crate) const MAX_SAFETY: Duration = Duration::from_millis(1000);

/// What the player gets for one `go`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub budget: Budget,
    /// From the `go` to the hard deadline of the move.
    pub deadline: Duration,
}

/// The margin kept back from an allowance: a fifth of it, at most [`MAX_SAFETY`].
pub(crate) fn safety(allowance: Duration) -> Duration {
    (allowance / 5).min(MAX_SAFETY)
}

/// The plan for `go` for the side to move (`sente`), a player configured with `limits` and
/// `move_timeout_ms`.
pub(crate) fn plan(limits: &Limits, move_timeout_ms: u64, go: &Go, sente: bool) -> Plan {
    let mut budget = Budget::per_move(limits);
    budget.nodes = go.nodes.or(budget.nodes);
    budget.depth = go.depth.or(budget.depth);
    budget.movetime_ms = go.movetime.or(budget.movetime_ms);
    let gui_clock = go.btime.is_some()
        || go.wtime.is_some()
        || go.byoyomi.is_some()
        || go.binc.is_some()
        || go.winc.is_some();
    if gui_clock {
        budget.clock = Some(ClockState {
            btime_ms: go.btime.unwrap_or(0),
            wtime_ms: go.wtime.unwrap_or(0),
            byoyomi_ms: go.byoyomi.unwrap_or(0),
            binc_ms: go.binc.unwrap_or(0),
            winc_ms: go.winc.unwrap_or(0),
        });
    }
    if budget == Budget::default() {
        budget.movetime_ms = Some(move_timeout_ms.max(1));
    }
    match budget.time_allowance(sente) {
        Some(allowance) => {
            let keep = safety(allowance).as_millis() as u64;
            if let Some(t) = &mut budget.movetime_ms {
                *t = t.saturating_sub(keep).max(1);
            }
            if let Some(c) = &mut budget.clock {
                let from_byoyomi = keep.min(c.byoyomi_ms);
                c.byoyomi_ms -= from_byoyomi;
                let main = if sente {
                    &mut c.btime_ms
                } else {
                    &mut c.wtime_ms
                };
                *main = main.saturating_sub(keep - from_byoyomi);
            }
            Plan {
                budget,
                deadline: allowance,
            }
        }
        None => Plan {
            budget,
            deadline: Duration::from_millis(move_timeout_ms),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guis_clock_replaces_the_configs_and_keeps_a_safety_margin() {
        let limits = Limits {
            nodes: Some(20_000),
            byoyomi_ms: Some(5000),
            ..Limits::default()
        };
        let go = Go {
            btime: Some(0),
            wtime: Some(0),
            byoyomi: Some(2000),
            ..Go::default()
        };
        let p = plan(&limits, 60_000, &go, true);
        assert_eq!(
            p.budget.nodes,
            Some(20_000),
            "the config's node limit stays"
        );
        assert_eq!(p.deadline, Duration::from_millis(2000));
        let c = p.budget.clock.expect("the GUI's clock");
        assert_eq!((c.byoyomi_ms, c.btime_ms), (1600, 0));

        // Main time only: the margin comes out of the mover's main time.
        let go = Go {
            btime: Some(100_000),
            wtime: Some(30_000),
            binc: Some(1000),
            winc: Some(1000),
            ..Go::default()
        };
        let p = plan(&Limits::default(), 60_000, &go, false);
        assert_eq!(p.deadline, Duration::from_millis(30_000));
        let c = p.budget.clock.expect("clock");
        assert_eq!((c.wtime_ms, c.btime_ms, c.winc_ms), (29_000, 100_000, 1000));
    }

    #[test]
    fn gui_limits_replace_the_configs_and_no_limit_means_the_move_timeout() {
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let go = Go {
            nodes: Some(500),
            depth: Some(3),
            ..Go::default()
        };
        let p = plan(&limits, 60_000, &go, true);
        assert_eq!((p.budget.nodes, p.budget.depth), (Some(500), Some(3)));
        assert_eq!(p.budget.clock, None);
        assert_eq!(p.deadline, Duration::from_millis(60_000));

        let infinite = Go {
            infinite: true,
            ..Go::default()
        };
        let p = plan(&Limits::default(), 10_000, &infinite, true);
        assert_eq!(p.budget.movetime_ms, Some(9000));
        assert_eq!(p.deadline, Duration::from_millis(10_000));

        let movetime = Go {
            movetime: Some(300),
            ..Go::default()
        };
        let p = plan(&limits, 60_000, &movetime, true);
        assert_eq!(p.budget.movetime_ms, Some(240));
        assert_eq!(p.budget.nodes, Some(20_000));
        assert_eq!(p.deadline, Duration::from_millis(300));
    }
}
