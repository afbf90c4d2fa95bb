//! Corpora of recorded games for learning (the candidate model, similarity): one reader for
//! every way games reach us — CSA files as floodgate's archives hold them, KIF files,
//! council-match run folders (through the one results reader), and the project's own corpus
//! file of USI position lines ([`lines`]) — into one list of [`CorpusGame`]s.
//!
//! Why one place: learning and its evaluation must see the same games, deduplicated the same
//! way and split the same way ([`split`]), whatever the inputs were. Every game is replayed
//! with the engine's one replay, so a game is either wholly legal or not read.
//!
//! Input problems are not errors: a malformed file, a bad line or an illegal move is one
//! [`Warning`] naming the file and line (or the run and game id), and the rest is read; only an
//! input that does not exist (or cannot be listed) stops the read ([`CorpusError`]).
//! Invariants: every game in [`Corpus::games`] replays from its start; no two share a start and
//! moves; `read = games.len() + duplicates`.

pub mod lines;
pub mod run;
pub mod split;

mod records;
mod types;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use engine::position::replay;

pub use split::{SplitError, TestShare, is_test};
use types::RawGame;
pub use types::{CorpusGame, Warning};

/// An input that cannot be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    #[error("{}: no such file or folder", .0.display())]
    Missing(PathBuf),
    #[error("cannot list {}: {cause}", path.display())]
    List {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// What kind of input a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Csa,
    Kif,
    /// A council-match run folder (it holds `results.jsonl`) or a results file.
    Run,
    /// A text file of USI position lines.
    Lines,
}

impl InputKind {
    /// The kind of a file, by its name: `.csa`, `.kif`/`.kifu`, `.jsonl` (a results file);
    /// anything else is read as USI position lines.
    #[must_use]
    pub fn of_file(path: &Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csa") => Self::Csa,
            Some("kif" | "kifu") => Self::Kif,
            Some("jsonl") => Self::Run,
            _ => Self::Lines,
        }
    }

    /// Whether a file met while recursing into a folder is read: `.csa`, `.kif`, `.kifu`,
    /// `.jsonl` and `.txt` (other files, such as a README, are left alone).
    fn listed(path: &Path) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        matches!(
            ext.as_deref(),
            Some("csa" | "kif" | "kifu" | "jsonl" | "txt")
        )
    }
}

/// One input file (or run folder) and what it gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRead {
    pub path: PathBuf,
    pub kind: InputKind,
    /// Games that replayed (duplicates included).
    pub read: u64,
    /// Games or lines skipped with a warning.
    pub skipped: u64,
    /// Games identical to one read before (same start and moves), not taken again.
    pub duplicates: u64,
}

/// A whole corpus read.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// The distinct games, in input order.
    pub games: Vec<CorpusGame>,
    /// One per file or run folder read, in order.
    pub inputs: Vec<InputRead>,
    pub warnings: Vec<Warning>,
}

impl Corpus {
    /// Games read (duplicates included).
    #[must_use]
    pub fn read(&self) -> u64 {
        self.inputs.iter().map(|i| i.read).sum()
    }

    /// Games or lines skipped with a warning.
    #[must_use]
    pub fn skipped(&self) -> u64 {
        self.inputs.iter().map(|i| i.skipped).sum()
    }

    /// Games identical to one read before.
    #[must_use]
    pub fn duplicates(&self) -> u64 {
        self.inputs.iter().map(|i| i.duplicates).sum()
    }
}

/// The files and run folders `inputs` stand for, with their kinds, in the order [`read`] reads
/// them: folders recursed in name order, a folder holding `results.jsonl` a run (not entered).
///
/// # Errors
/// [`CorpusError`] for an input that does not exist or a folder that cannot be listed.
pub fn list(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, InputKind)>, CorpusError> {
    let mut files = Vec::new();
    for input in inputs {
        collect(input, true, &mut files)?;
    }
    Ok(files)
}

/// Reads every input (files, run folders, folders recursed in name order) into one corpus.
///
/// # Errors
/// [`CorpusError`] for an input that does not exist or a folder that cannot be listed; every
/// other problem is a [`Warning`].
pub fn read(inputs: &[PathBuf]) -> Result<Corpus, CorpusError> {
    let files = list(inputs)?;
    let mut corpus = Corpus::default();
    let mut seen: HashSet<(String, Vec<String>)> = HashSet::new();
    for (path, kind) in files {
        let got = match kind {
            InputKind::Csa => records::read_csa(&path),
            InputKind::Kif => records::read_kif(&path),
            InputKind::Run => run::read(&path),
            InputKind::Lines => lines::read(&path),
        };
        let mut input = InputRead {
            path,
            kind,
            read: 0,
            skipped: 0,
            duplicates: 0,
        };
        for item in got.items {
            match item.and_then(replayed) {
                Ok(game) => {
                    input.read += 1;
                    if seen.insert((game.start.clone(), game.moves.clone())) {
                        corpus.games.push(game);
                    } else {
                        input.duplicates += 1;
                    }
                }
                Err(warning) => {
                    input.skipped += 1;
                    corpus.warnings.push(warning);
                }
            }
        }
        corpus.inputs.push(input);
    }
    Ok(corpus)
}

/// The files (and run folders) an input stands for, with their kinds.
fn collect(
    path: &Path,
    given: bool,
    out: &mut Vec<(PathBuf, InputKind)>,
) -> Result<(), CorpusError> {
    if path.is_dir() {
        if path.join("results.jsonl").is_file() {
            out.push((path.to_path_buf(), InputKind::Run));
            return Ok(());
        }
        let list = |cause| CorpusError::List {
            path: path.to_path_buf(),
            cause,
        };
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(list)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(list)?;
        entries.sort();
        for entry in entries {
            collect(&entry, false, out)?;
        }
        Ok(())
    } else if path.is_file() {
        if given || InputKind::listed(path) {
            out.push((path.to_path_buf(), InputKind::of_file(path)));
        }
        Ok(())
    } else {
        Err(CorpusError::Missing(path.to_path_buf()))
    }
}

/// Replays a game with the engine's one replay: its start as an SFEN, or the warning naming
/// where it was read and the first bad move.
fn replayed(raw: RawGame) -> Result<CorpusGame, Warning> {
    let warn = |problem: String| Warning {
        place: raw.place.clone(),
        problem,
    };
    if raw.moves.is_empty() {
        // A game that ended before its first move (an engine that never started, a timeout at
        // ply 0) teaches nothing and would count as a duplicate of every other such game.
        let why = raw.reason.as_deref().unwrap_or("no reason given");
        return Err(warn(format!(
            "no moves (the game ended before its first move: {why})"
        )));
    }
    let game = replay(&raw.start, &raw.moves)
        .map_err(|e| warn(format!("bad start position `{}`: {e}", raw.start)))?;
    let start = game.position().to_sfen();
    game.finish().map_err(|e| warn(e.to_string()))?;
    Ok(CorpusGame {
        source: raw.place,
        start,
        moves: raw.moves,
        winner: raw.winner,
        reason: raw.reason,
    })
}

#[cfg(test)]
mod tests;
