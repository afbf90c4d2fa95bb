//! Candidate moves learned from game records (seed 003, Kaneda and Nagao; models.md section 10):
//! the "intuition" that proposes moves before any search.
//!
//! A move is encoded by what stands on and around its from- and to-squares ([`encoding`]);
//! pair counts of consecutive move codes and of a move and the square it makes are learned from
//! records ([`model`], stored by [`file`]); a position's legal moves are scored from those counts and ranked, with
//! ties handled exactly ([`rank`]). [`game`] walks a recorded game once for both learning and
//! evaluation.
//!
//! It lives in the engine crate because the in-process `intuition` player and the
//! candidate-restricted search (the root searches only intuition's top K moves) use it; it is
//! pure (no I/O: the model file is read from and written to bytes).

pub mod encoding;
pub mod file;
pub mod game;
pub mod model;
pub mod rank;

pub use encoding::{Code, Codes, EncodedMove, START, encode, fnv1a64};
pub use file::{MODEL_FORMAT, MODEL_VERSION, ModelFileError};
pub use game::{GameError, Ply, walk};
pub use model::{
    LearnOptions, Learned, MIN_LEGAL, Model, Pair, PairTable, Provenance, Setting, Tables,
    UnknownSetting, Variant,
};
pub use rank::{Intuition, RankStat, Ranking, ScoredMove, chance, rank_game};
