//! `--version` of every program of this crate prints its own name and version, and the list
//! below is the crate's `[[bin]]` targets (the check is `tests/support/versions.rs`).
//!
//! Like the crate's other integration tests, this file makes `cargo test --workspace` build its
//! program before any test runs: cargo builds a package's binaries only for its integration
//! tests, and the end-to-end tests in `tests/` run them from the target folder
//! (`council_tests::workspace_bin`).

#[path = "../../tests/support/versions.rs"]
mod versions;

/// Every program of this crate: its name and the path cargo built it at.
const PROGRAMS: [(&str, &str); 1] = [("council-engine", env!("CARGO_BIN_EXE_council-engine"))];

#[test]
fn every_program_is_checked() {
    versions::every_program_is_listed(env!("CARGO_MANIFEST_DIR"), &PROGRAMS);
}

#[test]
fn version_prints_the_program_name() {
    versions::each_prints_its_name(&PROGRAMS, env!("CARGO_PKG_VERSION"));
}
