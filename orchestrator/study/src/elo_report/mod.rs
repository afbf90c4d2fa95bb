//! The rating report of `council-elo`: reading and merging results files, and the ratings in text,
//! CSV, JSON and SVG. Formatting only; the numbers come from `stats`. (The match report,
//! `summary.json`, is the schema crate's `run::summary`.)

pub mod formats;
pub mod group_by;
pub mod groups;
pub mod identity;
pub mod input;
pub mod svg;

pub use formats::RatingReport;
pub use input::MergeOptions;
