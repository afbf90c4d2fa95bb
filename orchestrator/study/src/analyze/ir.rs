//! `council-analyze ir`: per player, what its analysed moves show (match rate, average scaled
//! error), the move-probability model fitted to them, and with a calibration (`calibrate_ir`)
//! the intrinsic rating `IR = a - b AE` with a 95% interval from a bootstrap over games.
//!
//! The data rules of models.md section 7 are applied here, once, for `ir` and `calibrate-ir`:
//! positions before `skip_plies`, positions the reference already scores at `max_cp` or more
//! either way, and positions repeated within a game are left out. An IR is only meaningful under
//! the rules and the reference search it was calibrated with, so `run` refuses any other. The
//! numbers come from `sim::intrinsic` and `stats::bootstrap`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sim::intrinsic::{self, Decision};
use thiserror::Error;

use super::analysis::{self, AnalysedPosition, AnalysisError, Reference};
use super::{Output, sorted_json};
use council_schema::stats::bootstrap;

/// Why `ir` has no report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum IrError {
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error("{}", .path.display())]
    CalibrationIo {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a calibration file", .path.display())]
    NotACalibration {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// `--u`, `--max-cp` or `--skip-plies` differ from the calibration's (given here).
    #[error(
        "--u/--max-cp/--skip-plies differ from the calibration's ({} / {} / {}): an IR is only meaningful under the rules it was calibrated with",
        .calibration.u, .calibration.max_cp, .calibration.skip_plies
    )]
    RulesDiffer { calibration: Rules },
    /// A position of the analysis was searched otherwise than the calibration's.
    #[error(transparent)]
    OtherReference(Box<OtherReference>),
}

/// An analysis whose reference searched otherwise than the calibration's, with the `moves`
/// command that analyses as the calibration did.
#[derive(Debug, Error)]
#[error(
    "{}: game {game} ply {ply} was analysed by {analysed}, the calibration {} by {wanted}: analyse with the calibration's reference: council-analyze moves RUN --out FILE {flags}",
    .file.display(), .calibration.display()
)]
pub struct OtherReference {
    pub file: PathBuf,
    pub game: u64,
    pub ply: u32,
    pub analysed: String,
    pub calibration: PathBuf,
    pub wanted: String,
    /// The `moves` flags that analyse as the calibration's reference did.
    pub flags: String,
}

/// The data rules and the scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// The scaled error's unit, cp.
    pub u: f64,
    /// Positions with `|V0| >= max_cp` are left out.
    pub max_cp: f64,
    pub skip_plies: u32,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            u: 100.0,
            max_cp: 300.0,
            skip_plies: 16,
        }
    }
}

/// A player's decisions, each with the game it was made in.
pub type Decisions = Vec<(u64, Decision)>;

/// The decisions of every player, by name, after the data rules.
#[must_use]
pub fn decisions_by_player(
    positions: &[AnalysedPosition],
    rules: &Rules,
) -> BTreeMap<String, Decisions> {
    let mut by: BTreeMap<String, Decisions> = BTreeMap::new();
    let mut seen: HashSet<(u64, String)> = HashSet::new();
    let mut sorted: Vec<&AnalysedPosition> = positions.iter().collect();
    sorted.sort_by_key(|p| (p.game, p.ply));
    for p in sorted {
        // The position without its move number: a repetition has the same text.
        let board = p.sfen.rsplit_once(' ').map_or(p.sfen.as_str(), |(b, _)| b);
        let repeated = !seen.insert((p.game, board.to_string()));
        if p.screened {
            continue; // the screen found |V0| at or above its threshold
        }
        let Some(played) = p.played_index() else {
            continue;
        };
        let Some(best) = p.candidates.first() else {
            continue;
        };
        if repeated || p.ply < rules.skip_plies || f64::from(best.cp.abs()) >= rules.max_cp {
            continue;
        }
        let scores: Vec<f64> = p.candidates.iter().map(|c| f64::from(c.cp)).collect();
        by.entry(p.player.clone())
            .or_default()
            .push((p.game, Decision::from_scores(&scores, played, rules.u)));
    }
    by
}

