//! The run as validated, as `run.json` records it (its `plan`): the players with what they run
//! (resolved commands, arguments, options, budgets, model files and their content hashes) and
//! the schedule's inputs (format, playing players, games, openings as resolved start
//! positions), the plies and adjudication. Every reader of a run folder (the schedule, the
//! summary, merge, the live page, `council-analyze council`) reads these types and never the
//! config again, so a folder copied to another machine reads without that machine's `PATH`,
//! engines or model files. [`RunPlan::of`] is the one way from a validated [`Config`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::{
    Candidates, Config, CouncilSettings, DrawRule, Format, InternalSettings, IntuitionModel,
    IntuitionSettings, Limits, Openings, PlayerConfig, PlayerKind, ResignRule, UsiEngineSettings,
};
use crate::stats::Sprt;

/// The run's facts, as validated when it started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// The config file's path when the run started.
    pub config_file: String,
    pub format: Format,
    /// The players that play games, in the config's order (with `equal_resources` references).
    pub playing: Vec<String>,
    /// Games per pairing (head-to-head: in total), `--games` applied.
    pub games: u64,
    pub max_plies: u32,
    pub openings: Openings,
    pub resign: Option<ResignRule>,
    /// `[match] draw` (absent when not configured, and in a `run.json` of an older build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawRule>,
    pub timeout_margin_ms: u64,
    pub sprt: Option<Sprt>,
    /// `[match] training`: the training records its games write (absent in a `run.json` of an
    /// older build).
    #[serde(default)]
    pub training: Option<crate::training::Settings>,
    /// Every configured player (playing, or a council's member), by name.
    pub players: BTreeMap<String, PlayerFacts>,
}

/// One player as it played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerFacts {
    #[serde(flatten)]
    pub kind: KindFacts,
    /// Its own limits (a council member without any takes its council's budget).
    pub limits: Limits,
    pub move_timeout_ms: u64,
    pub win_rate_t: f64,
    pub sigma: f64,
    pub ponder: bool,
}

/// A player's kind with its settings (`"kind": "usi"` and the kind's keys beside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum KindFacts {
    Internal(InternalFacts),
    Intuition(IntuitionFacts),
    /// The engine as run: `command` resolved on `PATH` or against the config's folder.
    Usi(UsiEngineSettings),
    Council(CouncilSettings),
}

/// The built-in engine's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InternalFacts {
    pub noise_cp: u32,
    pub hash_mb: u32,
    /// Its tunable options that differ from the engine's defaults, by name.
    pub options: BTreeMap<String, i32>,
    pub candidates: Option<CandidatesFacts>,
}

/// `candidates = { model, k, setting }` as it restricted the root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidatesFacts {
    pub model: ModelFile,
    pub k: usize,
    /// The score setting's letter (`a`..`f`).
    pub setting: String,
}

/// The intuition player's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntuitionFacts {
    pub model: ModelFile,
    /// The score setting's letter (`a`..`f`).
    pub setting: String,
    pub temperature: f64,
}

/// A candidate model file as the run read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    pub path: PathBuf,
    /// FNV-1a 64 of its bytes, 16 hex digits.
    pub fnv1a64: String,
}

impl RunPlan {
    /// The facts of `config` (with its `games` as the run plays them).
    pub fn of(config: &Config) -> RunPlan {
        RunPlan {
            config_file: config.file.display().to_string(),
            format: config.format,
            playing: config.playing.clone(),
            games: config.games,
            max_plies: config.max_plies,
            openings: config.openings.clone(),
            resign: config.resign,
            draw: config.draw,
            timeout_margin_ms: config.timeout_margin_ms,
            sprt: config.sprt,
            training: config.training,
            players: config
                .players
                .iter()
                .map(|(name, p)| (name.clone(), PlayerFacts::of(p)))
                .collect(),
        }
    }

    /// The council settings of `name`, if it is a council of this run.
    pub fn council(&self, name: &str) -> Option<&CouncilSettings> {
        match &self.players.get(name)?.kind {
            KindFacts::Council(c) => Some(c),
            _ => None,
        }
    }
}

impl PlayerFacts {
    fn of(p: &PlayerConfig) -> PlayerFacts {
        PlayerFacts {
            kind: match &p.kind {
                PlayerKind::Internal(s) => KindFacts::Internal(InternalFacts::of(s)),
                PlayerKind::Intuition(s) => KindFacts::Intuition(IntuitionFacts::of(s)),
                PlayerKind::Usi(s) => KindFacts::Usi(s.clone()),
                PlayerKind::Council(c) => KindFacts::Council(c.clone()),
            },
            limits: p.limits,
            move_timeout_ms: p.move_timeout_ms,
            win_rate_t: p.win_rate_t,
            sigma: p.sigma,
            ponder: p.ponder,
        }
    }
}

