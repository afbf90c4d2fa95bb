//! YaneuraOu opening books: the `#YANEURAOU-DB2016 1.00` text format of `standard_book.db` and
//! of the books built from floodgate records, and the walk a GUI makes through one.
//!
//! Two readers, one book: [`Book::read`] holds every entry in memory (for a small book, or to
//! list its entries); [`Book::open`] holds only where each entry starts in the file (its line,
//! its byte offset and its position's hash: 24 bytes an entry), reads an entry when a walk or a
//! draw reaches its position, and checks the whole file's syntax as it indexes it. Books users
//! have run to hundreds of MB and millions of positions (`standard_book.db`, floodgate books),
//! which [`Book::read`] would hold whole; a draw from one touches a few thousand entries.
//!
//! The format is rsshogi's to read (`rsshogi::book::YaneuraOuBook`, each entry's SFEN normalised
//! and its moves with their value, depth and count); this file adds what its reader does not
//! keep: the line of the file each entry and each move came from, so that a bad entry is named
//! by its line (`book.db: line 57: invalid DB2016 move`), and a move that is not legal in its
//! position too, when a walk meets it. Books are keyed by the position alone (board, side to
//! move, hands: the SFEN without its move number), as YaneuraOu looks them up; a position given
//! twice keeps its first entry.
//!
//! [`Book::walk`] follows the book from a position as a GUI plays from it: at each ply every
//! book move of the position whose count is at least `min_count`, to a fixed depth. Positions
//! reached by transposed move orders are one, keeping the first line found; each carries the
//! probability that a player choosing book moves in proportion to their counts reaches it.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rsshogi::book::{YaneuraOuAccessMode, YaneuraOuBook, YaneuraOuBookOpenOptions};

use crate::position::Position;
use crate::types::Move;

/// The first line of a book in this format.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// A book that does not read, or a move in it that is not legal: the file, the line (when one
/// is at fault) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}{problem}", path.display(), line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct BookError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub problem: String,
}

/// One move of a book entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookMove {
    /// The move (not yet checked against the entry's position: [`Book::walk`] does).
    pub mv: Move,
    /// Its value, centipawns from the mover's view (mates as YaneuraOu writes them, beyond
    /// ±30000), when the book gives one.
    pub value: Option<i32>,
    pub depth: Option<u32>,
    /// How often it was played (or chosen), when the book gives it.
    pub count: Option<u64>,
    /// Its line in the file, from 1.
    pub line: usize,
}

impl BookMove {
    /// The count a walk weighs the move by: the book's, or 1 when it gives none.
    #[must_use]
    pub fn weight(&self) -> u64 {
        self.count.unwrap_or(1)
    }
}

/// One position of a book and its moves, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Board, side to move and hands (the SFEN's first three fields).
    pub key: String,
    /// The move number the entry's SFEN gives, if any.
    pub ply: Option<u32>,
    /// The line of its `sfen` line, from 1.
    pub line: usize,
    /// Its moves, `none` and `resign` left out.
    pub moves: Vec<BookMove>,
}

/// A book, read whole or indexed by offsets.
#[derive(Debug, Clone)]
pub struct Book {
    path: PathBuf,
    store: Store,
    /// Entries for a position given before (the first is kept). For a book opened by offsets,
    /// counted by the positions' 64-bit hashes.
    pub duplicates: usize,
}

/// Where a book's entries are.
#[derive(Debug, Clone)]
enum Store {
    /// Every entry, parsed ([`Book::read`]).
    Whole {
        entries: Vec<Entry>,
        index: HashMap<String, usize>,
    },
    /// Where each entry starts in the file ([`Book::open`]), sorted by hash, then offset.
    Offsets(Vec<Place>),
}

/// Where one entry of a book opened by offsets starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    /// The hash of its key ([`hash_key`]).
    hash: u64,
    /// The byte offset of its `sfen` line.
    offset: u64,
    /// That line's number, from 1.
    line: u32,
}

