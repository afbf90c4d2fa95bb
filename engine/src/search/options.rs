//! The engine's tunable numbers: evaluation weights and search knobs as named integer options.
//!
//! Why: a tuner (council-tune, or any SPSA tool speaking USI) tunes what an engine declares as
//! `spin` options. [`TUNABLES`] is the one table of them (name, default, range, what each
//! sets): the USI front end declares its rows as `option ... type spin` lines and the
//! orchestrator's in-process player takes the same names as keys, so both read this table.
//!
//! Names: `Eval_<Piece>` is a piece's value on the board (centipawns), `Eval_Hand<Piece>` the
//! value of the first piece of a kind in hand (the further ones keep their difference to it),
//! `Eval_Tempo` the side to move's bonus; `Eval_<Group>Scale` multiplies a group of positional
//! weights by a percentage; `Search_<Knob>` is a margin, depth or reduction of the search
//! (`engine/src/search/alphabeta.rs`). Exchange evaluation (SEE, move ordering, delta pruning)
//! keeps the hand-set piece values: the options change what the evaluation says, not how
//! captures are sorted.
//!
//! Invariant: with every option at its default the weights are exactly the hand-set ones and
//! the knobs exactly the constants the search had before, so the search is unchanged.

use crate::eval::EvalWeights;
use crate::eval::features::{
    BOARD, COUNT, HAND, HANGING, MOBILITY, OWN_KING, PAWN_THREAT, RANK, TEMPO, ZONE_ATTACK,
};

/// What an option sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One evaluation weight (by feature number) takes the value.
    Weight(usize),
    /// The four hand weights of a kind from this feature on move by (value − default).
    HandShift(usize),
    /// The weights of features `start..end` are multiplied by value / 100 (rounded).
    Scale(usize, usize),
    /// A search knob.
    Knob(Knob),
}

/// The search's tunable numbers (see [`SearchKnobs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    RfpDepth,
    RfpMargin,
    NullMinDepth,
    NullBase,
    NullDepthDiv,
    NullEvalDiv,
    NullStaticMargin,
    ProbCutDepth,
    ProbCutMargin,
    FutilityDepth,
    FutilityBase,
    FutilityMargin,
    LmpDepth,
    SeeQuietMargin,
    SeeTacticalMargin,
    QsDeltaMargin,
    LmrBase,
    LmrDivisor,
}

/// One option: its USI name, default, range and what it sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub target: Target,
    /// One line for the docs and `council-engine options`.
    pub doc: &'static str,
}

const fn piece(name: &'static str, raw: usize, doc: &'static str) -> Tunable {
    let default = EvalWeights::default_weight(BOARD + raw);
    Tunable {
        name,
        default,
        min: 0,
        max: 4000,
        target: Target::Weight(BOARD + raw),
        doc,
    }
}

const fn hand(name: &'static str, index: usize, doc: &'static str) -> Tunable {
    let first = HAND + index * 4;
    Tunable {
        name,
        default: EvalWeights::default_weight(first),
        min: 0,
        max: 4000,
        target: Target::HandShift(first),
        doc,
    }
}

const fn scale(name: &'static str, start: usize, end: usize, doc: &'static str) -> Tunable {
    Tunable {
        name,
        default: 100,
        min: 0,
        max: 400,
        target: Target::Scale(start, end),
        doc,
    }
}

const fn knob(
    name: &'static str,
    knob: Knob,
    default: i32,
    min: i32,
    max: i32,
    doc: &'static str,
) -> Tunable {
    Tunable {
        name,
        default,
        min,
        max,
        target: Target::Knob(knob),
        doc,
    }
}

