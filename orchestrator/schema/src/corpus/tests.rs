use super::*;
use crate::results::Winner;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("council-corpus-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const BOARD: &str = "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA * 
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI * 
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
";

/// A game as floodgate's archive writes it: headers, `$START_TIME`, board lines, `T` times on
/// their own lines, `'` comments (also after the end), `%TORYO`.
fn floodgate_game(moves: &[&str], end: &str) -> String {
    let mut text = String::from(
        "'V2.2\nV2.2\nN+alpha\nN-beta\n$EVENT:wdoor+floodgate-300-10F+alpha+beta+20240101120003\n\
         $SITE:wdoor.c.u-tokyo.ac.jp\n$START_TIME:2024/01/01 12:00:03\n$OPENING:YaneuraOu\n\
         $TIME_LIMIT:00:05:00+10\n'Max_Moves:256\n",
    );
    text.push_str(BOARD);
    text.push_str("P+\nP-\n+\n");
    for (i, mv) in moves.iter().enumerate() {
        text.push_str(mv);
        text.push_str(&format!("\nT{}\n", i % 7));
        text.push_str("'** 30 -3334FU\n");
    }
    text.push_str(end);
    text.push_str("\n'$END_TIME:2024/01/01 12:10:00\n'summary:toryo:alpha win:beta lose\n");
    text
}

#[test]
fn reads_a_floodgate_csa_with_toryo() {
    let dir = scratch("floodgate");
    let file = dir.join("game.csa");
    std::fs::write(
        &file,
        floodgate_game(&["+7776FU", "-3334FU", "+2726FU"], "%TORYO"),
    )
    .unwrap();
    let corpus = read(std::slice::from_ref(&file)).unwrap();
    assert_eq!(corpus.warnings, []);
    assert_eq!(corpus.games.len(), 1);
    let g = &corpus.games[0];
    assert_eq!(g.moves, ["7g7f", "3c3d", "2g2f"]);
    assert_eq!(g.start, engine::position::Handicap::Even.sfen());
    // Gote resigned after sente's third move.
    assert_eq!(g.winner, Some(Winner::Sente));
    assert_eq!(g.reason.as_deref(), Some("resign"));
    assert_eq!(g.source, file.display().to_string());
}

#[test]
fn reads_a_kachi_declaration_and_several_games_in_one_file() {
    let dir = scratch("multi");
    let file = dir.join("two.csa");
    let text = format!(
        "{}/\n{}",
        floodgate_game(&["+7776FU", "-3334FU"], "%TORYO"),
        floodgate_game(&["+2726FU", "-8384FU"], "%KACHI")
    );
    std::fs::write(&file, &text).unwrap();
    let corpus = read(std::slice::from_ref(&file)).unwrap();
    assert_eq!(corpus.warnings, []);
    let second_line = text.lines().position(|l| l == "/").unwrap() + 2;
    let got: Vec<_> = corpus
        .games
        .iter()
        .map(|g| {
            (
                g.source.clone(),
                g.moves.join(" "),
                g.winner,
                g.reason.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                format!("{}:1", file.display()),
                "7g7f 3c3d".to_string(),
                Some(Winner::Gote),
                Some("resign".to_string())
            ),
            // %KACHI: the side to move (sente) declares and wins, as the record reader has it.
            (
                format!("{}:{second_line}", file.display()),
                "2g2f 8c8d".to_string(),
                Some(Winner::Sente),
                Some("impasse".to_string())
            ),
        ]
    );
}

#[test]
fn a_bad_csa_move_names_the_file_and_line_and_the_rest_is_read() {
    let dir = scratch("badcsa");
    let text = format!(
        "{}/\n{}",
        floodgate_game(&["+7776FU", "-3334FU", "+7775FU"], "%TORYO"),
        floodgate_game(&["+2726FU", "-8384FU"], "%TORYO")
    );
    let file = dir.join("bad.csa");
    // The pawn on 7六 cannot reach 7四 in one move.
    let text = text.replace("+7775FU", "+7774FU");
    std::fs::write(&file, &text).unwrap();
    let corpus = read(std::slice::from_ref(&file)).unwrap();
    assert_eq!(corpus.games.len(), 1);
    assert_eq!(corpus.games[0].moves, ["2g2f", "8c8d"]);
    assert_eq!(corpus.warnings.len(), 1);
    let bad_line = text.lines().position(|l| l == "+7774FU").unwrap() + 1;
    let w = corpus.warnings[0].to_string();
    assert!(w.starts_with(&file.display().to_string()), "{w}");
    assert!(w.contains(&format!("line {bad_line}")), "{w}");
    assert_eq!(corpus.skipped(), 1);
}

#[test]
fn usi_lines_read_with_results_comments_and_bad_lines_named() {
    let dir = scratch("lines");
    let file = dir.join("games.txt");
    std::fs::write(
        &file,
        "# a header\n\
         startpos moves 7g7f 3c3d\tresult=gote reason=resign\n\
         \n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f\n\
         startpos moves 7g7f 7g7f\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9 b - 1 moves 2g2f\n\
         startpos moves 7g7f 3c3d\tresult=gote reason=resign\n\
         position startpos moves 2g2f 8c8d\tresult=sideways\n",
    )
    .unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"startpos moves \xff\xfe\x81\n");
    bytes.extend_from_slice(b"position startpos moves 5g5f\n");
    std::fs::write(&file, bytes).unwrap();
    let corpus = read(std::slice::from_ref(&file)).unwrap();
    let moves: Vec<_> = corpus.games.iter().map(|g| g.moves.join(" ")).collect();
    assert_eq!(moves, ["7g7f 3c3d", "2g2f", "5g5f"]);
    assert_eq!(corpus.games[0].winner, Some(Winner::Gote));
    assert_eq!(corpus.games[0].reason.as_deref(), Some("resign"));
    assert_eq!(corpus.games[1].winner, None);
    assert_eq!(corpus.duplicates(), 1);
    assert_eq!(corpus.read(), 4);
    let places: Vec<_> = corpus.warnings.iter().map(|w| w.place.clone()).collect();
    let at = |n: usize| format!("{}:{n}", file.display());
    assert_eq!(places, [at(5), at(6), at(8), at(9)]);
    assert!(corpus.warnings[0].problem.contains("move 2 `7g7f`"));
    assert!(corpus.warnings[3].problem.contains("UTF-8"));
    assert_eq!(corpus.skipped(), 4);
}

