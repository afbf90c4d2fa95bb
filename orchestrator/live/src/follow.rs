//! `council-match serve RUN_DIR`: a run folder (finished, still being played by another
//! process, or merged) read as it grows, for the live page.
//!
//! Invariants: only complete lines of `results.jsonl` are read (a line being written is read on
//! the next look, never half); the file is polled, not watched, so any filesystem works; a
//! `summary.json` that covers every line read is shown as it is, so a finished run's page shows
//! exactly its file, and the run as finished (until more lines come: a resumed run); otherwise
//! the summary is recomputed from `run.json`'s plan (so a folder copied from another machine is
//! followed without its engines or model files). Nothing in the folder is ever written.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::state::{Live, Phase};
use council_schema::results::read::{Follower, Malformed, Repeats};
use council_schema::run::schedule::schedule;
use council_schema::run::summary::Summary;
use council_schema::run::{RunInfo, RunInfoError};

/// How often the folder is looked at.
const POLL: Duration = Duration::from_millis(500);

/// Read `dir`'s `run.json` and make the view of its run; then [`follow`] fills it in.
pub fn open(dir: &Path) -> Result<Arc<Live>, RunInfoError> {
    let info = RunInfo::read(dir)?;
    // The run as it was validated. A run.json of an older build has only its config text:
    // when that cannot be validated here, the page shows the folder's own summary.json only.
    let plan = match info.plan(dir) {
        Ok(plan) => Some(Arc::new(plan)),
        Err(e) => {
            tracing::warn!("{e}; showing its summary.json only");
            None
        }
    };
    // The games this folder will hold: its shard's, or all of them.
    let total = plan.as_ref().map(|c| {
        let games = schedule(c, info.seed);
        match info.shard {
            Some(shard) => games.iter().filter(|g| shard.holds(g)).count(),
            None => games.len(),
        }
    });
    let live = Live::new(plan, Phase::Following);
    live.set_folder(dir);
    live.set_run(info.seed, total);
    Ok(live)
}

/// Read `dir` as it grows, into `live`, until `live` has no other owner.
pub async fn follow(dir: PathBuf, live: Arc<Live>) {
    let results = dir.join("results.jsonl");
    let summary = dir.join("summary.json");
    // A view never stops on a bad line: it is skipped with a warning. Every line is shown, as
    // the file holds it.
    let mut lines = Follower::new(results.clone(), Malformed::Skip, Repeats::KeepAll);
    let mut summary_seen: Option<SystemTime> = None;
    loop {
        if Arc::strong_count(&live) == 1 {
            return;
        }
        match lines.poll() {
            Ok(new) => {
                if !new.games.is_empty() && live.snapshot_phase() == Phase::Finished {
                    // A resumed run: it plays again.
                    live.set_phase(Phase::Following);
                }
                for g in &new.games {
                    live.add_finished(g);
                }
                for bad in &new.skipped {
                    tracing::warn!(
                        "{}:{}: skipped: not a game result: {}",
                        bad.path.display(),
                        bad.line,
                        bad.message
                    );
                }
            }
            Err(e) => tracing::warn!("{e}"),
        }
        // A summary.json written after the last game: the run's own, shown as it is.
        let modified = std::fs::metadata(&summary).and_then(|m| m.modified()).ok();
        if modified.is_some() && modified != summary_seen {
            // One being written is read on a later look.
            if let Ok(s) = Summary::read(&dir)
                && s.games == live.finished_count() as u64
            {
                summary_seen = modified;
                live.set_final_summary(s);
                live.set_phase(Phase::Finished);
            }
        }
        tokio::time::sleep(POLL).await;
    }
}
