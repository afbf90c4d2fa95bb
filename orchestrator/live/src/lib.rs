//! The live page of a run: what a browser sees while `council-match --serve` plays, or while
//! `council-match serve RUN_DIR` follows a run folder; the [`session`] a run or a tune is played
//! in by those two programs (the page when asked, the stop signals, the closing tables), and the
//! SVGs of a finished tune ([`tune_svg`]).
//!
//! This crate sits above the runner: it is a view of a run, never part of it. It hears the run
//! through the [`RunFeed`](council_play::game::feed::RunFeed) the runner publishes to (or through
//! [`follow`], reading `results.jsonl` as it grows), keeps the run's state in one [`Live`]
//! ([`state`]), and fans events out on a bounded `tokio::sync::broadcast` channel that
//! [`server`] turns into server-sent events; [`page`] puts them together for `council-match`.
//! The replay's positions and KIF moves come from [`positions`], its record links from
//! [`records`].
//! A tune's folder is read by [`tune`] into the same state, with the tune's course beside its
//! games (`council-tune --serve`, `council-match serve TUNE_DIR`).
//! This file only names the parts.

pub mod follow;
pub mod page;
pub mod positions;
pub mod records;
pub mod server;
pub mod session;
pub mod state;
pub mod tune;
pub mod tune_svg;

pub use page::{LivePage, ServeError, TunePage, serve_folder};
pub use positions::{Positions, positions};
pub use server::{bind, serve};
pub use state::{
    Live, LiveGame, Message, PageSummary, Phase, RunName, Snapshot, TuneParamView, TuneView,
};
