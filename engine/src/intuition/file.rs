//! The candidate model's file (version [`MODEL_VERSION`], format name [`MODEL_FORMAT`]): one line of JSON,
//! the header, ended by `\n`, then the binary body. The header holds `format`, `version`,
//! `hash` (`"fnv1a-64"`, the code hash), `provenance` (corpus, split seed and test share, the
//! command, free notes), `learn` (the options and the legal-move threshold), `games` and
//! `learned_moves`, `codes` (the dictionary size), `tables` (name and pair count of each, in body
//! order) and `body_bytes` / `body_fnv1a64` (the body's length and FNV-1a hash in hex, checked
//! on reading). The body, all integers LEB128 varints:
//! 1. the code dictionary: every code used in any table, ascending, as differences from the
//!    previous one (the first from 0);
//! 2. six tables in the order full `prev1`, `prev2`, `after`, then variant f's three: each pair
//!    `(a, b, count)` sorted by (a, b) as dictionary indices, written as the step of `a`'s index
//!    from the previous pair's (0 for the same row), then `b`'s index (as the step from the
//!    previous `b` minus one within the same row, absolute in a new row), then the count.
//!
//! Codes are 64-bit hashes: a dictionary of them and sorted, delta-coded pairs keep the file to
//! a few bytes a pair without a compression crate, and the same tables always give the same
//! bytes.

use super::encoding::{Code, fnv1a64};
use super::model::{LearnOptions, MIN_LEGAL, Model, Pair, Provenance};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use thiserror::Error;

/// The `format` field of a model file.
pub const MODEL_FORMAT: &str = "council-candidates";

/// The model-file version this build reads and writes.
pub const MODEL_VERSION: u32 = 1;

