//! Do the 95% intervals cover the truth 95% of the time? Ratings (and first-move and handicap
//! values) are drawn, games simulated from them with a fixed seed, the model fitted, and the
//! fraction of intervals that contain the true value counted.
//!
//! Each replication contributes one interval per checked quantity (one player per replication,
//! in turn), so the hits are independent Bernoulli trials and the coverage estimate has the
//! binomial standard error `sqrt(0.95 * 0.05 / R)`; a check passes within 3 of those.

use orchestrator::stats::elo::{elo_from_score, score_from_elo};
use orchestrator::stats::simulate::Pool;
use orchestrator::stats::{Anchor, FitOptions, GameTable, HeadToHead, fit};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

const LEVEL: f64 = 0.95;

#[track_caller]
fn assert_coverage(what: &str, hits: usize, trials: usize) {
    let coverage = hits as f64 / trials as f64;
    let se = (LEVEL * (1.0 - LEVEL) / trials as f64).sqrt();
    eprintln!("{what}: coverage {coverage:.4} over {trials} intervals (binomial se {se:.4})");
    assert!(
        (coverage - LEVEL).abs() <= 3.0 * se,
        "{what}: 95% intervals covered the truth {coverage:.4} of the time over {trials} \
         replications; expected 0.95 +- {:.4} (3 binomial standard errors)",
        3.0 * se
    );
}

#[test]
fn rating_intervals_cover_the_true_values() {
    const REPLICATIONS: usize = 4000;
    const PLAYERS: usize = 6;
    const FIRST_MOVE: f64 = 40.0;
    const LANCE: f64 = 150.0;
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_C0DE);
    let spread = Normal::new(0.0, 200.0).expect("valid normal");
    let (mut player_hits, mut first_move_hits, mut lance_hits) = (0, 0, 0);
    for rep in 0..REPLICATIONS {
        let truth: Vec<f64> = (0..PLAYERS).map(|_| spread.sample(&mut rng)).collect();
        let pool = Pool {
            players: truth
                .iter()
                .enumerate()
                .map(|(i, &r)| (format!("P{i}"), r))
                .collect(),
            first_move: FIRST_MOVE,
            draw_rate: 0.4,
            handicaps: vec![("lance".into(), LANCE)],
            handicap_share: 0.25,
        };
        let mut table = GameTable::new();
        for game in pool.games(1200, rep as u64) {
            table.add(&game);
        }
        let ratings = fit(
            &table,
            &FitOptions {
                anchor: Anchor::PoolMean { elo: 0.0 },
                first_move: true,
                prior_draws: None,
            },
        )
        .expect("fit");
        let mean = truth.iter().sum::<f64>() / PLAYERS as f64;
        let k = rep % PLAYERS;
        let name = format!("P{k}");
        let p = ratings
            .players
            .iter()
            .find(|p| p.name == name)
            .expect("every player played");
        let centred = truth[k] - mean;
        player_hits += usize::from(p.lower <= centred && centred <= p.upper);
        let a = ratings
            .first_move
            .as_ref()
            .and_then(|f| f.estimate)
            .expect("first move identified");
        first_move_hits += usize::from(a.lower <= FIRST_MOVE && FIRST_MOVE <= a.upper);
        let h = ratings.handicaps[0].estimate.expect("lance identified");
        lance_hits += usize::from(h.lower <= LANCE && LANCE <= h.upper);
    }
    assert_coverage(
        "player rating (pool-mean anchor)",
        player_hits,
        REPLICATIONS,
    );
    assert_coverage("first-move advantage", first_move_hits, REPLICATIONS);
    assert_coverage("lance handicap value", lance_hits, REPLICATIONS);
}

#[test]
fn head_to_head_intervals_cover_the_true_elo() {
    const REPLICATIONS: usize = 4000;
    const ELO: f64 = 60.0;
    const FIRST_MOVE: f64 = 40.0;
    let pool = Pool {
        players: vec![("A".into(), ELO), ("B".into(), 0.0)],
        first_move: FIRST_MOVE,
        draw_rate: 0.4,
        handicaps: vec![],
        handicap_share: 0.0,
    };
    // With colours balanced, A's expected score is the mean over the two colours; the Elo the
    // head-to-head estimates is the one of that score.
    let target =
        elo_from_score((score_from_elo(ELO + FIRST_MOVE) + score_from_elo(ELO - FIRST_MOVE)) / 2.0);
    let (mut tri_hits, mut penta_hits) = (0, 0);
    for rep in 0..REPLICATIONS {
        let games: Vec<_> = pool.games(400, 1_000_000 + rep as u64).collect();
        let h2h = HeadToHead::from_games(&games, "A", "B");
        let tri = h2h.trinomial().expect("games");
        let penta = h2h.pentanomial().expect("pairs");
        tri_hits += usize::from(tri.elo_lower <= target && target <= tri.elo_upper);
        penta_hits += usize::from(penta.elo_lower <= target && target <= penta.elo_upper);
    }
    assert_coverage("head-to-head trinomial", tri_hits, REPLICATIONS);
    assert_coverage("head-to-head pentanomial", penta_hits, REPLICATIONS);
}
