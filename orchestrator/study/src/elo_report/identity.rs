//! Who a player's name stands for across runs: each results file's run folder records its
//! players as validated (`run.json`'s `plan`), so a name that stands for different players in
//! different runs (run A's `council` of three built-in engines, run B's `council` of gpsshogi,
//! Fairy-Stockfish and the built-in engine) is found before its games are rated as one player's.
//! `council-elo` warns of each such name, and with `--split-names` rates each version apart as
//! `NAME@RUN`.
//!
//! A player's identity is its recorded facts and, for a council, its members' (recursively):
//! kind, engine command and arguments, options, limits, vote settings. Files without a
//! `run.json` plan (a `council-csa` folder, a run of an older build, a file copied elsewhere)
//! cannot be compared and are left as they are.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use council_schema::run::RunInfo;
use council_schema::run::plan::RunPlan;
use serde_json::Value;

/// One version of a name: the runs where it stands for the same player.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// `NAME@RUN`, RUN the first of its runs' folder names.
    pub qualified: String,
    /// Indices of the results files where the name is this player.
    pub files: Vec<usize>,
}

/// A name that stands for more than one player.
#[derive(Debug, Clone, PartialEq)]
pub struct Clash {
    pub name: String,
    /// In the order of the files.
    pub versions: Vec<Version>,
    /// What differs between the first two versions (`members`, `gps: args`, ...).
    pub differs_in: Vec<String>,
}

/// The clashing names of `files`, each file's run read from the `run.json` beside it.
pub fn find_clashes(files: &[PathBuf]) -> Vec<Clash> {
    let plans: Vec<Option<RunPlan>> = files
        .iter()
        .map(|f| {
            RunInfo::read(f.parent().unwrap_or(Path::new(".")))
                .ok()?
                .plan
        })
        .collect();
    let mut names: BTreeSet<&String> = BTreeSet::new();
    for plan in plans.iter().flatten() {
        names.extend(plan.playing.iter());
    }
    let mut clashes = Vec::new();
    for name in names {
        // Identity -> the files where the name is that player, in file order.
        let mut versions: Vec<(BTreeMap<String, Value>, Vec<usize>)> = Vec::new();
        for (i, plan) in plans.iter().enumerate() {
            let Some(plan) = plan.as_ref().filter(|p| p.players.contains_key(name)) else {
                continue;
            };
            let id = identity(plan, name);
            match versions.iter_mut().find(|(v, _)| *v == id) {
                Some((_, at)) => at.push(i),
                None => versions.push((id, vec![i])),
            }
        }
        if versions.len() < 2 {
            continue;
        }
        let differs_in = differences(&versions[0].0, &versions[1].0, name);
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let versions = versions
            .into_iter()
            .map(|(_, at)| {
                let run = run_label(&files[at[0]]);
                let mut qualified = format!("{name}@{run}");
                let mut n = 2;
                while !taken.insert(qualified.clone()) {
                    qualified = format!("{name}@{run}-{n}");
                    n += 1;
                }
                Version {
                    qualified,
                    files: at,
                }
            })
            .collect();
        clashes.push(Clash {
            name: name.clone(),
            versions,
            differs_in,
        });
    }
    clashes
}

/// The name each clashing name takes in each file, for `--split-names`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Renames {
    by_file: HashMap<(usize, String), String>,
}

impl Renames {
    pub fn of(clashes: &[Clash]) -> Renames {
        let mut by_file = HashMap::new();
        for c in clashes {
            for v in &c.versions {
                for &f in &v.files {
                    by_file.insert((f, c.name.clone()), v.qualified.clone());
                }
            }
        }
        Renames { by_file }
    }

