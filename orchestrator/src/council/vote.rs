//! The council's voting rules on plain data (`models.md` section 3), with no engines or I/O, so
//! they are unit-tested and property-tested alone.
//!
//! Input: one [`Ballot`] per member that answered (its move, its score if it gave one, its
//! win-rate constant `T` and its noise `s_i`). Output: the chosen move and which rule chose it.
//!
//! Rules, in order:
//! 1. Mate: a member that sees a forced mate wins the vote for its move, unless another sees a
//!    faster one. Equally fast mates with different moves: the most votes among them, then the
//!    strongest member.
//! 2. The method: `majority` (most votes; with no unique plurality, the strongest member's move),
//!    `optimistic` (the member with the highest score), `pessimistic` (the lowest), `ml` (maximum
//!    likelihood with `A` predicted from the votes).
//!
//! **Tie rule**, one for every method and the same as the simulator's (`sim::council::vote`;
//! `tests/vote_agreement.rs` feeds both the same ballots): the *strongest* member breaks a tie,
//! "strongest" being the smallest `s_i`, and among equal `s_i` the member listed first. Scores are
//! compared on one scale: a member's `cp` is multiplied by `REFERENCE_T / T_i` (equal win rates
//! give equal values). Invariant: with distinct `s_i`, the chosen move does not depend on the
//! order of the ballots.

use engine::types::Score;

use crate::config::DEFAULT_WIN_RATE_T;
pub use crate::results::votes::{Method, Rule};

/// The common scale: cp of an engine whose win-rate constant is this.
pub const REFERENCE_T: f64 = DEFAULT_WIN_RATE_T;

/// One member's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Ballot {
    /// The move in USI text, or `resign` / `win` (they are voted on like moves).
    pub mv: String,
    pub eval: Option<Score>,
    /// Win-rate constant `T` of this member's scores.
    pub win_rate_t: f64,
    /// Noise `s_i` of this member's judgement (cp, common scale); smaller is stronger.
    pub sigma: f64,
}

/// The council's choice on one position (the [`crate::player::Decision`] it plays follows
/// from it).
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub mv: String,
    pub rule: Rule,
    /// The ballot that speaks for the decision (its score becomes the council's score): the
    /// member chosen by optimistic/pessimistic/mate, otherwise the strongest member that voted
    /// for the chosen move.
    pub speaker: usize,
}

/// Settings of the ml method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MlSettings {
    /// Gap `d` between the best candidate and the others, cp on the common scale.
    pub d: f64,
}

/// A score on the common scale as a number to rank by: mates beyond any cp, faster mates higher,
/// slower losses higher. A missing score counts as 0.
pub fn common_value(eval: Option<Score>, win_rate_t: f64) -> f64 {
    const MATE: f64 = 1.0e6;
    match eval {
        None => 0.0,
        Some(Score::Cp(cp)) => cp as f64 * REFERENCE_T / win_rate_t,
        Some(Score::Mate(n)) if n > 0 => MATE - n as f64,
        Some(Score::Mate(n)) => -MATE - n as f64,
    }
}

/// The index of the strongest ballot among `candidates` (smallest sigma, then first listed).
fn strongest(ballots: &[Ballot], candidates: impl Iterator<Item = usize>) -> Option<usize> {
    strongest_by(|i| ballots[i].sigma, candidates)
}

/// The tie rule itself: among `candidates`, the one with the smallest `sigma`, then the first
/// listed.
pub(crate) fn strongest_by(
    sigma: impl Fn(usize) -> f64,
    candidates: impl Iterator<Item = usize>,
) -> Option<usize> {
    candidates.min_by(|&a, &b| sigma(a).total_cmp(&sigma(b)).then(a.cmp(&b)))
}

/// A score put on the common scale (cp times `REFERENCE_T / T`); mates stay as they are.
pub(crate) fn on_common_scale(score: Score, win_rate_t: f64) -> Score {
    match score {
        Score::Cp(cp) => Score::Cp((cp as f64 * REFERENCE_T / win_rate_t).round() as i32),
        mate => mate,
    }
}

/// Distinct moves in first-seen order, with their vote counts.
fn tally(ballots: &[Ballot], among: &[usize]) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = Vec::new();
    for &i in among {
        match v.iter_mut().find(|(m, _)| *m == ballots[i].mv) {
            Some((_, n)) => *n += 1,
            None => v.push((ballots[i].mv.clone(), 1)),
        }
    }
    v
}

