//! `council-learn export RUN_OR_CORPUS... --format psv|hcpe|sfen --out FILE`: training data from
//! recorded games, in the formats NNUE and value-network trainers read. What a record holds and
//! which positions are written is `council_schema::training`'s (the same code writes a run's
//! own `[match] training` file); this reads the inputs, applies the seeded shuffle, writes the
//! file and its sidecar `FILE.json` (inputs, settings, seed, counts, command), so the file can be
//! remade.
//!
//! Inputs: a run folder (it holds `results.jsonl`) or a results file (`.jsonl`), given or met
//! in a folder (a folder of runs), gives every game with its scores and votes; a malformed line stops the export with one line naming the
//! file and line (a torn last line of a run still being written is left for later). Anything
//! else is read as corpus input (CSA, KIF, USI position lines, folders recursed): games without
//! scores, so their positions are written only with `--keep-unscored` (score 0).

use std::path::{Path, PathBuf};

use serde::Serialize;

use council_schema::corpus::{self, CorpusError};
use council_schema::results::read::{Malformed, Policy, ReadError, Repeats, TornTail};
use council_schema::training::write::Export;
use council_schema::training::{Counts, Game, Settings};

/// What to export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    pub inputs: Vec<PathBuf>,
    pub settings: Settings,
    /// The seed of the shuffle; `None`: records in game order.
    pub shuffle: Option<u64>,
    pub out: PathBuf,
    /// The command line, for the sidecar.
    pub command: String,
}

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error(transparent)]
    Results(#[from] ReadError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("{place}: {problem}")]
    Game {
        place: String,
        problem: council_schema::training::GameError,
    },
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// What was written: the sidecar's content.
#[derive(Debug, Clone, Serialize)]
pub struct ExportReport {
    pub format: &'static str,
    pub out: PathBuf,
    pub bytes: u64,
    pub inputs: Vec<PathBuf>,
    pub settings: Settings,
    /// The shuffle's seed, or `null` for game order.
    pub shuffle_seed: Option<u64>,
    pub counts: Counts,
    pub command: String,
    pub date: String,
    /// Corpus inputs' problems, one line each.
    pub warnings: Vec<String>,
}

impl ExportReport {
    #[must_use]
    pub fn table(&self) -> String {
        let c = &self.counts;
        format!(
            "wrote {} {} records ({} bytes) to {} from {} games ({} without a result): {} positions; \
             left out {} book, {} unscored, {} in check, {} beyond the score bound, {} not the \
             winner's, {} duplicates; {}\n",
            c.written,
            self.format,
            self.bytes,
            self.out.display(),
            c.games,
            c.games_without_result,
            c.positions,
            c.book,
            c.unscored,
            c.in_check,
            c.beyond_max_score,
            c.not_winner,
            c.duplicates,
            match self.shuffle_seed {
                Some(s) => format!("shuffled with seed {s}"),
                None => "in game order".to_string(),
            }
        )
    }
}

/// One part of the inputs: a results file read with its scores, or corpus files.
enum Input {
    Run(PathBuf),
    Corpus(Vec<PathBuf>),
}

/// Whether an input is a run (a folder with `results.jsonl`, or a `.jsonl` file).
fn results_file(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        let f = path.join("results.jsonl");
        return f.is_file().then_some(f);
    }
    let jsonl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    jsonl.then(|| path.to_path_buf())
}

/// Reads the inputs and writes the file and its sidecar.
///
/// # Errors
/// [`ExportError`]: an input missing or malformed, a game that does not replay, an unwritable
/// output. Nothing is written then.
pub fn run(options: &ExportOptions) -> Result<ExportReport, ExportError> {
    const POLICY: Policy = Policy {
        torn_tail: TornTail::Skip,
        malformed: Malformed::Fail,
        repeats: Repeats::MergeIdenticalLines,
    };
    let mut export = Export::new(options.settings);
    let mut warnings = Vec::new();
    // Runs with their scores, wherever they are met; the other files, in their order between
    // them, as corpus input.
    let mut pieces: Vec<Input> = Vec::new();
    for input in &options.inputs {
        if let Some(file) = results_file(input) {
            pieces.push(Input::Run(file));
            continue;
        }
        for (path, kind) in corpus::list(std::slice::from_ref(input))? {
            match (kind, results_file(&path)) {
                (corpus::InputKind::Run, Some(file)) => pieces.push(Input::Run(file)),
                _ => match pieces.last_mut() {
                    Some(Input::Corpus(files)) => files.push(path),
                    _ => pieces.push(Input::Corpus(vec![path])),
                },
            }
        }
    }
    for piece in &pieces {
        match piece {
            Input::Run(file) => {
                let read = council_schema::results::read::read(std::slice::from_ref(file), POLICY)?;
                for g in &read.games {
                    export
                        .add(Game::of_result(g))
                        .map_err(|problem| ExportError::Game {
                            place: format!("{} game {}", file.display(), g.id),
                            problem,
                        })?;
                }
            }
            Input::Corpus(files) => {
                let read = corpus::read(files)?;
                warnings.extend(read.warnings.iter().map(ToString::to_string));
                for g in &read.games {
                    // An aborted game has no winner to learn from.
                    let winner = g.winner.filter(|_| g.reason.as_deref() != Some("aborted"));
                    export
                        .add(Game::unscored(&g.start, &g.moves, winner))
                        .map_err(|problem| ExportError::Game {
                            place: g.source.clone(),
                            problem,
                        })?;
                }
            }
        }
    }
    if let Some(seed) = options.shuffle {
        export.shuffle(seed);
    }
    let write = |path: &Path, cause| ExportError::Write {
        path: path.to_path_buf(),
        cause,
    };
    let bytes = export
        .write(&options.out)
        .map_err(|e| write(&options.out, e))?;
    let report = ExportReport {
        format: options.settings.format.name(),
        out: options.out.clone(),
        bytes,
        inputs: options.inputs.clone(),
        settings: options.settings,
        shuffle_seed: options.shuffle,
        counts: export.counts().clone(),
        command: options.command.clone(),
        date: super::utc_now(),
        warnings,
    };
    let sidecar = sidecar_path(&options.out);
    let json = serde_json::to_string_pretty(&report).expect("a report serializes");
    std::fs::write(&sidecar, json + "\n").map_err(|e| write(&sidecar, e))?;
    Ok(report)
}

/// `FILE.json` beside `FILE`.
#[must_use]
pub fn sidecar_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}
