//! `council-analyze calibrate-ir`: the line `Elo = a - b AE` through the players of an analysis
//! whose Elo is known (a `council-elo --format json` report), written as the calibration file
//! `ir` rates with. The file records the data rules and the reference search, so that `ir`
//! rates only under the same (see `ir`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sim::intrinsic::{self, Decision};
use thiserror::Error;

use super::analysis::{self, AnalysisError, Reference};
use super::ir::{self, CalibrationFile, Decisions, Line, Rules, Rung};
use super::ir_svg::{self, SvgError};

/// Why there is no calibration.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CalibrateError {
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error("{}", .path.display())]
    EloIo {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not JSON", .path.display())]
    EloNotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: not a council-elo report", .path.display())]
    NotAnEloReport {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: no `players` list (write it with council-elo --format json)", .path.display())]
    NoPlayers { path: PathBuf },
    /// Fewer than 3 players have both; `names` lists those that do.
    #[error(
        "calibration needs at least 3 players with both an analysis and an Elo; found {} ({})",
        .names.len(), .names.join(", ")
    )]
    TooFewPlayers { names: Vec<String> },
    #[error("the players' average errors are all equal: nothing to calibrate on")]
    EqualErrors,
    #[error("{}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Svg(#[from] SvgError),
}

/// What `calibrate-ir` is asked.
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    /// An analysis file of `moves`.
    pub file: PathBuf,
    /// The players' Elo: a `council-elo --format json` report.
    pub elo: PathBuf,
    /// The calibration file to write.
    pub out: PathBuf,
    pub rules: Rules,
    /// Also draw the calibration (SVG).
    pub svg: Option<PathBuf>,
}

/// What `calibrate-ir` wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrateReport {
    pub calibration: CalibrationFile,
    pub out: PathBuf,
}

/// `calibrate-ir FILE --elo ELO --out OUT`: fit, write the calibration (and its picture).
pub fn run(opts: &CalibrateOptions) -> Result<CalibrateReport, CalibrateError> {
    let ratings = read_elo(&opts.elo)?;
    let read = analysis::read(&opts.file)?;
    // One analysis differs from line to line only by a grown sample (`moves` refuses anything
    // else): a resume with a larger sample completes it, so name the largest.
    let reference = read
        .positions
        .iter()
        .map(|p| &p.reference)
        .max_by(|a, b| a.sample.unwrap_or(1.0).total_cmp(&b.sample.unwrap_or(1.0)))
        .cloned();
    let by = ir::decisions_by_player(&read.positions, &opts.rules);
    let cal = fit(&by, &ratings, &opts.rules, reference)?;
    std::fs::write(&opts.out, serde_json::to_string_pretty(&cal)?).map_err(|source| {
        CalibrateError::Write {
            path: opts.out.clone(),
            source,
        }
    })?;
    if let Some(svg) = &opts.svg {
        ir_svg::write_calibration_svg(&cal, svg)?;
    }
    Ok(CalibrateReport {
        calibration: cal,
        out: opts.out.clone(),
    })
}

/// The players' ratings in a `council-elo --format json` report, by name: the one place that
/// reads that report here, of it only `players[].name` and `players[].elo` (a player without
/// either is left out).
pub fn read_elo(path: &Path) -> Result<BTreeMap<String, f64>, CalibrateError> {
    #[derive(Deserialize)]
    struct EloReport {
        players: Option<Vec<EloPlayer>>,
    }
    #[derive(Deserialize)]
    struct EloPlayer {
        name: Option<String>,
        elo: Option<f64>,
    }
    let text = std::fs::read_to_string(path).map_err(|source| CalibrateError::EloIo {
        path: path.to_path_buf(),
        source,
    })?;
    let report: EloReport = serde_json::from_str(&text).map_err(|source| {
        let path = path.to_path_buf();
        if source.is_data() {
            CalibrateError::NotAnEloReport { path, source }
        } else {
            CalibrateError::EloNotJson { path, source }
        }
    })?;
    let players = report.players.ok_or_else(|| CalibrateError::NoPlayers {
        path: path.to_path_buf(),
    })?;
    Ok(players
        .into_iter()
        .filter_map(|p| Some((p.name?, p.elo?)))
        .collect())
}

