//! `council-analyze` as a user runs it on a council-match run folder: `moves` analyses every
//! position once (resumed after a SIGKILL, on any number of workers, the same lines), `ir` and
//! `calibrate-ir` read that analysis, `game-length` fits a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use council_tests::workspace_bin;
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("analyze-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A short node-limited round robin of three built-in engines of different strength.
fn played_run(dir: &Path, games: u32) -> PathBuf {
    let text = format!(
        "[match]\nformat = \"round-robin\"\nplayers = [\"strong\", \"noisy\", \"weak\"]\n\
         games = {games}\nmax_plies = 140\nseed = 3\n\n\
         [[player]]\nname = \"strong\"\nkind = \"internal\"\nnodes = 800\n\n\
         [[player]]\nname = \"noisy\"\nkind = \"internal\"\nnodes = 800\nnoise_cp = 150\n\n\
         [[player]]\nname = \"weak\"\nkind = \"internal\"\nnodes = 100\n"
    );
    let cfg = dir.join("run.toml");
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("run");
    let o = Command::new(workspace_bin("council-match"))
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--concurrency", "2"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn analyze(args: &[&std::ffi::OsStr]) -> Output {
    let o = Command::new(workspace_bin("council-analyze"))
        .args(args)
        .output()
        .expect("run council-analyze");
    assert!(
        o.status.success(),
        "council-analyze {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The analysis lines by (game, ply).
fn lines(path: &Path) -> BTreeMap<(u64, u64), Value> {
    let mut by = BTreeMap::new();
    for l in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(l).expect("a JSON line");
        let key = (v["game"].as_u64().unwrap(), v["ply"].as_u64().unwrap());
        assert!(
            by.insert(key, v).is_none(),
            "{key:?} twice in {}",
            path.display()
        );
    }
    by
}

#[test]
fn moves_resumes_after_a_kill_with_every_position_once() {
    let dir = scratch("moves");
    let run = played_run(&dir, 2);
    let games: Vec<Value> = std::fs::read_to_string(run.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected: usize = games
        .iter()
        .map(|g| g["moves"].as_array().unwrap().len().saturating_sub(16))
        .sum();
    let args = |out: &Path, workers: &str| -> Vec<std::ffi::OsString> {
        vec![
            "moves".into(),
            run.clone().into(),
            "--out".into(),
            out.into(),
            "--nodes".into(),
            "1500".into(),
            "--multipv".into(),
            "6".into(),
            "--concurrency".into(),
            workers.into(),
            "--quiet".into(),
        ]
    };
    // Uninterrupted, one worker.
    let whole = dir.join("whole.jsonl");
    let a: Vec<std::ffi::OsString> = args(&whole, "1");
    analyze(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    let reference = lines(&whole);
    assert_eq!(reference.len(), expected);
    for v in reference.values() {
        let c = v["candidates"].as_array().unwrap();
        assert!(
            c.iter().any(|x| x["move"] == v["played"]),
            "played move scored: {v}"
        );
        let cps: Vec<i64> = c.iter().map(|x| x["cp"].as_i64().unwrap()).collect();
        assert!(cps.windows(2).all(|w| w[0] >= w[1]), "best first: {v}");
    }

    // Killed part-way (SIGKILL), then resumed with two workers: every position once, the same
    // lines as the uninterrupted analysis.
    let resumed = dir.join("resumed.jsonl");
    let b = args(&resumed, "2");
    let mut child = Command::new(workspace_bin("council-analyze"))
        .args(&b)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        let n = std::fs::read_to_string(&resumed)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= expected / 3 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the analysis ended before it was killed"
        );
        assert!(start.elapsed() < Duration::from_secs(600), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = std::fs::read_to_string(&resumed).unwrap().lines().count();
    assert!(
        partial < expected,
        "killed before the end ({partial} of {expected})"
    );
    // Without --resume the file is not overwritten.
    let o = Command::new(workspace_bin("council-analyze"))
        .args(&b)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    let mut c = b.clone();
    c.push("--resume".into());
    analyze(&c.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    assert_eq!(lines(&resumed), reference);
    // Resuming with another budget is refused.
    let mut d = b.clone();
    d[5] = "1600".into();
    d.push("--resume".into());
    let o = Command::new(workspace_bin("council-analyze"))
        .args(&d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not by"));

    // ir reads it: every player, its keys, the rules applied.
    let o = analyze(&[
        "ir".as_ref(),
        whole.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let ir: Value = serde_json::from_slice(&o.stdout).unwrap();
    let players = ir["players"].as_array().unwrap();
    assert_eq!(players.len(), 3);
    for p in players {
        for key in [
            "name",
            "positions",
            "mm",
            "ae",
            "s",
            "c",
            "s_percentile",
            "c_percentile",
            "mm_e",
            "ae_e",
        ] {
            assert!(p.get(key).is_some(), "{key} in {p}");
        }
        assert!(p["positions"].as_u64().unwrap() > 0);
        assert!(p.get("ir").is_none());
    }

    // calibrate-ir with Elo for the three, then ir with the calibration: IR and its interval.
    let elo = dir.join("elo.json");
    std::fs::write(
        &elo,
        r#"{"players": [{"name": "strong", "elo": 100}, {"name": "noisy", "elo": 0}, {"name": "weak", "elo": -300}]}"#,
    )
    .unwrap();
    let cal = dir.join("cal.json");
    analyze(&[
        "calibrate-ir".as_ref(),
        whole.as_os_str(),
        "--elo".as_ref(),
        elo.as_os_str(),
        "--out".as_ref(),
        cal.as_os_str(),
    ]);
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&cal).unwrap()).unwrap();
    for key in [
        "u",
        "max_cp",
        "skip_plies",
        "reference",
        "a",
        "b",
        "r2",
        "rungs",
    ] {
        assert!(c.get(key).is_some(), "{key} in {c}");
    }
    assert_eq!(c["rungs"].as_array().unwrap().len(), 3);
    let o = analyze(&[
        "ir".as_ref(),
        whole.as_os_str(),
        "--calibration".as_ref(),
        cal.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let ir: Value = serde_json::from_slice(&o.stdout).unwrap();
    for p in ir["players"].as_array().unwrap() {
        let (v, lo, hi) = (
            p["ir"].as_f64().unwrap(),
            p["ir_lower"].as_f64().unwrap(),
            p["ir_upper"].as_f64().unwrap(),
        );
        assert!(lo <= v && v <= hi, "{p}");
    }
}

#[test]
fn game_length_fits_a_run_and_draws_it() {
    let dir = scratch("length");
    let run = played_run(&dir, 8);
    let svg = dir.join("length.svg");
    let o = analyze(&[
        "game-length".as_ref(),
        run.as_os_str(),
        "--svg".as_ref(),
        svg.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let decisive = std::fs::read_to_string(run.join("results.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"result\":\"draw\""))
        .count();
    assert_eq!(r["games"].as_u64().unwrap() as usize, decisive);
    for key in ["mean", "sd", "m3", "a", "m", "s"] {
        assert!(r[key].as_f64().unwrap().is_finite(), "{key}: {r}");
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("random walk"));
}
