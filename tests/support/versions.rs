//! The one check every program crate runs on its programs: its `tests/version.rs` includes this
//! file by `#[path]` with `#[macro_use]` and names its programs in [`version_test!`].
//! `--version` prints `<name> <version> (commit <hash>, <flag>)`: the program's own name (not the
//! crate's, clap's default), the workspace's version, the commit it was built from (7+ hex
//! digits, or `unknown` outside a git checkout) and whether the work tree had changes (`clean`,
//! `dirty`, `unknown`); and the crate's list of programs is its Cargo.toml's `[[bin]]` targets,
//! so a new program cannot be left out.
//!
//! The test also makes `cargo test --workspace` build the crate's programs before any test runs
//! (cargo builds a package's binaries only for its integration tests): the end-to-end tests in
//! `tests/` run them from the target folder (`council_tests::workspace_bin`).

use std::process::Command;

/// The test of a program crate: `version_test!("council-engine");` names every `[[bin]]` of the
/// crate, and the test checks each one's `--version` and that none is left out.
macro_rules! version_test {
    ($($name:literal),+ $(,)?) => {
        #[test]
        fn every_program_prints_its_name_and_version() {
            let programs = [$(($name, env!(concat!("CARGO_BIN_EXE_", $name)))),+];
            crate::versions::every_program_is_listed(env!("CARGO_MANIFEST_DIR"), &programs);
            crate::versions::each_prints_its_name(&programs, env!("CARGO_PKG_VERSION"));
        }
    };
}

/// The `[[bin]]` names of the Cargo.toml in `manifest_dir`.
fn manifest_bins(manifest_dir: &str) -> Vec<String> {
    let manifest =
        std::fs::read_to_string(format!("{manifest_dir}/Cargo.toml")).expect("read Cargo.toml");
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

/// Every `[[bin]]` of the crate in `manifest_dir` is one of `programs`.
pub fn every_program_is_listed(manifest_dir: &str, programs: &[(&str, &str)]) {
    let listed: Vec<&str> = programs.iter().map(|(name, _)| *name).collect();
    for bin in manifest_bins(manifest_dir) {
        assert!(
            listed.contains(&bin.as_str()),
            "{bin} is a [[bin]] of Cargo.toml but not in this test's PROGRAMS"
        );
    }
}

/// Each of `programs` (name, path) prints `<name> <version> (commit <hash>, <flag>)` for
/// `--version`.
pub fn each_prints_its_name(programs: &[(&str, &str)], version: &str) {
    for &(name, path) in programs {
        let out = Command::new(path)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("run {name}: {e}"));
        assert!(
            out.status.success(),
            "{name} --version failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let rest = text
            .strip_prefix(&format!("{name} {version} (commit "))
            .and_then(|r| r.strip_suffix(")\n"))
            .unwrap_or_else(|| panic!("{name} --version: {text:?}"));
        let (commit, flag) = rest
            .split_once(", ")
            .unwrap_or_else(|| panic!("{name} --version: no dirty flag in {text:?}"));
        assert!(
            commit == "unknown"
                || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
            "{name} --version: commit {commit:?}"
        );
        assert!(
            ["clean", "dirty", "unknown"].contains(&flag),
            "{name} --version: dirty flag {flag:?}"
        );
    }
}
