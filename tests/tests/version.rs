//! `--version` of every program of this crate prints `<name> <version>`: the program's own name,
//! not the crate's (clap's default), and the workspace's version. The list below is checked
//! against the crate's `[[bin]]` targets, so a new program cannot be left out.
//!
//! These two are the tests' own helpers; the end-to-end tests beside this file run them, and
//! cargo builds them for `cargo test` because this package has integration tests.

use std::process::Command;

/// Every program of this crate: its name and the path cargo built it at.
const PROGRAMS: [(&str, &str); 2] = [
    ("mock-usi", env!("CARGO_BIN_EXE_mock-usi")),
    ("csa-test-server", env!("CARGO_BIN_EXE_csa-test-server")),
];

/// The `[[bin]]` names of this crate's Cargo.toml.
fn manifest_bins() -> Vec<String> {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("read Cargo.toml");
    let mut bins = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin && let Some(value) = line.strip_prefix("name") {
            let name = value
                .trim_start()
                .trim_start_matches('=')
                .trim()
                .trim_matches('"');
            bins.push(name.to_string());
        }
    }
    bins
}

#[test]
fn every_program_is_checked() {
    let listed: Vec<&str> = PROGRAMS.iter().map(|(name, _)| *name).collect();
    for bin in manifest_bins() {
        assert!(
            listed.contains(&bin.as_str()),
            "{bin} is a [[bin]] of Cargo.toml but not in this test's PROGRAMS"
        );
    }
}

#[test]
fn version_prints_the_program_name() {
    for (name, path) in PROGRAMS {
        let out = Command::new(path)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("run {name}: {e}"));
        assert!(
            out.status.success(),
            "{name} --version failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{name} {}\n", env!("CARGO_PKG_VERSION")),
            "{name} --version"
        );
    }
}
