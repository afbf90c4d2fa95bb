//! `council-analyze complexity`: seed 004's whole-game indicators from an analysis made with
//! `moves --complexity` (models.md section 8): the root score against the leaf-level score
//! (the share of leaves good for sente, turned into a score), their correlation over the game and
//! over windows of 16 positions, and both series smoothed by a constant-acceleration Kalman
//! filter, whose velocity gives the game's RMS speed.
//!
//! The filter's time step is the ply gap between consecutive samples, so a series of every ply
//! uses `Δt = 1` and one side's moves `Δt = 2`, as the seed says.

use std::collections::BTreeMap;
use std::path::Path;

use nalgebra::{Matrix3, Vector3};
use serde::Serialize;

use super::analysis::AnalysedPosition;

/// The filter's noise settings: `q`, `r` are variances (cp²); `p0` sets `P_0 = p0·I`, else
/// `P_0 = diag(r, 1e4, 1e4)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KalmanSettings {
    pub q: f64,
    pub r: f64,
    pub p0: Option<f64>,
}

impl Default for KalmanSettings {
    fn default() -> Self {
        KalmanSettings {
            q: 20.0 * 20.0,
            r: 100.0 * 100.0,
            p0: None,
        }
    }
}

/// The filtered state after one sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KalmanStep {
    pub ply: u32,
    pub x: f64,
    pub v: f64,
    pub a: f64,
}

/// Filter `samples` (ply, value), plies increasing: every sample, the first included, is a
/// predict then an update, from `X_0 = [y_0, 0, 0]`. The first step's `Δt` is the second
/// sample's gap (1 for a lone sample).
#[must_use]
pub fn kalman(samples: &[(u32, f64)], k: &KalmanSettings) -> Vec<KalmanStep> {
    let Some(&(_, y0)) = samples.first() else {
        return Vec::new();
    };
    let mut x = Vector3::new(y0, 0.0, 0.0);
    let mut p = match k.p0 {
        Some(p0) => Matrix3::identity() * p0,
        None => Matrix3::from_diagonal(&Vector3::new(k.r, 1e4, 1e4)),
    };
    let first_gap = samples.get(1).map_or(1, |s| s.0 - samples[0].0).max(1);
    let mut out = Vec::with_capacity(samples.len());
    for (i, &(ply, y)) in samples.iter().enumerate() {
        let dt = if i == 0 {
            f64::from(first_gap)
        } else {
            f64::from(ply.saturating_sub(samples[i - 1].0).max(1))
        };
        let f = Matrix3::new(1.0, dt, dt * dt / 2.0, 0.0, 1.0, dt, 0.0, 0.0, 1.0);
        let g = Vector3::new(dt * dt / 2.0, dt, 1.0);
        x = f * x;
        p = f * p * f.transpose() + g * g.transpose() * k.q;
        let s = p[(0, 0)] + k.r;
        let gain = p.column(0) / s;
        x += gain * (y - x[0]);
        p -= gain * p.row(0);
        out.push(KalmanStep {
            ply,
            x: x[0],
            v: x[1],
            a: x[2],
        });
    }
    out
}

/// Pearson's correlation, `None` with fewer than 2 points or no spread.
#[must_use]
pub fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let (ma, mb) = (
        a[..n].iter().sum::<f64>() / n as f64,
        b[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (x, y) = (a[i] - ma, b[i] - mb);
        sab += x * y;
        saa += x * x;
        sbb += y * y;
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
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
) -> Result<Vec<GameComplexity>, String> {
    let mut by_game: BTreeMap<u64, Vec<(u32, f64, f64)>> = BTreeMap::new();
    for p in positions {
        let (Some(root), Some(leaves)) = (p.root_cp, p.leaves) else {
            return Err(format!(
                "game {} ply {}: no complexity in this analysis (make it with council-analyze moves --complexity)",
                p.game, p.ply
            ));
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
    out
}

/// One SVG per game in `dir`: root and leaf-level scores, and the windowed ρ below them.
pub fn svgs(dir: &Path, games: &[GameComplexity]) -> Result<(), String> {
    use plotters::prelude::*;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for g in games {
        let path = dir.join(format!("game-{:04}.svg", g.game));
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
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
    fn kalman_steps_match_the_hand_computed_ones() {
        // q = r = 1, P0 = I, samples 0 then 1 at plies 0 and 1 (worked by hand in sevenths and
        // 28ths: after the second update X = [171, 174, 86] / 199).
        let k = KalmanSettings {
            q: 1.0,
            r: 1.0,
            p0: Some(1.0),
        };
        let s = kalman(&[(0, 0.0), (1, 1.0)], &k);
        assert_eq!((s[0].x, s[0].v, s[0].a), (0.0, 0.0, 0.0));
        for (got, want) in [(s[1].x, 171.0), (s[1].v, 174.0), (s[1].a, 86.0)] {
            assert!((got - want / 199.0).abs() < 1e-12, "{got} vs {want}/199");
        }
    }

    #[test]
    fn the_time_step_is_the_ply_gap() {
        // One side's moves (every other ply) of a score rising 10 cp per ply: the velocity is
        // per ply, so it settles near 10, not 20.
        let samples: Vec<(u32, f64)> = (0..60).map(|i| (2 * i, 20.0 * f64::from(i))).collect();
        let s = kalman(&samples, &KalmanSettings::default());
        let v = s.last().unwrap().v;
        assert!((v - 10.0).abs() < 0.5, "{v}");
        let every: Vec<(u32, f64)> = (0..60).map(|i| (i, 10.0 * f64::from(i))).collect();
        let v1 = kalman(&every, &KalmanSettings::default()).last().unwrap().v;
        assert!((v1 - 10.0).abs() < 0.5, "{v1}");
    }

    #[test]
    fn leaf_scores_and_correlations() {
        assert_eq!(leaf_score(0.5, 100, 600.0), 0.0);
        assert!(leaf_score(1.0, 100, 600.0).is_finite());
        assert!(leaf_score(0.9, 100, 600.0) > 0.0 && leaf_score(0.1, 100, 600.0) < 0.0);
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((pearson(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(pearson(&[1.0, 1.0], &[1.0, 2.0]), None);
    }
}
