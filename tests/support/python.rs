//! The Python interpreter the test referees (cshogi, choix) run under: the project's own virtual
//! environment, which `bash tests/run.sh` creates, never whatever `python3` is on `PATH`.
//!
//! One file, used by every crate's tests that run Python: the `council-tests` library exports it,
//! and `engine/tests/common` and `orchestrator/tests/ratings_choix.rs` include it by `#[path]`.

use std::path::{Path, PathBuf};

/// The set-up command named when no interpreter is found.
pub const SETUP_COMMAND: &str = "bash tests/run.sh";

/// The Python interpreter for the test helpers: `$COUNCIL_PYTHON` if set, else
/// `<workspace root>/.venv/bin/python` if it exists.
///
/// Panics (fails the test, never skips it) with a message naming the set-up command when
/// neither is there.
#[must_use]
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("COUNCIL_PYTHON").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        assert!(
            p.exists(),
            "COUNCIL_PYTHON={} does not exist; run `{SETUP_COMMAND}` from the workspace root \
             (it installs tests/requirements.txt into .venv/) or point COUNCIL_PYTHON at a \
             Python that has them",
            p.display()
        );
        return p;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The workspace root is the nearest folder holding Cargo.lock.
    let root = manifest
        .ancestors()
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(manifest);
    let venv = root.join(".venv").join("bin").join("python");
    assert!(
        venv.exists(),
        "no Python for the test referees: {} is missing and COUNCIL_PYTHON is not set; run \
         `{SETUP_COMMAND}` from the workspace root (it installs the Debian engines, creates .venv/ \
         with tests/requirements.txt, and runs the tests)",
        venv.display()
    );
    venv
}
