//! What a tune shows at its end: the closing table (each parameter's start, final value and the
//! range θ covered; under `--simulate` the known optimum and the distance to it), and a word on
//! each parameter that has not settled or, simulated, has not reached its optimum. Figures come
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
    /// The parameter's range (`max − min`).
    pub range: f64,
    /// How far θ moved over the last quarter of the iterations done.
    pub late_move: f64,
}

/// A parameter that moved more than this share of its range over the last quarter of a tune
/// has not settled.
pub const UNSETTLED: f64 = 0.05;

/// A simulated tune that ends further than this share of the range from the optimum did not
/// reach it.
pub const OFF_OPTIMUM: f64 = 0.10;

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
            let course: Vec<f64> = values.clone().collect();
            let last = course.last().copied().unwrap_or(p.start);
            let quarter = course[course.len() - 1 - (course.len() - 1) / 4];
            ParamSummary {
                path: p.path.clone(),
                start: p.start,
                last,
                min_seen: lo,
                max_seen: hi,
                optimum: simulate.then(|| tune.simulate.optimum[i]),
                range: p.max - p.min,
                late_move: (last - quarter).abs(),
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
    let share = |x: f64, r: &ParamSummary| 100.0 * x / r.range.max(f64::MIN_POSITIVE);
    for r in rows {
        if r.late_move > UNSETTLED * r.range {
            let _ = writeln!(
                out,
                "{}: not settled: it moved {:.3} ({:.0}% of its range) over the last quarter of \
                 the iterations; a longer tune (--iterations, into another --out) or a larger \
                 r_end lets it settle",
                r.path,
                r.late_move,
                share(r.late_move, r)
            );
        }
        if let Some(d) = r.distance().filter(|&d| d > OFF_OPTIMUM * r.range) {
            let _ = writeln!(
                out,
                "{}: did not converge: it ended {d:.3} ({:.0}% of its range) from the bowl's \
                 optimum; more iterations, a larger r_end or c_end, or more pairs per iteration",
                r.path,
                share(d, r)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(last: f64, late_move: f64, optimum: Option<f64>) -> ParamSummary {
        ParamSummary {
            path: "noise_cp".into(),
            start: 280.0,
            last,
            min_seen: last.min(280.0),
            max_seen: 280.0,
            optimum,
            range: 300.0,
            late_move,
        }
    }

    #[test]
    fn a_parameter_still_moving_or_far_from_the_optimum_is_said_to_be() {
        let settled = table(&[summary(152.0, 3.0, Some(150.0))], 30, 30);
        assert!(
            !settled.contains("not settled") && !settled.contains("did not converge"),
            "{settled}"
        );
        let moving = table(&[summary(200.0, 40.0, None)], 30, 30);
        assert!(
            moving.contains("noise_cp: not settled: it moved 40.000 (13% of its range)"),
            "{moving}"
        );
        let far = table(&[summary(288.0, 2.0, Some(150.0))], 30, 30);
        assert!(
            far.contains("noise_cp: did not converge: it ended 138.000 (46% of its range)"),
            "{far}"
        );
    }
}
