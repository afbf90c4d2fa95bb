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

#[test]
fn council_sets_the_model_beside_the_councils_votes() {
    let dir = scratch("council");
    let text = "[match]\nplayers = [\"council\", \"single\"]\ngames = 2\nmax_plies = 120\nseed = 4\n\n\
         [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"m1\", \"m2\", \"m3\"]\n\
         method = \"majority\"\nnodes = 600\n\n\
         [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 600\n\n\
         [[player]]\nname = \"m1\"\nkind = \"internal\"\nsigma = 100.0\n\n\
         [[player]]\nname = \"m2\"\nkind = \"internal\"\nnoise_cp = 80\nsigma = 150.0\n\n\
         [[player]]\nname = \"m3\"\nkind = \"internal\"\nnoise_cp = 160\nsigma = 200.0\n";
    let cfg = dir.join("council.toml");
    std::fs::write(&cfg, text).unwrap();
    let run = dir.join("run");
    let o = Command::new(workspace_bin("council-match"))
        .arg(&cfg)
        .arg("--out")
        .arg(&run)
        .args(["--quiet", "--concurrency", "2"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let an = dir.join("an.jsonl");
    analyze(&[
        "moves".as_ref(),
        run.as_os_str(),
        "--out".as_ref(),
        an.as_os_str(),
        "--nodes".as_ref(),
        "3000".as_ref(),
        "--multipv".as_ref(),
        "3".as_ref(),
        "--skip-plies".as_ref(),
        "0".as_ref(),
        "--quiet".as_ref(),
    ]);
    let json = |extra: &[&str]| -> Value {
        let mut args: Vec<std::ffi::OsString> = vec!["council".into(), run.clone().into()];
        args.extend(extra.iter().map(std::ffi::OsString::from));
        args.extend(["--trials", "200000", "--format", "json"].map(std::ffi::OsString::from));
        let o = analyze(&args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let with = json(&["--analysis", an.to_str().unwrap()]);
    let c = &with["councils"][0];
    assert_eq!(c["name"], "council");
    // The council's own method, replayed on its recorded ballots, plays what it played: its
    // measured rate is the share of its recorded choices that are the reference's best move.
    let best: BTreeMap<(u64, u64), String> = lines(&an)
        .into_iter()
        .map(|(k, v)| (k, v["candidates"][0]["move"].as_str().unwrap().to_string()))
        .collect();
    let (mut hits, mut total) = (0u32, 0u32);
    for l in std::fs::read_to_string(run.join("results.jsonl"))
        .unwrap()
        .lines()
    {
        let g: Value = serde_json::from_str(l).unwrap();
        for v in g["votes"].as_array().into_iter().flatten() {
            let key = (g["id"].as_u64().unwrap(), v["ply"].as_u64().unwrap());
            if let Some(b) = best.get(&key) {
                total += 1;
                if v["chosen"] == b.as_str() {
                    hits += 1;
                }
            }
        }
    }
    assert!(total > 50, "{total} analysed council decisions");
    assert_eq!(c["analysed"].as_u64().unwrap(), u64::from(total));
    let majority = c["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["method"] == "majority")
        .unwrap();
    assert_eq!(
        majority["measured"]["n"].as_u64().unwrap(),
        u64::from(total)
    );
    let measured = majority["measured"]["rate"].as_f64().unwrap();
    assert!((measured - f64::from(hits) / f64::from(total)).abs() < 1e-12);
    for m in c["members"].as_array().unwrap() {
        assert!(m["noise"].as_f64().unwrap() > 0.0);
        let r = m["measured"]["rate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&r));
    }
    for m in c["methods"].as_array().unwrap() {
        assert!((0.0..=1.0).contains(&m["predicted"].as_f64().unwrap()));
    }
    // Without a reference: noise from the agreements alone, no measured method rates.
    let without = json(&[]);
    let c = &without["councils"][0];
    assert!(c["methods"][0].get("measured").is_none());
    assert_eq!(c["members"].as_array().unwrap().len(), 3);
}

#[test]
fn a_usi_engine_of_a_config_can_be_the_reference() {
    let dir = scratch("usi-reference");
    let run = played_run(&dir, 1);
    let cfg = dir.join("reference.toml");
    std::fs::write(
        &cfg,
        "[[player]]\nname = \"fairy\"\nkind = \"usi\"\ncommand = \"/usr/games/fairy-stockfish\"\n\
         options = { Threads = 1, Hash = 16 }\nnodes = 1\n",
    )
    .unwrap();
    let out = dir.join("an.jsonl");
    let reference = format!("{}:fairy", cfg.display());
    analyze(&[
        "moves".as_ref(),
        run.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--reference".as_ref(),
        reference.as_ref(),
        "--nodes".as_ref(),
        "3000".as_ref(),
        "--multipv".as_ref(),
        "3".as_ref(),
        "--skip-plies".as_ref(),
        "60".as_ref(),
        "--quiet".as_ref(),
    ]);
    let all = lines(&out);
    assert!(!all.is_empty());
    let mut outside = 0;
    for v in all.values() {
        assert_eq!(v["reference"]["name"], "fairy multipv 3");
        let c = v["candidates"].as_array().unwrap();
        let pos = c
            .iter()
            .position(|x| x["move"] == v["played"])
            .unwrap_or_else(|| panic!("played move scored: {v}"));
        if pos >= 3 {
            outside += 1;
        }
        assert!(c.len() <= 4, "{v}");
        let cps: Vec<i64> = c.iter().map(|x| x["cp"].as_i64().unwrap()).collect();
        assert!(cps.windows(2).all(|w| w[0] >= w[1]), "best first: {v}");
    }
    // Weak players' moves fall outside the top three at times: those were scored by
    // `go searchmoves`.
    assert!(
        outside > 0,
        "no played move outside the MultiPV in {} positions",
        all.len()
    );
    // A reference that is not a USI engine, or not in the config, is refused by name.
    let o = Command::new(workspace_bin("council-analyze"))
        .args(["moves".as_ref(), run.as_os_str(), "--out".as_ref()])
        .arg(dir.join("x.jsonl"))
        .arg("--reference")
        .arg(format!("{}:nobody", cfg.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no player `nobody`"));
}
