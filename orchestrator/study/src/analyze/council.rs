//! `council-analyze council`: the council model (models.md section 3) held against a run's real
//! councils. From the recorded votes (and, given a reference analysis of the same games, the
//! reference's best move of each position) it estimates each member's noise `s_i / d` and each
//! pair's sync `rho`, predicts every method's best-move rate with those parameters (the
//! simulator's Monte Carlo, seeded), and sets the measured rates beside them: what each method
//! would have played on the recorded ballots, through the council's own vote.
//!
//! Estimation, stated so it can be argued with: with a reference, member `i`'s best-move rate
//! `p_i` is measured and `s_i / d` inverts the model's single-member rate for `n` candidates;
//! `rho_ij = (a_ij - a0_ij) / (1 - a0_ij)`, `a0_ij` the agreement of independent members. Without
//! a reference, the `p_i` are the least-squares solution of the independent-agreement equations
//! (so `rho = 0` by assumption, and at least three members are needed). `n` is a parameter.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use sim::council::estimate::{noise_for_rate, rates_from_agreement};
use sim::council::exact::{agreement, single_rate};
use sim::council::simulate::{simulate, simulate_approval};
use sim::council::{CouncilParams, SyncPair};
use sim::error::SimError;
use sim::moments::Count;
use thiserror::Error;

use super::analysis::{self, AnalysisError};
use super::moves::read_games;
use super::{Output, sorted_json};
use council_players::council::vote::{Ballot, VoteSettings, decide};
use council_schema::config::CouncilSettings;
use council_schema::results::GameResult;
use council_schema::results::votes::{CouncilVote, Method};
use council_schema::run::RunInfo;
use council_schema::run::plan::RunPlan;

/// Why `council` has no report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CouncilError {
    #[error("--candidates must be at least 2")]
    Candidates,
    /// The run's games could not be read, or one does not replay.
    #[error(transparent)]
    Games(#[from] super::moves::GamesError),
    /// The run's `run.json` cannot be read, or (an older build's) its config not validated.
    #[error(transparent)]
    RunInfo(#[from] council_schema::run::RunInfoError),
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error(
        "council {council}: the analysis has none of its positions (analyse this run with council-analyze moves, --skip-plies low enough)"
    )]
    NoAnalysedPosition { council: String },
    #[error(
        "council {council}: with {members} members the agreements cannot tell the members' noise apart; give --analysis FILE (council-analyze moves)"
    )]
    TooFewMembers { council: String, members: usize },
    #[error(transparent)]
    Model(#[from] SimError),
    #[error("{}: no council voted in this run", .run.display())]
    NoCouncil { run: PathBuf },
}

/// A rate with its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    pub rate: f64,
    pub se: f64,
    pub n: usize,
}

impl Rate {
    fn of((hits, n): (usize, usize)) -> Option<Rate> {
        let count = Count {
            hits: hits as u64,
            trials: n as u64,
        };
        (n > 0).then(|| Rate {
            rate: count.rate(),
            se: count.standard_error(),
            n,
        })
    }
}

/// One member's estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberEstimate {
    pub name: String,
    /// Its best-move rate against the reference (with a reference), or as the agreements imply.
    pub best_move_rate: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Rate>,
    /// `s_i / d`.
    pub noise: f64,
    /// The model's best-move rate for this member alone.
    pub predicted: f64,
}

/// One pair of members.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairEstimate {
    pub a: String,
    pub b: String,
    pub agreement: Rate,
    /// The agreement of independent members with the estimated rates.
    pub independent: f64,
    pub sync: f64,
}

/// One method's rates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodRates {
    pub method: String,
    pub predicted: f64,
    pub predicted_se: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Rate>,
}

