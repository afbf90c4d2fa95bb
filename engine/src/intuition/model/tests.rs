use super::*;
use crate::intuition::encoding::{START, encode};
use crate::position::Position;

fn moves(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// The codes of `text`'s last move, played after the others from the start.
fn codes_of(line: &str) -> EncodedMove {
    let mut all = moves(line);
    let last = all.pop().expect("a move");
    let mut pos = Position::startpos();
    for m in &all {
        pos.play(pos.parse_usi_move(m).expect("legal"));
    }
    let mv = pos.parse_usi_move(&last).expect("legal");
    encode(&pos, mv)
}

/// The three-game corpus worked by hand:
/// G1 `7g7f 3c3d 6g6f` (sente won), G2 `7g7f 8c8d` (gote won), G3 `2g2f 3c3d` (no result).
///
/// By hand, five distinct move codes occur, because the encoding sees only the neighbourhood:
/// - X = 7g7f at the start: the pawn gives to an empty square (14) and is attacked by its own
///   knight and bishop ([2, 4]); its to-square is attacked by the pawn alone ([0]). G3's
///   3c3d after 2g2f is the same shape for gote (knight 2a, bishop 2b), so it is X too, and so
///   are the squares both make (p' A_X: a pawn attacking an empty square, unattacked).
/// - Y = 2g2f at the start: a pawn attacked by its own rook only; G2's 8c8d after 7g7f is the
///   same for gote, p' A_Y both times (the rook's file now reaches the pawn).
/// - Z = 3c3d after 7g7f: sente's bishop now also attacks 3c ([2, 4, 20]).
/// - U = 6g6f after 7g7f 3c3d.
///
/// Sequences: G1 X Z U; G2 X Y; G3 Y X. Every position has 30 or so legal moves: all learned.
fn corpus() -> [(&'static str, Option<Color>); 3] {
    [
        ("7g7f 3c3d 6g6f", Some(Color::Sente)),
        ("7g7f 8c8d", Some(Color::Gote)),
        ("2g2f 3c3d", None),
    ]
}

/// The three-game corpus learned in `order` (the model-file tests use it too).
pub(crate) fn learn(options: LearnOptions, order: &[usize]) -> Model {
    let mut model = Model::new(options);
    let games = corpus();
    for &i in order {
        let (line, winner) = games[i];
        model
            .learn_game("startpos", &moves(line), winner)
            .expect("the corpus replays");
    }
    model
}

#[test]
fn counts_and_v_of_the_three_game_corpus_by_hand() {
    let x = codes_of("7g7f");
    let y = codes_of("2g2f");
    let z = codes_of("7g7f 3c3d");
    let u = codes_of("7g7f 3c3d 6g6f");
    // The identities claimed above.
    assert_eq!(codes_of("2g2f 3c3d"), x);
    assert_eq!(codes_of("7g7f 8c8d"), y);
    let distinct = [x.code.full, y.code.full, z.code.full, u.code.full, START];
    for (i, a) in distinct.iter().enumerate() {
        assert!(!distinct[i + 1..].contains(a));
    }

    let model = learn(LearnOptions::default(), &[0, 1, 2]);
    assert_eq!((model.games, model.learned_moves), (3, 7));
    let t = model.tables(Variant::Full);
    let (x, y, z, u) = (x.code.full, y.code.full, z.code.full, u.code.full);
    // c1(p_{i-1}, p_i): (START, X) G1 G2, (START, Y) G3, (X, Z) G1, (X, Y) G2, (Z, U) G1,
    // (Y, X) G3.
    assert_eq!(
        t.prev1.sorted().len(),
        6,
        "six distinct (previous, move) pairs"
    );
    assert_eq!((t.prev1.count(START, x), t.prev1.count(START, y)), (2, 1));
    assert_eq!((t.prev1.count(x, z), t.prev1.count(x, y)), (1, 1));
    assert_eq!((t.prev1.count(z, u), t.prev1.count(y, x)), (1, 1));
    assert_eq!(
        (
            t.prev1.row_sum(START),
            t.prev1.row_sum(x),
            t.prev1.row_sum(y)
        ),
        (3, 2, 1)
    );
    assert_eq!(t.prev1.v(START, x), 2.0 / 3.0);
    assert_eq!(t.prev1.v(x, z), 0.5);
    assert_eq!(t.prev1.v(y, x), 1.0);
    assert_eq!(t.prev1.v(u, x), 0.0, "row U was never seen");
    // c2(p_{i-2}, p_i): the first two plies of each game have START two back: X three times
    // (G1, G2, G3's second), Y twice, Z once; then (X, U) in G1.
    assert_eq!(t.prev2.len(), 4);
    assert_eq!(
        (
            t.prev2.count(START, x),
            t.prev2.count(START, y),
            t.prev2.count(START, z)
        ),
        (3, 2, 1)
    );
    assert_eq!(t.prev2.row_sum(START), 6);
    assert_eq!(t.prev2.v(START, x), 0.5);
    assert_eq!(t.prev2.v(START, y), 2.0 / 6.0);
    assert_eq!(t.prev2.v(x, u), 1.0);
    // c3(p_i, p'_i): X made A_X three times, Y made A_Y twice, Z and U once each.
    let a_x = codes_of("7g7f").after.full;
    let a_y = codes_of("2g2f").after.full;
    assert_eq!(t.after.len(), 4);
    assert_eq!((t.after.count(x, a_x), t.after.count(y, a_y)), (3, 2));
    assert_eq!(t.after.v(x, a_x), 1.0);
    assert_eq!(t.after.v(x, a_y), 0.0);

    // Winner only: G1 teaches sente's X and U, G2 gote's Y, G3 nothing; the previous moves
    // still come from both sides (U's previous move is gote's Z).
    let winners = learn(LearnOptions { winner_only: true }, &[0, 1, 2]);
    assert_eq!((winners.games, winners.learned_moves), (3, 3));
    let t = winners.tables(Variant::Full);
    assert_eq!(t.prev1.sorted(), {
        let mut v = vec![(START, x, 1), (z, u, 1), (x, y, 1)];
        v.sort_unstable();
        v
    });
}

#[test]
fn settings_weigh_the_three_values_as_the_seed_says() {
    let v = [0.5, 0.25, 0.125];
    assert_eq!(Setting::A.score(v), 0.875);
    assert_eq!(Setting::B.score(v), 0.125);
    assert_eq!(Setting::C.score(v), 1.0 + 0.25 + 0.5);
    assert_eq!(Setting::D.score(v), 2.0 + 0.5 + 0.125);
    assert_eq!(Setting::E.score(v), 1.5 * 1.25 * 1.125);
    assert_eq!(Setting::F.score(v), Setting::D.score(v));
    assert_eq!(Setting::F.variant(), Variant::F);
    assert_eq!(Setting::default(), Setting::D);
    for s in Setting::ALL {
        assert_eq!(s.to_string().parse::<Setting>(), Ok(s));
    }
    assert_eq!("D".parse::<Setting>(), Ok(Setting::D));
    assert!("g".parse::<Setting>().is_err());
    assert!("dd".parse::<Setting>().is_err());
}

#[test]
fn positions_with_five_legal_moves_or_fewer_are_not_learned() {
    // Sente: king on 9e (five moves) and a pawn on 5g (one more): six, learned. Gote's king on
    // 5a has five: not learned. The next sente position has six again (9e and 5f).
    let mut model = Model::new(LearnOptions::default());
    let learned = model
        .learn_game(
            "4k4/9/9/9/K8/9/4P4/9/9 b - 1",
            &moves("5g5f 5a5b 9e9d"),
            None,
        )
        .expect("replays");
    assert_eq!(learned, Learned { plies: 3, moves: 2 });
    // The king alone has five moves: nothing is learned.
    let learned = model
        .learn_game("4k4/9/9/9/K8/9/9/9/9 b - 1", &moves("9e9d"), None)
        .expect("replays");
    assert_eq!(learned.moves, 0);
    assert_eq!((model.games, model.learned_moves), (2, 2));
}

#[test]
fn a_game_that_does_not_replay_teaches_nothing() {
    let mut model = Model::new(LearnOptions::default());
    let err = model
        .learn_game("startpos", &moves("7g7f 3c3d 7f7e 5a5b 7e7c"), None)
        .expect_err("7e7c jumps");
    assert!(
        matches!(&err, GameError::Move { number: 5, text, .. } if text == "7e7c"),
        "{err}"
    );
    assert!(model.tables(Variant::Full).prev1.is_empty());
    assert_eq!(model.games, 0);
    assert!(matches!(
        model.learn_game("not a position", &[], None),
        Err(GameError::Start { .. })
    ));
}
