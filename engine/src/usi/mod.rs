//! USI: the text protocol between a GUI (or our orchestrator) and an engine.
//!
//! `protocol` is the one pure parser/formatter shared by the engine front end and the
//! orchestrator; `session` is the one pure state machine of a GUI session that both GUI loops
//! (`frontend` here, `council-usi` in the orchestrator) drive. Neither does I/O.

pub mod frontend;
pub mod protocol;
pub mod session;
