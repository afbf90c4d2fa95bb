//! Every config the project ships (`configs/**/*.toml`) is one `council-match --check` accepts,
//! and the shipped intrinsic-rating calibration is one `council-analyze ir` reads: a README
//! command that names them must not fail on the file itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{workspace_bin, workspace_root};

fn tomls(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read configs/") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            tomls(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_shipped_config_passes_check() {
    let mut configs = Vec::new();
    tomls(&workspace_root().join("configs"), &mut configs);
    configs.sort();
    assert!(
        configs
            .iter()
            .any(|p| p.ends_with("configs/ir-ladder.toml")),
        "{configs:?}"
    );
    for cfg in &configs {
        // Files of players only (council-usi's, a reference's) have no [match]: check them as
        // council-usi does, through a match config elsewhere; here only match configs.
        let text = std::fs::read_to_string(cfg).unwrap();
        if !text.lines().any(|l| l.trim() == "[match]") {
            continue;
        }
        let o = Command::new(workspace_bin("council-match"))
            .arg(cfg)
            .arg("--check")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}: {}",
            cfg.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn the_shipped_calibration_rates_an_analysis() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shipped-calibration");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cal = workspace_root().join("configs/ir-calibration.json");
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cal).unwrap()).unwrap();
    // One position, the played move second best by 50 cp, analysed by `reference`.
    let line = |game: u32, ply: u32, reference: &serde_json::Value| {
        format!(
            r#"{{"game":{game},"ply":{ply},"player":"p","sfen":"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - {n}","played":"2g2f","candidates":[{{"move":"7g7f","cp":30}},{{"move":"2g2f","cp":-20}}],"reference":{reference}}}"#,
            n = ply + 1
        )
    };
    let ir = |analysis: &std::path::Path| {
        Command::new(workspace_bin("council-analyze"))
            .arg("ir")
            .arg(analysis)
            .arg("--calibration")
            .arg(&cal)
            .args(["--format", "json"])
            .output()
            .unwrap()
    };
    let reference = &c["reference"];
    // `ir` takes its data rules from the calibration: the position before its first ply is left
    // out, the one at it counted (in another game: the same position again in one game would be a
    // repetition, also left out).
    let first = u32::try_from(c["skip_plies"].as_u64().unwrap()).unwrap();
    let analysis = dir.join("a.jsonl");
    std::fs::write(
        &analysis,
        format!(
            "{}\n{}\n",
            line(0, first - 1, reference),
            line(1, first, reference)
        ),
    )
    .unwrap();
    let o = ir(&analysis);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &v["players"][0];
    assert_eq!(p["positions"], 1, "{p}");
    // IR = a - b AE with this calibration's a and b, and AE the scaled error of 30 -> -20 cp.
    let ae = (1.0f64 + 0.3).ln() + (1.0f64 + 0.2).ln();
    assert!((p["ae"].as_f64().unwrap() - ae).abs() < 1e-9, "{p}");
    let expected = c["a"].as_f64().unwrap() - c["b"].as_f64().unwrap() * ae;
    assert!(
        (p["ir"].as_f64().unwrap() - expected).abs() < 1e-6,
        "{p} {c}"
    );

    // An analysis by another MultiPV is refused, naming both references.
    let mut other = reference.clone();
    let name = other["name"]
        .as_str()
        .unwrap()
        .replace("multipv 10", "multipv 50");
    other["name"] = name.clone().into();
    let elsewhere = dir.join("other.jsonl");
    std::fs::write(&elsewhere, format!("{}\n", line(1, first, &other))).unwrap();
    let o = ir(&elsewhere);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&name) && err.contains(reference["name"].as_str().unwrap()),
        "{err}"
    );
}
