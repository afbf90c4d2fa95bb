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
    play(dir, &text)
}

/// An Elo file (as `council-elo --format json` writes it) for the three players of
/// [`played_run`], in `dir`.
fn played_run_elo(dir: &Path) -> PathBuf {
    let elo = dir.join("elo.json");
    std::fs::write(
        &elo,
        r#"{"players": [{"name": "strong", "elo": 100}, {"name": "noisy", "elo": 0}, {"name": "weak", "elo": -300}]}"#,
    )
    .unwrap();
    elo
}

/// Plays the match config `text` into `dir/run` (two games at once) and returns that folder.
fn play(dir: &Path, text: &str) -> PathBuf {
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
    let elo = played_run_elo(&dir);
    let cal = dir.join("cal.json");
    let svg = dir.join("cal.svg");
    analyze(&[
        "calibrate-ir".as_ref(),
        whole.as_os_str(),
        "--elo".as_ref(),
        elo.as_os_str(),
        "--out".as_ref(),
        cal.as_os_str(),
        "--svg".as_ref(),
        svg.as_os_str(),
    ]);
    // The picture names every rung.
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(
        drawn.starts_with("<svg"),
        "{}",
        &drawn[..drawn.len().min(80)]
    );
    for name in ["strong", "noisy", "weak", "leave-one-out IR"] {
        assert!(drawn.contains(name), "{name} not drawn");
    }
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
    // The regression on AE_e beside it: its line, and each rung's AE_e and leave-one-out IR.
    assert!(c["on_ae_e"]["r2"].as_f64().is_some(), "{c}");
    for r in c["rungs"].as_array().unwrap() {
        let ae_e = r["ae_e"].as_f64().unwrap();
        assert!(ae_e > 0.0 && ae_e.is_finite(), "{r}");
        assert!(r["loo_ir_ae_e"].as_f64().is_some(), "{r}");
    }
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
    let run = play(&dir, text);
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

#[test]
fn complexity_series_come_from_an_analysis_with_complexity() {
    let dir = scratch("complexity");
    let run = played_run(&dir, 1);
    let an = dir.join("an.jsonl");
    analyze(&[
        "moves".as_ref(),
        run.as_os_str(),
        "--out".as_ref(),
        an.as_os_str(),
        "--nodes".as_ref(),
        "800".as_ref(),
        "--multipv".as_ref(),
        "2".as_ref(),
        "--complexity".as_ref(),
        "--ebf-nodes".as_ref(),
        "2000".as_ref(),
        "--skip-plies".as_ref(),
        "0".as_ref(),
        "--quiet".as_ref(),
    ]);
    let all = lines(&an);
    for v in all.values() {
        assert!(
            v["root_cp"].is_i64() && v["leaves"].as_u64().unwrap() > 0,
            "{v}"
        );
        let r = v["leaf_ratio"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&r));
        if let Some(ebf) = v["ebf"].as_f64() {
            assert!(ebf >= 1.0 && v["ebf_depth"].as_u64().unwrap() >= 1, "{v}");
        }
    }
    let svg = dir.join("svg");
    let o = analyze(&[
        "complexity".as_ref(),
        an.as_os_str(),
        "--svg".as_ref(),
        svg.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let games = r["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    for g in games {
        let id = g["game"].as_u64().unwrap();
        let n = all.keys().filter(|(game, _)| *game == id).count();
        assert_eq!(g["positions"].as_u64().unwrap() as usize, n);
        assert_eq!(g["kalman"].as_array().unwrap().len(), n);
        assert_eq!(g["window_rho"].as_array().unwrap().len(), n);
        let rho = g["rho_raw"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&rho));
        assert!(g["rms_speed"].as_f64().unwrap() > 0.0);
        assert!(svg.join(format!("game-{id:04}.svg")).exists());
    }
    // Without --complexity there is nothing to say, and the message says how to get it.
    let plain = dir.join("plain.jsonl");
    analyze(&[
        "moves".as_ref(),
        run.as_os_str(),
        "--out".as_ref(),
        plain.as_os_str(),
        "--nodes".as_ref(),
        "300".as_ref(),
        "--multipv".as_ref(),
        "2".as_ref(),
        "--quiet".as_ref(),
    ]);
    let o = Command::new(workspace_bin("council-analyze"))
        .arg("complexity")
        .arg(&plain)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("moves --complexity"));
}

