//! The run folder's own facts: `run.json` (what `--resume` continues, and what every reader of
//! the folder learns of the run: its [`plan::RunPlan`]), the schedule of games, shards of it,
//! and `summary.json`. Types and their files only: the runner that writes them lives in the
//! play crate.

pub mod by_family;
pub mod plan;
pub mod ratings;
pub mod schedule;
pub mod shard;
pub mod summary;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError};
use crate::written_by::WrittenBy;
use plan::RunPlan;
use shard::Shard;

/// A run folder's `run.json` that cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunInfoError {
    #[error(
        "{}: no run.json here, so not a council-match run folder ({cause})",
        path.parent().unwrap_or(path).display()
    )]
    NotARun {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}: {problem}", path.display())]
    Malformed { path: PathBuf, problem: String },
    #[error("{}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// A `run.json` without a plan this build reads (written by an older build), whose config
    /// does not validate on this machine (an engine not on `PATH`, a model file missing).
    #[error(
        "{}: written by an older build that did not record the run's players, and its config cannot be validated here: {error} (read the run where it was played, or resume it there once with this build, which records them)",
        path.display()
    )]
    NoPlan { path: PathBuf, error: ConfigError },
}

/// What the run folder remembers: what `--resume` checks it continues the same run with, and
/// the run as validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredRunInfo")]
pub struct RunInfo {
    pub seed: u64,
    pub config_file: String,
    /// The config's text as validated: `--resume`'s "same config" check, and for reference.
    pub config_text: String,
    pub games: u64,
    /// The shard of the run this folder plays; absent for a whole (or merged) run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The run as validated; absent in a `run.json` written by an older build (or by another
    /// build whose plan this one does not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<RunPlan>,
    /// The program that wrote this file (started, extended or merged the run); absent in
    /// files written by older builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<WrittenBy>,
}

/// `run.json` as read: a `plan` this build does not read (another build's format) is left
/// out, so the run reads as an older build's does (its config validated again) rather than
/// not at all.
#[derive(Deserialize)]
struct StoredRunInfo {
    seed: u64,
    config_file: String,
    config_text: String,
    games: u64,
    #[serde(default)]
    shard: Option<Shard>,
    #[serde(default)]
    plan: Option<serde_json::Value>,
    #[serde(default)]
    written_by: Option<WrittenBy>,
}

impl From<StoredRunInfo> for RunInfo {
    fn from(s: StoredRunInfo) -> RunInfo {
        RunInfo {
            seed: s.seed,
            config_file: s.config_file,
            config_text: s.config_text,
            games: s.games,
            shard: s.shard,
            plan: s.plan.and_then(|p| serde_json::from_value(p).ok()),
            written_by: s.written_by,
        }
    }
}

impl RunInfo {
    /// Read `DIR/run.json`.
    pub fn read(dir: &Path) -> Result<RunInfo, RunInfoError> {
        let path = dir.join("run.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(cause) => return Err(RunInfoError::NotARun { path, cause }),
        };
        serde_json::from_str(&text).map_err(|e| RunInfoError::Malformed {
            path,
            problem: e.to_string(),
        })
    }

    /// The run's plan: as recorded, or for a `run.json` written by an older build, its config
    /// text validated again here (which needs the engines and model files it names), `DIR`
    /// being the run folder.
    pub fn plan(&self, dir: &Path) -> Result<RunPlan, RunInfoError> {
        if let Some(plan) = &self.plan {
            return Ok(plan.clone());
        }
        let mut config =
            Config::parse(Path::new(&self.config_file), &self.config_text).map_err(|error| {
                RunInfoError::NoPlan {
                    path: dir.join("run.json"),
                    error,
                }
            })?;
        // `--games` as the run was started.
        config.games = self.games;
        Ok(RunPlan::of(&config))
    }

