//! `council-match` from fastchess's / Shogitest's command line: Shogitest's README examples run
//! with `council-match` in place of `shogitest` (scaled down, the engines being the built-in
//! engine under the README's names), and a reader of fastchess's and cutechess's console
//! format (the regex test workers use) finds in the output exactly what `results.jsonl` holds:
//! every game, the wins, losses and draws, the pentanomial counts, the final LLR. A flag run and
//! the TOML its `--print-config` prints play the same games; a `-council` is one participant
//! whose votes are recorded and which is rated; `-draw` ends a game by draw adjudication; an
//! unknown flag is one line naming the closest.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use council_tests::{succeeded, workspace_bin};
use regex::Regex;
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fastchess-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// The built-in engine under `name` in `dir` (as the README's `engine1.exe`): the name an
/// engine gets without `name=` is its command's file name.
fn engine_as(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::os::unix::fs::symlink(workspace_bin("council-engine"), &path).expect("link the engine");
    path.display().to_string()
}

/// A book of SFENs, one a line, as Shogitest's `-openings file=...epd` reads.
fn book(dir: &Path) -> String {
    let lines = [
        "startpos moves 7g7f 3c3d 2g2f 8c8d",
        "startpos moves 2g2f 8c8d 2f2e 8d8e",
        "startpos moves 7g7f 8c8d 2g2f 3c3d",
        "startpos moves 5g5f 3c3d 2h5h 8c8d",
        "startpos moves 7g7f 3c3d 6g6f 8c8d",
    ];
    let text: String = lines
        .iter()
        .map(|l| {
            let p = engine::position::Position::from_start_text(l).expect("a legal line");
            format!("{}\n", p.to_sfen())
        })
        .collect();
    let path = dir.join("4moves_shogi.sfen.epd");
    std::fs::write(&path, text).expect("write the book");
    path.display().to_string()
}

fn council_match(args: &[&str]) -> Output {
    Command::new(workspace_bin("council-match"))
        .args(args)
        .output()
        .expect("run council-match")
}

/// What a reader of fastchess's (or cutechess's) console takes from it.
#[derive(Debug, Default)]
struct Parsed {
    /// Game number -> (first named, second named, result).
    games: HashMap<u64, (String, String, String)>,
    /// The last `Ptnml(0-2): [a, b, c, d, e]`.
    penta: Option<[u64; 5]>,
    /// The last `LLR: x` (fastchess) or `SPRT: llr x` (cutechess).
    llr: Option<f64>,
    /// The last `Games: N, Wins: W, Losses: L, Draws: D` (fastchess) or `Score of A vs B: W - L - D` (cutechess).
    wld: Option<[u64; 3]>,
    last_line: String,
}