/// One council's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CouncilReport {
    pub name: String,
    pub method: String,
    pub decisions: usize,
    /// Decisions with a reference best move.
    pub analysed: usize,
    pub candidates: usize,
    pub members: Vec<MemberEstimate>,
    pub pairs: Vec<PairEstimate>,
    pub methods: Vec<MethodRates>,
    pub trials: u64,
    pub seed: u64,
}

/// `council`'s report: every council of the run that voted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CouncilsReport {
    pub councils: Vec<CouncilReport>,
}

/// The model's settings for the predictions.
#[derive(Debug, Clone, Copy)]
pub struct ModelSettings {
    /// The model's number of candidate moves.
    pub candidates: usize,
    /// Simulated positions.
    pub trials: u64,
    pub seed: u64,
}

/// What `council` is asked.
#[derive(Debug, Clone)]
pub struct CouncilOptions {
    /// A council-match run folder.
    pub run: PathBuf,
    /// An analysis of the same run, for the reference's best moves.
    pub analysis: Option<PathBuf>,
    pub model: ModelSettings,
}

/// `council RUN`: the run's plan as `run.json` recorded it (no engine or model file is needed),
/// its games, the reference's best moves, and every council that voted held against the model.
pub fn run(opts: &CouncilOptions) -> Result<CouncilsReport, CouncilError> {
    if opts.model.candidates < 2 {
        return Err(CouncilError::Candidates);
    }
    let plan = RunInfo::read(&opts.run)?.plan(&opts.run)?;
    let games = read_games(std::slice::from_ref(&opts.run))?;
    let best = match &opts.analysis {
        Some(f) => Some(
            analysis::read(f)?
                .positions
                .iter()
                .filter_map(|p| {
                    p.candidates
                        .first()
                        .map(|c| ((p.game, p.ply), c.mv.clone()))
                })
                .collect::<BTreeMap<_, _>>(),
        ),
        None => None,
    };
    let councils = analyse(&plan, &games, best.as_ref(), opts.model)?;
    if councils.is_empty() {
        return Err(CouncilError::NoCouncil {
            run: opts.run.clone(),
        });
    }
    Ok(CouncilsReport { councils })
}

impl Output for CouncilsReport {
    fn table(&self) -> String {
        table(&self.councils)
    }

    fn json(&self) -> serde_json::Result<String> {
        sorted_json(self)
    }
}

/// The ballots of a recorded decision, as the council voted on them.
fn ballots(vote: &CouncilVote, config: &RunPlan) -> Vec<Ballot> {
    vote.members
        .iter()
        .filter_map(|m| {
            let mv = m.mv.clone()?;
            let p = config.players.get(&m.name)?;
            Some(Ballot {
                mv,
                eval: m.score,
                win_rate_t: p.win_rate_t,
                sigma: p.sigma,
                weight: m.weight,
                ranked: m.ranked.clone(),
            })
        })
        .collect()
}

/// The methods predicted and measured, in the report's order (an approval council's own
/// method, with its `k`, after them).
const METHODS: [Method; 4] = [
    Method::Majority,
    Method::Optimistic,
    Method::Pessimistic,
    Method::Ml,
];

/// (hits, out of) counts of one council's recorded decisions.
struct Tally {
    /// Upper triangle: how often members `i < j` chose the same move, of the decisions both
    /// voted in.
    agree: Vec<Vec<(usize, usize)>>,
    /// Per member: its move was the reference's best, of the analysed decisions it voted in.
    hits: Vec<(usize, usize)>,
    /// Per method of `METHODS`: its choice on the recorded ballots was the reference's best.
    method_hits: [(usize, usize); 4],
    /// Approval with the council's `k` on the recorded ranked ballots (approval councils).
    approval_hits: Option<(usize, usize)>,
    /// Decisions with a reference best move.
    analysed: usize,
}

