//! USI: the text protocol between a GUI (or our orchestrator) and an engine.
//!
//! `protocol` is the one pure parser/formatter shared by the engine front end and the
//! orchestrator; it does no I/O.

pub mod frontend;
pub mod protocol;
