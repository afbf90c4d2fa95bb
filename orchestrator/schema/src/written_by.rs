//! Which build wrote a file: the value a program hands down to the library code that writes
//! `run.json`, `summary.json`, game records and `protocol.log`. Why a value: only the crates
//! that hold programs ask git at build time (`council_stamp`, their `build.rs`); a library that
//! read git itself would recompile, with everything built on it, at every commit.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The program that wrote a file, its version, the commit it was built from and whether that
/// build's tracked files differed from the commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenBy {
    pub program: String,
    pub version: String,
    /// The commit's hash, or `unknown` for a build outside a git checkout.
    pub commit: String,
    /// `clean`, `dirty` or `unknown`.
    pub dirty: String,
}

impl From<council_stamp::Build> for WrittenBy {
    fn from(b: council_stamp::Build) -> Self {
        WrittenBy {
            program: b.program.to_string(),
            version: b.version.to_string(),
            commit: b.commit.to_string(),
            dirty: b.dirty.to_string(),
        }
    }
}

/// `council-match 0.1.0 (commit 0123456789ab, clean)`, as the program's `--version` prints it.
impl fmt::Display for WrittenBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = council_stamp::describe(&self.version, &self.commit, &self.dirty);
        write!(f, "{} {version}", self.program)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_reads_as_its_version_line() {
        let by = WrittenBy::from(council_stamp::Build {
            program: "council-csa",
            version: "0.1.0",
            commit: "0123456789ab",
            dirty: "dirty",
        });
        assert_eq!(
            by.to_string(),
            "council-csa 0.1.0 (commit 0123456789ab, dirty)"
        );
    }
}
