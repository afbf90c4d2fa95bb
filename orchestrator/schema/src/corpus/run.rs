//! A council-match run folder (or a `results.jsonl` given by itself) as corpus input, read
//! through the one results reader, and what its `run.json` says about how the games were
//! played (the provenance a corpus file's header keeps).
//!
//! Policy: a last line still being written (a run in progress) is left for later, a malformed
//! line is a warning naming file and line, and a line identical to one read before is the
//! same game.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::results::read::{Malformed, Policy, Repeats, ResultsReader, TornTail};

use super::types::{FileGames, RawGame, Warning};

const POLICY: Policy = Policy {
    torn_tail: TornTail::Skip,
    malformed: Malformed::Skip,
    repeats: Repeats::MergeIdenticalLines,
};

/// The results file of a run folder, or the file itself.
fn results_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.jsonl")
    } else {
        path.to_path_buf()
    }
}

pub(super) fn read(path: &Path) -> FileGames {
    let paths = [results_file(path)];
    let mut out = FileGames::default();
    let mut reader = ResultsReader::new(&paths, POLICY);
    for item in reader.by_ref() {
        match item {
            Ok(read) => {
                let game = read.game;
                out.game(RawGame {
                    place: format!("{} game {}", path.display(), game.id),
                    start: game.start,
                    moves: game.moves,
                    winner: Some(game.result),
                    reason: Some(game.reason.name().to_string()),
                });
            }
            Err(e) => out.warn(Warning {
                place: path.display().to_string(),
                problem: e.to_string(),
            }),
        }
    }
    let (_, skipped) = reader.finish();
    for s in skipped {
        out.warn(Warning {
            place: format!("{}:{}", s.path.display(), s.line),
            problem: s.message,
        });
    }
    out
}

/// What a run folder's `run.json` tells about its games, as header lines: the config file, the
/// seed, the games scheduled, and every player's table of the config (engine, command line,
/// arguments, budgets) as `key = value` pairs. `None` when `path` is not a run folder or its
/// `run.json` does not read (a bare results file has no provenance).
#[must_use]
pub fn describe(path: &Path) -> Option<Vec<String>> {
    let info = crate::run::RunInfo::read(path).ok()?;
    let mut lines = vec![format!(
        "run {}: config {}, seed {}, {} games scheduled",
        path.display(),
        info.config_file,
        info.seed,
        info.games,
    )];
    let Ok(config) = info.config_text.parse::<toml::Table>() else {
        lines.push("  (its recorded config does not read as TOML)".to_string());
        return Some(lines);
    };
    if let Some(toml::Value::Table(m)) = config.get("match") {
        lines.push(format!("  match: {}", pairs(m)));
    }
    if let Some(toml::Value::Array(players)) = config.get("player") {
        for player in players {
            if let toml::Value::Table(t) = player {
                let name = t.get("name").and_then(|v| v.as_str()).unwrap_or("?");
                let rest: toml::Table = t
                    .iter()
                    .filter(|(k, _)| k.as_str() != "name")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                lines.push(format!("  player {name}: {}", pairs(&rest)));
            }
        }
    }
    Some(lines)
}

/// A TOML table on one line: `key = value, ...` (values as TOML writes them).
fn pairs(table: &toml::Table) -> String {
    let mut text = String::new();
    for (i, (key, value)) in table.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, "{key} = {}", one_line(value));
    }
    text
}

fn one_line(value: &toml::Value) -> String {
    match value {
        toml::Value::Table(t) => format!("{{ {} }}", pairs(t)),
        toml::Value::Array(a) => format!(
            "[{}]",
            a.iter().map(one_line).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}
