//! Statistics of game results, as numbers: head-to-head Elo with intervals, the SPRT, and
//! many-player maximum-likelihood ratings; and the estimators `council-analyze` fits its models
//! with (Kalman filter, correlation, logistic and resignation fits, the cluster bootstrap,
//! precision and recall). Nothing here formats text; the play crate's `runner::report`, the study
//! crate's `elo_report` and `analyze` do that.
//!
//! Every interval is a 95% interval unless a function says otherwise. Every random process takes
//! a seed.
//!
//! For a runner: the head-to-head numbers of `summary.json` and the SPRT come from the finished
//! results lines.
//!
//! ```
//! use council_schema::results::GameResult;
//! use council_schema::stats::{EloModel, HeadToHead, Sprt, SprtStatus};
//!
//! fn after_each_game(finished: &[GameResult], sprt: &Sprt) -> bool {
//!     let h2h = HeadToHead::from_games(finished, "council", "single");
//!     if let Some(e) = h2h.estimate() {
//!         // summary.json: elo = e.elo, elo_error = e.elo_error (95%), score = e.score
//!         let _ = (e.elo, e.elo_error, e.los);
//!     }
//!     sprt.test(&h2h).status != SprtStatus::Continue // true: stop the match
//! }
//! let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Logistic).expect("valid settings");
//! assert!(!after_each_game(&[], &sprt));
//! ```

pub mod bootstrap;
pub mod classification;
pub mod correlation;
pub mod elo;
pub mod head_to_head;
pub mod kalman;
pub mod logistic;
pub mod rating_fit;
pub mod resignation;
pub mod simulate;
pub mod sprt;
pub mod table;
pub mod win_rate_scale;

pub use elo::{Pentanomial, Wdl};
pub use head_to_head::{EloEstimate, HeadToHead, HeadToHeadTally, SampleModel};
pub use rating_fit::{Anchor, FitOptions, Ratings, RatingsError, fit};
pub use sprt::{EloModel, Sprt, SprtError, SprtReport, SprtStatus, SprtSummary};
pub use table::GameTable;
