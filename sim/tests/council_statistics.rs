//! Council rates against closed forms, identities and an independent implementation.
//!
//! Tolerance: 5 binomial standard errors `sqrt(p (1 - p) / trials)` of the exact rate (for a
//! difference of two independent runs, the root sum of both squares). A correct simulation misses
//! by 5 SE with probability 6e-7 per comparison, so these never fail by chance, while any bias
//! larger than about 5 SE (0.005 at 2e5 trials) is caught. Seeds are fixed: runs are deterministic.

use sim::council::exact::{
    agreement, majority_of_three_rate, optimistic_rate, pessimistic_rate, single_rate,
};
use sim::council::methods::{Report, Voting};
use sim::council::simulate::{CouncilRun, perceive, simulate};
use sim::council::{CouncilParams, SyncPair};
use sim::majority::majority_of_three;
use sim::plain;
use sim::streams::{NormalBlock, batches, no_progress};

const Z: f64 = 5.0;

fn se(p: f64, n: u64) -> f64 {
    (p * (1.0 - p) / n as f64).sqrt()
}

fn check(label: &str, got: f64, want: f64, trials: u64) {
    let s = se(want, trials).max(1e-12);
    assert!(
        (got - want).abs() < Z * s,
        "{label}: {got} vs exact {want} ({:+.2} SE)",
        (got - want) / s
    );
}

fn run(n: usize, sigma: &[f64], syncs: Vec<SyncPair>, trials: u64, seed: u64) -> CouncilRun {
    let p = CouncilParams::new(n, sigma.to_vec(), 1.0, syncs).expect("valid");
    simulate(&p, trials, seed, &no_progress)
}

#[test]
fn a_one_member_council_is_that_member() {
    for (n, s) in [(2, 0.8), (3, 1.5), (6, 2.0)] {
        let trials = 300_000;
        let r = run(n, &[s], vec![], trials, 1).rates();
        let p = single_rate(n, s, 1.0);
        for (label, got) in [
            ("single", r.single[0].rate),
            ("majority", r.majority.rate),
            ("optimistic", r.optimistic.rate),
            ("pessimistic", r.pessimistic.rate),
            ("ml", r.ml.rate),
            ("ml_predicted", r.ml_predicted.rate),
        ] {
            check(&format!("n={n} s={s} {label}"), got, p, trials);
        }
        // Every method plays the one member's move: identical counts, not just close rates.
        assert_eq!(r.majority, r.single[0]);
        assert_eq!(r.ml, r.single[0]);
    }
}

#[test]
fn identical_members_match_their_closed_forms() {
    let (n, s, trials) = (3, 1.5, 400_000);
    let r = run(n, &[s, s, s], vec![], trials, 2);
    let rates = r.rates();
    let params = CouncilParams::new(n, vec![s; 3], 1.0, vec![]).expect("valid");
    let p = single_rate(n, s, 1.0);
    for (i, x) in rates.single.iter().enumerate() {
        check(&format!("single {i}"), x.rate, p, trials);
    }
    // Section 4's formula with p1 = p2 = p3 = p and B = n (misses are uniform by symmetry).
    check(
        "majority",
        rates.majority.rate,
        majority_of_three(p, p, p, n as f64),
        trials,
    );
    check(
        "optimistic",
        rates.optimistic.rate,
        optimistic_rate(&params),
        trials,
    );
    check(
        "pessimistic",
        rates.pessimistic.rate,
        pessimistic_rate(&params),
        trials,
    );
    let a = r.agreement();
    check("agreement 1-2", a[0][1], agreement(p, p, n), trials);
    check("agreement 2-3", a[1][2], agreement(p, p, n), trials);
}

#[test]
fn two_identical_members_ml_is_optimistic() {
    // With two equally noisy members D(x) = g (x + g/2) + ln Phi(x + g) - ln Phi(x) increases
    // with x, so maximum likelihood (oracle or predicted A) plays the higher value: optimistic.
    let trials = 200_000;
    let r = run(4, &[1.7, 1.7], vec![], trials, 3).rates();
    assert_eq!(r.ml, r.optimistic);
    assert_eq!(r.ml_predicted, r.optimistic);
    let params = CouncilParams::new(4, vec![1.7, 1.7], 1.0, vec![]).expect("valid");
    check(
        "optimistic",
        r.optimistic.rate,
        optimistic_rate(&params),
        trials,
    );
}

#[test]
fn different_members_match_optimistic_pessimistic_and_majority_forms() {
    for (n, sigma) in [(3, [1.0, 2.0, 2.0]), (5, [0.7, 1.2, 3.0])] {
        let trials = 400_000;
        let params = CouncilParams::new(n, sigma.to_vec(), 1.0, vec![]).expect("valid");
        let r = simulate(&params, trials, 4, &no_progress);
        let rates = r.rates();
        for (i, &s) in sigma.iter().enumerate() {
            check(
                "single",
                rates.single[i].rate,
                single_rate(n, s, 1.0),
                trials,
            );
        }
        check(
            "optimistic",
            rates.optimistic.rate,
            optimistic_rate(&params),
            trials,
        );
        check(
            "pessimistic",
            rates.pessimistic.rate,
            pessimistic_rate(&params),
            trials,
        );
        check(
            "majority",
            rates.majority.rate,
            majority_of_three_rate(&params).expect("three members"),
            trials,
        );
        let p: Vec<f64> = sigma.iter().map(|&s| single_rate(n, s, 1.0)).collect();
        check(
            "agreement 1-3",
            r.agreement()[0][2],
            agreement(p[0], p[2], n),
            trials,
        );
    }
}

