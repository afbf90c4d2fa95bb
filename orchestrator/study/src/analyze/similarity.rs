//! `council-analyze similarity WEIGHTS... --corpus CORPUS...`: seed 002's evaluation (models.md
//! section 11) of `council-learn similarity` weights files on a corpus: leave-one-out
//! 1-nearest-neighbour accuracy of the strategy family, weighted and unweighted (all weights 1),
//! one row per weights file (each file was learned for its own plies), with the seed's figures
//! beside the rows whose plies are one of the seed's six stages.
//!
//! The positions of a row are the learner's own set (`learn::similarity::positions`, the file's
//! plies and step); "leave one out" leaves the position's whole game out, so a neighbour is never
//! the same game a few plies on. The corpus is read once for all rows.

use std::path::PathBuf;

use serde::Serialize;

use super::Output;
use crate::learn::similarity::{
    Plies, RELEVANT, WeightsError, WeightsFile, family_counts, loo_accuracy, positions,
};
use council_schema::corpus::{self, CorpusError};

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct SimilarityOptions {
    /// One or more weights files; one row each.
    pub weights: Vec<PathBuf>,
    pub corpus: Vec<PathBuf>,
}

/// Why there is no table.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimilarityError {
    #[error(transparent)]
    Weights(#[from] WeightsError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
}

/// One row of the seed's tables (seed 002, "まとめあげその 1" and "その 2"): 28-62 positions a
/// stage, categories by 4-5 dan amateurs. The seed's "終盤" is plies 70 and later; we match it to
/// any range starting at 70. The seed lists 34 positions with 35 correct for 50-80 in grouping
/// 1 (54 in grouping 2): its own misprint, kept as printed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SeedStage {
    pub stage: &'static str,
    pub positions: u32,
    pub weighted: f64,
    pub unweighted: f64,
    pub relevant: u32,
}

const fn stage(
    stage: &'static str,
    positions: u32,
    weighted: f64,
    relevant: u32,
    unweighted: f64,
) -> SeedStage {
    SeedStage {
        stage,
        positions,
        weighted,
        unweighted,
        relevant,
    }
}

/// The seed's grouping 1 (56 attributes), in its order: 20-40, 40-60, 50-80, 70+, 10, 50.
const SEED_56: [SeedStage; 6] = [
    stage("20-40", 61, 0.689, 13, 0.705),
    stage("40-60", 58, 0.655, 13, 0.586),
    stage("50-80", 34, 0.648, 13, 0.500),
    stage("70+", 62, 0.371, 16, 0.371),
    stage("10", 28, 0.714, 7, 0.643),
    stage("50", 57, 0.561, 15, 0.474),
];

/// The seed's grouping 2 (112 attributes).
const SEED_112: [SeedStage; 6] = [
    stage("20-40", 61, 0.738, 17, 0.689),
    stage("40-60", 58, 0.672, 14, 0.672),
    stage("50-80", 54, 0.630, 14, 0.648),
    stage("70+", 62, 0.306, 15, 0.274),
    stage("10", 28, 0.786, 12, 0.714),
    stage("50", 57, 0.491, 14, 0.561),
];

/// The seed's row for these plies and grouping, if the plies are one of its stages.
pub fn seed_stage(plies: Plies, grouping: &str) -> Option<SeedStage> {
    let table = match grouping {
        "56" => &SEED_56,
        "112" => &SEED_112,
        _ => return None,
    };
    let name = match (plies.first, plies.last) {
        (a, b) if a == b => a.to_string(),
        (70, _) => "70+".to_string(),
        (a, b) => format!("{a}-{b}"),
    };
    table.iter().copied().find(|s| s.stage == name)
}

/// One weights file's accuracies.
#[derive(Debug, Clone, Serialize)]
pub struct Stage {
    pub weights: PathBuf,
    pub grouping: String,
    pub plies: Plies,
    pub positions: usize,
    pub families: Vec<(String, usize)>,
    /// Leave-one-game-out 1-NN accuracy with the learned weights (`None`: no neighbours).
    pub weighted: Option<f64>,
    /// The same with every weight 1.
    pub unweighted: Option<f64>,
    /// The share of the most common family: what always guessing it would score.
    pub majority: Option<f64>,
    pub relevant: usize,
    pub attributes: usize,
    /// The seed's figures for the same stage and grouping.
    pub seed: Option<SeedStage>,
}

/// Every row, over one corpus.
#[derive(Debug, Clone, Serialize)]
pub struct SimilarityReport {
    pub games: usize,
    pub stages: Vec<Stage>,
    pub warnings: Vec<String>,
}

