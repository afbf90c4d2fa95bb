//! `--seed` replays bit-for-bit on any thread count, and different seeds give different runs.

use sim::council::{CouncilParams, SyncPair, simulate::simulate as council};
use sim::game_length::simulate::{Layout, simulate as games};
use sim::game_length::{GameLengthParams, Preset};
use sim::majority::MajorityModel;
use sim::streams::no_progress;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

#[test]
fn game_length_runs_are_identical_on_one_two_and_three_threads() {
    let p = Preset::Floodgate.params();
    let layout = Layout::for_params(&p);
    // Several batches, the last one short, so the merge order matters.
    let n = 3 * 65_536 + 1_234;
    let runs: Vec<_> = [1, 2, 3]
        .iter()
        .map(|&t| pool(t).install(|| games(&p, n, 42, &layout, &no_progress)))
        .collect();
    for r in &runs[1..] {
        // PartialEq on f64 moments: bit-for-bit equal sums, not merely close.
        assert_eq!(r, &runs[0]);
        assert_eq!(r.length.m4.to_bits(), runs[0].length.m4.to_bits());
    }
    let other = pool(2).install(|| games(&p, n, 43, &layout, &no_progress));
    assert_ne!(other.length, runs[0].length);
}

#[test]
fn council_runs_are_identical_on_one_two_and_three_threads() {
    let sync = SyncPair {
        from: 1,
        to: 2,
        rho: 0.5,
    };
    let p = CouncilParams::new(3, vec![1.0, 2.0, 2.0], 1.0, vec![sync]).expect("valid");
    let n = 2 * 65_536 + 999;
    let runs: Vec<_> = [1, 2, 3]
        .iter()
        .map(|&t| pool(t).install(|| council(&p, n, 7, &no_progress)))
        .collect();
    for r in &runs[1..] {
        assert_eq!(r.counts, runs[0].counts);
    }
    let other = pool(2).install(|| council(&p, n, 8, &no_progress));
    assert_ne!(other.counts, runs[0].counts);
}

#[test]
fn majority_runs_are_identical_on_one_and_two_threads() {
    let m = MajorityModel::new(0.6, 0.1, 4).expect("valid");
    let a = pool(1).install(|| m.simulate(200_000, 5, &no_progress));
    let b = pool(2).install(|| m.simulate(200_000, 5, &no_progress));
    assert_eq!(a, b);
}

#[test]
fn step_sizes_outside_the_supported_range_are_refused() {
    assert!(GameLengthParams::new(0.005, 10.0, 1.0).is_err());
    assert!(GameLengthParams::new(25.0, 10.0, 1.0).is_err());
    let p = GameLengthParams::new(0.01, 10.0, 1.0).expect("lower end");
    let r = games(&p, 20, 1, &Layout::for_params(&p), &no_progress);
    assert_eq!(r.histogram.total(), 20);
    assert!(r.walk.mean > 1000.0);
}
