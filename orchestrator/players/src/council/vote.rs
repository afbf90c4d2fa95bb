//! The council's vote on real answers (`models.md` section 3), with no engines or I/O, so it is
//! unit-tested and property-tested alone.
//!
//! Input: one [`Ballot`] per member that answered (its move, its score if it gave one, its
//! win-rate constant `T`, its noise `s_i` and its vote weight `w_i`). Output: the chosen move, which rule chose it and
//! which ballot speaks for it.
//!
//! Rules, in order:
//! 1. Unanimity: every ballot names the same move.
//! 2. Mate: a member that sees a forced mate wins the vote for its move, unless another sees a
//!    faster one. Equally fast mates with different moves: majority (by weight) among them.
//! 3. The method: `majority` (the most summed weight), `optimistic`, `pessimistic`, `ml`
//!    (maximum likelihood with `A` predicted from the votes) or `approval` (each member's top `k`
//!    moves: its ranked ballot, its own move first, worth its weight; the speaker is the strongest
//!    member naming the chosen move). Weights other than 1 are for majority and approval (the
//!    config refuses them for the other methods).
//!
//! The methods themselves, the ML likelihood and the **tie rule** (the strongest member, smallest
//! `s_i` then first listed, breaks every tie) have one implementation, the simulator's
//! [`sim::council::methods`]. This module keeps only what real play adds: move texts (`resign` and
//! `win` are voted on like moves) numbered in first-seen order, scores put on the common scale
//! (a member's `cp` times `REFERENCE_T / T_i`, so equal win rates give equal values; mates beyond
//! any cp), the mate rule, which ballot speaks, and which ballots yield: a `resign` wins only by
//! the method's own count, never by the tie rule (a council never resigns on a tie-break). `tests/vote_agreement.rs` feeds both sides the
//! same ballots. Invariant: with distinct `s_i`, the chosen move does not depend on the order of
//! the ballots.

use engine::types::Score;
use sim::council::methods as rules;

use council_schema::config::DEFAULT_WIN_RATE_T;
pub use council_schema::results::votes::{Method, Rule};

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
    /// Its vote weight `w_i` (finite, >= 0; 1 is an ordinary vote): what its vote adds to a
    /// move under majority and approval.
    pub weight: f64,
    /// Its moves best first, for approval (its MultiPV lines); `mv` counts as its first move
    /// whatever this says, and empty means `mv` alone.
    pub ranked: Vec<String>,
}

impl Ballot {
    /// Whether this member resigns: its `resign` wins only by the method's own count, never by
    /// the tie rule (the members that play on break every tie).
    pub fn resigns(&self) -> bool {
        self.mv == "resign"
    }

    /// The ranked ballot approval counts: `mv` first, then the other moves of `ranked` in order.
    pub fn ranking(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.mv.as_str()).chain(
            self.ranked
                .iter()
                .map(String::as_str)
                .filter(|m| *m != self.mv),
        )
    }
}

/// The council's choice on one position (the [`crate::player::Decision`] it plays follows
/// from it).
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub mv: String,
    pub rule: Rule,
    /// The ballot that speaks for the decision (its score becomes the council's score): the
    /// member chosen by optimistic/pessimistic, otherwise the strongest member that voted for
    /// the chosen move (among the fastest mates, for the mate rule).
    pub speaker: usize,
}

/// Settings of the methods that have some.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoteSettings {
    /// ml: gap `d` between the best candidate and the others, cp on the common scale.
    pub d: f64,
    /// approval: how many moves of each ranked ballot count (>= 1).
    pub k: usize,
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

/// The strongest of members with noises `sigma` by the tie rule (`None` without members).
pub(crate) fn strongest(sigma: &[f64]) -> Option<usize> {
    rules::strongest(sigma, 0..sigma.len())
}