#[test]
fn written_lines_read_back_as_the_same_games() {
    let dir = scratch("roundtrip");
    let games = vec![
        CorpusGame {
            source: "x".into(),
            start: engine::position::Handicap::Even.sfen().to_string(),
            moves: vec!["7g7f".into(), "3c3d".into()],
            winner: Some(Winner::Draw),
            reason: Some("repetition".into()),
        },
        CorpusGame {
            source: "y".into(),
            start: engine::position::Handicap::Lance.sfen().to_string(),
            moves: vec!["3c3d".into()],
            winner: None,
            reason: None,
        },
    ];
    let file = dir.join("c.txt");
    std::fs::write(&file, lines::format_file(&["made by hand".into()], &games)).unwrap();
    let back = read(std::slice::from_ref(&file)).unwrap();
    assert_eq!(back.warnings, []);
    let strip = |g: &CorpusGame| (g.start.clone(), g.moves.clone(), g.winner, g.reason.clone());
    assert_eq!(
        back.games.iter().map(strip).collect::<Vec<_>>(),
        games.iter().map(strip).collect::<Vec<_>>()
    );
    assert!(std::fs::read_to_string(&file).unwrap().starts_with(
        "# made by hand\nstartpos moves 7g7f 3c3d\tresult=draw reason=repetition\nsfen "
    ));
}

