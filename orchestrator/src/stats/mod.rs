//! Statistics of game results, as numbers: head-to-head Elo with intervals, the SPRT, and
//! many-player maximum-likelihood ratings. Nothing here formats text; `report` does that.
//!
//! Every interval is a 95% interval unless a function says otherwise. Every random process takes
//! a seed.

pub mod elo;
pub mod head_to_head;
pub mod sprt;

pub use elo::{Pentanomial, Wdl};
pub use head_to_head::{EloEstimate, HeadToHead, SampleModel};
pub use sprt::{EloModel, Sprt, SprtError, SprtReport, SprtStatus};
