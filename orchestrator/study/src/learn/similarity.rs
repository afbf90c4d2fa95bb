//! `council-learn similarity CORPUS... --plies A-B --grouping 56|112 --out WEIGHTS`: seed 002's
//! distance weights (models.md section 11) learned by linear programming from FAR pairs.
//!
//! **Positions.** Every corpus game replayed; the positions after plies A, A+step, ... up to B
//! (games that end sooner give fewer), each labelled by its strategy family
//! (`engine::strategy::label(pos).family()`) and described by the seed's attributes in the
//! chosen grouping. [`positions`] is the one place that makes this set: `council-analyze
//! similarity` rebuilds exactly the same one from the weights file's plies and step.
//!
//! **The LP.** Variables `W_i ∈ [0, 1]` and `D ≥ 0`; for each FAR pair (two positions of
//! different families, `far_pairs` of them drawn with the seed, ChaCha8)
//! `Σ_i W_i (A_i − B_i)² ≥ D + 1`. The seed gives no objective; ours is **minimise Σ W_i**,
//! whose optimum is a sparse vertex (few attributes carry the distance). With FAR pairs only,
//! `D` is free to drop to 0 at the optimum; it is kept for the seed's form. When the FAR set
//! is infeasible (two positions of different families with the same attributes, or more
//! demanded than `W ≤ 1` allows), the LP is solved again with a slack `s_p ≥ 0` per pair
//! (`... + s_p ≥ D + 1`) and the objective `Σ W_i + SLACK_PENALTY · Σ s_p`; the report says so
//! and counts the pairs left short. Solved by good_lp's pure-Rust microlp backend.

use std::path::{Path, PathBuf};

use engine::position::replay;
use engine::similarity::{self, Grouping};
use engine::strategy::{self, Family};
use good_lp::{
    Expression, ResolutionError, Solution, SolverModel, Variable, microlp, variable, variables,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use council_schema::corpus::{self, Corpus, CorpusError};

/// The weights file's `format` field.
pub const FORMAT: &str = "council-similarity-weights";
/// The weights file's version.
pub const VERSION: u32 = 1;
/// The objective's price of one unit of slack, when the FAR set is infeasible without it.
pub const SLACK_PENALTY: f64 = 1000.0;
/// A weight above this counts as relevant.
pub const RELEVANT: f64 = 1e-9;
/// The objective, as the weights file and the report state it.
pub const OBJECTIVE: &str =
    "minimise sum of W_i subject to FAR pairs sum W_i (A_i - B_i)^2 >= D + 1, W in [0,1], D >= 0";

/// A `--plies A-B` / `--step S` that names no plies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PliesError {
    #[error("--plies `{text}`: expected A-B with whole numbers")]
    NotNumbers { text: String },
    #[error("--plies `{text}`: {first} is after {last}")]
    Backwards {
        text: String,
        first: usize,
        last: usize,
    },
    #[error("--step must be at least 1")]
    NoStep,
}

/// A weights file's `grouping` that is neither 56 nor 112.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("grouping `{0}`: expected 56 or 112")]
pub struct UnknownGrouping(pub String);

/// Which plies of each game: `first`, `first + step`, ... up to `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plies {
    pub first: usize,
    pub last: usize,
    pub step: usize,
}

impl Plies {
    /// Parses `A-B` (or a single ply `A`) with the given step.
    ///
    /// # Errors
    /// [`PliesError`], naming what is wrong.
    pub fn parse(text: &str, step: usize) -> Result<Self, PliesError> {
        let (a, b) = text.split_once('-').unwrap_or((text, text));
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| PliesError::NotNumbers { text: text.into() })
        };
        let (first, last) = (num(a)?, num(b)?);
        if first > last {
            return Err(PliesError::Backwards {
                text: text.into(),
                first,
                last,
            });
        }
        if step == 0 {
            return Err(PliesError::NoStep);
        }
        Ok(Self { first, last, step })
    }

    fn iter(self) -> impl Iterator<Item = usize> {
        (self.first..=self.last).step_by(self.step)
    }
}

/// One position of the set.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The game's index in the corpus (leave-one-out leaves the whole game out).
    pub game: usize,
    pub ply: usize,
    pub family: Family,
    pub attributes: Vec<u32>,
}

