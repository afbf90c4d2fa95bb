//! The one door to `results.jsonl`: every reader of finished games (`--resume`, `merge`,
//! `council-elo`, `council-analyze`, the live page's follower) reads through here, each with a
//! [`Policy`] it names, so that what a torn line, a malformed line or a repeated game does is
//! decided in one place and said at the call site.
//!
//! The three questions a reader answers, and their policies:
//! - a last line without its newline ([`TornTail`]): what a killed writer leaves, or a line
//!   still being written. Skipped and reported, or read as a line (a file made by another tool
//!   may lack its final newline).
//! - a complete line that is not a game result ([`Malformed`]): an error naming file and line,
//!   or skipped and reported.
//! - a game read again ([`Repeats`]): by whole line (several runs' files, where ids repeat) or
//!   by id (one run's games), merged, skipped, refused, or kept.
//!
//! Invariants: line numbers count every line from 1 (blank lines included, and ignored);
//! nothing is dropped without being counted in the [`FileRead`] of its file; a [`Follower`]
//! yields only complete lines, each once, however often a growing file is looked at; what is
//! read is bounded: a regular file up to its length when opened, and no line past [`MAX_LINE`]
//! (a special file in a results file's place, such as `/dev/zero`, is refused, not read into
//! memory).

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Take};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::GameResult;

/// What to do with a last line that has no newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TornTail {
    /// Leave it unread: the start of a line a killed writer cut off (the runner writes every
    /// line whole, newline included). Reported in [`FileRead::torn_tail`];
    /// [`FileRead::complete_len`] ends before it, so an appender can cut it off.
    Skip,
    /// Read it as any other line: a file made by hand or by another tool may lack its final
    /// newline. A cut-off line is then a malformed one.
    Read,
    /// Read it when it is a whole game (a file whose last newline is missing), else leave it
    /// unread and report it as [`TornTail::Skip`] does (a line cut off, or still being
    /// written): what a reader of other runs' files wants.
    ReadIfWhole,
}

/// What to do with a complete line that is not a game result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// Stop with [`ReadError::Malformed`], naming the file and the line.
    Fail,
    /// Skip it; every skipped line is reported ([`SkippedLine`]).
    Skip,
}

/// What to do with a game read before (in the same file or an earlier one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeats {
    /// Every line is a game.
    KeepAll,
    /// A line identical to one read before (byte for byte, surrounding whitespace aside) is the
    /// same game: counted once. Lines that differ are different games whatever their ids, as in
    /// the files of several runs. The runner's lines carry the game's id, players, moves, times
    /// and seed, so two distinct games never share a line.
    MergeIdenticalLines,
    /// One game per id, as in the shard folders of one run: the same game again under its id
    /// is counted once; another game under an id already read is [`ReadError::Differs`].
    MergeIdenticalIds,
    /// One game per id, the first line of each; later lines with an id already read are
    /// counted as duplicates and skipped.
    FirstOfEachId,
    /// One game per id; an id read again is [`ReadError::RepeatedId`].
    RefuseIds,
}

/// How a reader treats the three kinds of awkward line; every reader names all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub torn_tail: TornTail,
    pub malformed: Malformed,
    pub repeats: Repeats,
}

/// A results file that cannot be read under its policy.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    #[error("cannot read {}: {cause}", file.display())]
    Io {
        file: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}:{line}: malformed results line: {problem}", file.display())]
    Malformed {
        file: PathBuf,
        line: u64,
        problem: String,
    },
    /// [`Repeats::MergeIdenticalIds`]: two different games under one id.
    #[error(
        "{}:{line}: game {id} differs from game {id} of {}:{first_line}",
        file.display(),
        first_file.display()
    )]
    Differs {
        id: u64,
        file: PathBuf,
        line: u64,
        first_file: PathBuf,
        first_line: u64,
    },
    /// [`Repeats::RefuseIds`]: an id read twice.
    #[error(
        "{}:{line}: game id {id} appears twice (first at {}:{first_line})",
        file.display(),
        first_file.display()
    )]
    RepeatedId {
        id: u64,
        file: PathBuf,
        line: u64,
        first_file: PathBuf,
        first_line: u64,
    },
}

/// A line skipped under [`Malformed::Skip`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    pub path: PathBuf,
    pub line: u64,
    /// What is wrong with it.
    pub message: String,
}

