//! A run's command line as its user sees it: the folder a run goes to when `--out` is not given,
//! the command line as typed (the engine log's first note), and the command that resumes an
//! interrupted run, each word quoted for a shell when it needs it. The runner resumes; this says
//! how to ask it to.

use std::path::{Path, PathBuf};

use council_schema::config::flags::shell_word;

/// `runs/<config name>-<UTC date and time>` (`runs/3vs1-2026-11-27T05-12-33`), made unique if
/// taken.
pub fn default_out(config: &Path) -> PathBuf {
    let stem = config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    let when = council_schema::utc::utc_now_for_names();
    let base = PathBuf::from("runs").join(format!("{stem}-{when}"));
    let mut path = base.clone();
    let mut n = 1;
    while path.exists() {
        path = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    path
}

/// The command line `args` (the program first), each word quoted for a shell when it needs it.
pub fn command_line(args: &[String]) -> String {
    args.iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The command that resumes the run that `args` (the program first) started into `out`: the
/// same words, with `--resume` (for `--start-or-resume`) and the run's `--out`.
pub fn resume_command(args: &[String], out: &Path) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut args = args.iter().cloned();
    let mut has_out = false;
    let mut has_resume = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--start-or-resume" | "--resume" => {
                has_resume = true;
                words.push("--resume".into());
            }
            "--out" => {
                has_out = true;
                words.push(a);
                if let Some(v) = args.next() {
                    words.push(v);
                }
            }
            _ => {
                has_out |= a.starts_with("--out=");
                words.push(a);
            }
        }
    }
    if !has_resume {
        words.push("--resume".into());
    }
    if !has_out {
        words.push("--out".into());
        words.push(out.display().to_string());
    }
    command_line(&words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_run_without_out_resumes_into_its_folder() {
        let args = words("council-match configs/3vs1.toml --seed 1");
        assert_eq!(
            resume_command(&args, Path::new("runs/3vs1-x")),
            "council-match configs/3vs1.toml --seed 1 --resume --out runs/3vs1-x"
        );
    }

    #[test]
    fn start_or_resume_becomes_resume_and_out_is_kept() {
        let args = words("council-match c.toml --start-or-resume --out my run");
        assert_eq!(
            resume_command(&args, Path::new("ignored")),
            "council-match c.toml --resume --out my run"
        );
        let args = vec!["council-match".into(), "--out=a b".into(), "x'y".into()];
        assert_eq!(
            resume_command(&args, Path::new("ignored")),
            r"council-match '--out=a b' 'x'\''y' --resume"
        );
    }
}
