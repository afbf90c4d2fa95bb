//! `council-analyze famous`: seed 004's model of how people pick famous games (models.md
//! section 8, §5.4): the probability that a game is chosen, logistic in its root-leaf
//! correlation ρ, fitted by maximum likelihood and judged by leave-one-out precision and recall
//! at 50%. The fit itself is `stats::logistic`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::Output;
use super::csv::{CsvError, Rows};
use council_schema::stats::classification::precision_recall;
use council_schema::stats::logistic;

/// Why `famous` has no report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FamousError {
    #[error(transparent)]
    Csv(#[from] CsvError),
    #[error(
        "{}: the model cannot be fitted (it needs chosen and not chosen games whose rho overlap)",
        .path.display()
    )]
    NoFit { path: PathBuf },
    #[error("{}: the model cannot be fitted without game {game}", .path.display())]
    NoFitWithout { path: PathBuf, game: String },
}

/// One game of `famous`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamousGame {
    pub game: String,
    pub rho: f64,
    pub label: bool,
    pub excluded: bool,
    /// Its probability of being chosen under the model fitted without it (and without the
    /// excluded games).
    pub loo_p: f64,
}

/// `famous`'s report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamousReport {
    pub m0: f64,
    pub m1: f64,
    pub games: Vec<FamousGame>,
    pub precision: f64,
    pub recall: f64,
}

/// `famous --csv FILE`: columns `game,rho,label[,exclude]`.
pub fn run(csv: &Path) -> Result<FamousReport, FamousError> {
    let rows = Rows::read(csv, &["game", "rho", "label"], &["exclude"])?;
    let mut games = Vec::new();
    for (i, r) in rows.rows.iter().enumerate() {
        games.push(FamousGame {
            game: r[0].clone(),
            rho: rows.number(i, 1, "rho")?,
            label: rows.flag(i, 2, "label")?,
            excluded: rows.flag(i, 3, "exclude")?,
            loo_p: f64::NAN,
        });
    }
    let fit_without = |skip: Option<usize>| {
        let data: Vec<(f64, bool)> = games
            .iter()
            .enumerate()
            .filter(|(j, g)| Some(*j) != skip && !g.excluded)
            .map(|(_, g)| (g.rho, g.label))
            .collect();
        logistic::fit(&data)
    };
    let (m0, m1) = fit_without(None).ok_or_else(|| FamousError::NoFit {
        path: csv.to_path_buf(),
    })?;
    let mut loo = Vec::with_capacity(games.len());
    for (i, g) in games.iter().enumerate() {
        let (a, b) = fit_without(Some(i)).ok_or_else(|| FamousError::NoFitWithout {
            path: csv.to_path_buf(),
            game: g.game.clone(),
        })?;
        loo.push(logistic::probability(a, b, g.rho));
    }
    for (g, p) in games.iter_mut().zip(loo) {
        g.loo_p = p;
    }
    let (precision, recall) = precision_recall(games.iter().map(|g| (g.loo_p >= 0.5, g.label)));
    Ok(FamousReport {
        m0,
        m1,
        games,
        precision,
        recall,
    })
}

impl Output for FamousReport {
    fn table(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!(
            "p = 1 / (1 + exp(-({:.3} + {:.3} rho)))\n",
            self.m0, self.m1
        );
        for g in &self.games {
            let _ = writeln!(
                out,
                "{:>6.1}%  {}  rho {:.3}{}  {}",
                100.0 * g.loo_p,
                if g.label { "chosen    " } else { "not chosen" },
                g.rho,
                if g.excluded {
                    " (excluded from fits)"
                } else {
                    ""
                },
                g.game
            );
        }
        let _ = writeln!(
            out,
            "precision {:.1}%, recall {:.1}% (leave-one-out, at 50%)",
            100.0 * self.precision,
            100.0 * self.recall
        );
        out.push_str(&super::legend(&[
            "Each game: the probability that it is chosen as famous, from a model fitted without \
             it (leave-one-out), whether it was, and its rho (root-leaf correlation; a fit of \
             p on rho, seed 004 section 5.4, docs/models.md section 8).",
        ]));
        out
    }
}
