//! A run folder read on another machine: its shards are played with a USI engine found on a
//! `PATH` that exists only for the run and with a candidate model file, then copied elsewhere,
//! and the engine and the model deleted. `council-match serve`, `council-match merge` and
//! `council-analyze council` read the copies from `run.json`'s plan alone. A `run.json` written
//! by an older build (no plan) is read by validating its config again, which works while its
//! engines exist and fails with one line saying why once they are gone.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use council_tests::{workspace_bin, workspace_root};
use serde_json::Value;

/// The engine's command in the config: a bare name, found on `PATH` only while the run plays.
const ENGINE: &str = "council-run-only-usi";

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("elsewhere-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A council of the USI engine, the intuition player and an internal engine restricted to the
/// model's candidates, against a single internal engine.
fn config(dir: &Path) -> PathBuf {
    let text = format!(
        "[match]\nplayers = [\"council\", \"single\"]\ngames = 4\nmax_plies = 40\nseed = 5\n\n\
         [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"usi\", \"intuition\", \"narrow\"]\n\
         method = \"majority\"\nnodes = 200\n\n\
         [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 200\n\n\
         [[player]]\nname = \"usi\"\nkind = \"usi\"\ncommand = \"{ENGINE}\"\nargs = [\"normal\"]\n\n\
         [[player]]\nname = \"intuition\"\nkind = \"intuition\"\nmodel = \"models/m.bin\"\n\n\
         [[player]]\nname = \"narrow\"\nkind = \"internal\"\nnoise_cp = 40\n\
         candidates = {{ model = \"models/m.bin\", k = 4 }}\n"
    );
    let path = dir.join("run.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// `PATH` with the folder that holds the run-only engine first.
fn path_with(bin: &Path) -> std::ffi::OsString {
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("a PATH")
}

fn succeeded(what: &str, o: &Output) {
    assert!(
        o.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn council_match(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(workspace_bin("council-match"))
        .args(args)
        .output()
        .expect("run council-match")
}

fn analyze_council(run: &Path) -> Output {
    Command::new(workspace_bin("council-analyze"))
        .args(["council".as_ref(), run.as_os_str()])
        .args(["--trials", "20000", "--format", "json"])
        .output()
        .expect("run council-analyze")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn results(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a results line"))
        .collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a copy");
    for entry in std::fs::read_dir(from).expect("read a folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

/// `DIR/run.json` as an older build wrote it: without `plan`.
fn strip_plan(dir: &Path) {
    let path = dir.join("run.json");
    let mut info = read_json(&path);
    info.as_object_mut().expect("an object").remove("plan");
    std::fs::write(&path, info.to_string()).expect("write run.json");
}

/// `council-match serve DIR` on a free loopback port; killed when dropped.
struct Served {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Served {
    fn start(dir: &Path) -> Self {
        let mut child = Command::new(workspace_bin("council-match"))
            .args(["serve".as_ref(), dir.as_os_str(), "--addr".as_ref()])
            .arg("127.0.0.1:0")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start council-match serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let pipe = child.stderr.take().expect("stderr is piped");
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = sink.lock().expect("stderr lock");
                s.push_str(&line);
                s.push('\n');
            }
        });
        let mut served = Served {
            child,
            url: String::new(),
            stderr,
        };
        served.url = wait_for("the page's address", || {
            if let Ok(Some(status)) = served.child.try_wait() {
                panic!("serve exited ({status}): {}", served.stderr());
            }
            served
                .stderr()
                .lines()
                .find_map(|l| l.split("http://").nth(1))
                .map(|rest| format!("http://{}", rest.split('/').next().unwrap_or("")))
        });
        served
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    fn get(&self, path: &str) -> Value {
        let url = format!("{}{path}", self.url);
        let text = ureq::get(&url)
            .call()
            .unwrap_or_else(|e| panic!("GET {url}: {e}"))
            .body_mut()
            .read_to_string()
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("GET {url}: {e}: {text}"))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wait until `f` gives something, for at most a minute (then fail, naming `what`).
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let began = Instant::now();
    loop {
        if let Some(x) = f() {
            return x;
        }
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What a summary says of the games, without this session's timing.
fn standings(summary: &Value) -> Value {
    serde_json::json!([
        summary["config"],
        summary["games"],
        summary["players"],
        summary["councils"],
        summary["reasons"],
        summary["by_family"],
    ])
}

#[test]
fn a_run_copied_where_its_engine_and_model_are_not_is_served_merged_and_analysed() {
    let dir = scratch("copied");
    let bin = dir.join("bin");
    std::fs::create_dir_all(dir.join("models")).expect("models folder");
    std::fs::create_dir_all(&bin).expect("bin folder");
    std::fs::copy(
        workspace_root().join("data/models/gps-candidates.bin"),
        dir.join("models/m.bin"),
    )
    .expect("copy the model");
    let engine = bin.join(ENGINE);
    std::fs::write(
        &engine,
        format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            workspace_bin("mock-usi").display()
        ),
    )
    .expect("write the engine");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755))
            .expect("make the engine executable");
    }
    let cfg = config(&dir);
    let shards: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("shard-{i}"))).collect();
    for (i, shard) in shards.iter().enumerate() {
        let o = Command::new(workspace_bin("council-match"))
            .arg(&cfg)
            .arg("--out")
            .arg(shard)
            .args(["--quiet", "--shard", &format!("{i}/2")])
            .env("PATH", path_with(&bin))
            .output()
            .expect("run council-match");
        succeeded("a shard", &o);
        assert_eq!(results(shard).len(), 2, "{}", shard.display());
    }
    let info = read_json(&shards[0].join("run.json"));
    let plan = &info["plan"];
    assert_eq!(plan["players"]["usi"]["command"], engine.to_str().unwrap());
    assert_eq!(
        plan["players"]["usi"]["args"],
        serde_json::json!(["normal"])
    );
    let model = &plan["players"]["intuition"]["model"];
    assert_eq!(model["path"], dir.join("models/m.bin").to_str().unwrap());
    assert_eq!(model["fnv1a64"].as_str().map(str::len), Some(16), "{model}");
    assert_eq!(
        plan["players"]["narrow"]["candidates"]["model"]["fnv1a64"],
        model["fnv1a64"]
    );
    assert_eq!(plan["players"]["council"]["kind"], "council");
    assert_eq!(plan["openings"], serde_json::json!({"single": "startpos"}));
    assert_eq!(info["config_text"], std::fs::read_to_string(&cfg).unwrap());

    // Copies elsewhere; copies as an older build wrote them (no plan).
    let elsewhere = dir.join("elsewhere");
    let copies: Vec<PathBuf> = (0..2).map(|i| elsewhere.join(format!("c{i}"))).collect();
    let old: Vec<PathBuf> = (0..2).map(|i| elsewhere.join(format!("old{i}"))).collect();
    for i in 0..2 {
        copy_tree(&shards[i], &copies[i]);
        copy_tree(&shards[i], &old[i]);
        strip_plan(&old[i]);
    }
    // An older build's shards merge while the engine and the model are still there.
    let o = Command::new(workspace_bin("council-match"))
        .args(["merge".as_ref(), old[0].as_os_str(), old[1].as_os_str()])
        .arg("--out")
        .arg(elsewhere.join("old-merged"))
        .env("PATH", path_with(&bin))
        .output()
        .expect("run council-match merge");
    succeeded("merging an older build's shards", &o);

    // The machine without them.
    std::fs::remove_file(&engine).expect("delete the engine");
    std::fs::remove_file(dir.join("models/m.bin")).expect("delete the model");
    for shard in &shards {
        std::fs::remove_dir_all(shard).expect("delete the original");
    }

    let merged = elsewhere.join("merged");
    let o = council_match(&[
        "merge".as_ref(),
        copies[0].as_os_str(),
        copies[1].as_os_str(),
        "--out".as_ref(),
        merged.as_os_str(),
    ]);
    succeeded("merging the copies", &o);
    assert_eq!(results(&merged).len(), 4);
    let merged_info = read_json(&merged.join("run.json"));
    assert_eq!(merged_info["plan"], *plan);
    assert!(merged_info.get("shard").is_none(), "{merged_info}");
    let summary = read_json(&merged.join("summary.json"));
    assert_eq!(summary["games"], 4);
    assert_eq!(
        standings(&summary),
        standings(&read_json(&elsewhere.join("old-merged/summary.json"))),
        "the plan and the config validated again give the same summary"
    );

    // The page recomputes the summary from the plan when the folder has none.
    std::fs::remove_file(copies[0].join("summary.json")).expect("delete summary.json");
    let served = Served::start(&copies[0]);
    let games = results(&copies[0]);
    let page_summary = wait_for("the recomputed summary", || {
        let s = served.get("/api/summary");
        (s["games"] == 2).then_some(s)
    });
    assert_eq!(page_summary["players"][0]["name"], "council");
    assert_eq!(
        page_summary["players"][0]["games"].as_u64(),
        Some(2),
        "{page_summary}"
    );
    assert_eq!(served.get("/api/games"), Value::from(games));
    assert!(
        !served.stderr().contains("summary.json only"),
        "{}",
        served.stderr()
    );
    drop(served);

    for run in [&merged, &copies[1]] {
        let o = analyze_council(run);
        succeeded("council-analyze council", &o);
        let report: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(report["councils"][0]["name"], "council", "{report}");
        assert_eq!(
            report["councils"][0]["members"].as_array().map(|m| m.len()),
            Some(3)
        );
    }

    // An older build's run.json, once the engine is gone: one line saying why.
    let o = analyze_council(&old[0]);
    assert!(!o.status.success(), "an unvalidatable config was read");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("older build") && err.contains(ENGINE) && err.contains("run.json"),
        "{err}"
    );
    let served = Served::start(&old[0]);
    wait_for("the older build's summary.json", || {
        (served.get("/api/summary")["games"] == 2).then_some(())
    });
    assert!(
        served.stderr().contains("older build") && served.stderr().contains("summary.json only"),
        "{}",
        served.stderr()
    );
}
