//! What each kind of engine needs of its table: the built-in engine's options and candidate
//! restriction, the intuition player's model, a USI engine's command and quirks (with their
//! defaults).

use std::collections::BTreeMap;
use std::path::Path;

use super::super::intuition::{self, Candidates, ModelProblem, Models};
use super::super::player_keys::{RawCandidates, RawPlayer};
use super::super::usi_engine::{
    BadDropNotation, CommandProblem, DropNotation, OptionValue, UsiEngineSettings, resolve_command,
};
use super::super::{ConfigError, InternalSettings, IntuitionSettings};
use super::at::PlayerAt;

/// `kind = "internal"`.
pub(super) fn internal(
    at: &PlayerAt<'_>,
    base: &Path,
    p: &RawPlayer,
    models: &mut Models,
) -> Result<InternalSettings, ConfigError> {
    Ok(InternalSettings {
        noise_cp: p.noise_cp.unwrap_or(0),
        hash_mb: p.hash_mb.unwrap_or(16),
        options: internal_options(&p.options)
            .map_err(|(k, problem)| at.err(&format!("options.{k}"), problem))?,
        candidates: match &p.candidates {
            None => None,
            Some(c) => Some(candidates(at, base, c, models)?),
        },
    })
}

/// What is wrong with an internal player's option.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum OptionProblem {
    #[error("must be a whole number, got `{0}`")]
    NotWhole(OptionValue),
    #[error(transparent)]
    Tuning(#[from] engine::search::options::TuningError),
}

/// An internal player's `options`: each a tunable of the built-in engine, a whole number in its
/// range; an error names the option and what is wrong.
fn internal_options(
    options: &BTreeMap<String, OptionValue>,
) -> Result<engine::search::options::Tuning, (&str, OptionProblem)> {
    let mut tuning = engine::search::options::Tuning::default();
    for (k, v) in options {
        let OptionValue::Int(n) = v else {
            return Err((k, OptionProblem::NotWhole(v.clone())));
        };
        tuning.set(k, *n).map_err(|e| (k.as_str(), e.into()))?;
    }
    Ok(tuning)
}

/// `candidates = { model, k, setting }` of an internal player.
fn candidates(
    at: &PlayerAt<'_>,
    base: &Path,
    c: &RawCandidates,
    models: &mut Models,
) -> Result<Candidates, ConfigError> {
    let problem = |k: &str, e: ModelProblem| at.err(&format!("candidates.{k}"), e);
    if c.k < 1 {
        return Err(at.err(
            "candidates.k",
            format_args!("must be at least 1, got {}", c.k),
        ));
    }
    Ok(Candidates {
        model: intuition::load_model(base, &c.model, models).map_err(|e| problem("model", e))?,
        k: c.k as usize,
        setting: intuition::setting(c.setting.as_deref()).map_err(|e| problem("setting", e))?,
    })
}

/// `kind = "intuition"`.
pub(super) fn intuition(
    at: &PlayerAt<'_>,
    base: &Path,
    p: &RawPlayer,
    models: &mut Models,
) -> Result<IntuitionSettings, ConfigError> {
    let Some(file) = &p.model else {
        return Err(at.err("model", "an intuition player needs a model file"));
    };
    let temperature = p.temperature.unwrap_or(0.0);
    if !(temperature.is_finite() && temperature >= 0.0) {
        return Err(at.err(
            "temperature",
            format_args!("must be a number >= 0, got {temperature}"),
        ));
    }
    Ok(IntuitionSettings {
        model: intuition::load_model(base, file, models).map_err(|e| at.err("model", e))?,
        setting: intuition::setting(p.setting.as_deref()).map_err(|e| at.err("setting", e))?,
        temperature,
    })
}

/// What is wrong with an engine key of a `kind = "usi"` player.
#[derive(Debug, thiserror::Error)]
enum UsiKeyProblem {
    #[error("missing")]
    NoCommand,
    #[error(transparent)]
    Command(#[from] CommandProblem),
    #[error("{} is not a folder", crate::config::resolved(.0).display())]
    NotAFolder(std::path::PathBuf),
    #[error("must be positive")]
    MateCp,
    #[error(transparent)]
    DropNotation(#[from] BadDropNotation),
}

impl UsiKeyProblem {
    /// The key at fault, below `player[i].`.
    fn key(&self) -> &'static str {
        match self {
            UsiKeyProblem::NoCommand | UsiKeyProblem::Command(_) => "command",
            UsiKeyProblem::NotAFolder(_) => "dir",
            UsiKeyProblem::MateCp => "mate_cp",
            UsiKeyProblem::DropNotation(_) => "drop_notation",
        }
    }
}

/// `kind = "usi"`.
pub(super) fn usi(
    at: &PlayerAt<'_>,
    base: &Path,
    p: &RawPlayer,
) -> Result<UsiEngineSettings, ConfigError> {
    usi_engine(base, p).map_err(|problem| at.err(problem.key(), problem))
}

/// The engine keys of `p` with their defaults, checked.
fn usi_engine(base: &Path, p: &RawPlayer) -> Result<UsiEngineSettings, UsiKeyProblem> {
    let command = p.command.as_ref().ok_or(UsiKeyProblem::NoCommand)?;
    let command = resolve_command(base, command)?;
    let dir = p.dir.as_ref().map(|d| base.join(d));
    if let Some(d) = &dir
        && !d.is_dir()
    {
        return Err(UsiKeyProblem::NotAFolder(d.clone()));
    }
    let mate_cp = p.mate_cp.unwrap_or(100_000);
    if mate_cp <= 0 {
        return Err(UsiKeyProblem::MateCp);
    }
    let drop_notation = DropNotation::from_key(p.drop_notation.as_deref())?;
    Ok(UsiEngineSettings {
        command,
        args: p.args.clone(),
        dir,
        options: p.options.clone().into_iter().collect(),
        startup_timeout_ms: p.startup_timeout_ms.unwrap_or(10_000),
        mate_cp,
        go_nodes: p.go_nodes.unwrap_or(true),
        seed_option: p.seed_option.clone(),
        drop_notation,
        go_byoyomi: p.go_byoyomi.unwrap_or(true),
        position_startpos: p.position_startpos.unwrap_or(true),
        restart: p.restart.unwrap_or(false),
    })
}