/// What one file held. Serialized in `council-elo --format json` (`input.files`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRead {
    pub path: PathBuf,
    /// Non-blank lines read (a torn last line only under [`TornTail::Read`]).
    pub lines: u64,
    /// Games taken from this file.
    pub games: u64,
    /// Lines that repeat a game read before, not taken again ([`Repeats`]).
    pub duplicates: u64,
    /// Malformed lines skipped ([`Malformed::Skip`]).
    pub skipped: u64,
    /// A last line without its newline was left unread ([`TornTail::Skip`], or
    /// [`TornTail::ReadIfWhole`] for a line that is not a whole game).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub torn_tail: bool,
    /// Length in bytes of the lines read, a torn tail left unread excluded: where an appender
    /// goes on.
    #[serde(skip)]
    pub complete_len: u64,
}

/// A game and where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadGame {
    pub game: GameResult,
    /// Index of its file in the paths read.
    pub file: usize,
    /// Its line number there, from 1.
    pub line: u64,
}

/// What a whole read found: [`read`]'s answer.
#[derive(Debug, Clone, Default)]
pub struct ResultsRead {
    /// The games taken, in file and line order.
    pub games: Vec<GameResult>,
    /// One per path, in order.
    pub files: Vec<FileRead>,
    pub skipped: Vec<SkippedLine>,
}

/// Read every game of `paths` under `policy`.
pub fn read(paths: &[PathBuf], policy: Policy) -> Result<ResultsRead, ReadError> {
    let mut reader = ResultsReader::new(paths, policy);
    let games = reader
        .by_ref()
        .map(|r| r.map(|g| g.game))
        .collect::<Result<Vec<_>, _>>()?;
    let (files, skipped) = reader.finish();
    Ok(ResultsRead {
        games,
        files,
        skipped,
    })
}

/// Reads `paths` in order, one game at a time (a file of a million games is never held
/// whole). Yields each game with where it was read; after an error, yields nothing more.
pub struct ResultsReader<'a> {
    paths: &'a [PathBuf],
    policy: Policy,
    progress: Option<&'a dyn Fn(u64)>,
    judge: Judge,
    open: Option<OpenFile>,
    next: usize,
    files: Vec<FileRead>,
    skipped: Vec<SkippedLine>,
    failed: bool,
}

struct OpenFile {
    index: usize,
    reader: BufReader<Take<File>>,
    line: u64,
    /// Bytes read and not yet told to `progress`.
    unreported: u64,
    buffer: Vec<u8>,
}

/// Bytes between two calls of a reader's progress function.
const PROGRESS_STEP: u64 = 1 << 22;

/// The longest line read: far beyond any game's line (a 1000-ply game with every move's score
/// and PV is a few hundred kB), short enough that a file that is no results file cannot fill
/// the memory.
pub const MAX_LINE: u64 = 64 << 20;

/// `file` as far as it is read: a regular file up to its length now (lines a writer adds later
/// are for a later read), anything else (a pipe) as it comes.
fn bounded(file: File) -> std::io::Result<Take<File>> {
    let meta = file.metadata()?;
    let len = if meta.is_file() { meta.len() } else { u64::MAX };
    Ok(file.take(len))
}

/// The error for a line that reached [`MAX_LINE`] without its end.
fn too_long(file: &Path, line: u64) -> ReadError {
    ReadError::Malformed {
        file: file.to_path_buf(),
        line,
        problem: format!(
            "no end of line within {} MiB: this is not a results file",
            MAX_LINE >> 20
        ),
    }
}

impl<'a> ResultsReader<'a> {
    pub fn new(paths: &'a [PathBuf], policy: Policy) -> Self {
        Self {
            paths,
            policy,
            progress: None,
            judge: Judge::new(policy),
            open: None,
            next: 0,
            files: Vec::new(),
            skipped: Vec::new(),
            failed: false,
        }
    }

    /// Call `progress` with the number of bytes read since its last call (every few MB and at
    /// the end of each file).
    #[must_use]
    pub fn with_progress(mut self, progress: &'a dyn Fn(u64)) -> Self {
        self.progress = Some(progress);
        self
    }

    /// What each file held (the files read so far), and the lines skipped.
    pub fn finish(self) -> (Vec<FileRead>, Vec<SkippedLine>) {
        (self.files, self.skipped)
    }

