//! `council-match merge DIR... --out DIR`: one run folder from the shard folders of one run.
//!
//! Nothing is taken on trust: the folders must be shards of the same run (config text, seed,
//! games per pairing, number of shards), each shard once, and every game line must be the game
//! the run's schedule has under its id (shard, players, colours, start, seed) with moves that
//! replay legally from its start. A game found twice must be the same game. Missing games do not
//! stop the merge: the merged folder is written (it can be resumed like any run) and the missing
//! ids are reported by shard, so the caller can re-run exactly those shards. The run is read
//! from the shards' `run.json` (its plan), so shards copied from other machines merge without
//! the engines or model files they played with.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::position::Position;
use engine::types::Color;

use crate::game::arbiter::{StartError, start_position};
use crate::game::records::record_paths;
use council_schema::results::{self, GameResult, Reason, Winner};
use council_schema::run::plan::RunPlan;
use council_schema::run::schedule::{GameSpec, schedule};
use council_schema::run::shard::Shard;
use council_schema::run::summary::{Summary, SummaryWriteError};
use council_schema::run::{RunInfo, RunInfoError};
use council_schema::written_by::WrittenBy;

/// Why shard folders cannot be merged; each names the folder or file at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    #[error("merge: give the shard folders to merge")]
    NoFolders,
    #[error(transparent)]
    RunInfo(#[from] RunInfoError),
    #[error(
        "{}: not a shard folder (its run.json has no shard): merge takes the folders of a run played with --shard",
        dir.display()
    )]
    NotAShard { dir: PathBuf },
    /// Folders of different runs (`what` says how they differ).
    #[error("{}: a shard of another run than {}: {what}", dir.display(), first.display())]
    OtherRun {
        dir: PathBuf,
        first: PathBuf,
        what: String,
    },
    #[error("{} and {} are both shard {shard}: give each shard once", dir.display(), twin.display())]
    ShardTwice {
        dir: PathBuf,
        twin: PathBuf,
        shard: Shard,
    },
    #[error("--out {} is one of the shard folders ({}): merge into a new folder", out.display(), dir.display())]
    OutIsAShard { out: PathBuf, dir: PathBuf },
    #[error(transparent)]
    Read(results::read::ReadError),
    #[error("{}: game {id} is not the run's game {id}: {why}", file.display())]
    NotTheRunsGame {
        file: PathBuf,
        id: u64,
        why: Box<Mismatch>,
    },
    /// Two different games under one id (in one shard's file).
    #[error("game {id} differs between {} and {}", first.display(), second.display())]
    Differs {
        id: u64,
        first: PathBuf,
        second: PathBuf,
    },
    #[error("{} already holds results: merge into a new folder", out.display())]
    OutHoldsResults { out: PathBuf },
    #[error("{}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(transparent)]
    Summary(#[from] SummaryWriteError),
    #[error("copying {} to {}: {cause}", from.display(), to.display())]
    Copy {
        from: PathBuf,
        to: PathBuf,
        cause: std::io::Error,
    },
}

