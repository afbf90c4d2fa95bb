//! The council methods as pure functions of the members' reports `(B_i, V_i)`.
//!
//! - majority: the move with the most votes (each member's vote counts its weight `w_i`, 1
//!   unless given); without a unique plurality, the strongest member's move.
//! - optimistic / pessimistic: the move of the member reporting the highest / lowest value; among
//!   members reporting exactly that value, the strongest one's.
//! - maximum likelihood: among the distinct voted moves `b`, the one maximising
//!   `prod_i F_i(b)`, `F_i(b) = g(x_i) e(y_i)` if `B_i = b` else `g(y_i) e(x_i)`,
//!   `x_i = (V_i - A) / s_i`, `y_i = x_i + d / s_i`, `g(z) = exp(-z^2/2)`, `e(z) = erf(z/sqrt 2) + 1`.
//!   Dividing by `prod_i g(y_i) e(x_i)` (the same for every `b`) and taking logs, `b` maximises
//!   `sum_{i: B_i = b} D_i` with `D_i = (d/s_i)(x_i + d/(2 s_i)) + ln Phi(y_i) - ln Phi(x_i)`:
//!   the same choice, without underflow and with two normal cdfs per member.
//!   `A` is known (oracle) or predicted: `A_hat = (k - 1)/k d + mean_i V_i`, `k` the number of
//!   distinct voted moves. Among moves with exactly equal likelihood, the move whose strongest
//!   supporter is the strongest.
//!
//! - approval (with `k`): each member names its top `k` moves; the move with the most support
//!   (the summed weights of the members naming it), among equal support the one with the smallest
//!   summed weighted rank (`w_i` times the rank, 1 = a member's first); a tie left after both goes
//!   to the strongest member's first-ranked move. `k = 1` is majority.
//!
//! **Weights** (majority and approval only): `w_i >= 0`, finite. With every weight 1 the sums are
//! the vote counts, exactly as without weights. A tie is *exactly* equal summed weight (and, for
//! approval, exactly equal weighted rank sum), the sums taken in member order in `f64`; weights
//! that are sums of powers of two (1, 0.5, 1.25, 2, ...) add without rounding, so their ties do
//! not depend on member order. A member of weight 0 still votes (its move is among the voted ones
//! and it can break a tie as the strongest) but adds nothing to any move's support.
//!
//! **Tie rule** (one rule for every method, and one code: [`stronger`], [`breaks_before`]): a
//! tie is broken by the *strongest member*, the one with the smallest `s_i`, and among equal `s_i`
//! the member listed first. A *yielding* ballot ([`Ballot::yields`]: the orchestrator's
//! `resign`) wins only by the method's own count, never by the tie rule: every member whose
//! ballot does not yield breaks ties before every member whose ballot does. Majority without a unique plurality plays the strongest member's move;
//! optimistic and pessimistic play the strongest of the members that report the extreme value;
//! maximum likelihood plays, among equally likely moves, the one voted for by the strongest member
//! among their supporters.
//!
//! [`Ballot`] and the functions [`majority_choice`] (with [`majority_outcome`]),
//! [`optimistic_choice`] / [`optimistic_member`], [`pessimistic_choice`] / [`pessimistic_member`],
//! [`ml_choice`] (and [`ml_choice_with_a`]) decide one position from plain ballots (move index,
//! value on the common scale, `s_i`); [`approval_choice`] (with [`approval_outcome`]) from ranked
//! ballots (each member's moves, best first). They are the only implementation of the methods: the
//! orchestrator's `council::vote` turns a real council's answers into these ballots and calls
//! them. [`Voting`] is the same rules with scratch space kept between positions (the
//! simulation's inner loop).
//!
//! Invariant: no method looks at candidate indices except to tell moves apart; every tie is
//! broken by the members' strength and order, never by candidate index.

use super::CouncilParams;
use crate::normal::ln_cdf_ratio;

/// What one member tells the council.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    /// The candidate the member would play.
    pub best: usize,
    /// The value it sees in that candidate.
    pub value: f64,
}

/// Every method's choice for one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choices {
    pub majority: usize,
    pub optimistic: usize,
    pub pessimistic: usize,
    pub ml: usize,
    pub ml_predicted: usize,
}

/// A council's fixed parameters and scratch space for deciding positions.
#[derive(Debug, Clone)]
pub struct Voting {
    sigma: Vec<f64>,
    /// `d / s_i`.
    gap_over_sigma: Vec<f64>,
    gap: f64,
    strongest: usize,
    /// `w_i`, each member's vote weight.
    weight: Vec<f64>,
    /// Members whose ballots yield (empty: none; the simulation's members never do).
    yields: Vec<bool>,
    /// Votes per move (to find the distinct voted moves) and their summed weight.
    votes: Vec<u32>,
    weighed: Vec<f64>,
    score: Vec<f64>,
    /// Distinct voted moves, in order of first vote.
    voted: Vec<usize>,
}

impl Voting {
    pub fn new(params: &CouncilParams) -> Voting {
        Voting::with_sigma(
            params.sigma.clone(),
            params.weights.clone(),
            Vec::new(),
            params.candidates,
            params.gap,
        )
    }

    /// Members with noises `sigma`, vote weights `weight` and yielding ballots `yields` (in
    /// member order; empty: none yields), moves `0..candidates`, gap `d`.
    fn with_sigma(
        sigma: Vec<f64>,
        weight: Vec<f64>,
        yields: Vec<bool>,
        candidates: usize,
        gap: f64,
    ) -> Voting {
        let strongest = strongest_breaker(&sigma, &yields, 0..sigma.len()).unwrap_or(0);
        Voting {
            gap_over_sigma: sigma.iter().map(|s| gap / s).collect(),
            sigma,
            gap,
            strongest,
            weight,
            yields,
            votes: vec![0; candidates],
            weighed: vec![0.0; candidates],
            score: vec![0.0; candidates],
            voted: Vec::with_capacity(candidates),
        }
    }

