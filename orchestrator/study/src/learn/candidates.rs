//! `council-learn candidates CORPUS... --out MODEL`: seed 003's candidate-move model learned
//! from the training side of a corpus (the games the seeded split does not put on the test
//! side), written as the engine's versioned model file with its provenance: the corpus inputs,
//! the split's seed and share, the command, the date and the corpus counts. `council-analyze
//! candidates` reads the seed and share back, so it evaluates on exactly the games not learned.

use std::path::PathBuf;

use engine::intuition::{LearnOptions, Model, Provenance};
use engine::types::Color;
use serde::Serialize;

use council_schema::corpus::{self, CorpusError, SplitError, TestShare, is_test};
use council_schema::results::Winner;

/// How to learn.
#[derive(Debug, Clone)]
pub struct CandidatesOptions {
    pub corpus: Vec<PathBuf>,
    pub out: PathBuf,
    /// Share of the games kept for testing (not learned).
    pub test_share: f64,
    pub split_seed: u64,
    /// Learn only the winners' moves.
    pub winner_only: bool,
    /// The command line, as the model's provenance records it.
    pub command: String,
}

/// Why no model was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CandidatesError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("--test-share: {0}")]
    Share(#[from] SplitError),
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// What was learned.
#[derive(Debug, Clone, Serialize)]
pub struct CandidatesReport {
    pub out: PathBuf,
    /// Distinct games in the corpus, and how they split.
    pub games: usize,
    pub train_games: u64,
    pub test_games: u64,
    /// Moves counted into the tables (positions with at least 6 legal moves, of the learned
    /// sides).
    pub learned_moves: u64,
    /// Pairs in each of the six tables (full prev1, prev2, after; f's three).
    pub pairs: Vec<(String, usize)>,
    pub read: u64,
    pub skipped: u64,
    pub duplicates: u64,
    pub model_bytes: usize,
    pub warnings: Vec<String>,
}

impl CandidatesReport {
    #[must_use]
    pub fn table(&self) -> String {
        let mut text = format!(
            "corpus: {} games ({} read, {} skipped, {} duplicates)\n\
             split:  {} training games learned, {} test games left out\n\
             model:  {} moves learned, {} bytes written to {}\n",
            self.games,
            self.read,
            self.skipped,
            self.duplicates,
            self.train_games,
            self.test_games,
            self.learned_moves,
            self.model_bytes,
            self.out.display()
        );
        for (name, pairs) in &self.pairs {
            text.push_str(&format!("  {name:<11} {pairs:>9} pairs\n"));
        }
        text
    }
}

/// Reads the corpus, learns the training side and writes the model file.
///
/// # Errors
/// [`CandidatesError`] for a bad share, a missing input or an unwritable output.
pub fn run(options: &CandidatesOptions) -> Result<CandidatesReport, CandidatesError> {
    let share = TestShare::new(options.test_share)?;
    let read = corpus::read(&options.corpus)?;
    let mut model = Model::new(LearnOptions {
        winner_only: options.winner_only,
    });
    let mut warnings: Vec<String> = read.warnings.iter().map(ToString::to_string).collect();
    let (mut train, mut test) = (0u64, 0u64);
    for game in &read.games {
        if is_test(options.split_seed, share, &game.start, &game.moves) {
            test += 1;
            continue;
        }
        let winner = match game.winner {
            Some(Winner::Sente) => Some(Color::Sente),
            Some(Winner::Gote) => Some(Color::Gote),
            Some(Winner::Draw) | None => None,
        };
        match model.learn_game(&game.start, &game.moves, winner) {
            Ok(_) => train += 1,
            // Every corpus game has been replayed; kept as a warning, never a panic.
            Err(e) => warnings.push(format!("{}: {e}", game.source)),
        }
    }
    model.provenance = Provenance {
        corpus: options
            .corpus
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        split_seed: Some(options.split_seed),
        test_share: Some(share.get()),
        command: Some(options.command.clone()),
        notes: [
            ("date", super::utc_now()),
            ("corpus_games", read.games.len().to_string()),
            ("corpus_read", read.read().to_string()),
            ("corpus_skipped", read.skipped().to_string()),
            ("corpus_duplicates", read.duplicates().to_string()),
            ("train_games", train.to_string()),
            ("test_games", test.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
    };
    let bytes = model.to_bytes();
    std::fs::write(&options.out, &bytes).map_err(|cause| CandidatesError::Write {
        path: options.out.clone(),
        cause,
    })?;
    // The pair counts as the file's own header states them (its first line, JSON).
    let header: serde_json::Value = bytes
        .split(|&b| b == b'\n')
        .next()
        .and_then(|line| serde_json::from_slice(line).ok())
        .unwrap_or_default();
    let pairs = header["tables"]
        .as_array()
        .map(|tables| {
            tables
                .iter()
                .map(|t| {
                    (
                        t["name"].as_str().unwrap_or("?").to_string(),
                        t["pairs"].as_u64().unwrap_or(0) as usize,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(CandidatesReport {
        out: options.out.clone(),
        games: read.games.len(),
        train_games: train,
        test_games: test,
        learned_moves: model.learned_moves,
        pairs,
        read: read.read(),
        skipped: read.skipped(),
        duplicates: read.duplicates(),
        model_bytes: bytes.len(),
        warnings,
    })
}
