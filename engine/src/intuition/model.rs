//! Seed 003's model: the three pair-count tables, `v`, the score under the seed's settings a-f,
//! learning from game records, and the model file.
//!
//! **Counts** (models.md section 10): for every learned move `p_i`, one each of
//! `c1(p_{i-1}, p_i)`, `c2(p_{i-2}, p_i)` and `c3(p_i, p'_i)`, in both encodings (full and
//! variant f; see [`super::encoding`]). `v(a, b) = c(a, b) / Σ_k c(a, k)` (0 for a row never
//! seen). A move is learned when its position has more than five legal moves ([`MIN_LEGAL`]
//! and more) and, with [`LearnOptions::winner_only`], when the winner played it; the codes of
//! every move still serve as the previous moves of the next ones. Both sides' moves are
//! learned by default, as the seed does for professional games; winner-only is the seed's
//! general rule. A game that fails to replay is learned not at all.
//!
//! **Score** `V = w1 v1 + w2 v2 + w3 v3` with `(v1, v2, v3) = (v(p_{i-1}, p_i), v(p_{i-2}, p_i),
//! v(p_i, p'_i))`: settings a (1,1,1), b (0,0,1), c (2,1,4), d (4,2,1, the default), e
//! `Π (v + 1)`, f = the variant-f tables with d's weights.
//!
//! **Model file**: [`super::file`].

use super::encoding::{Code, Codes, EncodedMove};
use super::game::{self, GameError};
use crate::types::Color;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Positions with fewer legal moves than this are neither learned nor evaluated (the seed
/// leaves out positions with five or fewer).
pub const MIN_LEGAL: usize = 6;

/// Which encoding a table or score uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Full,
    /// The seed's setting f: attack info reduced to which side attacks more.
    F,
}

/// The seed's score settings a-f (section 3.1.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Setting {
    /// (1, 1, 1).
    A,
    /// (0, 0, 1): no time series.
    B,
    /// (2, 1, 4).
    C,
    /// (4, 2, 1): the seed's best, the default.
    #[default]
    D,
    /// The product `(v1 + 1)(v2 + 1)(v3 + 1)`.
    E,
    /// Variant-f encoding, d's weights.
    F,
}

impl Setting {
    /// All six, a first.
    pub const ALL: [Setting; 6] = [
        Setting::A,
        Setting::B,
        Setting::C,
        Setting::D,
        Setting::E,
        Setting::F,
    ];

    /// The weights `(w1, w2, w3)`, or `None` for e (a product, not a weighted sum).
    #[must_use]
    pub const fn weights(self) -> Option<[f64; 3]> {
        match self {
            Self::A => Some([1.0, 1.0, 1.0]),
            Self::B => Some([0.0, 0.0, 1.0]),
            Self::C => Some([2.0, 1.0, 4.0]),
            Self::D | Self::F => Some([4.0, 2.0, 1.0]),
            Self::E => None,
        }
    }

    /// The encoding whose tables the setting reads.
    #[must_use]
    pub const fn variant(self) -> Variant {
        match self {
            Self::F => Variant::F,
            _ => Variant::Full,
        }
    }

    /// The setting's letter, `a`..`f`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Self::A => 'a',
            Self::B => 'b',
            Self::C => 'c',
            Self::D => 'd',
            Self::E => 'e',
            Self::F => 'f',
        }
    }

    /// The score of a move whose three `v` values (in this setting's encoding) are `v`.
    #[must_use]
    pub fn score(self, v: [f64; 3]) -> f64 {
        match self.weights() {
            Some(w) => w[0] * v[0] + w[1] * v[1] + w[2] * v[2],
            None => (v[0] + 1.0) * (v[1] + 1.0) * (v[2] + 1.0),
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A setting name that is not one of `a`..`f`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown setting `{0}` (expected one of a, b, c, d, e, f)")]
pub struct UnknownSetting(pub String);

impl FromStr for Setting {
    type Err = UnknownSetting;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Setting::ALL
            .into_iter()
            .find(|set| s.len() == 1 && s.eq_ignore_ascii_case(&set.letter().to_string()))
            .ok_or_else(|| UnknownSetting(s.to_string()))
    }
}

/// One pair of codes `(a, b)` and its count.
pub type Pair = (Code, Code, u32);

/// Counts of code pairs `(a, b)` with their row sums `Σ_k c(a, k)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairTable {
    counts: HashMap<(Code, Code), u32>,
    rows: HashMap<Code, u64>,
}

impl PairTable {
    /// Counts one more `(a, b)`.
    pub fn add(&mut self, a: Code, b: Code) {
        self.add_count(a, b, 1);
    }

    pub(super) fn add_count(&mut self, a: Code, b: Code, n: u32) {
        let c = self.counts.entry((a, b)).or_insert(0);
        *c = c.saturating_add(n);
        *self.rows.entry(a).or_insert(0) += u64::from(n);
    }

    /// `c(a, b)`.
    #[must_use]
    pub fn count(&self, a: Code, b: Code) -> u32 {
        self.counts.get(&(a, b)).copied().unwrap_or(0)
    }

    /// `Σ_k c(a, k)`.
    #[must_use]
    pub fn row_sum(&self, a: Code) -> u64 {
        self.rows.get(&a).copied().unwrap_or(0)
    }