/// A key's hash for the offset index (the same within a process: nothing stores it).
fn hash_key(key: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// Whether `path` starts with the format's header (`#YANEURAOU-DB2016`, a UTF-8 BOM allowed):
/// how `[match] openings` tells a book from a file of start lines.
#[must_use]
pub fn is_book(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut first = String::new();
    if BufReader::new(file).read_line(&mut first).is_err() {
        return false;
    }
    first
        .trim_start_matches('\u{feff}')
        .starts_with("#YANEURAOU-DB2016")
}

/// The book's key of a position: its SFEN's first three fields.
#[must_use]
pub fn key_of(position: &Position) -> String {
    let sfen = position.to_sfen();
    match sfen.rsplit_once(' ') {
        Some((key, _)) => key.to_string(),
        None => sfen,
    }
}

impl Book {
    /// Reads the whole book at `path`.
    ///
    /// # Errors
    /// [`BookError`] for a file that cannot be read, an unsupported header, or the first entry
    /// that does not parse (its line and rsshogi's reason).
    pub fn read(path: &Path) -> Result<Self, BookError> {
        let fail = |line: Option<usize>, problem: String| BookError {
            path: path.to_path_buf(),
            line,
            problem,
        };
        let lines = LineMap::scan(path).map_err(|e| fail(None, format!("cannot read: {e}")))?;
        let reader = YaneuraOuBook::open_with_options(
            path,
            YaneuraOuBookOpenOptions::with_access_mode(YaneuraOuAccessMode::ScanOnly),
        )
        .map_err(|e| fail(Some(1), e.to_string()))?;
        let entries = reader
            .iter_entries()
            .map_err(|e| fail(None, format!("cannot read: {e}")))?;
        let mut entries_read: Vec<Entry> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut duplicates = 0;
        for (k, entry) in entries.enumerate() {
            let entry = entry.map_err(|e| {
                let problem = e.to_string();
                let (line, problem) = match (lines.orphan, lines.entries.get(k)) {
                    (Some(orphan), _) if problem.contains("before first position") => {
                        (orphan, problem)
                    }
                    (_, None) => (lines.last, problem),
                    (_, Some(at)) if problem.contains("SFEN") || problem.contains("DB2016 ply") => {
                        (at.sfen, problem)
                    }
                    // A move line: the scan names the field rsshogi's message leaves unsaid.
                    (_, Some(at)) => at
                        .moves
                        .iter()
                        .find_map(|(line, bad)| bad.as_ref().map(|why| (*line, why.clone())))
                        .unwrap_or((at.sfen, problem)),
                };
                fail(Some(line), problem)
            })?;
            let Some(at) = lines.entries.get(k) else {
                return Err(fail(
                    Some(lines.last),
                    "an entry the line scan did not see".into(),
                ));
            };
            let moves = entry
                .moves()
                .iter()
                .zip(&at.moves)
                .filter(|(m, _)| m.mv().is_normal())
                .map(|(m, (line, _))| BookMove {
                    mv: Move::from_rs(m.mv()),
                    value: m.score(),
                    depth: m.depth(),
                    count: m.count(),
                    line: *line,
                })
                .collect();
            let key = match entry.sfen().rsplit_once(' ') {
                Some((key, _)) => key.to_string(),
                None => entry.sfen().to_string(),
            };
            if index.contains_key(&key) {
                duplicates += 1;
                continue;
            }
            index.insert(key.clone(), entries_read.len());
            entries_read.push(Entry {
                key,
                ply: entry.original_ply(),
                line: at.sfen,
                moves,
            });
        }
        Ok(Book {
            path: path.to_path_buf(),
            store: Store::Whole {
                entries: entries_read,
                index,
            },
            duplicates,
        })
    }

    /// Indexes the book at `path` by where its entries start, holding no entry: one pass over
    /// the file that checks what [`Book::read`] checks (the header, each `sfen` line's
    /// position and move number, each move line's fields), so a bad book is refused here, not
    /// halfway through a draw.
    ///
    /// # Errors
    /// [`BookError`] for a file that cannot be read, an unsupported header, or the first line
    /// that does not parse (its number and what is wrong: the DB2016 field for a move line).
    pub fn open(path: &Path) -> Result<Self, BookError> {
        let fail = |line: Option<usize>, problem: String| BookError {
            path: path.to_path_buf(),
            line,
            problem,
        };
        let file = File::open(path).map_err(|e| fail(None, format!("cannot read: {e}")))?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut places = Vec::new();
        let mut bytes = Vec::new();
        let mut offset = 0u64;
        let mut n = 0usize;
        loop {
            bytes.clear();
            let read = reader
                .read_until(b'\n', &mut bytes)
                .map_err(|e| fail(None, format!("cannot read: {e}")))?;
            if read == 0 {
                break;
            }
            let at = offset;
            offset += read as u64;
            n += 1;
            let text = String::from_utf8_lossy(&bytes);
            let text = clean(&text, n);
            if n == 1 && text.starts_with("#YANEURAOU-DB2016") && text != HEADER {
                return Err(fail(Some(1), "unsupported DB2016 header".into()));
            }
            match classify(text) {
                Kind::Skip => {}
                Kind::Sfen(fields) => {
                    let (key, _) = parse_sfen(fields).map_err(|p| fail(Some(n), p))?;
                    let line = u32::try_from(n)
                        .map_err(|_| fail(Some(n), "more lines than a book index holds".into()))?;
                    places.push(Place {
                        hash: hash_key(&key),
                        offset: at,
                        line,
                    });
                }
                Kind::Move(text) => {
                    if places.is_empty() {
                        return Err(fail(
                            Some(n),
                            "a move line before the first `sfen` line".into(),
                        ));
                    }
                    if let Some(problem) = move_line_problem(text) {
                        return Err(fail(Some(n), problem));
                    }
                }
            }
        }
        places.sort_unstable();
        let duplicates = places.windows(2).filter(|w| w[0].hash == w[1].hash).count();
        Ok(Book {
            path: path.to_path_buf(),
            store: Store::Offsets(places),
            duplicates,
        })
    }

    /// The file it was read from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry, in file order (a duplicate position's later entries left out), of a book
    /// read whole; `None` for one opened by offsets, which holds none.
    #[must_use]
    pub fn entries(&self) -> Option<&[Entry]> {
        match &self.store {
            Store::Whole { entries, .. } => Some(entries),
            Store::Offsets(_) => None,
        }
    }

    /// The entry of `position`, if the book has one.
    ///
    /// # Errors
    /// [`BookError`] when the file cannot be read again (a book opened by offsets).
    pub fn entry(&self, position: &Position) -> Result<Option<Entry>, BookError> {
        Ok(Cursor::new(self).entry(position)?.cloned())
    }

    /// Follows the book from `root` for `depth` plies, taking at each position every book move
    /// whose count ([`BookMove::weight`]) is at least `min_count`.
    ///
    /// # Errors
    /// [`BookError`] naming the line of a book move that is not legal in its position.
    pub fn walk(&self, root: &Position, depth: usize, min_count: u64) -> Result<Walk, BookError> {
        let mut frontier = vec![BookLine {
            position: root.clone(),
            probability: 1.0,
            value: None,
            line: None,
        }];
        let mut walk = Walk::default();
        let mut cursor = Cursor::new(self);
        for _ in 0..depth {
            let mut next: Vec<BookLine> = Vec::new();
            let mut seen: HashMap<String, usize> = HashMap::new();
            for from in &frontier {
                let kept: Vec<BookMove> = cursor
                    .entry(&from.position)?
                    .map(|e| {
                        e.moves
                            .iter()
                            .filter(|m| m.weight() >= min_count)
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                if kept.is_empty() {
                    walk.left_book += 1;
                    continue;
                }
                let total: u64 = kept.iter().map(|m| m.weight()).sum();
                let count = kept.len();
                for m in &kept {
                    if !from.position.is_legal(m.mv) {
                        return Err(self.illegal(&from.position, m));
                    }
                    let share = if total == 0 {
                        1.0 / count as f64
                    } else {
                        m.weight() as f64 / total as f64
                    };
                    let mut position = from.position.clone();
                    position.play(m.mv);
                    let key = key_of(&position);
                    if let Some(&i) = seen.get(&key) {
                        next[i].probability += from.probability * share;
                        continue;
                    }
                    seen.insert(key, next.len());
                    next.push(BookLine {
                        position,
                        probability: from.probability * share,
                        value: m.value,
                        line: Some(m.line),
                    });
                }
            }
            if next.is_empty() {
                break;
            }
            walk.deepest += 1;
            frontier = next;
        }
        if walk.deepest == depth {
            walk.lines = frontier;
        }
        Ok(walk)
    }
}

/// How [`Book::sample`] picks a move among a position's book moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Choice {
    /// In proportion to the moves' counts ([`BookMove::weight`]), as YaneuraOu's
    /// `BookPvMoves`-less book play does; every move equally when all counts are 0.
    #[default]
    Weighted,
    /// Every kept move equally.
    Uniform,
}

impl std::str::FromStr for Choice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "weighted" => Ok(Choice::Weighted),
            "uniform" => Ok(Choice::Uniform),
            other => Err(format!("`{other}`: give weighted or uniform")),
        }
    }
}

