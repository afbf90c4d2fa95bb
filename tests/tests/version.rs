//! `--version` of every program of this crate, the tests' own helpers that the end-to-end tests
//! beside this file run (the check is `tests/support/versions.rs`).
//!
//! Also: the commit they print is the checkout's, and a `council-match` run's `run.json` and
//! `summary.json` say which build wrote them.

#[macro_use]
#[path = "../support/versions.rs"]
mod versions;

use std::path::PathBuf;
use std::process::Command;

use council_tests::{workspace_bin, workspace_root};

version_test!("mock-usi", "csa-test-server");

/// The commit `--version` prints is the checkout's `HEAD` (cargo reruns the stamp at each
/// commit, so the programs under test are built from it), or `unknown` where git cannot say.
#[test]
fn version_names_the_checkouts_commit() {
    let head = Command::new("git")
        .arg("-C")
        .arg(workspace_root())
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || "unknown".to_string(),
            |o| String::from_utf8_lossy(&o.stdout).trim().to_string(),
        );
    let match_bin = workspace_bin("council-match");
    let programs = ["mock-usi", "csa-test-server"]
        .map(|name| (name, workspace_bin(name)))
        .into_iter()
        .chain([("council-match", match_bin)]);
    for (name, path) in programs {
        let out = Command::new(&path)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("{name} --version: {e}"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!(" (commit {head}, ")),
            "{name} --version: {text:?}, HEAD {head}"
        );
    }
}

/// A tiny run of two built-in engines: `run.json` and `summary.json` each carry `written_by`,
/// the same program, version, commit and dirty flag `council-match --version` prints.
#[test]
fn a_match_run_records_the_build_that_wrote_it() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("version-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    let config = dir.join("match.toml");
    std::fs::write(
        &config,
        "[match]\nplayers = [\"a\", \"b\"]\nmax_plies = 8\nseed = 5\n\n\
         [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 50\n\n\
         [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 50\n",
    )
    .expect("write config");
    let out = dir.join("out");
    let run = Command::new(workspace_bin("council-match"))
        .arg(&config)
        .args(["--games", "2", "--quiet", "--out"])
        .arg(&out)
        .output()
        .expect("run council-match");
    assert!(
        run.status.success(),
        "council-match failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let version = Command::new(workspace_bin("council-match"))
        .arg("--version")
        .output()
        .expect("run council-match --version");
    let printed = String::from_utf8_lossy(&version.stdout).trim().to_string();
    for file in ["run.json", "summary.json"] {
        let text = std::fs::read_to_string(out.join(file)).expect(file);
        let json: serde_json::Value = serde_json::from_str(&text).expect(file);
        let w = &json["written_by"];
        let field = |k: &str| {
            w[k].as_str()
                .unwrap_or_else(|| panic!("{file}: no {k} in {w}"))
        };
        assert_eq!(field("program"), "council-match", "{file}");
        assert_eq!(field("version"), env!("CARGO_PKG_VERSION"), "{file}");
        let recorded = format!(
            "council-match {} (commit {}, {})",
            field("version"),
            field("commit"),
            field("dirty")
        );
        assert_eq!(recorded, printed, "{file} against --version");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
