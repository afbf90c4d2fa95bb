//! `Score`: an evaluation from the side to move's point of view, in centipawns or as a mate
//! distance in plies.
//!
//! Ordering invariant (from the mover's view): every winning mate ranks above every centipawn
//! score, which rank above every losing mate; a faster win ranks higher, a slower loss ranks
//! higher. `Mate(0)` means the side to move is mated now: the lowest score of all.

use std::cmp::Ordering;
use std::fmt;

/// An engine score, from the side to move's view. Serialized as results files store it:
/// `{"cp": 35}`, `{"mate": -4}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// Centipawns; positive is good for the side to move.
    Cp(i32),
    /// Mate in this many plies: positive when the side to move mates, negative (or zero) when it
    /// is mated. USI's `mate +` / `mate -` (length unknown) are `Mate(Score::MATE_UNKNOWN)` and
    /// `Mate(-Score::MATE_UNKNOWN)`.
    Mate(i32),
}

impl Score {
    /// Plies standing for "a mate of unknown length" (`score mate +` in USI).
    pub const MATE_UNKNOWN: i32 = i32::MAX;

    /// Centipawns standing for a mate on the single scale of [`Score::to_cp_scale`].
    pub const MATE_CP: i32 = 30000;

    /// The score on one centipawn scale, mates at its ends: `±(MATE_CP - plies)` (plies capped
    /// at 999), centipawns clamped inside `±(MATE_CP - 1000)`, so the score order is kept and
    /// any mate lies beyond any centipawn score (analysis files, resignation models).
    #[must_use]
    pub fn to_cp_scale(self) -> i32 {
        match self {
            Self::Cp(cp) => cp.clamp(-(Self::MATE_CP - 1000), Self::MATE_CP - 1000),
            Self::Mate(n) if n > 0 => Self::MATE_CP - n.min(999),
            Self::Mate(n) => -(Self::MATE_CP - n.saturating_abs().min(999)),
        }
    }

    /// Whether the side to move mates.
    #[must_use]
    pub const fn is_winning_mate(self) -> bool {
        matches!(self, Self::Mate(n) if n > 0)
    }

    /// Whether the side to move is mated.
    #[must_use]
    pub const fn is_losing_mate(self) -> bool {
        matches!(self, Self::Mate(n) if n <= 0)
    }

    /// A key whose natural order is the score order described in the module docs.
    fn rank(self) -> (u8, i64) {
        match self {
            Self::Mate(n) if n > 0 => (2, -i64::from(n)),
            Self::Cp(cp) => (1, i64::from(cp)),
            Self::Mate(n) => (0, -i64::from(n)),
        }
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// USI `score` fragment: `cp 35`, `mate 5`, `mate -4`, `mate +` / `mate -` for unknown length.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Cp(cp) => write!(f, "cp {cp}"),
            Self::Mate(Self::MATE_UNKNOWN) => f.write_str("mate +"),
            Self::Mate(n) if n == -Self::MATE_UNKNOWN => f.write_str("mate -"),
            Self::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Score::{Cp, Mate};
    use super::*;

    #[test]
    fn order_follows_the_movers_view() {
        // Worst to best.
        let ladder = [
            Mate(0),
            Mate(-1),
            Mate(-7),
            Mate(-Score::MATE_UNKNOWN),
            Cp(-30_000),
            Cp(-1),
            Cp(0),
            Cp(250),
            Cp(30_000),
            Mate(Score::MATE_UNKNOWN),
            Mate(9),
            Mate(3),
            Mate(1),
        ];
        for (i, a) in ladder.iter().enumerate() {
            for (j, b) in ladder.iter().enumerate() {
                assert_eq!(a.cmp(b), i.cmp(&j), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn serialized_as_results_files_store_it() {
        assert_eq!(serde_json::to_string(&Cp(35)).unwrap(), r#"{"cp":35}"#);
        assert_eq!(serde_json::to_string(&Mate(-4)).unwrap(), r#"{"mate":-4}"#);
        let back: Score = serde_json::from_str(r#"{"mate":5}"#).unwrap();
        assert_eq!(back, Mate(5));
    }

    #[test]
    fn display_is_the_usi_fragment() {
        assert_eq!(Cp(-12).to_string(), "cp -12");
        assert_eq!(Mate(5).to_string(), "mate 5");
        assert_eq!(Mate(-2).to_string(), "mate -2");
        assert_eq!(Mate(Score::MATE_UNKNOWN).to_string(), "mate +");
        assert_eq!(Mate(-Score::MATE_UNKNOWN).to_string(), "mate -");
        assert!(Mate(3).is_winning_mate() && Mate(0).is_losing_mate() && !Cp(0).is_losing_mate());
    }

    #[test]
    fn the_cp_scale_puts_mates_beyond_every_score_in_the_score_order() {
        assert_eq!(Mate(3).to_cp_scale(), 29997);
        assert_eq!(Mate(-4).to_cp_scale(), -29996);
        assert!(Mate(5).to_cp_scale() < Mate(3).to_cp_scale());
        assert!(Mate(-2).to_cp_scale() < Mate(-6).to_cp_scale());
        assert!(Cp(100_000).to_cp_scale() < Mate(999).to_cp_scale());
        assert!(Mate(-Score::MATE_UNKNOWN).to_cp_scale() < Cp(-100_000).to_cp_scale());
    }
}