impl InternalFacts {
    fn of(s: &InternalSettings) -> InternalFacts {
        let defaults = engine::search::options::Tuning::default();
        let options = engine::search::options::TUNABLES
            .iter()
            .filter_map(|t| {
                let value = s.options.get(t.name)?;
                (defaults.get(t.name) != Some(value)).then(|| (t.name.to_string(), value))
            })
            .collect();
        InternalFacts {
            noise_cp: s.noise_cp,
            hash_mb: s.hash_mb,
            options,
            candidates: s.candidates.as_ref().map(CandidatesFacts::of),
        }
    }
}

impl CandidatesFacts {
    fn of(c: &Candidates) -> CandidatesFacts {
        CandidatesFacts {
            model: ModelFile::of(&c.model),
            k: c.k,
            setting: c.setting.to_string(),
        }
    }
}

impl IntuitionFacts {
    fn of(s: &IntuitionSettings) -> IntuitionFacts {
        IntuitionFacts {
            model: ModelFile::of(&s.model),
            setting: s.setting.to_string(),
            temperature: s.temperature,
        }
    }
}

impl ModelFile {
    fn of(m: &IntuitionModel) -> ModelFile {
        ModelFile {
            path: m.path.clone(),
            fnv1a64: format!("{:016x}", m.fnv1a64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of player, every match fact: written as JSON and read back the same, and
    /// read back without the engines or model files it names.
    #[test]
    fn a_plan_reads_back_as_written_without_its_files() {
        let dir = std::env::temp_dir().join(format!("council-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let model = engine::intuition::Model::new(engine::intuition::LearnOptions::default());
        let bytes = model.to_bytes();
        std::fs::write(dir.join("m.bin"), &bytes).expect("write a model");
        std::fs::write(dir.join("open.txt"), "startpos\nstartpos moves 7g7f\n").expect("write");
        let text = "[match]\nformat = \"round-robin\"\nplayers = [\"c\", \"u\", \"i\"]\n\
             openings = \"open.txt\"\nresign = { score_cp = 900, moves = 4 }\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnoise_cp = 5\n\
             options = { Eval_Silver = 300 }\n\
             candidates = { model = \"m.bin\", k = 3, setting = \"b\" }\n\
             [[player]]\nname = \"c\"\nkind = \"council\"\nmembers = [\"a\", \"u\"]\n\
             method = \"approval\"\napproval_k = 2\nweights = { u = 2.0 }\nnodes = 100\n\
             [[player]]\nname = \"u\"\nkind = \"usi\"\ncommand = \"sh\"\nargs = [\"-c\", \"x\"]\n\
             options = { Threads = 1, USI_Ponder = false, Book = \"none\" }\n\
             drop_notation = \"@\"\nmovetime_ms = 50\n\
             [[player]]\nname = \"i\"\nkind = \"intuition\"\nmodel = \"m.bin\"\ntemperature = 0.5\n";
        let config = Config::parse(&dir.join("c.toml"), text).expect("a valid config");
        let plan = RunPlan::of(&config);
        let json = serde_json::to_string_pretty(&plan).expect("serialized");
        std::fs::remove_dir_all(&dir).expect("the files are gone");
        let read: RunPlan = serde_json::from_str(&json).expect("read back");
        assert_eq!(read, plan);

        let hash = format!("{:016x}", engine::intuition::fnv1a64(&bytes));
        let KindFacts::Internal(a) = &read.players["a"].kind else {
            panic!("a is internal: {json}");
        };
        assert_eq!(
            a.options,
            BTreeMap::from([("Eval_Silver".to_string(), 300)])
        );
        let candidates = a.candidates.as_ref().expect("candidates");
        assert_eq!((candidates.k, candidates.setting.as_str()), (3, "b"));
        assert_eq!(candidates.model.fnv1a64, hash);
        let KindFacts::Usi(u) = &read.players["u"].kind else {
            panic!("u is usi: {json}");
        };
        assert!(
            u.command.is_absolute(),
            "resolved on PATH: {}",
            u.command.display()
        );
        let names: Vec<&str> = u.options.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Book", "Threads", "USI_Ponder"]);
        let c = read.council("c").expect("c is a council");
        assert_eq!((c.approval_k, c.weights.as_slice()), (2, &[1.0, 2.0][..]));
        assert_eq!(read.players["u"].limits.movetime_ms, Some(50));
        let Openings::File { lines, .. } = &read.openings else {
            panic!("an openings file: {json}");
        };
        assert_eq!(lines.len(), 2);
        assert!(
            json.contains("\"kind\": \"intuition\"") && json.contains("\"drop_notation\": \"@\""),
            "{json}"
        );
    }
}