/// The line `Elo = a - b AE` through the players that have both, with each player's
/// leave-one-out IR, and the same line on the model's expected error `AE_e` for comparison.
pub fn fit(
    by_player: &BTreeMap<String, Decisions>,
    elo: &BTreeMap<String, f64>,
    rules: &Rules,
    reference: Option<Reference>,
) -> Result<CalibrationFile, CalibrateError> {
    let mut rungs: Vec<(String, f64, f64, usize, f64)> = Vec::new();
    for (name, decisions) in by_player {
        let Some(&e) = elo.get(name) else { continue };
        if decisions.is_empty() {
            continue;
        }
        let plain: Vec<Decision> = decisions.iter().map(|(_, d)| d.clone()).collect();
        let o = intrinsic::observed(&plain);
        let ml = intrinsic::fit_max_likelihood(&plain);
        let (_, ae_e) = intrinsic::expected(&plain, ml.s, ml.c);
        rungs.push((name.clone(), e, o.ae, o.positions, ae_e));
    }
    if rungs.len() < 3 {
        return Err(CalibrateError::TooFewPlayers {
            names: rungs.into_iter().map(|r| r.0).collect(),
        });
    }
    let x: Vec<f64> = rungs.iter().map(|r| r.2).collect();
    let y: Vec<f64> = rungs.iter().map(|r| r.1).collect();
    let fit = intrinsic::calibrate(&x, &y).ok_or(CalibrateError::EqualErrors)?;
    let x_e: Vec<f64> = rungs.iter().map(|r| r.4).collect();
    let fit_e = intrinsic::calibrate(&x_e, &y);
    Ok(CalibrationFile {
        u: rules.u,
        max_cp: rules.max_cp,
        skip_plies: rules.skip_plies,
        reference,
        a: fit.a,
        b: fit.b,
        r2: fit.r2,
        on_ae_e: fit_e.as_ref().map(|f| Line {
            a: f.a,
            b: f.b,
            r2: f.r2,
        }),
        rungs: rungs
            .into_iter()
            .zip(fit.loo)
            .enumerate()
            .map(|(i, ((name, elo, ae, positions, ae_e), loo_ir))| Rung {
                name,
                elo,
                ae,
                positions,
                loo_ir,
                ae_e: Some(ae_e),
                loo_ir_ae_e: fit_e.as_ref().map(|f| f.loo[i]),
            })
            .collect(),
    })
}

impl CalibrateReport {
    /// The line, where it was written, and each rung (`calibrate-ir` prints only this: the
    /// calibration file is its JSON).
    #[must_use]
    pub fn table(&self) -> String {
        use std::fmt::Write as _;
        let cal = &self.calibration;
        let mut out = format!(
            "IR = {:.1} - {:.1} AE  (R² {:.3}, {} players) -> {}\n",
            cal.a,
            cal.b,
            cal.r2,
            cal.rungs.len(),
            self.out.display()
        );
        if let Some(l) = &cal.on_ae_e {
            let _ = writeln!(
                out,
                "on AE_e instead: IR = {:.1} - {:.1} AE_e  (R² {:.3})",
                l.a, l.b, l.r2
            );
        }
        let _ = writeln!(
            out,
            "{:<16} {:>8} {:>8} {:>9} {:>8} {:>8} {:>10}",
            "player", "elo", "AE", "positions", "loo IR", "AE_e", "loo IR(e)"
        );
        let or_dash =
            |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
        for r in &cal.rungs {
            let _ = writeln!(
                out,
                "{:<16} {:>8.1} {:>8.4} {:>9} {:>8.1} {:>8} {:>10}",
                r.name,
                r.elo,
                r.ae,
                r.positions,
                r.loo_ir,
                or_dash(r.ae_e, 4),
                or_dash(r.loo_ir_ae_e, 1)
            );
        }
        out.push_str(&super::legend(&[
            "elo: each rung's rating (council-elo of the ladder's games); AE: its average error; \
             loo IR: its IR from the line fitted without it (leave-one-out: how far a player off \
             the ladder would be placed); AE_e, loo IR(e): the same on the model's expected error. \
             Rate players with council-analyze ir ANALYSIS --calibration FILE.",
        ]));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elo_report_gives_each_named_and_rated_player() {
        let dir = std::env::temp_dir().join(format!("council-elo-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("elo.json");
        std::fs::write(
            &path,
            r#"{"players": [{"rank": 1, "name": "a", "elo": 10.5, "error": 3}, {"name": "b", "elo": -4}, {"elo": 1}], "model": {}}"#,
        )
        .unwrap();
        let r = read_elo(&path).unwrap();
        assert_eq!(r, BTreeMap::from([("a".into(), 10.5), ("b".into(), -4.0)]));
        std::fs::write(&path, r#"{"model": {}}"#).unwrap();
        assert!(matches!(
            read_elo(&path),
            Err(CalibrateError::NoPlayers { .. })
        ));
        std::fs::write(&path, "nope").unwrap();
        assert!(matches!(
            read_elo(&path),
            Err(CalibrateError::EloNotJson { .. })
        ));
        std::fs::write(&path, r#"{"players": 3}"#).unwrap();
        assert!(matches!(
            read_elo(&path),
            Err(CalibrateError::NotAnEloReport { .. })
        ));
        let _ = std::fs::remove_dir_all(dir);
    }
}