/// The labelled positions at `plies` of every game, in corpus order then ply order; games whose
/// moves cannot be replayed stop at the first bad move (the corpus reader has replayed them).
#[must_use]
pub fn positions(corpus: &Corpus, plies: Plies, grouping: Grouping) -> Vec<Sample> {
    let mut out = Vec::new();
    for (game, g) in corpus.games.iter().enumerate() {
        let Ok(mut r) = replay(&g.start, &g.moves) else {
            continue;
        };
        for ply in plies.iter() {
            while r.played() < ply {
                match r.step() {
                    Some(Ok(_)) => {}
                    _ => break,
                }
            }
            if r.played() != ply {
                break;
            }
            let pos = r.position();
            out.push(Sample {
                game,
                ply,
                family: strategy::label(pos).family(),
                attributes: similarity::attributes(pos, grouping),
            });
        }
    }
    out
}

/// The learned weights and what they were learned from (the weights file).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WeightsFile {
    pub format: String,
    pub version: u32,
    /// `56` or `112`.
    pub grouping: String,
    pub plies: Plies,
    pub objective: String,
    pub weights: Vec<f64>,
    /// Weights above 1e-9.
    pub relevant: usize,
    pub far_pairs: usize,
    /// FAR pairs the weights leave short (only when the LP needed slack).
    pub slack_pairs: usize,
    pub provenance: WeightsProvenance,
}

/// Where the weights came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WeightsProvenance {
    pub corpus: Vec<String>,
    pub seed: u64,
    pub command: String,
    pub date: String,
    pub games: usize,
    pub positions: usize,
}

/// Why a weights file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WeightsError {
    #[error("cannot read {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}: not a similarity weights file: {cause}", path.display())]
    Parse {
        path: PathBuf,
        cause: serde_json::Error,
    },
    #[error("{}: {what}", path.display())]
    Invalid { path: PathBuf, what: String },
}

impl WeightsFile {
    /// The grouping the weights are for.
    ///
    /// # Errors
    /// The grouping text is not 56 or 112.
    pub fn grouping(&self) -> Result<Grouping, UnknownGrouping> {
        match self.grouping.as_str() {
            "56" => Ok(Grouping::G56),
            "112" => Ok(Grouping::G112),
            g => Err(UnknownGrouping(g.to_string())),
        }
    }

