//! Transposition table: remembers, per position key, the best move found, a bound on the score
//! and the depth it was searched to, so that transpositions and later iterations reuse work.
//!
//! Single-threaded by design (one search thread per `Engine`), so a plain `Vec` of buckets.
//! Invariants: the table size is a power of two number of buckets; an entry is trusted only
//! when its stored key check matches; mate scores are stored relative to the node (distance
//! from the node, not from the root) and converted back on probe.
//! See: chessprogramming wiki "Transposition Table", "Replacement Strategies".

use super::value::{MATE_IN_MAX, Value};
use rsshogi::types::Move;

/// Which side of the true score a stored value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Fail-high: the true score is at least this.
    Lower,
    /// Fail-low: the true score is at most this.
    Upper,
    /// Exact score (a PV node).
    Exact,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    /// Upper 32 bits of the key; 0 with depth 0 marks an empty slot.
    check: u32,
    mv: u16,
    value: i16,
    eval: i16,
    depth: i8,
    /// Bound in the low 2 bits (0 = empty), generation in the upper 6.
    flags: u8,
}

const BUCKET: usize = 4;

#[derive(Clone, Copy, Default)]
struct Bucket([Entry; BUCKET]);

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub mv: Move,
    pub value: Value,
    pub eval: Value,
    pub depth: i32,
    pub bound: Bound,
}

pub(crate) struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
}

impl TranspositionTable {
    /// A table using at most `megabytes` MiB (at least one bucket).
    pub(crate) fn new(megabytes: usize) -> Self {
        let bytes = megabytes.max(1) * 1024 * 1024;
        let want = (bytes / std::mem::size_of::<Bucket>()).max(1);
        // Round down to a power of two so the index is a mask.
        let count = 1usize << (usize::BITS - 1 - want.leading_zeros());
        Self {
            buckets: vec![Bucket::default(); count],
            generation: 0,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
        self.generation = 0;
    }

    /// Called once per search so that old entries age out first.
    pub(crate) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 0x3f;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.buckets.len() - 1)
    }

    #[inline]
    pub(crate) fn probe(&self, key: u64, ply: i32) -> Option<Hit> {
        let check = (key >> 32) as u32;
        let bucket = &self.buckets[self.index(key)];
        bucket
            .0
            .iter()
            .find(|e| e.flags & 3 != 0 && e.check == check)
            .map(|e| Hit {
                mv: Move::from_raw(e.mv),
                value: value_from_tt(Value::from(e.value), ply),
                eval: Value::from(e.eval),
                depth: i32::from(e.depth),
                bound: match e.flags & 3 {
                    1 => Bound::Upper,
                    2 => Bound::Lower,
                    _ => Bound::Exact,
                },
            })
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn store(
        &mut self,
        key: u64,
        ply: i32,
        mv: Move,
        value: Value,
        eval: Value,
        depth: i32,
        bound: Bound,
    ) {
        let check = (key >> 32) as u32;
        let generation = self.generation;
        let index = self.index(key);
        let bucket = &mut self.buckets[index];
        // Same position: replace in place. Otherwise the empty, then the oldest/shallowest slot.
        let slot = bucket
            .0
            .iter()
            .position(|e| e.flags & 3 != 0 && e.check == check);
        let slot = slot.unwrap_or_else(|| {
            let mut best = 0;
            let mut best_score = i32::MAX;
            for (i, e) in bucket.0.iter().enumerate() {
                if e.flags & 3 == 0 {
                    best = i;
                    break;
                }
                let age = i32::from((generation.wrapping_sub(e.flags >> 2)) & 0x3f);
                let score = i32::from(e.depth) - 8 * age;
                if score < best_score {
                    best_score = score;
                    best = i;
                }
            }
            best
        });
        let entry = &mut bucket.0[slot];
        let same = entry.flags & 3 != 0 && entry.check == check;
        // Keep a deeper exact-ish entry of the same position unless this one is exact.
        if same && bound != Bound::Exact && depth + 2 < i32::from(entry.depth) {
            return;
        }
        let mv_raw = if mv == Move::MOVE_NONE && same {
            entry.mv
        } else {
            mv.raw()
        };
        let bound_bits = match bound {
            Bound::Upper => 1,
            Bound::Lower => 2,
            Bound::Exact => 3,
        };
        *entry = Entry {
            check,
            mv: mv_raw,
            value: value_to_tt(value, ply) as i16,
            eval: eval.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth: depth.clamp(-1, 127) as i8,
            flags: bound_bits | (generation << 2),
        };
    }

    /// Permille of sampled slots used by the current search (USI `hashfull`).
    pub(crate) fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            used += bucket
                .0
                .iter()
                .filter(|e| e.flags & 3 != 0 && e.flags >> 2 == self.generation)
                .count();
        }
        (used * 1000 / (sample * BUCKET)) as u32
    }
}

/// Mate scores are stored as distance from this node so they stay right at other plies.
#[inline]
fn value_to_tt(v: Value, ply: i32) -> Value {
    if v >= MATE_IN_MAX {
        v + ply
    } else if v <= -MATE_IN_MAX {
        v - ply
    } else {
        v
    }
}

#[inline]
fn value_from_tt(v: Value, ply: i32) -> Value {
    if v >= MATE_IN_MAX {
        v - ply
    } else if v <= -MATE_IN_MAX {
        v + ply
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_and_keeps_mate_distance() {
        let mut tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        let mv = Move::from_usi("7g7f").expect("move");
        tt.store(
            key,
            3,
            mv,
            super::super::value::MATE - 10,
            5,
            4,
            Bound::Exact,
        );
        let hit = tt.probe(key, 5).expect("hit");
        assert_eq!(hit.mv, mv);
        // Mate in 7 from the storing node (10 - 3) is mate in 12 plies from the root at ply 5.
        assert_eq!(hit.value, super::super::value::MATE - 12);
        assert_eq!(hit.depth, 4);
        assert!(tt.probe(key ^ (1 << 40), 5).is_none());
    }
}