/// How a game line differs from the run's schedule.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Mismatch {
    #[error("the run's schedule has no game with this id")]
    NotScheduled,
    #[error("it belongs to shard {belongs}/{}, not to this folder's shard {shard}", shard.count)]
    OtherShard { belongs: u64, shard: Shard },
    #[error(
        "it is {sente} (sente) against {gote}, the schedule has {want_sente} against {want_gote}"
    )]
    Players {
        sente: String,
        gote: String,
        want_sente: String,
        want_gote: String,
    },
    #[error("its seed or pair number is not the schedule's")]
    Seed,
    #[error(transparent)]
    Start(#[from] StartError),
    #[error("it starts from {start}, the schedule from {want}")]
    OtherStart { start: String, want: String },
    #[error("it says {plies} plies but lists {moves} moves")]
    Plies { plies: u32, moves: usize },
    #[error("its moves do not replay: {problem}")]
    Replay { problem: String },
    #[error("it says checkmate, {winner} won, which its moves do not show")]
    Checkmate { winner: &'static str },
}

/// What a merge wrote.
#[derive(Debug)]
pub struct MergeReport {
    /// Every game found, by id.
    pub games: Vec<GameResult>,
    /// Games of the schedule that no folder holds, as (id, shard index).
    pub missing: Vec<(u64, u64)>,
    /// The run's number of shards.
    pub shards: u64,
    /// Record files (`.csa`, `.kif`) that a shard folder lacked for one of its games.
    pub records_missing: Vec<String>,
    pub summary: Summary,
}

impl MergeReport {
    /// The missing games, one clause per shard: `shard 1/4: games 2, 3`.
    pub fn missing_by_shard(&self) -> String {
        let mut by: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for (id, shard) in &self.missing {
            by.entry(*shard).or_default().push(id.to_string());
        }
        by.iter()
            .map(|(s, ids)| format!("shard {s}/{}: games {}", self.shards, ids.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// One shard folder as read.
struct ShardFolder {
    dir: PathBuf,
    info: RunInfo,
    shard: Shard,
}

/// Read and check the folders' `run.json`: one run, each shard once.
fn read_folders(dirs: &[PathBuf]) -> Result<Vec<ShardFolder>, MergeError> {
    let mut folders: Vec<ShardFolder> = Vec::new();
    for dir in dirs {
        let info = RunInfo::read(dir)?;
        let shard = info
            .shard
            .ok_or_else(|| MergeError::NotAShard { dir: dir.clone() })?;
        if let Some(first) = folders.first() {
            let other_run = |what: String| MergeError::OtherRun {
                dir: dir.clone(),
                first: first.dir.clone(),
                what,
            };
            if !council_schema::config::same_config(&info.config_text, &first.info.config_text) {
                return Err(other_run(format!(
                    "the configs differ ({} and {})",
                    info.config_file, first.info.config_file
                )));
            }
            if info.seed != first.info.seed {
                return Err(other_run(format!(
                    "seed {} and seed {}",
                    info.seed, first.info.seed
                )));
            }
            if info.games != first.info.games {
                return Err(other_run(format!(
                    "{} and {} games per pairing",
                    info.games, first.info.games
                )));
            }
            if shard.count != first.shard.count {
                return Err(other_run(format!(
                    "shard {shard} and shard {}",
                    first.shard
                )));
            }
        }
        if let Some(twin) = folders.iter().find(|f| f.shard.index == shard.index) {
            return Err(MergeError::ShardTwice {
                dir: dir.clone(),
                twin: twin.dir.clone(),
                shard,
            });
        }
        folders.push(ShardFolder {
            dir: dir.clone(),
            info,
            shard,
        });
    }
    Ok(folders)
}

/// Why `game` is not the schedule's game `spec` in `shard`, if it is not.
fn check_game(
    game: &GameResult,
    spec: Option<&GameSpec>,
    shard: Shard,
    start_sfen: impl Fn(&GameSpec) -> Result<String, StartError>,
) -> Result<(), Mismatch> {
    let spec = spec.ok_or(Mismatch::NotScheduled)?;
    if !shard.holds(spec) {
        return Err(Mismatch::OtherShard {
            belongs: Shard::of_game(shard.count, spec),
            shard,
        });
    }
    if (game.sente.as_str(), game.gote.as_str()) != (spec.sente.as_str(), spec.gote.as_str()) {
        return Err(Mismatch::Players {
            sente: game.sente.clone(),
            gote: game.gote.clone(),
            want_sente: spec.sente.clone(),
            want_gote: spec.gote.clone(),
        });
    }
    if game.seed != spec.seed || game.pair != spec.pair {
        return Err(Mismatch::Seed);
    }
    let sfen = start_sfen(spec)?;
    if game.start != sfen {
        return Err(Mismatch::OtherStart {
            start: game.start.clone(),
            want: sfen,
        });
    }
    if game.plies as usize != game.moves.len() {
        return Err(Mismatch::Plies {
            plies: game.plies,
            moves: game.moves.len(),
        });
    }
    let text = if game.moves.is_empty() {
        format!("sfen {}", game.start)
    } else {
        format!("sfen {} moves {}", game.start, game.moves.join(" "))
    };
    let end = Position::from_start_text(&text).map_err(|e| Mismatch::Replay {
        problem: e.to_string(),
    })?;
    if game.reason == Reason::Checkmate {
        let loser = match end.side_to_move() {
            Color::Sente => Winner::Sente,
            Color::Gote => Winner::Gote,
        };
        if !end.is_checkmate() || game.result == loser || game.result == Winner::Draw {
            return Err(Mismatch::Checkmate {
                winner: game.result.name(),
            });
        }
    }
    Ok(())
}

/// Merge the shard folders `dirs` into `out`; its `run.json` and `summary.json` say
/// `written_by` merged them.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    written_by: &WrittenBy,
) -> Result<MergeReport, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::NoFolders);
    }
    let folders = read_folders(dirs)?;
    let out_canonical = out.canonicalize().ok();
    if let Some(f) = folders
        .iter()
        .find(|f| out_canonical.is_some() && f.dir.canonicalize().ok() == out_canonical)
    {
        return Err(MergeError::OutIsAShard {
            out: out.to_path_buf(),
            dir: f.dir.clone(),
        });
    }
    let first = &folders[0];
    let plan = first.info.plan(&first.dir)?;
    let seed = first.info.seed;
    let shards = first.shard.count;
    let specs = schedule(&plan, seed);
    let by_id: HashMap<u64, &GameSpec> = specs.iter().map(|g| (g.id, g)).collect();
    let start_sfen = |spec: &GameSpec| start_position(&spec.start).map(|s| s.sfen);

    // Every game once, with the folder it came from. Each game belongs to one shard, so a
    // game line in another shard's folder is refused by `check_game`, and a game id can repeat
    // only within one folder's file.
    let mut games: BTreeMap<u64, (GameResult, &Path)> = BTreeMap::new();
    for f in &folders {
        let path = f.dir.join("results.jsonl");
        if !path.exists() {
            continue; // a shard that has not finished a game yet
        }
        // One shard's games: a torn last line is a game it has not finished (it resumes it);
        // a game written twice must be the same game.
        let read = results::read::read(
            std::slice::from_ref(&path),
            results::read::Policy {
                torn_tail: results::read::TornTail::Skip,
                malformed: results::read::Malformed::Fail,
                repeats: results::read::Repeats::MergeIdenticalIds,
            },
        )
        .map_err(|e| match e {
            results::read::ReadError::Differs { id, .. } => MergeError::Differs {
                id,
                first: f.dir.clone(),
                second: f.dir.clone(),
            },
            e => MergeError::Read(e),
        })?;
        if read.files[0].torn_tail {
            tracing::warn!("{}: ignoring a cut-off last line", path.display());
        }
        for g in read.games {
            check_game(&g, by_id.get(&g.id).copied(), f.shard, start_sfen).map_err(|why| {
                MergeError::NotTheRunsGame {
                    file: path.clone(),
                    id: g.id,
                    why: Box::new(why),
                }
            })?;
            games.insert(g.id, (g, &f.dir));
        }
    }

    write_folder(out, first, &plan, seed, &games, written_by)?;
    let records_missing = copy_records(out, &games)?;
    let games: Vec<GameResult> = games.into_values().map(|(g, _)| g).collect();
    let mut summary = Summary::new(&plan, &games, seed, 0, Duration::ZERO);
    summary.written_by = Some(written_by.clone());
    summary.write(out)?;
    let have: std::collections::HashSet<u64> = games.iter().map(|g| g.id).collect();
    let missing = specs
        .iter()
        .filter(|g| !have.contains(&g.id))
        .map(|g| (g.id, Shard::of_game(shards, g)))
        .collect();
    Ok(MergeReport {
        games,
        missing,
        shards,
        records_missing,
        summary,
    })
}

/// `run.json` (the run's, without a shard) and `results.jsonl` ordered by id, written whole
/// and renamed into place.
fn write_folder(
    out: &Path,
    first: &ShardFolder,
    plan: &RunPlan,
    seed: u64,
    games: &BTreeMap<u64, (GameResult, &Path)>,
    written_by: &WrittenBy,
) -> Result<(), MergeError> {
    let results_path = out.join("results.jsonl");
    if results_path
        .metadata()
        .map(|m| m.len() > 0)
        .unwrap_or(false)
    {
        return Err(MergeError::OutHoldsResults {
            out: out.to_path_buf(),
        });
    }
    let write = |path: &Path| {
        let path = path.to_path_buf();
        move |cause| MergeError::Write { path, cause }
    };
    std::fs::create_dir_all(out.join("records")).map_err(write(out))?;
    let info = RunInfo {
        seed,
        config_file: first.info.config_file.clone(),
        config_text: first.info.config_text.clone(),
        games: plan.games,
        shard: None,
        plan: Some(plan.clone()),
        written_by: Some(written_by.clone()),
    };
    info.write(out)?;
    let mut text = String::new();
    for (g, _) in games.values() {
        // Plain data with string keys: serializing cannot fail.
        text.push_str(&serde_json::to_string(g).unwrap_or_default());
        text.push('\n');
    }
    let partial = out.join("results.jsonl.partial");
    std::fs::write(&partial, text).map_err(write(&partial))?;
    std::fs::rename(&partial, &results_path).map_err(write(&results_path))
}

/// Copy each game's records from its shard folder; returns the record files that were absent.
fn copy_records(
    out: &Path,
    games: &BTreeMap<u64, (GameResult, &Path)>,
) -> Result<Vec<String>, MergeError> {
    let mut absent = Vec::new();
    for (g, dir) in games.values() {
        let (csa, kif) = record_paths(&dir.join("records"), g);
        let kifu = kif.with_extension("kifu");
        let kif = if kif.exists() || !kifu.exists() {
            kif
        } else {
            kifu
        };
        for from in [csa, kif] {
            let Some(name) = from.file_name() else {
                continue;
            };
            let to = out.join("records").join(name);
            if from.exists() {
                std::fs::copy(&from, &to).map_err(|cause| MergeError::Copy {
                    from: from.clone(),
                    to: to.clone(),
                    cause,
                })?;
            } else {
                absent.push(from.display().to_string());
            }
        }
    }
    Ok(absent)
}
