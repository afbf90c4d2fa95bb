//! The appender of `results.jsonl`: the runner's one writer of finished games.
//!
//! Invariant: a game is one line, written by one `write` call with its newline and synced
//! before [`ResultsWriter::append`] returns, so a crash leaves at most a torn last line, which
//! the reader skips ([`super::read::TornTail::Skip`]) and [`ResultsWriter::open`] cuts off.

/// Appends finished games to `results.jsonl`, one flushed and synced line per game.
pub struct ResultsWriter {
    file: std::fs::File,
    path: std::path::PathBuf,
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
        })
    }

    /// Append one game as one line, flushed to disk before returning.
    pub fn append(&mut self, game: &super::GameResult) -> std::io::Result<()> {
        use std::io::Write;
        let mut line = serde_json::to_vec(game).map_err(std::io::Error::other)?;
        line.push(b'\n');
        // One write call per line: with O_APPEND a line is never interleaved or split by us.
        self.file.write_all(&line)?;
        self.file.flush()?;
        self.file.sync_data()
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}