    /// Counts votes; afterwards `self.voted` lists the distinct moves.
    fn count(&mut self, reports: &[Report]) {
        for &c in &self.voted {
            self.votes[c] = 0;
            self.weighed[c] = 0.0;
        }
        self.voted.clear();
        for (r, w) in reports.iter().zip(&self.weight) {
            if self.votes[r.best] == 0 {
                self.voted.push(r.best);
            }
            self.votes[r.best] += 1;
            self.weighed[r.best] += w;
        }
    }

    /// The majority's move (the most summed weight), and whether it had a unique plurality
    /// (else it is the strongest member's move).
    fn majority_of_counted(&self, reports: &[Report]) -> (usize, bool) {
        let mut best = self.voted[0];
        let mut unique = true;
        for &c in &self.voted[1..] {
            if self.weighed[c] > self.weighed[best] {
                best = c;
                unique = true;
            } else if self.weighed[c] == self.weighed[best] {
                unique = false;
            }
        }
        if unique {
            (best, true)
        } else {
            (reports[self.strongest].best, false)
        }
    }

    /// Majority vote with the strongest member (smallest `s_i`, then first listed) breaking ties.
    pub fn majority(&mut self, reports: &[Report]) -> usize {
        self.count(reports);
        self.majority_of_counted(reports).0
    }

    /// Maximum likelihood among the voted moves, for true best value `a`.
    /// Needs `count` to have run on these reports.
    fn ml_of_counted(&mut self, reports: &[Report], a: f64) -> usize {
        if self.voted.len() == 1 {
            return self.voted[0];
        }
        for &c in &self.voted {
            self.score[c] = 0.0;
        }
        for (i, r) in reports.iter().enumerate() {
            let g = self.gap_over_sigma[i];
            let x = (r.value - a) / self.sigma[i];
            self.score[r.best] += g * (x + 0.5 * g) + ln_cdf_ratio(x + g, x);
        }
        let mut best = self.voted[0];
        for &c in &self.voted[1..] {
            if self.score[c] > self.score[best]
                || (self.score[c] == self.score[best]
                    && stronger_supporter(reports, &self.sigma, &self.yields, c, best))
            {
                best = c;
            }
        }
        best
    }

    /// Maximum likelihood with the true best value `a` known.
    pub fn max_likelihood(&mut self, reports: &[Report], a: f64) -> usize {
        self.count(reports);
        self.ml_of_counted(reports, a)
    }

    /// The predicted best value `(k - 1)/k d + mean V` (after `count`).
    fn predicted_value(&self, reports: &[Report]) -> f64 {
        let k = self.voted.len() as f64;
        let mean = reports.iter().map(|r| r.value).sum::<f64>() / reports.len() as f64;
        (k - 1.0) / k * self.gap + mean
    }

    /// Maximum likelihood with the best value predicted from the reports.
    pub fn max_likelihood_predicted(&mut self, reports: &[Report]) -> usize {
        self.count(reports);
        let a = self.predicted_value(reports);
        self.ml_of_counted(reports, a)
    }

    /// Every method at once (the simulation's inner loop). `a` is the true best value.
    pub fn choose(&mut self, reports: &[Report], a: f64) -> Choices {
        self.count(reports);
        let (majority, _) = self.majority_of_counted(reports);
        let (ml, ml_predicted) = if self.voted.len() == 1 {
            (self.voted[0], self.voted[0])
        } else {
            let predicted = self.predicted_value(reports);
            (
                self.ml_of_counted(reports, a),
                self.ml_of_counted(reports, predicted),
            )
        };
        Choices {
            majority,
            optimistic: reports[extreme_member(reports, &self.sigma, &self.yields, true)].best,
            pessimistic: reports[extreme_member(reports, &self.sigma, &self.yields, false)].best,
            ml,
            ml_predicted,
        }
    }
}

/// The tie rule: whether member `i` is stronger than member `j`, i.e. has the smaller `s_i`, or
/// the same `s_i` and is listed first.
#[inline]
pub fn stronger(sigma: &[f64], i: usize, j: usize) -> bool {
    sigma[i] < sigma[j] || (sigma[i] == sigma[j] && i < j)
}

/// The strongest of the members `candidates` by the tie rule ([`stronger`]); `None` when there
/// are none.
pub fn strongest(sigma: &[f64], candidates: impl IntoIterator<Item = usize>) -> Option<usize> {
    candidates
        .into_iter()
        .reduce(|k, i| if stronger(sigma, i, k) { i } else { k })
}

/// The tie rule with yielding ballots: whether member `i` breaks a tie before member `j`. A
/// member whose ballot does not yield comes before one whose ballot does (`yields[i]`; an empty
/// `yields` is none); otherwise [`stronger`].
#[inline]
pub fn breaks_before(sigma: &[f64], yields: &[bool], i: usize, j: usize) -> bool {
    let (yi, yj) = (yields.get(i) == Some(&true), yields.get(j) == Some(&true));
    if yi != yj {
        return yj;
    }
    stronger(sigma, i, j)
}

/// The member of `candidates` that breaks a tie ([`breaks_before`]); `None` when there are none.
pub fn strongest_breaker(
    sigma: &[f64],
    yields: &[bool],
    candidates: impl IntoIterator<Item = usize>,
) -> Option<usize> {
    candidates.into_iter().reduce(|k, i| {
        if breaks_before(sigma, yields, i, k) {
            i
        } else {
            k
        }
    })
}

/// The strongest member among those voting for `mv` (`None` when nobody does).
fn strongest_supporter(reports: &[Report], sigma: &[f64], mv: usize) -> Option<usize> {
    strongest(sigma, (0..reports.len()).filter(|&i| reports[i].best == mv))
}

/// Whether move `a`'s strongest supporter breaks the tie before move `b`'s (for exact ML ties;
/// cold): a yielding move's supporters come last.
#[cold]
#[inline(never)]
fn stronger_supporter(
    reports: &[Report],
    sigma: &[f64],
    yields: &[bool],
    a: usize,
    b: usize,
) -> bool {
    match (
        strongest_supporter(reports, sigma, a),
        strongest_supporter(reports, sigma, b),
    ) {
        (Some(i), Some(j)) => breaks_before(sigma, yields, i, j),
        _ => false,
    }
}