impl Tally {
    fn count(
        members: &[String],
        decisions: &[(u64, &CouncilVote)],
        best: Option<&BTreeMap<(u64, u32), String>>,
        config: &RunPlan,
        settings: VoteSettings,
        approval: bool,
    ) -> Tally {
        let k = members.len();
        let mut t = Tally {
            agree: vec![vec![(0, 0); k]; k],
            hits: vec![(0, 0); k],
            method_hits: [(0, 0); 4],
            approval_hits: approval.then_some((0, 0)),
            analysed: 0,
        };
        for (game, v) in decisions {
            let moves: Vec<Option<&str>> = members
                .iter()
                .map(|m| {
                    v.members
                        .iter()
                        .find(|x| &x.name == m)
                        .and_then(|x| x.mv.as_deref())
                })
                .collect();
            for i in 0..k {
                for j in i + 1..k {
                    if let (Some(a), Some(b)) = (moves[i], moves[j]) {
                        t.agree[i][j].1 += 1;
                        if a == b {
                            t.agree[i][j].0 += 1;
                        }
                    }
                }
            }
            let Some(best_mv) = best.and_then(|b| b.get(&(*game, v.ply))) else {
                continue;
            };
            t.analysed += 1;
            for (i, mv) in moves.iter().enumerate() {
                if let Some(mv) = mv {
                    t.hits[i].1 += 1;
                    if mv == best_mv {
                        t.hits[i].0 += 1;
                    }
                }
            }
            let b = ballots(v, config);
            for (mi, m) in METHODS.iter().enumerate() {
                if let Some(choice) = decide(*m, settings, &b) {
                    t.method_hits[mi].1 += 1;
                    if &choice.mv == best_mv {
                        t.method_hits[mi].0 += 1;
                    }
                }
            }
            if let Some(hits) = t.approval_hits.as_mut()
                && let Some(choice) = decide(Method::Approval, settings, &b)
            {
                hits.1 += 1;
                if &choice.mv == best_mv {
                    hits.0 += 1;
                }
            }
        }
        t
    }

