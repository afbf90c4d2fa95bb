//! The calibration's picture (`calibrate-ir --svg`): each rung's Elo against its AE, the fitted
//! line `IR = a - b AE`, and each rung's leave-one-out IR, so that where the line holds and where
//! it is an extrapolation can be seen at a glance. Drawn with plotters' SVG backend.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use thiserror::Error;

use super::ir::CalibrationFile;

/// The picture could not be drawn or written.
#[derive(Debug, Error)]
#[error("cannot draw {}: {message}", .path.display())]
pub struct SvgError {
    pub path: PathBuf,
    /// The drawing library's complaint.
    pub message: String,
}

/// Writes the calibration plot of `cal` to `path`.
pub fn write_calibration_svg(cal: &CalibrationFile, path: &Path) -> Result<(), SvgError> {
    let fail = |e: &dyn std::fmt::Display| SvgError {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let span = |xs: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        let pad = if hi > lo { 0.08 * (hi - lo) } else { 1.0 };
        (lo - pad)..(hi + pad)
    };
    let x_range = span(&mut cal.rungs.iter().map(|r| r.ae));
    let y_range = span(
        &mut cal
            .rungs
            .iter()
            .flat_map(|r| [r.elo, r.loo_ir, cal.a - cal.b * r.ae]),
    );
    let root = SVGBackend::new(path, (760, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "IR = {:.0} - {:.0} AE (R² {:.3}, u = {} cp)",
                cal.a, cal.b, cal.r2, cal.u
            ),
            ("sans-serif", 18),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range.clone(), y_range)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("average scaled error AE")
        .y_desc("Elo (council-elo)")
        .draw()
        .map_err(|e| fail(&e))?;
    chart
        .draw_series(LineSeries::new(
            [x_range.start, x_range.end].map(|x| (x, cal.a - cal.b * x)),
            BLUE.stroke_width(2),
        ))
        .map_err(|e| fail(&e))?
        .label("fitted line")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(cal.rungs.iter().map(|r| {
            PathElement::new(
                [(r.ae, r.elo), (r.ae, r.loo_ir)],
                RED.mix(0.6).stroke_width(1),
            )
        }))
        .map_err(|e| fail(&e))?;
    chart
        .draw_series(
            cal.rungs
                .iter()
                .map(|r| Circle::new((r.ae, r.loo_ir), 4, RED.stroke_width(1))),
        )
        .map_err(|e| fail(&e))?
        .label("leave-one-out IR")
        .legend(|(x, y)| Circle::new((x + 8, y), 4, RED.stroke_width(1)));
    chart
        .draw_series(cal.rungs.iter().map(|r| {
            EmptyElement::at((r.ae, r.elo))
                + Circle::new((0, 0), 4, BLACK.filled())
                + Text::new(r.name.clone(), (7, -4), ("sans-serif", 13))
        }))
        .map_err(|e| fail(&e))?
        .label("rung: Elo")
        .legend(|(x, y)| Circle::new((x + 8, y), 4, BLACK.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
