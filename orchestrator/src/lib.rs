//! Players (in-process engine, USI process, council), the match runner and its arbiter, records
//! and ratings.

pub mod rating_report;
pub mod results;
pub mod stats;
