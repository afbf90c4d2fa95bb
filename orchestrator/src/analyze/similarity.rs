//! `council-analyze similarity WEIGHTS CORPUS...`: seed 002's evaluation (models.md section 11)
//! of a weights file of `council-learn similarity` on a corpus: leave-one-out 1-nearest-
//! neighbour accuracy, weighted and unweighted (all weights 1), at the weights file's plies.
//!
//! One stage per call (the weights were learned for one ply range; the seed's six stages need
//! six weight files). The positions are the learner's own set (`learn::similarity::positions`,
//! the file's plies and step); "leave one out" leaves the position's whole game out, so a
//! neighbour is never the same game a few plies on.

use std::path::PathBuf;

use serde::Serialize;

use super::Output;
use crate::corpus::{self, CorpusError};
use crate::learn::similarity::{
    Plies, RELEVANT, WeightsError, WeightsFile, family_counts, loo_accuracy, positions,
};

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct SimilarityOptions {
    pub weights: PathBuf,
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

/// One stage's accuracies.
#[derive(Debug, Clone, Serialize)]
pub struct SimilarityReport {
    pub weights: PathBuf,
    pub grouping: String,
    pub plies: Plies,
    pub games: usize,
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
    pub warnings: Vec<String>,
}

impl Output for SimilarityReport {
    fn table(&self) -> String {
        let pct = |a: Option<f64>| a.map_or_else(|| "-".into(), |a| format!("{:.3}", a));
        let plies = if self.plies.first == self.plies.last {
            format!("{}", self.plies.first)
        } else {
            format!(
                "{}-{} step {}",
                self.plies.first, self.plies.last, self.plies.step
            )
        };
        let mut text = format!(
            "weights {} (grouping {}), {} games\n\
             {:<18} {:>9} {:>9} {:>10} {:>9} {:>9}\n\
             {:<18} {:>9} {:>9} {:>10} {:>9} {:>9}\n",
            self.weights.display(),
            self.grouping,
            self.games,
            "plies",
            "positions",
            "weighted",
            "unweighted",
            "majority",
            "relevant",
            plies,
            self.positions,
            pct(self.weighted),
            pct(self.unweighted),
            pct(self.majority),
            format!("{}/{}", self.relevant, self.attributes),
        );
        for (family, n) in &self.families {
            text.push_str(&format!("  {family:<30} {n:>6}\n"));
        }
        text
    }
}

/// Reads the weights and the corpus and measures both accuracies.
///
/// # Errors
/// [`SimilarityError`] for a bad weights file or a missing corpus input.
pub fn run(options: &SimilarityOptions) -> Result<SimilarityReport, SimilarityError> {
    let file = WeightsFile::load(&options.weights)?;
    // `load` has checked the grouping.
    let grouping = file.grouping().unwrap_or_default();
    let read = corpus::read(&options.corpus)?;
    let samples = positions(&read, file.plies, grouping);
    let families = family_counts(&samples);
    let majority = families
        .iter()
        .map(|&(_, n)| n)
        .max()
        .filter(|_| !samples.is_empty())
        .map(|n| n as f64 / samples.len() as f64);
    let ones = vec![1.0; file.weights.len()];
    Ok(SimilarityReport {
        weights: options.weights.clone(),
        grouping: file.grouping.clone(),
        plies: file.plies,
        games: read.games.len(),
        positions: samples.len(),
        families,
        weighted: loo_accuracy(&samples, &file.weights),
        unweighted: loo_accuracy(&samples, &ones),
        majority,
        relevant: file.weights.iter().filter(|&&w| w > RELEVANT).count(),
        attributes: file.weights.len(),
        warnings: read.warnings.iter().map(ToString::to_string).collect(),
    })
}
