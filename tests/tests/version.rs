//! `--version` of every program of this crate prints its own name and version, and the list
//! below is the crate's `[[bin]]` targets (the check is `tests/support/versions.rs`).
//!
//! These two are the tests' own helpers; the end-to-end tests beside this file run them, and
//! cargo builds them for `cargo test` because this package has integration tests.

#[path = "../support/versions.rs"]
mod versions;

/// Every program of this crate: its name and the path cargo built it at.
const PROGRAMS: [(&str, &str); 2] = [
    ("mock-usi", env!("CARGO_BIN_EXE_mock-usi")),
    ("csa-test-server", env!("CARGO_BIN_EXE_csa-test-server")),
];

#[test]
fn every_program_is_checked() {
    versions::every_program_is_listed(env!("CARGO_MANIFEST_DIR"), &PROGRAMS);
}

#[test]
fn version_prints_the_program_name() {
    versions::each_prints_its_name(&PROGRAMS, env!("CARGO_PKG_VERSION"));
}
