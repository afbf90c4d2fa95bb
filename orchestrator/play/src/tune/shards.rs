//! A tune split over shards that share each iteration in lockstep, with no coordinator: every
//! shard runs the same command on the same folder with its own `--shard I/N`, computes the same
//! probe for iteration k (a pure function of θ_k, k and the seed), plays only its share of
//! iteration k's games (pair p to shard p mod N, as `council-match` shards do), appends them to
//! its own `games-shard-I.jsonl`, waits for the other shards' games of iteration k in theirs,
//! and then computes the same θ_{k+1} as every other shard. Only shard 0 writes `tune.jsonl`
//! and the SVGs. A shard that restarts replays the iterations from the files (its own games are
//! not played again, the others' are read) and so rejoins the others at the same θ.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::TuneError;
use council_schema::results::GameResult;
use council_schema::results::read::{Follower, Malformed, Repeats};
use council_schema::run::schedule::GameSpec;
use council_schema::run::shard::Shard;

/// How often the other shards' files are read while waiting.
const POLL: Duration = Duration::from_millis(200);

/// The file a shard (or an unsharded tune) writes its games to.
pub fn games_file(out: &Path, shard: Option<Shard>) -> PathBuf {
    match shard {
        None => out.join("games.jsonl"),
        Some(s) => out.join(format!("games-shard-{}.jsonl", s.index)),
    }
}

/// The other shards' games, read from their files as they grow.
pub struct Others {
    me: Shard,
    files: Vec<(u64, Follower)>,
    games: BTreeMap<u64, GameResult>,
}

impl Others {
    pub fn new(out: &Path, me: Shard) -> Self {
        let files = (0..me.count)
            .filter(|&i| i != me.index)
            .map(|i| {
                let path = games_file(
                    out,
                    Some(Shard {
                        index: i,
                        count: me.count,
                    }),
                );
                // A line being written is read on a later look; a repeated id keeps its first.
                (
                    i,
                    Follower::new(path, Malformed::Skip, Repeats::FirstOfEachId),
                )
            })
            .collect();
        Others {
            me,
            files,
            games: BTreeMap::new(),
        }
    }

    fn read(&mut self) -> Result<usize, TuneError> {
        let mut new = 0;
        for (_, f) in &mut self.files {
            for g in f.poll()?.games {
                if let std::collections::btree_map::Entry::Vacant(e) = self.games.entry(g.id) {
                    new += 1;
                    e.insert(g);
                }
            }
        }
        Ok(new)
    }

    /// A game another shard finished.
    pub fn get(&self, id: u64) -> Option<&GameResult> {
        self.games.get(&id)
    }

    /// Wait until every game of iteration `k` (`specs`) that belongs to another shard is read.
    /// Fails when none of the missing games came for `patience`, naming the shards they belong
    /// to; `Ok(false)` when cancelled first.
    pub async fn wait_for(
        &mut self,
        k: u64,
        specs: &[GameSpec],
        patience: Duration,
        cancel: &CancellationToken,
    ) -> Result<bool, TuneError> {
        let mut last_news = Instant::now();
        loop {
            if self.read()? > 0 {
                last_news = Instant::now();
            }
            let missing: Vec<&GameSpec> = specs
                .iter()
                .filter(|s| !self.me.holds(s) && !self.games.contains_key(&s.id))
                .collect();
            if missing.is_empty() {
                return Ok(true);
            }
            if last_news.elapsed() >= patience {
                let mut shards: Vec<u64> = missing
                    .iter()
                    .map(|s| Shard::of_game(self.me.count, s))
                    .collect();
                shards.dedup();
                return Err(TuneError::ShardSilent {
                    k,
                    shards: shards
                        .iter()
                        .map(|i| format!("{i}/{}", self.me.count))
                        .collect::<Vec<_>>()
                        .join(", "),
                    games: missing.len(),
                    waited_s: patience.as_secs(),
                });
            }
            tokio::select! {
                () = cancel.cancelled() => return Ok(false),
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }
}
