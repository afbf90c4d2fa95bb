//! `council-csa`: any player of a config (a council or one engine) on a CSA protocol 1.2.1
//! server such as floodgate.
//!
//! Three rooms, so each concern has one place: [`protocol`] is the protocol as text and rules
//! (pure, unit-tested: the summary, the server's lines, the clock, the verdicts), [`session`]
//! is one TCP connection (lines, the protocol log, the keep-alive), and [`game`] is the game
//! loop that joins a [`council_players::player::Player`] to a session and writes the records the way
//! `council-match` does.

pub mod game;
pub mod protocol;
pub mod session;