/// The member reporting the highest value (`highest`) or the lowest; among equal values, the one
/// that breaks the tie ([`breaks_before`]).
#[inline]
fn extreme_member(reports: &[Report], sigma: &[f64], yields: &[bool], highest: bool) -> usize {
    let mut k = 0;
    for (i, r) in reports.iter().enumerate().skip(1) {
        let v = reports[k].value;
        let beyond = if highest { r.value > v } else { r.value < v };
        if beyond || (r.value == v && breaks_before(sigma, yields, i, k)) {
            k = i;
        }
    }
    k
}

/// The move of the member with the highest value; among equal values, the strongest member's
/// (smallest `sigma[i]`, then first listed).
#[inline]
pub fn optimistic(reports: &[Report], sigma: &[f64]) -> usize {
    reports[extreme_member(reports, sigma, &[], true)].best
}

/// The move of the member with the lowest value; among equal values, the strongest member's
/// (smallest `sigma[i]`, then first listed).
#[inline]
pub fn pessimistic(reports: &[Report], sigma: &[f64]) -> usize {
    reports[extreme_member(reports, sigma, &[], false)].best
}

/// One member's ballot for one position, as the orchestrator's vote sees it on plain numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ballot {
    /// The move the member votes for (any index: moves are only told apart).
    pub mv: usize,
    /// Its value of that move on the council's common scale.
    pub value: f64,
    /// The member's noise `s_i` (> 0); smaller is stronger.
    pub sigma: f64,
    /// Its vote weight `w_i` (finite, >= 0; 1 is an ordinary vote). Majority only: the other
    /// methods of plain ballots ignore it.
    pub weight: f64,
    /// Its move wins only by the method's own count, never by the tie rule (the orchestrator's
    /// `resign`): in a tie the members that play on decide ([`breaks_before`]).
    pub yields: bool,
}

/// The ballots as the [`Voting`] rules take them: reports, noises, weights, and a candidate
/// range covering every voted move.
fn split_weighted(ballots: &[Ballot]) -> (Vec<Report>, Vec<f64>, Vec<f64>, usize) {
    let reports = ballots
        .iter()
        .map(|b| Report {
            best: b.mv,
            value: b.value,
        })
        .collect();
    let sigma = ballots.iter().map(|b| b.sigma).collect();
    let weight = ballots.iter().map(|b| b.weight).collect();
    let moves = ballots.iter().map(|b| b.mv).max().map_or(0, |m| m + 1);
    (reports, sigma, weight, moves)
}

fn voting_for(ballots: &[Ballot], gap: f64) -> Option<(Voting, Vec<Report>)> {
    if ballots.is_empty() {
        return None;
    }
    let (reports, sigma, weight, moves) = split_weighted(ballots);
    let yields = ballots.iter().map(|b| b.yields).collect();
    Some((
        Voting::with_sigma(sigma, weight, yields, moves, gap),
        reports,
    ))
}

/// A majority vote: the move, and whether it won by a unique plurality (otherwise it is the
/// strongest member's move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MajorityOutcome {
    pub mv: usize,
    pub plurality: bool,
}

/// Majority with how it was decided; see [`majority_choice`]. `None` without ballots.
pub fn majority_outcome(ballots: &[Ballot]) -> Option<MajorityOutcome> {
    let (mut v, reports) = voting_for(ballots, 1.0)?;
    v.count(&reports);
    let (mv, plurality) = v.majority_of_counted(&reports);
    Some(MajorityOutcome { mv, plurality })
}

/// Majority: the move with the most votes (summed ballot weights); without a unique plurality,
/// the strongest member's move (smallest `s_i`, then first listed). `None` without ballots.
pub fn majority_choice(ballots: &[Ballot]) -> Option<usize> {
    majority_outcome(ballots).map(|o| o.mv)
}

/// The ballot optimistic follows: the one with the highest value; among equal values the
/// strongest member's (one that plays on before one whose ballot yields). `None` without
/// ballots.
pub fn optimistic_member(ballots: &[Ballot]) -> Option<usize> {
    let (v, reports) = voting_for(ballots, 1.0)?;
    Some(extreme_member(&reports, &v.sigma, &v.yields, true))
}

/// The ballot pessimistic follows: the one with the lowest value; among equal values the
/// strongest member's (one that plays on before one whose ballot yields). `None` without
/// ballots.
pub fn pessimistic_member(ballots: &[Ballot]) -> Option<usize> {
    let (v, reports) = voting_for(ballots, 1.0)?;
    Some(extreme_member(&reports, &v.sigma, &v.yields, false))
}

/// Optimistic: the move of [`optimistic_member`]. `None` without ballots.
pub fn optimistic_choice(ballots: &[Ballot]) -> Option<usize> {
    optimistic_member(ballots).map(|i| ballots[i].mv)
}

/// Pessimistic: the move of [`pessimistic_member`]. `None` without ballots.
pub fn pessimistic_choice(ballots: &[Ballot]) -> Option<usize> {
    pessimistic_member(ballots).map(|i| ballots[i].mv)
}

/// The strongest ballot among those voting for `mv` (the one that speaks for it); `None` when
/// nobody does.
pub fn strongest_supporter_of(ballots: &[Ballot], mv: usize) -> Option<usize> {
    let sigma: Vec<f64> = ballots.iter().map(|b| b.sigma).collect();
    strongest(&sigma, (0..ballots.len()).filter(|&i| ballots[i].mv == mv))
}

/// Maximum likelihood with `A` predicted from the votes, `A_hat = (k - 1)/k d + mean_i V_i`
/// (`gap` = `d` > 0): among the voted moves, the most likely to be the best; among exactly equally
/// likely moves, the one whose strongest supporter is the strongest. `None` without ballots.
pub fn ml_choice(ballots: &[Ballot], gap: f64) -> Option<usize> {
    let (mut v, reports) = voting_for(ballots, gap)?;
    Some(v.max_likelihood_predicted(&reports))
}

