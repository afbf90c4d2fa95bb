//! `council-openings CORPUS... --ply N --band CP --out FILE`: a balanced, diverse opening suite
//! for `[match] openings` (seed 002's use: issue 22), from the positions recorded games reach
//! at ply N.
//!
//! **Why.** Engines playing from one start repeat themselves, and starts taken at random from
//! records are often already lost for one side or are the same opening many times over. A
//! suite should be level (every start scored within ±CP by a reference), spread over the
//! strategy families (相居飛車, 対抗形 by the ranging file, 相振り飛車), and not hold two starts
//! the learned distance cannot tell apart.
//!
//! **Steps.** (1) Every corpus game with at least N moves gives its position after N plies, as
//! the line `startpos moves ...` (or `sfen ... moves ...`): the game's history is kept, so the
//! position's strategy label (which reads the history) is the same wherever the line is
//! replayed. A YaneuraOu book given as an input (told by its `#YANEURAOU-DB2016` header) gives
//! every position its moves reach from the start in N plies (`engine::book::Book::walk`), after
//! the corpus games. (2) Identical positions (same board, side to move and hands) are one candidate,
//! keeping the first line in corpus order, every source game and the count. (3) The reference
//! scores each candidate once (a single-line search at the limit, `analyze::moves::root_scores`,
//! the one way the project asks an engine for a score), in centipawns **from sente's view**.
//! The reference comes in as a function from positions to scores (the binary builds it from
//! `analyze::moves`), so that learning does not depend on the analysis room above it.
//! (4) Candidates with `|score| ≤ CP` are kept. (5) They are shuffled with the seed (ChaCha8,
//! Fisher-Yates over the corpus order) and split by family; the families are taken in turn
//! (round robin, static-vs-static first, `Family`'s order), each offering its next candidate in
//! the shuffled order; a candidate at distance `< radius` of one already chosen is rejected and
//! the family offers its next; until K lines are chosen or every family is exhausted. The file
//! lists the lines in the order chosen, so any prefix of it (a match of fewer pairs than lines)
//! is balanced too.
//!
//! **The radius.** The distance is seed 002's `Σ W_i (A_i − B_i)²` with the weights of
//! `council-learn similarity` (grouping 56 or 112 as the file says). Its LP asks every FAR pair
//! (two positions of different families) to lie at least `D + 1 ≥ 1` apart, so in learned units
//! 1 is the smallest distance the weights guarantee between different openings: two positions
//! closer than 1 are nearer than the metric puts any two strategies it was taught apart, and the
//! second adds nothing. Hence the default radius 1. Without a weights file every weight is 1
//! (grouping 56): radius 1 then rejects exact attribute twins only.
//!
//! Everything but the date depends only on the inputs and the options: the reference searches
//! each position from scratch, the order is the seed's, so a rebuild is byte-identical apart
//! from the `date` lines.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::position::{Position, replay};
use engine::similarity::{self, Grouping};
use engine::strategy::{self, Family};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::similarity::{WeightsError, WeightsFile};
use council_schema::corpus::{self, CorpusError};

/// What a failed reference search gives back.
pub type SearchFailure = Box<dyn std::error::Error + Send + Sync>;

/// The sidecar's `format` field.
pub const FORMAT: &str = "council-openings";
/// The sidecar's version.
pub const VERSION: u32 = 1;
/// The default radius, in the weights' learned units (the LP's FAR margin; see the module docs).
pub const DEFAULT_RADIUS: f64 = 1.0;

/// How to build a suite.
#[derive(Debug, Clone)]
pub struct OpeningsOptions {
    pub corpus: Vec<PathBuf>,
    /// The ply of each game whose position is a candidate.
    pub ply: usize,
    /// The band's half-width in centipawns (sente's view): `|score| ≤ band`.
    pub band: i32,
    /// The reference and its limit as the header names them, e.g. `built-in engine, nodes 20000`.
    pub reference: String,
    /// The target number of lines.
    pub count: usize,
    /// A `council-learn similarity` weights file; `None`: every weight 1, grouping 56.
    pub weights: Option<PathBuf>,
    /// A candidate at a distance below this from one already chosen is rejected.
    pub radius: f64,
    pub seed: u64,
    pub out: PathBuf,
    /// The command line, for the header.
    pub command: String,
}

