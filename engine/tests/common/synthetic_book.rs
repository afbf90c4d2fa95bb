//! A synthetic YaneuraOu DB2016 book as large as asked: the positions a breadth-first walk
//! from the start reaches when each position's book moves are up to three of its legal moves,
//! picked by a seeded generator, each with a value, a depth and a count. Shared by the large
//! book test (`tests/large_book.rs`) and the measuring example (`examples/synthetic_book.rs`).

use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::Path;

use engine::book::{HEADER, key_of};
use engine::position::Position;

/// SplitMix64: small, exact and the same everywhere.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Writes a book of `positions` entries to `path`, each position once, in walk order; the same
/// `seed` writes the same file. Returns the bytes written.
pub fn write_book(path: &Path, positions: usize, seed: u64) -> std::io::Result<u64> {
    let mut rng = Mix(seed);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "{HEADER}")?;
    let mut written = 0;
    let mut seen = HashSet::new();
    // Keys, not positions, wait in the queue: a position carries its history.
    let mut queue = VecDeque::from([(key_of(&Position::startpos()), 1u32)]);
    seen.insert(queue[0].0.clone());
    while let Some((key, ply)) = queue.pop_front() {
        if written == positions {
            break;
        }
        let position = Position::from_sfen(&format!("{key} 1"))
            .map_err(|e| std::io::Error::other(format!("{key}: {e}")))?;
        let legal = position.legal_moves();
        if legal.is_empty() {
            continue;
        }
        writeln!(out, "sfen {key} {ply}")?;
        written += 1;
        let take = 1 + (rng.next() % 3) as usize;
        for _ in 0..take.min(legal.len()) {
            let mv = legal[(rng.next() % legal.len() as u64) as usize];
            let value = (rng.next() % 401) as i64 - 200;
            let count = rng.next() % 50;
            writeln!(out, "{} none {value} 16 {count}", mv.to_usi())?;
            let mut next = position.clone();
            next.play(mv);
            let next = key_of(&next);
            if seen.insert(next.clone()) {
                queue.push_back((next, ply + 1));
            }
        }
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}
