//! The analysis file of `council-analyze moves`: one JSON line per analysed position, the
//! reference engine's view of it, read back by `ir` and `calibrate-ir`.
//!
//! Scores are centipawns from the mover's view, mates at the ends of the scale
//! (`engine::types::Score::to_cp_scale`).
//!
//! Invariant: a line is written whole and flushed, so a killed analysis leaves at most a cut-off
//! last line, which reading ignores and resuming cuts off.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why an analysis file could not be read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AnalysisError {
    #[error("{}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A complete line that is not an analysed position (`line` counts from 1).
    #[error("{}:{line}: not an analysed position", .path.display())]
    Line {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

impl AnalysisError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AnalysisError + '_ {
        move |source| AnalysisError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// One candidate move and its score, mover's view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    #[serde(rename = "move")]
    pub mv: String,
    pub cp: i32,
}

/// Which engine analysed, at which budget, and which positions it was given: everything a
/// resume must repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// With `--screen-cp`: positions a single-line search scores at this or more either way
    /// were not given the MultiPV search (their lines are `screened`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_cp: Option<i32>,
    /// With `--sample`: the share of the positions analysed, chosen by `seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl Reference {
    /// Whether `other` searched positions the same way (engine, MultiPV, budget): what an IR needs
    /// of an analysis and its calibration. The screen and the sample only choose positions.
    #[must_use]
    pub fn same_search(&self, other: &Reference) -> bool {
        self.name == other.name && self.nodes == other.nodes && self.depth == other.depth
    }

    /// The flags of `council-analyze moves` that search as this reference did: its engine
    /// (`--reference CONFIG:PLAYER` for a USI engine, whose config this file does not hold),
    /// MultiPV and budget, and its screen.
    #[must_use]
    pub fn moves_flags(&self) -> String {
        let (engine, multipv) = match self.name.rsplit_once(" multipv ") {
            Some((engine, m)) => (engine, Some(m)),
            None => (self.name.as_str(), None),
        };
        let mut flags = Vec::new();
        if engine != "council-engine" {
            flags.push(format!("--reference CONFIG:{engine}"));
        }
        if let Some(m) = multipv {
            flags.push(format!("--multipv {m}"));
        }
        if let Some(n) = self.nodes {
            flags.push(format!("--nodes {n}"));
        }
        if let Some(d) = self.depth {
            flags.push(format!("--depth {d}"));
        }
        if let Some(cp) = self.screen_cp {
            flags.push(format!("--screen-cp {cp}"));
        }
        flags.join(" ")
    }

    /// `council-engine multipv 10 at depth 8, screened at 300 cp, a 6% sample (seed 11)`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut out = self.name.clone();
        if let Some(n) = self.nodes {
            out += &format!(" at {n} nodes");
        }
        if let Some(d) = self.depth {
            out += &format!(" at depth {d}");
        }
        if let Some(cp) = self.screen_cp {
            out += &format!(", screened at {cp} cp");
        }
        if let (Some(f), Some(seed)) = (self.sample, self.seed) {
            out += &format!(", a {}% sample (seed {seed})", f * 100.0);
        }
        out
    }
}

/// One analysed position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysedPosition {
    /// The game's `id` in its results file.
    pub game: u64,
    /// Moves played before this position, from the game's start.
    pub ply: u32,
    /// The player to move (its name in the results).
    pub player: String,
    /// The position (SFEN).
    pub sfen: String,
    /// The move the player chose (USI).
    pub played: String,
    /// The reference's candidates, best first, mover's view; the played move always present.
    pub candidates: Vec<Candidate>,
    pub reference: Reference,
    /// The single-line search scored the position at the reference's `screen_cp` or more either
    /// way: `candidates` holds only its best move, and the data rules leave the position out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub screened: bool,
    /// With `--complexity`: the reference's score of the position from sente's view (a normal,
    /// single-line search), its evaluated leaves and the share good for sente, and the position's
    /// effective branching factor with its depth (absent when a mate dropped the position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cp: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ebf: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ebf_depth: Option<u32>,
}

impl AnalysedPosition {
    /// Index of the played move among the candidates.
    #[must_use]
    pub fn played_index(&self) -> Option<usize> {
        self.candidates.iter().position(|c| c.mv == self.played)
    }
}

/// What reading an analysis file found.
#[derive(Debug, Default)]
pub struct AnalysisRead {
    pub positions: Vec<AnalysedPosition>,
    /// Bytes of complete lines (a cut-off last line is not counted).
    pub complete_len: u64,
}

/// Read an analysis file; a malformed complete line is an error naming file and line.
pub fn read(path: &Path) -> Result<AnalysisRead, AnalysisError> {
    let bytes = std::fs::read(path).map_err(AnalysisError::io(path))?;
    let mut out = AnalysisRead::default();
    let mut offset = 0usize;
    for (i, chunk) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        if !chunk.ends_with(b"\n") {
            break;
        }
        offset += chunk.len();
        let line = String::from_utf8_lossy(chunk);
        if line.trim().is_empty() {
            continue;
        }
        let p: AnalysedPosition =
            serde_json::from_str(&line).map_err(|source| AnalysisError::Line {
                path: path.to_path_buf(),
                line: i + 1,
                source,
            })?;
        out.positions.push(p);
    }
    out.complete_len = offset as u64;
    Ok(out)
}

/// Appends analysed positions, one flushed line each.
pub struct AnalysisWriter {
    file: std::fs::File,
}

impl AnalysisWriter {
    /// Open for appending, cutting a cut-off last line (`complete_len` from [`read`]).
    pub fn open(path: &Path, complete_len: Option<u64>) -> Result<Self, AnalysisError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(AnalysisError::io(path))?;
        if let Some(len) = complete_len {
            file.set_len(len).map_err(AnalysisError::io(path))?;
        }
        Ok(Self { file })
    }

    pub fn append(&mut self, p: &AnalysedPosition) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(p).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_gives_the_moves_flags_that_search_as_it_did() {
        let builtin = Reference {
            name: "council-engine multipv 10".into(),
            nodes: None,
            depth: Some(8),
            screen_cp: Some(300),
            sample: Some(1.0),
            seed: Some(11),
        };
        assert_eq!(
            builtin.moves_flags(),
            "--multipv 10 --depth 8 --screen-cp 300"
        );
        let usi = Reference {
            name: "fairy multipv 50".into(),
            nodes: Some(20_000),
            depth: None,
            screen_cp: None,
            sample: None,
            seed: None,
        };
        assert_eq!(
            usi.moves_flags(),
            "--reference CONFIG:fairy --multipv 50 --nodes 20000"
        );
    }
}