/// Why no suite was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpeningsError {
    #[error("--band {0}: give the half-width in centipawns, above 0")]
    Band(i32),
    #[error("--count must be at least 1")]
    Count,
    #[error("--radius {0}: give a distance of 0 or more")]
    Radius(f64),
    #[error("--weights: {0}")]
    Weights(#[from] WeightsError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Book(#[from] engine::book::BookError),
    #[error("--ply {ply}: no line of {inputs} stays in the book that long")]
    BookTooShort { ply: usize, inputs: String },
    #[error("{inputs}: no games read")]
    NoGames { inputs: String },
    #[error(
        "--ply {ply}: no game of {inputs} is that long ({games} games, the longest has {longest} plies)"
    )]
    TooShort {
        ply: usize,
        inputs: String,
        games: usize,
        longest: usize,
    },
    #[error("the reference ({reference}) failed: {cause}")]
    Search {
        reference: String,
        cause: SearchFailure,
    },
    #[error("the reference gave {got} scores for {wanted} positions")]
    Scores { got: usize, wanted: usize },
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// One distinct position at the ply.
#[derive(Debug, Clone)]
struct Candidate {
    /// `startpos moves ...` of the first game (corpus order) that reached it.
    line: String,
    position: Position,
    family: Family,
    attributes: Vec<u32>,
    /// Every game that reached it, in corpus order.
    sources: Vec<String>,
}

/// One chosen line, as the sidecar gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SidecarLine {
    /// The line's number in the openings file (from 1).
    pub line_no: usize,
    pub line: String,
    /// `Family::key()`.
    pub family: String,
    /// The reference's score, centipawns from sente's view.
    pub score_cp: i32,
    /// The games that reached the position (`file:line` of the corpus), first the one whose
    /// moves the line gives.
    pub sources: Vec<String>,
}

/// The sidecar file (`FILE.json`): how the suite was built and each line's family, score and
/// sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sidecar {
    pub format: String,
    pub version: u32,
    /// The openings file, as given to `--out`.
    pub openings: String,
    pub command: String,
    pub corpus: Vec<String>,
    pub reference: String,
    pub ply: usize,
    pub band_cp: i32,
    /// The weights file, or `null` for every weight 1 (grouping 56).
    pub weights: Option<String>,
    pub grouping: String,
    pub radius: f64,
    pub seed: u64,
    pub date: String,
    pub lines: Vec<SidecarLine>,
}

/// One family's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FamilyRow {
    pub family: String,
    pub candidates: usize,
    pub inside_band: usize,
    pub chosen: usize,
    pub rejected_by_radius: usize,
}

/// What was built.
#[derive(Debug, Clone, Serialize)]
pub struct OpeningsReport {
    pub out: PathBuf,
    pub sidecar: PathBuf,
    pub games: usize,
    /// Games with at least `ply` moves.
    pub long_enough: usize,
    /// Distinct positions at the ply.
    pub candidates: usize,
    pub inside_band: usize,
    pub chosen: usize,
    pub rejected_by_radius: usize,
    pub target: usize,
    /// Per family, in `Family`'s order (families with no candidate left out).
    pub families: Vec<FamilyRow>,
    /// The reference's searches, wall time.
    pub search_wall: Duration,
    pub warnings: Vec<String>,
}

impl OpeningsReport {
    /// The closing table.
    #[must_use]
    pub fn table(&self) -> String {
        let mut text = format!(
            "games:       {} read, {} long enough\n\
             candidates:  {} distinct positions, {} inside the band (searched in {:.1} s)\n\
             chosen:      {} of {} wanted, {} rejected by the radius\n\n",
            self.games,
            self.long_enough,
            self.candidates,
            self.inside_band,
            self.search_wall.as_secs_f64(),
            self.chosen,
            self.target,
            self.rejected_by_radius,
        );
        text.push_str(&format!(
            "{:<32} {:>10} {:>11} {:>7} {:>9}\n",
            "family", "candidates", "inside band", "chosen", "rejected"
        ));
        for r in &self.families {
            text.push_str(&format!(
                "{:<32} {:>10} {:>11} {:>7} {:>9}\n",
                r.family, r.candidates, r.inside_band, r.chosen, r.rejected_by_radius
            ));
        }
        text.push_str(&format!(
            "{:<32} {:>10} {:>11} {:>7} {:>9}\n\nwritten: {} and {}\n",
            "total",
            self.candidates,
            self.inside_band,
            self.chosen,
            self.rejected_by_radius,
            self.out.display(),
            self.sidecar.display()
        ));
        text
    }
}

