//! `council-analyze complexity`: seed 004's whole-game indicators from an analysis made with
//! `moves --complexity` (models.md section 8): the root score against the leaf-level score
//! (the share of leaves good for sente, turned into a score), their correlation over the game and
//! over windows of 16 positions, and both series smoothed by a constant-acceleration Kalman
//! filter (`stats::kalman`, its time step the ply gap), whose velocity gives the game's RMS speed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::analysis::{self, AnalysedPosition, AnalysisError};
use super::{Output, sorted_json};
use council_schema::stats::correlation::pearson;
use council_schema::stats::kalman::{KalmanSettings, KalmanStep, kalman};

/// Why `complexity` has no report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ComplexityError {
    #[error("--kalman-q, --kalman-r and --kalman-p0 are variances: give positive numbers")]
    Variances,
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A position without the complexity fields: the analysis was made without `--complexity`.
    #[error(
        "game {game} ply {ply}: no complexity in this analysis (make it with council-analyze moves --complexity)"
    )]
    NoComplexity { game: u64, ply: u32 },
    #[error("{}", .path.display())]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {message}", .path.display())]
    Plot { path: PathBuf, message: String },
}

/// What `complexity` is asked.
#[derive(Debug, Clone)]
pub struct ComplexityOptions {
    /// An analysis made with `moves --complexity`.
    pub file: PathBuf,
    pub kalman: KalmanSettings,
    /// The win-rate constant T that turns the leaf ratio into a score.
    pub win_rate_t: f64,
    /// Both series are clamped to ±this.
    pub clamp_cp: f64,
    /// Write one SVG per game into this folder.
    pub svg: Option<PathBuf>,
}

/// `complexity`'s report: every game's indicators and the settings they were made with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComplexityReport {
    pub games: Vec<GameComplexity>,
    pub kalman: KalmanSettings,
    pub win_rate_t: f64,
    pub clamp_cp: f64,
}

/// `complexity FILE`: every game's indicators (and their pictures).
pub fn run(opts: &ComplexityOptions) -> Result<ComplexityReport, ComplexityError> {
    if !opts.kalman.is_valid() {
        return Err(ComplexityError::Variances);
    }
    let read = analysis::read(&opts.file)?;
    let games = analyse(
        &read.positions,
        &opts.kalman,
        opts.win_rate_t,
        opts.clamp_cp,
    )?;
    if let Some(dir) = &opts.svg {
        svgs(dir, &games)?;
    }
    Ok(ComplexityReport {
        games,
        kalman: opts.kalman,
        win_rate_t: opts.win_rate_t,
        clamp_cp: opts.clamp_cp,
    })
}

impl Output for ComplexityReport {
    fn table(&self) -> String {
        table(&self.games)
    }

    fn json(&self) -> serde_json::Result<String> {
        sorted_json(self)
    }
}

/// The leaf-level score `x_L = -T ln(1/r - 1)`, `r` clamped to `[1/(2n), 1 - 1/(2n)]`.
#[must_use]
pub fn leaf_score(ratio: f64, leaves: u64, t: f64) -> f64 {
    let eps = 1.0 / (2.0 * leaves.max(1) as f64);
    let r = ratio.clamp(eps, 1.0 - eps);
    -t * (1.0 / r - 1.0).ln()
}

/// Positions of a window.
pub const WINDOW: usize = 16;
/// Fewest positions a window needs to be shown.
pub const WINDOW_MIN: usize = 8;

/// One windowed correlation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WindowRho {
    pub ply: u32,
    pub rho: Option<f64>,
}

/// One game's indicators.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameComplexity {
    pub game: u64,
    pub positions: usize,
    pub rho_raw: Option<f64>,
    pub rho_kalman: Option<f64>,
    pub rms_speed: f64,
    pub window_rho: Vec<WindowRho>,
    /// The root series' filter, after each sample.
    pub kalman: Vec<KalmanStep>,
    /// The series themselves (for plots): ply, root score, leaf-level score (sente's view).
    #[serde(skip)]
    pub series: Vec<(u32, f64, f64)>,
}

/// Every game's indicators. Both series are clamped to `±clamp_cp`, so that a mate (`±30000`
/// minus plies) counts as a large score rather than swamping the correlation and the speed.
pub fn analyse(
    positions: &[AnalysedPosition],
    k: &KalmanSettings,
    win_rate_t: f64,
    clamp_cp: f64,
) -> Result<Vec<GameComplexity>, ComplexityError> {
    let mut by_game: BTreeMap<u64, Vec<(u32, f64, f64)>> = BTreeMap::new();
    for p in positions {
        let (Some(root), Some(leaves)) = (p.root_cp, p.leaves) else {
            return Err(ComplexityError::NoComplexity {
                game: p.game,
                ply: p.ply,
            });
        };
        let Some(ratio) = p.leaf_ratio else {
            continue; // no leaves evaluated: nothing to say about the leaves
        };
        by_game.entry(p.game).or_default().push((
            p.ply,
            f64::from(root).clamp(-clamp_cp, clamp_cp),
            leaf_score(ratio, leaves, win_rate_t).clamp(-clamp_cp, clamp_cp),
        ));
    }
    Ok(by_game
        .into_iter()
        .map(|(game, mut series)| {
            series.sort_by_key(|s| s.0);
            series.dedup_by_key(|s| s.0);
            let roots: Vec<f64> = series.iter().map(|s| s.1).collect();
            let leaves: Vec<f64> = series.iter().map(|s| s.2).collect();
            let root_k = kalman(&series.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>(), k);
            let leaf_k = kalman(&series.iter().map(|s| (s.0, s.2)).collect::<Vec<_>>(), k);
            let xs = |v: &[KalmanStep]| v.iter().map(|s| s.x).collect::<Vec<_>>();
            let rms_speed =
                (root_k.iter().map(|s| s.v * s.v).sum::<f64>() / root_k.len().max(1) as f64).sqrt();
            let window_rho = (0..series.len())
                .map(|i| {
                    let end = (i + WINDOW).min(series.len());
                    let rho = if end - i >= WINDOW_MIN {
                        pearson(&roots[i..end], &leaves[i..end])
                    } else {
                        None
                    };
                    WindowRho {
                        ply: series[i].0,
                        rho,
                    }
                })
                .collect();
            GameComplexity {
                game,
                positions: series.len(),
                rho_raw: pearson(&roots, &leaves),
                rho_kalman: pearson(&xs(&root_k), &xs(&leaf_k)),
                rms_speed,
                window_rho,
                kalman: root_k,
                series,
            }
        })
        .collect())
}

