//! Programs that play: the game loop every one of them shares (`game`: seat two players, ask,
//! judge with the arbiter, record), and the rooms that drive it: council-match's runner
//! (schedule, summary, merge, SPRT stop), council-usi's USI server, council-csa's CSA client and
//! council-tune's SPSA tuner. The rooms share the loop from below and never import each other.

pub mod csa;
pub mod game;
pub mod runner;
pub mod signals;
pub mod tune;
pub mod usi_server;
