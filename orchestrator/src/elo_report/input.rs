//! Reading one or many `results.jsonl` files into one [`GameTable`], for rating reports.
//!
//! Merging rule: a game is identified by its whole line. A line seen again, byte for byte (after
//! trimming surrounding whitespace), in the same or another file is the same game and counts
//! once; lines the runner writes carry the game's id, players, start position, every move, result
//! and per-game seed, so two distinct games never share a line, while the same run's file passed
//! twice, or a run folder copied into another, merges cleanly. A replay of a run with the same
//! seed by deterministic engines produces the same lines too: that is the same game replayed, and
//! counting it twice would double one random draw. Every merge is counted and reported
//! (`duplicates`); `keep_duplicates` counts every line instead.
//!
//! A malformed line (not JSON, a missing key, a truncated last line) is an error naming the file
//! and the line number; `skip_malformed` turns it into a reported skip instead. Blank lines are
//! ignored. Nothing is dropped without being counted.

use std::collections::HashSet;
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use crate::results::GameResult;
use crate::stats::GameTable;

/// How to merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeOptions {
    /// Count every line, even one seen before.
    pub keep_duplicates: bool,
    /// Skip malformed lines (each is reported) instead of failing.
    pub skip_malformed: bool,
}

/// A results file that could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum InputError {
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: malformed results line: {message}")]
    Malformed {
        path: PathBuf,
        line: u64,
        message: String,
    },
}

/// A line that was skipped with `skip_malformed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    pub path: PathBuf,
    pub line: u64,
    pub message: String,
}

/// What one file contributed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileSummary {
    pub path: PathBuf,
    /// Non-blank lines.
    pub lines: u64,
    /// Games counted from this file.
    pub games: u64,
    /// Lines identical to one seen earlier (in this or an earlier file), not counted again.
    pub duplicates: u64,
    /// Malformed lines skipped (only with `skip_malformed`).
    pub skipped: u64,
}

/// The merged games.
#[derive(Debug, Clone, Default)]
pub struct MergedResults {
    pub table: GameTable,
    pub files: Vec<FileSummary>,
    pub skipped: Vec<SkippedLine>,
}

impl MergedResults {
    pub fn games(&self) -> u64 {
        self.table.games()
    }

    pub fn duplicates(&self) -> u64 {
        self.files.iter().map(|f| f.duplicates).sum()
    }
}

/// Reads and merges `paths` in order.
pub fn read_results(paths: &[PathBuf], options: MergeOptions) -> Result<MergedResults, InputError> {
    read_results_with_progress(paths, options, &|_| {})
}

/// [`read_results`], calling `progress` with the number of bytes read since its last call.
pub fn read_results_with_progress(
    paths: &[PathBuf],
    options: MergeOptions,
    progress: &dyn Fn(u64),
) -> Result<MergedResults, InputError> {
    let mut merged = MergedResults::default();
    let mut seen: HashSet<u128> = HashSet::new();
    for path in paths {
        let summary = read_file(path, options, &mut seen, &mut merged, progress)?;
        merged.files.push(summary);
    }
    Ok(merged)
}

