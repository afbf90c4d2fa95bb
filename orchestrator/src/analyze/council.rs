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

use serde::Serialize;
use sim::council::exact::{agreement, single_rate};
use sim::council::simulate::simulate;
use sim::council::{CouncilParams, SyncPair};

use crate::config::{Config, PlayerKind};
use crate::council::vote::{Ballot, MlSettings, decide};
use crate::results::GameResult;
use crate::results::votes::{CouncilVote, Method};

/// A rate with its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    pub rate: f64,
    pub se: f64,
    pub n: usize,
}

impl Rate {
    fn of(hits: usize, n: usize) -> Option<Rate> {
        (n > 0).then(|| {
            let p = hits as f64 / n as f64;
            Rate {
                rate: p,
                se: (p * (1.0 - p) / n as f64).sqrt(),
                n,
            }
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

/// Settings.
#[derive(Debug, Clone, Copy)]
pub struct CouncilOptions {
    pub candidates: usize,
    pub trials: u64,
    pub seed: u64,
}

/// `s / d` giving best-move rate `p` for one member among `n` candidates (bisection on ln s).
fn noise_for_rate(p: f64, n: usize) -> f64 {
    let (mut lo, mut hi) = ((0.01f64).ln(), (100.0f64).ln());
    if p >= single_rate(n, lo.exp(), 1.0) {
        return lo.exp();
    }
    if p <= single_rate(n, hi.exp(), 1.0) {
        return hi.exp();
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if single_rate(n, mid.exp(), 1.0) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// Least-squares `p` from independent-agreement equations `a_ij = agreement(p_i, p_j, n)`.
fn rates_from_agreement(a: &[Vec<f64>], n: usize) -> Vec<f64> {
    let m = a.len();
    let lo = 1.0 / n as f64 + 1e-6;
    let mut p = vec![0.6f64.max(lo); m];
    let loss = |p: &[f64]| {
        let mut s = 0.0;
        for i in 0..m {
            for j in i + 1..m {
                if a[i][j].is_finite() {
                    s += (agreement(p[i], p[j], n) - a[i][j]).powi(2);
                }
            }
        }
        s
    };
    // Coordinate descent by golden-section search on each rate in turn.
    for _ in 0..60 {
        for i in 0..m {
            let (mut x0, mut x1) = (lo, 1.0);
            for _ in 0..60 {
                let g = 0.381_966_011_250_105;
                let (u, v) = (x0 + g * (x1 - x0), x1 - g * (x1 - x0));
                let mut pu = p.clone();
                pu[i] = u;
                let mut pv = p.clone();
                pv[i] = v;
                if loss(&pu) < loss(&pv) {
                    x1 = v;
                } else {
                    x0 = u;
                }
            }
            p[i] = 0.5 * (x0 + x1);
        }
    }
    p
}

/// The ballots of a recorded decision, as the council voted on them.
fn ballots(vote: &CouncilVote, config: &Config) -> Vec<Ballot> {
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
            })
        })
        .collect()
}

/// Every council of the run.
pub fn analyse(
    config: &Config,
    games: &[GameResult],
    best: Option<&BTreeMap<(u64, u32), String>>,
    opts: CouncilOptions,
) -> Result<Vec<CouncilReport>, String> {
    let mut out = Vec::new();
    for name in &config.playing {
        let Some(p) = config.players.get(name) else {
            continue;
        };
        let PlayerKind::Council {
            members,
            method,
            ml_d,
            ..
        } = &p.kind
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
        let k = members.len();
        let n = opts.candidates;
        // Agreement and (with a reference) best-move counts.
        let mut agree = vec![vec![(0usize, 0usize); k]; k];
        let mut hits = vec![(0usize, 0usize); k];
        let methods = [
            Method::Majority,
            Method::Optimistic,
            Method::Pessimistic,
            Method::Ml,
        ];
        let mut method_hits = [(0usize, 0usize); 4];
        let mut analysed = 0;
        for (game, v) in &decisions {
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
                        agree[i][j].1 += 1;
                        if a == b {
                            agree[i][j].0 += 1;
                        }
                    }
                }
            }
            let Some(best_mv) = best.and_then(|b| b.get(&(*game, v.ply))) else {
                continue;
            };
            analysed += 1;
            for (i, mv) in moves.iter().enumerate() {
                if let Some(mv) = mv {
                    hits[i].1 += 1;
                    if mv == best_mv {
                        hits[i].0 += 1;
                    }
                }
            }
            let b = ballots(v, config);
            for (mi, m) in methods.iter().enumerate() {
                if let Some(choice) = decide(*m, MlSettings { d: *ml_d }, &b) {
                    method_hits[mi].1 += 1;
                    if &choice.mv == best_mv {
                        method_hits[mi].0 += 1;
                    }
                }
            }
        }
        let agreement_rate: Vec<Vec<f64>> = (0..k)
            .map(|i| {
                (0..k)
                    .map(|j| {
                        let (x, y) = if i < j { agree[i][j] } else { agree[j][i] };
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
            .collect();
        let rates: Vec<f64> = if best.is_some() {
            if analysed == 0 {
                return Err(format!(
                    "council {name}: the analysis has none of its positions (analyse this run with council-analyze moves, --skip-plies low enough)"
                ));
            }
            hits.iter()
                .map(|&(h, t)| {
                    if t == 0 {
                        f64::NAN
                    } else {
                        h as f64 / t as f64
                    }
                })
                .collect()
        } else {
            if k < 3 {
                return Err(format!(
                    "council {name}: with {k} members the agreements cannot tell the members' noise apart; give --analysis FILE (council-analyze moves)"
                ));
            }
            rates_from_agreement(&agreement_rate, n)
        };
        let noise: Vec<f64> = rates
            .iter()
            .map(|&p| noise_for_rate(if p.is_finite() { p } else { 0.5 }, n))
            .collect();
        let mut pairs = Vec::new();
        let mut syncs = Vec::new();
        for i in 0..k {
            for j in i + 1..k {
                let Some(a) = Rate::of(agree[i][j].0, agree[i][j].1) else {
                    continue;
                };
                let independent = agreement(
                    single_rate(n, noise[i], 1.0),
                    single_rate(n, noise[j], 1.0),
                    n,
                );
                let sync = if best.is_some() {
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
        let params = CouncilParams::new(n, noise.clone(), 1.0, syncs).map_err(|e| e.to_string())?;
        let run = simulate(&params, opts.trials, opts.seed, &|_| {});
        let r = run.rates();
        let predicted = [r.majority, r.optimistic, r.pessimistic, r.ml_predicted];
        out.push(CouncilReport {
            name: name.clone(),
            method: method.name().into(),
            decisions: decisions.len(),
            analysed,
            candidates: n,
            members: members
                .iter()
                .enumerate()
                .map(|(i, m)| MemberEstimate {
                    name: m.clone(),
                    best_move_rate: rates[i],
                    measured: if best.is_some() {
                        Rate::of(hits[i].0, hits[i].1)
                    } else {
                        None
                    },
                    noise: noise[i],
                    predicted: r.single[i].rate,
                })
                .collect(),
            pairs,
            methods: methods
                .iter()
                .zip(predicted)
                .zip(method_hits)
                .map(|((m, p), (h, t))| MethodRates {
                    method: m.name().into(),
                    predicted: p.rate,
                    predicted_se: p.se,
                    measured: if best.is_some() { Rate::of(h, t) } else { None },
                })
                .collect(),
            trials: opts.trials,
            seed: opts.seed,
        });
    }
    Ok(out)
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
                format!("{:.3} ± {:.3}", m.predicted, m.predicted_se),
                measured
            );
        }
        let _ = writeln!(out, "  ({} simulated positions, seed {})", c.trials, c.seed);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_inverts_the_single_member_rate() {
        for n in [2, 3, 5] {
            for s in [0.3, 1.0, 2.5] {
                let p = single_rate(n, s, 1.0);
                assert!((noise_for_rate(p, n) / s - 1.0).abs() < 1e-6, "n {n} s {s}");
            }
        }
    }

    #[test]
    fn independent_agreements_give_back_the_rates() {
        let p = [0.8, 0.6, 0.55];
        let n = 3;
        let a: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        if i == j {
                            1.0
                        } else {
                            agreement(p[i], p[j], n)
                        }
                    })
                    .collect()
            })
            .collect();
        let q = rates_from_agreement(&a, n);
        for (x, y) in p.iter().zip(&q) {
            assert!((x - y).abs() < 1e-3, "{p:?} vs {q:?}");
        }
    }
}
