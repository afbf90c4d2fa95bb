//! SVG figures (plotters): the game-length histogram with its matching gamma density (the
//! source's random_walk figure) and the council sweeps (council_1, council_syn, council_2,
//! council_3). Colours follow the source: black single members and maximum likelihood, green
//! majority, red optimistic, blue pessimistic; crosses for sync 0.5 (and for predicted `A`).

use std::path::Path;

use plotters::prelude::*;

use sim::council::sweep::{SweepPoint, SweepSpec};
use sim::error::SimError;
use sim::game_length::gamma::GammaMatch;
use sim::game_length::simulate::GameLengthRun;

fn plot_error(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> SimError + '_ {
    move |e| SimError::Plot {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The share of games per one-ply bin (dots) and the gamma density (line).
pub fn game_length_svg(
    path: &Path,
    run: &GameLengthRun,
    gamma: &GammaMatch,
) -> Result<(), SimError> {
    let err = plot_error(path);
    let h = &run.histogram;
    let n = run.games as f64;
    let dots: Vec<(f64, f64)> = h
        .counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, &c)| ((h.lo + i as i64) as f64 + 0.5, c as f64 / n))
        .collect();
    let (m, sd) = (run.length.mean, run.length.sd());
    let (x0, x1) = ((m - 4.0 * sd).max(0.0).floor(), (m + 6.0 * sd).ceil());
    let y1 = dots
        .iter()
        .map(|d| d.1)
        .fold(0.0, f64::max)
        .max(gamma.pdf(m))
        * 1.1;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let title = format!(
        "game length: A = {}, M = {}, S = {} ({} games, seed {})",
        run.params.a, run.params.m, run.params.s, run.games, run.seed
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, 0.0..y1)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("game length (plies)")
        .y_desc("share of games per ply")
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(
            dots.iter()
                .filter(|d| d.0 >= x0 && d.0 <= x1)
                .map(|&d| Circle::new(d, 2, BLACK.filled())),
        )
        .map_err(|e| err(&e))?
        .label("simulation")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, BLACK.filled()));
    let steps = 600;
    let curve = (0..=steps).map(|i| {
        let x = x0 + (x1 - x0) * i as f64 / steps as f64;
        (x, gamma.pdf(x))
    });
    chart
        .draw_series(LineSeries::new(curve, BLUE.stroke_width(2)))
        .map_err(|e| err(&e))?
        .label(format!(
            "gamma, same mean and variance (k = {:.2}, theta = {:.2})",
            gamma.shape, gamma.scale
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

#[derive(Clone, Copy)]
enum Mark {
    Line,
    Dot,
    Cross,
}

struct Series {
    label: String,
    colour: RGBColor,
    mark: Mark,
    points: Vec<(f64, f64)>,
}

fn series(
    label: impl Into<String>,
    colour: RGBColor,
    mark: Mark,
    points: Vec<(f64, f64)>,
) -> Series {
    Series {
        label: label.into(),
        colour,
        mark,
        points,
    }
}

fn panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    all: &[Series],
    err: &dyn Fn(&dyn std::fmt::Display) -> SimError,
) -> Result<(), SimError> {
    let xs = all.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let pad = ((x1 - x0) * 0.03).max(0.05);
    let ys = all
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite());
    let (y0, y1) = ys.fold((1.0f64, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d(
            (x0 - pad)..(x1 + pad),
            (y0 - 0.02).max(0.0)..(y1 + 0.02).min(1.0),
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()
        .map_err(|e| err(&e))?;
    for s in all {
        let c = s.colour;
        let pts = s.points.iter().copied().filter(|p| p.1.is_finite());
        let drawn = match s.mark {
            Mark::Line => chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))
                .map_err(|e| err(&e))?,
            Mark::Dot => chart
                .draw_series(pts.map(|p| Circle::new(p, 3, c.filled())))
                .map_err(|e| err(&e))?,
            Mark::Cross => chart
                .draw_series(pts.map(|p| Cross::new(p, 4, c.stroke_width(2))))
                .map_err(|e| err(&e))?,
        };
        let mark = s.mark;
        drawn
            .label(s.label.clone())
            .legend(move |(x, y)| match mark {
                Mark::Line => {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)).into_dyn()
                }
                Mark::Dot => Circle::new((x + 8, y), 3, c.filled()).into_dyn(),
                Mark::Cross => Cross::new((x + 8, y), 4, c.stroke_width(2)).into_dyn(),
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(|e| err(&e))?;
    Ok(())
}

const GREEN_DARK: RGBColor = RGBColor(0, 150, 0);

/// The sweep's figure: for the noise sweep one row per `n` with best-move rates (left) and
/// agreement (right); for the members sweep one panel per `n`.
pub fn sweep_svg(
    path: &Path,
    spec: &SweepSpec,
    points: &[SweepPoint],
    trials: u64,
    seed: u64,
) -> Result<(), SimError> {
    let err = plot_error(path);
    let mut ns: Vec<usize> = points.iter().map(|p| p.candidates).collect();
    ns.dedup();
    let cols = if matches!(spec, SweepSpec::Noise { .. }) {
        2
    } else {
        1
    };
    let root = SVGBackend::new(path, (560 * cols as u32, 30 + 420 * ns.len().max(1) as u32))
        .into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(
            &format!("{trials} trials per point, seed {seed}"),
            ("sans-serif", 14),
        )
        .map_err(|e| err(&e))?;
    let areas = root.split_evenly((ns.len().max(1), cols));
    for (row, &n) in ns.iter().enumerate() {
        let of = |sync: Option<bool>| {
            move |p: &&SweepPoint| p.candidates == n && sync.is_none_or(|s| (p.sync > 0.0) == s)
        };
        let pick = |sync: Option<bool>, f: &dyn Fn(&SweepPoint) -> f64| -> Vec<(f64, f64)> {
            points
                .iter()
                .filter(of(sync))
                .map(|p| (p.x, f(p)))
                .collect()
        };
        let single =
            |i: usize| move |p: &SweepPoint| p.rates.single.get(i).map_or(f64::NAN, |r| r.rate);
        match spec {
            SweepSpec::Noise { s1, .. } => {
                let has_sync = points.iter().any(|p| p.candidates == n && p.sync > 0.0);
                let mut rates = vec![
                    series("member 1", BLACK, Mark::Line, pick(Some(false), &single(0))),
                    series(
                        "members 2, 3",
                        BLACK,
                        Mark::Line,
                        pick(Some(false), &single(1)),
                    ),
                    series(
                        "majority",
                        GREEN_DARK,
                        Mark::Dot,
                        pick(Some(false), &|p| p.rates.majority.rate),
                    ),
                    series(
                        "max likelihood",
                        BLACK,
                        Mark::Dot,
                        pick(Some(false), &|p| p.rates.ml.rate),
                    ),
                    series(
                        "optimistic",
                        RED,
                        Mark::Dot,
                        pick(Some(false), &|p| p.rates.optimistic.rate),
                    ),
                    series(
                        "pessimistic",
                        BLUE,
                        Mark::Dot,
                        pick(Some(false), &|p| p.rates.pessimistic.rate),
                    ),
                ];
                let mut agree = vec![
                    series(
                        "1-2",
                        RED,
                        Mark::Dot,
                        pick(Some(false), &|p| p.agreement_12.unwrap_or(f64::NAN)),
                    ),
                    series(
                        "2-3",
                        BLUE,
                        Mark::Dot,
                        pick(Some(false), &|p| p.agreement_23.unwrap_or(f64::NAN)),
                    ),
                ];
                if has_sync {
                    rates.push(series(
                        "majority, sync",
                        GREEN_DARK,
                        Mark::Cross,
                        pick(Some(true), &|p| p.rates.majority.rate),
                    ));
                    rates.push(series(
                        "optimistic, sync",
                        RED,
                        Mark::Cross,
                        pick(Some(true), &|p| p.rates.optimistic.rate),
                    ));
                    rates.push(series(
                        "max likelihood, sync",
                        BLACK,
                        Mark::Cross,
                        pick(Some(true), &|p| p.rates.ml.rate),
                    ));
                    agree.push(series(
                        "2-3, sync",
                        BLACK,
                        Mark::Dot,
                        pick(Some(true), &|p| p.agreement_23.unwrap_or(f64::NAN)),
                    ));
                }
                rates.retain(|s| !s.points.is_empty());
                agree.retain(|s| !s.points.is_empty());
                panel(
                    &areas[row * 2],
                    &format!("best-move rate, n = {n}, s1/d = {s1}"),
                    "s2/d",
                    "best-move rate",
                    &rates,
                    &err,
                )?;
                panel(
                    &areas[row * 2 + 1],
                    &format!("agreement, n = {n}"),
                    "s2/d",
                    "agreement rate",
                    &agree,
                    &err,
                )?;
            }
            SweepSpec::Members { sigma, .. } => {
                let all = vec![
                    series("single member", BLACK, Mark::Line, pick(None, &single(0))),
                    series(
                        "max likelihood",
                        BLACK,
                        Mark::Dot,
                        pick(None, &|p| p.rates.ml.rate),
                    ),
                    series(
                        "max likelihood, predicted A",
                        BLUE,
                        Mark::Cross,
                        pick(None, &|p| p.rates.ml_predicted.rate),
                    ),
                    series(
                        "optimistic",
                        RED,
                        Mark::Dot,
                        pick(None, &|p| p.rates.optimistic.rate),
                    ),
                    series(
                        "majority",
                        GREEN_DARK,
                        Mark::Dot,
                        pick(None, &|p| p.rates.majority.rate),
                    ),
                ];
                panel(
                    &areas[row],
                    &format!("best-move rate, n = {n}, s/d = {sigma}"),
                    "members N",
                    "best-move rate",
                    &all,
                    &err,
                )?;
            }
        }
    }
    root.present().map_err(|e| err(&e))
}