fn read_file(
    path: &Path,
    options: MergeOptions,
    seen: &mut HashSet<u128>,
    merged: &mut MergedResults,
    progress: &dyn Fn(u64),
) -> Result<FileSummary, InputError> {
    let io = |source| InputError::Io {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path).map_err(io)?);
    let mut summary = FileSummary {
        path: path.to_owned(),
        ..FileSummary::default()
    };
    let mut buffer = String::new();
    let mut line_number = 0u64;
    let mut unreported_bytes = 0u64;
    loop {
        buffer.clear();
        let bytes = reader.read_line(&mut buffer).map_err(io)?;
        if bytes == 0 {
            break;
        }
        unreported_bytes += bytes as u64;
        if unreported_bytes >= 1 << 22 {
            progress(unreported_bytes);
            unreported_bytes = 0;
        }
        line_number += 1;
        let line = buffer.trim();
        if line.is_empty() {
            continue;
        }
        summary.lines += 1;
        let game: GameResult = match serde_json::from_str(line) {
            Ok(game) => game,
            Err(e) => {
                let message = e.to_string();
                if options.skip_malformed {
                    summary.skipped += 1;
                    merged.skipped.push(SkippedLine {
                        path: path.to_owned(),
                        line: line_number,
                        message,
                    });
                    continue;
                }
                return Err(InputError::Malformed {
                    path: path.to_owned(),
                    line: line_number,
                    message,
                });
            }
        };
        if !options.keep_duplicates && !seen.insert(line_fingerprint(line)) {
            summary.duplicates += 1;
            continue;
        }
        merged.table.add(&game);
        summary.games += 1;
    }
    progress(unreported_bytes);
    Ok(summary)
}

/// A 128-bit fingerprint of a line: two SipHash runs (fixed keys) over different prefixes. A
/// chance collision among a million lines has probability about 1e-27.
fn line_fingerprint(line: &str) -> u128 {
    let half = |salt: u8| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        line.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn line(id: u64, sente: &str, gote: &str, result: &str) -> String {
        format!(
            r#"{{"id":{id},"sente":"{sente}","gote":"{gote}","start":"startpos","moves":["7g7f"],"result":"{result}","reason":"resign","plies":1}}"#
        )
    }

    fn write(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
        let path = dir.join(name);
        let mut f = File::create(&path).expect("create");
        for l in lines {
            writeln!(f, "{l}").expect("write");
        }
        path
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("council-input-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn identical_lines_merge_and_are_counted() {
        let dir = temp_dir("merge");
        let a = write(
            &dir,
            "a.jsonl",
            &[line(0, "X", "Y", "sente"), line(1, "Y", "X", "draw")],
        );
        // Same game 1 again (e.g. a copied run), plus a new game 0 of another run: its line
        // differs (other result), so it is another game.
        let b = write(
            &dir,
            "b.jsonl",
            &[
                String::new(),
                format!("  {}  ", line(1, "Y", "X", "draw")),
                line(0, "X", "Y", "gote"),
            ],
        );
        let merged = read_results(&[a.clone(), b.clone()], MergeOptions::default()).expect("read");
        assert_eq!(merged.games(), 3);
        assert_eq!(merged.duplicates(), 1);
        assert_eq!(merged.files[1].lines, 2);
        assert_eq!(merged.files[1].games, 1);
        let all = read_results(
            &[a.clone(), b],
            MergeOptions {
                keep_duplicates: true,
                ..MergeOptions::default()
            },
        )
        .expect("read");
        assert_eq!(all.games(), 4);
        let twice = read_results(&[a.clone(), a], MergeOptions::default()).expect("read");
        assert_eq!((twice.games(), twice.duplicates()), (2, 2));
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let dir = temp_dir("malformed");
        let bad = write(
            &dir,
            "bad.jsonl",
            &[
                line(0, "X", "Y", "sente"),
                String::new(),
                r#"{"id":1,"sente":"X","gote":"Y","result":"sente""#.to_owned(),
            ],
        );
        let err = read_results(std::slice::from_ref(&bad), MergeOptions::default())
            .expect_err("malformed");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("{}:3: malformed", bad.display())),
            "{text}"
        );
        let skipped = read_results(
            &[bad],
            MergeOptions {
                skip_malformed: true,
                ..MergeOptions::default()
            },
        )
        .expect("skips");
        assert_eq!(skipped.games(), 1);
        assert_eq!(skipped.skipped.len(), 1);
        assert_eq!(skipped.skipped[0].line, 3);
        let missing = read_results(&[dir.join("nope.jsonl")], MergeOptions::default());
        assert!(
            matches!(&missing, Err(InputError::Io { path, .. }) if path.ends_with("nope.jsonl"))
        );
        std::fs::remove_dir_all(dir).ok();
    }
}
