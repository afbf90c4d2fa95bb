//! Statistics of game results, as numbers: head-to-head Elo with intervals, the SPRT, and
//! many-player maximum-likelihood ratings. Nothing here formats text; `report` does that.
//!
//! Every interval is a 95% interval unless a function says otherwise. Every random process takes
//! a seed.

pub mod elo;
pub mod head_to_head;
pub mod ratings;
pub mod simulate;
pub mod sprt;
pub mod table;

pub use elo::{Pentanomial, Wdl};
pub use head_to_head::{EloEstimate, HeadToHead, SampleModel};
pub use ratings::{Anchor, FitOptions, Ratings, RatingsError, fit};
pub use sprt::{EloModel, Sprt, SprtError, SprtReport, SprtStatus};
pub use table::GameTable;
