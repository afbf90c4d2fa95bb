//! `council-match serve RUN_DIR`: a run folder (finished, still being played by another
//! process, or merged) read as it grows, for the live page.
//!
//! Invariants: only complete lines of `results.jsonl` are read (a line being written is read on
//! the next look, never half); the file is polled, not watched, so any filesystem works; a
//! `summary.json` that covers every line read is shown as it is, so a finished run's page shows
//! exactly its file, and the run as finished (until more lines come: a resumed run); otherwise
//! the summary is recomputed from `run.json`'s config. Nothing in the folder is ever written.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::{Live, Phase};
use crate::config::Config;
use crate::results::GameResult;
use crate::runner::RunInfo;
use crate::runner::schedule::schedule;

/// How often the folder is looked at.
const POLL: Duration = Duration::from_millis(500);

/// A run folder that cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FollowError {
    #[error("{0}: no run.json here, so not a council-match run folder ({1})")]
    NotARun(String, std::io::Error),
    #[error("{0}: {1}")]
    BadRunInfo(String, String),
}

/// Read `dir`'s `run.json` and make the view of its run; then [`follow`] fills it in.
pub fn open(dir: &Path) -> Result<Arc<Live>, FollowError> {
    let run_path = dir.join("run.json");
    let text = std::fs::read_to_string(&run_path)
        .map_err(|e| FollowError::NotARun(dir.display().to_string(), e))?;
    let info: RunInfo = serde_json::from_str(&text)
        .map_err(|e| FollowError::BadRunInfo(run_path.display().to_string(), e.to_string()))?;
    // The config as the run read it. Relative paths inside (an openings file) are the run's:
    // when they cannot be found from here, the page shows the folder's own summary.json only.
    let config = match Config::parse(Path::new(&info.config_file), &info.config_text) {
        Ok(mut c) => {
            // `--games` as the run was started.
            c.games = info.games;
            Some(Arc::new(c))
        }
        Err(e) => {
            tracing::warn!(
                "{}: its config cannot be read from here ({e}); showing its summary.json only",
                run_path.display()
            );
            None
        }
    };
    // The games this folder will hold: its shard's, or all of them.
    let total = config.as_ref().map(|c| {
        let games = schedule(c, info.seed);
        match info.shard {
            Some(shard) => games.iter().filter(|g| shard.holds(g)).count(),
            None => games.len(),
        }
    });
    let live = Live::new(config, Phase::Following);
    live.set_run(info.seed, total);
    Ok(live)
}

/// Read `dir` as it grows, into `live`, until `live` has no other owner.
pub async fn follow(dir: PathBuf, live: Arc<Live>) {
    let results = dir.join("results.jsonl");
    let summary = dir.join("summary.json");
    let mut offset = 0u64;
    let mut line_no = 0usize;
    let mut summary_seen: Option<SystemTime> = None;
    loop {
        if Arc::strong_count(&live) == 1 {
            return;
        }
        match read_from(&results, offset) {
            Ok(read) => {
                if !read.games.is_empty() && live.snapshot_phase() == Phase::Finished {
                    // A resumed run: it plays again.
                    live.set_phase(Phase::Following);
                }
                for g in &read.games {
                    live.add_finished(g);
                }
                for (line, problem) in &read.bad {
                    tracing::warn!(
                        "{}:{}: skipped: {problem}",
                        results.display(),
                        line_no + line
                    );
                }
                offset += read.bytes;
                line_no += read.lines;
            }
            Err(e) => tracing::warn!("{}: {e}", results.display()),
        }
        // A summary.json written after the last game: the run's own, shown as it is.
        let modified = std::fs::metadata(&summary).and_then(|m| m.modified()).ok();
        if modified.is_some() && modified != summary_seen {
            let value = std::fs::read_to_string(&summary)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
            if let Some(v) = value
                && v.get("games").and_then(serde_json::Value::as_u64)
                    == Some(live.finished().len() as u64)
            {
                summary_seen = modified;
                live.set_final_summary(v);
                live.set_phase(Phase::Finished);
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

/// What one look at `results.jsonl` found after the lines already read.
#[derive(Debug, Default)]
struct Lines {
    games: Vec<GameResult>,
    /// Bytes of the complete lines read.
    bytes: u64,
    lines: usize,
    /// Malformed lines (1-based within this read) and what is wrong with them: skipped.
    bad: Vec<(usize, String)>,
}

/// The complete lines of `path` after `offset`, parsed. A missing file is no games yet.
fn read_from(path: &Path, offset: u64) -> Result<Lines, String> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Lines::default()),
        Err(e) => return Err(e.to_string()),
    };
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let mut read = Lines::default();
    for chunk in bytes.split_inclusive(|&b| b == b'\n') {
        if !chunk.ends_with(b"\n") {
            break;
        }
        read.bytes += chunk.len() as u64;
        read.lines += 1;
        let line = String::from_utf8_lossy(chunk);
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<GameResult>(&line) {
            Ok(game) => read.games.push(game),
            Err(e) => read
                .bad
                .push((read.lines, format!("not a game result: {e}"))),
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: u64) -> String {
        format!(
            "{{\"id\":{id},\"sente\":\"a\",\"gote\":\"b\",\"start\":\"startpos\",\"moves\":[],\
             \"result\":\"draw\",\"reason\":\"max_plies\",\"plies\":0}}\n"
        )
    }

    #[test]
    fn only_complete_lines_are_read_and_a_bad_one_is_skipped_by_number() {
        let dir = std::env::temp_dir().join(format!("council-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let path = dir.join("results.jsonl");
        assert_eq!(read_from(&path, 0).expect("no file yet").lines, 0);

        // Two games, a bad line, and a line still being written.
        let text = format!("{}{}not json\n{}", line(0), line(1), &line(2)[..20]);
        std::fs::write(&path, &text).expect("write");
        let first = read_from(&path, 0).expect("read");
        let ids: Vec<u64> = first.games.iter().map(|g| g.id).collect();
        assert_eq!(ids, [0, 1]);
        assert_eq!(first.lines, 3);
        assert_eq!(first.bad.len(), 1);
        assert_eq!(first.bad[0].0, 3, "the bad line by its number");
        assert_eq!(
            first.bytes as usize,
            text.len() - 20,
            "the partial line is not taken"
        );

        // The writer finishes its line: the next look takes it, and only it.
        let whole = format!("{}{}not json\n{}", line(0), line(1), line(2));
        std::fs::write(&path, &whole).expect("write");
        let next = read_from(&path, first.bytes).expect("read");
        assert_eq!(next.games.len(), 1);
        assert_eq!(next.games[0].id, 2);
        assert!(next.bad.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
