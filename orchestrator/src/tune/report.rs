//! What a tune shows at its end: the closing table (each parameter's start, final value and the
//! range θ covered; under `--simulate` the known optimum and the distance to it) and one SVG per
//! parameter of θ over the iterations. Figures come from `tune.jsonl`'s lines; this file only
//! formats and draws them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::TuneError;
use super::log::IterationLine;
use crate::config::TuneConfig;

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

/// The SVG file of parameter `i` in `dir`: `theta-I-PATH.svg`, the path's dots and other
/// non-word characters as `_`.
pub fn svg_path(dir: &Path, i: usize, path: &str) -> PathBuf {
    let safe: String = path
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("theta-{i}-{safe}.svg"))
}

/// Draw each parameter of `tune` over `lines` into `dir`; returns the files written.
pub fn write_svgs(
    dir: &Path,
    tune: &TuneConfig,
    lines: &[IterationLine],
    simulate: bool,
) -> Result<Vec<PathBuf>, TuneError> {
    let mut written = Vec::new();
    for (i, p) in tune.params.iter().enumerate() {
        let path = svg_path(dir, i, &p.path);
        let fail = |e: &dyn std::fmt::Display| TuneError::Svg {
            path: path.clone(),
            message: e.to_string(),
        };
        let points: Vec<(f64, f64)> = std::iter::once((0.0, p.start))
            .chain(lines.iter().map(|l| ((l.k + 1) as f64, l.theta_next[i])))
            .collect();
        let x_end = (lines.len() as f64).max(1.0);
        let root = SVGBackend::new(&path, (760, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{} over the iterations", p.path),
                ("sans-serif", 18),
            )
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..x_end, p.min..p.max.max(p.min + f64::EPSILON))
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc("iteration")
            .y_desc(p.path.as_str())
            .draw()
            .map_err(|e| fail(&e))?;
        if simulate {
            let o = tune.simulate.optimum[i];
            chart
                .draw_series(LineSeries::new([(0.0, o), (x_end, o)], RED.stroke_width(1)))
                .map_err(|e| fail(&e))?
                .label("optimum (simulated)")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], RED.stroke_width(1)));
        }
        chart
            .draw_series(LineSeries::new(points, BLUE.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label("θ")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLUE.stroke_width(2)));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
        drop(chart);
        drop(root);
        written.push(path);
    }
    Ok(written)
}