    fn report(&self, bytes: u64) {
        if let Some(progress) = self.progress {
            progress(bytes);
        }
    }

    /// The next game of the open file, `None` at its end.
    fn next_in_file(&mut self) -> Result<Option<ReadGame>, ReadError> {
        loop {
            let Some(open) = self.open.as_mut() else {
                return Ok(None);
            };
            let paths: &'a [PathBuf] = self.paths;
            let path = &paths[open.index];
            let file = &mut self.files[open.index];
            open.buffer.clear();
            let bytes = (&mut open.reader)
                .take(MAX_LINE)
                .read_until(b'\n', &mut open.buffer)
                .map_err(|cause| ReadError::Io {
                    file: path.clone(),
                    cause,
                })? as u64;
            if bytes == MAX_LINE && !open.buffer.ends_with(b"\n") {
                return Err(too_long(path, open.line + 1));
            }
            if bytes == 0 {
                let unreported = open.unreported;
                self.open = None;
                self.report(unreported);
                return Ok(None);
            }
            open.unreported += bytes;
            if open.unreported >= PROGRESS_STEP {
                let unreported = std::mem::take(&mut open.unreported);
                if let Some(progress) = self.progress {
                    progress(unreported);
                }
            }
            open.line += 1;
            if !open.buffer.ends_with(b"\n") {
                let torn = match self.policy.torn_tail {
                    TornTail::Skip => true,
                    TornTail::Read => false,
                    TornTail::ReadIfWhole => {
                        let text = open.buffer.trim_ascii();
                        !text.is_empty() && serde_json::from_slice::<GameResult>(text).is_err()
                    }
                };
                if torn {
                    file.torn_tail = true;
                    continue;
                }
            }
            file.complete_len += bytes;
            let at = At {
                path,
                file: open.index,
                line: open.line,
            };
            if let Some(game) = self
                .judge
                .judge(&open.buffer, at, file, &mut self.skipped)?
            {
                return Ok(Some(ReadGame {
                    game,
                    file: open.index,
                    line: open.line,
                }));
            }
        }
    }
}

impl Iterator for ResultsReader<'_> {
    type Item = Result<ReadGame, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            if self.open.is_none() {
                let index = self.next;
                let path = self.paths.get(index)?;
                self.next += 1;
                let file = match File::open(path).and_then(bounded) {
                    Ok(f) => f,
                    Err(cause) => {
                        self.failed = true;
                        return Some(Err(ReadError::Io {
                            file: path.clone(),
                            cause,
                        }));
                    }
                };
                self.judge.files.push(path.clone());
                self.files.push(FileRead {
                    path: path.clone(),
                    ..FileRead::default()
                });
                self.open = Some(OpenFile {
                    index,
                    reader: BufReader::with_capacity(1 << 20, file),
                    line: 0,
                    unreported: 0,
                    buffer: Vec::new(),
                });
            }
            match self.next_in_file() {
                Ok(Some(game)) => return Some(Ok(game)),
                Ok(None) => {}
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Reads a growing `results.jsonl` (a run still being played) from where it last stopped:
/// each look yields the complete lines added since, never a line still being written (that
/// one is read whole on a later look). A missing file is a file with no line yet.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    judge: Judge,
    /// Bytes of the lines taken so far.
    offset: u64,
    /// Lines taken so far.
    line: u64,
    /// What the lines taken so far held.
    read: FileRead,
}

/// What one look at a followed file found.
#[derive(Debug, Default)]
pub struct NewLines {
    pub games: Vec<GameResult>,
    pub skipped: Vec<SkippedLine>,
}

impl Follower {
    /// Follow `path`; a last line without newline is always left for a later look (the
    /// follower's [`TornTail`]), so only the other two policies are chosen.
    pub fn new(path: PathBuf, malformed: Malformed, repeats: Repeats) -> Self {
        let mut judge = Judge::new(Policy {
            torn_tail: TornTail::Skip,
            malformed,
            repeats,
        });
        judge.files.push(path.clone());
        Self {
            read: FileRead {
                path: path.clone(),
                ..FileRead::default()
            },
            path,
            judge,
            offset: 0,
            line: 0,
        }
    }

