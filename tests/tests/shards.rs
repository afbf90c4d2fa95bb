//! Runs beyond one machine: `council-match --shard`, `council-match merge`, the Slurm array
//! script on a real one-node Slurm cluster (configs/slurm/local-cluster.sh, started here as
//! root), and the Kubernetes Indexed Job's command line.
//!
//! The promise under test: a run's shards, merged, are the unsharded run game for game (at node
//! limits), whatever happens to a shard on the way (cancelled, resubmitted), and merge refuses
//! anything that is not one run's shards.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use council_tests::{python, workspace_bin, workspace_root};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("shards-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A node-limited round robin of three built-in engines (`games` per pairing), replayable.
fn config(dir: &Path, games: u32, nodes: u32, extra: &str) -> PathBuf {
    write_config(
        dir,
        "round-robin",
        r#"["a", "b", "c"]"#,
        games,
        nodes,
        extra,
    )
}

/// A node-limited head-to-head of two built-in engines, `games` games, replayable.
fn head_to_head(dir: &Path, games: u32, nodes: u32) -> PathBuf {
    write_config(dir, "head-to-head", r#"["a", "b"]"#, games, nodes, "")
}

fn write_config(
    dir: &Path,
    format: &str,
    players: &str,
    games: u32,
    nodes: u32,
    extra: &str,
) -> PathBuf {
    let text = format!(
        "[match]\nformat = \"{format}\"\nplayers = {players}\ngames = {games}\n\
         max_plies = 160\nseed = 11\n{extra}\n\n\
         [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = {nodes}\n\n\
         [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = {nodes}\nnoise_cp = 80\n\n\
         [[player]]\nname = \"c\"\nkind = \"internal\"\nnodes = {half}\n",
        half = nodes / 2
    );
    let path = dir.join("run.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

fn council_match(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(workspace_bin("council-match"))
        .args(args)
        .output()
        .expect("run council-match")
}

fn run(config: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut cmd = Command::new(workspace_bin("council-match"));
    cmd.arg(config)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--concurrency", "2"])
        .args(extra);
    let o = cmd.output().expect("run council-match");
    assert!(
        o.status.success(),
        "council-match {} failed: {}",
        out.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn merge(dirs: &[PathBuf], out: &Path) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["merge".as_ref()];
    args.extend(dirs.iter().map(|d| d.as_os_str()));
    args.extend(["--out".as_ref(), out.as_os_str()]);
    council_match(&args)
}

fn lines(dir: &Path) -> Vec<Value> {
    let path = dir.join("results.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("results line is JSON"))
        .collect()
}

/// Each game by id: what must be equal between a sharded and an unsharded run.
fn games(dir: &Path) -> BTreeMap<u64, Value> {
    let mut by_id = BTreeMap::new();
    for g in lines(dir) {
        let id = g["id"].as_u64().expect("id");
        let key = serde_json::json!([
            g["pair"],
            g["sente"],
            g["gote"],
            g["start"],
            g["moves"],
            g["result"],
            g["reason"],
            g["plies"],
            g["seed"]
        ]);
        assert!(
            by_id.insert(id, key).is_none(),
            "{}: game {id} twice",
            dir.display()
        );
    }
    by_id
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn shards_merge_into_the_unsharded_run_game_for_game() {
    let dir = scratch("local");
    let cfg = config(&dir, 4, 300, "");
    run(&cfg, &dir.join("whole"), &[]);
    let shards: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("shard-{i}"))).collect();
    for (i, s) in shards.iter().enumerate() {
        run(&cfg, s, &["--shard", &format!("{i}/3")]);
        // Whole colour-swapped pairs: every pair number a shard holds, it holds twice.
        let mut pairs: BTreeMap<u64, u32> = BTreeMap::new();
        for g in lines(s) {
            *pairs.entry(g["pair"].as_u64().expect("pair")).or_default() += 1;
        }
        assert!(!pairs.is_empty(), "shard {i} played nothing");
        assert!(pairs.values().all(|&n| n == 2), "shard {i}: {pairs:?}");
    }
    let merged = dir.join("merged");
    let o = merge(&shards, &merged);
    assert!(o.status.success(), "merge failed: {}", stderr(&o));
    let whole = games(&dir.join("whole"));
    assert_eq!(whole.len(), 12);
    assert_eq!(games(&merged), whole);
    // Ordered by id; every game's records copied; the summary counts every game.
    let ids: Vec<u64> = lines(&merged)
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (0..12).collect::<Vec<_>>());
    let records = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d.join("records"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(records(&merged), records(&dir.join("whole")));
    let summary = |d: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap()
    };
    let (s, w) = (summary(&merged), summary(&dir.join("whole")));
    assert_eq!(s["games"], 12);
    for key in ["name", "wins", "draws", "losses", "points"] {
        let pick = |v: &Value| -> Vec<Value> {
            v["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[key].clone())
                .collect()
        };
        assert_eq!(pick(&s), pick(&w), "summary players' {key}");
    }
    assert!(s.get("shard").is_none());
    assert_eq!(summary(&shards[1])["shard"]["index"], 1);
    // The merged folder is a run folder: resuming it with the config plays nothing more.
    run(&cfg, &merged, &["--resume"]);
    assert_eq!(lines(&merged).len(), 12);
}

#[test]
fn merge_refuses_what_is_not_one_runs_shards_and_names_missing_games() {
    let dir = scratch("refusals");
    let cfg = config(&dir, 4, 200, "");
    let shards: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("s{i}"))).collect();
    for (i, s) in shards.iter().enumerate() {
        run(&cfg, s, &["--shard", &format!("{i}/3")]);
    }

    // Another run (another seed): refused, naming the folder.
    let other_dir = dir.join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = config(&other_dir, 4, 200, "");
    let text = std::fs::read_to_string(&other)
        .unwrap()
        .replace("seed = 11", "seed = 12");
    std::fs::write(&other, text).unwrap();
    let foreign = dir.join("foreign");
    run(&other, &foreign, &["--shard", "2/3"]);
    let o = merge(
        &[shards[0].clone(), shards[1].clone(), foreign.clone()],
        &dir.join("m1"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{}: a shard of another run", foreign.display())),
        "{}",
        stderr(&o)
    );

    // The same shard twice.
    let twin = dir.join("twin");
    run(&cfg, &twin, &["--shard", "1/3"]);
    let o = merge(
        &[shards[0].clone(), shards[1].clone(), twin.clone()],
        &dir.join("m2"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("are both shard 1/3"), "{}", stderr(&o));

    // A tampered game line: a checkmate given to the mated side, then a move that is not legal.
    let tampered = dir.join("tampered");
    run(&cfg, &tampered, &["--shard", "2/3"]);
    let path = tampered.join("results.jsonl");
    let original = std::fs::read_to_string(&path).unwrap();
    let mut edited: Vec<Value> = original
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mate = edited
        .iter()
        .position(|g| g["reason"] == "checkmate")
        .expect("shard 2/3 of this run has a checkmate (the run is fixed by its seed)");
    let winner = if edited[mate]["result"] == "sente" {
        "gote"
    } else {
        "sente"
    };
    edited[mate]["result"] = winner.into();
    let write = |all: &[Value]| {
        let text: String = all.iter().map(|g| format!("{g}\n")).collect();
        std::fs::write(&path, text).unwrap();
    };
    write(&edited);
    let with_tampered = [shards[0].clone(), shards[1].clone(), tampered.clone()];
    let o = merge(&with_tampered, &dir.join("m3"));
    assert_eq!(o.status.code(), Some(2));
    let id = edited[mate]["id"].as_u64().unwrap();
    assert!(
        stderr(&o).contains(&format!("game {id} is not the run's game {id}"))
            && stderr(&o).contains("checkmate"),
        "{}",
        stderr(&o)
    );
    edited[mate]["result"] = (if winner == "sente" { "gote" } else { "sente" }).into();
    let moves = edited[mate]["moves"].as_array_mut().unwrap();
    let n = moves.len();
    moves[n / 2] = "5a5a".into();
    write(&edited);
    let o = merge(&with_tampered, &dir.join("m4"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("its moves do not replay"),
        "{}",
        stderr(&o)
    );

    // Another shard's game, copied whole into this shard's file: refused, not merged.
    let mut copied: Vec<Value> = original
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let theirs = std::fs::read_to_string(shards[0].join("results.jsonl")).unwrap();
    let stray: Value = serde_json::from_str(theirs.lines().next().unwrap()).unwrap();
    copied.push(stray.clone());
    write(&copied);
    let o = merge(&with_tampered, &dir.join("m6"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("it belongs to shard 0/3, not to this folder's shard 2/3"),
        "{}",
        stderr(&o)
    );
    // One game written twice in a shard's file: the same game merges, another is refused.
    copied.pop();
    copied.push(copied[0].clone());
    write(&copied);
    let o = merge(&with_tampered, &dir.join("m7"));
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    let last = copied.len() - 1;
    copied[last]["seed"] = (copied[last]["seed"].as_u64().unwrap() + 1).into();
    write(&copied);
    let o = merge(&with_tampered, &dir.join("m8"));
    assert_eq!(o.status.code(), Some(2));
    let id = copied[0]["id"].as_u64().unwrap();
    assert!(
        stderr(&o).contains(&format!(
            "game {id} differs between {} and {}",
            tampered.display(),
            tampered.display()
        )),
        "{}",
        stderr(&o)
    );
    std::fs::write(&path, &original).unwrap();

    // Merging into a shard folder is refused; so is a folder that is not a shard.
    let o = merge(&shards, &shards[0]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is one of the shard folders"));
    let whole = dir.join("whole");
    run(&cfg, &whole, &["--games", "2"]);
    let o = merge(&[shards[0].clone(), whole.clone()], &dir.join("m5"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a shard folder"), "{}", stderr(&o));

    // A missing shard: the merged folder is written, the missing ids named by shard, exit 3.
    let merged = dir.join("m6");
    let o = merge(&shards[..2], &merged);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let expect: Vec<String> = lines(&shards[2])
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect::<std::collections::BTreeSet<_>>()
        .iter()
        .map(u64::to_string)
        .collect();
    assert!(
        stderr(&o).contains(&format!("shard 2/3: games {}", expect.join(", "))),
        "{}",
        stderr(&o)
    );
    assert_eq!(lines(&merged).len(), 12 - expect.len());
    // Resuming the merged folder plays exactly the missing games.
    run(&cfg, &merged, &["--resume"]);
    let mut all = games(&shards[0]);
    all.extend(games(&shards[1]));
    all.extend(games(&shards[2]));
    assert_eq!(games(&merged), all);
}

#[test]
fn shard_options_are_checked_before_any_game() {
    let dir = scratch("options");
    let cfg = config(&dir, 2, 100, "");
    let check = |extra: &[&str], env: &[(&str, &str)]| {
        let mut cmd = Command::new(workspace_bin("council-match"));
        cmd.arg(&cfg).arg("--check").args(extra);
        for v in [
            "SLURM_ARRAY_TASK_ID",
            "SLURM_ARRAY_TASK_COUNT",
            "SLURM_ARRAY_TASK_MIN",
            "JOB_COMPLETION_INDEX",
            "COUNCIL_SHARDS",
        ] {
            cmd.env_remove(v);
        }
        cmd.envs(env.iter().copied());
        cmd.output().expect("run council-match")
    };
    let o = check(
        &["--shard", "auto"],
        &[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "2"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("shard 2/3"));
    let o = check(
        &["--shard", "auto"],
        &[("JOB_COMPLETION_INDEX", "1"), ("COUNCIL_SHARDS", "4")],
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("shard 1/4"));
    let o = check(&["--shard", "auto"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("SLURM_ARRAY_TASK_ID") && stderr(&o).contains("JOB_COMPLETION_INDEX")
    );
    let o = check(&["--shard", "3/3"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("shard 3 of 3 does not exist"),
        "{}",
        stderr(&o)
    );

    // SPRT and shards: one line, before any game.
    let sprt_dir = dir.join("sprt");
    std::fs::create_dir_all(&sprt_dir).unwrap();
    let sprt_cfg = write_config(
        &sprt_dir,
        "head-to-head",
        r#"["a", "b"]"#,
        2,
        100,
        "sprt = { elo0 = 0, elo1 = 50 }",
    );
    let out = sprt_dir.join("out");
    let o = Command::new(workspace_bin("council-match"))
        .arg(&sprt_cfg)
        .args(["--shard", "0/2", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("[match.sprt] and --shard"));
    assert!(lines(&out).is_empty());

    // A shard resumed as another shard is refused; resumed without --shard it stays itself.
    let s = dir.join("s1");
    run(&cfg, &s, &["--shard", "1/2", "--games", "2"]);
    let o = Command::new(workspace_bin("council-match"))
        .arg(&cfg)
        .args(["--shard", "0/2", "--resume", "--quiet", "--out"])
        .arg(&s)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("started with --shard 1/2, not 0/2"),
        "{}",
        stderr(&o)
    );
    let before = lines(&s).len();
    run(&cfg, &s, &["--resume"]);
    assert_eq!(lines(&s).len(), before);
}

/// The Indexed Job in `manifest` as the API server would run pod `index`: its completions,
/// parallelism, env and expanded argv (tests/helpers/k8s_job_args.py).
fn job_as_run(root: &Path, manifest: &Path, index: u64) -> Value {
    let o = Command::new(python())
        .arg(root.join("tests/helpers/k8s_job_args.py"))
        .arg(manifest)
        .arg(index.to_string())
        .output()
        .expect("run the manifest reader");
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("the reader prints JSON")
}

#[test]
fn the_kubernetes_job_runs_a_shard_council_match_accepts() {
    let root = workspace_root();
    let manifest = root.join("configs/k8s/council-match-job.yaml");
    let read = |index: u64| job_as_run(&root, &manifest, index);
    let job = read(0);
    let completions = job["completions"].as_u64().expect("completions");
    assert_eq!(job["env"]["COUNCIL_SHARDS"], completions.to_string());
    assert!(job["parallelism"].as_u64().unwrap() <= completions);
    let mut outs = std::collections::BTreeSet::new();
    for index in 0..completions {
        let job = read(index);
        let argv: Vec<String> = job["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        assert_eq!(argv[0], "council-match");
        let out = argv.iter().skip_while(|a| *a != "--out").nth(1).unwrap();
        assert!(!out.contains("$("), "unexpanded reference in {out}");
        outs.insert(out.clone());
        let mut cmd = Command::new(workspace_bin("council-match"));
        cmd.current_dir(&root).args(&argv[1..]).arg("--check");
        for (k, v) in job["env"].as_object().unwrap() {
            cmd.env(k, v.as_str().unwrap());
        }
        cmd.env_remove("SLURM_ARRAY_TASK_ID");
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{argv:?}: {}", stderr(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains(&format!("shard {index}/{completions}")),
            "{stdout}"
        );
    }
    assert_eq!(outs.len() as u64, completions, "each pod its own folder");
}

/// The tune's Indexed Job: every pod runs council-tune on one shared folder with `--shard auto`,
/// all pods at once (lockstep); its command lines, run here as local processes on a scratch
/// folder for two iterations, finish the tune together.
#[test]
fn the_kubernetes_tune_job_runs_shards_that_finish_one_tune() {
    let root = workspace_root();
    let manifest = root.join("configs/k8s/council-tune-job.yaml");
    let read = |index: u64| job_as_run(&root, &manifest, index);
    let job = read(0);
    let completions = job["completions"].as_u64().expect("completions");
    assert_eq!(job["env"]["COUNCIL_SHARDS"], completions.to_string());
    assert_eq!(
        job["parallelism"].as_u64(),
        Some(completions),
        "lockstep shards all run at once"
    );
    let scratch = scratch("k8s-tune");
    let shared = scratch.join("tune");
    let mut outs = std::collections::BTreeSet::new();
    let mut pods = Vec::new();
    for index in 0..completions {
        let job = read(index);
        let mut argv: Vec<String> = job["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        assert_eq!(argv[0], "council-tune");
        let at = argv.iter().position(|a| a == "--out").unwrap() + 1;
        assert!(
            !argv[at].contains("$("),
            "unexpanded reference in {}",
            argv[at]
        );
        outs.insert(argv[at].clone());
        argv[at] = shared.display().to_string();
        let mut cmd = Command::new(workspace_bin("council-tune"));
        cmd.current_dir(&root)
            .args(&argv[1..])
            .args(["--iterations", "2"]);
        for (k, v) in job["env"].as_object().unwrap() {
            cmd.env(k, v.as_str().unwrap());
        }
        cmd.env_remove("SLURM_ARRAY_TASK_ID");
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
        pods.push(cmd.spawn().expect("start a pod's council-tune"));
    }
    assert_eq!(outs.len(), 1, "every pod on the one shared folder");
    for (index, pod) in pods.into_iter().enumerate() {
        let o = pod.wait_with_output().unwrap();
        assert!(o.status.success(), "pod {index}: {}", stderr(&o));
    }
    let text = std::fs::read_to_string(shared.join("tune.jsonl")).expect("pod 0 wrote tune.jsonl");
    assert_eq!(text.lines().count(), 1 + 2, "a header and two iterations");
    for index in 0..completions {
        assert!(shared.join(format!("games-shard-{index}.jsonl")).exists());
    }
}

/// The one-node Slurm cluster, started once per test process; its `SLURM_CONF`.
fn slurm() -> &'static str {
    static CONF: OnceLock<String> = OnceLock::new();
    CONF.get_or_init(|| {
        let script = workspace_root().join("configs/slurm/local-cluster.sh");
        let o = Command::new("bash")
            .arg(&script)
            .arg("start")
            .output()
            .expect("run local-cluster.sh");
        assert!(
            o.status.success(),
            "cannot start the one-node Slurm cluster (configs/slurm/local-cluster.sh start, as root): {}",
            stderr(&o)
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("export SLURM_CONF="))
            .expect("local-cluster.sh prints SLURM_CONF")
            .to_string()
    })
}

fn slurm_command(program: &str, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("SLURM_CONF", slurm())
        .env("COUNCIL_MATCH", workspace_bin("council-match"));
    cmd
}

fn sbatch(dir: &Path, array: &str, wait: bool, cfg: &Path, outdir: &Path) -> String {
    let script = workspace_root().join("configs/slurm/council-match.sbatch");
    let mut cmd = slurm_command("sbatch", dir);
    cmd.arg("--parsable").arg(format!("--array={array}"));
    if wait {
        cmd.arg("--wait");
    }
    let o = cmd
        .arg(script)
        .arg(cfg)
        .arg(outdir)
        .output()
        .expect("sbatch");
    assert!(o.status.success(), "sbatch --array={array}: {}", stderr(&o));
    String::from_utf8_lossy(&o.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

fn job_running(dir: &Path, job: &str) -> bool {
    let o = slurm_command("squeue", dir)
        .args(["-h", "-j", job])
        .output()
        .expect("squeue");
    !String::from_utf8_lossy(&o.stdout).trim().is_empty()
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn shard_dirs(outdir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n).map(|i| outdir.join(format!("shard-{i}"))).collect()
}

#[test]
fn a_slurm_array_plays_the_run_in_shards_that_merge_into_the_unsharded_run() {
    let dir = scratch("slurm");
    let cfg16 = head_to_head(&dir, 16, 400);
    run(&cfg16, &dir.join("whole"), &[]);
    let outdir = dir.join("run");
    sbatch(&dir, "0-3", true, &cfg16, &outdir);
    let merged = dir.join("merged");
    let o = merge(&shard_dirs(&outdir, 4), &merged);
    assert!(o.status.success(), "merge: {}", stderr(&o));
    let whole = games(&dir.join("whole"));
    assert_eq!(whole.len(), 16);
    assert_eq!(games(&merged), whole);
    for (i, s) in shard_dirs(&outdir, 4).iter().enumerate() {
        let info: Value =
            serde_json::from_str(&std::fs::read_to_string(s.join("run.json")).unwrap()).unwrap();
        assert_eq!(info["shard"], serde_json::json!({"index": i, "count": 4}));
    }
}

#[test]
fn a_cancelled_slurm_task_resubmitted_alone_resumes_its_shard() {
    let dir = scratch("slurm-cancel");
    // Games long enough (a second or more each) for the cancel to land mid-shard.
    let cfg = head_to_head(&dir, 16, 3000);
    run(&cfg, &dir.join("whole"), &[]);
    let outdir = dir.join("run");
    let job = sbatch(&dir, "0-3", false, &cfg, &outdir);
    let shard1 = outdir.join("shard-1");
    wait_for("shard 1's first game", Duration::from_secs(600), || {
        !lines(&shard1).is_empty()
    });
    let o = slurm_command("scancel", &dir)
        .arg(format!("{job}_1"))
        .output()
        .expect("scancel");
    assert!(o.status.success(), "scancel: {}", stderr(&o));
    wait_for("the array job to end", Duration::from_secs(900), || {
        !job_running(&dir, &job)
    });
    // Shard 1 was cut short: the merge names its missing games and exits 3.
    let o = merge(&shard_dirs(&outdir, 4), &dir.join("partial"));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("shard 1/4: games"), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("shard 0/4") && !stderr(&o).contains("shard 2/4"),
        "{}",
        stderr(&o)
    );
    // Resubmitted alone, the task keeps its shard (1 of 4) and plays only what is missing.
    let kept = games(&shard1);
    sbatch(&dir, "1", true, &cfg, &outdir);
    let after = games(&shard1);
    for (id, g) in &kept {
        assert_eq!(after.get(id), Some(g), "game {id} kept as it was");
    }
    let merged = dir.join("merged");
    let o = merge(&shard_dirs(&outdir, 4), &merged);
    assert!(o.status.success(), "merge: {}", stderr(&o));
    assert_eq!(games(&merged), games(&dir.join("whole")));
}
