//! Positions as NNUE and value-network trainers read them: YaneuraOu's PackedSfenValue (40
//! bytes), cshogi's and Apery's HuffmanCodedPosAndEval (hcpe, 38 bytes) and YaneuraOu's plain
//! text (`learn convert_plain`), each from a [`Position`], a score, the move played and the game's
//! result.
//!
//! The packing itself is rsshogi's (`PackedSfen`, `HuffmanCodedPos`, the two 16-bit move
//! encodings, its hcpe record): this file only lays the fields out as the formats' readers
//! expect them (cshogi's `PackedSfenValue` and `HuffmanCodedPosAndEval` dtypes), little-endian.
//! Scores follow both engines' convention: centipawns clamped to ±30000 (Apery's
//! `ScoreMaxEvaluate`), a mate in `n` plies `±(32000 − n)` (`VALUE_MATE`, `ScoreMate0Ply`), so
//! every mate lies beyond every centipawn score and a faster mate scores higher.

use rsshogi::records::{HcpeGameResult, HuffmanCodedPosAndEval, encode_entry};
use rsshogi::types::AperyMove;

use crate::position::Position;
use crate::types::{Color, Move, Score};

/// Bytes of one PackedSfenValue record.
pub const PSV_BYTES: usize = 40;
/// Bytes of one hcpe record.
pub const HCPE_BYTES: usize = 38;
/// A mate at the root: the score of "mate in 0" (YaneuraOu's `VALUE_MATE`, Apery's
/// `ScoreMate0Ply`).
pub const MATE_VALUE: i32 = 32_000;
/// The largest centipawn score written (Apery's `ScoreMaxEvaluate`); larger ones are clamped.
pub const MAX_EVAL: i32 = 30_000;
/// Mates longer than this many plies are written as this long (mates of unknown length too).
const MAX_MATE_PLIES: i32 = 1_000;

/// The game's result from the side to move's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    /// PackedSfenValue's `game_result` and the plain text's `result`: 1, 0, -1.
    #[must_use]
    pub const fn signed(self) -> i8 {
        match self {
            Self::Win => 1,
            Self::Draw => 0,
            Self::Loss => -1,
        }
    }
}

/// `score` on the formats' one 16-bit scale (see the module docs).
#[must_use]
pub fn score_value(score: Score) -> i16 {
    let v = match score {
        Score::Cp(cp) => cp.clamp(-MAX_EVAL, MAX_EVAL),
        Score::Mate(n) if n > 0 => MATE_VALUE - n.min(MAX_MATE_PLIES),
        Score::Mate(n) => -(MATE_VALUE - n.saturating_abs().min(MAX_MATE_PLIES)),
    };
    // Within ±32000 by construction.
    i16::try_from(v).unwrap_or(if v > 0 { i16::MAX } else { -i16::MAX })
}

/// One position of a game, what was played there and how the game ended.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    pub position: &'a Position,
    /// The mover's score on the formats' scale ([`score_value`]).
    pub score: i16,
    /// The move played (legal in `position`).
    pub played: Move,
    pub outcome: Outcome,
}

impl Sample<'_> {
    /// The 40-byte PackedSfenValue: `sfen` (32, rsshogi's PackedSfen), `score` (i16), `move`
    /// (u16, YaneuraOu's Move16), `gamePly` (u16: the position's move number as its SFEN writes
    /// it), `game_result` (i8: 1, 0, -1 from the side to move's view), `padding` (u8, 0).
    #[must_use]
    pub fn psv(&self) -> [u8; PSV_BYTES] {
        let mut out = [0u8; PSV_BYTES];
        out[..32].copy_from_slice(self.position.raw().to_packed_sfen().as_bytes());
        out[32..34].copy_from_slice(&self.score.to_le_bytes());
        out[34..36].copy_from_slice(&self.played.to_rs().raw().to_le_bytes());
        let ply = u16::try_from(self.position.ply()).unwrap_or(u16::MAX);
        out[36..38].copy_from_slice(&ply.to_le_bytes());
        out[38] = self.outcome.signed().to_le_bytes()[0];
        out
    }

    /// The 38-byte hcpe record: `hcp` (32, rsshogi's HuffmanCodedPos), `eval` (i16),
    /// `bestMove16` (u16, Apery's and cshogi's move16), `gameResult` (u8 by colour: 0 draw,
    /// 1 sente won, 2 gote won), `dummy` (u8, 0).
    #[must_use]
    pub fn hcpe(&self) -> [u8; HCPE_BYTES] {
        let sente_won = match (self.outcome, self.position.side_to_move()) {
            (Outcome::Draw, _) => None,
            (Outcome::Win, side) => Some(side == Color::Sente),
            (Outcome::Loss, side) => Some(side == Color::Gote),
        };
        let result = match sente_won {
            None => HcpeGameResult::Draw,
            Some(true) => HcpeGameResult::BlackWin,
            Some(false) => HcpeGameResult::WhiteWin,
        };
        encode_entry(&HuffmanCodedPosAndEval::new(
            self.position.raw().to_huffman_coded_pos(),
            self.score,
            AperyMove::from_move(self.played.to_rs()),
            result,
        ))
    }

    /// YaneuraOu's plain text record, six lines: `sfen <sfen with its move number>`,
    /// `move <usi>`, `score <n>`, `ply <n>`, `result <1|0|-1>`, `e`.
    #[must_use]
    pub fn plain(&self) -> String {
        format!(
            "sfen {}\nmove {}\nscore {}\nply {}\nresult {}\ne\n",
            self.position.to_sfen(),
            self.played.to_usi(),
            self.score,
            self.position.ply(),
            self.outcome.signed()
        )
    }
}

