//! Monte Carlo trials of the council model: every method and the members' agreement counted in
//! the same pass over the same perceived positions.
//!
//! Per trial, in this order (the order fixes what a seed means): member by member, candidate by
//! candidate, one standard normal each (rand_distr's ziggurat, drawn in blocks, see
//! `streams::NormalBlock`); then one uniform per sync pair in the order given; then the vote.

use rand::RngExt;
use serde::Serialize;

use super::CouncilParams;
use super::methods::{Approval, Report, Voting};
use crate::moments::{Count, Rate};
use crate::streams::{self, Batch, NormalBlock, SimRng};

/// Counts from a council run (mergeable across batches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CouncilCounts {
    pub single: Vec<Count>,
    pub majority: Count,
    pub optimistic: Count,
    pub pessimistic: Count,
    pub ml: Count,
    pub ml_predicted: Count,
    /// `agreement[i][j]`: trials in which members `i` and `j` chose the same move.
    pub agreement: Vec<Vec<Count>>,
}

impl CouncilCounts {
    fn new(members: usize) -> CouncilCounts {
        CouncilCounts {
            single: vec![Count::default(); members],
            majority: Count::default(),
            optimistic: Count::default(),
            pessimistic: Count::default(),
            ml: Count::default(),
            ml_predicted: Count::default(),
            agreement: vec![vec![Count::default(); members]; members],
        }
    }

    fn merge(&mut self, o: &CouncilCounts) {
        for (a, b) in self.single.iter_mut().zip(&o.single) {
            a.merge(b);
        }
        self.majority.merge(&o.majority);
        self.optimistic.merge(&o.optimistic);
        self.pessimistic.merge(&o.pessimistic);
        self.ml.merge(&o.ml);
        self.ml_predicted.merge(&o.ml_predicted);
        for (ra, rb) in self.agreement.iter_mut().zip(&o.agreement) {
            for (a, b) in ra.iter_mut().zip(rb) {
                a.merge(b);
            }
        }
    }
}

/// Rates with standard errors, as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CouncilRates {
    pub single: Vec<Rate>,
    pub majority: Rate,
    pub optimistic: Rate,
    pub pessimistic: Rate,
    pub ml: Rate,
    pub ml_predicted: Rate,
}

/// The outcome of a council run.
#[derive(Debug, Clone, PartialEq)]
pub struct CouncilRun {
    pub params: CouncilParams,
    pub trials: u64,
    pub seed: u64,
    pub counts: CouncilCounts,
}

impl CouncilRun {
    pub fn rates(&self) -> CouncilRates {
        let c = &self.counts;
        CouncilRates {
            single: c.single.iter().map(|&x| x.into()).collect(),
            majority: c.majority.into(),
            optimistic: c.optimistic.into(),
            pessimistic: c.pessimistic.into(),
            ml: c.ml.into(),
            ml_predicted: c.ml_predicted.into(),
        }
    }

    /// Pairwise agreement rates (1 on the diagonal).
    pub fn agreement(&self) -> Vec<Vec<f64>> {
        self.counts
            .agreement
            .iter()
            .map(|row| row.iter().map(|c| c.rate()).collect())
            .collect()
    }
}

/// One trial's perceptions: member `i` sees candidate 0 (the true best, worth 0) as `s_i Z` and
/// every other as `-d + s_i Z`, and reports its best. Then the sync pairs copy reports.
#[inline]
pub fn perceive(
    params: &CouncilParams,
    rng: &mut SimRng,
    normals: &mut NormalBlock,
    reports: &mut [Report],
) {
    perceive_ranked(params, rng, normals, reports, &mut [], 0);
}

/// [`perceive`], and with `k > 0` also each member's top `k` candidates by its perceived values,
/// best first, into `ranked` (one list per member; a synced member copies the list too). The
/// same draws as [`perceive`], so a seed means the same positions for every method.
#[inline]
pub fn perceive_ranked(
    params: &CouncilParams,
    rng: &mut SimRng,
    normals: &mut NormalBlock,
    reports: &mut [Report],
    ranked: &mut [Vec<usize>],
    k: usize,
) {
    let (d, n) = (params.gap, params.candidates);
    let z = normals.take(rng, n * reports.len());
    for (i, ((report, &s), z)) in reports
        .iter_mut()
        .zip(&params.sigma)
        .zip(z.chunks_exact(n))
        .enumerate()
    {
        let mut best = 0;
        let mut value = s * z[0];
        for (j, &zj) in z.iter().enumerate().skip(1) {
            let v = s * zj - d;
            if v > value {
                value = v;
                best = j;
            }
        }
        *report = Report { best, value };
        if k > 0 {
            let perceived = |j: usize| s * z[j] - if j == 0 { 0.0 } else { d };
            let list = &mut ranked[i];
            list.clear();
            list.extend(0..n);
            list.sort_by(|&a, &b| perceived(b).total_cmp(&perceived(a)));
            list.truncate(k);
        }
    }
    for p in &params.syncs {
        let u: f64 = rng.random();
        if u < p.rho {
            reports[p.to] = reports[p.from];
            if k > 0 {
                let from = ranked[p.from].clone();
                ranked[p.to] = from;
            }
        }
    }
}

