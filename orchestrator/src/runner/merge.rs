//! `council-match merge DIR... --out DIR`: one run folder from the shard folders of one run.
//!
//! Nothing is taken on trust: the folders must be shards of the same run (config text, seed,
//! games per pairing, number of shards), each shard once, and every game line must be the game
//! the run's schedule has under its id (shard, players, colours, start, seed) with moves that
//! replay legally from its start. A game found twice must be the same game. Missing games do not
//! stop the merge: the merged folder is written (it can be resumed like any run) and the missing
//! ids are reported by shard, so the caller can re-run exactly those shards.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::position::Position;
use engine::types::Color;

use super::RunInfo;
use super::arbiter::start_position;
use super::records::record_paths;
use super::schedule::{GameSpec, schedule};
use super::shard::Shard;
use super::summary::Summary;
use crate::config::Config;
use crate::results::{self, GameResult, Reason, Winner};

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
fn read_folders(dirs: &[PathBuf]) -> Result<Vec<ShardFolder>, String> {
    let mut folders: Vec<ShardFolder> = Vec::new();
    for dir in dirs {
        let info = RunInfo::read(dir)?;
        let shard = info.shard.ok_or_else(|| {
            format!(
                "{}: not a shard folder (its run.json has no shard): merge takes the folders of a run played with --shard",
                dir.display()
            )
        })?;
        if let Some(first) = folders.first() {
            let other_run = |what: &str| {
                format!(
                    "{}: a shard of another run than {}: {what}",
                    dir.display(),
                    first.dir.display()
                )
            };
            if info.config_text != first.info.config_text {
                return Err(other_run(&format!(
                    "the configs differ ({} and {})",
                    info.config_file, first.info.config_file
                )));
            }
            if info.seed != first.info.seed {
                return Err(other_run(&format!(
                    "seed {} and seed {}",
                    info.seed, first.info.seed
                )));
            }
            if info.games != first.info.games {
                return Err(other_run(&format!(
                    "{} and {} games per pairing",
                    info.games, first.info.games
                )));
            }
            if shard.count != first.shard.count {
                return Err(other_run(&format!(
                    "shard {shard} and shard {}",
                    first.shard
                )));
            }
        }
        if let Some(twin) = folders.iter().find(|f| f.shard.index == shard.index) {
            return Err(format!(
                "{} and {} are both shard {shard}: give each shard once",
                dir.display(),
                twin.dir.display()
            ));
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
    start_sfen: impl Fn(&GameSpec) -> Result<String, String>,
) -> Result<(), String> {
    let spec = spec.ok_or("the run's schedule has no game with this id")?;
    if !shard.holds(spec) {
        return Err(format!(
            "it belongs to shard {}/{}, not to this folder's shard {shard}",
            Shard::of_game(shard.count, spec),
            shard.count
        ));
    }
    if (game.sente.as_str(), game.gote.as_str()) != (spec.sente.as_str(), spec.gote.as_str()) {
        return Err(format!(
            "it is {} (sente) against {}, the schedule has {} against {}",
            game.sente, game.gote, spec.sente, spec.gote
        ));
    }
    if game.seed != spec.seed || game.pair != spec.pair {
        return Err("its seed or pair number is not the schedule's".into());
    }
    let sfen = start_sfen(spec)?;
    if game.start != sfen {
        return Err(format!(
            "it starts from {}, the schedule from {sfen}",
            game.start
        ));
    }
    if game.plies as usize != game.moves.len() {
        return Err(format!(
            "it says {} plies but lists {} moves",
            game.plies,
            game.moves.len()
        ));
    }
    let text = if game.moves.is_empty() {
        format!("sfen {}", game.start)
    } else {
        format!("sfen {} moves {}", game.start, game.moves.join(" "))
    };
    let end =
        Position::from_start_text(&text).map_err(|e| format!("its moves do not replay: {e}"))?;
    if game.reason == Reason::Checkmate {
        let loser = match end.side_to_move() {
            Color::Sente => Winner::Sente,
            Color::Gote => Winner::Gote,
        };
        if !end.is_checkmate() || game.result == loser || game.result == Winner::Draw {
            return Err(format!(
                "it says checkmate, {} won, which its moves do not show",
                game.result.name()
            ));
        }
    }
    Ok(())
}

/// Merge the shard folders `dirs` into `out`.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<MergeReport, String> {
    if dirs.is_empty() {
        return Err("merge: give the shard folders to merge".into());
    }
    let folders = read_folders(dirs)?;
    let out_canonical = out.canonicalize().ok();
    if let Some(f) = folders
        .iter()
        .find(|f| out_canonical.is_some() && f.dir.canonicalize().ok() == out_canonical)
    {
        return Err(format!(
            "--out {} is one of the shard folders ({}): merge into a new folder",
            out.display(),
            f.dir.display()
        ));
    }
    let first = &folders[0];
    let mut config = Config::parse(Path::new(&first.info.config_file), &first.info.config_text)
        .map_err(|e| {
            format!(
                "{}: cannot read the run's config as recorded there: {e}",
                first.dir.join("run.json").display()
            )
        })?;
    config.games = first.info.games;
    let seed = first.info.seed;
    let shards = first.shard.count;
    let specs = schedule(&config, seed);
    let by_id: HashMap<u64, &GameSpec> = specs.iter().map(|g| (g.id, g)).collect();
    let start_sfen = |spec: &GameSpec| start_position(&spec.start).map(|s| s.sfen);

    // Every game once, with the folder it came from.
    let mut games: BTreeMap<u64, (GameResult, &Path)> = BTreeMap::new();
    for f in &folders {
        let path = f.dir.join("results.jsonl");
        if !path.exists() {
            continue; // a shard that has not finished a game yet
        }
        let read = results::read(&path).map_err(|e| e.to_string())?;
        if read.truncated_tail {
            tracing::warn!("{}: ignoring a cut-off last line", path.display());
        }
        for g in read.games {
            check_game(&g, by_id.get(&g.id).copied(), f.shard, start_sfen).map_err(|why| {
                format!(
                    "{}: game {} is not the run's game {}: {why}",
                    path.display(),
                    g.id,
                    g.id
                )
            })?;
            match games.get(&g.id) {
                Some((seen, from)) if *seen != g => {
                    return Err(format!(
                        "game {} differs between {} and {}",
                        g.id,
                        from.display(),
                        f.dir.display()
                    ));
                }
                Some(_) => {}
                None => {
                    games.insert(g.id, (g, &f.dir));
                }
            }
        }
    }

    write_folder(out, first, &config, seed, &games)?;
    let records_missing = copy_records(out, &games)?;
    let games: Vec<GameResult> = games.into_values().map(|(g, _)| g).collect();
    let summary = Summary::new(&config, &games, seed, 0, Duration::ZERO);
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
    config: &Config,
    seed: u64,
    games: &BTreeMap<u64, (GameResult, &Path)>,
) -> Result<(), String> {
    let results_path = out.join("results.jsonl");
    if results_path
        .metadata()
        .map(|m| m.len() > 0)
        .unwrap_or(false)
    {
        return Err(format!(
            "{} already holds results: merge into a new folder",
            out.display()
        ));
    }
    std::fs::create_dir_all(out.join("records")).map_err(|e| format!("{}: {e}", out.display()))?;
    let info = RunInfo {
        seed,
        config_file: first.info.config_file.clone(),
        config_text: first.info.config_text.clone(),
        games: config.games,
        shard: None,
    };
    info.write(out).map_err(|e| e.to_string())?;
    let mut text = String::new();
    for (g, _) in games.values() {
        text.push_str(&serde_json::to_string(g).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    let partial = out.join("results.jsonl.partial");
    std::fs::write(&partial, text).map_err(|e| format!("{}: {e}", partial.display()))?;
    std::fs::rename(&partial, &results_path).map_err(|e| format!("{}: {e}", results_path.display()))
}

/// Copy each game's records from its shard folder; returns the record files that were absent.
fn copy_records(
    out: &Path,
    games: &BTreeMap<u64, (GameResult, &Path)>,
) -> Result<Vec<String>, String> {
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
                std::fs::copy(&from, &to)
                    .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))?;
            } else {
                absent.push(from.display().to_string());
            }
        }
    }
    Ok(absent)
}
