//! The seed derivation every random process of a run shares: a run's master seed and a number
//! (a game's id, a council member's place) give an independent seed, the same on every machine
//! and in any order of play, so a game replays exactly from `results.jsonl`'s `seed`.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// The seed of game `id` under master seed `seed`: ChaCha8 with the game id as its stream, so
/// each game's randomness is independent of every other game and of the order games run in.
pub fn game_seed(seed: u64, id: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(id);
    rng.next_u64()
}