/// Every tunable option of the engine, in the order `usi` lists them.
pub const TUNABLES: &[Tunable] = &[
    piece("Eval_Pawn", 1, "pawn on the board, cp"),
    piece("Eval_Lance", 2, "lance on the board, cp"),
    piece("Eval_Knight", 3, "knight on the board, cp"),
    piece("Eval_Silver", 4, "silver on the board, cp"),
    piece("Eval_Gold", 7, "gold on the board, cp"),
    piece("Eval_Bishop", 5, "bishop on the board, cp"),
    piece("Eval_Rook", 6, "rook on the board, cp"),
    piece("Eval_ProPawn", 9, "promoted pawn (tokin), cp"),
    piece("Eval_ProLance", 10, "promoted lance, cp"),
    piece("Eval_ProKnight", 11, "promoted knight, cp"),
    piece("Eval_ProSilver", 12, "promoted silver, cp"),
    piece("Eval_Horse", 13, "horse (promoted bishop), cp"),
    piece("Eval_Dragon", 14, "dragon (promoted rook), cp"),
    hand(
        "Eval_HandPawn",
        0,
        "first pawn in hand, cp (further ones keep their offset)",
    ),
    hand("Eval_HandLance", 1, "first lance in hand, cp"),
    hand("Eval_HandKnight", 2, "first knight in hand, cp"),
    hand("Eval_HandSilver", 3, "first silver in hand, cp"),
    hand("Eval_HandBishop", 4, "first bishop in hand, cp"),
    hand("Eval_HandRook", 5, "first rook in hand, cp"),
    hand("Eval_HandGold", 6, "first gold in hand, cp"),
    Tunable {
        name: "Eval_Tempo",
        default: EvalWeights::default_weight(TEMPO),
        min: 0,
        max: 200,
        target: Target::Weight(TEMPO),
        doc: "bonus of the side to move, cp",
    },
    scale(
        "Eval_PieceSquareScale",
        RANK,
        OWN_KING,
        "rank and file terms, percent",
    ),
    scale(
        "Eval_KingDistanceScale",
        OWN_KING,
        MOBILITY,
        "distance to both kings, percent",
    ),
    scale("Eval_MobilityScale", MOBILITY, TEMPO, "mobility, percent"),
    scale(
        "Eval_KingDangerScale",
        ZONE_ATTACK,
        HANGING,
        "king danger units, percent",
    ),
    scale(
        "Eval_HangingScale",
        HANGING,
        PAWN_THREAT,
        "undefended attacked pieces, percent",
    ),
    scale(
        "Eval_PawnThreatScale",
        PAWN_THREAT,
        COUNT,
        "pieces attacked by pawns, percent",
    ),
    knob(
        "Search_RfpDepth",
        Knob::RfpDepth,
        6,
        0,
        20,
        "reverse futility up to this depth",
    ),
    knob(
        "Search_RfpMargin",
        Knob::RfpMargin,
        110,
        0,
        1000,
        "reverse futility margin per ply, cp",
    ),
    knob(
        "Search_NullMinDepth",
        Knob::NullMinDepth,
        3,
        1,
        20,
        "null move from this depth",
    ),
    knob(
        "Search_NullBase",
        Knob::NullBase,
        3,
        1,
        10,
        "null-move reduction, plies",
    ),
    knob(
        "Search_NullDepthDiv",
        Knob::NullDepthDiv,
        4,
        1,
        16,
        "one more ply of reduction per this much depth",
    ),
    knob(
        "Search_NullEvalDiv",
        Knob::NullEvalDiv,
        200,
        1,
        2000,
        "one more ply per this much eval above beta (up to 3), cp",
    ),
    knob(
        "Search_NullStaticMargin",
        Knob::NullStaticMargin,
        20,
        0,
        1000,
        "null move only when the static eval is at least beta minus this, cp",
    ),
    knob(
        "Search_ProbCutDepth",
        Knob::ProbCutDepth,
        5,
        2,
        30,
        "ProbCut from this depth",
    ),
    knob(
        "Search_ProbCutMargin",
        Knob::ProbCutMargin,
        180,
        0,
        2000,
        "ProbCut margin over beta, cp",
    ),
    knob(
        "Search_FutilityDepth",
        Knob::FutilityDepth,
        5,
        0,
        20,
        "futility pruning of quiet moves up to this depth",
    ),
    knob(
        "Search_FutilityBase",
        Knob::FutilityBase,
        90,
        0,
        1000,
        "futility margin, constant part, cp",
    ),
    knob(
        "Search_FutilityMargin",
        Knob::FutilityMargin,
        110,
        0,
        1000,
        "futility margin per ply, cp",
    ),
    knob(
        "Search_LmpDepth",
        Knob::LmpDepth,
        5,
        0,
        20,
        "late-move pruning up to this depth",
    ),
    knob(
        "Search_SeeQuietMargin",
        Knob::SeeQuietMargin,
        40,
        0,
        1000,
        "quiet moves losing more than this times depth² in exchange are pruned, cp",
    ),
    knob(
        "Search_SeeTacticalMargin",
        Knob::SeeTacticalMargin,
        120,
        0,
        2000,
        "captures losing more than this times depth are pruned, cp",
    ),
    knob(
        "Search_QsDeltaMargin",
        Knob::QsDeltaMargin,
        250,
        0,
        3000,
        "quiescence delta-pruning margin, cp",
    ),
    knob(
        "Search_LmrBase",
        Knob::LmrBase,
        60,
        0,
        300,
        "late-move reduction = base/100 + ln(depth)·ln(moves)/(divisor/100)",
    ),
    knob(
        "Search_LmrDivisor",
        Knob::LmrDivisor,
        220,
        50,
        1000,
        "late-move reduction divisor, hundredths",
    ),
];