    /// The agreement rates as a full matrix (1 on the diagonal, `NaN` where no decision had
    /// both members' moves).
    fn agreement_rates(&self) -> Vec<Vec<f64>> {
        let k = self.hits.len();
        (0..k)
            .map(|i| {
                (0..k)
                    .map(|j| {
                        let (x, y) = if i < j {
                            self.agree[i][j]
                        } else {
                            self.agree[j][i]
                        };
                        if i == j {
                            1.0
                        } else if y == 0 {
                            f64::NAN
                        } else {
                            x as f64 / y as f64
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// Every council of the run.
pub fn analyse(
    config: &RunPlan,
    games: &[GameResult],
    best: Option<&BTreeMap<(u64, u32), String>>,
    opts: ModelSettings,
) -> Result<Vec<CouncilReport>, CouncilError> {
    let mut out = Vec::new();
    for name in &config.playing {
        let Some(CouncilSettings {
            members,
            method,
            ml_d,
            approval_k,
            ..
        }) = config.council(name)
        else {
            continue;
        };
        let decisions: Vec<(u64, &CouncilVote)> = games
            .iter()
            .flat_map(|g| g.votes.iter().map(move |v| (g.id, v)))
            .filter(|(_, v)| &v.council == name)
            .collect();
        if decisions.is_empty() {
            continue;
        }
        let approval = *method == Method::Approval;
        let settings = VoteSettings {
            d: *ml_d,
            k: *approval_k,
        };
        let tally = Tally::count(members, &decisions, best, config, settings, approval);
        let rates = member_rates(name, &tally, best.is_some(), opts.candidates)?;
        let council = Council {
            name,
            method: method.name(),
            approval_k: approval.then_some(*approval_k),
            members,
            decisions: decisions.len(),
        };
        out.push(estimate(&council, &tally, &rates, best.is_some(), opts)?);
    }
    Ok(out)
}

/// The members' best-move rates: measured against the reference, or (without one) the rates
/// the agreements imply.
fn member_rates(
    council: &str,
    tally: &Tally,
    with_reference: bool,
    n: usize,
) -> Result<Vec<f64>, CouncilError> {
    let k = tally.hits.len();
    if with_reference {
        if tally.analysed == 0 {
            return Err(CouncilError::NoAnalysedPosition {
                council: council.to_string(),
            });
        }
        return Ok(tally
            .hits
            .iter()
            .map(|&(h, t)| {
                if t == 0 {
                    f64::NAN
                } else {
                    h as f64 / t as f64
                }
            })
            .collect());
    }
    if k < 3 {
        return Err(CouncilError::TooFewMembers {
            council: council.to_string(),
            members: k,
        });
    }
    Ok(rates_from_agreement(&tally.agreement_rates(), n))
}

/// A council of the run's config, and how many decisions it recorded.
struct Council<'a> {
    name: &'a str,
    method: &'a str,
    /// `k` of an approval council.
    approval_k: Option<usize>,
    members: &'a [String],
    decisions: usize,
}

/// The members' noise, the pairs' sync, and the model's predictions beside the measured rates.
fn estimate(
    council: &Council<'_>,
    tally: &Tally,
    rates: &[f64],
    with_reference: bool,
    opts: ModelSettings,
) -> Result<CouncilReport, CouncilError> {
    let (n, members) = (opts.candidates, council.members);
    let noise: Vec<f64> = rates
        .iter()
        .map(|&p| noise_for_rate(if p.is_finite() { p } else { 0.5 }, n))
        .collect();
    let (pairs, syncs) = pair_estimates(members, tally, &noise, with_reference, n);
    let params = CouncilParams::new(n, noise.clone(), 1.0, syncs)?;
    let run = simulate(&params, opts.trials, opts.seed, &|_| {});
    let r = run.rates();
    let predicted = [r.majority, r.optimistic, r.pessimistic, r.ml_predicted];
    let measured = |counts| {
        if with_reference {
            Rate::of(counts)
        } else {
            None
        }
    };
    Ok(CouncilReport {
        name: council.name.to_string(),
        method: council.method.to_string(),
        decisions: council.decisions,
        analysed: tally.analysed,
        candidates: n,
        members: members
            .iter()
            .enumerate()
            .map(|(i, m)| MemberEstimate {
                name: m.clone(),
                best_move_rate: rates[i],
                measured: measured(tally.hits[i]),
                noise: noise[i],
                predicted: r.single[i].rate,
            })
            .collect(),
        pairs,
        methods: METHODS
            .iter()
            .zip(predicted)
            .zip(tally.method_hits)
            .map(|((m, p), counts)| MethodRates {
                method: m.name().into(),
                predicted: p.rate,
                predicted_se: p.se,
                measured: measured(counts),
            })
            .chain(council.approval_k.map(|k| {
                let p = sim::moments::Rate::from(simulate_approval(
                    &params,
                    k,
                    opts.trials,
                    opts.seed,
                    &|_| {},
                ));
                MethodRates {
                    method: format!("approval k={k}"),
                    predicted: p.rate,
                    predicted_se: p.se,
                    measured: tally.approval_hits.and_then(measured),
                }
            }))
            .collect(),
        trials: opts.trials,
        seed: opts.seed,
    })
}

/// Each pair's agreement beside independent members' (with a reference, the excess is the
/// pair's sync, `rho = (a - a0) / (1 - a0)`; without one, sync is 0 by assumption).
fn pair_estimates(
    members: &[String],
    tally: &Tally,
    noise: &[f64],
    with_reference: bool,
    n: usize,
) -> (Vec<PairEstimate>, Vec<SyncPair>) {
    let k = members.len();
    let mut pairs = Vec::new();
    let mut syncs = Vec::new();
    for i in 0..k {
        for j in i + 1..k {
            let Some(a) = Rate::of(tally.agree[i][j]) else {
                continue;
            };
            let independent = agreement(
                single_rate(n, noise[i], 1.0),
                single_rate(n, noise[j], 1.0),
                n,
            );
            let sync = if with_reference {
                ((a.rate - independent) / (1.0 - independent)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            if sync > 0.0 {
                syncs.push(SyncPair {
                    from: i,
                    to: j,
                    rho: sync,
                });
            }
            pairs.push(PairEstimate {
                a: members[i].clone(),
                b: members[j].clone(),
                agreement: a,
                independent,
                sync,
            });
        }
    }
    (pairs, syncs)
}

/// The readable report.
#[must_use]
pub fn table(reports: &[CouncilReport]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for c in reports {
        let _ = writeln!(
            out,
            "council {} ({}): {} decisions, {} with a reference best move; model with n = {} candidates",
            c.name, c.method, c.decisions, c.analysed, c.candidates
        );
        let _ = writeln!(
            out,
            "  {:<14} {:>16} {:>8} {:>10}",
            "member", "best-move rate", "s/d", "model"
        );
        for m in &c.members {
            let measured = m
                .measured
                .map_or(format!("{:.3} (fit)", m.best_move_rate), |r| {
                    format!("{:.3} ± {:.3}", r.rate, r.se)
                });
            let _ = writeln!(
                out,
                "  {:<14} {:>16} {:>8.3} {:>10.3}",
                m.name, measured, m.noise, m.predicted
            );
        }
        for p in &c.pairs {
            let _ = writeln!(
                out,
                "  {} ~ {}: agreement {:.3} ± {:.3} (independent {:.3}), sync {:.3}",
                p.a, p.b, p.agreement.rate, p.agreement.se, p.independent, p.sync
            );
        }
        let _ = writeln!(
            out,
            "  {:<12} {:>18} {:>18}",
            "method", "predicted", "measured"
        );
        for m in &c.methods {
            let measured = m
                .measured
                .map_or("-".into(), |r| format!("{:.3} ± {:.3}", r.rate, r.se));
            let _ = writeln!(
                out,
                "  {:<12} {:>18} {:>18}",
                m.method,
                format!("{:.3} ± {}", m.predicted, se(m.predicted_se)),
                measured
            );
        }
        let _ = writeln!(out, "  ({} simulated positions, seed {})", c.trials, c.seed);
    }
    out.push_str(&super::legend(&[
        "best-move rate: how often a member's own choice was the reference's best move, measured \
         against an analysis of the run (± its standard error) or, without one, fitted from the \
         votes (fit); s/d: the member's noise s over the gap d between the best move and the \
         others, inverted from that rate (docs/models.md section 3); model: the rate the model \
         gives back.",
        "agreement: how often two members chose the same move; independent: what two members of \
         those rates would agree by chance; sync: (agreement - independent) / (1 - independent), \
         0 for independent members, 1 for members that always agree.",
        "predicted: each method's best-move rate by the model (Monte Carlo, ± its standard \
         error); measured: the rate of what the method plays on the recorded ballots, against \
         the reference's best move.",
    ]));
    if reports.iter().any(|c| c.analysed == 0) {
        out.push_str(
            "measured: `-` without an analysis of the run: council-analyze moves RUN --out \
             analysis.jsonl, then add --analysis analysis.jsonl.\n",
        );
    }
    out
}

/// A standard error as the table prints it: below 0.0005 it would read `0.000`, which is not
/// zero.
fn se(x: f64) -> String {
    if x < 0.0005 {
        "<0.001".into()
    } else {
        format!("{x:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_is_its_count_with_the_binomial_error() {
        assert_eq!(Rate::of((0, 0)), None);
        let r = Rate::of((3, 4)).unwrap();
        assert_eq!(r.n, 4);
        assert!((r.rate - 0.75).abs() < 1e-15);
        assert!((r.se - (0.75f64 * 0.25 / 4.0).sqrt()).abs() < 1e-15);
    }
}
