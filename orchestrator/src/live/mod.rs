//! The live page of a run: what a browser sees while `council-match --serve` plays, or while
//! `council-match serve RUN_DIR` follows a run folder.
//!
//! This room sits above the runner: it is a view of a run, never part of it. It hears the run
//! through the [`RunFeed`](crate::runner::feed::RunFeed) the runner publishes to (or through
//! [`follow`], reading `results.jsonl` as it grows), keeps the run's state in one [`Live`]
//! ([`state`]), and fans events out on a bounded `tokio::sync::broadcast` channel that
//! [`server`] turns into server-sent events; [`page`] puts them together for `council-match`.
//! This file only names the parts.

pub mod follow;
pub mod page;
pub mod positions;
pub mod server;
pub mod state;

pub use page::{LivePage, ServeError, serve_folder};
pub use positions::positions;
pub use server::{bind, serve};
pub use state::{Live, LiveGame, Message, PageSummary, Phase, Snapshot};