/// Most votes among `among`; on a tie for the most, the strongest member's move.
fn plurality(ballots: &[Ballot], among: &[usize]) -> (String, bool) {
    let t = tally(ballots, among);
    let best = t.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let top: Vec<&String> = t
        .iter()
        .filter(|(_, n)| *n == best)
        .map(|(m, _)| m)
        .collect();
    if top.len() == 1 {
        (top[0].clone(), true)
    } else {
        let s = strongest(ballots, among.iter().copied()).unwrap_or(0);
        (ballots[s].mv.clone(), false)
    }
}

fn speaker_for(ballots: &[Ballot], mv: &str) -> usize {
    strongest(ballots, (0..ballots.len()).filter(|&i| ballots[i].mv == mv)).unwrap_or(0)
}

/// Combine the ballots. Returns `None` only when there are no ballots.
pub fn decide(method: Method, ml: MlSettings, ballots: &[Ballot]) -> Option<Choice> {
    if ballots.is_empty() {
        return None;
    }
    let all: Vec<usize> = (0..ballots.len()).collect();
    if ballots.iter().all(|b| b.mv == ballots[0].mv) {
        let mv = ballots[0].mv.clone();
        return Some(Choice {
            speaker: speaker_for(ballots, &mv),
            mv,
            rule: Rule::Unanimous,
        });
    }

    // Rule 1: the fastest forced mate.
    let fastest = ballots
        .iter()
        .filter_map(|b| match b.eval {
            Some(Score::Mate(n)) if n > 0 => Some(n),
            _ => None,
        })
        .min();
    if let Some(n) = fastest {
        let mating: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| ballots[i].eval == Some(Score::Mate(n)))
            .collect();
        let (mv, _) = plurality(ballots, &mating);
        let speaker = strongest(
            ballots,
            mating.iter().copied().filter(|&i| ballots[i].mv == mv),
        )
        .unwrap_or(mating[0]);
        return Some(Choice {
            mv,
            rule: Rule::Mate,
            speaker,
        });
    }

    let value = |i: usize| common_value(ballots[i].eval, ballots[i].win_rate_t);
    let extreme = |pick_max: bool, rule: Rule| {
        let target = all.iter().map(|&i| value(i)).fold(
            if pick_max {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
            |a, v| {
                if pick_max { a.max(v) } else { a.min(v) }
            },
        );
        let speaker =
            strongest(ballots, all.iter().copied().filter(|&i| value(i) == target)).unwrap_or(0);
        Choice {
            mv: ballots[speaker].mv.clone(),
            rule,
            speaker,
        }
    };
    Some(match method {
        Method::Majority => {
            let (mv, unique) = plurality(ballots, &all);
            Choice {
                speaker: speaker_for(ballots, &mv),
                mv,
                rule: if unique {
                    Rule::Plurality
                } else {
                    Rule::Strongest
                },
            }
        }
        Method::Optimistic => extreme(true, Rule::Optimistic),
        Method::Pessimistic => extreme(false, Rule::Pessimistic),
        Method::Ml => {
            let moves = tally(ballots, &all);
            let values: Vec<f64> = all.iter().map(|&i| value(i)).collect();
            let a = predicted_a(&values, moves.len(), ml.d);
            let mut best: Option<(f64, usize)> = None;
            for (m, _) in &moves {
                let ll = ml_log_likelihood(ballots, &values, m, a, ml.d);
                let speaker = speaker_for(ballots, m);
                best = match best {
                    None => Some((ll, speaker)),
                    Some((bl, bs)) => {
                        // Exact ties go to the strongest supporter, keeping order independence.
                        let better = ll > bl
                            || (ll == bl
                                && strongest(ballots, [speaker, bs].into_iter()) == Some(speaker));
                        if better {
                            Some((ll, speaker))
                        } else {
                            Some((bl, bs))
                        }
                    }
                };
            }
            let (_, speaker) = best.unwrap_or((0.0, 0));
            Choice {
                mv: ballots[speaker].mv.clone(),
                rule: Rule::Ml,
                speaker,
            }
        }
    })
}

/// `A_hat = (k - 1) / k * d + mean_i V_i`, `k` the number of distinct voted moves.
pub fn predicted_a(values: &[f64], k: usize, d: f64) -> f64 {
    let k = k.max(1) as f64;
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    (k - 1.0) / k * d + mean
}

