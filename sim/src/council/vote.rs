//! The council methods as pure functions of the members' reports `(B_i, V_i)`.
//!
//! - majority: the move with the most votes; without a unique plurality, the strongest member's
//!   move (smallest `s_i`, first listed among equals).
//! - optimistic / pessimistic: the move of the member reporting the highest / lowest value
//!   (first listed among equals).
//! - maximum likelihood: among the distinct voted moves `b`, the one maximising
//!   `prod_i F_i(b)`, `F_i(b) = g(x_i) e(y_i)` if `B_i = b` else `g(y_i) e(x_i)`,
//!   `x_i = (V_i - A) / s_i`, `y_i = x_i + d / s_i`, `g(z) = exp(-z^2/2)`, `e(z) = erf(z/sqrt 2) + 1`.
//!   Dividing by `prod_i g(y_i) e(x_i)` (the same for every `b`) and taking logs, `b` maximises
//!   `sum_{i: B_i = b} D_i` with `D_i = (d/s_i)(x_i + d/(2 s_i)) + ln Phi(y_i) - ln Phi(x_i)`:
//!   the same choice, without underflow and with two normal cdfs per member.
//!   `A` is known (oracle) or predicted: `A_hat = (k - 1)/k d + mean_i V_i`, `k` the number of
//!   distinct voted moves.
//!
//! Invariant: no method looks at candidate indices except to tell moves apart; every tie is
//! broken by member order.

use statrs::function::erf::erfc;

use super::CouncilParams;

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

/// `ln Phi(z)` for the standard normal cdf, accurate in both tails.
pub fn ln_normal_cdf(z: f64) -> f64 {
    const FRAC_1_SQRT_2: f64 = std::f64::consts::FRAC_1_SQRT_2;
    if z > 0.0 {
        (-0.5 * erfc(z * FRAC_1_SQRT_2)).ln_1p()
    } else if z > -30.0 {
        (0.5 * erfc(-z * FRAC_1_SQRT_2)).ln()
    } else {
        // Mills ratio series (Abramowitz & Stegun 26.2.12); the first omitted term is
        // 105 / z^8 < 2e-10 relative here.
        let r = 1.0 / (z * z);
        -0.5 * z * z - (-z).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
            + (1.0 - r + 3.0 * r * r - 15.0 * r * r * r).ln()
    }
}

/// `ln(Phi(y) / Phi(x))` for `y > x`: one logarithm of a ratio of two `erfc`s (relative accuracy
/// of `erfc` holds for all arguments above -30), the series of [`ln_normal_cdf`] further out.
#[inline]
pub fn ln_normal_cdf_ratio(y: f64, x: f64) -> f64 {
    const FRAC_1_SQRT_2: f64 = std::f64::consts::FRAC_1_SQRT_2;
    if x > -30.0 {
        (erfc(-y * FRAC_1_SQRT_2) / erfc(-x * FRAC_1_SQRT_2)).ln()
    } else {
        ln_normal_cdf(y) - ln_normal_cdf(x)
    }
}

/// A council's fixed parameters and scratch space for deciding positions.
#[derive(Debug, Clone)]
pub struct Voting {
    sigma: Vec<f64>,
    /// `d / s_i`.
    gap_over_sigma: Vec<f64>,
    gap: f64,
    strongest: usize,
    votes: Vec<u32>,
    score: Vec<f64>,
    /// Distinct voted moves, in order of first vote.
    voted: Vec<usize>,
}

impl Voting {
    pub fn new(params: &CouncilParams) -> Voting {
        Voting {
            sigma: params.sigma.clone(),
            gap_over_sigma: params.sigma.iter().map(|s| params.gap / s).collect(),
            gap: params.gap,
            strongest: params.strongest(),
            votes: vec![0; params.candidates],
            score: vec![0.0; params.candidates],
            voted: Vec::with_capacity(params.candidates),
        }
    }

