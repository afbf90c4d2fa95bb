//! Hand-crafted static evaluation in centipawns, from the side to move's point of view.
//!
//! Why hand-crafted: the council needs engines whose strength we control and understand; no
//! learned network ships with the project. The terms are the classic ones for shogi programs
//! before neural evaluation: material with promoted values, pieces in hand (worth more than on
//! the board, the first of a kind most), piece-square terms by rank and file, the distance of
//! each piece to both kings (defenders near our own, attackers near theirs), mobility, and
//! king danger from the attackers and defenders around each king and the attacker's hand.
//! The terms are numbered features ([`features`]) with integer weights ([`weights`]), which
//! `examples/tune_eval.rs` fits to game results (Texel's method).
//!
//! Invariants: the result is symmetric (a position and its colour-flipped mirror evaluate to
//! the same number for the side to move), deterministic, and bounded well inside the mate
//! range of the search (`|eval| < 20_000`). Evaluation noise, the strength control of the
//! council model, lives in [`noise`]: it is a pure function of (position key, seed).
//!
//! See: chessprogramming wiki "Evaluation", "King Safety" (attack units), "Mobility",
//! "Texel's Tuning Method".

pub mod features;
pub mod noise;
mod weights;

use crate::types::ByColor;
use features::{BOARD, HAND, Sink, danger_cost};
use rsshogi::board::Position;
use rsshogi::types::{Color, HandPiece, PieceType};
use weights::WEIGHTS;

use features::COUNT;

/// The evaluation's bound: static scores never reach it, so they never look like mates.
pub(crate) const EVAL_LIMIT: i32 = 20_000;

/// Value used by exchange evaluation (SEE, MVV-LVA): what capturing this piece gains.
/// A captured piece changes sides, so the swing is board value plus the captor's hand value.
#[must_use]
pub(crate) fn capture_value(pt: PieceType) -> i32 {
    let raw = pt.raw();
    if !(1..=14).contains(&raw) || raw == 8 {
        return 0;
    }
    let base = pt.demote();
    let hand = HandPiece::from_piece_type(base).map_or(0, |hp| WEIGHTS[HAND + hp.to_index() * 4]);
    WEIGHTS[BOARD + raw as usize] + hand
}

/// The weights in use, indexed by feature number (for the tuner).
#[must_use]
pub fn weights() -> &'static [i32] {
    &WEIGHTS
}

/// Static evaluation of `pos` for the side to move, in centipawns (no noise, no search).
#[must_use]
pub fn evaluate(pos: &crate::position::Position) -> i32 {
    evaluate_raw(pos.raw())
}

/// A full set of evaluation weights with the board table derived from them: the engine's own
/// ([`EvalWeights::DEFAULT`]) or one changed by the engine's options (`search::options`).
#[derive(Clone, Debug, PartialEq)]
pub struct EvalWeights {
    w: [i32; COUNT],
    /// Board, rank and file terms of each piece type on each square (its owner's view).
    piece_square: [[i32; 81]; 16],
}

impl EvalWeights {
    /// The hand-set weights of [`weights`].
    pub const DEFAULT: EvalWeights = EvalWeights::new(WEIGHTS);

    /// The weights `w`, indexed by feature number.
    #[must_use]
    pub const fn new(w: [i32; COUNT]) -> Self {
        let mut t = [[0; 81]; 16];
        let mut raw = 1;
        while raw < 15 {
            let mut sq = 0;
            while sq < 81 {
                let board = if raw == 8 { 0 } else { w[BOARD + raw] };
                t[raw][sq] = board
                    + w[features::RANK + raw * 9 + features::RANK_OF[sq]]
                    + w[features::FILE + raw * 5 + features::FILE_OF[sq]];
                sq += 1;
            }
            raw += 1;
        }
        Self { w, piece_square: t }
    }

    /// The hand-set weight of feature `i` (for tables of defaults built at compile time).
    #[must_use]
    pub const fn default_weight(i: usize) -> i32 {
        WEIGHTS[i]
    }

    /// The weights, indexed by feature number.
    #[must_use]
    pub fn weights(&self) -> &[i32; COUNT] {
        &self.w
    }
}

/// Adds up the weighted features as the walk reports them.
struct Scorer<'a> {
    weights: &'a EvalWeights,
    linear: [i32; 2],
    danger: [i32; 2],
}

