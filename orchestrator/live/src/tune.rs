//! A tune folder on the live page (`council-tune --serve`, `council-match serve TUNE_DIR`):
//! `tune.jsonl` read as it grows becomes the page's [`TuneView`] (each parameter's θ over the
//! iterations), and `games.jsonl` (or a sharded tune's `games-shard-I.jsonl`) its finished
//! games, as a run's `results.jsonl` is.
//!
//! Invariants as for a run folder ([`super::follow`]): only complete lines are read, the files
//! are polled, nothing in the folder is written. The header may appear after the page starts
//! (a tune this process is about to begin): until then the page shows no tune.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use super::state::{Live, Phase, TuneParamView, TuneView};
use council_play::tune::log::{Header, IterationLine, ParamRange};
use council_play::tune::plan::games_per_iteration;
use council_schema::config::Config;
use council_schema::results::read::{Follower, Malformed, Repeats};

/// How often the folder is looked at.
const POLL: Duration = Duration::from_millis(500);

/// Whether `dir` is a tune's folder (it holds `tune.jsonl`).
pub fn is_tune_folder(dir: &Path) -> bool {
    dir.join("tune.jsonl").is_file()
}

/// The page's view of a tune from its header: the parameters' ranges and the games per
/// iteration as the header records them; a header written by an older build has neither, and
/// they come from its config text validated again here, or are left out when that fails.
fn view_of(header: &Header, path: &Path) -> TuneView {
    let (ranges, games) = match (&header.ranges, header.games_per_iteration) {
        (Some(ranges), Some(games)) => (Some(ranges.clone()), Some(games)),
        _ => match Config::parse(Path::new(&header.config_file), &header.config_text) {
            Ok(c) => {
                let tune = c.tune.as_ref();
                let ranges = tune.map(|t| {
                    t.params
                        .iter()
                        .map(|p| ParamRange {
                            start: p.start,
                            min: p.min,
                            max: p.max,
                        })
                        .collect()
                });
                (ranges, tune.map(games_per_iteration))
            }
            Err(e) => {
                tracing::warn!(
                    "{}: written by an older build that did not record the parameters' ranges, \
                     and its config cannot be validated here ({e}): showing the tune without them",
                    path.display()
                );
                (None, None)
            }
        },
    };
    let params = header
        .params
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let r = ranges.as_ref().and_then(|r| r.get(i));
            TuneParamView {
                path: path.clone(),
                start: r.map(|r| r.start),
                min: r.map(|r| r.min),
                max: r.map(|r| r.max),
            }
        })
        .collect();
    TuneView {
        params,
        iterations: header.iterations,
        games_per_iteration: games,
        simulate: header.simulate,
        lines: Vec::new(),
    }
}

/// `tune.jsonl` read line by line as it grows.
struct TuneLines {
    path: PathBuf,
    /// Bytes of complete lines taken so far.
    offset: u64,
    header: Option<Header>,
}