/// Maximum likelihood with the true best value `a` known (the simulation's oracle); ties as
/// [`ml_choice`]. `None` without ballots.
pub fn ml_choice_with_a(ballots: &[Ballot], gap: f64, a: f64) -> Option<usize> {
    let (mut v, reports) = voting_for(ballots, gap)?;
    Some(v.max_likelihood(&reports, a))
}

/// Approval with the members' top `k` moves: how it was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApprovalOutcome {
    pub mv: usize,
    /// The move led by support, then by summed rank, alone; otherwise it is the strongest
    /// member's first-ranked move (the tie rule).
    pub unique: bool,
}

/// Approval voting with scratch space kept between positions (the simulation's inner loop;
/// [`approval_outcome`] is the same rule on plain ranked ballots).
///
/// Each member names its first `k` distinct moves (best first); a move's support is the summed
/// weight of the members naming it (their number, without weights); among equal support, the
/// smaller sum of the ranks (1 = first) given by the members naming it, each rank times the
/// member's weight, wins; a tie left after both is broken by the tie rule: the strongest
/// member's first-ranked move. With `k = 1` the support is the (weighted) vote count and the
/// rank sum equals it, so approval is majority, ballot for ballot.
#[derive(Debug, Clone)]
pub struct Approval {
    k: usize,
    /// Members naming each move (to find the distinct named moves).
    namers: Vec<u32>,
    support: Vec<f64>,
    rank_sum: Vec<f64>,
    /// Distinct named moves, in order of first naming.
    named: Vec<usize>,
}

impl Approval {
    /// Approval with the top `k` (>= 1) of each member, moves `0..candidates` (grows as needed).
    pub fn new(k: usize, candidates: usize) -> Approval {
        Approval {
            k: k.max(1),
            namers: vec![0; candidates],
            support: vec![0.0; candidates],
            rank_sum: vec![0.0; candidates],
            named: Vec::with_capacity(candidates),
        }
    }

    /// The choice on `ranked` (one list per member, best first; only the first `k` distinct
    /// moves count) with noises `sigma` (member order). `None` when no member names a move.
    pub fn decide(&mut self, ranked: &[Vec<usize>], sigma: &[f64]) -> Option<ApprovalOutcome> {
        self.decide_with(ranked, sigma, &[], |_| 1.0)
    }

    /// [`Approval::decide`] with member `i`'s naming worth `weights[i]` (finite, >= 0), and
    /// `yields[i]` when its first-ranked move wins only by the count (empty: none; see
    /// [`breaks_before`]).
    pub fn decide_weighted(
        &mut self,
        ranked: &[Vec<usize>],
        sigma: &[f64],
        weights: &[f64],
        yields: &[bool],
    ) -> Option<ApprovalOutcome> {
        self.decide_with(ranked, sigma, yields, |i| weights[i])
    }

    fn decide_with(
        &mut self,
        ranked: &[Vec<usize>],
        sigma: &[f64],
        yields: &[bool],
        weight: impl Fn(usize) -> f64,
    ) -> Option<ApprovalOutcome> {
        for &c in &self.named {
            self.namers[c] = 0;
            self.support[c] = 0.0;
            self.rank_sum[c] = 0.0;
        }
        self.named.clear();
        for (member, list) in ranked.iter().enumerate() {
            let w = weight(member);
            let mut rank = 0u32;
            for (i, &mv) in list.iter().enumerate() {
                if rank as usize == self.k {
                    break;
                }
                if list[..i].contains(&mv) {
                    continue;
                }
                rank += 1;
                if mv >= self.support.len() {
                    self.namers.resize(mv + 1, 0);
                    self.support.resize(mv + 1, 0.0);
                    self.rank_sum.resize(mv + 1, 0.0);
                }
                if self.namers[mv] == 0 {
                    self.named.push(mv);
                }
                self.namers[mv] += 1;
                self.support[mv] += w;
                self.rank_sum[mv] += w * f64::from(rank);
            }
        }
        let mut best = *self.named.first()?;
        let mut unique = true;
        for &c in &self.named[1..] {
            let (s, b) = (self.support[c], self.support[best]);
            let (r, rb) = (self.rank_sum[c], self.rank_sum[best]);
            if s > b || (s == b && r < rb) {
                best = c;
                unique = true;
            } else if s == b && r == rb {
                unique = false;
            }
        }
        if unique {
            return Some(ApprovalOutcome { mv: best, unique });
        }
        let strongest = strongest_breaker(
            sigma,
            yields,
            (0..ranked.len()).filter(|&i| !ranked[i].is_empty()),
        )?;
        Some(ApprovalOutcome {
            mv: ranked[strongest][0],
            unique: false,
        })
    }
}

/// Approval with each member's top `k` (see [`Approval`]) on plain ranked ballots: `ranked[i]`
/// is member `i`'s moves, best first, `sigma[i]` its noise. `None` when no member names a move.
pub fn approval_outcome(ranked: &[Vec<usize>], sigma: &[f64], k: usize) -> Option<ApprovalOutcome> {
    let moves = ranked.iter().flatten().max().map_or(0, |m| m + 1);
    Approval::new(k, moves).decide(ranked, sigma)
}

/// [`approval_outcome`] with member `i`'s naming worth `weights[i]` (finite, >= 0), and
/// `yields[i]` when its first-ranked move wins only by the count (empty: none).
pub fn weighted_approval_outcome(
    ranked: &[Vec<usize>],
    sigma: &[f64],
    weights: &[f64],
    yields: &[bool],
    k: usize,
) -> Option<ApprovalOutcome> {
    let moves = ranked.iter().flatten().max().map_or(0, |m| m + 1);
    Approval::new(k, moves).decide_weighted(ranked, sigma, weights, yields)
}

