//! Monte Carlo models of `shared/spec/models.md` sections 2 to 4: the random-walk model of game
//! length, the council of noisy engines, and the simple three-voter majority model. Each model
//! returns numbers (`report` formats them; `council-sim`, in sim/cli, draws them); every simulation takes a master seed and
//! replays bit-for-bit on any number of threads (see `streams`).

pub mod council;
pub mod error;
pub mod game_length;
pub mod intrinsic;
pub mod majority;
pub mod moments;
pub mod normal;
pub mod optimize;
pub mod plain;
pub mod report;
pub mod streams;
pub mod ziggurat;

pub use error::SimError;
