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
    if let Some(file) = &m.openings {
        let full = base.join(file);
        let lines = openings_file(path, &full)?;
        return Ok(Openings::File { path: full, lines });
    }
    let start = m.start.clone().unwrap_or_else(|| "startpos".into());
    check_start(&start).map_err(|p| err("match.start", p.to_string()))?;
    Ok(Openings::Single(start))
}

/// The positions of an openings file: one a line, blank lines and `#` comments skipped.
fn openings_file(path: &Path, full: &Path) -> Result<Vec<String>, ConfigError> {
    let err = |problem: String| ConfigError::key(path, "match.openings", problem);
    let text = std::fs::read_to_string(full)
        .map_err(|e| err(format!("cannot read {}: {e}", full.display())))?;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        check_start(line).map_err(|p| err(format!("{} line {}: {p}", full.display(), i + 1)))?;
        lines.push(line.to_string());
    }
    if lines.is_empty() {
        return Err(err(format!("{} has no positions", full.display())));
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
