//! SFEN text to a validated rsshogi position, with errors that name the field or the rule.
//!
//! Parse, then validate: rsshogi turns the text into a board (syntax); we then refuse positions
//! no legal game can reach or that our rules code cannot play from: a missing or extra king,
//! more pieces than the set holds, 二歩, a piece with no further move, the side not to move in
//! check.

use crate::types::{Color, PieceKind, Square};
use rsshogi::board::{Position as RsPosition, ValidationIssue};
use thiserror::Error;

/// The fields of an SFEN, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SfenField {
    Board,
    SideToMove,
    Hands,
    MoveNumber,
}

impl std::fmt::Display for SfenField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Board => "board (field 1)",
            Self::SideToMove => "side to move (field 2)",
            Self::Hands => "pieces in hand (field 3)",
            Self::MoveNumber => "move number (field 4)",
        })
    }
}

/// Why an SFEN was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SfenError {
    #[error("SFEN `{sfen}`: missing {field}")]
    MissingField { sfen: String, field: SfenField },
    #[error("SFEN `{sfen}`: unexpected text `{extra}` after the move number")]
    TrailingText { sfen: String, extra: String },
    #[error("SFEN `{sfen}`: bad {field}: {problem}")]
    BadField {
        sfen: String,
        field: SfenField,
        problem: String,
    },
    #[error("SFEN `{sfen}`: illegal position: {rule}")]
    IllegalPosition { sfen: String, rule: PositionRule },
}

/// A rule of a well-formed starting position that an SFEN broke.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PositionRule {
    #[error("{0} has no king")]
    NoKing(Color),
    #[error("{0} has more than one king")]
    TwoKings(Color),
    #[error("{count} {kind:?} pieces on board and in hand, the set has {limit}")]
    TooManyPieces {
        kind: PieceKind,
        count: u32,
        limit: u32,
    },
    #[error("{color} has two unpromoted pawns on file {file} (nifu)")]
    DoublePawn { color: Color, file: u8 },
    #[error("{kind:?} on {square} could never move again")]
    DeadPiece { kind: PieceKind, square: Square },
    #[error("{0} is in check although it is not its move")]
    OpponentInCheck(Color),
}

/// The largest SFEN move number accepted. rsshogi counts plies in a `u16` and refuses to play
/// a move past 65535; a position must leave room for its game to go on (and for the search to
/// look ahead), so move numbers are kept more than 5000 plies below that limit.
pub const MAX_SFEN_MOVE_NUMBER: u16 = 60_000;

/// Parses and validates `sfen` (3 or 4 fields; a missing move number means 1).
pub(crate) fn parse(sfen: &str) -> Result<RsPosition, SfenError> {
    let sfen_owned = || sfen.trim().to_string();
    let fields: Vec<&str> = sfen.split_whitespace().collect();
    let field_names = [SfenField::Board, SfenField::SideToMove, SfenField::Hands];
    if fields.len() < 3 {
        return Err(SfenError::MissingField {
            sfen: sfen_owned(),
            field: field_names[fields.len()],
        });
    }
    if fields.len() > 4 {
        return Err(SfenError::TrailingText {
            sfen: sfen_owned(),
            extra: fields[4..].join(" "),
        });
    }
    let bad = |field, problem: String| SfenError::BadField {
        sfen: sfen_owned(),
        field,
        problem,
    };

    // Each field alone through rsshogi's parser, so its complaint is pinned to the field.
    rsshogi::board::parse_sfen(&format!("{} b - 1", fields[0]))
        .map_err(|e| bad(SfenField::Board, board_problem(fields[0], &e)))?;
    if !matches!(fields[1], "b" | "w") {
        return Err(bad(
            SfenField::SideToMove,
            format!("`{}` is neither `b` nor `w`", fields[1]),
        ));
    }
    rsshogi::board::parse_sfen(&format!("9/9/9/9/9/9/9/9/9 b {} 1", fields[2]))
        .map_err(|e| bad(SfenField::Hands, format!("`{}`: {e}", fields[2])))?;
    let ply = match fields.get(3) {
        None => 1,
        Some(text) => text
            .parse::<u16>()
            .ok()
            .filter(|&n| n <= MAX_SFEN_MOVE_NUMBER)
            .ok_or_else(|| {
                bad(
                    SfenField::MoveNumber,
                    format!(
                        "`{text}` is not a number from 0 to {MAX_SFEN_MOVE_NUMBER} (plies are counted \
                         up to 65535, and a game from here must have room to go on)"
                    ),
                )
            })?,
    };

    let normalized = format!("{} {} {} {ply}", fields[0], fields[1], fields[2]);
    let mut pos =
        RsPosition::from_sfen(&normalized).map_err(|e| bad(SfenField::Board, e.to_string()))?;
    validate(&pos).map_err(|rule| SfenError::IllegalPosition {
        sfen: sfen_owned(),
        rule,
    })?;
    pos.init_stack();
    Ok(pos)
}

fn board_problem(board: &str, error: &rsshogi::board::SfenError) -> String {
    use rsshogi::board::SfenError as E;
    match error {
        E::InvalidSquare => {
            format!("`{board}` does not describe 9 ranks of 9 squares separated by `/`")
        }
        E::InvalidPiece(c) => format!("`{c}` is not a piece letter"),
        other => other.to_string(),
    }
}

fn validate(pos: &RsPosition) -> Result<(), PositionRule> {
    use rsshogi::types::HandPiece;
    if let Some(issue) = pos.validate_all().into_issues().into_iter().next() {
        return Err(match issue {
            ValidationIssue::NoKing(c) => PositionRule::NoKing(Color::from_rs(c)),
            ValidationIssue::TwoKings(c) => PositionRule::TwoKings(Color::from_rs(c)),
            ValidationIssue::DoublePawn(file, c) => PositionRule::DoublePawn {
                color: Color::from_rs(c),
                file: u8::try_from(file.raw() + 1).unwrap_or(0),
            },
            ValidationIssue::ExcessivePieceCount {
                piece,
                count,
                limit,
            } => PositionRule::TooManyPieces {
                kind: kind_of(piece),
                count,
                limit,
            },
            ValidationIssue::InvalidHandCount { piece, count } => {
                let limit = [18, 4, 4, 4, 2, 2, 4][piece.to_index().min(HandPiece::COUNT - 1)];
                PositionRule::TooManyPieces {
                    kind: kind_of(piece.to_piece_type()),
                    count,
                    limit,
                }
            }
            ValidationIssue::InvalidPlacement(sq, pt) => PositionRule::DeadPiece {
                kind: kind_of(pt),
                square: Square::from_rs(sq).unwrap_or_else(|| unreachable!("board square")),
            },
        });
    }
    // The side that just moved must not have left its king attacked.
    let them = pos.turn().flip();
    let their_king = pos.king_square(them);
    if pos.is_attacked_by(their_king, pos.turn()) {
        return Err(PositionRule::OpponentInCheck(Color::from_rs(them)));
    }
    Ok(())
}

fn kind_of(pt: rsshogi::types::PieceType) -> PieceKind {
    PieceKind::from_rs(pt).unwrap_or(PieceKind::King)
}