    /// The complete lines added since the last look. A line refused by the policy ends the
    /// look before it: the games above it are yielded now, and the error on the next look.
    pub fn poll(&mut self) -> Result<NewLines, ReadError> {
        let io = |cause| ReadError::Io {
            file: self.path.clone(),
            cause,
        };
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(NewLines::default()),
            Err(e) => return Err(io(e)),
        };
        let meta = file.metadata().map_err(io)?;
        let mut bytes = Vec::new();
        if meta.is_file() {
            file.seek(SeekFrom::Start(self.offset)).map_err(io)?;
            let len = meta.len().saturating_sub(self.offset);
            file.take(len).read_to_end(&mut bytes).map_err(io)?;
        } else {
            file.take(MAX_LINE).read_to_end(&mut bytes).map_err(io)?;
        }
        let mut new = NewLines::default();
        for chunk in bytes.split_inclusive(|&b| b == b'\n') {
            if !chunk.ends_with(b"\n") {
                if chunk.len() as u64 >= MAX_LINE && new.games.is_empty() {
                    return Err(too_long(&self.path, self.line + 1));
                }
                break;
            }
            let at = At {
                path: &self.path,
                file: 0,
                line: self.line + 1,
            };
            match self
                .judge
                .judge(chunk, at, &mut self.read, &mut new.skipped)
            {
                Ok(Some(game)) => new.games.push(game),
                Ok(None) => {}
                Err(e) if new.games.is_empty() && new.skipped.is_empty() => return Err(e),
                Err(_) => break,
            }
            self.offset += chunk.len() as u64;
            self.line += 1;
        }
        Ok(new)
    }

    /// What the lines taken so far held.
    pub fn file_read(&self) -> &FileRead {
        &self.read
    }
}

/// Where a line is.
#[derive(Clone, Copy)]
struct At<'p> {
    path: &'p Path,
    /// Index of the file among those the judge has seen.
    file: usize,
    line: u64,
}

/// The games read so far, as far as [`Repeats`] needs to know them.
#[derive(Debug)]
enum Seen {
    Nothing,
    /// Fingerprints of the lines taken.
    Lines(HashSet<u128>),
    /// Per id: the fingerprint of its game, and where it was first read (file, line).
    Ids(HashMap<u64, (u128, usize, u64)>),
}

/// Turns lines into games under a policy, counting what it does in the file's [`FileRead`].
#[derive(Debug)]
struct Judge {
    policy: Policy,
    seen: Seen,
    /// The files seen, by index (for naming a first occurrence).
    files: Vec<PathBuf>,
}

impl Judge {
    fn new(policy: Policy) -> Self {
        let seen = match policy.repeats {
            Repeats::KeepAll => Seen::Nothing,
            Repeats::MergeIdenticalLines => Seen::Lines(HashSet::new()),
            Repeats::MergeIdenticalIds | Repeats::FirstOfEachId | Repeats::RefuseIds => {
                Seen::Ids(HashMap::new())
            }
        };
        Self {
            policy,
            seen,
            files: Vec::new(),
        }
    }

    /// The game the line `bytes` at `at` holds, `None` for a blank line, a repeat or a
    /// skipped line (added to `skipped`); counted in `read` unless refused.
    fn judge(
        &mut self,
        bytes: &[u8],
        at: At<'_>,
        read: &mut FileRead,
        skipped: &mut Vec<SkippedLine>,
    ) -> Result<Option<GameResult>, ReadError> {
        let text = bytes.trim_ascii();
        if text.is_empty() {
            return Ok(None);
        }
        match serde_json::from_slice::<GameResult>(text) {
            Ok(game) => {
                let taken = self.new_game(game, text, at)?;
                read.lines += 1;
                match taken {
                    Some(_) => read.games += 1,
                    None => read.duplicates += 1,
                }
                Ok(taken)
            }
            Err(e) if self.policy.malformed == Malformed::Skip => {
                read.lines += 1;
                read.skipped += 1;
                skipped.push(SkippedLine {
                    path: at.path.to_path_buf(),
                    line: at.line,
                    message: e.to_string(),
                });
                Ok(None)
            }
            Err(e) => Err(ReadError::Malformed {
                file: at.path.to_path_buf(),
                line: at.line,
                problem: e.to_string(),
            }),
        }
    }