/// A score put on the common scale (cp times `REFERENCE_T / T`); mates stay as they are.
pub(crate) fn on_common_scale(score: Score, win_rate_t: f64) -> Score {
    match score {
        Score::Cp(cp) => Score::Cp((cp as f64 * REFERENCE_T / win_rate_t).round() as i32),
        mate => mate,
    }
}

/// The number of `mv` in `moves`, adding it when new (moves numbered in first-seen order).
fn number<'a>(moves: &mut Vec<&'a str>, mv: &'a str) -> usize {
    moves.iter().position(|m| *m == mv).unwrap_or_else(|| {
        moves.push(mv);
        moves.len() - 1
    })
}

/// The ballots as the simulator's rules take them: moves numbered in first-seen order, values
/// on the common scale. Returns them and the number of distinct moves.
fn plain(ballots: &[Ballot]) -> (Vec<rules::Ballot>, usize) {
    let mut moves: Vec<&str> = Vec::new();
    let plain = ballots
        .iter()
        .map(|b| rules::Ballot {
            mv: number(&mut moves, &b.mv),
            value: common_value(b.eval, b.win_rate_t),
            sigma: b.sigma,
            weight: b.weight,
            yields: b.resigns(),
        })
        .collect();
    (plain, moves.len())
}

/// Approval on the ballots' rankings: the chosen move, the ballot that speaks for it (the
/// strongest member naming it within its top `k`) and whether support and summed rank decided
/// alone.
fn approval(ballots: &[Ballot], k: usize) -> Option<(String, usize, bool)> {
    let mut moves: Vec<&str> = Vec::new();
    let ranked: Vec<Vec<usize>> = ballots
        .iter()
        .map(|b| b.ranking().map(|m| number(&mut moves, m)).collect())
        .collect();
    let sigma: Vec<f64> = ballots.iter().map(|b| b.sigma).collect();
    let weights: Vec<f64> = ballots.iter().map(|b| b.weight).collect();
    let yields: Vec<bool> = ballots.iter().map(Ballot::resigns).collect();
    let outcome = rules::weighted_approval_outcome(&ranked, &sigma, &weights, &yields, k)?;
    let naming = (0..ballots.len()).filter(|&i| ranked[i].iter().take(k).any(|&m| m == outcome.mv));
    let speaker = rules::strongest(&sigma, naming)?;
    Some((moves[outcome.mv].to_string(), speaker, outcome.unique))
}

/// Combine the ballots. Returns `None` only when there are no ballots.
pub fn decide(method: Method, settings: VoteSettings, ballots: &[Ballot]) -> Option<Choice> {
    let (plain, distinct) = plain(ballots);
    let choice = |speaker: usize, rule: Rule| Choice {
        mv: ballots[speaker].mv.clone(),
        rule,
        speaker,
    };
    let speaker_for = |mv: usize| rules::strongest_supporter_of(&plain, mv);
    if distinct == 1 {
        return Some(choice(speaker_for(0)?, Rule::Unanimous));
    }

    // The fastest forced mate; equally fast mates with different moves by majority among them.
    let fastest = ballots
        .iter()
        .filter_map(|b| match b.eval {
            Some(Score::Mate(n)) if n > 0 => Some(n),
            _ => None,
        })
        .min();
    if let Some(n) = fastest {
        let mating: Vec<usize> = (0..ballots.len())
            .filter(|&i| ballots[i].eval == Some(Score::Mate(n)))
            .collect();
        let among: Vec<rules::Ballot> = mating.iter().map(|&i| plain[i]).collect();
        let mv = rules::majority_choice(&among)?;
        let speaker = mating[rules::strongest_supporter_of(&among, mv)?];
        return Some(choice(speaker, Rule::Mate));
    }

    match method {
        Method::Majority => {
            let outcome = rules::majority_outcome(&plain)?;
            let rule = if outcome.plurality {
                Rule::Plurality
            } else {
                Rule::Strongest
            };
            Some(choice(speaker_for(outcome.mv)?, rule))
        }
        Method::Optimistic => Some(choice(rules::optimistic_member(&plain)?, Rule::Optimistic)),
        Method::Pessimistic => Some(choice(
            rules::pessimistic_member(&plain)?,
            Rule::Pessimistic,
        )),
        Method::Ml => Some(choice(
            speaker_for(rules::ml_choice(&plain, settings.d)?)?,
            Rule::Ml,
        )),
        Method::Approval => {
            let (mv, speaker, unique) = approval(ballots, settings.k)?;
            let rule = if unique {
                Rule::Approval
            } else {
                Rule::Strongest
            };
            Some(Choice { mv, rule, speaker })
        }
    }
}

