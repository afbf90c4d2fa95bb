//! Reading a configuration file: its text, the TOML parse (errors made one line, with the line
//! and key), then validation.

use std::path::Path;

use super::raw::{RawConfig, RawPlayers, default_games, default_margin, default_max_plies};
use super::validate::{validate, validate_players};
use super::{Config, ConfigError, Format, Openings};

impl Config {
    /// Read, parse and validate `path`. Relative paths inside (openings, engine commands that
    /// contain a `/`, working folders) are taken relative to the config file's folder. The file
    /// is read once: the text kept in [`Config::text`] is the text validated.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Self::load_with_seed(path, None)
    }

    /// [`Config::load`] with the master seed `seed` (a program's `--seed`) in place of
    /// `[match] seed` when given: everything the master seed draws while the config is
    /// validated (a book's opening lines) is drawn from it, as the games' seeds are.
    pub fn load_with_seed(path: &Path, seed: Option<u64>) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.display().to_string(),
            location: String::new(),
            problem: format!("cannot read: {e}"),
        })?;
        Self::parse_with_seed(path, &text, seed)
    }

    /// Parse and validate `text` as if read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        Self::parse_with_seed(path, text, None)
    }

    /// [`Config::parse`] with the master seed `seed` in place of `[match] seed` when given.
    pub fn parse_with_seed(
        path: &Path,
        text: &str,
        seed: Option<u64>,
    ) -> Result<Config, ConfigError> {
        let mut raw: RawConfig = toml::from_str(text).map_err(|e| toml_error(path, text, &e))?;
        if let Some(s) = seed {
            raw.tournament.seed = s;
        }
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut config = validate(path, &base, raw)?;
        config.text = text.to_owned();
        Ok(config)
    }

    /// Read and validate only the `[[player]]` tables of `path` (`council-usi`): `[match]` may be
    /// absent and is not read. The result has no playing players and default match settings;
    /// any of its players can be built.
    pub fn load_players(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.display().to_string(),
            location: String::new(),
            problem: format!("cannot read: {e}"),
        })?;
        let raw: RawPlayers = toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let (players, models) = validate_players(path, base, raw.players)?;
        if players.is_empty() {
            return Err(ConfigError::key(path, "player", "no [[player]] table"));
        }
        Ok(Config {
            file: path.to_path_buf(),
            text,
            format: Format::HeadToHead,
            playing: Vec::new(),
            players,
            models,
            games: default_games(),
            max_plies: default_max_plies(),
            seed: 0,
            openings: Openings::Single("startpos".into()),
            resign: None,
            draw: None,
            timeout_margin_ms: default_margin(),
            sprt: None,
            training: None,
            tune: None,
        })
    }
}

/// A TOML error as one line: the line, the key given a bad value, the text at fault.
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let mut location = String::new();
    if let Some(span) = e.span() {
        let start = span.start.min(text.len());
        let line = text[..start].matches('\n').count() + 1;
        location.push_str(&format!("line {line}: "));
        // A bad value: name the key it was given for, as written on that line.
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_text = text[line_start..].lines().next().unwrap_or("");
        if let Some((key, _)) = line_text.split_once('=')
            && start > line_start + key.len()
            && !key.trim().is_empty()
            && !key.contains('[')
        {
            location.push_str(&format!("key `{}`: ", key.trim()));
        }
        let snippet = text.get(span.clone()).unwrap_or("").trim();
        if !snippet.is_empty() && !snippet.contains('\n') && snippet.len() < 60 {
            location.push_str(&format!("at `{snippet}`: "));
        }
    }
    ConfigError {
        file: path.display().to_string(),
        location,
        problem: pointed(e.message().trim()).replace('\n', " "),
    }
}

/// serde's "unknown field `node`, expected one of `nodes`, ..." (or "unknown variant") made
/// to point: the closest known name (by edit distance) when one is close, else the list.
fn pointed(message: &str) -> String {
    let (what, rest) = if let Some(rest) = message.strip_prefix("unknown field `") {
        ("key", rest)
    } else if let Some(rest) = message.strip_prefix("unknown variant `") {
        ("value", rest)
    } else {
        return message.to_string();
    };
    let Some((given, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    // The names serde lists: every other backquoted word after the given one.
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    match closest(given, known.iter().copied()) {
        Some(near) => format!("unknown {what} `{given}`: did you mean `{near}`?"),
        None if known.is_empty() => format!("unknown {what} `{given}`"),
        None => format!(
            "unknown {what} `{given}` (known: {})",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The name of `known` closest to `given`, if it is a likely misspelling: the fewest edits
/// (Damerau–Levenshtein, case aside), at most a third of the longer name's letters and at least
/// one; ties go to the first known. The one rule every "did you mean" of the orchestrator uses:
/// config keys and values, fastchess flags and their keys, an engine's declared options.
pub fn closest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given_lower = given.to_lowercase();
    let given_len = given.chars().count();
    known
        .into_iter()
        .map(|k| {
            let distance = strsim::damerau_levenshtein(&given_lower, &k.to_lowercase());
            (distance, k)
        })
        .filter(|&(d, k)| d <= given_len.max(k.chars().count()).div_ceil(3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}