/// A bad option name or value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TuningError {
    #[error("unknown option `{0}` (the engine's tunable options are listed by `usi`)")]
    Unknown(String),
    #[error("option `{name}`: {value} is outside [{min}, {max}]")]
    OutOfRange {
        name: String,
        value: i64,
        min: i32,
        max: i32,
    },
}

/// The row of `name` (USI option names are case-insensitive).
#[must_use]
pub fn find(name: &str) -> Option<(usize, &'static Tunable)> {
    TUNABLES
        .iter()
        .enumerate()
        .find(|(_, t)| t.name.eq_ignore_ascii_case(name))
}

/// The values of all [`TUNABLES`] (defaults until set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    values: Vec<i32>,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            values: TUNABLES.iter().map(|t| t.default).collect(),
        }
    }
}

impl Tuning {
    /// Sets option `name` to `value`, refused when unknown or outside its range.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), TuningError> {
        let (i, t) = find(name).ok_or_else(|| TuningError::Unknown(name.to_string()))?;
        if value < i64::from(t.min) || value > i64::from(t.max) {
            return Err(TuningError::OutOfRange {
                name: t.name.to_string(),
                value,
                min: t.min,
                max: t.max,
            });
        }
        self.values[i] = value as i32;
        Ok(())
    }

    /// The value of option `name`, if it is one.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<i32> {
        find(name).map(|(i, _)| self.values[i])
    }

    /// The evaluation weights these values make.
    #[must_use]
    pub fn eval_weights(&self) -> EvalWeights {
        let mut w = *EvalWeights::DEFAULT.weights();
        for (t, &v) in TUNABLES.iter().zip(&self.values) {
            match t.target {
                Target::Weight(i) => w[i] = v,
                Target::HandShift(first) => {
                    for x in &mut w[first..first + 4] {
                        *x += v - t.default;
                    }
                }
                Target::Scale(start, end) => {
                    for x in &mut w[start..end] {
                        *x = (f64::from(*x) * f64::from(v) / 100.0).round() as i32;
                    }
                }
                Target::Knob(_) => {}
            }
        }
        EvalWeights::new(w)
    }

    /// The search knobs these values make.
    #[must_use]
    pub(crate) fn knobs(&self) -> SearchKnobs {
        let mut k = SearchKnobs::default();
        for (t, &v) in TUNABLES.iter().zip(&self.values) {
            if let Target::Knob(knob) = t.target {
                *k.slot(knob) = v;
            }
        }
        k.lmr = lmr_table(k.lmr_base, k.lmr_divisor);
        k
    }
}

/// The search's knobs as numbers (defaults: the table's).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SearchKnobs {
    pub rfp_depth: i32,
    pub rfp_margin: i32,
    pub null_min_depth: i32,
    pub null_base: i32,
    pub null_depth_div: i32,
    pub null_eval_div: i32,
    pub null_static_margin: i32,
    pub probcut_depth: i32,
    pub probcut_margin: i32,
    pub futility_depth: i32,
    pub futility_base: i32,
    pub futility_margin: i32,
    pub lmp_depth: i32,
    pub see_quiet_margin: i32,
    pub see_tactical_margin: i32,
    pub qs_delta_margin: i32,
    pub lmr_base: i32,
    pub lmr_divisor: i32,
    /// Late-move reductions by depth and move number.
    pub lmr: Box<[[i32; 64]; 64]>,
}

impl Default for SearchKnobs {
    fn default() -> Self {
        let mut k = Self {
            rfp_depth: 0,
            rfp_margin: 0,
            null_min_depth: 0,
            null_base: 0,
            null_depth_div: 1,
            null_eval_div: 1,
            null_static_margin: 0,
            probcut_depth: 0,
            probcut_margin: 0,
            futility_depth: 0,
            futility_base: 0,
            futility_margin: 0,
            lmp_depth: 0,
            see_quiet_margin: 0,
            see_tactical_margin: 0,
            qs_delta_margin: 0,
            lmr_base: 0,
            lmr_divisor: 1,
            lmr: Box::new([[0; 64]; 64]),
        };
        for t in TUNABLES {
            if let Target::Knob(knob) = t.target {
                *k.slot(knob) = t.default;
            }
        }
        k.lmr = lmr_table(k.lmr_base, k.lmr_divisor);
        k
    }
}

