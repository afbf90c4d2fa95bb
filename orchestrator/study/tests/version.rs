//! `--version` of every program of this crate prints its own name and version, and the list
//! below is the crate's `[[bin]]` targets (the check is `tests/support/versions.rs`).
//!
//! This file also makes `cargo test --workspace` build this crate's programs before any test
//! runs: cargo builds a package's binaries only for its integration tests, and the end-to-end
//! tests in `tests/` run them from the target folder (`council_tests::workspace_bin`).

#[path = "../../../tests/support/versions.rs"]
mod versions;

/// Every program of this crate: its name and the path cargo built it at.
const PROGRAMS: [(&str, &str); 4] = [
    ("council-elo", env!("CARGO_BIN_EXE_council-elo")),
    ("council-analyze", env!("CARGO_BIN_EXE_council-analyze")),
    ("council-learn", env!("CARGO_BIN_EXE_council-learn")),
    ("council-openings", env!("CARGO_BIN_EXE_council-openings")),
];

#[test]
fn every_program_is_checked() {
    versions::every_program_is_listed(env!("CARGO_MANIFEST_DIR"), &PROGRAMS);
}

#[test]
fn version_prints_the_program_name() {
    versions::each_prints_its_name(&PROGRAMS, env!("CARGO_PKG_VERSION"));
}
