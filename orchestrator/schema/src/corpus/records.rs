//! CSA and KIF files through the engine's record reader (UTF-8 or Shift_JIS). A CSA file may
//! hold several games separated by a line `/` (CSA V2.2); each is read on its own, and a game
//! that does not read is one warning, its line numbers those of the whole file.

use std::path::Path;

use engine::record::{EndReason, GameRecord};
use engine::types::Color;

use super::types::{FileGames, RawGame, Warning};
use crate::results::Winner;

pub(super) fn read_kif(path: &Path) -> FileGames {
    let mut out = FileGames::default();
    match std::fs::read(path) {
        Err(e) => out.warn(warning(path, e.to_string())),
        Ok(bytes) => match GameRecord::from_kif_bytes(&bytes) {
            Ok(rec) => out.game(raw(&rec, path.display().to_string())),
            Err(e) => out.warn(warning(path, e.to_string())),
        },
    }
    out
}

pub(super) fn read_csa(path: &Path) -> FileGames {
    let mut out = FileGames::default();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            out.warn(warning(path, e.to_string()));
            return out;
        }
    };
    let games = split_games(&bytes);
    let several = games.len() > 1;
    for (first_line, game) in games {
        // Blank lines in front keep the reader's line numbers those of the whole file. A
        // separator byte `/` never occurs inside a Shift_JIS character, so the split is safe
        // in either encoding.
        let mut text = vec![b'\n'; first_line - 1];
        text.extend_from_slice(game);
        let place = if several {
            format!("{}:{first_line}", path.display())
        } else {
            path.display().to_string()
        };
        match GameRecord::from_csa_bytes(&text) {
            Ok(rec) => out.game(raw(&rec, place)),
            Err(e) => out.warn(Warning {
                place: path.display().to_string(),
                problem: e.to_string(),
            }),
        }
    }
    out
}

/// The games of a CSA file: each with its first line number (from 1), split at lines `/`;
/// parts holding nothing but blank lines are dropped.
fn split_games(bytes: &[u8]) -> Vec<(usize, &[u8])> {
    let mut games = Vec::new();
    let mut start = 0;
    let mut first_line = 1;
    let mut line_no = 1;
    let mut pos = 0;
    while pos < bytes.len() {
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| pos + i + 1);
        if bytes[pos..end].trim_ascii() == b"/" {
            games.push((first_line, &bytes[start..pos]));
            start = end;
            first_line = line_no + 1;
        }
        pos = end;
        line_no += 1;
    }
    games.push((first_line, &bytes[start..]));
    games.retain(|(_, g)| !g.trim_ascii().is_empty());
    games
}

fn warning(path: &Path, problem: String) -> Warning {
    Warning {
        place: path.display().to_string(),
        problem,
    }
}

fn raw(rec: &GameRecord, place: String) -> RawGame {
    let (winner, reason) = match rec.end {
        None => (None, None),
        Some(end) => {
            let winner = match (end.winner, end.reason) {
                (Some(Color::Sente), _) => Some(Winner::Sente),
                (Some(Color::Gote), _) => Some(Winner::Gote),
                (None, EndReason::Abort) => None,
                (None, _) => Some(Winner::Draw),
            };
            (winner, Some(end.reason.name().to_string()))
        }
    };
    RawGame {
        place,
        start: rec.start().to_sfen(),
        moves: rec.moves().iter().map(|m| m.mv.to_usi()).collect(),
        winner,
        reason,
    }
}
