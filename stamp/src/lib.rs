//! Which build a program is: the workspace's version, the commit it was built from and whether
//! tracked files then differed from it ("dirty"). Why: a run folder, a game record or a bug
//! report must say which code produced it, and `0.1.0` alone does not.
//!
//! Each program crate's `build.rs` calls [`emit`], which asks git once and hands the compiler
//! `COUNCIL_COMMIT`, `COUNCIL_DIRTY` and `COUNCIL_VERSION`; the programs read them with
//! [`build!`] and [`version!`]. Without git or outside a checkout (a source tarball) the commit
//! and the flag are `unknown`.
//!
//! Only a crate that holds programs has such a `build.rs`: its script reruns on every commit,
//! and so does the compilation of that crate and of every crate built on it. Libraries never
//! ask git: a program hands what they record down to them as a value
//! (`council_schema::written_by::WrittenBy`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One program's build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Build {
    pub program: &'static str,
    pub version: &'static str,
    /// The commit's hash (12 hex digits), or `unknown`.
    pub commit: &'static str,
    /// `clean`, `dirty` or `unknown`.
    pub dirty: &'static str,
}

/// `council-match 0.1.0 (commit 0123456789ab, clean)`: what `--version` prints.
impl fmt::Display for Build {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = describe(self.version, self.commit, self.dirty);
        write!(f, "{} {version}", self.program)
    }
}

/// `0.1.0 (commit 0123456789ab, clean)`: a build as `--version` prints it after the program's
/// name, and as the files the programs write record it.
#[must_use]
pub fn describe(version: &str, commit: &str, dirty: &str) -> String {
    format!("{version} (commit {commit}, {dirty})")
}

/// This crate's build of `program`: `council_stamp::build!("council-match")`. Only in a crate
/// whose `build.rs` calls [`emit`].
#[macro_export]
macro_rules! build {
    ($program:expr) => {
        $crate::Build {
            program: $program,
            version: env!("CARGO_PKG_VERSION"),
            commit: env!("COUNCIL_COMMIT"),
            dirty: env!("COUNCIL_DIRTY"),
        }
    };
}

/// The text after the name for clap's `#[command(version = council_stamp::version!())]`:
/// `0.1.0 (commit 0123456789ab, clean)`. Only in a crate whose `build.rs` calls [`emit`].
#[macro_export]
macro_rules! version {
    () => {
        env!("COUNCIL_VERSION")
    };
}

/// `git -C dir ARGS`'s trimmed output, `None` when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// For a program crate's `build.rs`. Cargo reruns it only when git's HEAD, the branch it
/// names, `packed-refs` or the index change (a commit, a checkout, a `git add`), not on every
/// edit: the dirty flag is as of the last of those.
pub fn emit() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    // Only this workspace's own checkout (its top holds this crate): a tarball unpacked inside
    // some other repository is not that repository's commit.
    let top = git(&dir, &["rev-parse", "--show-toplevel"])
        .filter(|top| Path::new(top).join("stamp/Cargo.toml").is_file());
    let facts = top.as_ref().and_then(|_| {
        let commit = git(&dir, &["rev-parse", "--short=12", "HEAD"])?;
        // Without optional locks: `status` must not rewrite the index this script watches.
        let status = git(
            &dir,
            &[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "--untracked-files=no",
            ],
        )?;
        Some((commit, if status.is_empty() { "clean" } else { "dirty" }))
    });
    let (commit, dirty) = facts.unwrap_or_else(|| ("unknown".to_string(), "unknown"));
    println!("cargo::rustc-env=COUNCIL_COMMIT={commit}");
    println!("cargo::rustc-env=COUNCIL_DIRTY={dirty}");
    let described = describe(&version, &commit, dirty);
    println!("cargo::rustc-env=COUNCIL_VERSION={described}");
    // Only existing paths: cargo reruns a script every time for a missing one. Without a
    // checkout, a watched build.rs alone keeps cargo from rerunning on every source edit.
    let mut watched = vec![dir.join("build.rs")];
    if top.is_some() {
        let mut names = vec!["HEAD".to_string(), "packed-refs".into(), "index".into()];
        names.extend(git(&dir, &["symbolic-ref", "-q", "HEAD"]));
        for name in names {
            watched.extend(git(&dir, &["rev-parse", "--git-path", &name]).map(|p| dir.join(p)));
        }
    }
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_describes_itself_with_its_commit_and_dirty_flag() {
        let b = Build {
            program: "council-match",
            version: "0.1.0",
            commit: "0123456789ab",
            dirty: "dirty",
        };
        assert_eq!(
            b.to_string(),
            "council-match 0.1.0 (commit 0123456789ab, dirty)"
        );
    }
}