    /// Reads and checks a weights file (format, version, grouping, one weight in [0, 1] per
    /// attribute).
    ///
    /// # Errors
    /// [`WeightsError`] naming the file and what is wrong.
    pub fn load(path: &Path) -> Result<Self, WeightsError> {
        let text = std::fs::read_to_string(path).map_err(|cause| WeightsError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
        let file: Self = serde_json::from_str(&text).map_err(|cause| WeightsError::Parse {
            path: path.to_path_buf(),
            cause,
        })?;
        let invalid = |what: String| WeightsError::Invalid {
            path: path.to_path_buf(),
            what,
        };
        if file.format != FORMAT || file.version != VERSION {
            return Err(invalid(format!(
                "format `{}` version {}: expected `{FORMAT}` version {VERSION}",
                file.format, file.version
            )));
        }
        let grouping = file.grouping().map_err(|e| invalid(e.to_string()))?;
        if file.weights.len() != grouping.size() {
            return Err(invalid(format!(
                "{} weights for grouping {} (expected {})",
                file.weights.len(),
                file.grouping,
                grouping.size()
            )));
        }
        if let Some(i) = file.weights.iter().position(|w| !(0.0..=1.0).contains(w)) {
            return Err(invalid(format!(
                "weight {i} is {} (expected within [0, 1])",
                file.weights[i]
            )));
        }
        Ok(file)
    }
}

/// The LP's answer.
#[derive(Debug, Clone)]
pub struct Solved {
    pub weights: Vec<f64>,
    pub d: f64,
    /// Whether slack was needed (the FAR set alone was infeasible).
    pub slack_used: bool,
    /// Pairs whose constraint the weights leave short.
    pub short_pairs: usize,
}

/// Why the LP gave no weights.
#[derive(Debug, thiserror::Error)]
#[error("the linear program failed: {0}")]
pub struct LpError(#[from] ResolutionError);

/// Solves the seed's LP for FAR pairs given as per-attribute squared differences.
///
/// # Errors
/// [`LpError`] when the solver fails (the slack form is always feasible).
pub fn solve(n: usize, pairs: &[Vec<f64>]) -> Result<Solved, LpError> {
    match solve_with(n, pairs, false) {
        Err(LpError(ResolutionError::Infeasible)) => solve_with(n, pairs, true),
        other => other,
    }
}

fn solve_with(n: usize, pairs: &[Vec<f64>], slack: bool) -> Result<Solved, LpError> {
    let mut vars = variables!();
    let w: Vec<Variable> = (0..n)
        .map(|_| vars.add(variable().min(0.0).max(1.0)))
        .collect();
    let d = vars.add(variable().min(0.0));
    let s: Vec<Variable> = if slack {
        pairs
            .iter()
            .map(|_| vars.add(variable().min(0.0)))
            .collect()
    } else {
        Vec::new()
    };
    let mut objective: Expression = w.iter().copied().sum();
    for &v in &s {
        objective.add_mul(SLACK_PENALTY, v);
    }
    let mut model = vars.minimise(objective).using(microlp);
    for (p, diffs) in pairs.iter().enumerate() {
        let mut lhs = Expression::from(0.0);
        for (&wi, &c) in w.iter().zip(diffs) {
            if c != 0.0 {
                lhs.add_mul(c, wi);
            }
        }
        if let Some(&sp) = s.get(p) {
            lhs.add_mul(1.0, sp);
        }
        model.add_constraint(lhs.geq(d + 1.0));
    }
    let solution = model.solve()?;
    let weights: Vec<f64> = w
        .iter()
        .map(|&v| solution.value(v).clamp(0.0, 1.0))
        .collect();
    let d = solution.value(d).max(0.0);
    let short_pairs = pairs
        .iter()
        .filter(|diffs| {
            let dist: f64 = weights.iter().zip(diffs.iter()).map(|(w, c)| w * c).sum();
            dist < d + 1.0 - 1e-6
        })
        .count();
    Ok(Solved {
        weights,
        d,
        slack_used: slack,
        short_pairs,
    })
}

/// Per-attribute squared differences of two vectors (a FAR pair's coefficients).
#[must_use]
pub fn squared_differences(a: &[u32], b: &[u32]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let d = f64::from(x) - f64::from(y);
            d * d
        })
        .collect()
}

/// Up to `count` FAR pairs (positions of different families, from different games, no pair
/// twice), drawn with `seed`; fewer when the set has fewer.
#[must_use]
pub fn far_pairs(samples: &[Sample], count: usize, seed: u64) -> Vec<(usize, usize)> {
    let n = samples.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    if n < 2 {
        return out;
    }
    let mut attempts = 0usize;
    while out.len() < count && attempts < count.saturating_mul(50).max(1000) {
        attempts += 1;
        let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
        let (i, j) = (i.min(j), i.max(j));
        if samples[i].family == samples[j].family
            || samples[i].game == samples[j].game
            || !seen.insert((i, j))
        {
            continue;
        }
        out.push((i, j));
    }
    out
}

/// Leave-one-game-out 1-NN accuracy: each position's predicted family is the family of its
/// nearest position from another game (`None` when no position has a neighbour).
#[must_use]
pub fn loo_accuracy(samples: &[Sample], weights: &[f64]) -> Option<f64> {
    let mut counted = 0usize;
    let mut correct = 0usize;
    for s in samples {
        let others: Vec<&Sample> = samples.iter().filter(|o| o.game != s.game).collect();
        let Some(k) = similarity::nearest(
            weights,
            &s.attributes,
            others.iter().map(|o| o.attributes.as_slice()),
        ) else {
            continue;
        };
        counted += 1;
        correct += usize::from(others[k].family == s.family);
    }
    (counted > 0).then(|| correct as f64 / counted as f64)
}

/// How to learn.
#[derive(Debug, Clone)]
pub struct SimilarityOptions {
    pub corpus: Vec<PathBuf>,
    pub plies: Plies,
    pub grouping: Grouping,
    pub out: PathBuf,
    pub far_pairs: usize,
    pub seed: u64,
    pub command: String,
}