impl TuneLines {
    /// The complete lines written since the last call (the header first, once).
    fn poll(&mut self) -> std::io::Result<Vec<String>> {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        if file.metadata()?.len() < self.offset {
            // Started anew (a fresh tune in the same folder): read it from the top.
            self.offset = 0;
            self.header = None;
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        let Some(end) = text.rfind('\n') else {
            return Ok(Vec::new());
        };
        self.offset += end as u64 + 1;
        Ok(text[..end].lines().map(str::to_string).collect())
    }
}

#[derive(Deserialize)]
struct HeaderLine {
    tune: Header,
}

/// Follow the tune folder `dir` into `live` until `live` has no other owner: its iterations
/// from `tune.jsonl`, its finished games from `games.jsonl`. The phase turns `finished` when
/// the last iteration is in.
pub async fn follow_tune(dir: PathBuf, live: Arc<Live>) {
    let mut tune = TuneLines {
        path: dir.join("tune.jsonl"),
        offset: 0,
        header: None,
    };
    // `games.jsonl`, or a sharded tune's `games-shard-I.jsonl` ([`council_play::tune::shards`]).
    let mut games: Vec<(PathBuf, Follower)> = Vec::new();
    loop {
        if Arc::strong_count(&live) == 1 {
            return;
        }
        match tune.poll() {
            Ok(lines) => {
                for line in lines {
                    take_line(&mut tune, &live, &line);
                }
            }
            Err(e) => tracing::warn!("{}: {e}", tune.path.display()),
        }
        for path in games_files(&dir) {
            if !games.iter().any(|(p, _)| *p == path) {
                let f = Follower::new(path.clone(), Malformed::Skip, Repeats::KeepAll);
                games.push((path, f));
            }
        }
        for (_, f) in &mut games {
            match f.poll() {
                Ok(new) => {
                    for g in &new.games {
                        live.add_finished(g);
                    }
                }
                Err(e) => tracing::warn!("{e}"),
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The tune's games files in `dir`: `games.jsonl` and the shards' `games-shard-I.jsonl`.
fn games_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n == "games.jsonl" || (n.starts_with("games-shard-") && n.ends_with(".jsonl"))
            })
        })
        .collect();
    files.sort();
    files
}

fn take_line(tune: &mut TuneLines, live: &Live, line: &str) {
    let Some(header) = &tune.header else {
        match serde_json::from_str::<HeaderLine>(line) {
            Ok(h) => {
                let view = view_of(&h.tune, &tune.path);
                let total = view
                    .games_per_iteration
                    .map(|g| (g * view.iterations) as usize);
                live.set_run(h.tune.seed, total);
                live.set_tune(view);
                tune.header = Some(h.tune);
            }
            Err(e) => tracing::warn!("{}: not a tune header: {e}", tune.path.display()),
        }
        return;
    };
    match serde_json::from_str::<IterationLine>(line) {
        Ok(l) => {
            let last = l.k + 1 == header.iterations;
            live.add_tune_iteration(l);
            if last && live.snapshot_phase() != Phase::Finished {
                live.set_phase(Phase::Finished);
            }
        }
        Err(e) => tracing::warn!("{}: skipped: {e}", tune.path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "[match]\nplayers = [\"a\", \"b\"]\n\
        [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\nnoise_cp = 5\n\
        [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n\
        [tune]\nplayer = \"a\"\niterations = 3\npairs = 2\n\
        [[tune.param]]\npath = \"noise_cp\"\nstart = 5\nmin = 0\nmax = 50\nc_end = 2\nr_end = 0.1\n";

    fn header(config_text: &str, recorded: bool) -> Header {
        Header {
            config_file: "t.toml".into(),
            config_text: config_text.into(),
            seed: 1,
            iterations: 3,
            simulate: false,
            params: vec!["noise_cp".into()],
            ranges: recorded.then(|| {
                vec![ParamRange {
                    start: 7.0,
                    min: 1.0,
                    max: 40.0,
                }]
            }),
            games_per_iteration: recorded.then_some(6),
        }
    }

    fn shown(view: &TuneView) -> (Option<f64>, Option<f64>, Option<f64>, Option<u64>) {
        let p = &view.params[0];
        (p.start, p.min, p.max, view.games_per_iteration)
    }

    /// The ranges are the header's; a header of an older build has its config validated again,
    /// and one whose config does not validate here shows the parameters without ranges.
    #[test]
    fn ranges_come_from_the_header_or_else_from_its_config() {
        let file = Path::new("tune.jsonl");
        let recorded = view_of(&header("not a config", true), file);
        assert_eq!(
            shown(&recorded),
            (Some(7.0), Some(1.0), Some(40.0), Some(6))
        );
        let old = view_of(&header(CONFIG, false), file);
        assert_eq!(shown(&old), (Some(5.0), Some(0.0), Some(50.0), Some(4)));
        let unreadable = view_of(&header("not a config", false), file);
        assert_eq!(shown(&unreadable), (None, None, None, None));
    }
}