impl Sink for Scorer<'_> {
    #[inline(always)]
    fn piece(&mut self, us: usize, raw: usize, rel: usize, own: usize, enemy: usize) {
        let w = &self.weights.w;
        self.linear[us] += self.weights.piece_square[raw][rel];
        if raw != 8 {
            self.linear[us] +=
                w[features::OWN_KING + raw * 9 + own] + w[features::ENEMY_KING + raw * 9 + enemy];
        }
    }

    #[inline(always)]
    fn linear(&mut self, us: usize, feature: usize, count: i32) {
        self.linear[us] += self.weights.w[feature] * count;
    }

    #[inline(always)]
    fn danger(&mut self, king: usize, feature: usize, count: i32) {
        self.danger[king] += self.weights.w[feature] * count;
    }
}

/// [`evaluate`] on the inner rsshogi position, for the search.
#[must_use]
pub(crate) fn evaluate_raw(pos: &Position) -> i32 {
    evaluate_with(pos, &EvalWeights::DEFAULT)
}

/// [`evaluate_raw`] under other weights.
#[must_use]
pub(crate) fn evaluate_with(pos: &Position, weights: &EvalWeights) -> i32 {
    let mut scorer = Scorer {
        weights,
        linear: [0; 2],
        danger: [0; 2],
    };
    features::walk(pos, &mut scorer);
    let sente = (scorer.linear[0] - danger_cost(scorer.danger[0]))
        - (scorer.linear[1] - danger_cost(scorer.danger[1]));
    let stm = if pos.turn() == Color::BLACK {
        sente
    } else {
        -sente
    };
    stm.clamp(-EVAL_LIMIT + 1, EVAL_LIMIT - 1)
}

/// The features of one position, as the tuner needs them: linear counts net of colour (Sente's
/// minus Gote's) and each king's danger terms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeatureVector {
    /// (feature, Sente's count minus Gote's), each feature once.
    pub linear: Vec<(u16, i16)>,
    /// The danger terms of each side's king: (feature, count), each feature once.
    pub danger: ByColor<Vec<(u16, i16)>>,
}

impl FeatureVector {
    /// The evaluation from Sente's point of view under `weights` (unclamped; the engine's
    /// [`evaluate`] is this under [`weights`], for the side to move and clamped).
    #[must_use]
    pub fn sente_eval(&self, weights: &[f64]) -> f64 {
        let linear: f64 = self
            .linear
            .iter()
            .map(|&(f, c)| weights[usize::from(f)] * f64::from(c))
            .sum();
        let cost = |terms: &[(u16, i16)]| {
            let d: f64 = terms
                .iter()
                .map(|&(f, c)| weights[usize::from(f)] * f64::from(c))
                .sum();
            danger_cost_f64(d)
        };
        linear - cost(&self.danger.sente) + cost(&self.danger.gote)
    }
}

/// [`features::danger_cost`] on reals (for fitting).
#[must_use]
pub fn danger_cost_f64(danger: f64) -> f64 {
    let d = danger.max(0.0);
    (d * d).min(f64::from(features::DANGER_CAP * features::DANGER_DIV))
        / f64::from(features::DANGER_DIV)
}

/// Collects features into a [`FeatureVector`].
#[derive(Default)]
struct Collector {
    linear: std::collections::BTreeMap<u16, i32>,
    danger: [std::collections::BTreeMap<u16, i32>; 2],
}

impl Sink for Collector {
    fn linear(&mut self, us: usize, feature: usize, count: i32) {
        let sign = if us == 0 { 1 } else { -1 };
        *self.linear.entry(feature as u16).or_default() += sign * count;
    }

    fn danger(&mut self, king: usize, feature: usize, count: i32) {
        *self.danger[king].entry(feature as u16).or_default() += count;
    }
}