#[test]
fn folders_are_recursed_in_name_order_and_a_missing_input_is_an_error() {
    let dir = scratch("folder");
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("b/one.txt"), "startpos moves 2g2f\n").unwrap();
    std::fs::write(dir.join("a.txt"), "startpos moves 7g7f\n").unwrap();
    std::fs::write(dir.join("README"), "not a game\n").unwrap();
    let corpus = read(std::slice::from_ref(&dir)).unwrap();
    let moves: Vec<_> = corpus.games.iter().map(|g| g.moves.join(" ")).collect();
    assert_eq!(moves, ["7g7f", "2g2f"]);
    assert_eq!(corpus.warnings, []);
    assert!(matches!(
        read(&[dir.join("nothing")]),
        Err(CorpusError::Missing(_))
    ));
}

#[test]
fn the_split_is_order_free_and_near_its_share() {
    let share = TestShare::new(0.25).unwrap();
    let start = engine::position::Handicap::Even.sfen();
    let games: Vec<Vec<String>> = (0..2000)
        .map(|i| vec![format!("{}g{}f", 1 + i % 9, 7), format!("x{i}")])
        .collect();
    let sides: Vec<bool> = games.iter().map(|m| is_test(7, share, start, m)).collect();
    let tests = sides.iter().filter(|&&t| t).count();
    // 2000 draws at 1/4: 500 ± 4.5 sigma (sigma ≈ 19.4).
    assert!((413..=587).contains(&tests), "{tests}");
    // Another seed moves games between sides; the same seed never does.
    let other: Vec<bool> = games.iter().map(|m| is_test(8, share, start, m)).collect();
    assert_ne!(sides, other);
    assert!(!is_test(7, TestShare::new(0.0).unwrap(), start, &games[0]));
    assert!(is_test(7, TestShare::new(1.0).unwrap(), start, &games[0]));
    assert!(TestShare::new(1.5).is_err());
    assert_eq!(
        split::game_hash(1, "s", &["a".into()]),
        engine::intuition::fnv1a64(b"\x01\0\0\0\0\0\0\0s a")
    );
}

#[test]
fn adding_games_and_reordering_moves_no_game_between_sides() {
    let dir = scratch("orderfree");
    let line = |i: usize| {
        format!(
            "startpos moves {}\n",
            [
                "7g7f 3c3d",
                "2g2f 8c8d",
                "5g5f 5c5d",
                "1g1f 1c1d",
                "9g9f 9c9d",
                "6g6f 4c4d"
            ][i]
        )
    };
    let small = dir.join("small.txt");
    std::fs::write(&small, (0..3).map(line).collect::<String>()).unwrap();
    let big = dir.join("big.txt");
    std::fs::write(&big, [5, 2, 4, 1, 3, 0].map(line).concat()).unwrap();
    let share = TestShare::new(0.5).unwrap();
    let sides = |path: &PathBuf| -> std::collections::HashMap<Vec<String>, bool> {
        read(std::slice::from_ref(path))
            .unwrap()
            .games
            .into_iter()
            .map(|g| {
                let side = is_test(3, share, &g.start, &g.moves);
                (g.moves, side)
            })
            .collect()
    };
    let (small, big) = (sides(&small), sides(&big));
    assert_eq!(small.len(), 3);
    for (moves, side) in &small {
        assert_eq!(big[moves], *side, "{moves:?}");
    }
}

#[test]
fn games_without_a_move_are_skipped_by_name_not_kept_or_counted_as_duplicates() {
    let dir = scratch("empty");
    let file = dir.join("games.txt");
    std::fs::write(
        &file,
        "startpos\tresult=sente reason=timeout\nstartpos moves 7g7f\nstartpos\tresult=gote reason=crash\n",
    )
    .unwrap();
    let corpus = read(std::slice::from_ref(&file)).unwrap();
    let moves: Vec<_> = corpus.games.iter().map(|g| g.moves.join(" ")).collect();
    assert_eq!(moves, ["7g7f"]);
    assert_eq!((corpus.skipped(), corpus.duplicates()), (2, 0));
    let problems: Vec<_> = corpus.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].ends_with(":1: no moves (the game ended before its first move: timeout)"),
        "{problems:?}"
    );
    assert!(
        problems[1].contains(":3: no moves") && problems[1].contains("crash"),
        "{problems:?}"
    );
}
