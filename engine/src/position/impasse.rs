//! 入玉宣言: the CSA 27-point impasse declaration, as floodgate applies it.
//!
//! The side to move may declare a win when all of: its king is in the opponent's camp (the
//! three far ranks); at least 10 of its other pieces are there; those pieces plus its pieces in
//! hand score at least 28 (sente) or 27 (gote), rook and bishop (promoted or not) 5, others 1,
//! the king not counted; its king is not in check. (Time left is the arbiter's business.)
//! rsshogi's `EnteringKingRule::Point27` computes the conditions; we report which failed.

use rsshogi::board::{DeclarationDetail, Position as RsPosition};
use rsshogi::types::EnteringKingRule;
use thiserror::Error;

/// The condition of the 27-point rule that a declaration fails (the first, in docs/reference/rules.md order).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ImpasseError {
    #[error("the king is not in the opponent's camp")]
    KingNotInCamp,
    #[error("only {have} pieces besides the king are in the opponent's camp, 10 are needed")]
    TooFewPiecesInCamp { have: u32 },
    #[error("the pieces in camp and in hand score {have} points, {need} are needed")]
    TooFewPoints { have: u32, need: u32 },
    #[error("the king is in check")]
    InCheck,
}

pub(crate) fn check(pos: &RsPosition) -> Result<(), ImpasseError> {
    let mut judged = pos.clone();
    judged.set_entering_king_rule(EnteringKingRule::Point27);
    let DeclarationDetail::PointRule {
        not_in_check,
        king_in_enemy_camp,
        pieces_in_camp,
        enough_pieces,
        points,
        required_points,
    } = judged.evaluate_declaration().detail
    else {
        unreachable!("Point27 always reports the point-rule detail")
    };
    let to_u32 = |n: i32| u32::try_from(n).unwrap_or(0);
    if !king_in_enemy_camp {
        return Err(ImpasseError::KingNotInCamp);
    }
    if !enough_pieces {
        // rsshogi counts the king among the pieces in camp.
        return Err(ImpasseError::TooFewPiecesInCamp {
            have: to_u32(pieces_in_camp - 1),
        });
    }
    if points < required_points {
        return Err(ImpasseError::TooFewPoints {
            have: to_u32(points),
            need: to_u32(required_points),
        });
    }
    if !not_in_check {
        return Err(ImpasseError::InCheck);
    }
    Ok(())
}