#[test]
fn two_candidate_majority_with_and_without_sync() {
    // n = 2, three members: never a three-way split. p_i = Phi(d / (s_i sqrt 2)).
    // With sync rho between members 2 and 3: synced, they outvote member 1 (rate p2);
    // otherwise the independent formula.
    let sigma = [0.8, 1.5, 1.5];
    let p: Vec<f64> = sigma.iter().map(|&s| single_rate(2, s, 1.0)).collect();
    let independent = majority_of_three(p[0], p[1], p[2], 2.0);
    let trials = 400_000;
    for rho in [0.0, 0.5, 1.0] {
        let sync = vec![SyncPair {
            from: 1,
            to: 2,
            rho,
        }];
        let r = run(2, &sigma, sync, trials, 5);
        let rates = r.rates();
        check(
            &format!("majority rho={rho}"),
            rates.majority.rate,
            rho * p[1] + (1.0 - rho) * independent,
            trials,
        );
        // Member 3 plays member 2's move with probability rho (same noise here, same rate).
        check("single 3", rates.single[2].rate, p[2], trials);
        check(
            &format!("agreement 2-3 rho={rho}"),
            r.agreement()[1][2],
            rho + (1.0 - rho) * agreement(p[1], p[2], 2),
            trials,
        );
        check(
            "agreement 1-2",
            r.agreement()[0][1],
            agreement(p[0], p[1], 2),
            trials,
        );
    }
}

#[test]
fn sync_copies_a_member_with_a_different_noise() {
    // Member 3 (s = 3) copies member 1 (s = 0.5) half the time: its rate is the mixture.
    let sigma = [0.5, 2.0, 3.0];
    let n = 3;
    let trials = 300_000;
    let sync = vec![SyncPair {
        from: 0,
        to: 2,
        rho: 0.5,
    }];
    let r = run(n, &sigma, sync, trials, 6).rates();
    let want = 0.5 * single_rate(n, 0.5, 1.0) + 0.5 * single_rate(n, 3.0, 1.0);
    check("single 3", r.single[2].rate, want, trials);
}

#[test]
fn oracle_ml_is_never_worse_than_another_method_on_the_same_trials() {
    // With independent members and every candidate equally likely a priori, maximum likelihood
    // over the voted moves is the Bayes choice among them, so on the same trials it beats every
    // method that plays a voted move. Paired test: the SE of a difference of two indicators on
    // the same trials comes from the discordant trials.
    let params = CouncilParams::new(3, vec![1.0, 1.6, 2.4], 1.0, vec![]).expect("valid");
    let trials = 300_000u64;
    let mut batch = batches(8, trials).remove(0);
    let mut normals = NormalBlock::default();
    let mut reports = vec![
        Report {
            best: 0,
            value: 0.0
        };
        3
    ];
    let mut voting = Voting::new(&params);
    // For each rival: (ml right & rival wrong, ml wrong & rival right).
    let mut discord = [[0u64; 2]; 5];
    for _ in 0..trials {
        perceive(&params, &mut batch.rng, &mut normals, &mut reports);
        let c = voting.choose(&reports, 0.0);
        let ml = c.ml == 0;
        let rivals = [
            c.majority == 0,
            c.optimistic == 0,
            c.pessimistic == 0,
            c.ml_predicted == 0,
            reports[0].best == 0,
        ];
        for (d, &rv) in discord.iter_mut().zip(&rivals) {
            d[0] += u64::from(ml && !rv);
            d[1] += u64::from(!ml && rv);
        }
    }
    for (i, d) in discord.iter().enumerate() {
        let n = trials as f64;
        let diff = (d[0] as f64 - d[1] as f64) / n;
        let var = (d[0] + d[1]) as f64 / n - diff * diff;
        let se = (var / n).sqrt().max(1e-12);
        assert!(
            diff > -Z * se,
            "rival {i}: ml - rival = {diff} ({} SE)",
            diff / se
        );
    }
}

#[test]
fn plain_single_loop_agrees_with_the_fast_pass() {
    // Independent implementations (plain: HashMap votes, linear-space likelihood products, a
    // Normal sample per perception) on independent streams: differences within 5 SE.
    let sync = vec![SyncPair {
        from: 1,
        to: 2,
        rho: 0.3,
    }];
    let params = CouncilParams::new(3, vec![1.0, 2.0, 2.0], 1.0, sync).expect("valid");
    let (tf, tp) = (400_000u64, 150_000u64);
    let fast = simulate(&params, tf, 9, &no_progress).rates();
    let plain = plain::council(&params, tp, 10);
    let pairs = [
        ("single 1", fast.single[0].rate, plain.single[0].rate()),
        ("single 3", fast.single[2].rate, plain.single[2].rate()),
        ("majority", fast.majority.rate, plain.methods[0].rate()),
        ("optimistic", fast.optimistic.rate, plain.methods[1].rate()),
        (
            "pessimistic",
            fast.pessimistic.rate,
            plain.methods[2].rate(),
        ),
        ("ml", fast.ml.rate, plain.methods[3].rate()),
        (
            "ml_predicted",
            fast.ml_predicted.rate,
            plain.methods[4].rate(),
        ),
    ];
    for (label, f, p) in pairs {
        let s = (se(f, tf).powi(2) + se(p, tp).powi(2)).sqrt();
        assert!((f - p).abs() < Z * s, "{label}: fast {f} plain {p}");
    }
}