    /// `v(a, b) = c(a, b) / Σ_k c(a, k)`, 0 when row `a` was never seen.
    #[must_use]
    pub fn v(&self, a: Code, b: Code) -> f64 {
        let row = self.row_sum(a);
        if row == 0 {
            0.0
        } else {
            f64::from(self.count(a, b)) / row as f64
        }
    }

    /// How many distinct pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no pair was counted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Every pair with its count, sorted by `(a, b)`.
    #[must_use]
    pub fn sorted(&self) -> Vec<Pair> {
        let mut v: Vec<_> = self.counts.iter().map(|(&(a, b), &c)| (a, b, c)).collect();
        v.sort_unstable();
        v
    }
}

/// The three tables of one encoding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    /// `c1(p_{i-1}, p_i)`.
    pub prev1: PairTable,
    /// `c2(p_{i-2}, p_i)`.
    pub prev2: PairTable,
    /// `c3(p_i, p'_i)`.
    pub after: PairTable,
}

impl Tables {
    /// `(v(prev1, mv), v(prev2, mv), v(mv, after))`.
    #[must_use]
    pub fn values(&self, prev1: Code, prev2: Code, mv: Code, after: Code) -> [f64; 3] {
        [
            self.prev1.v(prev1, mv),
            self.prev2.v(prev2, mv),
            self.after.v(mv, after),
        ]
    }

    fn add(&mut self, prev1: Code, prev2: Code, mv: Code, after: Code) {
        self.prev1.add(prev1, mv);
        self.prev2.add(prev2, mv);
        self.after.add(mv, after);
    }

    pub(super) fn parts(&self) -> [&PairTable; 3] {
        [&self.prev1, &self.prev2, &self.after]
    }

    pub(super) fn parts_mut(&mut self) -> [&mut PairTable; 3] {
        [&mut self.prev1, &mut self.prev2, &mut self.after]
    }
}

/// How a model learns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearnOptions {
    /// Learn only the winner's moves (games without a winner then teach nothing).
    pub winner_only: bool,
}

/// Where a model's games came from (written into the model file as given).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The corpus files or runs, as the learner names them.
    #[serde(default)]
    pub corpus: Vec<String>,
    /// The seed and test share of the train/test split, when the corpus was split.
    #[serde(default)]
    pub split_seed: Option<u64>,
    #[serde(default)]
    pub test_share: Option<f64>,
    /// The command that built the model.
    #[serde(default)]
    pub command: Option<String>,
    /// Anything else worth keeping (date, corpus counts), as `key -> value`.
    #[serde(default)]
    pub notes: std::collections::BTreeMap<String, String>,
}

/// What one learned game taught.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Learned {
    /// Plies in the game.
    pub plies: usize,
    /// Moves counted into the tables.
    pub moves: usize,
}

/// The candidate model: both encodings' tables and what they were learned from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    pub provenance: Provenance,
    pub options: LearnOptions,
    /// Games learned (each successfully replayed game, whatever it taught).
    pub games: u64,
    /// Moves counted into the tables.
    pub learned_moves: u64,
    pub(super) full: Tables,
    pub(super) f: Tables,
}

impl Model {
    /// An empty model that will learn with `options`.
    #[must_use]
    pub fn new(options: LearnOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The tables of one encoding.
    #[must_use]
    pub fn tables(&self, variant: Variant) -> &Tables {
        match variant {
            Variant::Full => &self.full,
            Variant::F => &self.f,
        }
    }

    /// The three `v` values of a move in `variant`, given the previous moves' codes.
    #[must_use]
    pub fn values(
        &self,
        variant: Variant,
        prev1: Codes,
        prev2: Codes,
        mv: &EncodedMove,
    ) -> [f64; 3] {
        let pick = |c: Codes| match variant {
            Variant::Full => c.full,
            Variant::F => c.f,
        };
        self.tables(variant)
            .values(pick(prev1), pick(prev2), pick(mv.code), pick(mv.after))
    }

    /// The score of a move under `setting`.
    #[must_use]
    pub fn score(&self, setting: Setting, prev1: Codes, prev2: Codes, mv: &EncodedMove) -> f64 {
        setting.score(self.values(setting.variant(), prev1, prev2, mv))
    }

    /// Learns one game: `start` as [`super::game::walk`] reads it, `moves` in USI, `winner`
    /// the side that won (`None` for a draw or an unknown result).
    ///
    /// # Errors
    /// [`GameError`] when the game does not replay; nothing of it is learned then.
    pub fn learn_game(
        &mut self,
        start: &str,
        moves: &[String],
        winner: Option<Color>,
    ) -> Result<Learned, GameError> {
        let winner_only = self.options.winner_only;
        let mut taught: Vec<(Codes, Codes, EncodedMove)> = Vec::new();
        game::walk(start, moves, |ply| {
            if ply.legal >= MIN_LEGAL && (!winner_only || winner == Some(ply.mover)) {
                taught.push((ply.prev1, ply.prev2, ply.encoded));
            }
        })?;
        for (prev1, prev2, mv) in &taught {
            self.full
                .add(prev1.full, prev2.full, mv.code.full, mv.after.full);
            self.f.add(prev1.f, prev2.f, mv.code.f, mv.after.f);
        }
        self.games += 1;
        self.learned_moves += taught.len() as u64;
        Ok(Learned {
            plies: moves.len(),
            moves: taught.len(),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests;