    /// The name `name` is rated under in file `file`.
    pub fn name<'a>(&'a self, file: usize, name: &'a str) -> &'a str {
        self.by_file
            .get(&(file, name.to_string()))
            .map_or(name, String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.by_file.is_empty()
    }
}

/// The run folder's name of a results file (`runs/3vs1-2026-11-27T05-12-33/results.jsonl` ->
/// `3vs1-2026-11-27T05-12-33`).
fn run_label(file: &Path) -> String {
    file.parent().and_then(Path::file_name).map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `name`'s facts and its members', by path in the tree (`council`, `council/gps`).
fn identity(plan: &RunPlan, name: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    collect(plan, name, name.to_string(), &mut out);
    out
}

fn collect(plan: &RunPlan, name: &str, path: String, out: &mut BTreeMap<String, Value>) {
    let Some(facts) = plan.players.get(name) else {
        return;
    };
    // Plain data: serializing cannot fail.
    out.insert(
        path.clone(),
        serde_json::to_value(facts).unwrap_or(Value::Null),
    );
    if let Some(council) = plan.council(name) {
        for m in &council.members {
            collect(plan, m, format!("{path}/{m}"), out);
        }
    }
}

/// The keys where two identities differ: `members` for the root's, `gps: args` for a member's,
/// `gps` for a member only one has.
fn differences(
    a: &BTreeMap<String, Value>,
    b: &BTreeMap<String, Value>,
    root: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    let paths: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for path in paths {
        let label = path
            .strip_prefix(root)
            .map(|p| p.trim_start_matches('/'))
            .unwrap_or(path);
        match (a.get(path), b.get(path)) {
            (Some(Value::Object(x)), Some(Value::Object(y))) => {
                let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    if x.get(k) != y.get(k) {
                        out.push(if label.is_empty() {
                            k.clone()
                        } else {
                            format!("{label}: {k}")
                        });
                    }
                }
            }
            (x, y) if x != y => out.push(if label.is_empty() {
                "everything".to_string()
            } else {
                label.to_string()
            }),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::config::Config;
    use council_schema::run::RunInfo;

    const MEMBERS: &str = "[[player]]\nname = \"a\"\nkind = \"internal\"\n\
                           [[player]]\nname = \"b\"\nkind = \"internal\"\nnoise_cp = 60\n\
                           [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 10\n";

    /// A run folder `dir/run` with the players of `council_members` in its `run.json`.
    fn run_folder(dir: &Path, run: &str, council_members: &str) -> PathBuf {
        let folder = dir.join(run);
        std::fs::create_dir_all(&folder).expect("a folder");
        let text = format!(
            "[match]\nplayers = [\"council\", \"single\"]\ngames = 2\n\
             [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = {council_members}\nnodes = 10\n{MEMBERS}"
        );
        let path = folder.join("c.toml");
        std::fs::write(&path, &text).expect("the config");
        let config = Config::load(&path).expect("a valid config");
        RunInfo {
            seed: 1,
            config_file: path.display().to_string(),
            config_text: text,
            games: 2,
            shard: None,
            plan: Some(RunPlan::of(&config)),
            written_by: None,
        }
        .write(&folder)
        .expect("run.json");
        folder.join("results.jsonl")
    }

    #[test]
    fn a_name_for_two_players_is_found_and_split_by_run() {
        let dir = std::env::temp_dir().join(format!("council-identity-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = vec![
            run_folder(&dir, "A", "[\"a\", \"b\"]"),
            run_folder(&dir, "B", "[\"a\"]"),
            run_folder(&dir, "C", "[\"a\", \"b\"]"),
            // No run.json: left as it is.
            dir.join("elsewhere").join("results.jsonl"),
        ];
        let clashes = find_clashes(&files);
        assert_eq!(clashes.len(), 1, "{clashes:?}");
        let c = &clashes[0];
        assert_eq!(c.name, "council");
        assert_eq!(c.differs_in, ["members", "weights", "b"]);
        let versions: Vec<(&str, &[usize])> = c
            .versions
            .iter()
            .map(|v| (v.qualified.as_str(), v.files.as_slice()))
            .collect();
        assert_eq!(
            versions,
            [("council@A", &[0, 2][..]), ("council@B", &[1][..])]
        );
        let renames = Renames::of(&clashes);
        assert_eq!(renames.name(2, "council"), "council@A");
        assert_eq!(renames.name(1, "council"), "council@B");
        assert_eq!(renames.name(1, "single"), "single");
        assert_eq!(renames.name(3, "council"), "council");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
