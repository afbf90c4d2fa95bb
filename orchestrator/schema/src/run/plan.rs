//! The run as validated, as `run.json` records it (its `plan`): the players with what they run
//! (resolved commands, arguments, options, budgets, model files and their content hashes) and
//! the schedule's inputs (format, playing players, games, openings as resolved start
//! positions), the plies and adjudication. Every reader of a run folder (the schedule, the
//! summary, merge, the live page, `council-analyze council`) reads these types and never the
//! config again, so a folder copied to another machine reads without that machine's `PATH`,
//! engines or model files. [`RunPlan::of`] is the one way from a validated [`Config`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{
    Config, CouncilSettings, DrawRule, Format, Openings, PlayerConfig, ResignRule,
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
    /// Every configured player (playing, or a council's member), by name, as validated (a
    /// council member without limits of its own takes its council's budget).
    #[serde(deserialize_with = "named")]
    pub players: BTreeMap<String, PlayerConfig>,
}

/// The players as recorded, each given the name it is recorded under.
fn named<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, PlayerConfig>, D::Error> {
    let mut players = BTreeMap::<String, PlayerConfig>::deserialize(d)?;
    for (name, p) in &mut players {
        p.name.clone_from(name);
    }
    Ok(players)
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
            players: config.players.clone(),
        }
    }

    /// The council settings of `name`, if it is a council of this run.
    pub fn council(&self, name: &str) -> Option<&CouncilSettings> {
        self.players.get(name)?.kind.council()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PlayerKind;

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

        assert_eq!(read.players, config.players, "the players as validated");

        let hash = engine::intuition::fnv1a64(&bytes);
        let PlayerKind::Internal(a) = &read.players["a"].kind else {
            panic!("a is internal: {json}");
        };
        assert_eq!(a.options.get("Eval_Silver"), Some(300));
        let candidates = a.candidates.as_ref().expect("candidates");
        assert_eq!(
            (candidates.k, candidates.setting.to_string()),
            (3, "b".into())
        );
        assert_eq!(candidates.model.fnv1a64, hash);
        let PlayerKind::Usi(u) = &read.players["u"].kind else {
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
        // Recorded as the previous build wrote a player: changed options only, the
        // setting's letter, the hash as 16 hex digits, no name.
        assert!(
            json.contains("\"options\": {\n        \"Eval_Silver\": 300\n      }")
                && json.contains("\"setting\": \"b\"")
                && json.contains(&format!("\"fnv1a64\": \"{hash:016x}\""))
                && !json.contains("\"name\""),
            "{json}"
        );
    }
}
