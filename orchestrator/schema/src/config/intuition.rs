//! The candidate model (engine::intuition) as a config names it: the model file a player of
//! kind `intuition` plays from, and the `candidates = { model, k }` that restricts an in-process
//! search's root to intuition's top K moves. The file is read once, when the config is
//! validated, so a missing or broken model stops the run before any game with one line naming
//! the file and what is wrong. A player's settings name the file as `run.json` records it
//! ([`ModelFile`]: where, and a hash of its bytes); the model read sits in the config's
//! [`Models`], by that hash, so the settings are plain data a run folder reads back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::intuition::{Model, Setting};
use serde::{Deserialize, Serialize};

/// A model file as the run read it (in `run.json` as `{"path", "fnv1a64"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelFile {
    /// The file, as resolved against the config's folder.
    pub path: PathBuf,
    /// FNV-1a 64 of the file's bytes as read: which model a run played (16 hex digits).
    #[serde(with = "hex64")]
    pub fnv1a64: u64,
}

/// The models a config's players play from, read once when it was validated, by the hash of
/// their bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Models(BTreeMap<u64, Arc<Model>>);

impl Models {
    /// The model `file` names. Validation read every model a config's players name, so a
    /// player of a validated config always finds its own.
    pub fn get(&self, file: &ModelFile) -> Arc<Model> {
        match self.0.get(&file.fnv1a64) {
            Some(model) => Arc::clone(model),
            None => panic!(
                "{}: a model the config's validation did not read",
                file.path.display()
            ),
        }
    }
}

/// `candidates = { model = "...", k = K, setting = "d" }`: the root searches only the top `k`
/// moves of the model under `setting`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidates {
    pub model: ModelFile,
    pub k: usize,
    /// In `run.json` as its letter (`a`..`f`).
    #[serde(with = "letter")]
    pub setting: Setting,
}

/// A hash as 16 hex digits.
mod hex64 {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(hash: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{hash:016x}"))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16)
            .map_err(|e| D::Error::custom(format!("fnv1a64 `{text}`: {e}")))
    }
}

/// A score setting as its letter.
pub(super) mod letter {
    use engine::intuition::Setting;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(in super::super) fn serialize<S: Serializer>(
        setting: &Setting,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_str(setting)
    }

    pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Setting, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
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

/// Reads the model file `file` (relative to `base`, the config's folder) into `models`. The
/// error says which file and what is wrong with it.
pub(super) fn load_model(
    base: &Path,
    file: &Path,
    models: &mut Models,
) -> Result<ModelFile, ModelProblem> {
    let path = base.join(file);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(cause) => return Err(ModelProblem::Read { path, cause }),
    };
    let model = match Model::from_bytes(&bytes) {
        Ok(model) => model,
        Err(error) => return Err(ModelProblem::NotAModel { path, error }),
    };
    let fnv1a64 = engine::intuition::fnv1a64(&bytes);
    models.0.insert(fnv1a64, Arc::new(model));
    Ok(ModelFile { path, fnv1a64 })
}

/// A setting's letter (`a`..`f`), or the default (d) when none is given.
pub(super) fn setting(text: Option<&str>) -> Result<Setting, ModelProblem> {
    Ok(text.map_or(Ok(Setting::default()), str::parse)?)
}
