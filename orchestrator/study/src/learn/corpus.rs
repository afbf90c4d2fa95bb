//! `council-learn corpus INPUT... --out FILE`: any mix of corpus inputs packed into one corpus
//! file of USI position lines, distinct games in input order, with a header that says where
//! they came from — for a run folder its engines, their command lines and budgets, the seed
//! and the games scheduled (from its `run.json`); for other inputs the files — plus the date
//! and the command, so that the file can be remade.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use council_schema::corpus::{self, CorpusError, InputKind, lines, run};

/// What to pack.
#[derive(Debug, Clone)]
pub struct CorpusOptions {
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// The command line, as the header records it.
    pub command: String,
}

/// What was packed.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusReport {
    pub out: PathBuf,
    /// Distinct games written.
    pub games: usize,
    pub read: u64,
    pub skipped: u64,
    pub duplicates: u64,
    /// One line per problem met (file and line, what is wrong).
    pub warnings: Vec<String>,
}

impl CorpusReport {
    #[must_use]
    pub fn table(&self) -> String {
        format!(
            "wrote {} games to {} ({} read, {} skipped, {} duplicates)\n",
            self.games,
            self.out.display(),
            self.read,
            self.skipped,
            self.duplicates
        )
    }
}

/// Reads the inputs and writes the corpus file.
///
/// # Errors
/// [`CorpusError`] for a missing input or an unwritable output.
pub fn run(options: &CorpusOptions) -> Result<CorpusReport, CorpusError> {
    let read = corpus::read(&options.inputs)?;
    let mut header = vec![
        "council corpus: USI position lines, one game a line (docs/reference/files.md)".to_string(),
        format!("command: {}", options.command),
        format!("date: {}", super::utc_now()),
    ];
    for input in &read.inputs {
        let kind = match input.kind {
            InputKind::Csa => "CSA",
            InputKind::Kif => "KIF",
            InputKind::Run => "results",
            InputKind::Lines => "USI lines",
        };
        let mut line = format!(
            "input {} ({kind}): {} games read, {} skipped, {} duplicates",
            input.path.display(),
            input.read,
            input.skipped,
            input.duplicates
        );
        if input.kind == InputKind::Run {
            for extra in run::describe(&input.path).unwrap_or_default() {
                let _ = write!(line, "\n  {extra}");
            }
        }
        header.extend(line.lines().map(str::to_string));
    }
    header.push(format!(
        "games: {} ({} read, {} skipped, {} duplicates)",
        read.games.len(),
        read.read(),
        read.skipped(),
        read.duplicates()
    ));
    let text = lines::format_file(&header, &read.games);
    std::fs::write(&options.out, text).map_err(|cause| CorpusError::Write {
        path: options.out.clone(),
        cause,
    })?;
    Ok(CorpusReport {
        out: options.out.clone(),
        games: read.games.len(),
        read: read.read(),
        skipped: read.skipped(),
        duplicates: read.duplicates(),
        warnings: read.warnings.iter().map(ToString::to_string).collect(),
    })
}
