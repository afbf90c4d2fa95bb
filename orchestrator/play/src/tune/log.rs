//! `DIR/tune.jsonl`: the tune's own record and its resume point. The first line says what was
//! tuned (config text, seed, iterations, simulated or played, each parameter's start and range,
//! games per iteration: what a reader needs without validating the config again); each further
//! line is one finished
//! iteration, written whole, flushed and synced before the next iteration starts. A cut-off last
//! line (a crash mid-write) is dropped on resume and that iteration runs again. A line that
//! cannot be written (a full disk) stops the tune with the file's error; the lines before it
//! stand, and the rerun resumes from them.

use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::TuneError;
use super::plan::IterationResult;

/// The first line: `{"tune": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub config_file: String,
    pub config_text: String,
    pub seed: u64,
    pub iterations: u64,
    pub simulate: bool,
    /// The tuned paths, in order.
    pub params: Vec<String>,
    /// Each parameter's start and range, in the order of `params` (absent in a header written
    /// by an older build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranges: Option<Vec<ParamRange>>,
    /// Games per iteration (absent in a header written by an older build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_per_iteration: Option<u64>,
}

/// A tuned parameter's start and range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ParamRange {
    pub start: f64,
    pub min: f64,
    pub max: f64,
}

#[derive(Serialize, Deserialize)]
struct HeaderLine {
    tune: Header,
}

/// One finished iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationLine {
    pub k: u64,
    /// θ before the iteration (unrounded).
    pub theta: Vec<f64>,
    /// θ+ and θ− as played (clipped, integers rounded).
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
    pub c_k: Vec<f64>,
    pub a_k: Vec<f64>,
    pub delta: Vec<i8>,
    pub result: IterationResult,
    /// What SPSA stepped on: θ+'s wins minus losses (opponent mode: minus θ−'s).
    pub r: f64,
    /// θ after the iteration.
    pub theta_next: Vec<f64>,
    pub wall_ms: u64,
}

/// What a run folder's `tune.jsonl` holds.
pub struct Read {
    pub header: Header,
    pub lines: Vec<IterationLine>,
    /// Bytes of complete lines (what follows is cut off when the file is reopened).
    pub complete_len: u64,
}

/// Read `path`; `None` when it does not exist or is empty. It is read up to its length when
/// opened, so a special file in its place (`/dev/full`, which reads as endless zeros) reads as
/// empty rather than filling the memory.
pub fn read(path: &Path) -> Result<Option<Read>, TuneError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(cause) => return Err(TuneError::io(path, cause)),
    };
    let mut text = String::new();
    file.metadata()
        .and_then(|m| file.take(m.len()).read_to_string(&mut text))
        .map_err(|cause| TuneError::io(path, cause))?;
    if text.is_empty() {
        return Ok(None);
    }
    let bad = |line: usize, problem: String| TuneError::Log {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let mut complete_len = 0u64;
    let mut header = None;
    let mut lines = Vec::new();
    let mut rest = text.as_str();
    let mut n = 0;
    while let Some(end) = rest.find('\n') {
        n += 1;
        let line = &rest[..end];
        if header.is_none() {
            let h: HeaderLine = serde_json::from_str(line)
                .map_err(|e| bad(n, format!("not a tune header: {e}")))?;
            header = Some(h.tune);
        } else {
            let l: IterationLine = serde_json::from_str(line).map_err(|e| bad(n, e.to_string()))?;
            if l.k != lines.len() as u64 {
                return Err(bad(
                    n,
                    format!("iteration {} where {} was due", l.k, lines.len()),
                ));
            }
            lines.push(l);
        }
        complete_len += end as u64 + 1;
        rest = &rest[end + 1..];
    }
    // A line without its newline is cut off; so is a header without one.
    match header {
        Some(header) => Ok(Some(Read {
            header,
            lines,
            complete_len,
        })),
        None => Ok(None),
    }
}

/// Appends iterations to `tune.jsonl`, one synced line each.
pub struct Writer {
    file: std::fs::File,
    path: PathBuf,
}

impl Writer {
    /// Open `path`, keeping its first `complete_len` bytes; with a `header`, the file starts
    /// anew with it. A file no longer than that is left as it is (not truncated: a special file
    /// in its place, as `/dev/full`, cannot be).
    pub fn open(
        path: &Path,
        complete_len: u64,
        header: Option<&Header>,
    ) -> Result<Self, TuneError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| TuneError::io(path, e))?;
        let len = if header.is_some() { 0 } else { complete_len };
        if file.metadata().map_err(|e| TuneError::io(path, e))?.len() > len {
            file.set_len(len).map_err(|e| TuneError::io(path, e))?;
        }
        let mut w = Writer {
            file,
            path: path.to_path_buf(),
        };
        if let Some(h) = header {
            w.line(&HeaderLine { tune: h.clone() })?;
        }
        Ok(w)
    }

    pub fn append(&mut self, line: &IterationLine) -> Result<(), TuneError> {
        self.line(line)
    }

    fn line(&mut self, value: &impl Serialize) -> Result<(), TuneError> {
        let mut bytes =
            serde_json::to_vec(value).map_err(|e| TuneError::io(&self.path, e.into()))?;
        bytes.push(b'\n');
        let path = &self.path;
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| TuneError::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line(theta: Vec<f64>, r: f64) -> IterationLine {
        IterationLine {
            k: 3,
            plus: theta.clone(),
            minus: theta.clone(),
            c_k: theta.clone(),
            a_k: theta.clone(),
            delta: vec![1; theta.len()],
            result: IterationResult::default(),
            r,
            theta_next: theta.clone(),
            theta,
            wall_ms: 1,
        }
    }

    proptest! {
        /// A resumed tune goes on from θ as read back from `tune.jsonl`: every number must read
        /// back bit for bit, or the resumed trajectory drifts from the uninterrupted one.
        #[test]
        fn every_number_of_a_line_reads_back_bit_for_bit(
            theta in prop::collection::vec(prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO, 1..6),
            r in -1e6f64..1e6,
        ) {
            let written = line(theta, r);
            let text = serde_json::to_string(&written).expect("serialize");
            let read: IterationLine = serde_json::from_str(&text).expect("parse");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&read.theta), bits(&written.theta));
            prop_assert_eq!(bits(&read.theta_next), bits(&written.theta_next));
            prop_assert_eq!(read.r.to_bits(), written.r.to_bits());
        }
    }
}