/// A member's moves best first, each with its score when it gave one: its ballot in every
/// round of a [`rank`]ing.
#[derive(Debug, Clone, PartialEq)]
pub struct Voter {
    pub moves: Vec<(String, Option<Score>)>,
    pub win_rate_t: f64,
    pub sigma: f64,
    pub weight: f64,
}

/// One row of a council's ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub mv: String,
    /// The voter that speaks for the move (its score is the row's).
    pub voter: usize,
    /// That voter's score for the move, on its own scale.
    pub eval: Option<Score>,
    pub rule: Rule,
}

/// The council's ranking of moves by its method's own support, at most `n` rows: the first row
/// is [`decide`]'s choice on the voters' ballots, and each next row is the method's choice once
/// the moves already ranked are struck out, every voter then voting for its best move left
/// (with that move's score). With one move a member, the ranking ends when the members' moves
/// are used up; members that give MultiPV lines rank further.
pub fn rank(method: Method, settings: VoteSettings, voters: &[Voter], n: usize) -> Vec<Ranked> {
    let mut rows: Vec<Ranked> = Vec::new();
    while rows.len() < n {
        let ranked = |mv: &str| rows.iter().any(|r| r.mv == mv);
        let mut ballots = Vec::new();
        let mut behind = Vec::new();
        for (i, v) in voters.iter().enumerate() {
            let left: Vec<&(String, Option<Score>)> =
                v.moves.iter().filter(|(mv, _)| !ranked(mv)).collect();
            let Some((mv, eval)) = left.first() else {
                continue;
            };
            ballots.push(Ballot {
                mv: mv.clone(),
                eval: *eval,
                win_rate_t: v.win_rate_t,
                sigma: v.sigma,
                weight: v.weight,
                ranked: left.iter().map(|(m, _)| m.clone()).collect(),
            });
            behind.push(i);
        }
        let Some(choice) = decide(method, settings, &ballots) else {
            break;
        };
        let voter = behind[choice.speaker];
        let eval = voters[voter]
            .moves
            .iter()
            .find(|(mv, _)| *mv == choice.mv)
            .and_then(|(_, e)| *e);
        rows.push(Ranked {
            mv: choice.mv,
            voter,
            eval,
            rule: choice.rule,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ML: VoteSettings = VoteSettings { d: 100.0, k: 2 };

    fn b(mv: &str, eval: Score, sigma: f64) -> Ballot {
        Ballot {
            mv: mv.into(),
            eval: Some(eval),
            win_rate_t: 600.0,
            sigma,
            weight: 1.0,
            ranked: Vec::new(),
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
    fn weights_count_in_majority_approval_and_the_mate_rule() {
        let w = |mv: &str, sigma: f64, weight: f64| Ballot {
            weight,
            ..b(mv, Score::Cp(0), sigma)
        };
        // One member weighing 3 outvotes two of weight 1; its move is played by plurality.
        let v = [
            w("7g7f", 100.0, 1.0),
            w("2g2f", 300.0, 3.0),
            w("7g7f", 200.0, 1.0),
        ];
        let d = pick(Method::Majority, &v);
        assert_eq!(
            (d.mv.as_str(), d.rule, d.speaker),
            ("2g2f", Rule::Plurality, 1)
        );
        let one = VoteSettings { d: 100.0, k: 1 };
        let d = decide(Method::Approval, one, &v).expect("ballots");
        assert_eq!((d.mv.as_str(), d.rule), ("2g2f", Rule::Approval));
        // Weight 2 against 1 + 1: a tie, the strongest member's move.
        let mut v = v;
        v[1].weight = 2.0;
        let d = pick(Method::Majority, &v);
        assert_eq!((d.mv.as_str(), d.rule), ("7g7f", Rule::Strongest));
        // Equally fast mates: the heavier side among the mating members.
        let v = [
            Ballot {
                eval: Some(Score::Mate(3)),
                ..w("G*5b", 100.0, 1.0)
            },
            Ballot {
                eval: Some(Score::Mate(3)),
                ..w("S*4b", 300.0, 2.5)
            },
            Ballot {
                eval: Some(Score::Mate(3)),
                ..w("G*5b", 200.0, 1.0)
            },
        ];
        let d = pick(Method::Majority, &v);
        assert_eq!((d.mv.as_str(), d.rule, d.speaker), ("S*4b", Rule::Mate, 1));
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
        // A = 50 + 200 = 250. The likelihoods of X (two votes) and Y (one vote) straight from
        // the formula, in linear space with e(z) = erf(z / sqrt 2) + 1 = 2 Phi(z).
        let v = [
            b("X", Score::Cp(100), 200.0),
            b("X", Score::Cp(100), 200.0),
            b("Y", Score::Cp(400), 200.0),
        ];
        let a = 250.0;
        let f = |voted: bool, v: f64| {
            let x = (v - a) / 200.0;
            let y = x + 0.5;
            let g = |z: f64| (-z * z / 2.0).exp();
            let e = |z: f64| 2.0 * sim::normal::cdf(z);
            if voted { g(x) * e(y) } else { g(y) * e(x) }
        };
        let lx = f(true, 100.0) * f(true, 100.0) * f(false, 400.0);
        let ly = f(false, 100.0) * f(false, 100.0) * f(true, 400.0);
        assert!(
            (lx.ln() - ly.ln()).abs() > 1e-3,
            "not a near tie: {lx} {ly}"
        );
        let expect = if lx > ly { "X" } else { "Y" };
        let d = pick(Method::Ml, &v);
        assert_eq!((d.mv.as_str(), d.rule), (expect, Rule::Ml));
        // The speaker is the strongest supporter of the chosen move.
        assert_eq!(v[d.speaker].mv, expect);
    }

    #[test]
    fn ml_settles_exact_ties_by_the_tie_rule_not_by_rounding() {
        // 7g7f and 5g5f are voted by equally strong members at the same value: equally likely.
        // The orchestrator's former full-product log-likelihood put them 2e-15 apart by rounding
        // and played 5g5f; the tie rule plays the first listed of the equally strong supporters.
        let mut v = [
            b("resign", Score::Cp(-200), 150.0),
            b("7g7f", Score::Cp(150), 100.0),
            b("5g5f", Score::Cp(150), 100.0),
        ];
        v[0].win_rate_t = 450.0;
        v[1].win_rate_t = 300.0;
        v[2].win_rate_t = 300.0;
        let d = decide(Method::Ml, VoteSettings { d: 300.0, k: 1 }, &v).expect("ballots");
        assert_eq!((d.mv.as_str(), d.speaker), ("7g7f", 1));
        v.swap(1, 2);
        let d = decide(Method::Ml, VoteSettings { d: 300.0, k: 1 }, &v).expect("ballots");
        assert_eq!((d.mv.as_str(), d.speaker), ("5g5f", 1));
    }

    /// A council never resigns on a tie-break: with the strongest member resigning and the two
    /// others disagreeing on moves (gpsshogi's lone `resign` in a majority council), every
    /// method plays on; `resign` wins only when the method's own count says so.
    #[test]
    fn a_lone_resign_never_wins_a_tie() {
        let v = [
            b("resign", Score::Cp(-3000), 50.0),
            b("7g7f", Score::Cp(-400), 100.0),
            b("2g2f", Score::Cp(-350), 200.0),
        ];
        let d = pick(Method::Majority, &v);
        assert_eq!(
            (d.mv.as_str(), d.rule, d.speaker),
            ("7g7f", Rule::Strongest, 1)
        );
        let d = decide(Method::Approval, VoteSettings { d: 100.0, k: 1 }, &v).expect("ballots");
        assert_eq!(
            (d.mv.as_str(), d.rule, d.speaker),
            ("7g7f", Rule::Strongest, 1)
        );
        // Optimistic follows the highest value: a move.
        assert_eq!(pick(Method::Optimistic, &v).mv, "2g2f");
        // Pessimistic's own count is the lowest value: there the resigning member decides.
        assert_eq!(pick(Method::Pessimistic, &v).mv, "resign");
        // Two of three resigning is a plurality: the council resigns.
        let two = [
            v[0].clone(),
            b("resign", Score::Cp(-2000), 300.0),
            v[1].clone(),
        ];
        let d = pick(Method::Majority, &two);
        assert_eq!((d.mv.as_str(), d.rule), ("resign", Rule::Plurality));
        // Pessimistic with the resigning member's value equalled by one that plays on.
        let level = [
            b("resign", Score::Mate(-3), 50.0),
            b("7g7f", Score::Mate(-3), 100.0),
        ];
        assert_eq!(pick(Method::Pessimistic, &level).mv, "7g7f");
    }

    #[test]
    fn equally_fast_mates_go_by_votes_then_the_strongest() {
        let v = [
            b("G*5b", Score::Mate(3), 300.0),
            b("S*4b", Score::Mate(3), 200.0),
            b("G*5b", Score::Mate(3), 250.0),
            b("7g7f", Score::Cp(900), 50.0),
        ];
        let d = pick(Method::Optimistic, &v);
        assert_eq!((d.mv.as_str(), d.rule, d.speaker), ("G*5b", Rule::Mate, 2));
        // One vote each: the strongest mating member.
        let d = pick(Method::Majority, &v[1..]);
        assert_eq!((d.mv.as_str(), d.rule, d.speaker), ("S*4b", Rule::Mate, 0));
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
    fn approval_counts_the_members_top_k() {
        let ranked = |mv: &str, rest: &[&str], sigma: f64| Ballot {
            ranked: rest.iter().map(|m| m.to_string()).collect(),
            ..b(mv, Score::Cp(0), sigma)
        };
        // Everyone's second choice 5g5f is named by all three with k = 2.
        let v = [
            ranked("7g7f", &["7g7f", "5g5f"], 100.0),
            ranked("2g2f", &["5g5f"], 200.0),
            ranked("1g1f", &["5g5f", "1g1f"], 300.0),
        ];
        let d = pick(Method::Approval, &v);
        assert_eq!(
            (d.mv.as_str(), d.rule, d.speaker),
            ("5g5f", Rule::Approval, 0)
        );
        // k = 1: three different first moves, the strongest member's.
        let one = VoteSettings { d: 100.0, k: 1 };
        let d = decide(Method::Approval, one, &v).expect("ballots");
        assert_eq!(
            (d.mv.as_str(), d.rule, d.speaker),
            ("7g7f", Rule::Strongest, 0)
        );
        // A mate still wins before the method.
        let mut v = v;
        v[2].eval = Some(Score::Mate(3));
        assert_eq!(pick(Method::Approval, &v).rule, Rule::Mate);
    }

    fn ballots_strategy() -> impl Strategy<Value = Vec<Ballot>> {
        let moves = prop::sample::select(vec!["7g7f", "2g2f", "5g5f", "1g1f"]);
        let eval = prop_oneof![
            (-2000i32..2000).prop_map(Score::Cp),
            (-15i32..15)
                .prop_filter("nonzero", |n| *n != 0)
                .prop_map(Score::Mate),
        ];
        let ranked = prop::collection::vec(moves.clone(), 0..4);
        prop::collection::vec(
            (moves, eval, 100.0f64..1000.0, 20.0f64..500.0, ranked),
            1..7,
        )
        .prop_map(|v| {
            v.into_iter()
                .enumerate()
                // Distinct sigmas: "strongest" is well defined whatever the order.
                .map(|(i, (m, e, t, s, r))| Ballot {
                    mv: m.to_string(),
                    eval: Some(e),
                    win_rate_t: t,
                    sigma: s + i as f64 * 1e-3,
                    weight: 1.0,
                    ranked: r.into_iter().map(String::from).collect(),
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
            for m in [Method::Majority, Method::Optimistic, Method::Pessimistic, Method::Ml, Method::Approval] {
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
            // Approval: a move the speaker names within its top k.
            let d = pick(Method::Approval, &ballots);
            prop_assert!(ballots[d.speaker].ranking().take(ML.k).any(|m| m == d.mv));
        }

        #[test]
        fn approval_with_k_1_is_majority(ballots in ballots_strategy()) {
            let one = VoteSettings { k: 1, ..ML };
            let a = decide(Method::Approval, one, &ballots).expect("ballots");
            let m = decide(Method::Majority, one, &ballots).expect("ballots");
            prop_assert_eq!(&a.mv, &m.mv);
            prop_assert_eq!(a.speaker, m.speaker);
            let rule = match m.rule { Rule::Plurality => Rule::Approval, r => r };
            prop_assert_eq!(a.rule, rule);
        }
    }

    #[test]
    fn a_ranking_starts_with_the_choice_and_strikes_out_each_ranked_move() {
        let voter = |moves: &[(&str, i32)], sigma: f64| Voter {
            moves: moves
                .iter()
                .map(|(m, cp)| (m.to_string(), Some(Score::Cp(*cp))))
                .collect(),
            win_rate_t: 600.0,
            sigma,
            weight: 1.0,
        };
        let voters = [
            voter(&[("7g7f", 30), ("2g2f", 20)], 100.0),
            voter(&[("2g2f", 40), ("7g7f", 10)], 150.0),
            voter(&[("2g2f", 35), ("5g5f", -5)], 200.0),
        ];
        let ballots: Vec<Ballot> = voters
            .iter()
            .map(|v| Ballot {
                mv: v.moves[0].0.clone(),
                eval: v.moves[0].1,
                win_rate_t: v.win_rate_t,
                sigma: v.sigma,
                weight: v.weight,
                ranked: v.moves.iter().map(|(m, _)| m.clone()).collect(),
            })
            .collect();
        for method in [Method::Majority, Method::Optimistic, Method::Pessimistic] {
            let rows = rank(method, ML, &voters, 5);
            let first = decide(method, ML, &ballots).expect("ballots");
            assert_eq!(rows[0].mv, first.mv, "{method:?}");
            let mut moves: Vec<&str> = rows.iter().map(|r| r.mv.as_str()).collect();
            let n = moves.len();
            moves.sort_unstable();
            moves.dedup();
            assert_eq!(moves.len(), n, "no move twice: {rows:?}");
        }
        // Majority: 2g2f (two votes), then 7g7f (every voter's best move left: 7g7f, 7g7f,
        // 5g5f), then 5g5f; its speaker's own score.
        let rows = rank(Method::Majority, ML, &voters, 5);
        let moves: Vec<&str> = rows.iter().map(|r| r.mv.as_str()).collect();
        assert_eq!(moves, ["2g2f", "7g7f", "5g5f"]);
        assert_eq!((rows[1].voter, rows[1].eval), (0, Some(Score::Cp(30))));
        assert_eq!((rows[2].voter, rows[2].eval), (2, Some(Score::Cp(-5))));
        assert_eq!(rank(Method::Majority, ML, &voters, 1).len(), 1);
        assert!(rank(Method::Majority, ML, &[], 3).is_empty());
    }
}
