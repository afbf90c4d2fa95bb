//! Reading one or many `results.jsonl` files into one [`GameTable`], for rating reports,
//! through the one results reader (`council_schema::results::read`) with council-elo's policy.
//!
//! Merging rule: a game is identified by its whole line ([`Repeats::MergeIdenticalLines`]). A
//! line seen again, byte for byte (after trimming surrounding whitespace), in the same or another
//! file is the same game and counts once; lines the runner writes carry the game's id, players,
//! start position, every move, result and per-game seed, so two distinct games never share a
//! line, while the same run's file passed twice, or a run folder copied into another, merges
//! cleanly. A replay of a run with the same seed by deterministic engines produces the same lines
//! too: that is the same game replayed, and counting it twice would double one random draw.
//! Every merge is counted and reported (`duplicates`); `keep_duplicates` counts every line
//! instead.
//!
//! A last line without its newline is read when it is a whole game and otherwise skipped and
//! reported ([`TornTail::ReadIfWhole`]): a run still writing, or one that was killed, leaves
//! such a line, and files.md promises every reader ignores it. Any other malformed line (not
//! JSON, a missing key) is an error naming the file and the line number; `skip_malformed`
//! turns it into a reported skip instead. Blank lines are ignored. Nothing is dropped without
//! being counted.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::group_by::GroupBy;
use super::identity::Renames;
use council_schema::results::read::{
    FileRead, Malformed, Policy, ReadError, Repeats, ResultsReader, SkippedLine, TornTail,
};
use council_schema::stats::GameTable;

/// How to merge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeOptions {
    /// Count every line, even one seen before.
    pub keep_duplicates: bool,
    /// Skip malformed lines (each is reported) instead of failing.
    pub skip_malformed: bool,
    /// Also keep one table per group of games (`council-elo --by`).
    pub group: Option<GroupBy>,
    /// Names rated apart by run (`--split-names`): a clashing name takes its version's
    /// `NAME@RUN` in each file.
    pub renames: Renames,
}

impl MergeOptions {
    /// The reading policy these options name.
    pub fn policy(&self) -> Policy {
        Policy {
            torn_tail: TornTail::ReadIfWhole,
            malformed: if self.skip_malformed {
                Malformed::Skip
            } else {
                Malformed::Fail
            },
            repeats: if self.keep_duplicates {
                Repeats::KeepAll
            } else {
                Repeats::MergeIdenticalLines
            },
        }
    }
}

/// The merged games.
#[derive(Debug, Clone, Default)]
pub struct MergedResults {
    pub table: GameTable,
    /// What each file contributed.
    pub files: Vec<FileRead>,
    pub skipped: Vec<SkippedLine>,
    /// The same games by group, when [`MergeOptions::group`] asked for it (else empty).
    pub groups: BTreeMap<String, GameTable>,
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
pub fn read_results(paths: &[PathBuf], options: MergeOptions) -> Result<MergedResults, ReadError> {
    read_results_with_progress(paths, options, &|_| {})
}

/// [`read_results`], calling `progress` with the number of bytes read since its last call.
pub fn read_results_with_progress(
    paths: &[PathBuf],
    options: MergeOptions,
    progress: &dyn Fn(u64),
) -> Result<MergedResults, ReadError> {
    let mut table = GameTable::new();
    let mut groups: BTreeMap<String, GameTable> = BTreeMap::new();
    let mut reader = ResultsReader::new(paths, options.policy()).with_progress(progress);
    for read in reader.by_ref() {
        let read = read?;
        let mut game = read.game;
        if !options.renames.is_empty() {
            game.sente = options.renames.name(read.file, &game.sente).to_string();
            game.gote = options.renames.name(read.file, &game.gote).to_string();
        }
        table.add(&game);
        if let Some(by) = options.group {
            groups.entry(by.key(&game)).or_default().add(&game);
        }
    }
    let (files, skipped) = reader.finish();
    Ok(MergedResults {
        table,
        files,
        skipped,
        groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Write;
    use std::path::Path;

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
            matches!(&missing, Err(ReadError::Io { file, .. }) if file.ends_with("nope.jsonl"))
        );
        std::fs::remove_dir_all(dir).ok();
    }
}
