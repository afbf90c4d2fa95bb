//! `council-analyze famous` and `resign`: seed 004's two models of how people judge a game
//! (models.md section 8). Famous games: a logistic model of being chosen on a game's
//! root-leaf correlation ρ (§5.4). Resignation: the probability that a player resigns given its
//! score `v` and the position's effective branching factor (§4.2). Both are fitted by maximum
//! likelihood and judged by leave-one-out precision and recall at 50%.
//!
//! The inputs are small CSV files (a header line, comma-separated values, no quoting: names with
//! commas are not supported); every bad line is reported with its number.

use std::path::Path;

use serde::Serialize;
use sim::optimize::nelder_mead;

use crate::stats::resignation::probability as resign_probability;

/// Read a CSV file into rows of fields by header name; `need` are the required columns.
fn read_csv(path: &Path, need: &[&str]) -> Result<Vec<Vec<String>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .ok_or_else(|| format!("{}: empty", path.display()))?;
    let names: Vec<String> = header.split(',').map(|s| s.trim().to_string()).collect();
    let mut index = Vec::new();
    for n in need {
        index.push(names.iter().position(|h| h == n).ok_or_else(|| {
            format!(
                "{}: no column `{n}` (the header is `{header}`; need {})",
                path.display(),
                need.join(",")
            )
        })?);
    }
    let optional = |n: &str| names.iter().position(|h| h == n);
    let extra: Vec<Option<usize>> = ["exclude"].iter().map(|n| optional(n)).collect();
    let mut rows = Vec::new();
    for (i, line) in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() > names.len() || fields.len() < index.iter().max().map_or(0, |m| m + 1) {
            return Err(format!(
                "{}:{}: {} fields, the header has {}",
                path.display(),
                i + 1,
                fields.len(),
                names.len()
            ));
        }
        let mut row: Vec<String> = index.iter().map(|&j| fields[j].to_string()).collect();
        for e in &extra {
            row.push(e.and_then(|j| fields.get(j)).unwrap_or(&"").to_string());
        }
        rows.push(row);
    }
    Ok(rows)
}

fn number(path: &Path, row: usize, what: &str, text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            format!(
                "{}: row {}: {what} `{text}` is not a number",
                path.display(),
                row + 1
            )
        })
}

fn flag(path: &Path, row: usize, what: &str, text: &str) -> Result<bool, String> {
    match text {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" | "" => Ok(false),
        _ => Err(format!(
            "{}: row {}: {what} `{text}` is not 0 or 1",
            path.display(),
            row + 1
        )),
    }
}