impl Output for SimilarityReport {
    fn table(&self) -> String {
        let acc = |a: Option<f64>| a.map_or_else(|| "-".into(), |a| format!("{a:.3}"));
        let mut text = format!(
            "{} games; leave-one-game-out 1-NN accuracy of the strategy family\n\
             {:<16} {:>5} {:>9} {:>8} {:>10} {:>8} {:>8}   {:<26}\n",
            self.games,
            "plies",
            "group",
            "positions",
            "weighted",
            "unweighted",
            "majority",
            "relevant",
            "seed: positions w / unw rel",
        );
        for s in &self.stages {
            let plies = if s.plies.first == s.plies.last {
                format!("{}", s.plies.first)
            } else {
                format!("{}-{} step {}", s.plies.first, s.plies.last, s.plies.step)
            };
            let seed = s.seed.map_or_else(String::new, |r| {
                format!(
                    "{:>3} {:.3} / {:.3} {:>3}",
                    r.positions, r.weighted, r.unweighted, r.relevant
                )
            });
            text.push_str(&format!(
                "{:<16} {:>5} {:>9} {:>8} {:>10} {:>8} {:>8}   {}\n",
                plies,
                s.grouping,
                s.positions,
                acc(s.weighted),
                acc(s.unweighted),
                acc(s.majority),
                format!("{}/{}", s.relevant, s.attributes),
                seed,
            ));
        }
        for s in &self.stages {
            let families: Vec<String> = s
                .families
                .iter()
                .map(|(family, n)| format!("{family} {n}"))
                .collect();
            text.push_str(&format!(
                "  {}: {}\n",
                s.weights.display(),
                families.join(", ")
            ));
        }
        text.push_str(&super::legend(&[
            "weighted: share of positions whose nearest neighbour from another game (by the \
             learned weights) is of the same strategy family; unweighted: the same with every \
             weight 1; majority: what always guessing the commonest family scores; relevant: \
             attributes the learned weights keep (above the learner's threshold), of all; seed: \
             seed 002's figures for the same stage and grouping (docs/models.md section 11).",
        ]));
        text
    }
}

/// Reads the weights files and the corpus and measures both accuracies for each file.
///
/// # Errors
/// [`SimilarityError`] for a bad weights file or a missing corpus input.
pub fn run(options: &SimilarityOptions) -> Result<SimilarityReport, SimilarityError> {
    let files = options
        .weights
        .iter()
        .map(|w| WeightsFile::load(w).map(|f| (w, f)))
        .collect::<Result<Vec<_>, _>>()?;
    let read = corpus::read(&options.corpus)?;
    let stages = files
        .into_iter()
        .map(|(path, file)| {
            // `load` has checked the grouping.
            let grouping = file.grouping().unwrap_or_default();
            let samples = positions(&read, file.plies, grouping);
            let families = family_counts(&samples);
            let majority = families
                .iter()
                .map(|&(_, n)| n)
                .max()
                .filter(|_| !samples.is_empty())
                .map(|n| n as f64 / samples.len() as f64);
            let ones = vec![1.0; file.weights.len()];
            Stage {
                weights: path.clone(),
                seed: seed_stage(file.plies, &file.grouping),
                grouping: file.grouping.clone(),
                plies: file.plies,
                positions: samples.len(),
                families,
                weighted: loo_accuracy(&samples, &file.weights),
                unweighted: loo_accuracy(&samples, &ones),
                majority,
                relevant: file.weights.iter().filter(|&&w| w > RELEVANT).count(),
                attributes: file.weights.len(),
            }
        })
        .collect();
    Ok(SimilarityReport {
        games: read.games.len(),
        stages,
        warnings: read.warnings.iter().map(ToString::to_string).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plies(first: usize, last: usize) -> Plies {
        Plies {
            first,
            last,
            step: 5,
        }
    }

    #[test]
    fn the_seeds_stages_are_found_by_plies_and_grouping() {
        assert_eq!(
            seed_stage(plies(10, 10), "56").map(|s| s.weighted),
            Some(0.714)
        );
        assert_eq!(
            seed_stage(plies(20, 40), "112").map(|s| s.relevant),
            Some(17)
        );
        assert_eq!(
            seed_stage(plies(70, 150), "56").map(|s| s.stage),
            Some("70+")
        );
        assert_eq!(
            seed_stage(plies(50, 50), "112").map(|s| s.positions),
            Some(57)
        );
        assert_eq!(seed_stage(plies(30, 40), "56"), None);
        assert_eq!(seed_stage(plies(10, 10), "1568"), None);
    }
}
