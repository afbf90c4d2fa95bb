//! Shards: one run's schedule split over machines (Slurm array tasks, Kubernetes Indexed Job
//! pods), each shard an ordinary run folder, merged back into one run by `merge`.
//!
//! Invariant: the schedule (ids, colours, start positions, seeds) is the unsharded run's; a shard
//! only chooses which of its games to play. Whole colour-swapped pairs stay together (pair `p`
//! goes to shard `p mod N`; an unpaired game by its id), so each shard's pentanomial statistics
//! are whole and a merged run equals the unsharded one game for game.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::schedule::GameSpec;

/// Shard `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// A shard that does not exist, or `--shard auto` without a scheduler's environment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    #[error("the number of shards must be at least 1")]
    NoShards,
    #[error("shard {index} of {count} does not exist (shards are numbered 0 to {})", count - 1)]
    NoSuchShard { index: u64, count: u64 },
    #[error("`{text}` is not a shard: write I/N, e.g. 0/4 (or auto)")]
    NotAShard { text: String },
    /// An environment variable `name` that is not a number.
    #[error("{name}={value:?} is not a whole number")]
    NotANumber { name: &'static str, value: String },
    #[error(
        "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (submit with sbatch --array)"
    )]
    NoSlurmCount,
    #[error("SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}")]
    BelowSlurmMin { id: u64, min: u64 },
    #[error(
        "JOB_COMPLETION_INDEX is set but COUNCIL_SHARDS is not (set it to the Job's completions)"
    )]
    NoKubernetesCount,
    /// The shard a scheduler's environment names does not exist.
    #[error("--shard auto ({scheduler}): {error}")]
    Auto {
        scheduler: &'static str,
        error: Box<ShardError>,
    },
    #[error(
        "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm array task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set"
    )]
    NoScheduler,
    /// `--shard I/N` that is not a shard.
    #[error("--shard: {0}")]
    Flag(Box<ShardError>),
}

impl Shard {
    pub fn new(index: u64, count: u64) -> Result<Self, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards);
        }
        if index >= count {
            return Err(ShardError::NoSuchShard { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The shard a game belongs to.
    pub fn of_game(count: u64, game: &GameSpec) -> u64 {
        game.pair.unwrap_or(game.id) % count
    }

    /// Whether this shard plays `game`.
    pub fn holds(&self, game: &GameSpec) -> bool {
        Self::of_game(self.count, game) == self.index
    }

    /// The `--shard` flag of `council-match` and `council-tune`: `I/N`, or `auto` for
    /// [`Self::from_env`] over this process's environment.
    pub fn from_flag(text: &str) -> Result<Self, ShardError> {
        if text == "auto" {
            Self::from_env(|k| std::env::var(k).ok())
        } else {
            text.parse::<Shard>()
                .map_err(|e| ShardError::Flag(Box::new(e)))
        }
    }

    /// `--shard auto`: the shard from the scheduler's environment. A Slurm array task
    /// (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`, less `SLURM_ARRAY_TASK_MIN`), else a
    /// Kubernetes Indexed Job pod (`JOB_COMPLETION_INDEX` and `COUNCIL_SHARDS`).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Self, ShardError> {
        let number = |name: &'static str| -> Result<Option<u64>, ShardError> {
            match var(name) {
                None => Ok(None),
                Some(value) => value
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| ShardError::NotANumber { name, value }),
            }
        };
        let auto = |scheduler| {
            move |e| ShardError::Auto {
                scheduler,
                error: Box::new(e),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or(ShardError::NoSlurmCount)?;
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let index = id
                .checked_sub(min)
                .ok_or(ShardError::BelowSlurmMin { id, min })?;
            return Self::new(index, count).map_err(auto("Slurm"));
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = number("COUNCIL_SHARDS")?.ok_or(ShardError::NoKubernetesCount)?;
            return Self::new(index, count).map_err(auto("Kubernetes"));
        }
        Err(ShardError::NoScheduler)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `I/N`, e.g. `2/8`.
    fn from_str(s: &str) -> Result<Self, ShardError> {
        let bad = || ShardError::NotAShard { text: s.to_owned() };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i = i.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Self::new(i, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn game(id: u64, pair: Option<u64>) -> GameSpec {
        GameSpec {
            id,
            pair,
            sente: "a".into(),
            gote: "b".into(),
            start: super::super::schedule::Start::Position("startpos".into()),
            seed: 0,
        }
    }

    #[test]
    fn parses_i_of_n_and_refuses_the_rest() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["4/4", "1/0", "x/2", "3", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard::new(3, 8).unwrap().to_string(), "3/8");
    }

    #[test]
    fn pairs_stay_together_and_unpaired_games_go_by_id() {
        let s = Shard::new(1, 3).unwrap();
        assert!(s.holds(&game(0, Some(4))) && s.holds(&game(1, Some(4))));
        assert!(!s.holds(&game(4, Some(3))));
        assert!(s.holds(&game(7, None)));
        assert!(!s.holds(&game(8, None)));
    }

    #[test]
    fn auto_reads_slurm_then_kubernetes() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
        ]);
        assert_eq!(Shard::from_env(slurm), Ok(Shard { index: 2, count: 4 }));
        let k8s = env(&[("JOB_COMPLETION_INDEX", "1"), ("COUNCIL_SHARDS", "2")]);
        assert_eq!(Shard::from_env(k8s), Ok(Shard { index: 1, count: 2 }));
        let e = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "1")])).unwrap_err();
        assert!(e.to_string().contains("COUNCIL_SHARDS"), "{e}");
        let e = Shard::from_env(env(&[])).unwrap_err();
        assert!(e.to_string().contains("SLURM_ARRAY_TASK_ID"), "{e}");
        let e = Shard::from_env(env(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--shard auto (Slurm): shard 9 of 4 does not exist (shards are numbered 0 to 3)"
        );
    }
}
