//! One game between two players, as every program that plays runs it: the arbiter (seat, ask,
//! judge, finish), its rules and clock (`adjudicate`), the game's course (`play`), its CSA and
//! KIF records, and the events it tells a watcher (`feed`).

pub mod adjudicate;
pub mod arbiter;
pub mod feed;
pub mod play;
pub mod records;
