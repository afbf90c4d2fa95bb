//! The appender of `results.jsonl`: the runner's one writer of finished games.
//!
//! Invariant: a game is one line, written by one `write` call with its newline before
//! [`ResultsWriter::append`] returns, so a crash of the program leaves at most a torn last line,
//! which the reader skips ([`super::read::TornTail::Skip`]) and [`ResultsWriter::open`] cuts off.
//! The file is synced to the disk at most [`SYNC_EVERY`] apart and when the writer is dropped:
//! a power loss costs at most that last stretch of games, which `--resume` plays again (an
//! fsync per game was a tenth of the runner's CPU with many short games).

use std::time::{Duration, Instant};

/// The longest a written game waits for its sync to the disk while games keep coming.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

/// Appends finished games to `results.jsonl`, one line per game, synced at least every
/// [`SYNC_EVERY`].
pub struct ResultsWriter {
    file: std::fs::File,
    path: std::path::PathBuf,
    last_sync: Instant,
}

impl ResultsWriter {
    /// Open `path` for appending, first cutting off what follows its first `complete_len` bytes
    /// (the complete lines a reader found: [`super::read::FileRead::complete_len`]). A new file is
    /// created when missing.
    pub fn open(path: &std::path::Path, complete_len: Option<u64>) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        if let Some(len) = complete_len
            && file.metadata()?.len() > len
        {
            file.set_len(len)?;
        }
        Ok(Self {
            file,
            path: path.to_path_buf(),
            last_sync: Instant::now(),
        })
    }

    /// Append one game as one line, written to the file before returning (synced to the disk if
    /// the last sync is [`SYNC_EVERY`] old).
    pub fn append(&mut self, game: &super::GameResult) -> std::io::Result<()> {
        use std::io::Write;
        let mut line = serde_json::to_vec(game).map_err(std::io::Error::other)?;
        line.push(b'\n');
        // One write call per line: with O_APPEND a line is never interleaved or split by us.
        self.file.write_all(&line)?;
        self.file.flush()?;
        if self.last_sync.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Sync what was written to the disk now.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.file.sync_data()?;
        self.last_sync = Instant::now();
        Ok(())
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for ResultsWriter {
    /// The last games to the disk (a failure here loses nothing the program still needs: every
    /// line is in the file; only a power loss could take them).
    fn drop(&mut self) {
        let _ = self.file.sync_data();
    }
}
