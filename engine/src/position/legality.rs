//! Judging a move text against a position: `MoveError` says whether the text is malformed or
//! the move illegal, and which rule it breaks.
//!
//! Legality itself is one thing only: membership in rsshogi's `LegalAll` list (every legal
//! move, including every legal non-promotion). The reasons below are diagnosis, computed only
//! after a move failed that test, so they can never make an illegal move legal.

use crate::notation::UsiMoveSyntaxError;
use crate::types::{Color, PieceKind, Square};
use rsshogi::board::Position as RsPosition;
use rsshogi::types::{HandPiece, PieceType};
use thiserror::Error;

/// Why a move text cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MoveError {
    /// The text is not a USI move at all.
    #[error("malformed move: {0}")]
    Malformed(#[from] UsiMoveSyntaxError),
    /// Well-formed, but not legal in this position.
    #[error("illegal move `{text}`: {reason}")]
    Illegal { text: String, reason: IllegalReason },
}

impl MoveError {
    /// The rule broken, for an illegal (as opposed to malformed) move.
    #[must_use]
    pub fn illegal_reason(&self) -> Option<&IllegalReason> {
        match self {
            Self::Illegal { reason, .. } => Some(reason),
            Self::Malformed(_) => None,
        }
    }
}

/// The rule an illegal move breaks.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IllegalReason {
    #[error("there is no piece on {0}")]
    NoPieceOnSquare(Square),
    #[error("the piece on {square} belongs to {owner}, not to the side to move")]
    NotYourPiece { square: Square, owner: Color },
    #[error("{0} is occupied by one of the mover's own pieces")]
    OwnPieceOnDestination(Square),
    #[error("a {kind:?} on {from} cannot reach {to}")]
    CannotReach {
        kind: PieceKind,
        from: Square,
        to: Square,
    },
    #[error("a {0:?} cannot promote")]
    CannotPromote(PieceKind),
    #[error("promotion needs the move to start or end in the promotion zone")]
    PromotionOutsideZone,
    #[error("a {kind:?} on {to} could never move again, so it must promote")]
    MustPromote { kind: PieceKind, to: Square },
    #[error("no {0:?} in hand")]
    NotInHand(PieceKind),
    #[error("cannot drop onto occupied square {0}")]
    DropOnOccupied(Square),
    #[error("a {kind:?} dropped on {to} could never move")]
    DropWithNoFurtherMove { kind: PieceKind, to: Square },
    #[error("nifu: the side to move already has an unpromoted pawn on file {file}")]
    Nifu { file: u8 },
    #[error("uchifuzume: a pawn drop may not give checkmate")]
    PawnDropMate,
    #[error("the move leaves or puts the mover's own king in check")]
    LeavesKingInCheck,
    #[error("the game is too long: plies are counted only up to 65535")]
    PlyLimit,
    #[error("not legal in this position")]
    Other,
}

