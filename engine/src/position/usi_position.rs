//! The arguments of USI `position`: `startpos [moves ...]` or `sfen <4 fields> [moves ...]`.

use super::legality::MoveError;
use super::sfen::SfenError;
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

/// Where a `position` command starts.
pub(super) enum Setup {
    Startpos,
    /// The SFEN's fields joined by single spaces.
    Sfen(String),
}

/// The words of a USI `position` command, read but not yet played: where it starts and the
/// move texts after `moves`. The position itself is built by [`super::Position`], so this
/// module knows the syntax and nothing of the rules.
pub(super) fn split(line: &str) -> Result<(Setup, Vec<&str>), UsiPositionError> {
    let mut tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() == Some(&"position") {
        tokens.remove(0);
    }
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (&tokens[..], &[][..]),
    };
    let setup = match setup {
        ["startpos"] => Setup::Startpos,
        ["startpos", extra, ..] => {
            return Err(UsiPositionError::Unexpected {
                line: line.trim().into(),
                token: (*extra).into(),
            });
        }
        ["sfen", fields @ ..] => Setup::Sfen(fields.join(" ")),
        _ => {
            return Err(UsiPositionError::NoStart {
                line: line.trim().into(),
            });
        }
    };
    Ok((setup, moves.to_vec()))
}
