//! `council-openings` as a user runs it, on the shipped slice of the gpsshogi self-play corpus
//! with the built-in engine at a small node budget as the reference and weights learned from
//! the same slice: no two chosen lines within the radius (recomputed from the weights file),
//! every line's score re-searched inside the band, the file accepted by `council-match --check`,
//! the sidecar agreeing with the file, a seeded rebuild byte-identical bar its date, and bad
//! inputs refused by name.

use std::path::{Path, PathBuf};

use council_tests::{reference_search, run_bin as run, succeeded as ok, workspace_root};
use engine::position::Position;
use engine::similarity::{self, Grouping};
use engine::strategy;
use engine::types::Color;
use serde_json::Value;

const PLY: &str = "32";
const BAND: i32 = 120;
const NODES: u64 = 3000;
const RADIUS: f64 = 1.0;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("openings-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

fn slice() -> PathBuf {
    workspace_root().join("tests/fixtures/corpus/gps-slice.txt")
}

/// Weights learned from the slice around the ply.
fn learn_weights(dir: &Path) -> PathBuf {
    let out = dir.join("weights.json");
    ok(&run(
        "council-learn",
        &[
            &"similarity",
            &slice(),
            &"--plies",
            &"28-36",
            &"--step",
            &"2",
            &"--far-pairs",
            &"300",
            &"--seed",
            &"2",
            &"--out",
            &out,
        ],
    ));
    out
}

/// Builds the suite into `out` with `seed`; returns the printed table.
fn build(out: &Path, weights: &Path, seed: &str) -> String {
    ok(&run(
        "council-openings",
        &[
            &slice(),
            &"--ply",
            &PLY,
            &"--band",
            &BAND.to_string(),
            &"--nodes",
            &NODES.to_string(),
            &"--count",
            &"12",
            &"--weights",
            &weights,
            &"--radius",
            &RADIUS.to_string(),
            &"--seed",
            &seed,
            &"--concurrency",
            &"2",
            &"--out",
            &out,
        ],
    ))
}

/// The openings file's lines (1-based line number, text), comments and blanks left out.
fn lines(path: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(path)
        .expect("read the openings file")
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect()
}

fn sidecar(path: &Path) -> Value {
    let mut name = path.as_os_str().to_owned();
    name.push(".json");
    serde_json::from_str(&std::fs::read_to_string(PathBuf::from(name)).expect("read the sidecar"))
        .expect("the sidecar is JSON")
}

/// The built-in engine's score of `pos` from sente's view, searched from scratch as the
/// reference searches.
fn search_from_sente(pos: &Position) -> i32 {
    let mover = reference_search(pos, NODES).score.to_cp_scale();
    if pos.side_to_move() == Color::Sente {
        mover
    } else {
        -mover
    }
}

#[test]
fn a_built_suite_is_spread_level_playable_and_described() {
    let dir = scratch("suite");
    let weights = learn_weights(&dir);
    let out = dir.join("suite.txt");
    let table = build(&out, &weights, "5");
    let got = lines(&out);
    assert!(got.len() >= 5, "too few lines:\n{table}");
    assert!(
        table.contains("rejected by the radius") && !table.contains(" 0 rejected by the radius"),
        "the slice should exercise the radius:\n{table}"
    );

    // No two lines within the radius, under the weights file's own weights.
    let w: Value = serde_json::from_str(&std::fs::read_to_string(&weights).unwrap()).unwrap();
    let w: Vec<f64> = w["weights"]
        .as_array()
        .expect("weights")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect();
    let positions: Vec<Position> = got
        .iter()
        .map(|(n, l)| {
            Position::from_usi_position(l).unwrap_or_else(|e| panic!("line {n} `{l}`: {e}"))
        })
        .collect();
    let attributes: Vec<Vec<u32>> = positions
        .iter()
        .map(|p| similarity::attributes(p, Grouping::G56))
        .collect();
    for i in 0..attributes.len() {
        for j in i + 1..attributes.len() {
            let d = similarity::distance(&w, &attributes[i], &attributes[j]);
            assert!(
                d >= RADIUS,
                "lines {} and {}: distance {d}",
                got[i].0,
                got[j].0
            );
        }
    }

    // The sidecar agrees with the file: same lines in order, their line numbers, families,
    // scores re-searched inside the band, and the first source game's moves begin with the line.
    let side = sidecar(&out);
    assert_eq!(side["format"], "council-openings");
    assert_eq!(side["band_cp"], BAND);
    let entries = side["lines"].as_array().expect("lines");
    assert_eq!(entries.len(), got.len());
    let corpus_text = std::fs::read_to_string(slice()).unwrap();
    let corpus_lines: Vec<&str> = corpus_text.lines().collect();
    for ((k, (n, line)), e) in got.iter().enumerate().zip(entries) {
        assert_eq!(e["line"], line.as_str());
        assert_eq!(e["line_no"], *n);
        let pos = &positions[k];
        assert_eq!(e["family"], strategy::label(pos).family().key(), "line {n}");
        let score = search_from_sente(pos);
        assert!(score.abs() <= BAND, "line {n}: re-searched {score}");
        assert_eq!(e["score_cp"], score, "line {n}: the sidecar's score");
        let sources = e["sources"].as_array().expect("sources");
        assert!(!sources.is_empty());
        let first = sources[0].as_str().expect("a source");
        let (_, at) = first.rsplit_once(':').expect("file:line");
        let game = corpus_lines[at.parse::<usize>().unwrap() - 1];
        let game_moves = game.split('\t').next().unwrap();
        assert!(
            game_moves.starts_with(line.as_str()),
            "line {n}: {first} does not begin with it"
        );
    }
    // Every family in the file is counted in the header.
    let text = std::fs::read_to_string(&out).unwrap();
    for e in entries {
        let family = e["family"].as_str().unwrap();
        let count = entries.iter().filter(|x| x["family"] == family).count();
        assert!(
            text.contains(&format!("# family {family}: {count} chosen of ")),
            "header lacks {family}: {count}\n{text}"
        );
    }

    // council-match accepts a config that plays from it.
    let config = dir.join("match.toml");
    std::fs::write(
        &config,
        "[match]\nformat = \"head-to-head\"\nplayers = [\"a\", \"b\"]\ngames = 4\nmax_plies = 200\n\
         seed = 1\nopenings = \"suite.txt\"\n\n[[player]]\nname = \"a\"\nkind = \"internal\"\n\
         nodes = 1000\n\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1000\n",
    )
    .unwrap();
    ok(&run("council-match", &[&config, &"--check"]));
}

#[test]
fn a_seeded_build_replays_byte_identically_apart_from_the_date() {
    let dir = scratch("replay");
    let weights = learn_weights(&dir);
    let out = dir.join("suite.txt");
    let without_date = |text: String| -> String {
        text.lines()
            .filter(|l| !l.starts_with("# date:") && !l.trim_start().starts_with("\"date\":"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    let side = |p: &Path| {
        let mut name = p.as_os_str().to_owned();
        name.push(".json");
        read(&PathBuf::from(name))
    };
    build(&out, &weights, "7");
    let (first, first_side) = (read(&out), side(&out));
    build(&out, &weights, "7");
    assert_eq!(without_date(first.clone()), without_date(read(&out)));
    assert_eq!(without_date(first_side), without_date(side(&out)));
    // Only the date lines were left out.
    assert_eq!(
        first.lines().count(),
        without_date(first.clone()).lines().count() + 1
    );

    // Another seed offers the candidates in another order.
    build(&out, &weights, "8");
    assert_ne!(lines(&PathBuf::from(&out)), {
        let tmp = dir.join("seven.txt");
        std::fs::write(&tmp, &first).unwrap();
        lines(&tmp)
    });
}

#[test]
fn bad_inputs_are_refused_by_name() {
    let dir = scratch("bad");
    let out = dir.join("x.txt");
    let slice_path = slice();
    let refused = |args: &[&dyn AsRef<std::ffi::OsStr>], wanted: &str| {
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = args.to_vec();
        all.extend([&"--out" as &dyn AsRef<std::ffi::OsStr>, &out]);
        let o = run("council-openings", &all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{wanted}: {err}");
        assert!(err.contains(wanted), "wanted `{wanted}` in:\n{err}");
        assert!(!out.exists(), "{wanted}: nothing is written");
    };
    let missing = dir.join("no-such-corpus.txt");
    refused(
        &[&missing, &"--ply", &"32", &"--band", &"150"],
        &format!("{}: no such file or folder", missing.display()),
    );
    // The slice at ply 32, band 150, with `extra`.
    let slice_with = |extra: &[&dyn AsRef<std::ffi::OsStr>], wanted: &str| {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&slice_path, &"--ply", &"32"];
        if !extra
            .iter()
            .any(|a| a.as_ref().to_string_lossy().starts_with("--band"))
        {
            args.extend([&"--band" as &dyn AsRef<std::ffi::OsStr>, &"150"]);
        }
        args.extend_from_slice(extra);
        refused(&args, wanted);
    };
    slice_with(
        &[&"--band", &"0"],
        "--band 0: give the half-width in centipawns, above 0",
    );
    slice_with(
        &[&"--band=-50"],
        "--band -50: give the half-width in centipawns, above 0",
    );
    refused(
        &[&slice_path, &"--ply", &"5000", &"--band", &"150"],
        "--ply 5000: no game of",
    );
    let config = workspace_root().join("configs/3vs1.toml");
    let nobody = format!("{}:nobody", config.display());
    slice_with(&[&"--reference", &nobody], "has no player `nobody`");
    let internal = format!("{}:single", config.display());
    slice_with(&[&"--reference", &internal], "`single` is not a USI engine");
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{}").unwrap();
    slice_with(
        &[&"--weights", &broken],
        &format!(
            "--weights: {}: not a similarity weights file",
            broken.display()
        ),
    );
}