impl SearchKnobs {
    fn slot(&mut self, knob: Knob) -> &mut i32 {
        match knob {
            Knob::RfpDepth => &mut self.rfp_depth,
            Knob::RfpMargin => &mut self.rfp_margin,
            Knob::NullMinDepth => &mut self.null_min_depth,
            Knob::NullBase => &mut self.null_base,
            Knob::NullDepthDiv => &mut self.null_depth_div,
            Knob::NullEvalDiv => &mut self.null_eval_div,
            Knob::NullStaticMargin => &mut self.null_static_margin,
            Knob::ProbCutDepth => &mut self.probcut_depth,
            Knob::ProbCutMargin => &mut self.probcut_margin,
            Knob::FutilityDepth => &mut self.futility_depth,
            Knob::FutilityBase => &mut self.futility_base,
            Knob::FutilityMargin => &mut self.futility_margin,
            Knob::LmpDepth => &mut self.lmp_depth,
            Knob::SeeQuietMargin => &mut self.see_quiet_margin,
            Knob::SeeTacticalMargin => &mut self.see_tactical_margin,
            Knob::QsDeltaMargin => &mut self.qs_delta_margin,
            Knob::LmrBase => &mut self.lmr_base,
            Knob::LmrDivisor => &mut self.lmr_divisor,
        }
    }
}

/// Reduction table for late moves, `base + ln(depth) * ln(move number) / divisor` shaped
/// (base and divisor in hundredths; 60 and 220 give 0.6 and 2.2 exactly).
fn lmr_table(base: i32, divisor: i32) -> Box<[[i32; 64]; 64]> {
    let base = f64::from(base) / 100.0;
    let divisor = f64::from(divisor.max(1)) / 100.0;
    let mut t = Box::new([[0; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base + (d as f64).ln() * (m as f64).ln() / divisor) as i32;
        }
    }
    t
}

/// What a search runs with: the evaluation weights and the knobs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tuned {
    pub eval: EvalWeights,
    pub knobs: SearchKnobs,
}

impl Tuned {
    pub(crate) fn new(tuning: &Tuning) -> Self {
        Self {
            eval: tuning.eval_weights(),
            knobs: tuning.knobs(),
        }
    }

    /// The knobs, borrowed for as long as the `Tuned` lives (not from the searcher).
    pub(crate) fn knobs_of(tuned: &Tuned) -> &SearchKnobs {
        &tuned.knobs
    }

    /// The engine's own weights and knobs.
    pub(crate) fn default_ref() -> &'static Tuned {
        static DEFAULT: std::sync::OnceLock<Tuned> = std::sync::OnceLock::new();
        DEFAULT.get_or_init(|| Tuned::new(&Tuning::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_give_the_hand_set_weights_and_the_old_lmr_table() {
        let t = Tuning::default();
        assert_eq!(t.eval_weights(), EvalWeights::DEFAULT);
        let k = t.knobs();
        for (d, row) in k.lmr.iter().enumerate().skip(1) {
            for (m, &r) in row.iter().enumerate().skip(1) {
                let old = (0.6 + (d as f64).ln() * (m as f64).ln() / 2.2) as i32;
                assert_eq!(r, old, "lmr[{d}][{m}]");
            }
        }
    }

    #[test]
    fn names_are_unique_and_defaults_in_range() {
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.name);
            assert!(
                TUNABLES[..i]
                    .iter()
                    .all(|u| !u.name.eq_ignore_ascii_case(t.name)),
                "{} twice",
                t.name
            );
        }
    }

    #[test]
    fn options_set_their_weights() {
        let mut t = Tuning::default();
        t.set("eval_silver", 100).expect("in range");
        t.set("Eval_HandPawn", 115).expect("in range");
        t.set("Eval_MobilityScale", 200).expect("in range");
        let w = t.eval_weights();
        let d = EvalWeights::DEFAULT;
        assert_eq!(w.weights()[BOARD + 4], 100);
        assert_eq!(w.weights()[HAND..HAND + 4], [115, 115, 115, 100]);
        for i in MOBILITY..TEMPO {
            assert_eq!(w.weights()[i], 2 * d.weights()[i]);
        }
        assert_eq!(
            t.set("Eval_Silver", -1),
            Err(TuningError::OutOfRange {
                name: "Eval_Silver".into(),
                value: -1,
                min: 0,
                max: 4000
            })
        );
        assert!(matches!(
            t.set("Eval_Queen", 1),
            Err(TuningError::Unknown(_))
        ));
    }

    /// docs/guide/engine.md lists every option as this table has it, and nothing else.
    #[test]
    fn the_engine_guide_lists_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide/engine.md");
        let text = std::fs::read_to_string(path).expect("read docs/guide/engine.md");
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("| `Eval_") || l.starts_with("| `Search_"))
            .collect();
        let want: Vec<String> = TUNABLES
            .iter()
            .map(|t| {
                format!(
                    "| `{}` | {} | {}..{} | {} |",
                    t.name, t.default, t.min, t.max, t.doc
                )
            })
            .collect();
        assert_eq!(rows, want);
    }
}
