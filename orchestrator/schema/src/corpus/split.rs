//! The seeded train/test split of a corpus, by game and order-free: a game goes to the test
//! side iff `fnv1a64(seed, start, moves) mod 10^6 < share * 10^6`. Each game's side depends
//! only on the game itself and the seed, so adding games (or reading them in another order)
//! never moves another game between the sides, and learning and evaluation agree on the sides
//! without sharing anything but the seed and share.
//!
//! The hash is FNV-1a 64 (written out in the engine, `engine::intuition::fnv1a64`), never
//! std's `DefaultHasher`, whose output may change between Rust releases.

use engine::intuition::fnv1a64;

/// A test share outside [0, 1].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("test share {0}: must be between 0 and 1")]
pub struct SplitError(pub f64);

/// A share of the games for the test side, in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TestShare(f64);

impl TestShare {
    /// # Errors
    /// [`SplitError`] unless `0 <= share <= 1`.
    pub fn new(share: f64) -> Result<Self, SplitError> {
        if (0.0..=1.0).contains(&share) {
            Ok(Self(share))
        } else {
            Err(SplitError(share))
        }
    }

    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }
}

/// Parts per million: the resolution of the split.
const PPM: u64 = 1_000_000;

/// The game's stable hash under `seed`: the seed's 8 bytes (little-endian), the start SFEN, then
/// each move preceded by a space.
#[must_use]
pub fn game_hash(seed: u64, start: &str, moves: &[String]) -> u64 {
    let mut bytes = Vec::with_capacity(8 + start.len() + moves.len() * 6);
    bytes.extend_from_slice(&seed.to_le_bytes());
    bytes.extend_from_slice(start.as_bytes());
    for mv in moves {
        bytes.push(b' ');
        bytes.extend_from_slice(mv.as_bytes());
    }
    fnv1a64(&bytes)
}

/// Whether a game (start SFEN, USI moves) is on the test side.
#[must_use]
pub fn is_test(seed: u64, share: TestShare, start: &str, moves: &[String]) -> bool {
    // share <= 1, so the threshold is at most 10^6: exact in f64 and u64.
    let threshold = (share.0 * PPM as f64).round() as u64;
    game_hash(seed, start, moves) % PPM < threshold
}