/// `ln prod_i F_i(b)` of `models.md` section 3: `x_i = (V_i - A) / s_i`, `y_i = x_i + d / s_i`,
/// `F_i(b) = g(x_i) e(y_i)` if member `i` voted `b`, else `g(y_i) e(x_i)`.
pub fn ml_log_likelihood(ballots: &[Ballot], values: &[f64], mv: &str, a: f64, d: f64) -> f64 {
    ballots
        .iter()
        .zip(values)
        .map(|(b, &v)| {
            let x = (v - a) / b.sigma;
            let y = x + d / b.sigma;
            if b.mv == mv {
                ln_g(x) + ln_e(y)
            } else {
                ln_g(y) + ln_e(x)
            }
        })
        .sum()
}

/// `ln g(z) = -z^2 / 2`.
fn ln_g(z: f64) -> f64 {
    -z * z / 2.0
}

/// `ln e(z) = ln(erf(z / sqrt 2) + 1) = ln erfc(-z / sqrt 2)`, stable far in the tail where
/// `erfc` underflows (asymptotic `erfc(u) ~ exp(-u^2) / (u sqrt pi)`).
fn ln_e(z: f64) -> f64 {
    let u = -z / std::f64::consts::SQRT_2;
    if u < 25.0 {
        statrs::function::erf::erfc(u).ln()
    } else {
        -u * u - (u * std::f64::consts::PI.sqrt()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ML: MlSettings = MlSettings { d: 100.0 };

    fn b(mv: &str, eval: Score, sigma: f64) -> Ballot {
        Ballot {
            mv: mv.into(),
            eval: Some(eval),
            win_rate_t: 600.0,
            sigma,
        }
    }

    fn pick(method: Method, ballots: &[Ballot]) -> Choice {
        decide(method, ML, ballots).expect("ballots")
    }

    #[test]
    fn majority_takes_the_plurality() {
        let v = [
            b("7g7f", Score::Cp(10), 100.0),
            b("2g2f", Score::Cp(50), 200.0),
            b("2g2f", Score::Cp(40), 200.0),
        ];
        let d = pick(Method::Majority, &v);
        assert_eq!((d.mv.as_str(), d.rule), ("2g2f", Rule::Plurality));
        assert_eq!(
            d.speaker, 1,
            "first-listed of the equally strong supporters"
        );
    }

    #[test]
    fn majority_without_unique_plurality_follows_the_strongest() {
        let v = [
            b("2g2f", Score::Cp(50), 200.0),
            b("7g7f", Score::Cp(10), 100.0),
            b("5g5f", Score::Cp(40), 300.0),
        ];
        let d = pick(Method::Majority, &v);
        assert_eq!((d.mv.as_str(), d.rule), ("7g7f", Rule::Strongest));
        // Equal sigmas: the member listed first is the strongest.
        let v = [
            b("2g2f", Score::Cp(50), 200.0),
            b("7g7f", Score::Cp(10), 200.0),
        ];
        assert_eq!(pick(Method::Majority, &v).mv, "2g2f");
    }

    #[test]
    fn optimistic_and_pessimistic_compare_on_one_scale() {
        // 300 cp at T = 300 is worth 600 cp at T = 600: more than 500 cp at T = 600.
        let mut v = [
            b("7g7f", Score::Cp(500), 100.0),
            b("2g2f", Score::Cp(300), 200.0),
            b("5g5f", Score::Cp(-20), 200.0),
        ];
        v[1].win_rate_t = 300.0;
        assert_eq!(pick(Method::Optimistic, &v).mv, "2g2f");
        v[1].win_rate_t = 600.0;
        assert_eq!(pick(Method::Optimistic, &v).mv, "7g7f");
        assert_eq!(pick(Method::Pessimistic, &v).mv, "5g5f");
    }

    #[test]
    fn a_forced_mate_wins_the_vote_unless_another_is_faster() {
        let v = [
            b("7g7f", Score::Cp(300), 100.0),
            b("7g7f", Score::Cp(200), 100.0),
            b("G*5b", Score::Mate(7), 300.0),
            b("S*4b", Score::Mate(3), 300.0),
        ];
        for m in [
            Method::Majority,
            Method::Optimistic,
            Method::Pessimistic,
            Method::Ml,
        ] {
            let d = pick(m, &v);
            assert_eq!((d.mv.as_str(), d.rule, d.speaker), ("S*4b", Rule::Mate, 3));
        }
        // Being mated is not a reason to follow a member: the others win.
        let v = [
            b("7g7f", Score::Cp(300), 100.0),
            b("7g7f", Score::Cp(200), 100.0),
            b("1g1f", Score::Mate(-3), 50.0),
        ];
        assert_eq!(pick(Method::Majority, &v).mv, "7g7f");
        assert_eq!(pick(Method::Pessimistic, &v).mv, "1g1f");
    }

    #[test]
    fn ml_predicts_a_and_maximises_the_likelihood() {
        // Hand-computed: values 100, 100, 400, s = 200, d = 100, k = 2:
        // A = 50 + 200 = 250. For move X (two votes) vs Y (one vote) the log-likelihoods are
        // computed below straight from the formula with statrs' erf.
        let v = [
            b("X", Score::Cp(100), 200.0),
            b("X", Score::Cp(100), 200.0),
            b("Y", Score::Cp(400), 200.0),
        ];
        let a = predicted_a(&[100.0, 100.0, 400.0], 2, 100.0);
        assert!((a - 250.0).abs() < 1e-9);
        let f = |voted: bool, v: f64| {
            let x = (v - a) / 200.0;
            let y = x + 0.5;
            let g = |z: f64| (-z * z / 2.0).exp();
            let e = |z: f64| statrs::function::erf::erf(z / 2f64.sqrt()) + 1.0;
            if voted { g(x) * e(y) } else { g(y) * e(x) }
        };
        let lx = f(true, 100.0) * f(true, 100.0) * f(false, 400.0);
        let ly = f(false, 100.0) * f(false, 100.0) * f(true, 400.0);
        let expect = if lx > ly { "X" } else { "Y" };
        let values = [100.0, 100.0, 400.0];
        assert!((ml_log_likelihood(&v, &values, "X", a, 100.0) - lx.ln()).abs() < 1e-9);
        assert!((ml_log_likelihood(&v, &values, "Y", a, 100.0) - ly.ln()).abs() < 1e-9);
        assert_eq!(pick(Method::Ml, &v).mv, expect);
    }

    #[test]
    fn ml_prefers_a_confident_strong_member_over_noisy_votes() {
        // Two very noisy members agree; one precise member sees a much higher value.
        let v = [
            b("X", Score::Cp(0), 2000.0),
            b("X", Score::Cp(0), 2000.0),
            b("Y", Score::Cp(300), 20.0),
        ];
        assert_eq!(pick(Method::Ml, &v).mv, "Y");
        assert_eq!(pick(Method::Majority, &v).mv, "X");
    }

    #[test]
    fn ln_e_is_finite_far_in_the_tail() {
        assert!(ln_e(-60.0).is_finite());
        assert!(
            (ln_e(-30.0) - (1.0 + statrs::function::erf::erf(-30.0 / 2f64.sqrt())).ln()).abs()
                < 1e-6
                || (1.0 + statrs::function::erf::erf(-30.0 / 2f64.sqrt())) == 0.0
        );
        assert!((ln_e(0.0) - 0f64.ln_1p()).abs() < 1e-12);
    }

    fn ballots_strategy() -> impl Strategy<Value = Vec<Ballot>> {
        let moves = prop::sample::select(vec!["7g7f", "2g2f", "5g5f", "1g1f"]);
        let eval = prop_oneof![
            (-2000i32..2000).prop_map(Score::Cp),
            (-15i32..15)
                .prop_filter("nonzero", |n| *n != 0)
                .prop_map(Score::Mate),
        ];
        prop::collection::vec((moves, eval, 100.0f64..1000.0, 20.0f64..500.0), 1..7).prop_map(|v| {
            v.into_iter()
                .enumerate()
                // Distinct sigmas: "strongest" is well defined whatever the order.
                .map(|(i, (m, e, t, s))| Ballot {
                    mv: m.to_string(),
                    eval: Some(e),
                    win_rate_t: t,
                    sigma: s + i as f64 * 1e-3,
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn the_choice_does_not_depend_on_member_order(
            ballots in ballots_strategy(),
            seed in any::<u64>(),
        ) {
            use rand::seq::SliceRandom;
            use rand_chacha::rand_core::SeedableRng;
            let mut shuffled = ballots.clone();
            shuffled.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
            for m in [Method::Majority, Method::Optimistic, Method::Pessimistic, Method::Ml] {
                let a = pick(m, &ballots);
                let b = pick(m, &shuffled);
                prop_assert_eq!(&a.mv, &b.mv, "method {:?}", m);
                prop_assert_eq!(a.rule, b.rule);
                prop_assert_eq!(&ballots[a.speaker], &shuffled[b.speaker]);
            }
        }

        #[test]
        fn the_choice_is_always_one_of_the_votes(ballots in ballots_strategy()) {
            for m in [Method::Majority, Method::Optimistic, Method::Pessimistic, Method::Ml] {
                let d = pick(m, &ballots);
                prop_assert!(ballots.iter().any(|b| b.mv == d.mv));
                prop_assert_eq!(&ballots[d.speaker].mv, &d.mv);
            }
        }
    }
}