/// The features of `pos` (for fitting the weights to game results).
#[must_use]
pub fn feature_vector(pos: &crate::position::Position) -> FeatureVector {
    let mut c = Collector::default();
    features::walk(pos.raw(), &mut c);
    let pack = |m: &std::collections::BTreeMap<u16, i32>| {
        m.iter()
            .filter(|&(_, &n)| n != 0)
            .map(|(&f, &n)| (f, n.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16))
            .collect()
    };
    FeatureVector {
        linear: pack(&c.linear),
        danger: ByColor {
            sente: pack(&c.danger[0]),
            gote: pack(&c.danger[1]),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsshogi::board::position_from_sfen;

    fn eval_sfen(sfen: &str) -> i32 {
        let pos = position_from_sfen(sfen).expect("test sfen");
        evaluate_raw(&pos)
    }

    #[test]
    fn startpos_is_near_balanced() {
        let e = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(e.abs() < 100, "startpos eval {e}");
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let sfens = [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
        ];
        for sfen in sfens {
            let pos = position_from_sfen(sfen).expect("sfen");
            let flipped = pos.to_flipped();
            assert_eq!(evaluate_raw(&pos), evaluate_raw(&flipped), "{sfen}");
        }
    }

    #[test]
    fn extra_material_is_better() {
        // Sente has an extra rook in hand.
        let more = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1");
        let even = eval_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(more > even + 800, "{more} vs {even}");
    }

    #[test]
    fn promoted_pieces_are_worth_more() {
        let board = |pt: PieceType| WEIGHTS[BOARD + pt.raw() as usize];
        assert!(board(PieceType::DRAGON) > board(PieceType::ROOK));
        assert!(board(PieceType::HORSE) > board(PieceType::BISHOP));
        assert!(board(PieceType::PRO_PAWN) > board(PieceType::PAWN));
    }

    #[test]
    fn feature_vector_gives_the_engine_evaluation() {
        let sfens = [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 124",
            "3g1k2l/5g3/2n1p1sp1/p1pP1p2p/9/P1P1P1P1P/1P1G1P3/2+r1G4/L2K3NL b BNS2Pbrslnp 81",
        ];
        let weights: Vec<f64> = WEIGHTS.iter().map(|&w| f64::from(w)).collect();
        for sfen in sfens {
            let pos = crate::position::Position::from_sfen(sfen).expect("sfen");
            let fv = feature_vector(&pos);
            let sente = fv.sente_eval(&weights);
            let stm = if pos.raw().turn() == Color::BLACK {
                sente
            } else {
                -sente
            };
            // The engine divides the danger cost in integers: at most a centipawn apart.
            let engine = f64::from(evaluate(&pos));
            assert!((engine - stm).abs() <= 1.0, "{sfen}: {engine} vs {stm}");
        }
    }

    #[test]
    fn safe_checks_are_counted_by_the_checking_piece() {
        // The safe-check features of Sente's king, as piece types.
        let checks = |sfen: &str| -> Vec<usize> {
            let pos = crate::position::Position::from_sfen(sfen).expect("sfen");
            let mut types: Vec<usize> = feature_vector(&pos)
                .danger
                .sente
                .iter()
                .map(|&(f, _)| usize::from(f))
                .filter(|f| (features::SAFE_CHECK..features::SAFE_CHECK + 16).contains(f))
                .map(|f| f - features::SAFE_CHECK)
                .collect();
            types.sort_unstable();
            types
        };
        let rook = PieceType::ROOK.raw() as usize;
        let gold = PieceType::GOLD.raw() as usize;
        // Gote holds a rook and a gold by Sente's lone king: the rook checks from afar; the
        // gold only next to the king, where the king would take it.
        assert_eq!(checks("4k4/9/9/9/9/9/9/9/4K4 b rg 1"), vec![rook]);
        // A Gote pawn on 5g supports a gold dropped on 5h.
        assert_eq!(checks("4k4/9/9/9/9/9/4p4/9/4K4 b rg 1"), vec![rook, gold]);
        // Unless a Sente silver guards 5h.
        assert_eq!(checks("4k4/9/9/9/9/9/4p4/9/4KS3 b rg 1"), vec![rook]);
        // Nothing in hand, nothing on the board to check with: no safe check.
        assert_eq!(checks("4k4/9/9/9/9/9/4p4/9/4K4 b - 1"), Vec::<usize>::new());
    }

    #[test]
    fn attacked_king_is_worse_than_safe_king() {
        // Same material: Gote's gold far away in the corner, or two squares from Sente's king.
        // Sente holds the rest (were it in Gote's hand, drop checks would max out the danger
        // of both positions).
        let safe = eval_sfen("g3k4/9/9/9/9/9/9/9/4K4 b 2R2B3G4S4N4L18P 1");
        let attacked = eval_sfen("4k4/9/9/9/9/9/4g4/9/4K4 b 2R2B3G4S4N4L18P 1");
        assert!(safe > attacked, "{safe} vs {attacked}");
    }
}