/// The position's PackedSfen (board, hands, side to move; no move number): the 32 bytes two
/// records share exactly when they are of the same position.
#[must_use]
pub fn packed_sfen(position: &Position) -> [u8; 32] {
    *position.raw().to_packed_sfen().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &[&str]) -> Position {
        let mut p = Position::startpos();
        for m in moves {
            let mv = p.parse_usi_move(m).expect("legal");
            p.play(mv);
        }
        p
    }

    #[test]
    fn scores_keep_their_order_with_mates_beyond_every_centipawn() {
        assert_eq!(score_value(Score::Cp(35)), 35);
        assert_eq!(score_value(Score::Cp(-99_999)), -30_000);
        assert_eq!(score_value(Score::Mate(3)), 31_997);
        assert_eq!(score_value(Score::Mate(-4)), -31_996);
        assert_eq!(score_value(Score::Mate(0)), -32_000);
        assert_eq!(score_value(Score::Mate(Score::MATE_UNKNOWN)), 31_000);
        assert_eq!(score_value(Score::Mate(-Score::MATE_UNKNOWN)), -31_000);
    }

    #[test]
    fn a_psv_record_unpacks_to_its_position_and_move() {
        let p = after(&["7g7f", "3c3d", "8h2b+"]);
        let mv = p.parse_usi_move("3a2b").expect("legal");
        let s = Sample {
            position: &p,
            score: -120,
            played: mv,
            outcome: Outcome::Loss,
        };
        let bytes = s.psv();
        let mut packed = [0u8; 32];
        packed.copy_from_slice(&bytes[..32]);
        let board =
            rsshogi::board::Position::sfen_unpack(&rsshogi::board::PackedSfen::from_bytes(packed))
                .expect("unpacks");
        let without_ply = |s: &str| s.rsplit_once(' ').map(|(a, _)| a.to_string());
        assert_eq!(without_ply(&board), without_ply(&p.to_sfen()));
        assert_eq!(i16::from_le_bytes([bytes[32], bytes[33]]), -120);
        let m16 = rsshogi::types::Move::from_raw(u16::from_le_bytes([bytes[34], bytes[35]]));
        assert_eq!(Move::from_rs(m16), mv);
        assert_eq!(u16::from_le_bytes([bytes[36], bytes[37]]), 4);
        assert_eq!((bytes[38] as i8, bytes[39]), (-1, 0));
    }

    #[test]
    fn an_hcpe_record_states_the_result_by_colour() {
        // Gote to move and winning: gote won.
        let p = after(&["7g7f"]);
        let mv = p.parse_usi_move("3c3d").expect("legal");
        let s = Sample {
            position: &p,
            score: 10,
            played: mv,
            outcome: Outcome::Win,
        };
        let bytes = s.hcpe();
        assert_eq!(bytes[36], 2);
        let entry = rsshogi::records::decode_entry(&bytes).expect("decodes");
        assert_eq!(Move::from_rs(entry.best_move16.to_move()), mv);
        assert_eq!(entry.eval, 10);
        let lost = Sample {
            outcome: Outcome::Loss,
            ..s
        };
        assert_eq!(lost.hcpe()[36], 1);
    }

    #[test]
    fn the_plain_record_is_six_lines() {
        let p = after(&["7g7f"]);
        let s = Sample {
            position: &p,
            score: 0,
            played: p.parse_usi_move("3c3d").expect("legal"),
            outcome: Outcome::Draw,
        };
        let text = s.plain();
        assert_eq!(text.lines().count(), 6);
        assert!(text.starts_with(&format!("sfen {}\nmove ", p.to_sfen())));
        assert!(text.ends_with("ply 2\nresult 0\ne\n"), "{text}");
    }
}
