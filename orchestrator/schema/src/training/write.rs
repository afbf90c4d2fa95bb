//! Training records into a file: all at once ([`Export`]: `council-learn export`, with a dedup
//! across every input and a seeded shuffle), or game by game into a run's folder ([`RunExport`]:
//! the runner's hook for `[match] training`, which a resumed run rewrites from its finished
//! games, so the file always holds exactly the records of the games in `results.jsonl`).

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Counts, Game, GameError, Settings, records};
use crate::results::GameResult;

/// Records gathered in memory, then written in one file.
#[derive(Debug)]
pub struct Export {
    settings: Settings,
    records: Vec<Vec<u8>>,
    seen: HashSet<[u8; 32]>,
    counts: Counts,
}

impl Export {
    #[must_use]
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            records: Vec::new(),
            seen: HashSet::new(),
            counts: Counts::default(),
        }
    }

    /// Adds `game`'s records after those of the games added before.
    ///
    /// # Errors
    /// A game that does not replay (nothing of it is added).
    pub fn add(&mut self, game: Game<'_>) -> Result<(), GameError> {
        let mut got = Vec::new();
        let counts = records(game, &self.settings, &mut self.seen, |r| got.push(r))?;
        self.records.extend(got);
        self.counts.add(&counts);
        Ok(())
    }

    /// Puts the records in the seed's order (Fisher-Yates, ChaCha8): the same records and seed
    /// give the same file.
    pub fn shuffle(&mut self, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for i in (1..self.records.len()).rev() {
            let j = rng.random_range(0..=i);
            self.records.swap(i, j);
        }
    }

    #[must_use]
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// The records, in order.
    #[must_use]
    pub fn records(&self) -> &[Vec<u8>] {
        &self.records
    }

    /// Writes every record to `path` (replacing it); returns the bytes written.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, path: &Path) -> std::io::Result<u64> {
        let mut out = std::io::BufWriter::new(File::create(path)?);
        let mut bytes = 0;
        for r in &self.records {
            out.write_all(r)?;
            bytes += r.len() as u64;
        }
        out.flush()?;
        Ok(bytes)
    }
}

/// A run's training file (`[match] training`), written as each game finishes.
#[derive(Debug)]
pub struct RunExport {
    file: File,
    path: PathBuf,
    settings: Settings,
    seen: HashSet<[u8; 32]>,
    counts: Counts,
}

impl RunExport {
    /// Creates `dir/training.<format>` afresh with the records of `finished` (a resumed run's
    /// games, in their `results.jsonl` order), ready for the games to come.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn open(dir: &Path, settings: &Settings, finished: &[GameResult]) -> std::io::Result<Self> {
        let path = dir.join(settings.format.run_file());
        let mut export = Self {
            file: File::create(&path)?,
            path,
            settings: *settings,
            seen: HashSet::new(),
            counts: Counts::default(),
        };
        for g in finished {
            export.add(g)?;
        }
        Ok(export)
    }

    /// Appends `game`'s records, written and flushed in one call.
    ///
    /// # Errors
    /// The file cannot be written, or the game does not replay (a bug: the arbiter played it).
    pub fn add(&mut self, game: &GameResult) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        let counts = records(Game::of_result(game), &self.settings, &mut self.seen, |r| {
            bytes.extend(r)
        })
        .map_err(|e| std::io::Error::other(format!("game {}: {e}", game.id)))?;
        self.file.write_all(&bytes)?;
        self.file.flush()?;
        self.counts.add(&counts);
        Ok(())
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    #[must_use]
    pub fn counts(&self) -> &Counts {
        &self.counts
    }
}
