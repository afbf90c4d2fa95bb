//! `council-csa`: any player of a config (a council or one engine) on a CSA protocol 1.2.1
//! server such as floodgate (shogi-server, which the computer shogi championships' servers run
//! too).
//!
//! Four rooms, so each concern has one place: [`protocol`] is the protocol as text and rules
//! (pure, unit-tested: the summary, the server's lines, game names, the move line with
//! floodgate's comment, the verdicts), [`session`] is one TCP connection (lines, the protocol
//! log, the keep-alive, the end-of-game close), [`game`] is one game's loop (the clocks as the
//! server keeps them, the player's moves and pondering, the sheet), and [`client`] is the
//! session's life: a login per game, reconnection, records and results lines, a stop.

pub mod client;
pub mod game;
pub mod protocol;
pub mod session;
