//! The arguments of USI `position`: `startpos [moves ...]` or `sfen <4 fields> [moves ...]`.

use super::{MoveError, Position, SfenError};
use thiserror::Error;

/// Why a USI `position` command could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UsiPositionError {
    #[error("position `{line}`: expected `startpos` or `sfen <sfen>`")]
    NoStart { line: String },
    #[error("position `{line}`: unexpected `{token}` (expected `moves`)")]
    Unexpected { line: String, token: String },
    #[error("position command: {0}")]
    Sfen(#[from] SfenError),
    #[error("position command, move {number} `{text}`: {error}")]
    Move {
        number: usize,
        text: String,
        error: MoveError,
    },
}

/// A start text as the arguments of USI `position`: `startpos ...` and `sfen ...` as they are, a
/// bare SFEN with `sfen ` in front.
pub(super) fn usi_arguments(text: &str) -> String {
    let text = text.trim();
    let text = text.strip_prefix("position ").unwrap_or(text).trim();
    if text.starts_with("startpos") || text.starts_with("sfen ") {
        text.to_string()
    } else {
        format!("sfen {text}")
    }
}

pub(super) fn parse(line: &str) -> Result<Position, UsiPositionError> {
    let mut tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() == Some(&"position") {
        tokens.remove(0);
    }
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (&tokens[..], &[][..]),
    };
    let mut pos = match setup {
        ["startpos"] => Position::startpos(),
        ["startpos", extra, ..] => {
            return Err(UsiPositionError::Unexpected {
                line: line.trim().into(),
                token: (*extra).into(),
            });
        }
        ["sfen", fields @ ..] => Position::from_sfen(&fields.join(" "))?,
        _ => {
            return Err(UsiPositionError::NoStart {
                line: line.trim().into(),
            });
        }
    };
    for (i, text) in moves.iter().enumerate() {
        let mv = pos
            .parse_usi_move(text)
            .map_err(|error| UsiPositionError::Move {
                number: i + 1,
                text: (*text).to_string(),
                error,
            })?;
        pos.play(mv);
    }
    Ok(pos)
}
