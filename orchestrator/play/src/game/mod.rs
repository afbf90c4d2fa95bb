//! One game between two players, as every program that plays runs it: the arbiter (seat, ask,
//! judge, finish), its rules and clock (`adjudicate`), the game's course (`play`), its record as
//! it grows (`sheet`, which the CSA client fills too), its CSA and KIF records, and the events it
//! tells a watcher (`feed`); and many games, as council-match and council-tune play them: the
//! one scheduler (`scheduler`: permits in schedule order, game workers each with its own
//! runtime) and the players kept from game to game (`pool`).

pub mod adjudicate;
pub mod arbiter;
pub mod feed;
pub mod play;
pub mod pool;
pub mod records;
pub mod scheduler;
pub mod sheet;
