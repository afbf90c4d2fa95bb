//! USI move text: `7g7f`, `8h2b+`, `P*5e`. Strict: upper-case drop letters, files `1`-`9`,
//! ranks `a`-`i`, nothing else in the token.

use crate::types::{Move, PieceKind, Square};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A syntactically valid USI move, not yet checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UsiMove {
    /// A board move.
    Normal {
        from: Square,
        to: Square,
        promote: bool,
    },
    /// A drop from hand.
    Drop { kind: PieceKind, to: Square },
}

/// Why a token is not USI move text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UsiMoveSyntaxError {
    #[error("empty move text")]
    Empty,
    #[error("`{0}` is a special word, not a move")]
    SpecialWord(String),
    #[error("`{text}`: `{letter}` is not a piece that can be dropped (use P L N S G B R)")]
    BadDropPiece { text: String, letter: char },
    #[error("`{text}`: `{square}` is not a square (files 1-9, ranks a-i)")]
    BadSquare { text: String, square: String },
    #[error("`{text}`: a move goes nowhere when origin and destination are the same square")]
    SameSquare { text: String },
    #[error("`{text}` is not USI move text (expected e.g. 7g7f, 8h2b+ or P*5e)")]
    Shape { text: String },
}

impl UsiMove {
    pub(crate) fn to_move(self) -> Move {
        match self {
            Self::Normal { from, to, promote } => Move::normal(from, to, promote),
            Self::Drop { kind, to } => Move::drop(kind, to),
        }
    }
}

impl FromStr for UsiMove {
    type Err = UsiMoveSyntaxError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let shape = || UsiMoveSyntaxError::Shape {
            text: text.to_string(),
        };
        let square = |s: &str| {
            Square::from_usi(s).ok_or_else(|| UsiMoveSyntaxError::BadSquare {
                text: text.to_string(),
                square: s.to_string(),
            })
        };
        if text.is_empty() {
            return Err(UsiMoveSyntaxError::Empty);
        }
        if matches!(text, "resign" | "win" | "none" | "null" | "0000" | "pass") {
            return Err(UsiMoveSyntaxError::SpecialWord(text.to_string()));
        }
        if !text.is_ascii() {
            return Err(shape());
        }
        let bytes = text.as_bytes();
        match bytes.len() {
            4 if bytes[1] == b'*' => {
                let kind = PieceKind::from_usi_drop_letter(bytes[0]).ok_or_else(|| {
                    UsiMoveSyntaxError::BadDropPiece {
                        text: text.to_string(),
                        letter: char::from(bytes[0]),
                    }
                })?;
                Ok(Self::Drop {
                    kind,
                    to: square(&text[2..4])?,
                })
            }
            4 | 5 => {
                let promote = match bytes.get(4) {
                    None => false,
                    Some(b'+') => true,
                    Some(_) => return Err(shape()),
                };
                let (from, to) = (square(&text[0..2])?, square(&text[2..4])?);
                if from == to {
                    return Err(UsiMoveSyntaxError::SameSquare {
                        text: text.to_string(),
                    });
                }
                Ok(Self::Normal { from, to, promote })
            }
            _ => Err(shape()),
        }
    }
}

impl fmt::Display for UsiMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_move().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_text_round_trips() {
        for text in ["7g7f", "8h2b+", "P*5e", "R*1a", "1i9a", "9a1i+", "G*9i"] {
            let mv: UsiMove = text.parse().expect(text);
            assert_eq!(mv.to_string(), text);
        }
    }

    #[test]
    fn malformed_text_names_the_problem() {
        let err = |t: &str| t.parse::<UsiMove>().expect_err(t);
        assert_eq!(err(""), UsiMoveSyntaxError::Empty);
        assert!(matches!(err("resign"), UsiMoveSyntaxError::SpecialWord(_)));
        assert!(matches!(
            err("K*5e"),
            UsiMoveSyntaxError::BadDropPiece { letter: 'K', .. }
        ));
        assert!(matches!(
            err("p*5e"),
            UsiMoveSyntaxError::BadDropPiece { letter: 'p', .. }
        ));
        assert!(matches!(err("+P*5e"), UsiMoveSyntaxError::Shape { .. }));
        assert!(matches!(err("7g7j"), UsiMoveSyntaxError::BadSquare { .. }));
        assert!(matches!(err("0g7f"), UsiMoveSyntaxError::BadSquare { .. }));
        assert!(matches!(err("7G7F"), UsiMoveSyntaxError::BadSquare { .. }));
        assert!(matches!(err("7g7g"), UsiMoveSyntaxError::SameSquare { .. }));
        assert!(matches!(err("7g7f="), UsiMoveSyntaxError::Shape { .. }));
        assert!(matches!(err("7g7f++"), UsiMoveSyntaxError::Shape { .. }));
        assert!(matches!(err("７g7f"), UsiMoveSyntaxError::Shape { .. }));
        assert!(matches!(err("P*5"), UsiMoveSyntaxError::Shape { .. }));
    }
}