/// Logistic regression `p = 1 / (1 + exp(-(m0 + m1 x)))` by Newton's method.
fn logistic_fit(data: &[(f64, bool)]) -> Option<(f64, f64)> {
    let (mut m0, mut m1) = (0.0, 0.0);
    for _ in 0..200 {
        let (mut g0, mut g1, mut h00, mut h01, mut h11) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(x, y) in data {
            let p = 1.0 / (1.0 + (-(m0 + m1 * x)).exp());
            let r = f64::from(u8::from(y)) - p;
            g0 += r;
            g1 += r * x;
            let w = p * (1.0 - p);
            h00 += w;
            h01 += w * x;
            h11 += w * x * x;
        }
        let det = h00 * h11 - h01 * h01;
        if det.abs() < 1e-300 {
            return None;
        }
        let (d0, d1) = ((h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det);
        m0 += d0;
        m1 += d1;
        if d0.abs() + d1.abs() < 1e-12 {
            break;
        }
    }
    (m0.is_finite() && m1.is_finite()).then_some((m0, m1))
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

/// Precision and recall at 50%.
fn precision_recall(predicted: impl Iterator<Item = (bool, bool)>) -> (f64, f64) {
    let (mut tp, mut fp, mut positives) = (0.0, 0.0, 0.0);
    for (said, truth) in predicted {
        if truth {
            positives += 1.0;
        }
        if said {
            if truth {
                tp += 1.0;
            } else {
                fp += 1.0;
            }
        }
    }
    let div = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    (div(tp, tp + fp), div(tp, positives))
}

/// `famous --csv FILE`: columns `game,rho,label[,exclude]`.
pub fn famous(path: &Path) -> Result<FamousReport, String> {
    let rows = read_csv(path, &["game", "rho", "label"])?;
    let mut games = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        games.push(FamousGame {
            game: r[0].clone(),
            rho: number(path, i, "rho", &r[1])?,
            label: flag(path, i, "label", &r[2])?,
            excluded: flag(path, i, "exclude", &r[3])?,
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
        logistic_fit(&data)
    };
    let (m0, m1) = fit_without(None).ok_or_else(|| {
        format!(
            "{}: the model cannot be fitted (it needs chosen and not chosen games whose rho overlap)",
            path.display()
        )
    })?;
    let mut loo = Vec::with_capacity(games.len());
    for (i, g) in games.iter().enumerate() {
        let (a, b) = fit_without(Some(i)).ok_or_else(|| {
            format!(
                "{}: the model cannot be fitted without game {}",
                path.display(),
                g.game
            )
        })?;
        loo.push(1.0 / (1.0 + (-(a + b * g.rho)).exp()));
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

/// `(μ, σ)` by maximum likelihood on `(x, resigned)`.
#[must_use]
pub fn resign_fit(data: &[(f64, bool)]) -> (f64, f64) {
    let nll = |p: [f64; 2]| {
        let (mu, sigma) = (p[0], p[1].exp());
        data.iter()
            .map(|&(x, y)| {
                let q = resign_probability(x, mu, sigma).clamp(1e-300, 1.0 - 1e-16);
                -(if y { q.ln() } else { (1.0 - q).ln() })
            })
            .sum::<f64>()
    };
    let n = data.len().max(1) as f64;
    let mean = data.iter().map(|d| d.0).sum::<f64>() / n;
    let sd = (data.iter().map(|d| (d.0 - mean).powi(2)).sum::<f64>() / n)
        .sqrt()
        .max(1e-6);
    let x = nelder_mead(nll, [mean, sd.ln()], 0.5, 1e-12, 2000);
    (x[0], x[1].exp())
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

/// `F = 2PR / (P + R)`.
#[must_use]
pub fn f_measure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// `resign --csv FILE [--no-ebf]`: columns `player,v,ebf,resigned`.
pub fn resign(path: &Path, use_ebf: bool) -> Result<Vec<ResignPlayer>, String> {
    let rows = read_csv(path, &["player", "v", "ebf", "resigned"])?;
    let mut by: std::collections::BTreeMap<String, Vec<(f64, bool)>> = Default::default();
    for (i, r) in rows.iter().enumerate() {
        let v = number(path, i, "v", &r[1])?;
        let x = if use_ebf {
            let b = number(path, i, "ebf", &r[2])?;
            if b <= 1.0 {
                return Err(format!(
                    "{}: row {}: ebf {b} must be above 1 (ln b* divides the score)",
                    path.display(),
                    i + 1
                ));
            }
            -v / b.ln()
        } else {
            -v
        };
        by.entry(r[0].clone())
            .or_default()
            .push((x, flag(path, i, "resigned", &r[3])?));
    }
    Ok(by
        .into_iter()
        .map(|(name, data)| {
            let (mu, sigma) = resign_fit(&data);
            let predicted = (0..data.len()).map(|i| {
                let rest: Vec<(f64, bool)> = data
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, d)| *d)
                    .collect();
                let (m, s) = resign_fit(&rest);
                (resign_probability(data[i].0, m, s) >= 0.5, data[i].1)
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
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_resignation_fit_recovers_the_model_it_was_drawn_from() {
        let (mu, sigma) = (1.5, 0.8);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let data: Vec<(f64, bool)> = (0..20000)
            .map(|_| {
                let x = rng.random_range(-2.0..5.0);
                (x, rng.random::<f64>() < resign_probability(x, mu, sigma))
            })
            .collect();
        let (m, s) = resign_fit(&data);
        assert!(
            (m - mu).abs() < 0.05 && (s / sigma - 1.0).abs() < 0.05,
            "{m} {s}"
        );
    }

    #[test]
    fn table_4_1_f_follows_from_its_precision_and_recall() {
        // Seed 004, Table 4.1: (P, R, F) for players F and M, v only and v with b*.
        for (p, r, f) in [
            (98.2, 77.1, 86.4),
            (95.7, 67.5, 79.2),
            (97.5, 81.3, 88.6),
            (94.8, 69.6, 80.2),
        ] {
            // P and R are printed to 0.1, so F is known to within what their rounding allows.
            let (lo, hi) = (f_measure(p - 0.05, r - 0.05), f_measure(p + 0.05, r + 0.05));
            assert!(lo - 0.05 <= f && f <= hi + 0.05, "{p} {r} {f}: {lo}..{hi}");
        }
    }

    #[test]
    fn logistic_fit_finds_the_separating_direction() {
        let data = [
            (0.1, true),
            (0.2, true),
            (0.3, false),
            (0.25, true),
            (0.9, false),
            (0.8, false),
            (0.15, false),
            (0.7, true),
        ];
        let (_, m1) = logistic_fit(&data).unwrap();
        assert!(m1 < 0.0);
    }
}
