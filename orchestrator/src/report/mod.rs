//! Reports of game results for people and scripts: reading and merging results files, and the
//! rating report in text, CSV, JSON and SVG. Formatting only; the numbers come from `stats`.

pub mod input;
pub mod ratings;
pub mod svg;

pub use input::{InputError, MergeOptions, MergedResults, read_results};
pub use ratings::RatingReport;