    /// Write `DIR/run.json`.
    pub fn write(&self, dir: &Path) -> Result<(), RunInfoError> {
        let path = dir.join("run.json");
        // Plain data with string keys: serializing cannot fail.
        let json = serde_json::to_string_pretty(self).unwrap_or_default();
        std::fs::write(&path, json).map_err(|cause| RunInfoError::Write { path, cause })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PlayerKind;

    /// A scratch folder of this test's own.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("council-run-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    }

    /// The `run.json` the previous build (b8c35c4) wrote for a run with every kind of player
    /// (`council-match every-kind.toml --out run`, its config text inside) reads through
    /// [`RunInfo::read`] with its plan, each player of its kind and named by its key, and is
    /// written back byte for byte.
    #[test]
    fn an_older_builds_run_json_reads_and_writes_back_the_same() {
        let old = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/run-json/every-kind-b8c35c4.json"
        ));
        let dir = scratch("old");
        std::fs::write(dir.join("run.json"), old).expect("write");
        let info = RunInfo::read(&dir).expect("an older build's run.json reads");
        let plan = info.plan.clone().expect("its plan reads");
        let kinds: Vec<(&str, &str, bool)> = plan
            .players
            .iter()
            .map(|(key, p)| {
                let kind = match &p.kind {
                    PlayerKind::Internal(_) => "internal",
                    PlayerKind::Intuition(_) => "intuition",
                    PlayerKind::Usi(_) => "usi",
                    PlayerKind::Council(_) => "council",
                };
                (key.as_str(), kind, *key == p.name)
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("a", "internal", true),
                ("c", "council", true),
                ("i", "intuition", true),
                ("u", "usi", true)
            ]
        );
        let PlayerKind::Internal(a) = &plan.players["a"].kind else {
            unreachable!("checked above")
        };
        assert_eq!(a.options.get("Eval_Silver"), Some(300));
        let c = a.candidates.as_ref().expect("a's candidates");
        assert_eq!((c.model.fnv1a64, c.k), (0x5efa_a46f_9743_aa2a, 3));
        assert_eq!(plan.playing, ["i", "c"]);
        std::fs::remove_file(dir.join("run.json")).expect("remove");
        info.write(&dir).expect("write back");
        let again = std::fs::read_to_string(dir.join("run.json")).expect("read");
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert_eq!(again, old, "written back as the older build wrote it");
    }

    /// A `run.json` written today reads back through [`RunInfo::read`] to the config as
    /// validated: every player the same (its name, a model's file and hash, `log`).
    #[test]
    fn a_run_json_written_today_reads_back_to_the_validated_config() {
        let dir = scratch("today");
        let model = engine::intuition::Model::new(engine::intuition::LearnOptions::default());
        std::fs::write(dir.join("m.bin"), model.to_bytes()).expect("write a model");
        let text = "[match]\nformat = \"gauntlet\"\nplayers = [\"i\", \"c\"]\ngames = 3\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nhash_mb = 8\n\
             options = { Eval_Silver = 300 }\n\
             candidates = { model = \"m.bin\", k = 3, setting = \"b\" }\n\
             [[player]]\nname = \"u\"\nkind = \"usi\"\ncommand = \"sh\"\nlog = true\n\
             [[player]]\nname = \"c\"\nkind = \"council\"\nmembers = [\"a\", \"u\"]\n\
             nodes = 100\n\
             [[player]]\nname = \"i\"\nkind = \"intuition\"\nmodel = \"m.bin\"\n";
        let config = Config::parse(&dir.join("c.toml"), text).expect("a valid config");
        let written = RunInfo {
            seed: 5,
            config_file: config.file.display().to_string(),
            config_text: config.text.clone(),
            games: config.games,
            shard: None,
            plan: Some(RunPlan::of(&config)),
            written_by: None,
        };
        written.write(&dir).expect("write run.json");
        let read = RunInfo::read(&dir).expect("read run.json");
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert_eq!(read, written);
        let plan = read.plan.expect("a plan");
        assert_eq!(plan.players, config.players);
        assert!(plan.players["u"].log && !plan.players["a"].log);
    }

    /// An older build's `run.json` (no plan) and one whose plan this build cannot read both
    /// read, without a plan; the plan then comes from the config text, validated again.
    #[test]
    fn a_run_json_without_a_readable_plan_reads_and_falls_back_to_its_config() {
        let text = "[match]\nplayers = [\"a\", \"b\"]\ngames = 2\n\
                    [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                    [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";
        let old = serde_json::json!({
            "seed": 3, "config_file": "t.toml", "config_text": text, "games": 6,
        });
        let mut other = old.clone();
        other["plan"] = serde_json::json!({"format": "swiss"});
        for json in [old, other] {
            let info: RunInfo = serde_json::from_value(json).expect("a run.json");
            assert_eq!(info.plan, None);
            let plan = info.plan(Path::new("run")).expect("validated again");
            assert_eq!((plan.games, plan.playing.len()), (6, 2), "--games kept");
            let written = RunInfo {
                plan: Some(plan.clone()),
                ..info
            };
            let read: RunInfo =
                serde_json::from_str(&serde_json::to_string(&written).expect("JSON"))
                    .expect("read back");
            assert_eq!(read.plan(Path::new("run")).expect("recorded"), plan);
        }
        let broken = RunInfo {
            seed: 1,
            config_file: "t.toml".into(),
            config_text: text.replace("nodes = 10", "nodez = 10"),
            games: 2,
            shard: None,
            plan: None,
            written_by: None,
        };
        let e = broken.plan(Path::new("run")).expect_err("unvalidatable");
        let e = e.to_string();
        assert!(
            e.starts_with("run/run.json: written by an older build") && e.contains("nodez"),
            "{e}"
        );
    }
}
