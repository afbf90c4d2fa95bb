//! `council-analyze resign`: seed 004's resignation model per player (models.md section 8,
//! §4.2): the probability that a player resigns given its score `v` and the position's
//! effective branching factor, fitted by maximum likelihood (`stats::resignation::fit`) and
//! judged by leave-one-out precision, recall and F at 50%.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::csv::{CsvError, Rows};
use super::{Output, sorted_json};
use council_schema::stats::classification::{f_measure, precision_recall};
use council_schema::stats::resignation;

/// Why `resign` has no report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ResignError {
    #[error(transparent)]
    Csv(#[from] CsvError),
    #[error(
        "{}: row {row}: ebf {ebf} must be above 1 (ln b* divides the score)",
        .path.display()
    )]
    EbfNotAboveOne { path: PathBuf, row: usize, ebf: f64 },
}

/// One player of `resign`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResignPlayer {
    pub name: String,
    pub positions: usize,
    pub mu: f64,
    pub sigma: f64,
    pub precision: f64,
    pub recall: f64,
    pub f: f64,
}

/// `resign`'s report: every player's fit, and whether the EBF entered `x`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResignReport {
    pub players: Vec<ResignPlayer>,
    pub ebf: bool,
}

/// `resign --csv FILE [--no-ebf]`: columns `player,v,ebf,resigned`; `x = -v / ln b*`, or `-v`
/// without the EBF.
pub fn run(csv: &Path, use_ebf: bool) -> Result<ResignReport, ResignError> {
    let rows = Rows::read(csv, &["player", "v", "ebf", "resigned"], &[])?;
    let mut by: BTreeMap<String, Vec<(f64, bool)>> = BTreeMap::new();
    for (i, r) in rows.rows.iter().enumerate() {
        let v = rows.number(i, 1, "v")?;
        let x = if use_ebf {
            let b = rows.number(i, 2, "ebf")?;
            if b <= 1.0 {
                return Err(ResignError::EbfNotAboveOne {
                    path: csv.to_path_buf(),
                    row: i + 1,
                    ebf: b,
                });
            }
            -v / b.ln()
        } else {
            -v
        };
        by.entry(r[0].clone())
            .or_default()
            .push((x, rows.flag(i, 3, "resigned")?));
    }
    let players = by
        .into_iter()
        .map(|(name, data)| player(name, &data))
        .collect();
    Ok(ResignReport {
        players,
        ebf: use_ebf,
    })
}

/// One player's fit and its leave-one-out verdicts.
fn player(name: String, data: &[(f64, bool)]) -> ResignPlayer {
    let (mu, sigma) = resignation::fit(data);
    let predicted = (0..data.len()).map(|i| {
        let rest: Vec<(f64, bool)> = data
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, d)| *d)
            .collect();
        let (m, s) = resignation::fit(&rest);
        (resignation::probability(data[i].0, m, s) >= 0.5, data[i].1)
    });
    let (precision, recall) = precision_recall(predicted);
    ResignPlayer {
        name,
        positions: data.len(),
        mu,
        sigma,
        precision,
        recall,
        f: f_measure(precision, recall),
    }
}

impl Output for ResignReport {
    fn table(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!(
            "{:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}\n",
            "player", "positions", "mu", "sigma", "precision", "recall", "F"
        );
        for p in &self.players {
            let _ = writeln!(
                out,
                "{:<16} {:>9} {:>9.4} {:>9.4} {:>8.1}% {:>8.1}% {:>6.1}%",
                p.name,
                p.positions,
                p.mu,
                p.sigma,
                100.0 * p.precision,
                100.0 * p.recall,
                100.0 * p.f
            );
        }
        out.push_str(&super::legend(&[
            "mu, sigma: the resignation model fitted per player (p_r, docs/models.md section 8; \
             `resign = { model = \"shueso\", mu, sigma, moves }` adjudicates with it); precision, \
             recall, F: how well it tells resigning positions from those 16 plies earlier, \
             leave-one-out, at p_r = 0.5.",
        ]));
        out
    }

    fn json(&self) -> serde_json::Result<String> {
        sorted_json(self)
    }
}