/// Why no weights were written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimilarityError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("--grouping: only 56 and 112 are learned (raw has 1568 attributes)")]
    Grouping,
    #[error(
        "no FAR pairs: the positions at plies {first}-{last} ({positions}) do not span two families in two games"
    )]
    NoPairs {
        first: usize,
        last: usize,
        positions: usize,
    },
    #[error(transparent)]
    Lp(#[from] LpError),
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// What was learned.
#[derive(Debug, Clone, Serialize)]
pub struct SimilarityReport {
    pub out: PathBuf,
    pub games: usize,
    pub positions: usize,
    /// Positions per family key.
    pub families: Vec<(String, usize)>,
    pub far_pairs: usize,
    pub slack_used: bool,
    pub short_pairs: usize,
    pub relevant: usize,
    pub attributes: usize,
    /// The largest weights: (index, description, weight), largest first.
    pub top: Vec<(usize, String, f64)>,
    pub warnings: Vec<String>,
}

impl SimilarityReport {
    #[must_use]
    pub fn table(&self) -> String {
        let mut text = format!(
            "corpus:    {} games, {} positions\n",
            self.games, self.positions
        );
        for (family, n) in &self.families {
            text.push_str(&format!("  {family:<30} {n:>6}\n"));
        }
        text.push_str(&format!(
            "LP:        {} FAR pairs, objective: minimise sum of weights{}\n\
             relevant:  {} of {} attributes ({:.0}% zero)\n\
             weights:   written to {}\n",
            self.far_pairs,
            if self.slack_used {
                format!(
                    " (infeasible: slack per pair at penalty {SLACK_PENALTY}, {} pairs left short)",
                    self.short_pairs
                )
            } else {
                String::new()
            },
            self.relevant,
            self.attributes,
            100.0 * (self.attributes - self.relevant) as f64 / self.attributes.max(1) as f64,
            self.out.display()
        ));
        for (i, name, w) in &self.top {
            text.push_str(&format!("  {i:>4} {w:>10.6}  {name}\n"));
        }
        text
    }
}

/// Positions counted per family, by key.
#[must_use]
pub fn family_counts(samples: &[Sample]) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for s in samples {
        *counts.entry(s.family.key()).or_default() += 1;
    }
    counts.into_iter().collect()
}