#[test]
fn famous_reproduces_seed_004_table_5_3_from_tables_5_1_and_5_2() {
    let csv = council_tests::workspace_root().join("tests/fixtures/seed004_famous.csv");
    let o = analyze(&[
        "famous".as_ref(),
        "--csv".as_ref(),
        csv.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Table 5.3 of seed 004: the leave-one-out probability (%) of each game, in the fixture's
    // order (the chosen eleven, then the eleven not chosen).
    let table = [
        99.4, 99.9, 91.0, 29.6, 56.5, 65.7, 35.4, 15.3, 16.5, 90.2, 63.8, 45.3, 55.9, 99.9, 29.8,
        35.1, 25.8, 27.6, 57.2, 57.0, 43.9, 47.9,
    ];
    let games = r["games"].as_array().unwrap();
    assert_eq!(games.len(), table.len());
    for (g, want) in games.iter().zip(table) {
        let got = 100.0 * g["loo_p"].as_f64().unwrap();
        assert!(
            (got - want).abs() <= 0.5,
            "{}: {got:.1}% vs {want}%",
            g["game"]
        );
    }
    let seven_of_eleven = 7.0 / 11.0;
    assert!((r["precision"].as_f64().unwrap() - seven_of_eleven).abs() < 1e-12);
    assert!((r["recall"].as_f64().unwrap() - seven_of_eleven).abs() < 1e-12);
}

#[test]
fn resign_fits_each_player_and_names_a_bad_row() {
    let dir = scratch("resign");
    // Two players drawn from the model with different thresholds (seeded LCG, no test crate).
    let mut state: u64 = 12345;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut text = String::from("player,v,ebf,resigned\n");
    // x = -v / ln b*; resignation when x passes mu (sigma 800), drawn through the logistic
    // approximation of the normal CDF, which is close enough to check that mu comes back.
    for (player, mu) in [("F", 1500.0), ("M", 800.0)] {
        for _ in 0..600 {
            let v = -3000.0 + 3500.0 * uniform();
            let ebf: f64 = 1.5 + uniform();
            let x = -v / ebf.ln();
            let p = 1.0 / (1.0 + (-1.702 * (x - mu) / 800.0).exp());
            let resigned = uniform() < p;
            text.push_str(&format!(
                "{player},{v:.0},{ebf:.3},{}\n",
                u8::from(resigned)
            ));
        }
    }
    let csv = dir.join("resign.csv");
    std::fs::write(&csv, &text).unwrap();
    let o = analyze(&[
        "resign".as_ref(),
        "--csv".as_ref(),
        csv.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let players = r["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    for (p, mu) in players.iter().zip([1500.0, 800.0]) {
        for key in ["mu", "sigma", "precision", "recall", "f"] {
            assert!(p[key].as_f64().unwrap().is_finite(), "{key}: {p}");
        }
        assert!((p["mu"].as_f64().unwrap() - mu).abs() < 250.0, "{p}");
        assert!(p["f"].as_f64().unwrap() > 0.5, "{p}");
    }
    std::fs::write(&csv, "player,v,ebf,resigned\nF,-300,2.0,1\nF,abc,2.0,0\n").unwrap();
    let o = Command::new(workspace_bin("council-analyze"))
        .args(["resign".as_ref(), "--csv".as_ref(), csv.as_os_str()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("row 2: v `abc` is not a number"));
}

/// `moves` at a fixed depth: `--sample` picks the same positions on any number of workers and
/// leaves their lines as a whole analysis has them (and grows on resume), `--player` keeps one
/// player's moves, `--screen-cp` gives the MultiPV search only to positions scored below the
/// threshold, and `ir` leaves the screened ones out.
#[test]
fn moves_at_a_fixed_depth_samples_and_screens_as_told() {
    let dir = scratch("sample");
    let run = played_run(&dir, 2);
    let moves = |out: &Path, extra: &[&str]| {
        let mut a: Vec<std::ffi::OsString> = vec![
            "moves".into(),
            run.clone().into(),
            "--out".into(),
            out.into(),
            "--depth".into(),
            "4".into(),
            "--multipv".into(),
            "4".into(),
            "--quiet".into(),
        ];
        a.extend(extra.iter().map(std::ffi::OsString::from));
        analyze(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
        lines(out)
    };
    let without_reference = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("reference");
        v
    };
    let whole = moves(&dir.join("whole.jsonl"), &["--concurrency", "2"]);
    for v in whole.values() {
        assert_eq!(v["reference"]["depth"], 4, "{v}");
        assert!(v["reference"].get("nodes").is_none(), "{v}");
    }

    // A half sample: the same positions on one worker and on two, about half of them, each line
    // as the whole analysis has it; another seed picks other positions.
    let one = moves(
        &dir.join("half-1.jsonl"),
        &["--sample", "0.5", "--seed", "7", "--concurrency", "1"],
    );
    let two = moves(
        &dir.join("half-2.jsonl"),
        &["--sample", "0.5", "--seed", "7", "--concurrency", "2"],
    );
    assert_eq!(one, two);
    assert!(
        one.len() * 4 > whole.len() && one.len() * 4 < whole.len() * 3,
        "{} of {} positions in a half sample",
        one.len(),
        whole.len()
    );
    for (key, v) in &one {
        assert_eq!(v["reference"]["sample"], 0.5);
        assert_eq!(v["reference"]["seed"], 7);
        assert_eq!(
            without_reference(v),
            without_reference(&whole[key]),
            "{key:?}"
        );
    }
    let other = moves(
        &dir.join("half-other.jsonl"),
        &["--sample", "0.5", "--seed", "8", "--concurrency", "2"],
    );
    assert_ne!(
        one.keys().collect::<Vec<_>>(),
        other.keys().collect::<Vec<_>>()
    );
    // Resuming a sample with another seed is refused, naming both.
    let o = Command::new(workspace_bin("council-analyze"))
        .args(["moves".as_ref(), run.as_os_str(), "--out".as_ref()])
        .arg(dir.join("half-1.jsonl"))
        .args([
            "--depth",
            "4",
            "--multipv",
            "4",
            "--sample",
            "0.5",
            "--seed",
            "9",
        ])
        .args(["--resume", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("(seed 7)") && err.contains("(seed 9)"),
        "{err}"
    );

    // One player's moves: exactly its positions of the whole analysis; an unknown name is refused.
    let weak = moves(
        &dir.join("weak.jsonl"),
        &["--player", "weak", "--concurrency", "2"],
    );
    let weak_whole: Vec<_> = whole
        .iter()
        .filter(|(_, v)| v["player"] == "weak")
        .collect();
    assert!(!weak.is_empty());
    assert_eq!(weak.len(), weak_whole.len());
    for (key, v) in weak_whole {
        assert_eq!(
            without_reference(&weak[key]),
            without_reference(v),
            "{key:?}"
        );
    }
    let o = Command::new(workspace_bin("council-analyze"))
        .args(["moves".as_ref(), run.as_os_str(), "--out".as_ref()])
        .arg(dir.join("nobody.jsonl"))
        .args(["--depth", "4", "--player", "nobody", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--player nobody"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // Resumed with a larger sample of the same seed, the analysis grows into that sample's.
    let three_quarters = moves(
        &dir.join("three-quarters.jsonl"),
        &["--sample", "0.75", "--seed", "7", "--concurrency", "2"],
    );
    let grown = moves(
        &dir.join("half-1.jsonl"),
        &["--sample", "0.75", "--seed", "7", "--resume"],
    );
    assert_eq!(
        grown.keys().collect::<Vec<_>>(),
        three_quarters.keys().collect::<Vec<_>>()
    );
    assert!(grown.len() > one.len());
    // Its calibration names the sample its lines now make up, not the one it was begun with.
    let elo = played_run_elo(&dir);
    let grown_cal = dir.join("grown-cal.json");
    analyze(&[
        "calibrate-ir".as_ref(),
        dir.join("half-1.jsonl").as_os_str(),
        "--elo".as_ref(),
        elo.as_os_str(),
        "--out".as_ref(),
        grown_cal.as_os_str(),
        "--skip-plies".as_ref(),
        "0".as_ref(),
        "--max-cp".as_ref(),
        "100000".as_ref(),
    ]);
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&grown_cal).unwrap()).unwrap();
    assert_eq!(c["reference"]["sample"], 0.75, "{}", c["reference"]);

    // The screen: lines at or beyond 150 cp carry the best move alone; the others are the whole
    // analysis's lines; both kinds occur.
    let screened = moves(
        &dir.join("screened.jsonl"),
        &["--screen-cp", "150", "--concurrency", "2"],
    );
    assert_eq!(
        screened.keys().collect::<Vec<_>>(),
        whole.keys().collect::<Vec<_>>()
    );
    let mut kept_by_player: BTreeMap<String, u64> = BTreeMap::new();
    let mut dropped = 0;
    let mut seen = std::collections::HashSet::new();
    for (key, v) in &screened {
        // A position repeated within its game counts once (the data rules).
        let sfen = v["sfen"].as_str().unwrap();
        let board = sfen.rsplit_once(' ').unwrap().0.to_string();
        let first = seen.insert((key.0, board));
        if v["screened"] == true {
            dropped += 1;
            let c = v["candidates"].as_array().unwrap();
            assert_eq!(c.len(), 1, "{v}");
            assert!(c[0]["cp"].as_i64().unwrap().abs() >= 150, "{v}");
        } else {
            assert!(v.get("screened").is_none(), "{v}");
            assert_eq!(
                without_reference(v),
                without_reference(&whole[key]),
                "{key:?}"
            );
            let v0 = v["candidates"][0]["cp"].as_i64().unwrap();
            if v0.abs() < 150 && first {
                *kept_by_player
                    .entry(v["player"].as_str().unwrap().to_string())
                    .or_default() += 1;
            }
        }
    }
    assert!(
        dropped > 0 && dropped < screened.len(),
        "{dropped} screened"
    );
    // ir counts exactly the unscreened positions under its threshold, each once.
    let o = analyze(&[
        "ir".as_ref(),
        dir.join("screened.jsonl").as_os_str(),
        "--max-cp".as_ref(),
        "150".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let ir: Value = serde_json::from_slice(&o.stdout).unwrap();
    let counted: BTreeMap<String, u64> = ir["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["positions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counted, kept_by_player);
}