/// One placeholder report per member, overwritten by every [`perceive`].
fn blank_reports(members: usize) -> Vec<Report> {
    vec![
        Report {
            best: 0,
            value: 0.0
        };
        members
    ]
}

fn run_batch(params: &CouncilParams, batch: Batch) -> CouncilCounts {
    let mut rng = batch.rng;
    let members = params.members();
    let mut normals = NormalBlock::default();
    let mut reports = blank_reports(members);
    let mut voting = Voting::new(params);
    let mut single = vec![0u64; members];
    let mut agree = vec![0u64; members * members];
    let mut hits = [0u64; 5];
    for _ in 0..batch.items {
        perceive(params, &mut rng, &mut normals, &mut reports);
        let c = voting.choose(&reports, 0.0);
        for (i, r) in reports.iter().enumerate() {
            single[i] += u64::from(r.best == 0);
            for (j, q) in reports.iter().enumerate().skip(i + 1) {
                agree[i * members + j] += u64::from(r.best == q.best);
            }
        }
        hits[0] += u64::from(c.majority == 0);
        hits[1] += u64::from(c.optimistic == 0);
        hits[2] += u64::from(c.pessimistic == 0);
        hits[3] += u64::from(c.ml == 0);
        hits[4] += u64::from(c.ml_predicted == 0);
    }
    let n = batch.items;
    let count = |hits| Count { hits, trials: n };
    let mut out = CouncilCounts::new(members);
    for i in 0..members {
        out.single[i] = count(single[i]);
        out.agreement[i][i] = count(n);
        for j in i + 1..members {
            out.agreement[i][j] = count(agree[i * members + j]);
            out.agreement[j][i] = out.agreement[i][j];
        }
    }
    out.majority = count(hits[0]);
    out.optimistic = count(hits[1]);
    out.pessimistic = count(hits[2]);
    out.ml = count(hits[3]);
    out.ml_predicted = count(hits[4]);
    out
}

/// Runs `trials` trials (at least one) with master seed `seed` on the current rayon pool.
pub fn simulate(
    params: &CouncilParams,
    trials: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> CouncilRun {
    let trials = trials.max(1);
    let mut counts = CouncilCounts::new(params.members());
    streams::run(
        seed,
        trials,
        |b| run_batch(params, b),
        |r| counts.merge(&r),
        progress,
    );
    CouncilRun {
        params: params.clone(),
        trials,
        seed,
        counts,
    }
}

/// The approval method with each member's top `k` (`sim::council::methods::Approval`): its
/// best-move count over `trials` trials (at least one) with master seed `seed`, on the same
/// perceived positions as [`simulate`] with that seed.
pub fn simulate_approval(
    params: &CouncilParams,
    k: usize,
    trials: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Count {
    let trials = trials.max(1);
    let mut total = Count::default();
    streams::run(
        seed,
        trials,
        |batch| {
            let mut rng = batch.rng;
            let members = params.members();
            let mut normals = NormalBlock::default();
            let mut reports = blank_reports(members);
            let mut ranked = vec![Vec::with_capacity(params.candidates); members];
            let mut approval = Approval::new(k, params.candidates);
            let mut hits = 0u64;
            for _ in 0..batch.items {
                perceive_ranked(
                    params,
                    &mut rng,
                    &mut normals,
                    &mut reports,
                    &mut ranked,
                    k.max(1),
                );
                let choice = approval
                    .decide_weighted(&ranked, &params.sigma, &params.weights, &[])
                    .map(|o| o.mv);
                hits += u64::from(choice == Some(0));
            }
            Count {
                hits,
                trials: batch.items,
            }
        },
        |c| total.merge(&c),
        progress,
    );
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_with_k_1_counts_what_majority_counts_on_the_same_positions() {
        let params = CouncilParams::new(
            4,
            vec![0.8, 1.0, 1.0, 1.6],
            1.0,
            vec![super::super::SyncPair {
                from: 0,
                to: 2,
                rho: 0.3,
            }],
        )
        .expect("valid");
        let run = simulate(&params, 20_000, 7, &|_| {});
        assert_eq!(
            simulate_approval(&params, 1, 20_000, 7, &|_| {}),
            run.counts.majority
        );
        // Wider ballots change the choice on some positions.
        assert_ne!(
            simulate_approval(&params, 2, 20_000, 7, &|_| {}),
            run.counts.majority
        );
    }
}