/// The calibration file of `calibrate-ir`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationFile {
    pub u: f64,
    pub max_cp: f64,
    pub skip_plies: u32,
    pub reference: Option<Reference>,
    pub a: f64,
    pub b: f64,
    pub r2: f64,
    /// The same regression on the model's expected error `AE_e` at each rung's
    /// maximum-likelihood `(s, c)` (models.md section 7: "regress Elo on AE (and on AE_e)"), for
    /// comparison; IR uses the line on AE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_ae_e: Option<Line>,
    pub rungs: Vec<Rung>,
}

/// `Elo = a - b x` with its R².
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub a: f64,
    pub b: f64,
    pub r2: f64,
}

/// One player of the calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rung {
    pub name: String,
    pub elo: f64,
    pub ae: f64,
    pub positions: usize,
    /// Its IR from the line fitted without it.
    pub loo_ir: f64,
    /// Its `AE_e`, and its IR from the `AE_e` line fitted without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ae_e: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loo_ir_ae_e: Option<f64>,
}

impl CalibrationFile {
    pub fn rules(&self) -> Rules {
        Rules {
            u: self.u,
            max_cp: self.max_cp,
            skip_plies: self.skip_plies,
        }
    }

    /// Read a calibration file of `calibrate-ir`.
    pub fn read(path: &Path) -> Result<CalibrationFile, IrError> {
        let text = std::fs::read_to_string(path).map_err(|source| IrError::CalibrationIo {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| IrError::NotACalibration {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// One player's line of `ir`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerIr {
    pub name: String,
    pub positions: usize,
    pub games: usize,
    pub mm: f64,
    pub ae: f64,
    pub s: f64,
    pub c: f64,
    pub s_percentile: f64,
    pub c_percentile: f64,
    /// The model's match rate and average error at the maximum-likelihood `(s, c)`.
    pub mm_e: f64,
    pub ae_e: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ir: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ir_lower: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ir_upper: Option<f64>,
}

/// Bootstrap resamples of the games for the IR interval.
pub const BOOTSTRAP: usize = 2000;

/// The 95% bootstrap interval of `IR = a - b AE` over `decisions`' games (`None` without any).
fn ir_interval(decisions: &Decisions, a: f64, b: f64, seed: u64) -> Option<(f64, f64)> {
    // Per game: (sum of errors, positions).
    let mut per_game: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    for (g, d) in decisions {
        let e = per_game.entry(*g).or_default();
        e.0 += d.errors[d.played];
        e.1 += 1;
    }
    let games: Vec<(f64, usize)> = per_game.into_values().collect();
    bootstrap::cluster_interval(&games, BOOTSTRAP, seed, |sum, n| {
        a - b * sum / n.max(1) as f64
    })
}

/// Every player's report.
#[must_use]
pub fn report(
    by_player: &BTreeMap<String, Decisions>,
    calibration: Option<&CalibrationFile>,
    seed: u64,
) -> Vec<PlayerIr> {
    by_player
        .iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(name, decisions)| {
            let plain: Vec<Decision> = decisions.iter().map(|(_, d)| d.clone()).collect();
            let o = intrinsic::observed(&plain);
            let ml = intrinsic::fit_max_likelihood(&plain);
            let pc = intrinsic::fit_percentile(&plain);
            let (mm_e, ae_e) = intrinsic::expected(&plain, ml.s, ml.c);
            let games: HashSet<u64> = decisions.iter().map(|(g, _)| *g).collect();
            let ir = calibration.map(|cal| cal.a - cal.b * o.ae);
            let interval = calibration.and_then(|cal| ir_interval(decisions, cal.a, cal.b, seed));
            PlayerIr {
                name: name.clone(),
                positions: o.positions,
                games: games.len(),
                mm: o.mm,
                ae: o.ae,
                s: ml.s,
                c: ml.c,
                s_percentile: pc.s,
                c_percentile: pc.c,
                mm_e,
                ae_e,
                ir,
                ir_lower: interval.map(|i| i.0),
                ir_upper: interval.map(|i| i.1),
            }
        })
        .collect()
}

/// What `ir` is asked.
#[derive(Debug, Clone)]
pub struct IrOptions {
    /// An analysis file of `moves`.
    pub file: PathBuf,
    /// The data rules' settings; each unset one is the calibration's, else the default.
    pub u: Option<f64>,
    pub max_cp: Option<f64>,
    pub skip_plies: Option<u32>,
    /// A calibration file of `calibrate-ir`: adds the IR and its interval.
    pub calibration: Option<PathBuf>,
    /// The bootstrap's seed.
    pub seed: u64,
}

/// `ir`'s report: every player's line, and the settings it was made with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IrReport {
    pub players: Vec<PlayerIr>,
    pub u: f64,
    pub max_cp: f64,
    pub skip_plies: u32,
    pub seed: u64,
    /// Bootstrap resamples behind each interval.
    pub bootstrap: usize,
}

/// `ir FILE`: the data rules (the calibration's, unless overridden to the same values), the
/// analysis read and checked against the calibration's reference search, every player rated.
pub fn run(opts: &IrOptions) -> Result<IrReport, IrError> {
    let cal = opts
        .calibration
        .as_deref()
        .map(CalibrationFile::read)
        .transpose()?;
    let base = cal
        .as_ref()
        .map_or_else(Rules::default, CalibrationFile::rules);
    let rules = Rules {
        u: opts.u.unwrap_or(base.u),
        max_cp: opts.max_cp.unwrap_or(base.max_cp),
        skip_plies: opts.skip_plies.unwrap_or(base.skip_plies),
    };
    if let Some(c) = &cal
        && rules != c.rules()
    {
        return Err(IrError::RulesDiffer {
            calibration: c.rules(),
        });
    }
    let read = analysis::read(&opts.file)?;
    if let (Some(c), Some(path)) = (&cal, &opts.calibration) {
        check_reference(&read.positions, c, &opts.file, path)?;
    }
    let by = decisions_by_player(&read.positions, &rules);
    Ok(IrReport {
        players: report(&by, cal.as_ref(), opts.seed),
        u: rules.u,
        max_cp: rules.max_cp,
        skip_plies: rules.skip_plies,
        seed: opts.seed,
        bootstrap: BOOTSTRAP,
    })
}

/// The reference's lines depend on its settings (at depth 8, MultiPV 10 and 50 name different
/// best moves in a third to a half of the ladder's positions): rate only by the calibration's
/// own search (engine, MultiPV, budget).
fn check_reference(
    positions: &[AnalysedPosition],
    cal: &CalibrationFile,
    file: &Path,
    cal_path: &Path,
) -> Result<(), IrError> {
    let Some(wanted) = &cal.reference else {
        return Ok(());
    };
    match positions.iter().find(|p| !p.reference.same_search(wanted)) {
        None => Ok(()),
        Some(p) => Err(IrError::OtherReference(Box::new(OtherReference {
            file: file.to_path_buf(),
            game: p.game,
            ply: p.ply,
            analysed: p.reference.describe(),
            calibration: cal_path.to_path_buf(),
            wanted: wanted.describe(),
            flags: format!("{} --skip-plies {}", wanted.moves_flags(), cal.skip_plies),
        }))),
    }
}

impl Output for IrReport {
    fn table(&self) -> String {
        table(&self.players)
    }

    fn json(&self) -> serde_json::Result<String> {
        sorted_json(self)
    }
}

/// The `ir` table.
#[must_use]
pub fn table(players: &[PlayerIr]) -> String {
    use std::fmt::Write as _;
    let width = players
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!(
        "{:width$}  positions  games     MM      AE       s       c   s_pct   c_pct    MM_e    AE_e  IR (95%)\n",
        "player"
    );
    for p in players {
        let ir = match (p.ir, p.ir_lower, p.ir_upper) {
            (Some(ir), Some(lo), Some(hi)) => format!("{ir:.0} [{lo:.0}, {hi:.0}]"),
            _ => "-".into(),
        };
        let _ = writeln!(
            out,
            "{:width$}  {:>9}  {:>5}  {:>5.3}  {:>6.4}  {:>6.4}  {:>6.3}  {:>6.4}  {:>6.3}  {:>6.3}  {:>6.4}  {ir}",
            p.name,
            p.positions,
            p.games,
            p.mm,
            p.ae,
            p.s,
            p.c,
            p.s_percentile,
            p.c_percentile,
            p.mm_e,
            p.ae_e
        );
    }
    out.push_str(&super::legend(&[
        "MM: share of moves that were the reference's best; AE: average error, the played move's \
         loss against the best in units of u cp (--u); s, c: the move-probability model fitted by \
         maximum likelihood (smaller s, larger c: a stronger player), s_pct, c_pct by the \
         percentile method; MM_e, AE_e: what the fitted model expects (docs/models.md section 7).",
    ]));
    if players.iter().any(|p| p.ir.is_none()) {
        out.push_str(
            "IR: needs a calibration: add --calibration configs/ir-calibration.json (the shipped \
             one; analyse with its reference, see docs/studies/ir-calibration.md) or one of \
             `council-analyze calibrate-ir`.\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analysis::Candidate;

    fn position(
        game: u64,
        ply: u32,
        sfen: &str,
        scores: &[i32],
        played: usize,
    ) -> AnalysedPosition {
        AnalysedPosition {
            game,
            ply,
            player: "p".into(),
            sfen: sfen.into(),
            played: format!("m{played}"),
            candidates: scores
                .iter()
                .enumerate()
                .map(|(i, &cp)| Candidate {
                    mv: format!("m{i}"),
                    cp,
                })
                .collect(),
            reference: Reference {
                name: "r".into(),
                nodes: Some(1),
                depth: None,
                screen_cp: None,
                sample: None,
                seed: None,
            },
            screened: false,
            root_cp: None,
            leaves: None,
            leaf_ratio: None,
            ebf: None,
            ebf_depth: None,
        }
    }

    #[test]
    fn data_rules_drop_the_opening_lopsided_and_repeated_positions() {
        let rules = Rules::default();
        let ps = vec![
            position(1, 3, "a b - 4", &[10, 0], 1),        // opening
            position(1, 20, "x b - 21", &[50, 0], 1),      // kept
            position(1, 21, "y w - 22", &[400, 0], 0),     // lopsided
            position(1, 24, "x b - 25", &[50, 0], 0),      // repeated
            position(2, 24, "x b - 25", &[-290, -400], 0), // another game: kept
        ];
        let by = decisions_by_player(&ps, &rules);
        let d = &by["p"];
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].0, 1);
        assert!(d[0].1.errors[1] > 0.0 && d[0].1.played == 1);
        assert_eq!(d[1].0, 2);
    }

    #[test]
    fn ir_interval_holds_the_estimate_and_narrows_with_more_games() {
        let mut few: Decisions = Vec::new();
        let mut many: Decisions = Vec::new();
        for g in 0..400u64 {
            let err = if g % 2 == 0 { 0.0 } else { 0.2 };
            let d = Decision {
                errors: vec![0.0, 0.2],
                played: usize::from(err > 0.0),
            };
            if g < 20 {
                few.push((g, d.clone()));
            }
            many.push((g, d));
        }
        let (a, b) = (3000.0, 5000.0);
        let (lo, hi) = ir_interval(&few, a, b, 1).unwrap();
        let (lo2, hi2) = ir_interval(&many, a, b, 1).unwrap();
        let ir = a - b * 0.1;
        assert!(lo < ir && ir < hi && lo2 < ir && ir < hi2);
        assert!(hi2 - lo2 < 0.5 * (hi - lo), "{lo2}..{hi2} vs {lo}..{hi}");
        assert_eq!(ir_interval(&few, a, b, 1), Some((lo, hi)), "seeded");
    }
}