    /// `game` (read from the line `text`) if it is new, `None` if it repeats one read before,
    /// or the error the policy makes of a repeat.
    fn new_game(
        &mut self,
        game: GameResult,
        text: &[u8],
        at: At<'_>,
    ) -> Result<Option<GameResult>, ReadError> {
        let ids = match &mut self.seen {
            Seen::Nothing => return Ok(Some(game)),
            Seen::Lines(lines) => return Ok(lines.insert(fingerprint(text)).then_some(game)),
            Seen::Ids(ids) => ids,
        };
        // The game as this build writes it: the same game read from lines written by
        // different builds (key order, defaults) is still the same.
        let print = match self.policy.repeats {
            Repeats::MergeIdenticalIds => {
                fingerprint(&serde_json::to_vec(&game).unwrap_or_default())
            }
            _ => 0,
        };
        let Some(&(first, first_file, first_line)) = ids.get(&game.id) else {
            ids.insert(game.id, (print, at.file, at.line));
            return Ok(Some(game));
        };
        let first_file = self.files.get(first_file).cloned().unwrap_or_default();
        match self.policy.repeats {
            Repeats::MergeIdenticalIds if first != print => Err(ReadError::Differs {
                id: game.id,
                file: at.path.to_path_buf(),
                line: at.line,
                first_file,
                first_line,
            }),
            Repeats::RefuseIds => Err(ReadError::RepeatedId {
                id: game.id,
                file: at.path.to_path_buf(),
                line: at.line,
                first_file,
                first_line,
            }),
            _ => Ok(None),
        }
    }
}

