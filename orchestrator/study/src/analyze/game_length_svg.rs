//! The SVG of `council-analyze game-length`: observed game lengths (share of games per bin,
//! dots) beside a fitted random walk's shares in the same bins (line), drawn with plotters.
//! The simulator's own figures are `council-sim`'s (sim/cli); this one draws recorded games.

use std::path::Path;

use plotters::prelude::*;
use sim::error::SimError;
use sim::game_length::simulate::GameLengthRun;

fn plot_error(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> SimError + '_ {
    move |e| SimError::Plot {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Observed game lengths (share of games per `bin`-ply bin, bars' tops as dots) beside a model
/// run's shares in the same bins (line): how well a fitted random walk describes real games.
pub fn observed_game_length_svg(
    path: &Path,
    title: &str,
    observed: &[u32],
    model: &GameLengthRun,
    bin: u32,
) -> Result<(), SimError> {
    let err = plot_error(path);
    let bin = bin.max(1);
    let n = observed.len().max(1) as f64;
    let mut counts: std::collections::BTreeMap<i64, f64> = std::collections::BTreeMap::new();
    for &l in observed {
        *counts.entry(i64::from(l / bin)).or_default() += 1.0 / n;
    }
    let h = &model.histogram;
    let mut shares: std::collections::BTreeMap<i64, f64> = std::collections::BTreeMap::new();
    let total = model.games as f64;
    for (i, &c) in h.counts.iter().enumerate() {
        let ply = h.lo + i as i64;
        if ply >= 0 {
            *shares.entry(ply / i64::from(bin)).or_default() += c as f64 / total;
        }
    }
    let centre = |k: i64| (k as f64 + 0.5) * f64::from(bin);
    let dots: Vec<(f64, f64)> = counts.iter().map(|(&k, &v)| (centre(k), v)).collect();
    let line: Vec<(f64, f64)> = shares
        .iter()
        .filter(|(_, v)| **v > 1e-5)
        .map(|(&k, &v)| (centre(k), v))
        .collect();
    let x1 = dots.iter().chain(&line).map(|p| p.0).fold(0.0, f64::max) + f64::from(bin);
    let y1 = dots.iter().chain(&line).map(|p| p.1).fold(0.0, f64::max) * 1.15;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x1, 0.0..y1.max(1e-3))
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("game length (plies)")
        .y_desc(format!("share of games per {bin} plies"))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(dots.iter().map(|&d| Circle::new(d, 4, BLACK.filled())))
        .map_err(|e| err(&e))?
        .label(format!("games ({})", observed.len()))
        .legend(|(x, y)| Circle::new((x + 10, y), 4, BLACK.filled()));
    chart
        .draw_series(LineSeries::new(line, BLUE.stroke_width(2)))
        .map_err(|e| err(&e))?
        .label(format!(
            "random walk A = {:.4}, M = {:.2}, S = {:.2} ({} simulated games, seed {})",
            model.params.a, model.params.m, model.params.s, model.games, model.seed
        ))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