fn parse(stdout: &str) -> Parsed {
    let finished =
        Regex::new(r"Finished game (\d+) \((.+) vs (.+)\): (1-0|0-1|1/2-1/2)").expect("regex");
    let penta = Regex::new(r"^Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]").expect("regex");
    let llr = Regex::new(r"^(?:LLR: |SPRT: llr )(-?[\d.]+|nan)").expect("regex");
    let games =
        Regex::new(r"^Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)").expect("regex");
    let score = Regex::new(r"^Score of .+ vs .+: (\d+) - (\d+) - (\d+)  \[").expect("regex");
    let mut p = Parsed::default();
    for line in stdout.lines() {
        let n = |c: &regex::Captures, i: usize| c[i].parse::<u64>().expect("a count");
        if let Some(c) = finished.captures(line) {
            let id = n(&c, 1);
            let previous = p
                .games
                .insert(id, (c[2].to_string(), c[3].to_string(), c[4].to_string()));
            assert!(previous.is_none(), "game {id} finished twice");
        } else if let Some(c) = penta.captures(line) {
            p.penta = Some([n(&c, 1), n(&c, 2), n(&c, 3), n(&c, 4), n(&c, 5)]);
        } else if let Some(c) = llr.captures(line) {
            p.llr = c[1].parse().ok();
        } else if let Some(c) = games.captures(line) {
            assert_eq!(n(&c, 1), n(&c, 2) + n(&c, 3) + n(&c, 4), "{line}");
            p.wld = Some([n(&c, 2), n(&c, 3), n(&c, 4)]);
        } else if let Some(c) = score.captures(line) {
            p.wld = Some([n(&c, 1), n(&c, 2), n(&c, 3)]);
        }
        if !line.trim().is_empty() {
            p.last_line = line.to_string();
        }
    }
    p
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn summary(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// `player`'s points in a results line.
fn points(g: &Value, player: &str) -> f64 {
    let sente = g["sente"] == player;
    match g["result"].as_str() {
        Some("sente") => f64::from(u8::from(sente)),
        Some("gote") => f64::from(u8::from(!sente)),
        _ => 0.5,
    }
}

/// Wins, losses, draws and pentanomial counts of `first` against `second`, from the lines.
fn tally(games: &[Value], first: &str) -> ([u64; 3], [u64; 5]) {
    let mut wld = [0; 3];
    let mut pairs: HashMap<u64, Vec<f64>> = HashMap::new();
    for g in games {
        let p = points(g, first);
        wld[if p == 1.0 {
            0
        } else if p == 0.0 {
            1
        } else {
            2
        }] += 1;
        pairs
            .entry(g["pair"].as_u64().expect("paired games"))
            .or_default()
            .push(p);
    }
    let mut penta = [0; 5];
    for p in pairs.values().filter(|p| p.len() == 2) {
        penta[((p[0] + p[1]) * 2.0).round() as usize] += 1;
    }
    (wld, penta)
}

/// Every finished game of the lines appears once in the console, numbered from 1, with its
/// players in (sente vs gote) order and its result.
fn assert_console_matches_games(parsed: &Parsed, games: &[Value]) {
    assert_eq!(parsed.games.len(), games.len(), "{parsed:?}");
    for g in games {
        let id = g["id"].as_u64().expect("id") + 1;
        let (sente, gote, result) = &parsed.games[&id];
        assert_eq!(
            (sente.as_str(), gote.as_str()),
            (
                g["sente"].as_str().expect("s"),
                g["gote"].as_str().expect("g")
            )
        );
        let expected = match g["result"].as_str() {
            Some("sente") => "1-0",
            Some("gote") => "0-1",
            _ => "1/2-1/2",
        };
        assert_eq!(result, expected, "game {id}");
    }
}

#[test]
fn the_readme_tournament_runs_and_its_output_reads_as_fastchess() {
    let dir = scratch("tournament");
    let (e1, e2) = (
        engine_as(&dir, "engine1.exe"),
        engine_as(&dir, "engine2.exe"),
    );
    let book = book(&dir);
    let out = dir.join("run");
    // Shogitest's README: `-each tc=10+0.1 -rounds 200 -concurrency 4`, scaled down.
    let o = council_match(&[
        "-engine",
        &format!("cmd={e1}"),
        "-engine",
        &format!("cmd={e2}"),
        "-each",
        "tc=N=300",
        "-rounds",
        "3",
        "-concurrency",
        "2",
        "-openings",
        &format!("file={book}"),
        "-ratinginterval",
        "2",
        "-maxmoves",
        "160",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stdout = succeeded(&o);
    let games = results(&out);
    assert_eq!(games.len(), 6);
    let parsed = parse(&stdout);
    assert_console_matches_games(&parsed, &games);
    assert!(
        stdout.contains("Started game 1 of 6 (engine1 vs engine2)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Results of engine1 vs engine2 (300 nodes, NULL, NULL, 4moves_shogi.sfen.epd):"
        ),
        "{stdout}"
    );
    let (wld, penta) = tally(&games, "engine1");
    assert_eq!(parsed.wld, Some(wld), "{stdout}");
    assert_eq!(parsed.penta, Some(penta), "{stdout}");
    assert_eq!(parsed.last_line, "Tournament finished");
    // The run folder is a run like any other.
    assert_eq!(summary(&out)["games"], 6);
}

#[test]
fn the_readme_sprt_stops_and_its_llr_is_the_runs() {
    let dir = scratch("sprt");
    let (dev, base) = (
        engine_as(&dir, "engine-dev.exe"),
        engine_as(&dir, "engine-base.exe"),
    );
    let book = book(&dir);
    let out = dir.join("run");
    // The README's SPRT, scaled down: the base is made much weaker (evaluation noise) and H1
    // is 50 nElo, so the test decides in a few pairs; -rounds caps it.
    let o = council_match(&[
        "-engine",
        &format!("cmd={dev}"),
        "-engine",
        &format!("cmd={base}"),
        "option.NoiseSD=400",
        "-each",
        "tc=N=300",
        "-concurrency",
        "2",
        "-openings",
        &format!("file={book}"),
        "order=random",
        "-sprt",
        "elo0=0",
        "elo1=50",
        "alpha=0.05",
        "beta=0.05",
        "-rounds",
        "60",
        "-maxmoves",
        "200",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stdout = succeeded(&o);
    let games = results(&out);
    let parsed = parse(&stdout);
    assert_console_matches_games(&parsed, &games);
    let (wld, penta) = tally(&games, "engine-dev");
    assert_eq!(parsed.wld, Some(wld), "{stdout}");
    assert_eq!(parsed.penta, Some(penta), "{stdout}");
    let s = summary(&out);
    let llr = s["sprt"]["llr"].as_f64().expect("the run's LLR");
    assert_eq!(
        format!("{:.2}", parsed.llr.expect("an LLR line")),
        format!("{llr:.2}"),
        "{stdout}"
    );
    assert_eq!(s["sprt"]["decision"], "accept_h1", "{stdout}");
    assert_eq!(
        parsed.last_line,
        "SPRT ([0.00, 50.00]) completed - H1 was accepted"
    );
    assert!(
        games.len() < 120,
        "the test decided early: {} games",
        games.len()
    );
}

/// The results lines by game id, without what timing changes.
fn untimed(out: &Path) -> Vec<Value> {
    let mut games = results(out);
    games.sort_by_key(|g| g["id"].as_u64());
    games
        .into_iter()
        .map(|mut g| {
            let o = g.as_object_mut().expect("an object");
            for k in ["times_ms", "costs", "started_unix_ms", "wall_ms"] {
                o.remove(k);
            }
            g
        })
        .collect::<Vec<_>>()
}

#[test]
fn a_flag_run_and_its_printed_config_play_the_same_games() {
    let dir = scratch("print-config");
    let (e1, e2) = (engine_as(&dir, "strong"), engine_as(&dir, "weak"));
    let book = book(&dir);
    let flags = [
        "-engine".to_string(),
        format!("cmd={e1}"),
        "nodes=400".into(),
        "-engine".into(),
        format!("cmd={e2}"),
        "nodes=100".into(),
        "-openings".into(),
        format!("file={book}"),
        "order=random".into(),
        "start=2".into(),
        "-srand".into(),
        "11".into(),
        "-rounds".into(),
        "2".into(),
        "-maxmoves".into(),
        "120".into(),
        "-concurrency".into(),
        "2".into(),
    ];
    let mut print = flags.to_vec();
    print.push("--print-config".into());
    let words: Vec<&str> = print.iter().map(String::as_str).collect();
    let toml_text = succeeded(&council_match(&words));
    let config = dir.join("printed.toml");
    std::fs::write(&config, &toml_text).expect("write the printed config");

    let flag_out = dir.join("flags");
    let mut run = flags.to_vec();
    run.extend(["--out".into(), flag_out.display().to_string()]);
    let words: Vec<&str> = run.iter().map(String::as_str).collect();
    succeeded(&council_match(&words));
    let toml_out = dir.join("toml");
    succeeded(&council_match(&[
        config.to_str().expect("utf-8"),
        "--quiet",
        "--concurrency",
        "2",
        "--out",
        toml_out.to_str().expect("utf-8"),
    ]));
    let (a, b) = (untimed(&flag_out), untimed(&toml_out));
    assert_eq!(a.len(), 4);
    assert_eq!(a, b);
}

#[test]
fn a_council_is_one_participant_with_its_votes_recorded_and_rated() {
    let dir = scratch("council");
    let e = workspace_bin("council-engine").display().to_string();
    let out = dir.join("run");
    let o = council_match(&[
        "-engine",
        "name=a",
        &format!("cmd={e}"),
        "-engine",
        "name=b",
        &format!("cmd={e}"),
        "option.NoiseSD=60",
        "-engine",
        "name=c",
        &format!("cmd={e}"),
        "option.NoiseSD=120",
        "-council",
        "name=trio",
        "members=a,b,c",
        "method=majority",
        "fairness=full",
        "-engine",
        "name=single",
        &format!("cmd={e}"),
        "-each",
        "nodes=200",
        "-rounds",
        "2",
        "-maxmoves",
        "120",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stdout = succeeded(&o);
    let games = results(&out);
    assert_eq!(games.len(), 4);
    let parsed = parse(&stdout);
    assert_console_matches_games(&parsed, &games);
    assert!(stdout.contains("Results of trio vs single ("), "{stdout}");
    for g in &games {
        let votes = g["votes"].as_array().expect("votes recorded");
        assert!(!votes.is_empty(), "{g}");
    }
    let rated = Command::new(workspace_bin("council-elo"))
        .arg(out.join("results.jsonl"))
        .output()
        .expect("run council-elo");
    let table = succeeded(&rated);
    assert!(table.contains("trio"), "{table}");
    let s = summary(&out);
    let trio = s["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == "trio")
        .expect("the council in summary.json");
    assert_eq!(trio["games"], 4);
}

#[test]
fn cutechess_output_reads_as_cutechess() {
    let dir = scratch("cutechess");
    let (e1, e2) = (engine_as(&dir, "one"), engine_as(&dir, "two"));
    let out = dir.join("run");
    let o = council_match(&[
        "-engine",
        &format!("cmd={e1}"),
        "nodes=300",
        "-engine",
        &format!("cmd={e2}"),
        "nodes=100",
        "-rounds",
        "2",
        "-maxmoves",
        "120",
        "-output",
        "format=cutechess",
        "-sprt",
        "elo0=0",
        "elo1=10",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stdout = succeeded(&o);
    let games = results(&out);
    let parsed = parse(&stdout);
    assert_console_matches_games(&parsed, &games);
    let (wld, _) = tally(&games, "one");
    assert_eq!(parsed.wld, Some(wld), "{stdout}");
    assert!(stdout.contains("Elo difference: "), "{stdout}");
    assert!(stdout.contains("SPRT: llr "), "{stdout}");
    assert_eq!(parsed.last_line, "Tournament finished");
}

#[test]
fn pgnout_writes_shogitests_pseudo_pgn() {
    let dir = scratch("pgnout");
    let (e1, e2) = (engine_as(&dir, "one"), engine_as(&dir, "two"));
    let pgn = dir.join("games.pgn");
    let out = dir.join("run");
    succeeded(&council_match(&[
        "-engine",
        &format!("cmd={e1}"),
        "nodes=200",
        "-engine",
        &format!("cmd={e2}"),
        "nodes=100",
        "-rounds",
        "1",
        "-maxmoves",
        "60",
        "-event",
        "Test Event",
        "-pgnout",
        &format!("file={}", pgn.display()),
        "--out",
        out.to_str().expect("utf-8"),
    ]));
    let text = std::fs::read_to_string(&pgn).expect("the pgn file");
    let games = results(&out);
    assert_eq!(text.matches("[Event \"Test Event\"]").count(), 2, "{text}");
    for g in &games {
        let moves = g["moves"].as_array().expect("moves");
        let first = moves[0].as_str().expect("a move");
        assert!(text.contains(&format!("\n{first} {{")), "{text}");
        assert!(
            text.contains(&format!("[PlyCount \"{}\"]", moves.len())),
            "{text}"
        );
    }
}

#[test]
fn an_unknown_flag_or_key_is_one_line_naming_the_closest() {
    for (args, line) in [
        (
            vec!["-engine", "cmd=x", "-engine", "cmd=y", "-concurency", "4"],
            "council-match: unknown flag `-concurency`; did you mean `-concurrency`?",
        ),
        (
            vec![
                "-engine",
                "cmd=x",
                "tc=10+0.1",
                "-engine",
                "cmd=y",
                "tc=10+0.1",
                "-sprt",
                "elo0=0",
                "elo=5",
            ],
            "council-match: -sprt: unknown key `elo`; did you mean `elo0`?",
        ),
    ] {
        let o = council_match(&args);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end(), line);
    }
}

#[test]
fn draw_adjudication_ends_a_game_as_fastchess_says_it() {
    let dir = scratch("draw");
    let (e1, e2) = (engine_as(&dir, "one"), engine_as(&dir, "two"));
    let out = dir.join("run");
    // Any centipawn score is within the window: each game is drawn at the fourth ply, once
    // both engines have scored two plies in a row after ply 4 was reached.
    let o = council_match(&[
        "-engine",
        &format!("cmd={e1}"),
        "nodes=200",
        "-engine",
        &format!("cmd={e2}"),
        "nodes=100",
        "-rounds",
        "1",
        "-draw",
        "movenumber=4",
        "movecount=2",
        "score=100000",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stdout = succeeded(&o);
    let games = results(&out);
    assert_eq!(games.len(), 2, "{stdout}");
    for g in &games {
        assert_eq!(g["result"], "draw", "{g}");
        assert_eq!(g["reason"], "draw_adjudication", "{g}");
        assert_eq!(g["plies"], 4, "{g}");
    }
    assert_console_matches_games(&parse(&stdout), &games);
    assert_eq!(
        stdout.matches("1/2-1/2 {Draw by adjudication}").count(),
        2,
        "{stdout}"
    );
}
