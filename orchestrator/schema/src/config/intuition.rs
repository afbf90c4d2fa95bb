//! The candidate model (engine::intuition) as a config names it: the model file a player of
//! kind `intuition` plays from, and the `candidates = { model, k }` that restricts an in-process
//! search's root to intuition's top K moves. The file is read once, when the config is
//! validated, so a missing or broken model stops the run before any game with one line naming
//! the file and what is wrong.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::intuition::{Model, Setting};

/// A model file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct IntuitionModel {
    /// The file, as resolved against the config's folder.
    pub path: PathBuf,
    /// FNV-1a 64 of the file's bytes as read: which model a run played (`run.json`).
    pub fnv1a64: u64,
    pub model: Arc<Model>,
}

/// `candidates = { model = "...", k = K, setting = "d" }`: the root searches only the top `k`
/// moves of the model under `setting`.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidates {
    pub model: IntuitionModel,
    pub k: usize,
    pub setting: Setting,
}

/// A model file that cannot be played from, or a setting that is not one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(super) enum ModelProblem {
    #[error("cannot read the model file {}: {cause}", super::resolved(path).display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{} is not a usable model file: {error}", super::resolved(path).display())]
    NotAModel {
        path: PathBuf,
        error: engine::intuition::ModelFileError,
    },
    #[error(transparent)]
    Setting(#[from] engine::intuition::UnknownSetting),
}

/// Reads the model file `file` (relative to `base`, the config's folder). The error says which
/// file and what is wrong with it.
pub(super) fn load_model(base: &Path, file: &Path) -> Result<IntuitionModel, ModelProblem> {
    let path = base.join(file);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(cause) => return Err(ModelProblem::Read { path, cause }),
    };
    let model = match Model::from_bytes(&bytes) {
        Ok(model) => model,
        Err(error) => return Err(ModelProblem::NotAModel { path, error }),
    };
    Ok(IntuitionModel {
        path,
        fnv1a64: engine::intuition::fnv1a64(&bytes),
        model: Arc::new(model),
    })
}

/// A setting's letter (`a`..`f`), or the default (d) when none is given.
pub(super) fn setting(text: Option<&str>) -> Result<Setting, ModelProblem> {
    Ok(text.map_or(Ok(Setting::default()), str::parse)?)
}
