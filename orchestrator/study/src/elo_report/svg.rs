//! The ratings plot: one row per player, best at the top, a dot at the rating and a bar over its
//! 95% interval, drawn with plotters' SVG backend.

use std::path::Path;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use thiserror::Error;

use super::formats::RatingReport;

/// The plot could not be drawn or written.
#[derive(Debug, Error)]
#[error("cannot draw {path}: {message}")]
pub struct PlotError {
    pub path: String,
    pub message: String,
}

/// Writes the ratings plot of `report` to `path`.
pub fn write_ratings_svg(report: &RatingReport, path: &Path) -> Result<(), PlotError> {
    let fail = |e: &dyn std::fmt::Display| PlotError {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let n = report.players.len().max(1);
    let lo = report
        .players
        .iter()
        .map(|p| p.rating.lower)
        .fold(f64::INFINITY, f64::min);
    let hi = report
        .players
        .iter()
        .map(|p| p.rating.upper)
        .fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo {
        let pad = 0.05 * (hi - lo);
        (lo - pad, hi + pad)
    } else {
        (-100.0, 100.0)
    };
    let name_width = report
        .players
        .iter()
        .map(|p| p.rating.name.chars().count())
        .max()
        .unwrap_or(6) as u32;
    let height = 90 + 24 * n as u32;
    let root = SVGBackend::new(path, (960, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let names: Vec<String> = report
        .players
        .iter()
        .map(|p| p.rating.name.clone())
        .collect();
    // Row r (0 = bottom) shows the player ranked n - r.
    let name_of = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(r) => usize::try_from(*r)
            .ok()
            .and_then(|r| n.checked_sub(1 + r))
            .and_then(|i| names.get(i))
            .cloned()
            .unwrap_or_default(),
        SegmentValue::Exact(_) | SegmentValue::Last => String::new(),
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "Ratings with {:.0}% intervals ({} games)",
                100.0 * report.model.confidence,
                report.input.games
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(20 + 8 * name_width)
        // Integer ranges are inclusive in plotters: rows 0..=n-1.
        .build_cartesian_2d(lo..hi, (0..n as i32 - 1).into_segmented())
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("Elo")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_labels(n)
        .y_label_formatter(&name_of)
        .disable_y_mesh()
        .draw()
        .map_err(|e| fail(&e))?;
    let rows = report.players.iter().map(|p| {
        let row = SegmentValue::CenterOf((n - p.rank) as i32);
        (p, row)
    });
    chart
        .draw_series(rows.clone().map(|(p, row)| {
            PathElement::new(
                vec![(p.rating.lower, row.clone()), (p.rating.upper, row)],
                BLUE.stroke_width(2),
            )
        }))
        .map_err(|e| fail(&e))?;
    chart
        .draw_series(rows.map(|(p, row)| Circle::new((p.rating.elo, row), 4, BLUE.filled())))
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