/// The sidecar's path: the openings file's name with `.json` appended.
#[must_use]
pub fn sidecar_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// The weights (with the grouping) the distance uses, and the header's description.
fn weights(
    options: &OpeningsOptions,
    warnings: &mut Vec<String>,
) -> Result<(Vec<f64>, Grouping, Option<String>), OpeningsError> {
    let Some(path) = &options.weights else {
        return Ok((vec![1.0; Grouping::G56.size()], Grouping::G56, None));
    };
    let file = WeightsFile::load(path)?;
    let grouping = file.grouping().map_err(|e| WeightsError::Invalid {
        path: path.clone(),
        what: e.to_string(),
    })?;
    if options.ply < file.plies.first || options.ply > file.plies.last {
        warnings.push(format!(
            "{}: learned at plies {}-{}, used at ply {}",
            path.display(),
            file.plies.first,
            file.plies.last,
            options.ply
        ));
    }
    Ok((file.weights, grouping, Some(path.display().to_string())))
}

/// The distinct positions at `ply` of the games long enough, in corpus order.
fn candidates(
    corpus: &corpus::Corpus,
    ply: usize,
    grouping: Grouping,
    from_books: Vec<(Position, String)>,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let games = corpus
        .games
        .iter()
        .filter(|g| g.moves.len() >= ply)
        .filter_map(|g| {
            let position = replay(&g.start, &g.moves[..ply]).ok()?.finish().ok()?;
            Some((position, g.source.clone()))
        });
    for (position, source) in games.chain(from_books) {
        // Board, side to move and hands: the SFEN without its move number.
        let sfen = position.to_sfen();
        let key = sfen.rsplit_once(' ').map_or(sfen.as_str(), |(k, _)| k);
        if let Some(&i) = index.get(key) {
            out[i].sources.push(source);
            continue;
        }
        index.insert(key.to_string(), out.len());
        out.push(Candidate {
            line: position.to_usi_position(),
            family: strategy::label(&position).family(),
            attributes: similarity::attributes(&position, grouping),
            sources: vec![source],
            position,
        });
    }
    out
}

/// The positions YaneuraOu books reach at `ply` from the start (every book move taken,
/// transpositions one: `engine::book::Book::walk`), each with its source: the book and the
/// line of the move that reached it.
fn book_positions(
    books: &[PathBuf],
    ply: usize,
) -> Result<Vec<(Position, String)>, engine::book::BookError> {
    let mut out = Vec::new();
    for path in books {
        let book = engine::book::Book::read(path)?;
        let walk = book.walk(&Position::startpos(), ply, 0)?;
        for l in walk.lines {
            let line = l.line.map(|n| format!(" line {n}")).unwrap_or_default();
            out.push((l.position, format!("{}{line}", path.display())));
        }
    }
    Ok(out)
}

/// The seed's permutation of `0..n` (Fisher-Yates, ChaCha8).
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    order
}

/// The greedy choice: families in turn, each offering its next candidate in the seed's order,
/// one within `radius` of a chosen one rejected. Returns the chosen (in order) and the rejected
/// count per family.
fn choose(
    pool: &[Candidate],
    inside: &[usize],
    weights: &[f64],
    radius: f64,
    count: usize,
    seed: u64,
) -> (Vec<usize>, BTreeMap<Family, usize>) {
    let mut queues: BTreeMap<Family, VecDeque<usize>> = BTreeMap::new();
    for k in shuffled(inside.len(), seed) {
        let c = inside[k];
        queues.entry(pool[c].family).or_default().push_back(c);
    }
    let mut chosen: Vec<usize> = Vec::new();
    let mut rejected: BTreeMap<Family, usize> = BTreeMap::new();
    while chosen.len() < count && queues.values().any(|q| !q.is_empty()) {
        for (family, queue) in &mut queues {
            if chosen.len() >= count {
                break;
            }
            while let Some(c) = queue.pop_front() {
                let near = chosen.iter().any(|&o| {
                    similarity::distance(weights, &pool[c].attributes, &pool[o].attributes) < radius
                });
                if near {
                    *rejected.entry(*family).or_default() += 1;
                } else {
                    chosen.push(c);
                    break;
                }
            }
        }
    }
    (chosen, rejected)
}