/// A 128-bit fingerprint of a line: two SipHash runs (fixed keys) with different salts. A
/// chance collision among a million lines has probability about 1e-27.
fn fingerprint(bytes: &[u8]) -> u128 {
    let half = |salt: u8| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        bytes.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: u64, sente: &str, result: &str) -> String {
        format!(
            r#"{{"id":{id},"sente":"{sente}","gote":"g","start":"startpos","moves":[],"result":"{result}","reason":"max_plies","plies":0}}"#
        )
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("council-read-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    }

    fn policy(torn_tail: TornTail, malformed: Malformed, repeats: Repeats) -> Policy {
        Policy {
            torn_tail,
            malformed,
            repeats,
        }
    }

    fn ids(read: &ResultsRead) -> Vec<u64> {
        read.games.iter().map(|g| g.id).collect()
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_reported_or_read_as_a_line() {
        let dir = scratch("torn");
        let path = dir.join("results.jsonl");
        let whole = format!("{}\n\n{}\n", line(0, "a", "draw"), line(1, "a", "draw"));
        std::fs::write(&path, format!("{whole}{}", &line(2, "a", "draw")[..30])).expect("write");
        let paths = [path.clone()];

        let skip = read(
            &paths,
            policy(TornTail::Skip, Malformed::Fail, Repeats::KeepAll),
        )
        .expect("a torn tail is no error");
        assert_eq!(ids(&skip), [0, 1]);
        let file = &skip.files[0];
        assert!(file.torn_tail);
        assert_eq!((file.lines, file.games), (2, 2));
        assert_eq!(
            file.complete_len,
            whole.len() as u64,
            "where an appender goes on"
        );

        let err = read(
            &paths,
            policy(TornTail::Read, Malformed::Fail, Repeats::KeepAll),
        )
        .expect_err("read as a line, it is malformed");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:4: malformed results line: ", path.display())),
            "{err}"
        );
        let skipped = read(
            &paths,
            policy(TornTail::Read, Malformed::Skip, Repeats::KeepAll),
        )
        .expect("skipped");
        assert_eq!(ids(&skipped), [0, 1]);
        assert_eq!(skipped.skipped[0].line, 4);
        assert_eq!((skipped.files[0].lines, skipped.files[0].skipped), (3, 1));
        assert!(!skipped.files[0].torn_tail);
        // `ReadIfWhole`: the cut-off line is skipped and reported, malformed lines still fail.
        let if_whole = read(
            &paths,
            policy(TornTail::ReadIfWhole, Malformed::Fail, Repeats::KeepAll),
        )
        .expect("a torn tail is no error");
        assert_eq!(ids(&if_whole), [0, 1]);
        assert!(if_whole.files[0].torn_tail);

        // A last line that is whole but for its newline: a game under `Read` and `ReadIfWhole`.
        std::fs::write(&path, format!("{whole}{}", line(2, "a", "draw"))).expect("write");
        for torn_tail in [TornTail::Read, TornTail::ReadIfWhole] {
            let read_it =
                read(&paths, policy(torn_tail, Malformed::Fail, Repeats::KeepAll)).expect("read");
            assert_eq!(ids(&read_it), [0, 1, 2]);
            assert!(!read_it.files[0].torn_tail);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_a_malformed_line_by_its_number() {
        let dir = scratch("utf8");
        let path = dir.join("results.jsonl");
        let mut bytes = format!("{}\n", line(0, "a", "draw")).into_bytes();
        bytes.extend_from_slice(line(1, "a\u{e9}", "draw").as_bytes());
        // Cut the two-byte é in half.
        let cut = bytes.iter().rposition(|&b| b == 0xa9).expect("é");
        bytes.remove(cut);
        bytes.push(b'\n');
        std::fs::write(&path, bytes).expect("write");
        let paths = [path.clone()];
        let err = read(
            &paths,
            policy(TornTail::Skip, Malformed::Fail, Repeats::KeepAll),
        )
        .expect_err("not UTF-8");
        assert!(matches!(err, ReadError::Malformed { line: 2, .. }), "{err}");
        let skipped = read(
            &paths,
            policy(TornTail::Skip, Malformed::Skip, Repeats::KeepAll),
        )
        .expect("skipped");
        assert_eq!((ids(&skipped), skipped.skipped[0].line), (vec![0], 2));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn repeats_merge_skip_or_refuse_as_the_policy_says() {
        let dir = scratch("repeats");
        let a = dir.join("a.jsonl");
        let b = dir.join("b.jsonl");
        // b: game 0 again (the same line, spaced), game 1 again as another game, game 2 with
        // its keys in another order (the same game, another line).
        std::fs::write(
            &a,
            format!(
                "{}\n{}\n{}\n",
                line(0, "a", "draw"),
                line(1, "a", "draw"),
                line(2, "a", "draw")
            ),
        )
        .expect("write");
        let reordered = r#"{"sente":"a","id":2,"gote":"g","start":"startpos","moves":[],"result":"draw","reason":"max_plies","plies":0}"#;
        std::fs::write(
            &b,
            format!(
                "  {}  \n{}\n{reordered}\n",
                line(0, "a", "draw"),
                line(1, "a", "sente")
            ),
        )
        .expect("write");
        let paths = [a.clone(), b.clone()];
        let with = |repeats| read(&paths, policy(TornTail::Skip, Malformed::Fail, repeats));

        let all = with(Repeats::KeepAll).expect("read");
        assert_eq!(ids(&all), [0, 1, 2, 0, 1, 2]);

        let lines = with(Repeats::MergeIdenticalLines).expect("read");
        assert_eq!(
            ids(&lines),
            [0, 1, 2, 1, 2],
            "only the identical line merges"
        );
        assert_eq!(
            (
                lines.files[1].lines,
                lines.files[1].games,
                lines.files[1].duplicates
            ),
            (3, 2, 1)
        );

        let first = with(Repeats::FirstOfEachId).expect("read");
        assert_eq!(ids(&first), [0, 1, 2]);
        assert_eq!(
            first.games[1].result,
            crate::results::Winner::Draw,
            "the first line"
        );
        assert_eq!(first.files[1].duplicates, 3);

        match with(Repeats::MergeIdenticalIds) {
            Err(ReadError::Differs {
                id: 1,
                file,
                line: 2,
                first_file,
                first_line: 2,
            }) => assert_eq!((file, first_file), (b.clone(), a.clone())),
            other => panic!("game 1 differs: {other:?}"),
        }
        let without_1 = format!("{}\n{reordered}\n", line(0, "a", "draw"));
        std::fs::write(&b, without_1).expect("write");
        let merged = with(Repeats::MergeIdenticalIds).expect("the same games");
        assert_eq!(ids(&merged), [0, 1, 2]);
        assert_eq!(
            merged.files[1].duplicates, 2,
            "a reordered line is the same game"
        );

        match with(Repeats::RefuseIds) {
            Err(e @ ReadError::RepeatedId { id: 0, line: 1, .. }) => assert_eq!(
                e.to_string(),
                format!(
                    "{}:1: game id 0 appears twice (first at {}:1)",
                    b.display(),
                    a.display()
                )
            ),
            other => panic!("id 0 twice: {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_file_is_named() {
        let dir = scratch("missing");
        let path = dir.join("nope.jsonl");
        let err = read(
            std::slice::from_ref(&path),
            policy(TornTail::Skip, Malformed::Fail, Repeats::KeepAll),
        )
        .expect_err("missing");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read {}: ", path.display())),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_follower_takes_only_complete_lines_each_once() {
        let dir = scratch("follow");
        let path = dir.join("results.jsonl");
        let mut follower = Follower::new(path.clone(), Malformed::Skip, Repeats::KeepAll);
        assert!(follower.poll().expect("no file yet").games.is_empty());

        // Two games, a bad line, and a line still being written.
        let (l0, l1, l2) = (
            line(0, "a", "draw"),
            line(1, "a", "draw"),
            line(2, "a", "draw"),
        );
        std::fs::write(&path, format!("{l0}\n{l1}\nnot json\n{}", &l2[..20])).expect("write");
        let first = follower.poll().expect("read");
        assert_eq!(first.games.iter().map(|g| g.id).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(first.skipped.len(), 1);
        assert_eq!(first.skipped[0].line, 3, "the bad line by its number");
        assert!(
            follower.poll().expect("read").games.is_empty(),
            "nothing new"
        );

        // The writer finishes its line: the next look takes it, and only it.
        std::fs::write(&path, format!("{l0}\n{l1}\nnot json\n{l2}\n\n{l0}\n")).expect("write");
        let next = follower.poll().expect("read");
        assert_eq!(next.games.iter().map(|g| g.id).collect::<Vec<_>>(), [2, 0]);
        assert!(next.skipped.is_empty());
        let read = follower.file_read();
        assert_eq!((read.lines, read.games, read.skipped), (5, 4, 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_follower_that_refuses_a_line_yields_the_games_above_it_first() {
        let dir = scratch("follow-fail");
        let path = dir.join("results.jsonl");
        let mut follower = Follower::new(path.clone(), Malformed::Fail, Repeats::RefuseIds);
        let (l0, l1) = (line(0, "a", "draw"), line(1, "a", "draw"));
        std::fs::write(&path, format!("{l0}\n{l1}\n{l0}\n")).expect("write");
        let first = follower.poll().expect("the games above");
        assert_eq!(first.games.len(), 2);
        for _ in 0..2 {
            match follower.poll() {
                Err(ReadError::RepeatedId {
                    id: 0,
                    line: 3,
                    first_line: 1,
                    ..
                }) => {}
                other => panic!("line 3 repeats game 0: {other:?}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_that_never_ends_a_line_is_refused_not_read_into_memory() {
        let zero = PathBuf::from("/dev/zero");
        let any = policy(TornTail::Read, Malformed::Skip, Repeats::KeepAll);
        match read(std::slice::from_ref(&zero), any) {
            Err(e @ ReadError::Malformed { line: 1, .. }) => {
                let text = e.to_string();
                assert!(
                    text.starts_with("/dev/zero:1: ") && text.contains("not a results file"),
                    "{text}"
                );
            }
            other => panic!("/dev/zero is no results file: {other:?}"),
        }
        let mut follower = Follower::new(zero, Malformed::Skip, Repeats::KeepAll);
        assert!(matches!(
            follower.poll(),
            Err(ReadError::Malformed { line: 1, .. })
        ));
    }

    #[test]
    fn a_regular_file_is_read_as_long_as_it_was_when_opened() {
        let dir = scratch("grown");
        let path = dir.join("results.jsonl");
        // More than the reader's buffer, so that the lines after the first are read from the
        // file after it has grown.
        let lines: Vec<String> = (0..20_000).map(|i| line(i, "a", "draw")).collect();
        assert!(lines.iter().map(String::len).sum::<usize>() > 2 << 20);
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        let paths = [path.clone()];
        let mut reader = ResultsReader::new(
            &paths,
            policy(TornTail::Skip, Malformed::Fail, Repeats::RefuseIds),
        );
        assert_eq!(reader.next().expect("a game").expect("read").game.id, 0);
        let mut more = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        std::io::Write::write_all(&mut more, (line(20_000, "a", "draw") + "\n").as_bytes())
            .expect("append");
        let rest = reader.by_ref().count();
        assert_eq!(rest, 19_999, "the games that were there when it opened");
        let (files, _) = reader.finish();
        assert_eq!(files[0].games, 20_000);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