/// The readable table.
#[must_use]
pub fn table(games: &[GameComplexity]) -> String {
    use std::fmt::Write as _;
    let f = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.3}"));
    let mut out = format!(
        "{:>6} {:>9} {:>8} {:>10} {:>10}\n",
        "game", "positions", "rho", "rho_kalman", "rms_speed"
    );
    for g in games {
        let _ = writeln!(
            out,
            "{:>6} {:>9} {:>8} {:>10} {:>10.2}",
            g.game,
            g.positions,
            f(g.rho_raw),
            f(g.rho_kalman),
            g.rms_speed
        );
    }
    out.push_str(&super::legend(&[
        "rho: correlation over the game between the root's score and the leaf-level score of its \
         search (low or negative: a game whose positions the search found hard to judge); \
         rho_kalman: the same on Kalman-filtered series; rms_speed: how fast the root score \
         moved, cp per ply, RMS of the filter's velocity (docs/models.md section 8). --svg DIR \
         draws each game.",
    ]));
    out
}

/// One SVG per game in `dir`: root and leaf-level scores, and the windowed ρ below them.
pub fn svgs(dir: &Path, games: &[GameComplexity]) -> Result<(), ComplexityError> {
    use plotters::prelude::*;
    std::fs::create_dir_all(dir).map_err(|source| ComplexityError::Folder {
        path: dir.to_path_buf(),
        source,
    })?;
    for g in games {
        let path = dir.join(format!("game-{:04}.svg", g.game));
        let err = |e: &dyn std::fmt::Display| ComplexityError::Plot {
            path: path.clone(),
            message: e.to_string(),
        };
        let root = SVGBackend::new(&path, (900, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (top, bottom) = root.split_vertically(440);
        let x1 = f64::from(g.series.last().map_or(1, |s| s.0 + 1));
        let lim = g
            .series
            .iter()
            .flat_map(|s| [s.1.abs(), s.2.abs()])
            .fold(100.0, f64::max)
            .min(5000.0);
        let mut c = ChartBuilder::on(&top)
            .caption(
                format!(
                    "game {}: rho {} (Kalman {}), RMS speed {:.1}",
                    g.game,
                    g.rho_raw.map_or("-".into(), |r| format!("{r:.3}")),
                    g.rho_kalman.map_or("-".into(), |r| format!("{r:.3}")),
                    g.rms_speed
                ),
                ("sans-serif", 18),
            )
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x1, -lim..lim)
            .map_err(|e| err(&e))?;
        c.configure_mesh()
            .y_desc("score, sente's view (cp)")
            .draw()
            .map_err(|e| err(&e))?;
        let clamp = |v: f64| v.clamp(-lim, lim);
        c.draw_series(LineSeries::new(
            g.series.iter().map(|s| (f64::from(s.0), clamp(s.1))),
            BLUE.stroke_width(2),
        ))
        .map_err(|e| err(&e))?
        .label("root")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
        c.draw_series(LineSeries::new(
            g.series.iter().map(|s| (f64::from(s.0), clamp(s.2))),
            RED.stroke_width(2),
        ))
        .map_err(|e| err(&e))?
        .label("leaf level")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
        c.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        let mut w = ChartBuilder::on(&bottom)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x1, -1.0..1.0)
            .map_err(|e| err(&e))?;
        w.configure_mesh()
            .x_desc("ply")
            .y_desc(format!("rho over {WINDOW} positions"))
            .draw()
            .map_err(|e| err(&e))?;
        w.draw_series(LineSeries::new(
            g.window_rho
                .iter()
                .filter_map(|r| r.rho.map(|v| (f64::from(r.ply), v))),
            BLACK.stroke_width(2),
        ))
        .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_scores_are_the_win_rate_scale_turned_back() {
        assert_eq!(leaf_score(0.5, 100, 600.0), 0.0);
        assert!(leaf_score(1.0, 100, 600.0).is_finite());
        assert!(leaf_score(0.9, 100, 600.0) > 0.0 && leaf_score(0.1, 100, 600.0) < 0.0);
        // r = 1 / (1 + exp(-x / T)) turned back.
        let x = 250.0;
        let r = 1.0 / (1.0 + (-x / 600.0f64).exp());
        assert!((leaf_score(r, 1_000_000, 600.0) - x).abs() < 1e-9);
    }
}