/// The move [`approval_outcome`] chooses.
pub fn approval_choice(ranked: &[Vec<usize>], sigma: &[f64], k: usize) -> Option<usize> {
    approval_outcome(ranked, sigma, k).map(|o| o.mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn voting(sigma: &[f64], candidates: usize, gap: f64) -> Voting {
        Voting::new(&CouncilParams::new(candidates, sigma.to_vec(), gap, vec![]).expect("valid"))
    }

    fn rep(best: usize, value: f64) -> Report {
        Report { best, value }
    }

    #[test]
    fn majority_follows_the_plurality_and_the_strongest_breaks_ties() {
        let mut v = voting(&[2.0, 1.0, 2.0], 5, 1.0);
        assert_eq!(v.majority(&[rep(3, 0.0), rep(4, 0.0), rep(3, 0.0)]), 3);
        // Three different moves: member 2 (index 1, smallest noise) decides.
        assert_eq!(v.majority(&[rep(3, 0.0), rep(4, 0.0), rep(2, 0.0)]), 4);
        let mut v = voting(&[1.0, 1.0, 1.0, 1.0], 5, 1.0);
        // 2-2 split: the first listed among the equally strong decides.
        assert_eq!(
            v.majority(&[rep(1, 0.0), rep(2, 0.0), rep(2, 0.0), rep(1, 0.0)]),
            1
        );
        // 2-1-1: unique plurality even though the strongest voted otherwise.
        assert_eq!(
            v.majority(&[rep(1, 0.0), rep(2, 0.0), rep(2, 0.0), rep(3, 0.0)]),
            2
        );
    }

    #[test]
    fn optimistic_and_pessimistic_follow_the_extreme_values() {
        let r = [rep(0, 0.3), rep(1, 0.9), rep(2, -0.2)];
        assert_eq!(optimistic(&r, &[1.0; 3]), 1);
        assert_eq!(pessimistic(&r, &[1.0; 3]), 2);
    }

    fn ballot(mv: usize, value: f64, sigma: f64) -> Ballot {
        Ballot {
            mv,
            value,
            sigma,
            weight: 1.0,
            yields: false,
        }
    }

    /// A yielding ballot (a `resign`) wins by the count alone: in every method's tie the
    /// members that play on decide, however strong the yielding member is.
    #[test]
    fn a_yielding_ballot_never_wins_a_tie() {
        let resign = |value: f64, sigma: f64| Ballot {
            yields: true,
            ..ballot(9, value, sigma)
        };
        // Majority, three different moves: the strongest member resigns, the next one decides.
        let b = [
            resign(-900.0, 0.5),
            ballot(1, 20.0, 1.0),
            ballot(2, 10.0, 2.0),
        ];
        let o = majority_outcome(&b).expect("ballots");
        assert_eq!((o.mv, o.plurality), (1, false));
        // Two resign against one: the count says resign.
        let b = [
            resign(-900.0, 2.0),
            resign(-800.0, 2.0),
            ballot(1, 20.0, 0.5),
        ];
        assert_eq!(majority_choice(&b), Some(9));
        // Pessimistic: the lowest value resigns (its own count); equally low, the one playing on.
        let b = [ballot(1, 20.0, 1.0), resign(-900.0, 2.0)];
        assert_eq!(pessimistic_choice(&b), Some(9));
        let b = [resign(-900.0, 0.5), ballot(1, -900.0, 2.0)];
        assert_eq!(pessimistic_choice(&b), Some(1));
        let b = [resign(900.0, 0.5), ballot(1, 900.0, 2.0)];
        assert_eq!(optimistic_choice(&b), Some(1));
        // ML, two moves of exactly equal likelihood (mirror images): not the resign.
        let b = [resign(0.0, 0.5), ballot(1, 0.0, 0.5)];
        assert_eq!(ml_choice(&b, 1.0), Some(1));
        // Approval, a tie left after support and rank: the strongest member that plays on.
        let r = vec![vec![9], vec![1], vec![2]];
        let o =
            weighted_approval_outcome(&r, &[0.5, 1.0, 2.0], &[1.0; 3], &[true, false, false], 1)
                .expect("named");
        assert_eq!((o.mv, o.unique), (1, false));
    }

    #[test]
    fn ties_in_value_go_to_the_smallest_sigma_then_the_first_listed() {
        // Optimistic: members 1 and 3 both report the highest value 0.8; member 3 is stronger.
        let b = [
            ballot(4, 0.8, 2.0),
            ballot(1, -0.5, 0.5),
            ballot(2, 0.8, 1.0),
            ballot(3, 0.1, 3.0),
        ];
        assert_eq!(optimistic_choice(&b), Some(2));
        // Pessimistic: members 1 and 4 share the lowest value; member 4 is stronger.
        let b = [
            ballot(0, -0.5, 2.0),
            ballot(1, 0.7, 0.5),
            ballot(2, 0.3, 1.0),
            ballot(3, -0.5, 1.5),
        ];
        assert_eq!(pessimistic_choice(&b), Some(3));
        // Equal sigma among the tied: the first listed of them, whatever the others' sigma.
        let b = [
            ballot(5, 0.1, 0.5),
            ballot(1, 0.9, 1.5),
            ballot(2, 0.9, 1.5),
        ];
        assert_eq!(optimistic_choice(&b), Some(1));
        let b = [
            ballot(5, 0.95, 0.5),
            ballot(1, 0.2, 1.5),
            ballot(2, 0.2, 1.5),
        ];
        assert_eq!(pessimistic_choice(&b), Some(1));
        // Every value equal: the strongest member overall.
        let b = [
            ballot(7, 0.0, 2.0),
            ballot(3, 0.0, 1.0),
            ballot(9, 0.0, 1.0),
        ];
        assert_eq!(optimistic_choice(&b), Some(3));
        assert_eq!(pessimistic_choice(&b), Some(3));
        assert_eq!(optimistic_choice(&[]), None);
        assert_eq!(pessimistic_choice(&[]), None);
    }

    #[test]
    fn majority_without_unique_plurality_follows_the_smallest_sigma_then_order() {
        // 2-2 split: member 3 (sigma 0.5) is the strongest, whatever move it supports.
        let b = [
            ballot(1, 0.0, 1.0),
            ballot(2, 0.0, 1.0),
            ballot(2, 0.0, 0.5),
            ballot(1, 0.0, 2.0),
        ];
        assert_eq!(majority_choice(&b), Some(2));
        // All different, equal sigma: the first listed.
        let b = [
            ballot(6, 0.0, 1.0),
            ballot(4, 0.0, 1.0),
            ballot(5, 0.0, 1.0),
        ];
        assert_eq!(majority_choice(&b), Some(6));
        // A unique plurality wins even against the strongest member.
        let b = [
            ballot(1, 0.0, 0.1),
            ballot(2, 0.0, 1.0),
            ballot(2, 0.0, 1.0),
        ];
        assert_eq!(majority_choice(&b), Some(2));
        assert_eq!(majority_choice(&[]), None);
    }

    #[test]
    fn ml_ties_go_to_the_move_with_the_strongest_supporter() {
        // Two members with the same sigma and value voting different moves: both moves are
        // exactly equally likely (for any A), and the first listed member's move is played.
        let b = [ballot(3, 0.4, 1.0), ballot(1, 0.4, 1.0)];
        assert_eq!(ml_choice(&b, 1.0), Some(3));
        assert_eq!(ml_choice_with_a(&b, 1.0, 0.0), Some(3));
        let b = [ballot(1, 0.4, 1.0), ballot(3, 0.4, 1.0)];
        assert_eq!(ml_choice(&b, 1.0), Some(1));
        // Mirror pairs: moves 1 and 2 each have a member with sigma 2 and one with sigma 1 at
        // the same values, so they tie exactly; move 2's supporters are listed first, but move
        // 1's sigma-1 supporter is listed before move 2's: move 1 wins.
        let b = [
            ballot(2, 0.3, 2.0),
            ballot(1, 0.3, 2.0),
            ballot(1, -0.2, 1.0),
            ballot(2, -0.2, 1.0),
        ];
        assert_eq!(ml_choice(&b, 0.7), Some(1));
        assert_eq!(ml_choice_with_a(&b, 0.7, 0.1), Some(1));
        // Without a tie the likelihood decides: two equal members, the higher value wins.
        let b = [ballot(3, 0.4, 1.0), ballot(1, 0.6, 1.0)];
        assert_eq!(ml_choice(&b, 1.0), Some(1));
        assert_eq!(ml_choice(&[ballot(5, 0.0, 1.0)], 1.0), Some(5));
        assert_eq!(ml_choice(&[], 1.0), None);
    }

    #[test]
    fn predicted_a_is_the_mean_value_plus_the_gap_share() {
        // Values 100, 100, 400 on two moves, d = 100: A = (2 - 1) / 2 * 100 + 200 = 250.
        let mut v = voting(&[200.0; 3], 2, 100.0);
        let reports = [rep(0, 100.0), rep(0, 100.0), rep(1, 400.0)];
        v.count(&reports);
        assert!((v.predicted_value(&reports) - 250.0).abs() < 1e-12);
        let b: Vec<Ballot> = reports
            .iter()
            .map(|r| ballot(r.best, r.value, 200.0))
            .collect();
        assert_eq!(ml_choice(&b, 100.0), ml_choice_with_a(&b, 100.0, 250.0));
    }

    #[test]
    fn members_and_supporters_follow_the_tie_rule() {
        let b = [
            ballot(0, 0.8, 2.0),
            ballot(1, 0.8, 1.0),
            ballot(1, -0.3, 0.5),
            ballot(2, -0.3, 0.5),
        ];
        assert_eq!(optimistic_member(&b), Some(1));
        assert_eq!(pessimistic_member(&b), Some(2));
        assert_eq!(strongest_supporter_of(&b, 1), Some(2));
        assert_eq!(strongest_supporter_of(&b, 3), None);
        assert_eq!(strongest(&[2.0, 0.5, 0.5], 0..3), Some(1));
        assert_eq!(strongest(&[2.0, 0.5, 0.5], [2, 1, 0]), Some(1));
        assert_eq!(strongest(&[1.0], []), None);
        assert_eq!(
            majority_outcome(&b),
            Some(MajorityOutcome {
                mv: 1,
                plurality: true
            })
        );
        assert_eq!(
            majority_outcome(&b[1..]),
            Some(MajorityOutcome {
                mv: 1,
                plurality: true
            })
        );
        assert_eq!(
            majority_outcome(&b[2..]),
            Some(MajorityOutcome {
                mv: 1,
                plurality: false
            })
        );
    }

    #[test]
    fn the_functions_on_ballots_agree_with_voting_on_reports() {
        let sigma = [1.0, 2.0, 2.0, 0.7];
        let mut v = voting(&sigma, 4, 0.8);
        for (k, moves) in [[0, 1, 2, 3], [1, 1, 2, 2], [3, 0, 3, 0], [2, 2, 2, 1]]
            .iter()
            .enumerate()
        {
            let values = [0.3 * k as f64, -0.4, 0.9, 0.1];
            let reports: Vec<Report> = (0..4).map(|i| rep(moves[i], values[i])).collect();
            let ballots: Vec<Ballot> = (0..4)
                .map(|i| ballot(moves[i], values[i], sigma[i]))
                .collect();
            let c = v.choose(&reports, 0.25);
            assert_eq!(majority_choice(&ballots), Some(c.majority));
            assert_eq!(optimistic_choice(&ballots), Some(c.optimistic));
            assert_eq!(pessimistic_choice(&ballots), Some(c.pessimistic));
            assert_eq!(ml_choice_with_a(&ballots, 0.8, 0.25), Some(c.ml));
            assert_eq!(ml_choice(&ballots, 0.8), Some(c.ml_predicted));
        }
    }

    /// The source's likelihood of "`b` is the true best" as written: a product of `g` and `e` in
    /// linear space.
    fn literal_product(reports: &[Report], sigma: &[f64], gap: f64, a: f64, b: usize) -> f64 {
        let g = |z: f64| (-z * z / 2.0).exp();
        // e(z) = erf(z / sqrt 2) + 1, computed as 2 Phi(z): the same number without the
        // cancellation that makes `erf(..) + 1` exactly 0 below z = -6 or so (a proptest case: a
        // member reporting 9 noise widths below A).
        let e = |z: f64| 2.0 * crate::normal::cdf(z);
        reports
            .iter()
            .zip(sigma)
            .map(|(r, s)| {
                let x = (r.value - a) / s;
                let y = x + gap / s;
                if r.best == b {
                    g(x) * e(y)
                } else {
                    g(y) * e(x)
                }
            })
            .product()
    }

    #[test]
    fn approval_counts_support_then_rank_sum_then_the_strongest() {
        let sigma = [1.0, 0.5, 2.0];
        // Move 7 is named by all three, 3 by two: support wins whatever the ranks.
        let r = vec![vec![3, 7], vec![3, 7], vec![9, 7]];
        assert_eq!(approval_choice(&r, &sigma, 2), Some(7));
        // k = 1: only the first moves count: 3 has two votes.
        assert_eq!(approval_choice(&r, &sigma, 1), Some(3));
        // Equal support (2 and 2) and equal rank sums (1 + 2 for move 4, 2 + 1 for move 5): the
        // strongest member (index 1, sigma 0.5) decides with its first move.
        let r = vec![vec![4, 5], vec![5, 4], vec![8, 6]];
        assert_eq!(
            approval_outcome(&r, &sigma, 2),
            Some(ApprovalOutcome {
                mv: 5,
                unique: false
            })
        );
        // Equal support, smaller rank sum wins: 4 gets 1+1, 5 gets 2+2.
        let r = vec![vec![4, 5], vec![4, 5], vec![8, 6]];
        assert_eq!(
            approval_outcome(&r, &sigma, 2),
            Some(ApprovalOutcome {
                mv: 4,
                unique: true
            })
        );
        // A move named twice by one member counts once; a list longer than k is cut.
        let r = vec![vec![1, 1, 2], vec![2, 3, 1]];
        assert_eq!(approval_choice(&r, &[1.0, 1.0], 2), Some(2));
        assert_eq!(approval_choice(&[], &[], 2), None);
        assert_eq!(approval_choice(&[vec![]], &[1.0], 2), None);
    }

    fn weighed(mv: usize, sigma: f64, weight: f64) -> Ballot {
        Ballot {
            weight,
            ..ballot(mv, 0.0, sigma)
        }
    }

    #[test]
    fn weighted_majority_follows_the_heavier_side() {
        // One member of weight 2.5 against two of weight 1: the heavier side wins although it
        // is fewer and the strongest member (sigma 0.5) is among the many.
        let b = [
            weighed(3, 0.5, 1.0),
            weighed(7, 2.0, 2.5),
            weighed(3, 1.0, 1.0),
        ];
        let o = majority_outcome(&b).expect("ballots");
        assert_eq!((o.mv, o.plurality), (7, true));
        // Weight 2: 2 against 2 is a tie, compared exactly: the strongest member decides.
        let b = [
            weighed(3, 0.5, 1.0),
            weighed(7, 2.0, 2.0),
            weighed(3, 1.0, 1.0),
        ];
        let o = majority_outcome(&b).expect("ballots");
        assert_eq!((o.mv, o.plurality), (3, false));
        // Weight 0 adds nothing: the others' 1-1 split is a tie, and the weightless member,
        // the strongest, still breaks it.
        let b = [
            weighed(5, 0.1, 0.0),
            weighed(3, 1.0, 1.0),
            weighed(7, 2.0, 1.0),
        ];
        let o = majority_outcome(&b).expect("ballots");
        assert_eq!((o.mv, o.plurality), (5, false));
        // The simulation's Voting takes the weights from CouncilParams.
        let params = CouncilParams::new(8, vec![0.5, 2.0, 1.0], 1.0, vec![])
            .and_then(|p| p.with_weights(vec![1.0, 2.5, 1.0]))
            .expect("valid");
        let mut v = Voting::new(&params);
        assert_eq!(v.majority(&[rep(3, 0.0), rep(7, 0.0), rep(3, 0.0)]), 7);
        assert_eq!(
            v.choose(&[rep(3, 0.0), rep(7, 0.0), rep(3, 0.0)], 0.0)
                .majority,
            7
        );
    }

    #[test]
    fn weighted_approval_sums_weights_then_weighted_ranks() {
        let sigma = [1.0, 0.5, 2.0];
        // Unweighted, moves 3 and 4 tie (support 2, rank sum 3) and the strongest member's
        // first move, 4, is played; member 3 weighing 3 gives its move 9 support 3 against 2.
        let r = vec![vec![3, 4], vec![4, 3], vec![9, 5]];
        assert_eq!(approval_choice(&r, &sigma, 2), Some(4));
        let w = [1.0, 1.0, 3.0];
        let o = weighted_approval_outcome(&r, &sigma, &w, &[], 2).expect("named");
        assert_eq!((o.mv, o.unique), (9, true));
        // Equal weighted support (2 for move 3: 1 + 1; 2 for move 9: member 3 weighing 2), then
        // the weighted rank sum: move 3 gets 1 + 2 = 3, move 9 gets 2 x 1 = 2: 9 wins.
        let w = [1.0, 1.0, 2.0];
        let o = weighted_approval_outcome(&r, &sigma, &w, &[], 2).expect("named");
        assert_eq!((o.mv, o.unique), (9, true));
        // Weights all 1 are the unweighted rule.
        assert_eq!(
            weighted_approval_outcome(&r, &sigma, &[1.0; 3], &[], 2),
            approval_outcome(&r, &sigma, 2)
        );
        // Support and weighted rank sum both equal: the strongest member's first move.
        let r = vec![vec![3, 9], vec![9, 3]];
        let o = weighted_approval_outcome(&r, &[2.0, 1.0], &[1.5, 1.5], &[], 2).expect("named");
        assert_eq!((o.mv, o.unique), (9, false));
    }

    /// Majority as it was before weights: vote counts in `u32`, a unique plurality or the
    /// strongest member's move.
    fn counted_majority(ballots: &[Ballot]) -> MajorityOutcome {
        let mut votes = std::collections::BTreeMap::<usize, u32>::new();
        for b in ballots {
            *votes.entry(b.mv).or_default() += 1;
        }
        let most = votes.values().copied().max().unwrap_or(0);
        let top: Vec<usize> = votes
            .iter()
            .filter(|e| *e.1 == most)
            .map(|e| *e.0)
            .collect();
        if top.len() == 1 {
            return MajorityOutcome {
                mv: top[0],
                plurality: true,
            };
        }
        let sigma: Vec<f64> = ballots.iter().map(|b| b.sigma).collect();
        let s = strongest(&sigma, 0..ballots.len()).expect("ballots");
        MajorityOutcome {
            mv: ballots[s].mv,
            plurality: false,
        }
    }

    proptest! {
        #[test]
        fn weights_of_one_vote_as_counts_did(
            members in prop::collection::vec((0usize..4, 0.5f64..2.0), 1..8),
        ) {
            let b: Vec<Ballot> = members
                .iter()
                .map(|&(mv, s)| ballot(mv, 0.0, (s * 2.0).round() / 2.0))
                .collect();
            prop_assert_eq!(majority_outcome(&b), Some(counted_majority(&b)));
        }

        #[test]
        fn weighted_approval_with_k_1_is_weighted_majority(
            members in prop::collection::vec(
                (0usize..4, prop::collection::vec(0usize..4, 0..3), 0.5f64..2.0, 0u8..6),
                1..7,
            ),
        ) {
            // Weights on a grid of halves (sums exact), some 0; sigma coarse so ties happen.
            let sigma: Vec<f64> = members.iter().map(|m| (m.2 * 2.0).round() / 2.0).collect();
            let weights: Vec<f64> = members.iter().map(|m| f64::from(m.3) / 2.0).collect();
            let ranked: Vec<Vec<usize>> = members
                .iter()
                .map(|(first, rest, _, _)| std::iter::once(*first).chain(rest.iter().copied()).collect())
                .collect();
            let ballots: Vec<Ballot> = members
                .iter()
                .zip(sigma.iter().zip(&weights))
                .map(|(m, (&s, &w))| weighed(m.0, s, w))
                .collect();
            let a = weighted_approval_outcome(&ranked, &sigma, &weights, &[], 1).expect("ballots");
            let m = majority_outcome(&ballots).expect("ballots");
            prop_assert_eq!(a.mv, m.mv);
            prop_assert_eq!(a.unique, m.plurality);
        }

        #[test]
        fn log_space_ml_chooses_what_the_literal_product_chooses(
            members in prop::collection::vec((0usize..4, -2.0f64..3.0, 0.3f64..3.0), 2..6),
            gap in 0.2f64..2.0,
            a in -1.0f64..1.0,
        ) {
            let reports: Vec<Report> = members.iter().map(|&(b, v, _)| rep(b, v)).collect();
            let sigma: Vec<f64> = members.iter().map(|m| m.2).collect();
            let fast = voting(&sigma, 4, gap).max_likelihood(&reports, a);
            let p = |b| literal_product(&reports, &sigma, gap, a, b);
            let best = reports.iter().map(|r| p(r.best)).fold(f64::MIN, f64::max);
            prop_assert!(reports.iter().any(|r| r.best == fast));
            // The chosen move's likelihood is the largest (up to rounding in the products).
            prop_assert!(p(fast) >= best * (1.0 - 1e-9), "chose {fast}: {} < {best}", p(fast));
        }

        #[test]
        fn approval_with_k_1_is_majority(
            members in prop::collection::vec((0usize..4, prop::collection::vec(0usize..4, 0..3), 0.5f64..2.0), 1..7),
        ) {
            // Some sigma equal (a coarse grid) so the tie rule is exercised.
            let sigma: Vec<f64> = members.iter().map(|m| (m.2 * 2.0).round() / 2.0).collect();
            let ranked: Vec<Vec<usize>> = members
                .iter()
                .map(|(first, rest, _)| std::iter::once(*first).chain(rest.iter().copied()).collect())
                .collect();
            let ballots: Vec<Ballot> = members
                .iter()
                .zip(&sigma)
                .map(|(m, &s)| ballot(m.0, 0.0, s))
                .collect();
            let a = approval_outcome(&ranked, &sigma, 1).expect("ballots");
            let m = majority_outcome(&ballots).expect("ballots");
            prop_assert_eq!(a.mv, m.mv);
            prop_assert_eq!(a.unique, m.plurality);
        }

        #[test]
        fn choices_do_not_depend_on_member_order(
            members in prop::collection::vec((0usize..4, -2.0f64..3.0), 2..6),
            gap in 0.2f64..2.0,
            seed in 0u64..1000,
        ) {
            // Distinct noises, so "strongest" and every value are unambiguous after shuffling.
            let sigma: Vec<f64> = (0..members.len()).map(|i| 0.5 + 0.37 * i as f64).collect();
            let mut values: Vec<f64> = members.iter().map(|m| m.1).collect();
            values.sort_by(f64::total_cmp);
            prop_assume!(values.windows(2).all(|w| w[0] != w[1]));
            let reports: Vec<Report> = members.iter().map(|&(b, v)| rep(b, v)).collect();
            let mut order: Vec<usize> = (0..members.len()).collect();
            order.rotate_left(seed as usize % members.len());
            order.swap(0, members.len() - 1);
            let shuffled_sigma: Vec<f64> = order.iter().map(|&i| sigma[i]).collect();
            let shuffled: Vec<Report> = order.iter().map(|&i| reports[i]).collect();
            let a = voting(&sigma, 4, gap).choose(&reports, 0.0);
            let b = voting(&shuffled_sigma, 4, gap).choose(&shuffled, 0.0);
            // Only the ML sums could differ, by rounding, and only at an exact tie.
            prop_assert_eq!(a.majority, b.majority);
            prop_assert_eq!(a.optimistic, b.optimistic);
            prop_assert_eq!(a.pessimistic, b.pessimistic);
            prop_assert_eq!(a.ml, b.ml);
            prop_assert_eq!(a.ml_predicted, b.ml_predicted);
        }
    }
}