/// Explains why a well-formed move that is not in the legal list is illegal.
pub(crate) fn diagnose(pos: &RsPosition, mv: rsshogi::types::Move) -> IllegalReason {
    let us = pos.turn();
    let to = mv.to_sq();
    let to_sq = square(to);
    if let Some(pt) = mv.dropped_piece() {
        let kind = PieceKind::from_rs(pt).unwrap_or(PieceKind::Pawn);
        let in_hand = HandPiece::from_piece_type(pt).map_or(0, |hp| pos.hand(us).count(hp));
        if in_hand == 0 {
            return IllegalReason::NotInHand(kind);
        }
        if !pos.piece_on(to).is_empty() {
            return IllegalReason::DropOnOccupied(to_sq);
        }
        if is_dead_square(us, pt, to) {
            return IllegalReason::DropWithNoFurtherMove { kind, to: to_sq };
        }
        if pt == PieceType::PAWN && pos.has_pawn_on_file(us, to.file()) {
            return IllegalReason::Nifu { file: to_sq.file() };
        }
        let after = after_move(pos, None, to, rsshogi::types::Piece::from_parts(us, pt));
        if after.is_attacked_by(after.king_square(us), us.flip()) {
            return IllegalReason::LeavesKingInCheck;
        }
        if pt == PieceType::PAWN && after.is_in_check() && after.is_mated() {
            return IllegalReason::PawnDropMate;
        }
        return IllegalReason::Other;
    }

    let from = mv.from_sq();
    let from_sq = square(from);
    let piece = pos.piece_on(from);
    if piece.is_empty() {
        return IllegalReason::NoPieceOnSquare(from_sq);
    }
    if piece.color() != us {
        return IllegalReason::NotYourPiece {
            square: from_sq,
            owner: Color::from_rs(piece.color()),
        };
    }
    let pt = piece.piece_type();
    let kind = PieceKind::from_rs(pt).unwrap_or(PieceKind::King);
    let target = pos.piece_on(to);
    if !target.is_empty() && target.color() == us {
        return IllegalReason::OwnPieceOnDestination(to_sq);
    }
    if !pos.attackers_to(to, pos.pieces()).test(from) {
        return IllegalReason::CannotReach {
            kind,
            from: from_sq,
            to: to_sq,
        };
    }
    if mv.is_promotion() {
        if kind.promoted().is_none() {
            return IllegalReason::CannotPromote(kind);
        }
        if !rsshogi::types::square::is_promotable_move(us, from, to) {
            return IllegalReason::PromotionOutsideZone;
        }
    } else if is_dead_square(us, pt, to) {
        return IllegalReason::MustPromote { kind, to: to_sq };
    }
    let moved = if mv.is_promotion() {
        piece.promote()
    } else {
        piece
    };
    let after = after_move(pos, Some(from), to, moved);
    if after.is_attacked_by(after.king_square(us), us.flip()) {
        return IllegalReason::LeavesKingInCheck;
    }
    IllegalReason::Other
}

/// The position after a pseudo-legal move (one that passed the checks above), built afresh
/// from the edited board rather than by rsshogi's move application, which expects legal moves.
fn after_move(
    pos: &RsPosition,
    from: Option<rsshogi::types::Square>,
    to: rsshogi::types::Square,
    moved: rsshogi::types::Piece,
) -> RsPosition {
    let us = pos.turn();
    let mut state = rsshogi::board::generate_position_state(pos);
    let hands = &mut state.hands[us.to_index()];
    match from {
        Some(from) => {
            let captured = state.board.get(to);
            if let Some(hp) = HandPiece::from_piece_type(captured.piece_type().demote()) {
                *hands = hands.checked_add(hp, 1).unwrap_or(*hands);
            }
            state.board.set(from, rsshogi::types::Piece::NONE);
        }
        None => {
            if let Some(hp) = HandPiece::from_piece_type(moved.piece_type()) {
                *hands = hands.checked_sub(hp, 1).unwrap_or(*hands);
            }
        }
    }
    state.board.set(to, moved);
    state.side_to_move = us.flip();
    rsshogi::board::position_from_position_state(&state)
}

/// Whether a piece of this type, standing on `sq`, could never move again.
fn is_dead_square(us: rsshogi::types::Color, pt: PieceType, sq: rsshogi::types::Square) -> bool {
    // Rank index 0 is rank 1 (gote's back rank).
    let rank = sq.rank().raw();
    let distance_to_last = if us == rsshogi::types::Color::BLACK {
        rank
    } else {
        8 - rank
    };
    match pt {
        PieceType::PAWN | PieceType::LANCE => distance_to_last == 0,
        PieceType::KNIGHT => distance_to_last <= 1,
        _ => false,
    }
}

fn square(sq: rsshogi::types::Square) -> Square {
    Square::from_rs(sq).unwrap_or_else(|| unreachable!("a parsed move names board squares"))
}