/// Reads the corpus, solves the LP and writes the weights file.
///
/// # Errors
/// [`SimilarityError`] for a missing input, too few pairs, a solver failure or an unwritable
/// output.
pub fn run(options: &SimilarityOptions) -> Result<SimilarityReport, SimilarityError> {
    if options.grouping == Grouping::Raw {
        return Err(SimilarityError::Grouping);
    }
    let read = corpus::read(&options.corpus)?;
    let samples = positions(&read, options.plies, options.grouping);
    let pairs = far_pairs(&samples, options.far_pairs, options.seed);
    if pairs.is_empty() {
        return Err(SimilarityError::NoPairs {
            first: options.plies.first,
            last: options.plies.last,
            positions: samples.len(),
        });
    }
    let coefficients: Vec<Vec<f64>> = pairs
        .iter()
        .map(|&(i, j)| squared_differences(&samples[i].attributes, &samples[j].attributes))
        .collect();
    let n = options.grouping.size();
    let solved = solve(n, &coefficients)?;
    let relevant = solved.weights.iter().filter(|&&w| w > RELEVANT).count();
    let file = WeightsFile {
        format: FORMAT.into(),
        version: VERSION,
        grouping: options.grouping.to_string(),
        plies: options.plies,
        objective: OBJECTIVE.into(),
        weights: solved.weights.clone(),
        relevant,
        far_pairs: pairs.len(),
        slack_pairs: solved.short_pairs,
        provenance: WeightsProvenance {
            corpus: options
                .corpus
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            seed: options.seed,
            command: options.command.clone(),
            date: super::utc_now(),
            games: read.games.len(),
            positions: samples.len(),
        },
    };
    let mut json = serde_json::to_string_pretty(&file).unwrap_or_default();
    json.push('\n');
    std::fs::write(&options.out, json).map_err(|cause| SimilarityError::Write {
        path: options.out.clone(),
        cause,
    })?;
    let mut order: Vec<usize> = (0..n).filter(|&i| solved.weights[i] > RELEVANT).collect();
    order.sort_by(|&a, &b| {
        solved.weights[b]
            .total_cmp(&solved.weights[a])
            .then(a.cmp(&b))
    });
    let top = order
        .into_iter()
        .take(10)
        .map(|i| {
            (
                i,
                similarity::describe(i, options.grouping),
                solved.weights[i],
            )
        })
        .collect();
    Ok(SimilarityReport {
        out: options.out.clone(),
        games: read.games.len(),
        positions: samples.len(),
        families: family_counts(&samples),
        far_pairs: pairs.len(),
        slack_used: solved.slack_used,
        short_pairs: solved.short_pairs,
        relevant,
        attributes: n,
        top,
        warnings: read.warnings.iter().map(ToString::to_string).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(game: usize, family: Family, attributes: Vec<u32>) -> Sample {
        Sample {
            game,
            ply: 0,
            family,
            attributes,
        }
    }

    #[test]
    fn one_separating_attribute_gets_the_weight_and_classifies_perfectly() {
        // Attribute 1 is 0 for static-vs-static and 5 for ranging-vs-ranging; attributes 0
        // and 2 are noise shared by both families.
        let mut samples = Vec::new();
        for g in 0..12u32 {
            let (family, sep) = if g % 2 == 0 {
                (Family::StaticVsStatic, 0)
            } else {
                (Family::RangingVsRanging, 5)
            };
            samples.push(sample(g as usize, family, vec![g % 3, sep, (g / 2) % 4]));
        }
        let pairs = far_pairs(&samples, 40, 7);
        assert!(pairs.len() >= 20, "{} pairs", pairs.len());
        let coefficients: Vec<Vec<f64>> = pairs
            .iter()
            .map(|&(i, j)| squared_differences(&samples[i].attributes, &samples[j].attributes))
            .collect();
        let solved = solve(3, &coefficients).expect("feasible");
        assert!(!solved.slack_used);
        assert!(solved.weights[1] > 0.0, "{:?}", solved.weights);
        // The cheapest vertex puts everything on the separating attribute: 25 W_1 >= 1.
        assert!(
            (solved.weights[1] - 1.0 / 25.0).abs() < 1e-9,
            "{:?}",
            solved.weights
        );
        assert!(solved.weights[0].abs() < 1e-9 && solved.weights[2].abs() < 1e-9);
        for (&(i, j), c) in pairs.iter().zip(&coefficients) {
            let dist = similarity::distance(
                &solved.weights,
                &samples[i].attributes,
                &samples[j].attributes,
            );
            assert!(dist >= solved.d + 1.0 - 1e-9, "pair {i},{j}: {dist} {c:?}");
        }
        assert_eq!(loo_accuracy(&samples, &solved.weights), Some(1.0));
    }

    #[test]
    fn identical_positions_of_different_families_need_slack_and_are_reported_short() {
        let samples = vec![
            sample(0, Family::StaticVsStatic, vec![1, 2]),
            sample(1, Family::RangingVsRanging, vec![1, 2]),
            sample(2, Family::RangingVsRanging, vec![1, 4]),
        ];
        let pairs = far_pairs(&samples, 10, 1);
        assert_eq!(pairs.len(), 2);
        let coefficients: Vec<Vec<f64>> = pairs
            .iter()
            .map(|&(i, j)| squared_differences(&samples[i].attributes, &samples[j].attributes))
            .collect();
        let solved = solve(2, &coefficients).expect("slack form");
        assert!(solved.slack_used);
        assert_eq!(solved.short_pairs, 1);
        assert!(
            (solved.weights[1] - 0.25).abs() < 1e-9,
            "{:?}",
            solved.weights
        );
    }

    #[test]
    fn plies_parse_and_reject_bad_ranges() {
        assert_eq!(
            Plies::parse("20-40", 5),
            Ok(Plies {
                first: 20,
                last: 40,
                step: 5
            })
        );
        assert_eq!(Plies::parse("10", 1).map(|p| p.iter().count()), Ok(1));
        assert!(Plies::parse("40-20", 1).is_err());
        assert!(Plies::parse("a-b", 1).is_err());
        assert!(Plies::parse("1-2", 0).is_err());
    }
}
