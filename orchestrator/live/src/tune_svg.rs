//! A finished tune's course as pictures: one SVG per parameter of θ over the iterations (and,
//! under `--simulate`, the bowl's optimum). It lives beside the live page, the other view of a
//! tune, so the tuner itself stays free of drawing code; `council-tune` calls it at the end.

use std::path::{Path, PathBuf};

use council_play::tune::TuneError;
use council_play::tune::log::IterationLine;
use council_schema::config::TuneConfig;
use plotters::prelude::*;

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
