//! `council-learn` and `council-analyze candidates` as a user runs them: a corpus packed from a
//! mix of inputs (a floodgate-style CSA file of two games, a KIF, a council-match run folder,
//! USI position lines, and broken files, each named in one warning line while the rest is
//! read), then the candidate model learned from a slice of the shipped gpsshogi self-play
//! corpus and evaluated on the test side of its split.

use std::path::{Path, PathBuf};

use council_tests::{run_bin as run, succeeded as ok, workspace_root};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("learn-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

const BOARD: &str = "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI *  *  *  *  * -KA * \n\
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \nP5 *  *  *  *  *  *  *  *  * \n\
P6 *  *  *  *  *  *  *  *  * \nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\nP8 * +KA *  *  *  *  * +HI * \n\
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n";

/// One game as floodgate's archive writes it.
fn floodgate(moves: &[&str], end: &str) -> String {
    let mut text = String::from(
        "'V2.2\nV2.2\nN+alpha\nN-beta\n$EVENT:wdoor+floodgate-300-10F+alpha+beta+20240101120003\n\
         $START_TIME:2024/01/01 12:00:03\n'Max_Moves:256\n",
    );
    text.push_str(BOARD);
    text.push_str("P+\nP-\n+\n");
    for mv in moves {
        text.push_str(&format!("{mv}\nT3\n'** 10\n"));
    }
    text.push_str(&format!("{end}\n'$END_TIME:2024/01/01 12:10:00\n"));
    text
}

/// A small council-match run of the built-in engine.
fn played_run(dir: &Path) -> PathBuf {
    let cfg = dir.join("run.toml");
    std::fs::write(
        &cfg,
        "[match]\nformat = \"head-to-head\"\nplayers = [\"a\", \"b\"]\ngames = 2\nmax_plies = 24\nseed = 5\n\n\
         [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 200\n\n\
         [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 100\n",
    )
    .unwrap();
    let out = dir.join("run");
    ok(&run(
        "council-match",
        &[&cfg, &"--out", &out, &"--quiet", &"--concurrency", &"2"],
    ));
    out
}

/// The game lines of a corpus file (comments and blank lines left out).
fn game_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn corpus_reads_every_kind_of_input_and_names_each_broken_one() {
    let dir = scratch("mix");
    let inputs = dir.join("inputs");
    std::fs::create_dir_all(inputs.join("records")).unwrap();
    // Two games in one CSA file, separated by `/`; the second ends in %KACHI.
    let two = format!(
        "{}/\n{}",
        floodgate(&["+7776FU", "-3334FU", "+2726FU"], "%TORYO"),
        floodgate(&["+2726FU", "-8384FU"], "%KACHI")
    );
    std::fs::write(inputs.join("records/two.csa"), &two).unwrap();
    // The same first game again, alone: a duplicate.
    std::fs::write(
        inputs.join("records/again.csa"),
        floodgate(&["+7776FU", "-3334FU", "+2726FU"], "%TORYO"),
    )
    .unwrap();
    // An illegal move (the pawn on 7六 cannot reach 7四).
    let bad = floodgate(&["+7776FU", "-3334FU", "+7774FU"], "%TORYO");
    let bad_line = bad.lines().position(|l| l == "+7774FU").unwrap() + 1;
    std::fs::write(inputs.join("records/bad.csa"), &bad).unwrap();
    std::fs::copy(
        workspace_root().join("tests/fixtures/seed000_ply74_moves.kif"),
        inputs.join("records/seed000.kif"),
    )
    .unwrap();
    // A KIF of a position and no move: nothing to learn, skipped by name.
    std::fs::copy(
        workspace_root().join("tests/fixtures/seed000_ply74.kif"),
        inputs.join("records/position-only.kif"),
    )
    .unwrap();
    // Garbage that is neither UTF-8 nor Shift_JIS text of a record.
    std::fs::write(
        inputs.join("records/garbage.kif"),
        b"\xff\xfe\x00\x81\x00garbage",
    )
    .unwrap();
    // USI lines: a good one, a bad SFEN, an illegal move, non-UTF-8 bytes.
    let mut lines = b"# hand-made\nstartpos moves 5g5f 5c5d\tresult=draw reason=max_plies\n\
sfen lnsgkgsnl/1r5b1/9/9 b - 1 moves 2g2f\n\
startpos moves 5g5f 5g5f\n"
        .to_vec();
    lines.extend_from_slice(b"startpos moves \xff\xfe\n");
    std::fs::write(inputs.join("games.txt"), &lines).unwrap();
    std::fs::write(inputs.join("NOTES"), "not read: no corpus extension\n").unwrap();
    let run_dir = played_run(&dir);

    let out = dir.join("corpus.txt");
    let o = run(
        "council-learn",
        &[&"corpus", &inputs, &run_dir, &"--out", &out],
    );
    let stdout = ok(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("council-learn: warning: "))
        .collect();
    let txt = inputs.join("games.txt").display().to_string();
    let named = |needle: &str| warnings.iter().filter(|w| w.contains(needle)).count();
    assert_eq!(warnings.len(), 6, "{stderr}");
    assert_eq!(named(&format!("{txt}:3: ")), 1, "bad SFEN: {stderr}");
    assert_eq!(named(&format!("{txt}:4: move 2 `5g5f`")), 1, "{stderr}");
    assert_eq!(named(&format!("{txt}:5: not UTF-8")), 1, "{stderr}");
    let bad_csa = inputs.join("records/bad.csa").display().to_string();
    assert_eq!(named(&format!("{bad_csa}: ")), 1, "{stderr}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains(&bad_csa) && w.contains(&format!("line {bad_line}"))),
        "{stderr}"
    );
    assert_eq!(named("garbage.kif"), 1, "{stderr}");
    assert_eq!(named("position-only.kif: no moves"), 1, "{stderr}");

    // 2 CSA games + 1 duplicate + 1 KIF + 1 USI line + 2 run games.
    assert_eq!(
        stdout,
        format!(
            "wrote 6 games to {} (7 read, 6 skipped, 1 duplicates)\n",
            out.display()
        )
    );
    let games = game_lines(&out);
    assert_eq!(games.len(), 6);
    assert!(
        games.contains(&"startpos moves 7g7f 3c3d 2g2f\tresult=sente reason=resign".to_string())
    );
    assert!(games.contains(&"startpos moves 2g2f 8c8d\tresult=sente reason=impasse".to_string()));
    assert!(games.contains(&"startpos moves 5g5f 5c5d\tresult=draw reason=max_plies".to_string()));
    assert!(
        games
            .iter()
            .any(|g| g.starts_with("sfen ") && g.contains(" moves 2d3c+ 2b3c")),
        "the KIF game (a position and two moves): {games:?}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("# command: council-learn corpus "), "{text}");
    assert!(
        text.contains("run.toml, seed 5, 2 games scheduled"),
        "{text}"
    );
    assert!(
        text.contains("player a: kind = \"internal\", nodes = 200"),
        "{text}"
    );
    assert!(
        text.contains("# games: 6 (7 read, 6 skipped, 1 duplicates)"),
        "{text}"
    );

    // The corpus file reads back as the same games, none repeated, nothing to warn about.
    let again = dir.join("again.txt");
    let o = run("council-learn", &[&"corpus", &out, &"--out", &again]);
    assert_eq!(
        ok(&o),
        format!(
            "wrote 6 games to {} (6 read, 0 skipped, 0 duplicates)\n",
            again.display()
        )
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert_eq!(game_lines(&again), games);

    // A missing input is an error, not a warning.
    let o = run(
        "council-learn",
        &[&"corpus", &dir.join("nothing"), &"--out", &again],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such file or folder"));
}

fn slice() -> PathBuf {
    workspace_root().join("tests/fixtures/corpus/gps-slice.txt")
}

/// `split:  T training games learned, S test games left out` and `model:  M moves learned`.
fn learned(stdout: &str) -> (u64, u64, u64) {
    let words: Vec<&str> = stdout.split_whitespace().collect();
    let before = |w: &str| -> u64 {
        let i = words.iter().position(|x| *x == w).unwrap();
        words[i - 1].parse().unwrap()
    };
    (before("training"), before("test"), before("moves"))
}

#[test]
fn candidates_learned_from_the_gps_slice_beat_chance_on_its_test_side() {
    let dir = scratch("slice");
    let model = dir.join("model.bin");
    let o = run(
        "council-learn",
        &[
            &"candidates",
            &slice(),
            &"--out",
            &model,
            &"--test-share",
            &"0.3",
            &"--split-seed",
            &"1",
        ],
    );
    let (train, test, moves) = learned(&ok(&o));
    assert_eq!(train + test, 30);
    assert!(test > 0 && train > 0);

    // The model file's JSON header keeps the split and the provenance.
    let bytes = std::fs::read(&model).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header: Value = serde_json::from_slice(&bytes[..end]).unwrap();
    assert_eq!(header["format"], "council-candidates");
    assert_eq!(header["games"], train);
    assert_eq!(header["learned_moves"], moves);
    let p = &header["provenance"];
    assert_eq!(
        (p["split_seed"].as_u64(), p["test_share"].as_f64()),
        (Some(1), Some(0.3))
    );
    assert_eq!(p["corpus"][0], slice().display().to_string());
    assert!(
        p["command"]
            .as_str()
            .unwrap()
            .starts_with("council-learn candidates ")
    );
    assert_eq!(p["notes"]["test_games"], test.to_string());

    // Winners' moves only: fewer moves learned from the same games.
    let winners = dir.join("winners.bin");
    let o = run(
        "council-learn",
        &[
            &"candidates",
            &slice(),
            &"--out",
            &winners,
            &"--test-share",
            &"0.3",
            &"--split-seed",
            &"1",
            &"--winner-only",
        ],
    );
    let (train_w, _, moves_w) = learned(&ok(&o));
    assert_eq!(train_w, train);
    assert!(moves_w < moves && moves_w > 0, "{moves_w} of {moves}");

    // The analysis takes the model's split by default: the same report as with it given.
    let slice_path = slice();
    let json = |extra: &[&dyn AsRef<std::ffi::OsStr>]| -> Value {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&"candidates", &model, &slice_path, &"--format", &"json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&run("council-analyze", &args))).unwrap()
    };
    let report = json(&[]);
    assert_eq!(
        report,
        json(&[&"--split-seed", &"1", &"--test-share", &"0.3"])
    );
    assert_eq!(report["test_games"], test);
    assert_eq!(report["corpus_games"], 30);
    assert_eq!(report["model_games"], train);
    let positions = report["positions"].as_u64().unwrap();
    assert!(positions > 100, "{report}");
    let settings = report["settings"].as_array().unwrap();
    let letters: Vec<&str> = settings
        .iter()
        .map(|s| s["setting"].as_str().unwrap())
        .collect();
    assert_eq!(letters, ["a", "b", "c", "d", "e", "f"]);
    for s in settings {
        let deciles: u64 = s["deciles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .sum();
        assert_eq!(deciles, positions, "{s}");
        assert_eq!(s["all"]["positions"], positions);
        let in_bins: u64 = s["bins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["positions"].as_u64().unwrap())
            .sum();
        assert_eq!(
            in_bins, positions,
            "every ranked position has 6 or more legal moves"
        );
        let hit: Vec<f64> = s["all"]["hit"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_f64().unwrap())
            .collect();
        assert_eq!(hit.len(), 10);
        assert!(hit.windows(2).all(|w| w[0] <= w[1] + 1e-12), "{hit:?}");
    }
    // The seed's default setting d: top-5 on held-out games at least twice the chance rate
    // (on this slice 49.5% against 11.6%).
    let d = &settings[3]["all"];
    let (hit5, chance5) = (
        d["hit"][4].as_f64().unwrap(),
        d["chance"][4].as_f64().unwrap(),
    );
    assert!(
        hit5 >= 2.0 * chance5,
        "top-5 {hit5} against chance {chance5}"
    );

    // No test side: nothing to rank.
    let none = json(&[&"--test-share", &"0"]);
    assert_eq!(
        (none["test_games"].as_u64(), none["positions"].as_u64()),
        (Some(0), Some(0))
    );

    // CSV: a header and one row per setting, legal-move group and k.
    let csv = ok(&run(
        "council-analyze",
        &[&"candidates", &model, &slice_path, &"--format", &"csv"],
    ));
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "setting,legal,positions,k,hit_rate,chance_rate");
    assert_eq!(rows.len(), 1 + 6 * 4 * 10);
    assert!(rows[1].starts_with(&format!("a,all,{positions},1,")));
}

#[test]
fn the_split_is_order_free_adding_games_moves_none_between_sides() {
    let dir = scratch("order");
    let games = game_lines(&slice());
    // The first 20 games, the last 10, and all 30 in reverse order.
    let first = dir.join("first.txt");
    std::fs::write(&first, games[..20].join("\n") + "\n").unwrap();
    let all_reversed = dir.join("reversed.txt");
    let mut rev = games.clone();
    rev.reverse();
    std::fs::write(&all_reversed, rev.join("\n") + "\n").unwrap();
    let model = dir.join("m.bin");
    ok(&run(
        "council-learn",
        &[
            &"candidates",
            &first,
            &"--out",
            &model,
            &"--test-share",
            &"0.3",
            &"--split-seed",
            &"9",
        ],
    ));
    // Each game's side depends on the game alone: the test games (and their positions) of the
    // two parts add up to those of the whole, read in the other order.
    let test_of = |corpus: &Path| -> (u64, u64) {
        let v: Value = serde_json::from_str(&ok(&run(
            "council-analyze",
            &[&"candidates", &model, &corpus, &"--format", &"json"],
        )))
        .unwrap();
        (
            v["test_games"].as_u64().unwrap(),
            v["positions"].as_u64().unwrap(),
        )
    };
    let rest = dir.join("rest.txt");
    std::fs::write(&rest, games[20..].join("\n") + "\n").unwrap();
    let (a, b, all) = (test_of(&first), test_of(&rest), test_of(&all_reversed));
    assert_eq!((a.0 + b.0, a.1 + b.1), all);
    assert!(a.0 > 0 && b.0 > 0, "{a:?} {b:?}");
}