    /// Counts votes; afterwards `self.voted` lists the distinct moves.
    fn count(&mut self, reports: &[Report]) {
        for &c in &self.voted {
            self.votes[c] = 0;
        }
        self.voted.clear();
        for r in reports {
            if self.votes[r.best] == 0 {
                self.voted.push(r.best);
            }
            self.votes[r.best] += 1;
        }
    }

    fn majority_of_counted(&self, reports: &[Report]) -> usize {
        let mut best = self.voted[0];
        let mut unique = true;
        for &c in &self.voted[1..] {
            if self.votes[c] > self.votes[best] {
                best = c;
                unique = true;
            } else if self.votes[c] == self.votes[best] {
                unique = false;
            }
        }
        if unique {
            best
        } else {
            reports[self.strongest].best
        }
    }

    /// Majority vote with the strongest member breaking ties.
    pub fn majority(&mut self, reports: &[Report]) -> usize {
        self.count(reports);
        self.majority_of_counted(reports)
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
            self.score[r.best] += g * (x + 0.5 * g) + ln_normal_cdf_ratio(x + g, x);
        }
        let mut best = self.voted[0];
        for &c in &self.voted[1..] {
            if self.score[c] > self.score[best] {
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
        let majority = self.majority_of_counted(reports);
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
            optimistic: optimistic(reports),
            pessimistic: pessimistic(reports),
            ml,
            ml_predicted,
        }
    }
}

/// The move of the member with the highest value.
pub fn optimistic(reports: &[Report]) -> usize {
    let mut k = 0;
    for (i, r) in reports.iter().enumerate() {
        if r.value > reports[k].value {
            k = i;
        }
    }
    reports[k].best
}

/// The move of the member with the lowest value.
pub fn pessimistic(reports: &[Report]) -> usize {
    let mut k = 0;
    for (i, r) in reports.iter().enumerate() {
        if r.value < reports[k].value {
            k = i;
        }
    }
    reports[k].best
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
        assert_eq!(optimistic(&r), 1);
        assert_eq!(pessimistic(&r), 2);
    }

    #[test]
    fn ln_normal_cdf_matches_known_values_and_is_continuous() {
        // Phi(0) = 1/2, Phi(-1.959963984540054) = 0.025, Phi(1) = 0.8413447460685429.
        assert!((ln_normal_cdf(0.0) - 0.5f64.ln()).abs() < 1e-15);
        assert!((ln_normal_cdf(-1.959963984540054) - 0.025f64.ln()).abs() < 1e-9);
        assert!((ln_normal_cdf(1.0) - 0.841_344_746_068_542_9f64.ln()).abs() < 1e-10);
        // Both sides of the switch to the asymptotic series agree.
        let (a, b) = (ln_normal_cdf(-30.0 + 1e-9), ln_normal_cdf(-30.0 - 1e-9));
        assert!((a - b).abs() < 1e-6 * a.abs(), "{a} {b}");
        assert!(ln_normal_cdf(-200.0).is_finite());
        for (y, x) in [(1.0, -0.5), (-29.0, -31.0), (5.0, 4.0), (-40.0, -41.0)] {
            let direct = ln_normal_cdf(y) - ln_normal_cdf(x);
            assert!((ln_normal_cdf_ratio(y, x) - direct).abs() < 1e-9 * direct.abs().max(1.0));
        }
    }

    /// The source's likelihood of "`b` is the true best" as written: a product of `g` and `e` in
    /// linear space.
    fn literal_product(reports: &[Report], sigma: &[f64], gap: f64, a: f64, b: usize) -> f64 {
        let g = |z: f64| (-z * z / 2.0).exp();
        // e(z) = erf(z / sqrt 2) + 1, computed as erfc(-z / sqrt 2): the same number without
        // the cancellation that makes `erf(..) + 1` exactly 0 below z = -6 or so (a proptest
        // case: a member reporting 9 noise widths below A).
        let e = |z: f64| statrs::function::erf::erfc(-z / std::f64::consts::SQRT_2);
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

    proptest! {
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
