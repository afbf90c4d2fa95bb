//! `--version` of every program of this crate, the tests' own helpers that the end-to-end tests
//! beside this file run (the check is `tests/support/versions.rs`).

#[macro_use]
#[path = "../support/versions.rs"]
mod versions;

version_test!("mock-usi", "csa-test-server");
