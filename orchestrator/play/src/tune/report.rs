//! What a tune shows at its end: the closing table (each parameter's start, final value and the
//! range θ covered; under `--simulate` the known optimum and the distance to it). Figures come
//! from `tune.jsonl`'s lines; this file only formats them (the SVGs of θ are drawn by the live
//! crate's `tune_svg`).

use super::log::IterationLine;
use council_schema::config::TuneConfig;
use std::fmt::Write as _;

/// One parameter's course over a tune.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSummary {
    pub path: String,
    pub start: f64,
    pub last: f64,
    pub min_seen: f64,
    pub max_seen: f64,
    /// `--simulate`: the bowl's optimum.
    pub optimum: Option<f64>,
}

impl ParamSummary {
    /// |final − optimum| (simulated tunes).
    pub fn distance(&self) -> Option<f64> {
        self.optimum.map(|o| (self.last - o).abs())
    }
}

/// Each parameter's course over `lines`.
pub fn summarize(tune: &TuneConfig, lines: &[IterationLine], simulate: bool) -> Vec<ParamSummary> {
    tune.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let values = std::iter::once(p.start).chain(lines.iter().map(|l| l.theta_next[i]));
            let (lo, hi) = values
                .clone()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                });
            ParamSummary {
                path: p.path.clone(),
                start: p.start,
                last: values.last().unwrap_or(p.start),
                min_seen: lo,
                max_seen: hi,
                optimum: simulate.then(|| tune.simulate.optimum[i]),
            }
        })
        .collect()
}

/// The closing table, one row per parameter.
pub fn table(rows: &[ParamSummary], iterations_done: u64, iterations: u64) -> String {
    let simulate = rows.iter().any(|r| r.optimum.is_some());
    let width = rows.iter().map(|r| r.path.len()).max().unwrap_or(5).max(9);
    let mut out = format!("{iterations_done}/{iterations} iterations\n");
    let _ = write!(
        out,
        "{:<width$} {:>10} {:>10} {:>10} {:>10}",
        "parameter", "start", "final", "min seen", "max seen"
    );
    if simulate {
        let _ = write!(out, " {:>10} {:>10}", "optimum", "distance");
    }
    out.push('\n');
    for r in rows {
        let _ = write!(
            out,
            "{:<width$} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            r.path, r.start, r.last, r.min_seen, r.max_seen
        );
        if let (Some(o), Some(d)) = (r.optimum, r.distance()) {
            let _ = write!(out, " {o:>10.3} {d:>10.3}");
        }
        out.push('\n');
    }
    out
}