impl Model {
    /// The model file's bytes (see the module doc).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let tables: Vec<(&str, Vec<Pair>)> = TABLE_NAMES
            .iter()
            .zip(self.full.parts().into_iter().chain(self.f.parts()))
            .map(|(&name, t)| (name, t.sorted()))
            .collect();
        let mut dictionary: Vec<Code> = tables
            .iter()
            .flat_map(|(_, pairs)| pairs.iter().flat_map(|&(a, b, _)| [a, b]))
            .collect();
        dictionary.sort_unstable();
        dictionary.dedup();
        let index: HashMap<Code, u64> = dictionary
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i as u64))
            .collect();

        let mut body = Vec::new();
        put_varint(&mut body, dictionary.len() as u64);
        let mut last = 0u64;
        for &code in &dictionary {
            put_varint(&mut body, code - last);
            last = code;
        }
        for (_, pairs) in &tables {
            put_varint(&mut body, pairs.len() as u64);
            let (mut last_a, mut last_b) = (0u64, 0u64);
            for (i, &(a, b, count)) in pairs.iter().enumerate() {
                let (ia, ib) = (index[&a], index[&b]);
                let step = if i == 0 { ia } else { ia - last_a };
                put_varint(&mut body, step);
                if i > 0 && step == 0 {
                    put_varint(&mut body, ib - last_b - 1);
                } else {
                    put_varint(&mut body, ib);
                }
                put_varint(&mut body, u64::from(count));
                (last_a, last_b) = (ia, ib);
            }
        }

        let header = FileHeader {
            format: MODEL_FORMAT.to_string(),
            version: MODEL_VERSION,
            hash: HASH_NAME.to_string(),
            provenance: self.provenance.clone(),
            learn: LearnHeader {
                winner_only: self.options.winner_only,
                min_legal_moves: MIN_LEGAL,
            },
            games: self.games,
            learned_moves: self.learned_moves,
            codes: dictionary.len() as u64,
            tables: tables
                .iter()
                .map(|(name, pairs)| TableHeader {
                    name: (*name).to_string(),
                    pairs: pairs.len() as u64,
                })
                .collect(),
            body_bytes: body.len() as u64,
            body_fnv1a64: format!("{:016x}", fnv1a64(&body)),
        };
        let mut out = serde_json::to_vec(&header)
            .unwrap_or_else(|e| unreachable!("the header serialises: {e}"));
        out.push(b'\n');
        out.extend_from_slice(&body);
        out
    }

    /// Reads a model file's bytes.
    ///
    /// # Errors
    /// [`ModelFileError`] says what is wrong: not a model file, another format or version, a
    /// header field, a body that is cut short, corrupted or inconsistent with the header.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ModelFileError> {
        let newline = bytes
            .iter()
            .position(|&b| b == b'\n')
            .ok_or(ModelFileError::NoHeader)?;
        let line = &bytes[..newline];
        let loose: serde_json::Value =
            serde_json::from_slice(line).map_err(|e| ModelFileError::Header(e.to_string()))?;
        let format = loose.get("format").and_then(|v| v.as_str()).unwrap_or("");
        if format != MODEL_FORMAT {
            return Err(ModelFileError::Format(format.to_string()));
        }
        let version = loose.get("version").and_then(serde_json::Value::as_u64);
        if version != Some(u64::from(MODEL_VERSION)) {
            return Err(ModelFileError::Version {
                found: version.map_or_else(|| "none".to_string(), |v| v.to_string()),
            });
        }
        let header: FileHeader =
            serde_json::from_slice(line).map_err(|e| ModelFileError::Header(e.to_string()))?;
        if header.hash != HASH_NAME {
            return Err(ModelFileError::Header(format!(
                "hash `{}` (expected `{HASH_NAME}`)",
                header.hash
            )));
        }
        if header.learn.min_legal_moves != MIN_LEGAL {
            return Err(ModelFileError::Header(format!(
                "learn.min_legal_moves {} (this build learns and ranks with {MIN_LEGAL})",
                header.learn.min_legal_moves
            )));
        }
        let names: Vec<&str> = header.tables.iter().map(|t| t.name.as_str()).collect();
        if names != TABLE_NAMES {
            return Err(ModelFileError::Header(format!(
                "tables {names:?} (expected {TABLE_NAMES:?})"
            )));
        }
        let body = &bytes[newline + 1..];
        if body.len() as u64 != header.body_bytes {
            return Err(ModelFileError::Body(format!(
                "{} bytes, the header says {}",
                body.len(),
                header.body_bytes
            )));
        }
        let hash = format!("{:016x}", fnv1a64(body));
        if hash != header.body_fnv1a64 {
            return Err(ModelFileError::Body(format!(
                "FNV-1a {hash}, the header says {}",
                header.body_fnv1a64
            )));
        }

        let mut reader = Reader { bytes: body, at: 0 };
        let count = reader.varint("dictionary size")?;
        if count != header.codes {
            return Err(ModelFileError::Body(format!(
                "{count} codes, the header says {}",
                header.codes
            )));
        }
        let mut dictionary = Vec::with_capacity(count.min(1 << 24) as usize);
        let mut code = 0u64;
        for i in 0..count {
            let step = reader.varint("dictionary")?;
            if i > 0 && step == 0 {
                return Err(ModelFileError::Body(format!("dictionary code {i} repeats")));
            }
            code = code
                .checked_add(step)
                .ok_or_else(|| ModelFileError::Body(format!("dictionary code {i} overflows")))?;
            dictionary.push(code);
        }
        let mut model = Model {
            provenance: header.provenance,
            options: LearnOptions {
                winner_only: header.learn.winner_only,
            },
            games: header.games,
            learned_moves: header.learned_moves,
            ..Model::default()
        };
        let lookup = |i: u64, what: &str| {
            dictionary.get(i as usize).copied().ok_or_else(|| {
                ModelFileError::Body(format!("{what}: code index {i} past the dictionary"))
            })
        };
        let (full, f) = (&mut model.full, &mut model.f);
        let tables = full.parts_mut().into_iter().chain(f.parts_mut());
        for ((table, spec), name) in tables.zip(&header.tables).zip(TABLE_NAMES) {
            let pairs = reader.varint(name)?;
            if pairs != spec.pairs {
                return Err(ModelFileError::Body(format!(
                    "table {name}: {pairs} pairs, the header says {}",
                    spec.pairs
                )));
            }
            let (mut ia, mut ib) = (0u64, 0u64);
            for i in 0..pairs {
                let step = reader.varint(name)?;
                let b = reader.varint(name)?;
                let count = reader.varint(name)?;
                let same_row = i > 0 && step == 0;
                ia = ia.saturating_add(step);
                ib = if same_row {
                    ib.saturating_add(b).saturating_add(1)
                } else {
                    b
                };
                let count = u32::try_from(count)
                    .ok()
                    .filter(|&c| c > 0)
                    .ok_or_else(|| {
                        ModelFileError::Body(format!("table {name}: pair {i} has count {count}"))
                    })?;
                table.add_count(lookup(ia, name)?, lookup(ib, name)?, count);
            }
        }
        if reader.at != body.len() {
            return Err(ModelFileError::Body(format!(
                "{} bytes left after the last table",
                body.len() - reader.at
            )));
        }
        Ok(model)
    }
}

/// Why bytes are not a model this build can read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ModelFileError {
    #[error("not a candidate model file: no header line")]
    NoHeader,
    #[error("not a candidate model file: format `{0}` (expected `{MODEL_FORMAT}`)")]
    Format(String),
    #[error(
        "candidate model file version {found}: this build reads version {MODEL_VERSION} only (learn the model again)"
    )]
    Version { found: String },
    #[error("candidate model file header: {0}")]
    Header(String),
    #[error("candidate model file body: {0}")]
    Body(String),
}

const HASH_NAME: &str = "fnv1a-64";

const TABLE_NAMES: [&str; 6] = [
    "full.prev1",
    "full.prev2",
    "full.after",
    "f.prev1",
    "f.prev2",
    "f.after",
];

#[derive(Serialize, Deserialize)]
struct FileHeader {
    format: String,
    version: u32,
    hash: String,
    provenance: Provenance,
    learn: LearnHeader,
    games: u64,
    learned_moves: u64,
    codes: u64,
    tables: Vec<TableHeader>,
    body_bytes: u64,
    body_fnv1a64: String,
}

#[derive(Serialize, Deserialize)]
struct LearnHeader {
    winner_only: bool,
    min_legal_moves: usize,
}

#[derive(Serialize, Deserialize)]
struct TableHeader {
    name: String,
    pairs: u64,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn varint(&mut self, what: &str) -> Result<u64, ModelFileError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(ModelFileError::Body(format!(
                    "cut short in {what} at byte {}",
                    self.at
                )));
            };
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ModelFileError::Body(format!(
            "varint too long in {what} at byte {}",
            self.at
        )))
    }
}

#[cfg(test)]
mod tests;
