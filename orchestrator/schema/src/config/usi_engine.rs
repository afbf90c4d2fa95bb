//! An external USI engine's settings as validated: how to start it and its quirks, and where its
//! command is found (`PATH`, or the config's folder). Knows nothing of the TOML file: the config's
//! validation (`validate/engines.rs`) reads the engine keys and hands them here.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// An option value sent with `setoption`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Text(s) => f.write_str(s),
        }
    }
}

/// How a USI engine writes drops: USI's `P*5e`, or `P@5e` (sjaakii, and the chess-variant
/// engines it comes from). Only the engine's own lines are translated; everything the arbiter
/// records is USI.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DropNotation {
    #[default]
    #[serde(rename = "*")]
    Star,
    #[serde(rename = "@")]
    At,
}

/// A `drop_notation` value that is neither `"*"` nor `"@"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be \"*\" (USI drops, `P*5e`) or \"@\" (`P@5e`), got \"{0}\"")]
pub(super) struct BadDropNotation(String);

impl DropNotation {
    /// The `drop_notation` key's value (`"*"` when absent); the problem when it is neither.
    pub(super) fn from_key(key: Option<&str>) -> Result<Self, BadDropNotation> {
        match key {
            None | Some("*") => Ok(DropNotation::Star),
            Some("@") => Ok(DropNotation::At),
            Some(other) => Err(BadDropNotation(other.to_owned())),
        }
    }

    /// The character between piece and square.
    pub fn mark(self) -> char {
        match self {
            DropNotation::Star => '*',
            DropNotation::At => '@',
        }
    }
}

/// An external USI engine: how to start it and its quirks, read from a `kind = "usi"` table and
/// validated once (`validate::engines`); `player::usi::UsiPlayer` keeps it as is.
/// A new engine quirk is a field here, its line in `raw.rs`'s `player_keys!`, its reading in
/// `validate::engines::usi_engine`, and the code in `player::usi` that honours it.
/// In `run.json` as these keys, `options` an object in the order they are sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsiEngineSettings {
    /// The executable, resolved (on `PATH`, or relative to the config's folder).
    pub command: PathBuf,
    pub args: Vec<String>,
    /// Working folder, relative to the config's folder.
    pub dir: Option<PathBuf>,
    /// Sent with `setoption` after `usiok`, in name order.
    #[serde(with = "option_list")]
    pub options: Vec<(String, OptionValue)>,
    /// Deadline for `usiok` and for `readyok`, ms.
    pub startup_timeout_ms: u64,
    /// `score cp` at or beyond this magnitude is a mate score (gpsusi reports mates as
    /// `cp +-1148897`).
    pub mate_cp: i32,
    /// Whether the engine understands `go nodes` / `go depth` (gpsusi aborts on them).
    pub go_nodes: bool,
    /// A USI option set to the game's seed before each game (e.g. `NoiseSeed` of
    /// council-engine), so noisy USI engines replay like in-process ones.
    pub seed_option: Option<String>,
    /// How the engine writes drops (sjaakii writes and reads `P@5e`, not USI's `P*5e`).
    pub drop_notation: DropNotation,
    /// Whether the engine honours `byoyomi` (sjaakii plays at once on `btime 0 wtime 0
    /// byoyomi N`); when not, the arbiter's clock is sent as `go movetime X`.
    pub go_byoyomi: bool,
    /// Whether the engine understands `position startpos` (sjaakii takes it as the last
    /// SFEN it was given); when not, the start position's SFEN is sent instead.
    pub position_startpos: bool,
    /// Start a fresh process for every game (cutechess-cli's `restart=on`). Engines that keep
    /// state across games despite `usinewgame` (Fairy-Stockfish 11.1, measured: the same game
    /// replayed in a process that played others before differs) otherwise play a game by what
    /// their process played before it, which depends on how the games were dealt out.
    pub restart: bool,
}

/// `options` as a JSON object whose keys keep the list's order.
mod option_list {
    use std::fmt;

    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};

    use super::OptionValue;

    pub(super) fn serialize<S: Serializer>(
        list: &[(String, OptionValue)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(list.len()))?;
        for (name, value) in list {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(String, OptionValue)>, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Vec<(String, OptionValue)>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of USI option values")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut list = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    list.push(entry);
                }
                Ok(list)
            }
        }
        d.deserialize_map(InOrder)
    }
}

impl UsiEngineSettings {
    /// [`Self::startup_timeout_ms`] as a duration.
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_millis(self.startup_timeout_ms)
    }
}

/// An engine command that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum CommandProblem {
    #[error("{} does not exist", super::resolved(.0).display())]
    Missing(PathBuf),
    #[error("{} is not an executable file", super::resolved(.0).display())]
    NotExecutable(PathBuf),
    #[error("`{}` not found on PATH", .0.display())]
    NotOnPath(PathBuf),
}

/// Find an engine command: a bare name is looked up on `PATH`, anything with a `/` is taken
/// relative to the config's folder. The result must be an executable file.
pub(super) fn resolve_command(base: &Path, command: &Path) -> Result<PathBuf, CommandProblem> {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &Path| {
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if command.components().count() > 1 {
        let full = base.join(command);
        if !full.exists() {
            return Err(CommandProblem::Missing(full));
        }
        if !is_exec(&full) {
            return Err(CommandProblem::NotExecutable(full));
        }
        return Ok(full);
    }
    let paths = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&paths) {
        let full = dir.join(command);
        if is_exec(&full) {
            return Ok(full);
        }
    }
    Err(CommandProblem::NotOnPath(command.to_path_buf()))
}
