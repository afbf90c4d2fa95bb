//! A GUI's `go` as the player's [`Plan`]: its budget and deadline.
//!
//! The GUI keeps the clock, so its `btime wtime byoyomi binc winc` ([`Go::clocks`]) replace
//! any clock the config gives the player; its `nodes depth movetime` replace the config's
//! per-move limits of the same kind, which otherwise stay (a council at a node limit keeps it
//! under the GUI's clock). `go infinite` replaces them all: the player thinks until `stop`
//! (its members' own limits, part of what the council is, stay). The rest is
//! [`budget::plan_with_margin`]'s, as for a CSA server's clock, with the `MarginMs` option as
//! the margin: the deadline is the GUI's allowance, the budget that less the margin (at most a
//! fifth of it), and a bare `go` with a config without per-move limits thinks for the player's
//! `move_timeout_ms`. A council's fairness then applies to this budget exactly as in
//! `council-match`.

use std::time::Duration;

use council_players::player::Budget;
use council_players::player::budget::{self, Plan};
use council_schema::config::Limits;
use engine::types::Color;
use engine::usi::protocol::Go;

/// The plan for `go` for `mover`, a player configured with `limits` and `move_timeout_ms`,
/// keeping back at most `margin` of the GUI's clock.
pub(crate) fn plan(
    limits: &Limits,
    move_timeout_ms: u64,
    go: &Go,
    mover: Color,
    margin: Duration,
) -> Plan {
    if go.infinite {
        let infinite = Budget {
            infinite: true,
            ..Budget::default()
        };
        return budget::plan_with_margin(infinite, move_timeout_ms, mover, margin);
    }
    let mut budget = Budget::per_move(limits);
    budget.nodes = go.nodes.or(budget.nodes);
    budget.depth = go.depth.or(budget.depth);
    budget.movetime_ms = go.movetime.or(budget.movetime_ms);
    if let Some(clocks) = go.clocks() {
        budget.clock = Some(clocks);
    }
    budget::plan_with_margin(budget, move_timeout_ms, mover, margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_players::player::budget::{INFINITE_THINK, MAX_SAFETY};

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
        let p = plan(&limits, 60_000, &go, Color::Sente, MAX_SAFETY);
        assert_eq!(
            p.budget.nodes,
            Some(20_000),
            "the config's node limit stays"
        );
        assert_eq!(p.deadline, Duration::from_millis(2000));
        let c = *p.budget.clock.expect("the GUI's clock").side(Color::Sente);
        assert_eq!(
            (c.byoyomi, c.remaining),
            (Duration::from_millis(1600), Duration::ZERO)
        );

        // Main time and an increment: the GUI's `btime + binc` is the move's, the margin comes
        // out of the mover's main time.
        let go = Go {
            btime: Some(100_000),
            wtime: Some(30_000),
            binc: Some(1000),
            winc: Some(1000),
            ..Go::default()
        };
        let p = plan(&Limits::default(), 60_000, &go, Color::Gote, MAX_SAFETY);
        assert_eq!(p.deadline, Duration::from_millis(31_000));
        let c = p.budget.clock.expect("clock");
        assert_eq!(
            (
                c.side(Color::Gote).remaining,
                c.side(Color::Sente).remaining,
                c.side(Color::Gote).increment
            ),
            (
                Duration::from_millis(29_000),
                Duration::from_millis(100_000),
                Duration::from_millis(1000)
            )
        );
    }

    #[test]
    fn gui_limits_replace_the_configs_and_infinite_replaces_them_all() {
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let go = Go {
            nodes: Some(500),
            depth: Some(3),
            ..Go::default()
        };
        let p = plan(&limits, 60_000, &go, Color::Sente, MAX_SAFETY);
        assert_eq!((p.budget.nodes, p.budget.depth), (Some(500), Some(3)));
        assert_eq!(p.budget.clock, None);
        assert_eq!(p.deadline, Duration::from_millis(60_000));

        let infinite = Go {
            infinite: true,
            ..Go::default()
        };
        let p = plan(&limits, 10_000, &infinite, Color::Sente, MAX_SAFETY);
        assert!(p.budget.infinite, "go infinite thinks until stop");
        assert_eq!((p.budget.nodes, p.deadline), (None, INFINITE_THINK));
        let bare = plan(
            &Limits::default(),
            10_000,
            &Go::default(),
            Color::Sente,
            MAX_SAFETY,
        );
        assert_eq!(bare.budget.movetime_ms, Some(9000));
        assert_eq!(bare.deadline, Duration::from_millis(10_000));

        let movetime = Go {
            movetime: Some(300),
            ..Go::default()
        };
        let p = plan(&limits, 60_000, &movetime, Color::Sente, MAX_SAFETY);
        assert_eq!(p.budget.movetime_ms, Some(240));
        assert_eq!(p.budget.nodes, Some(20_000));
        assert_eq!(p.deadline, Duration::from_millis(300));
    }

    #[test]
    fn the_margin_option_is_what_is_kept_of_a_byoyomi() {
        let go = Go {
            btime: Some(0),
            wtime: Some(0),
            byoyomi: Some(1000),
            ..Go::default()
        };
        let p = plan(
            &Limits::default(),
            60_000,
            &go,
            Color::Sente,
            Duration::from_millis(50),
        );
        let c = *p.budget.clock.expect("the GUI's clock").side(Color::Sente);
        assert_eq!(
            (c.byoyomi, p.deadline),
            (Duration::from_millis(950), Duration::from_millis(1000))
        );
    }
}
