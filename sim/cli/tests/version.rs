//! `--version` of every program of this crate (the check is `tests/support/versions.rs`).

#[macro_use]
#[path = "../../../tests/support/versions.rs"]
mod versions;

version_test!("council-sim");
