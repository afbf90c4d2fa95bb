//! Training data and opening books as a user meets them. The README's run
//! (`council-match configs/3vs1.toml`) exported by `council-learn export` to PackedSfenValue and
//! hcpe and read back by cshogi's own record types (`tests/helpers/read_training.py`): one record
//! per scored move of every game, each equal field by field (position, move, score on the
//! formats' scale, move number, result from the mover's view) to the game in `results.jsonl`,
//! replayed here with the engine's replay. A YaneuraOu book built in the test from the run's own
//! lines then starts a match with one key, every game from a line of the book, and the match's
//! `[match] training` file equals the export of its run. A corrupt run
//! file and a corrupt book line are refused with one line naming file and line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use council_tests::{council_match, python, results_lines, run_bin, succeeded, workspace_root};
use engine::position::{Position, replay};
use engine::types::{Color, Score};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("learn-export-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Board, side to move and hands: the SFEN without its move number.
fn key(p: &Position) -> String {
    let sfen = p.to_sfen();
    sfen.rsplit_once(' ').map(|(k, _)| k.to_string()).unwrap()
}

/// The formats' score, written out here from the formats' definition (YaneuraOu's VALUE_MATE
/// 32000, Apery's ScoreMaxEvaluate 30000), not from the code under test.
fn expected_score(s: Score) -> i64 {
    match s {
        Score::Cp(cp) => i64::from(cp).clamp(-30_000, 30_000),
        Score::Mate(n) if n > 0 => 32_000 - i64::from(n.min(1000)),
        Score::Mate(n) => -(32_000 - i64::from(n).abs().min(1000)),
    }
}

/// One record as the games say it must be.
#[derive(Debug, PartialEq)]
struct Expected {
    sfen: String,
    mv: String,
    score: i64,
    ply: u64,
    /// 1, 0, -1 from the mover's view.
    result: i64,
    mover: Color,
}

/// Every scored move of every game with a result, in game order.
fn expected(games: &[Value]) -> Vec<Expected> {
    let mut out = Vec::new();
    for g in games {
        if g["reason"] == "aborted" {
            continue;
        }
        let moves: Vec<String> = g["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        let scores: Vec<Option<Score>> = serde_json::from_value(g["scores"].clone()).unwrap();
        let opening = moves.len() - scores.len();
        let mut r = replay(g["start"].as_str().unwrap(), &moves).expect("replays");
        let mut i: usize = 0;
        loop {
            let position = r.position().clone();
            let Some(step) = r.step() else { break };
            let mv = step.expect("legal");
            if let Some(Some(score)) = i.checked_sub(opening).and_then(|k| scores.get(k)) {
                let mover = position.side_to_move();
                let result = match g["result"].as_str().unwrap() {
                    "draw" => 0,
                    "sente" if mover == Color::Sente => 1,
                    "gote" if mover == Color::Gote => 1,
                    _ => -1,
                };
                out.push(Expected {
                    sfen: key(&position),
                    mv: mv.to_usi(),
                    score: expected_score(*score),
                    ply: u64::from(position.ply()),
                    result,
                    mover,
                });
            }
            i += 1;
        }
    }
    out
}

/// cshogi's reading of a training file, one JSON object per record.
fn cshogi_read(format: &str, file: &Path) -> Vec<Value> {
    let out = std::process::Command::new(python())
        .arg(workspace_root().join("tests/helpers/read_training.py"))
        .arg(format)
        .arg(file)
        .output()
        .expect("run Python");
    assert!(
        out.status.success(),
        "cshogi could not read {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

fn export(run: &Path, format: &str, out: &Path, extra: &[&str]) -> String {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"export", &run, &"--format", &format, &"--out", &out];
    for e in extra {
        args.push(e);
    }
    succeeded(&run_bin("council-learn", &args))
}

fn refused(o: &std::process::Output) -> String {
    assert!(!o.status.success(), "expected a refusal");
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn the_readme_run_exports_records_cshogi_reads_back_equal_to_the_games() {
    let dir = scratch("readme");
    let run = dir.join("run");
    let config = workspace_root().join("configs/3vs1.toml");
    succeeded(&council_match(&config, &run, &[]));
    let games = results_lines(&run);
    assert_eq!(games.len(), 20);
    let want = expected(&games);
    assert!(want.len() > 200, "{} scored positions", want.len());

    // PackedSfenValue: every field.
    let psv = dir.join("run.psv");
    let table = export(&run, "psv", &psv, &[]);
    assert!(
        table.contains(&format!("wrote {} psv records", want.len())),
        "{table}"
    );
    assert_eq!(
        std::fs::metadata(&psv).unwrap().len(),
        40 * want.len() as u64
    );
    let got = cshogi_read("psv", &psv);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let at = format!("record {i}: {g} against {w:?}");
        assert_eq!(g["sfen"], w.sfen.as_str(), "{at}");
        assert_eq!(g["move"], w.mv.as_str(), "{at}");
        assert_eq!(g["score"], w.score, "{at}");
        assert_eq!(g["ply"], w.ply, "{at}");
        assert_eq!(g["result"], w.result, "{at}");
        assert_eq!(g["padding"], 0, "{at}");
    }
    let sidecar: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.psv.json")).unwrap()).unwrap();
    assert_eq!(sidecar["counts"]["written"], want.len());
    assert_eq!(sidecar["shuffle_seed"], Value::Null);

    // hcpe: the result by colour.
    let hcpe = dir.join("run.hcpe");
    export(&run, "hcpe", &hcpe, &[]);
    let got = cshogi_read("hcpe", &hcpe);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let at = format!("record {i}: {g} against {w:?}");
        let by_colour = match (w.result, w.mover) {
            (0, _) => "draw",
            (1, Color::Sente) | (-1, Color::Gote) => "sente",
            _ => "gote",
        };
        assert_eq!(
            (&g["sfen"], &g["move"], &g["score"], &g["result"]),
            (
                &Value::from(w.sfen.as_str()),
                &Value::from(w.mv.as_str()),
                &Value::from(w.score),
                &Value::from(by_colour)
            ),
            "{at}"
        );
    }

    // Filters and a seeded shuffle: only the winners' moves, the same multiset reordered.
    let winners = dir.join("winners.psv");
    export(&run, "psv", &winners, &["--winner-only", "--shuffle", "9"]);
    let got = cshogi_read("psv", &winners);
    let mut got_keys: Vec<String> = got
        .iter()
        .map(|g| format!("{} {} {}", g["sfen"], g["move"], g["ply"]))
        .collect();
    let mut want_keys: Vec<String> = want
        .iter()
        .filter(|w| w.result == 1)
        .map(|w| format!("\"{}\" \"{}\" {}", w.sfen, w.mv, w.ply))
        .collect();
    assert_ne!(got_keys, want_keys, "shuffled");
    got_keys.sort();
    want_keys.sort();
    assert_eq!(got_keys, want_keys);
    let again = dir.join("again.psv");
    export(&run, "psv", &again, &["--winner-only", "--shuffle", "9"]);
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&winners).unwrap()
    );

    // A corrupt run file: one line naming the file and the line.
    let text = std::fs::read_to_string(run.join("results.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{\"id\": 2, \"moves\": ";
    let broken = dir.join("broken.jsonl");
    std::fs::write(&broken, lines.join("\n") + "\n").unwrap();
    let err = refused(&run_bin(
        "council-learn",
        &[
            &"export",
            &broken,
            &"--format",
            &"psv",
            &"--out",
            &dir.join("x.psv"),
        ],
    ));
    assert!(
        err.contains(&format!("{}:3: malformed results line", broken.display())),
        "{err}"
    );

    // A YaneuraOu book built from the run's first eight plies, the count of each move the
    // number of games that played it.
    let book = dir.join("book.db");
    let lines = known_lines(&games, 8);
    write_book(&book, &lines);
    openings_from_book(&dir, &book, &lines);
    play_from_book(&dir, &book, &lines);
}

/// Every (position, move) the lines play.
fn book_moves(lines: &[Vec<String>]) -> std::collections::HashSet<(String, String)> {
    let mut played = std::collections::HashSet::new();
    for line in lines {
        let mut p = Position::startpos();
        for m in line {
            played.insert((key(&p), m.clone()));
            let mv = p.parse_usi_move(m).expect("legal");
            p.play(mv);
        }
    }
    played
}

/// `council-openings` with the book as its source: every position the book reaches at ply 4 is
/// a candidate, and every line written is four book moves, its source the book.
fn openings_from_book(dir: &Path, book: &Path, lines: &[Vec<String>]) {
    let played = book_moves(lines);
    let at_four: std::collections::HashSet<String> = lines
        .iter()
        .map(|l| {
            let moves: Vec<String> = l[..4].to_vec();
            key(&replay("startpos", &moves).unwrap().finish().unwrap())
        })
        .collect();
    let out = dir.join("suite.txt");
    let table = succeeded(&run_bin(
        "council-openings",
        &[
            &book,
            &"--ply",
            &"4",
            &"--band",
            &"30000",
            &"--nodes",
            &"200",
            &"--count",
            &"100",
            &"--radius",
            &"0",
            &"--concurrency",
            &"1",
            &"--out",
            &out,
        ],
    ));
    let chosen: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    assert!(chosen.len() >= at_four.len(), "{table}");
    for line in &chosen {
        let moves: Vec<String> = line
            .strip_prefix("startpos moves ")
            .unwrap_or_else(|| panic!("{line}"))
            .split(' ')
            .map(str::to_string)
            .collect();
        assert_eq!(moves.len(), 4, "{line}");
        let mut p = Position::startpos();
        for m in &moves {
            assert!(
                played.contains(&(key(&p), m.clone())),
                "{line}: {m} is not a book move"
            );
            let mv = p.parse_usi_move(m).expect("legal");
            p.play(mv);
        }
    }
    let reached: std::collections::HashSet<String> = chosen
        .iter()
        .map(|l| {
            let moves: Vec<String> = l["startpos moves ".len()..]
                .split(' ')
                .map(str::to_string)
                .collect();
            key(&replay("startpos", &moves).unwrap().finish().unwrap())
        })
        .collect();
    assert!(
        at_four.is_subset(&reached),
        "every known position at ply 4 is in the suite"
    );
    let sidecar = std::fs::read_to_string(dir.join("suite.txt.json")).unwrap();
    assert!(
        sidecar.contains(&format!("{} line ", book.display())),
        "{sidecar}"
    );
}

/// The first `plies` moves of every game.
fn known_lines(games: &[Value], plies: usize) -> Vec<Vec<String>> {
    games
        .iter()
        .map(|g| {
            g["moves"].as_array().unwrap()[..plies]
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Writes `lines` as a `#YANEURAOU-DB2016 1.00` book: each position on a line an entry, each
/// move with its count (games that played it there), the value 0, depth 0.
fn write_book(path: &Path, lines: &[Vec<String>]) {
    let mut entries: Vec<(String, Vec<(String, u32)>)> = Vec::new();
    for line in lines {
        let mut p = Position::startpos();
        for m in line {
            let sfen = p.to_sfen();
            let at = match entries.iter().position(|(s, _)| *s == sfen) {
                Some(at) => at,
                None => {
                    entries.push((sfen, Vec::new()));
                    entries.len() - 1
                }
            };
            let moves = &mut entries[at].1;
            match moves.iter_mut().find(|(mv, _)| mv == m) {
                Some((_, n)) => *n += 1,
                None => moves.push((m.clone(), 1)),
            }
            let mv = p.parse_usi_move(m).expect("legal");
            p.play(mv);
        }
    }
    let mut text = "#YANEURAOU-DB2016 1.00\n".to_string();
    for (sfen, moves) in &entries {
        writeln!(text, "sfen {sfen}").unwrap();
        for (mv, n) in moves {
            writeln!(text, "{mv} none 0 0 {n}").unwrap();
        }
    }
    std::fs::write(path, text).unwrap();
}

/// `council-match --seed 5` draws a book's lines as `[match] seed = 5` does (it once drew them
/// from `[match] seed` whatever `--seed` said), and seed 3 draws another line of this book.
#[test]
fn the_seed_flag_draws_the_books_lines() {
    let dir = scratch("seed");
    let lines: Vec<Vec<String>> = [
        "7g7f 3c3d 2g2f",
        "2g2f 8c8d 2f2e",
        "7g7f 8c8d 2g2f",
        "5g5f 3c3d 2h5h",
        "2g2f 3c3d 7g7f",
        "6g6f 8c8d 7g7f",
    ]
    .iter()
    .map(|l| l.split(' ').map(str::to_string).collect())
    .collect();
    write_book(&dir.join("book.db"), &lines);
    let text = |seed: u64| {
        format!(
            "[match]\nplayers = [\"a\", \"b\"]\ngames = 2\nseed = {seed}\nopenings = \"book.db\"\n\
             book_depth = 3\nbook_lines = 1\n\n[[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 100\n\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 100\n"
        )
    };
    let openings = |seed: u64, flag: Option<&str>| -> Value {
        let name = format!("seed-{seed}-{}", flag.unwrap_or("key"));
        let config = dir.join(format!("{name}.toml"));
        std::fs::write(&config, text(seed)).unwrap();
        let out = dir.join(&name);
        let extra: Vec<&str> = flag.map_or(vec![], |f| vec!["--seed", f]);
        succeeded(&council_match(&config, &out, &extra));
        let info: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        info["plan"]["openings"].clone()
    };
    let flagged = openings(3, Some("5"));
    assert_eq!(flagged, openings(5, None));
    assert_ne!(flagged, openings(3, None));
}

/// A match with `openings = "book.db"`: every game starts on one of `lines`; a corrupt book
/// line is refused by `--check` naming the book and the line.
fn play_from_book(dir: &Path, book: &Path, lines: &[Vec<String>]) {
    let config = dir.join("book.toml");
    let text = "[match]\nplayers = [\"a\", \"b\"]\ngames = 4\nseed = 3\nopenings = \"book.db\"\n\
                book_depth = 8\ntraining = { format = \"psv\" }\n\n[[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 300\n\n\
                [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 300\n";
    std::fs::write(&config, text).unwrap();
    // In a folder of runs, exported below as a whole.
    let out = dir.join("runs").join("book-run");
    succeeded(&council_match(&config, &out, &[]));
    let plan = |out: &Path| -> Value {
        let info: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        info["plan"].clone()
    };
    // run.json records the training file the run writes.
    assert_eq!(plan(&out)["training"]["format"], "psv");

    // Every book move a line takes was played at its position in one of the run's games.
    let played = book_moves(lines);
    let results = results_lines(&out);
    assert_eq!(results.len(), 4);
    for g in results {
        let moves: Vec<String> = g["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        let opening = moves.len() - g["scores"].as_array().map_or(0, Vec::len);
        assert_eq!((opening, g["opening_plies"].as_u64()), (8, Some(8)), "{g}");
        let mut p = Position::startpos();
        for m in &moves[..8] {
            assert!(
                played.contains(&(key(&p), m.clone())),
                "{m} at {}: not a book move",
                p.to_sfen()
            );
            let mv = p.parse_usi_move(m).expect("legal");
            p.play(mv);
        }
    }
    // `[match] training` wrote, game by game, what an export of the run writes.
    let exported = dir.join("book-run.psv");
    export(&out, "psv", &exported, &[]);
    let during = std::fs::read(out.join("training.psv")).expect("the run's training file");
    assert!(!during.is_empty());
    assert_eq!(during, std::fs::read(&exported).unwrap());
    // The folder of runs exports the run with its scores, as the run alone does.
    let folder = dir.join("runs.psv");
    export(&dir.join("runs"), "psv", &folder, &[]);
    assert_eq!(std::fs::read(&folder).unwrap(), during);
    let text = std::fs::read_to_string(book).unwrap();
    let corrupt: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 2 {
                format!("{}\n", l.replace(" 0 0 ", " 0 zero "))
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(book, corrupt).unwrap();
    let err = refused(
        &std::process::Command::new(council_tests::workspace_bin("council-match"))
            .arg(&config)
            .arg("--check")
            .output()
            .unwrap(),
    );
    assert!(
        err.contains(&format!("{}: line 3: ", book.display())),
        "{err}"
    );
}
