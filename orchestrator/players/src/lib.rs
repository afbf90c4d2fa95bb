//! Players: the one [`player::Player`] trait the game loop talks to, its kinds (the built-in
//! engine in process, the candidate model, a USI engine as a child process), a council of
//! players voting on one move, and the one factory that builds any player of a config.
//!
//! Below every program that plays or analyses; above the vocabulary (`council-schema`).

pub mod council;
pub mod factory;
pub mod player;
