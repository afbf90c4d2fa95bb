//! How each game starts: one position (`start`), a handicap (with its giver), or the lines of
//! an openings file; each checked by the engine's own reading of it, so a game never starts
//! from a position it cannot set up.

use std::path::Path;

use super::super::raw::RawMatch;
use super::super::{ConfigError, Openings};

/// `start`, `handicap` (and `handicap_giver`) or `openings` of `[match]`: at most one.
pub(super) fn openings(path: &Path, base: &Path, m: &RawMatch) -> Result<Openings, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let chosen = [
        m.start.is_some(),
        m.handicap.is_some(),
        m.openings.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if chosen > 1 {
        return Err(err(
            "match.start/handicap/openings",
            "set at most one of them".into(),
        ));
    }
    if m.handicap_giver.is_some() && m.handicap.is_none() {
        return Err(err("match.handicap_giver", "needs match.handicap".into()));
    }
    if let Some(h) = &m.handicap {
        if let Some(g) = &m.handicap_giver
            && !m.players.contains(g)
        {
            return Err(err(
                "match.handicap_giver",
                format!("`{g}` is not one of match.players"),
            ));
        }
        check_handicap(h).map_err(|p| err("match.handicap", p.to_string()))?;
        return Ok(Openings::Handicap {
            name: h.clone(),
            giver: m.handicap_giver.clone(),
        });
    }
    let book_keys = book_keys(m);
    if let Some(file) = &m.openings {
        let full = base.join(file);
        let is_book = match m.openings_format.as_deref() {
            None => engine::book::is_book(&full),
            Some("yaneuraou-db") => true,
            Some("lines") => false,
            Some(other) => {
                return Err(err(
                    "match.openings_format",
                    format!("`{other}`: give lines or yaneuraou-db"),
                ));
            }
        };
        if !is_book {
            if let Some(key) = book_keys.first() {
                return Err(err(
                    &format!("match.{key}"),
                    format!(
                        "needs match.openings to be a YaneuraOu book; {} is a file of lines",
                        crate::config::resolved(&full).display()
                    ),
                ));
            }
            let lines = order_lines(path, openings_file(path, &full)?, m)?;
            return Ok(Openings::File { path: full, lines });
        }
        let lines = order_lines(path, book_lines(path, &full, m)?, m)?;
        return Ok(Openings::File { path: full, lines });
    }
    for (key, given) in [
        ("openings_order", m.openings_order.is_some()),
        ("openings_start", m.openings_start.is_some()),
    ] {
        if given {
            return Err(err(&format!("match.{key}"), "needs match.openings".into()));
        }
    }
    if m.openings_format.is_some() {
        return Err(err("match.openings_format", "needs match.openings".into()));
    }
    if let Some(key) = book_keys.first() {
        return Err(err(&format!("match.{key}"), "needs match.openings".into()));
    }
    let start = m.start.clone().unwrap_or_else(|| "startpos".into());
    check_start(&start).map_err(|p| err("match.start", p.to_string()))?;
    Ok(Openings::Single(start))
}

/// Default `book_depth`: YaneuraOu's own `BookMoves`.
pub const DEFAULT_BOOK_DEPTH: u64 = 16;
/// Default `book_lines`.
pub const DEFAULT_BOOK_LINES: u64 = 100;

/// The `book_*` keys given, by name.
fn book_keys(m: &RawMatch) -> Vec<&'static str> {
    [
        ("book_depth", m.book_depth.is_some()),
        ("book_min_count", m.book_min_count.is_some()),
        ("book_score_band", m.book_score_band.is_some()),
        ("book_choice", m.book_choice.is_some()),
        ("book_lines", m.book_lines.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, given)| given.then_some(k))
    .collect()
}

