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

/// Reads the model file `file` (relative to `base`, the config's folder). The error says which
/// file and what is wrong with it.
pub(super) fn load_model(base: &Path, file: &Path) -> Result<IntuitionModel, String> {
    let path = base.join(file);
    let bytes = std::fs::read(&path)
        .map_err(|e| format!("cannot read the model file {}: {e}", path.display()))?;
    let model = Model::from_bytes(&bytes)
        .map_err(|e| format!("{} is not a usable model file: {e}", path.display()))?;
    Ok(IntuitionModel {
        path,
        fnv1a64: engine::intuition::fnv1a64(&bytes),
        model: Arc::new(model),
    })
}

/// A setting's letter (`a`..`f`), or the default (d) when none is given.
pub(super) fn setting(text: Option<&str>) -> Result<Setting, String> {
    text.map_or(Ok(Setting::default()), |t| {
        t.parse()
            .map_err(|e: engine::intuition::UnknownSetting| e.to_string())
    })
}
