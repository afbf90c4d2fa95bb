//! Players (in-process engine, USI process, council), the match runner and its arbiter, records
//! and ratings.

pub mod adjudicate;
pub mod config;
pub mod council;
pub mod frontend;
pub mod player;
pub mod rating_report;
pub mod record;
pub mod report;
pub mod results;
pub mod runner;
pub mod stats;