/// Which book moves a line may take, and how many lines to draw: `[match]`'s `book_*` keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    /// Book plies a line follows at most (a line that leaves the book earlier stops there).
    pub depth: usize,
    /// A move is taken only if its count ([`BookMove::weight`]) is at least this.
    pub min_count: u64,
    /// A move is taken only if its value (mover's view) is within ±this many centipawns; moves
    /// the book gives no value are taken.
    pub score_band: Option<i32>,
    pub choice: Choice,
    /// Distinct lines wanted (fewer when the book holds fewer).
    pub lines: usize,
    pub seed: u64,
}

/// Draws tried per line wanted before [`Book::sample`] settles for fewer distinct lines.
const DRAWS_PER_LINE: usize = 20;

/// SplitMix64: the sampler's seeded generator (small, exact, the same on every platform).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by rejection so that no value is favoured.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return x % n;
            }
        }
    }
}

impl Book {
    /// The book moves of `position` a line may take under `sampling` (count floor, score band).
    fn kept(
        cursor: &mut Cursor<'_>,
        position: &Position,
        sampling: &Sampling,
    ) -> Result<Vec<BookMove>, BookError> {
        Ok(cursor
            .entry(position)?
            .map(|e| {
                e.moves
                    .iter()
                    .filter(|m| m.weight() >= sampling.min_count)
                    .filter(|m| match (sampling.score_band, m.value) {
                        (Some(band), Some(v)) => v.abs() <= band,
                        _ => true,
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Draws distinct lines from `root` as a GUI plays from the book: at each ply one of the
    /// position's kept moves, chosen by `sampling.choice` with the seeded generator, until
    /// `sampling.depth` plies or a position without a kept move. Two draws that reach the same
    /// position (board, side to move, hands) are one line, the first kept. The same book and
    /// sampling give the same lines in the same order.
    ///
    /// # Errors
    /// [`BookError`] when `root` has no kept move (naming what was asked), or naming the line of
    /// a book move that is not legal in its position.
    pub fn sample(&self, root: &Position, sampling: &Sampling) -> Result<Vec<Position>, BookError> {
        let mut cursor = Cursor::new(self);
        if Self::kept(&mut cursor, root, sampling)?.is_empty() {
            let why = match cursor.entry(root)? {
                None => "the book has no entry for the start position".to_string(),
                Some(e) => format!(
                    "no move of the start position's entry (line {}) has a count of at least {}{}",
                    e.line,
                    sampling.min_count,
                    sampling
                        .score_band
                        .map(|b| format!(" and a value within ±{b}"))
                        .unwrap_or_default()
                ),
            };
            return Err(BookError {
                path: self.path.clone(),
                line: None,
                problem: why,
            });
        }
        let mut rng = SplitMix(sampling.seed);
        let mut lines = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..sampling.lines.saturating_mul(DRAWS_PER_LINE) {
            if lines.len() >= sampling.lines {
                break;
            }
            let mut position = root.clone();
            for _ in 0..sampling.depth {
                let kept = Self::kept(&mut cursor, &position, sampling)?;
                if kept.is_empty() {
                    break;
                }
                let total: u64 = kept.iter().map(|m| m.weight()).sum();
                let pick = match sampling.choice {
                    Choice::Weighted if total > 0 => {
                        let mut x = rng.below(total);
                        let mut at = kept.len() - 1;
                        for (i, m) in kept.iter().enumerate() {
                            if x < m.weight() {
                                at = i;
                                break;
                            }
                            x -= m.weight();
                        }
                        &kept[at]
                    }
                    _ => &kept[rng.below(kept.len() as u64) as usize],
                };
                if !position.is_legal(pick.mv) {
                    return Err(self.illegal(&position, pick));
                }
                position.play(pick.mv);
            }
            if seen.insert(key_of(&position)) {
                lines.push(position);
            }
        }
        Ok(lines)
    }

    fn illegal(&self, position: &Position, m: &BookMove) -> BookError {
        let reason = position
            .parse_usi_move(&m.mv.to_usi())
            .err()
            .map_or_else(String::new, |e| format!(": {e}"));
        BookError {
            path: self.path.clone(),
            line: Some(m.line),
            problem: format!("move `{}` is not legal in its position{reason}", m.mv),
        }
    }
}

/// A position a walk reached at its depth.
#[derive(Debug, Clone)]
pub struct BookLine {
    /// The position, with the book moves that led to it from the root (the first order found).
    pub position: Position,
    /// The chance that a player choosing book moves in proportion to their counts reaches it
    /// (each transposition added).
    pub probability: f64,
    /// The book's value of the last move, from its mover's view, when the book gives one.
    pub value: Option<i32>,
    /// The file line of the last move.
    pub line: Option<usize>,
}

/// What a walk found.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// The distinct positions at the depth, in the order found (empty when no line is that
    /// long).
    pub lines: Vec<BookLine>,
    /// The most plies any line followed.
    pub deepest: usize,
    /// Positions before the depth with no book move to take (lines that left the book).
    pub left_book: usize,
}

/// Reads a book's entries for one walk or draw: from memory, or from the file at their offsets,
/// each entry read once.
struct Cursor<'a> {
    book: &'a Book,
    file: Option<BufReader<File>>,
    /// Entries read from the file, by offset.
    read: HashMap<u64, Entry>,
}

impl<'a> Cursor<'a> {
    fn new(book: &'a Book) -> Self {
        Cursor {
            book,
            file: None,
            read: HashMap::new(),
        }
    }

    /// The entry of `position` (the first in the file for a position given twice).
    fn entry(&mut self, position: &Position) -> Result<Option<&Entry>, BookError> {
        let key = key_of(position);
        let places = match &self.book.store {
            Store::Whole { entries, index } => return Ok(index.get(&key).map(|&i| &entries[i])),
            Store::Offsets(places) => places,
        };
        let hash = hash_key(&key);
        let from = places.partition_point(|p| p.hash < hash);
        // The entries of this hash, in file order: the position's own (and, were two keys
        // ever to share a hash, the other's).
        let candidates: Vec<Place> = places[from..]
            .iter()
            .take_while(|p| p.hash == hash)
            .copied()
            .collect();
        for place in &candidates {
            if !self.read.contains_key(&place.offset) {
                let entry = self.read_at(*place)?;
                self.read.insert(place.offset, entry);
            }
        }
        Ok(candidates
            .iter()
            .filter_map(|p| self.read.get(&p.offset))
            .find(|e| e.key == key))
    }

    /// The entry whose `sfen` line starts at `place`: that line, then its move lines up to the
    /// next `sfen` line.
    fn read_at(&mut self, place: Place) -> Result<Entry, BookError> {
        let path = &self.book.path;
        let fail = |line: Option<usize>, problem: String| BookError {
            path: path.clone(),
            line,
            problem,
        };
        let io = |e: std::io::Error| fail(None, format!("cannot read: {e}"));
        let reader = match &mut self.file {
            Some(reader) => reader,
            None => self
                .file
                .insert(BufReader::new(File::open(path).map_err(io)?)),
        };
        reader.seek(SeekFrom::Start(place.offset)).map_err(io)?;
        let mut entry: Option<Entry> = None;
        let mut bytes = Vec::new();
        let mut n = place.line as usize;
        loop {
            bytes.clear();
            if reader.read_until(b'\n', &mut bytes).map_err(io)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&bytes);
            let text = clean(&text, n);
            match (classify(text), entry.as_mut()) {
                (Kind::Skip, _) => {}
                (Kind::Sfen(fields), None) => {
                    let (key, ply) = parse_sfen(fields).map_err(|p| fail(Some(n), p))?;
                    entry = Some(Entry {
                        key,
                        ply,
                        line: n,
                        moves: Vec::new(),
                    });
                }
                (Kind::Sfen(_), Some(_)) => break,
                (Kind::Move(text), Some(e)) => {
                    if let Some(m) = parse_move_line(text, n).map_err(|p| fail(Some(n), p))? {
                        e.moves.push(m);
                    }
                }
                (Kind::Move(_), None) => {
                    return Err(fail(Some(n), "the index points at no `sfen` line".into()));
                }
            }
            n += 1;
        }
        entry.ok_or_else(|| {
            fail(
                Some(place.line as usize),
                "the index points past the file".into(),
            )
        })
    }
}

/// A line without its line end (and the first line without a byte-order mark).
fn clean(line: &str, number: usize) -> &str {
    let line = line.trim_end_matches(['\n', '\r']);
    if number == 1 {
        line.trim_start_matches('\u{feff}')
    } else {
        line
    }
}

/// What a book line is, by the format's rules (those of rsshogi's reader).
enum Kind<'a> {
    /// Blank, the header, or a comment (`#`, `//`).
    Skip,
    /// `sfen ...`: an entry, with the text after `sfen `.
    Sfen(&'a str),
    /// Any other line: a move of the entry above.
    Move(&'a str),
}

fn classify(text: &str) -> Kind<'_> {
    if text.trim().is_empty() || text.starts_with("//") || text.starts_with('#') {
        Kind::Skip
    } else if let Some(fields) = text.strip_prefix("sfen ") {
        Kind::Sfen(fields)
    } else {
        Kind::Move(text)
    }
}

/// An entry's key (board, side to move, hands, normalised as a position's SFEN writes them)
/// and move number, from the text after `sfen `.
fn parse_sfen(fields: &str) -> Result<(String, Option<u32>), String> {
    let parts: Vec<&str> = fields.split_ascii_whitespace().collect();
    if parts.len() < 3 {
        return Err("DB2016 position has fewer than three SFEN fields".into());
    }
    let position = Position::from_sfen(&format!("{} {} {} 1", parts[0], parts[1], parts[2]))
        .map_err(|e| format!("invalid DB2016 SFEN: {e}"))?;
    let ply = match parts.get(3) {
        Some(p) => Some(
            p.parse()
                .map_err(|_| format!("invalid DB2016 ply `{p}`: not a whole number"))?,
        ),
        None => None,
    };
    Ok((key_of(&position), ply))
}

/// A move line as a [`BookMove`] (`None` for a `none` or `resign` move, which no walk takes),
/// or what is wrong with it.
fn parse_move_line(line: &str, number: usize) -> Result<Option<BookMove>, String> {
    if let Some(problem) = move_line_problem(line) {
        return Err(problem);
    }
    let body = line
        .split(['#'])
        .next()
        .unwrap_or("")
        .split("//")
        .next()
        .unwrap_or("");
    let mut tokens = body.split_whitespace().peekable();
    if tokens.peek() == Some(&"move") {
        tokens.next();
    }
    let tokens: Vec<&str> = tokens.collect();
    let number_at = |i: usize| {
        tokens
            .get(i)
            .filter(|t| !matches!(**t, "none" | "None"))
            .copied()
    };
    let Some(mv) = rsshogi::types::Move::from_usi(tokens[0]).filter(|m| m.is_normal()) else {
        return Ok(None);
    };
    Ok(Some(BookMove {
        mv: Move::from_rs(mv),
        value: number_at(2).and_then(|t| t.parse().ok()),
        depth: number_at(3).and_then(|t| t.parse().ok()),
        count: number_at(4).and_then(|t| t.parse().ok()),
        line: number,
    }))
}

/// Where each entry and move of the file is: rsshogi's reader reads the entries; this scan of
/// the same lines, by the same rules (blank lines and the header skipped, `#` and `//` lines
/// comments, `sfen ` lines entries, any other line a move of the entry above), gives their
/// line numbers, and marks a move line its parser would refuse so an error can name it.
#[derive(Debug, Default)]
struct LineMap {
    entries: Vec<EntryLines>,
    /// The first move line before any `sfen` line.
    orphan: Option<usize>,
    /// The file's last line.
    last: usize,
}

#[derive(Debug)]
struct EntryLines {
    sfen: usize,
    /// Each move line, and what is wrong with it (`None`: it reads).
    moves: Vec<(usize, Option<String>)>,
}

impl LineMap {
    fn scan(path: &Path) -> std::io::Result<Self> {
        let mut map = LineMap::default();
        let reader = BufReader::new(File::open(path)?);
        for (i, line) in reader.split(b'\n').enumerate() {
            let bytes = line?;
            let n = i + 1;
            map.last = n;
            let text = String::from_utf8_lossy(&bytes);
            match classify(clean(&text, n)) {
                Kind::Skip => {}
                Kind::Sfen(_) => map.entries.push(EntryLines {
                    sfen: n,
                    moves: Vec::new(),
                }),
                Kind::Move(text) => match map.entries.last_mut() {
                    Some(e) => e.moves.push((n, move_line_problem(text))),
                    None => {
                        map.orphan.get_or_insert(n);
                    }
                },
            }
        }
        Ok(map)
    }
}

/// The DB2016 fields of a move line, in order.
const FIELDS: [&str; 5] = ["move", "ponder move", "value", "depth", "count"];

/// What rsshogi's move-line parser refuses in `line`, naming the DB2016 field at fault (its
/// reader says only "invalid DB2016 numeric field"), or `None` for a line it takes: `[move]
/// MOVE [PONDER [VALUE [DEPTH [COUNT]]]]`, each move USI, `none` or `resign`, each number an
/// integer or `none`, a comment (`#`, `//`) ending the line.
fn move_line_problem(line: &str) -> Option<String> {
    let body = line
        .split(['#'])
        .next()
        .unwrap_or("")
        .split("//")
        .next()
        .unwrap_or("");
    let mut tokens: Vec<&str> = body.split_whitespace().collect();
    if tokens.first() == Some(&"move") {
        tokens.remove(0);
    }
    if tokens.is_empty() {
        return Some("no move (the DB2016 fields: move ponder value depth count)".into());
    }
    let is_move = |t: &str| {
        matches!(t, "none" | "None" | "resign")
            || rsshogi::types::Move::from_usi(t).is_some_and(rsshogi::types::Move::is_normal)
    };
    let none = |t: &str| matches!(t, "none" | "None");
    tokens
        .iter()
        .take(FIELDS.len())
        .enumerate()
        .find_map(|(i, t)| {
            let ok = match i {
                0 | 1 => is_move(t),
                2 => none(t) || t.parse::<i32>().is_ok(),
                3 => none(t) || t.parse::<u32>().is_ok(),
                _ => none(t) || t.parse::<u64>().is_ok(),
            };
            let kind = match i {
                0 | 1 => "a USI move, none or resign",
                2 => "a whole number of centipawns or none",
                _ => "a whole number from 0, or none",
            };
            (!ok).then(|| format!("DB2016 field {} ({}) `{t}` is not {kind}", i + 1, FIELDS[i]))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("council-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp folder");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write book");
        path
    }

    const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";
    const AFTER_76: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w -";
    const AFTER_26: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w -";

    fn small() -> String {
        format!(
            "{HEADER}\n\
             sfen {START} 1\n\
             7g7f 3c3d 30 20 3\n\
             // a comment on 2g2f\n\
             2g2f 8c8d 40 20 1\n\
             \n\
             sfen {AFTER_76} 2\n\
             3c3d none -30 18 5 #the main line\n\
             8c8d none -10 18 0\n\
             sfen {AFTER_26} 2\n\
             8c8d 7g7f -45 18 2\n"
        )
    }

    #[test]
    fn a_book_reads_back_entry_for_entry_with_its_lines() {
        let path = write("small.db", &small());
        assert!(is_book(&path));
        let book = Book::read(&path).expect("reads");
        let entries = book.entries().expect("read whole");
        let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, vec![START, AFTER_76, AFTER_26]);
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 7, 10]);
        let first = &entries[0];
        assert_eq!(first.moves.len(), 2);
        assert_eq!(
            (first.moves[1].mv.to_usi(), first.moves[1].line),
            ("2g2f".to_string(), 5)
        );
        assert_eq!(
            (
                first.moves[0].value,
                first.moves[0].depth,
                first.moves[0].count
            ),
            (Some(30), Some(20), Some(3))
        );
        assert!(book.entry(&Position::startpos()).expect("reads").is_some());
        // Opened by offsets: the same entries, read when asked for.
        let indexed = Book::open(&path).expect("opens");
        assert!(indexed.entries().is_none());
        for e in entries {
            let position = Position::from_sfen(&format!("{} 1", e.key)).expect("a position");
            assert_eq!(indexed.entry(&position).expect("reads").as_ref(), Some(e));
        }
    }

    #[test]
    fn a_walk_weighs_lines_by_count_and_merges_transpositions() {
        let path = write("walk.db", &small());
        for book in [Book::read(&path), Book::open(&path)] {
            walks_weigh_lines(&book.expect("reads"));
        }
    }

    fn walks_weigh_lines(book: &Book) {
        let walk = book.walk(&Position::startpos(), 2, 0).expect("walks");
        assert_eq!(walk.deepest, 2);
        let got: Vec<(String, f64)> = walk
            .lines
            .iter()
            .map(|l| (l.position.to_usi_position(), l.probability))
            .collect();
        // 7g7f (3/4) then 3c3d (5/5) or 8c8d (0/5); 2g2f (1/4) then 8c8d.
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0].0, "startpos moves 7g7f 3c3d");
        assert!((got[0].1 - 0.75).abs() < 1e-12);
        assert_eq!(got[1].0, "startpos moves 7g7f 8c8d");
        assert!(got[1].1.abs() < 1e-12);
        assert!((got[2].1 - 0.25).abs() < 1e-12);
        assert_eq!(walk.lines[0].value, Some(-30));
        // A count floor of 2 drops 2g2f and 8c8d.
        let floor = book.walk(&Position::startpos(), 2, 2).expect("walks");
        assert_eq!(floor.lines.len(), 1);
        // Three plies: every line leaves the book.
        let deep = book.walk(&Position::startpos(), 3, 0).expect("walks");
        assert!(deep.lines.is_empty());
        assert_eq!(deep.deepest, 2);
    }

    #[test]
    fn a_bad_line_is_named() {
        let text = small().replace("8c8d none -10 18 0", "8c8d none -10 eighteen 0");
        let path = write("bad.db", &text);
        for err in [
            Book::read(&path).expect_err("refused"),
            Book::open(&path).expect_err("refused"),
        ] {
            assert_eq!(err.line, Some(9), "{err}");
            assert!(
                err.to_string()
                    .contains("bad.db: line 9: DB2016 field 4 (depth) `eighteen` is not"),
                "names the field: {err}"
            );
        }
        let text = small().replace(&format!("sfen {AFTER_26} 2"), "sfen xyz b - 2");
        let path = write("bad-sfen.db", &text);
        assert_eq!(Book::read(&path).expect_err("refused").line, Some(10));
        assert_eq!(Book::open(&path).expect_err("refused").line, Some(10));
        let text = small().replace("7g7f 3c3d 30 20 3", "7g7f 3c3d 30 20 -3");
        let err = Book::open(&write("bad-count.db", &text)).expect_err("refused");
        assert!(
            err.to_string()
                .contains("line 3: DB2016 field 5 (count) `-3`"),
            "{err}"
        );
    }

    fn sampling(lines: usize, seed: u64) -> Sampling {
        Sampling {
            depth: 2,
            min_count: 0,
            score_band: None,
            choice: Choice::Weighted,
            lines,
            seed,
        }
    }

    #[test]
    fn a_sample_is_seeded_distinct_and_follows_the_filters() {
        let path = write("sample.db", &small());
        for book in [Book::read(&path), Book::open(&path)] {
            samples_follow_the_filters(&book.expect("reads"));
        }
    }

    fn samples_follow_the_filters(book: &Book) {
        let root = Position::startpos();
        let lines = |s: &Sampling| -> Vec<String> {
            book.sample(&root, s)
                .expect("samples")
                .iter()
                .map(Position::to_usi_position)
                .collect()
        };
        // Weighted: 8c8d after 7g7f has count 0, so only two lines can be drawn.
        let got = lines(&sampling(5, 1));
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            vec!["startpos moves 2g2f 8c8d", "startpos moves 7g7f 3c3d"]
        );
        assert_eq!(got, lines(&sampling(5, 1)), "the same seed, the same lines");
        // Uniform reaches the count-0 move too.
        let uniform = lines(&Sampling {
            choice: Choice::Uniform,
            ..sampling(5, 1)
        });
        assert_eq!(uniform.len(), 3, "{uniform:?}");
        // A band of 40 cp drops 2g2f 8c8d (-45) at ply 2: that line stops after 2g2f.
        let banded = lines(&Sampling {
            score_band: Some(40),
            ..sampling(5, 3)
        });
        assert!(
            banded.contains(&"startpos moves 2g2f".to_string()),
            "{banded:?}"
        );
        assert!(
            !banded.iter().any(|l| l.ends_with("2g2f 8c8d")),
            "{banded:?}"
        );
        // A count floor no root move reaches is an error that says so.
        let err = book
            .sample(
                &root,
                &Sampling {
                    min_count: 10,
                    ..sampling(5, 1)
                },
            )
            .expect_err("refused");
        assert!(err.to_string().contains("count of at least 10"), "{err}");
        // Weighted by counts 3 : 1 over many seeds' first lines.
        let firsts = (0..400)
            .filter(|&seed| lines(&sampling(1, seed))[0].starts_with("startpos moves 7g7f"))
            .count();
        assert!(
            (240..=360).contains(&firsts),
            "7g7f first in {firsts} of 400"
        );
    }

    #[test]
    fn an_illegal_book_move_is_named_when_walked() {
        let text = small().replace("3c3d none -30", "3c3e none -30");
        let path = write("illegal.db", &text);
        for book in [Book::read(&path), Book::open(&path)] {
            let err = book
                .expect("reads")
                .walk(&Position::startpos(), 2, 0)
                .expect_err("refused");
            assert_eq!(err.line, Some(8), "{err}");
            assert!(err.problem.contains("3c3e"), "{err}");
        }
    }
}
