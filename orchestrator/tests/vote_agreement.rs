//! One vote for the council and its theory: the orchestrator's `council::vote` (what a real
//! council plays: move texts, scores with their win-rate constants) and the simulator's
//! `sim::council::methods` (the methods on plain ballots) are fed the same ballots and must choose
//! the same move, for every method. The orchestrator now calls the simulator's rules, so this
//! guards what lies between them: the numbering of move texts, the common scale, the mate and
//! unanimity rules (no mates here, so they must not interfere) and the ballot order. Ties are made
//! common on purpose (few moves, values on a coarse grid, few distinct `s_i`), since the tie rule
//! is the point: the strongest member (smallest `s_i`, then the first listed) breaks every tie.

use engine::types::Score;
use orchestrator::council::vote::{self, Ballot, Method, REFERENCE_T, VoteSettings};
use proptest::prelude::*;
use sim::council::methods as sim_vote;

/// One member's ballot as both sides take it: move index, cp on the common scale, `s_i`.
type Plain = (usize, i32, f64);

fn ours(ballots: &[Plain]) -> Vec<Ballot> {
    ballots
        .iter()
        .map(|&(mv, cp, sigma)| Ballot {
            mv: format!("m{mv}"),
            eval: Some(Score::Cp(cp)),
            // T equal to the reference: the common-scale value is the cp itself.
            win_rate_t: REFERENCE_T,
            sigma,
            weight: 1.0,
            ranked: Vec::new(),
        })
        .collect()
}

fn theirs(ballots: &[Plain]) -> Vec<sim_vote::Ballot> {
    ballots
        .iter()
        .map(|&(mv, cp, sigma)| sim_vote::Ballot {
            mv,
            value: f64::from(cp),
            sigma,
            weight: 1.0,
            yields: false,
        })
        .collect()
}

fn our_choice(method: Method, d: f64, ballots: &[Plain]) -> String {
    vote::decide(method, VoteSettings { d, k: 1 }, &ours(ballots))
        .expect("ballots given")
        .mv
}

fn their_choice(method: Method, d: f64, ballots: &[Plain]) -> String {
    let b = theirs(ballots);
    let i = match method {
        Method::Majority => sim_vote::majority_choice(&b),
        Method::Optimistic => sim_vote::optimistic_choice(&b),
        Method::Pessimistic => sim_vote::pessimistic_choice(&b),
        Method::Ml => sim_vote::ml_choice(&b, d),
        Method::Approval => {
            let ranked: Vec<Vec<usize>> = ballots.iter().map(|b| vec![b.0]).collect();
            let sigma: Vec<f64> = ballots.iter().map(|b| b.2).collect();
            sim_vote::approval_choice(&ranked, &sigma, 1)
        }
    };
    format!("m{}", i.expect("ballots given"))
}

/// A ranked ballot as both sides take it: moves best first (indices), `s_i`.
type Ranked = (Vec<usize>, f64);

fn our_approval(k: usize, ballots: &[Ranked]) -> String {
    let ours: Vec<Ballot> = ballots
        .iter()
        .map(|(moves, sigma)| Ballot {
            mv: format!("m{}", moves[0]),
            eval: Some(Score::Cp(0)),
            win_rate_t: REFERENCE_T,
            sigma: *sigma,
            weight: 1.0,
            ranked: moves.iter().map(|m| format!("m{m}")).collect(),
        })
        .collect();
    vote::decide(Method::Approval, VoteSettings { d: 100.0, k }, &ours)
        .expect("ballots given")
        .mv
}

fn their_approval(k: usize, ballots: &[Ranked]) -> String {
    let ranked: Vec<Vec<usize>> = ballots.iter().map(|b| b.0.clone()).collect();
    let sigma: Vec<f64> = ballots.iter().map(|b| b.1).collect();
    let i = sim_vote::approval_choice(&ranked, &sigma, k).expect("ballots given");
    format!("m{i}")
}

fn ranked_ballots() -> impl Strategy<Value = Vec<Ranked>> {
    prop::collection::vec(
        (
            // Distinct moves, best first: a member's MultiPV lines never repeat a move.
            Just((0usize..5).collect::<Vec<_>>())
                .prop_shuffle()
                .prop_flat_map(|all| (1usize..=4).prop_map(move |n| all[..n].to_vec())),
            prop::sample::select(vec![50.0, 100.0, 150.0]),
        ),
        1..6,
    )
}

fn ballots() -> impl Strategy<Value = Vec<Plain>> {
    prop::collection::vec(
        (
            0usize..3,
            (-4i32..=4).prop_map(|k| k * 50),
            prop::sample::select(vec![50.0, 100.0, 150.0]),
        ),
        1..6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn majority_optimistic_and_pessimistic_choose_alike(b in ballots()) {
        for method in [Method::Majority, Method::Optimistic, Method::Pessimistic] {
            prop_assert_eq!(our_choice(method, 100.0, &b), their_choice(method, 100.0, &b), "{:?} on {:?}", method, b);
        }
    }

    #[test]
    fn approval_chooses_alike(b in ranked_ballots(), k in 1usize..4) {
        prop_assert_eq!(our_approval(k, &b), their_approval(k, &b), "k {} on {:?}", k, b);
    }

    #[test]
    fn approval_with_k_1_chooses_what_majority_chooses(b in ballots()) {
        prop_assert_eq!(our_choice(Method::Approval, 100.0, &b), our_choice(Method::Majority, 100.0, &b));
        prop_assert_eq!(their_choice(Method::Approval, 100.0, &b), their_choice(Method::Majority, 100.0, &b));
    }

    #[test]
    fn ml_chooses_alike(b in ballots(), d in prop::sample::select(vec![50.0, 100.0, 200.0])) {
        prop_assert_eq!(our_choice(Method::Ml, d, &b), their_choice(Method::Ml, d, &b), "d {} on {:?}", d, b);
    }
}

#[test]
fn ties_go_to_the_strongest_member_then_the_first_listed() {
    // Optimistic: two members report the top value; the stronger (smaller s_i) one's move.
    let b = [(0, 200, 150.0), (1, 200, 100.0), (2, -50, 50.0)];
    assert_eq!(our_choice(Method::Optimistic, 100.0, &b), "m1");
    assert_eq!(their_choice(Method::Optimistic, 100.0, &b), "m1");
    // Pessimistic, equal s_i: the first listed.
    let b = [(2, 0, 100.0), (0, -100, 100.0), (1, -100, 100.0)];
    assert_eq!(our_choice(Method::Pessimistic, 100.0, &b), "m0");
    assert_eq!(their_choice(Method::Pessimistic, 100.0, &b), "m0");
    // Majority without a unique plurality: the strongest member's move, even a lone vote.
    let b = [
        (0, 0, 100.0),
        (0, 0, 100.0),
        (1, 0, 100.0),
        (1, 0, 100.0),
        (2, 0, 50.0),
    ];
    assert_eq!(our_choice(Method::Majority, 100.0, &b), "m2");
    assert_eq!(their_choice(Method::Majority, 100.0, &b), "m2");
    // Ml, an exact mirror (same s_i and value, different moves): the first listed.
    let b = [(1, 30, 100.0), (0, 30, 100.0)];
    assert_eq!(our_choice(Method::Ml, 100.0, &b), "m1");
    assert_eq!(their_choice(Method::Ml, 100.0, &b), "m1");
}