fn write(path: &Path, text: &str) -> Result<(), OpeningsError> {
    std::fs::write(path, text).map_err(|cause| OpeningsError::Write {
        path: path.to_path_buf(),
        cause,
    })
}

/// Reads the corpus, scores the candidates with `score` (each position's score in centipawns
/// from sente's view, in the order given), chooses the suite and writes the openings file and
/// its sidecar.
///
/// # Errors
/// [`OpeningsError`] naming the bad option or input, a reference failure or an unwritable
/// output.
pub fn run(
    options: &OpeningsOptions,
    score: impl FnOnce(&[Position]) -> Result<Vec<i32>, SearchFailure>,
) -> Result<OpeningsReport, OpeningsError> {
    if options.band <= 0 {
        return Err(OpeningsError::Band(options.band));
    }
    if options.count == 0 {
        return Err(OpeningsError::Count);
    }
    if options.radius.is_nan() || options.radius < 0.0 {
        return Err(OpeningsError::Radius(options.radius));
    }
    let mut warnings = Vec::new();
    let (weights, grouping, weights_name) = weights(options, &mut warnings)?;
    // YaneuraOu books (told by their header) give the positions their moves reach at the ply;
    // every other input is read as a corpus.
    let (books, files): (Vec<PathBuf>, Vec<PathBuf>) = options
        .corpus
        .iter()
        .cloned()
        .partition(|p| engine::book::is_book(p));
    let from_books = book_positions(&books, options.ply)?;
    let read = corpus::read(&files)?;
    warnings.extend(read.warnings.iter().map(ToString::to_string));
    let inputs = options
        .corpus
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>();
    if read.games.is_empty() && from_books.is_empty() {
        if !books.is_empty() {
            return Err(OpeningsError::BookTooShort {
                ply: options.ply,
                inputs: inputs.join(", "),
            });
        }
        return Err(OpeningsError::NoGames {
            inputs: inputs.join(", "),
        });
    }
    let long_enough = read
        .games
        .iter()
        .filter(|g| g.moves.len() >= options.ply)
        .count();
    if long_enough == 0 && from_books.is_empty() {
        return Err(OpeningsError::TooShort {
            ply: options.ply,
            inputs: inputs.join(", "),
            games: read.games.len(),
            longest: read.games.iter().map(|g| g.moves.len()).max().unwrap_or(0),
        });
    }
    let pool = candidates(&read, options.ply, grouping, from_books);
    let positions: Vec<Position> = pool.iter().map(|c| c.position.clone()).collect();
    let started = Instant::now();
    let scores = score(&positions).map_err(|cause| OpeningsError::Search {
        reference: options.reference.clone(),
        cause,
    })?;
    if scores.len() != positions.len() {
        return Err(OpeningsError::Scores {
            got: scores.len(),
            wanted: positions.len(),
        });
    }
    let search_wall = started.elapsed();
    let inside: Vec<usize> = (0..pool.len())
        .filter(|&i| scores[i].abs() <= options.band)
        .collect();
    let (chosen, rejected) = choose(
        &pool,
        &inside,
        &weights,
        options.radius,
        options.count,
        options.seed,
    );

    let mut families: Vec<FamilyRow> = Family::all()
        .into_iter()
        .map(|f| FamilyRow {
            family: f.key(),
            candidates: pool.iter().filter(|c| c.family == f).count(),
            inside_band: inside.iter().filter(|&&i| pool[i].family == f).count(),
            chosen: chosen.iter().filter(|&&i| pool[i].family == f).count(),
            rejected_by_radius: rejected.get(&f).copied().unwrap_or(0),
        })
        .collect();
    families.retain(|r| r.candidates > 0);

    let date = super::utc_now();
    let sidecar = sidecar_path(&options.out);
    let mut header = vec![
        "council openings: one start position a line, for [match] openings (docs/reference/files.md)".to_string(),
        format!("command: {}", options.command),
        format!(
            "corpus: {} ({} games, {} with at least {} plies)",
            inputs.join(" "),
            read.games.len(),
            long_enough,
            options.ply
        ),
        format!("reference: {}", options.reference),
        format!(
            "ply: {}; band: |score| <= {} cp, sente's view",
            options.ply, options.band
        ),
        format!(
            "distance: {} (grouping {grouping}); radius: {} (a position nearer than this to one chosen is skipped)",
            weights_name.as_deref().unwrap_or("every weight 1"),
            options.radius
        ),
        format!("seed: {}", options.seed),
        format!("date: {date}"),
        format!(
            "sidecar: {} (each line's family, score and source games)",
            sidecar.display()
        ),
        format!(
            "counts: {} distinct positions, {} inside the band, {} chosen, {} rejected by the radius",
            pool.len(),
            inside.len(),
            chosen.len(),
            rejected.values().sum::<usize>()
        ),
    ];
    for r in &families {
        header.push(format!(
            "family {}: {} chosen of {} inside the band",
            r.family, r.chosen, r.inside_band
        ));
    }
    let mut text = String::new();
    for h in &header {
        text.push_str("# ");
        text.push_str(h);
        text.push('\n');
    }
    let mut lines = Vec::new();
    for (k, &c) in chosen.iter().enumerate() {
        text.push_str(&pool[c].line);
        text.push('\n');
        lines.push(SidecarLine {
            line_no: header.len() + k + 1,
            line: pool[c].line.clone(),
            family: pool[c].family.key(),
            score_cp: scores[c],
            sources: pool[c].sources.clone(),
        });
    }
    let side = Sidecar {
        format: FORMAT.into(),
        version: VERSION,
        openings: options.out.display().to_string(),
        command: options.command.clone(),
        corpus: inputs,
        reference: options.reference.clone(),
        ply: options.ply,
        band_cp: options.band,
        weights: weights_name,
        grouping: grouping.to_string(),
        radius: options.radius,
        seed: options.seed,
        date,
        lines,
    };
    write(&options.out, &text)?;
    let mut json = serde_json::to_string_pretty(&side).unwrap_or_default();
    json.push('\n');
    write(&sidecar, &json)?;

    Ok(OpeningsReport {
        out: options.out.clone(),
        sidecar,
        games: read.games.len(),
        long_enough,
        candidates: pool.len(),
        inside_band: inside.len(),
        chosen: chosen.len(),
        rejected_by_radius: rejected.values().sum(),
        target: options.count,
        families,
        search_wall,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(family: Family, attributes: Vec<u32>) -> Candidate {
        Candidate {
            line: String::new(),
            position: Position::startpos(),
            family,
            attributes,
            sources: Vec::new(),
        }
    }

    #[test]
    fn the_shuffle_is_a_seeded_permutation() {
        let a = shuffled(50, 3);
        assert_eq!(a, shuffled(50, 3));
        assert_ne!(a, shuffled(50, 4));
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn families_take_turns_and_near_candidates_are_rejected() {
        let ranging = Family::RangingVsRanging;
        let fixed = Family::StaticVsStatic;
        // Three static positions, two of them twins; two ranging ones, far apart.
        let pool = vec![
            candidate(fixed, vec![0, 0]),
            candidate(fixed, vec![0, 0]),
            candidate(fixed, vec![5, 0]),
            candidate(ranging, vec![0, 9]),
            candidate(ranging, vec![9, 9]),
        ];
        let inside: Vec<usize> = (0..pool.len()).collect();
        let (chosen, rejected) = choose(&pool, &inside, &[1.0, 1.0], 1.0, 10, 1);
        // Four lines: the twin is rejected; families alternate while both have candidates.
        assert_eq!(chosen.len(), 4, "{chosen:?}");
        assert_eq!(rejected.get(&fixed), Some(&1));
        let fams: Vec<Family> = chosen.iter().map(|&c| pool[c].family).collect();
        assert_eq!(fams, vec![fixed, ranging, fixed, ranging]);
        for (i, &a) in chosen.iter().enumerate() {
            for &b in &chosen[i + 1..] {
                let d = similarity::distance(&[1.0, 1.0], &pool[a].attributes, &pool[b].attributes);
                assert!(d >= 1.0);
            }
        }
        // The target stops the choice.
        let (two, _) = choose(&pool, &inside, &[1.0, 1.0], 1.0, 2, 1);
        assert_eq!(two.len(), 2);
        assert_eq!(two[..], chosen[..2]);
    }

    #[test]
    fn the_sidecar_sits_beside_the_file() {
        assert_eq!(
            sidecar_path(Path::new("data/openings/a.txt")),
            PathBuf::from("data/openings/a.txt.json")
        );
    }
}