/// The lines a YaneuraOu book gives under the `book_*` keys: `[match] seed`'s draw
/// (`engine::book::Book::sample`) from the start position, each as `startpos moves ...`.
fn book_lines(path: &Path, full: &Path, m: &RawMatch) -> Result<Vec<String>, ConfigError> {
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    let depth = m.book_depth.unwrap_or(DEFAULT_BOOK_DEPTH);
    if depth == 0 {
        return Err(err("match.book_depth", "give 1 or more plies".into()));
    }
    let lines = m.book_lines.unwrap_or(DEFAULT_BOOK_LINES);
    if lines == 0 {
        return Err(err("match.book_lines", "give 1 or more lines".into()));
    }
    let score_band = match m.book_score_band {
        None => None,
        Some(b) if (1..=100_000).contains(&b) => i32::try_from(b).ok(),
        Some(b) => {
            return Err(err(
                "match.book_score_band",
                format!("{b}: give a half-width in centipawns from 1 to 100000"),
            ));
        }
    };
    let choice = match m.book_choice.as_deref() {
        None => engine::book::Choice::default(),
        Some(c) => c.parse().map_err(|p| err("match.book_choice", p))?,
    };
    let sampling = engine::book::Sampling {
        depth: usize::try_from(depth).unwrap_or(usize::MAX),
        min_count: m.book_min_count.unwrap_or(0),
        score_band,
        choice,
        lines: usize::try_from(lines).unwrap_or(usize::MAX),
        seed: m.seed,
    };
    let book = engine::book::Book::open(full).map_err(|e| err("match.openings", e.to_string()))?;
    let drawn = book
        .sample(&engine::position::Position::startpos(), &sampling)
        .map_err(|e| err("match.openings", e.to_string()))?;
    Ok(drawn
        .iter()
        .map(engine::position::Position::to_usi_position)
        .collect())
}

/// `openings_order` and `openings_start`, as Shogitest's `-openings order= start=`: the lines
/// shuffled by `[match] seed` when random, then the run starts from line `start` (1-based,
/// wrapping) and goes on in order.
fn order_lines(
    path: &Path,
    mut lines: Vec<String>,
    m: &RawMatch,
) -> Result<Vec<String>, ConfigError> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let err = |key: &str, problem: String| ConfigError::key(path, key, problem);
    match m.openings_order.as_deref() {
        None | Some("sequential") => {}
        Some("random") => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(m.seed);
            lines.shuffle(&mut rng);
        }
        Some(other) => {
            return Err(err(
                "match.openings_order",
                format!("`{other}`: give sequential or random"),
            ));
        }
    }
    match m.openings_start {
        None => {}
        Some(0) => {
            return Err(err(
                "match.openings_start",
                "is 1-based: give 1 or more".into(),
            ));
        }
        Some(start) => {
            let at = ((start - 1) % lines.len() as u64) as usize;
            lines.rotate_left(at);
        }
    }
    Ok(lines)
}

/// The positions of an openings file: one a line, blank lines and `#` comments skipped.
fn openings_file(path: &Path, full: &Path) -> Result<Vec<String>, ConfigError> {
    let err = |problem: String| ConfigError::key(path, "match.openings", problem);
    let text = std::fs::read_to_string(full).map_err(|e| {
        err(format!(
            "cannot read {}: {e}",
            crate::config::resolved(full).display()
        ))
    })?;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        check_start(line).map_err(|p| {
            err(format!(
                "{} line {}: {p}",
                crate::config::resolved(full).display(),
                i + 1
            ))
        })?;
        lines.push(line.to_string());
    }
    if lines.is_empty() {
        return Err(err(format!(
            "{} has no positions",
            crate::config::resolved(full).display()
        )));
    }
    Ok(lines)
}

/// A start position or handicap name the engine refuses: the text, and the engine's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}`: {problem}")]
struct BadStart {
    text: String,
    problem: String,
}

/// A start position the engine accepts: `startpos`, an SFEN (with or without the `sfen ` word),
/// either followed by `moves ...` (every move legal).
fn check_start(text: &str) -> Result<(), BadStart> {
    engine::position::Position::from_start_text(text)
        .map(|_| ())
        .map_err(|e| BadStart {
            text: text.to_owned(),
            problem: e.to_string(),
        })
}

fn check_handicap(name: &str) -> Result<(), BadStart> {
    name.parse::<engine::position::Handicap>()
        .map(|_| ())
        .map_err(|e| BadStart {
            text: name.to_owned(),
            problem: e.to_string(),
        })
}
