use super::*;
use crate::intuition::model::LearnOptions;

fn moves(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn position(line: &str) -> Position {
    Position::from_usi_position(line).expect("test position")
}

fn mv(p: &Position, text: &str) -> Move {
    p.parse_usi_move(text).expect("legal")
}

/// The three-game corpus of the model tests (see there for its codes worked by hand).
fn model() -> Model {
    let mut model = Model::new(LearnOptions::default());
    for line in ["7g7f 3c3d 6g6f", "7g7f 8c8d", "2g2f 3c3d"] {
        model
            .learn_game("startpos", &moves(line), None)
            .expect("replays");
    }
    model
}

#[test]
fn rank_statistics_count_ties_exactly() {
    // Alone at the top.
    let top = RankStat {
        better: 0,
        tied: 1,
        legal: 30,
    };
    assert_eq!(top.expected_rank(), 1.0);
    assert_eq!(top.normalised(), 0.0);
    assert_eq!(top.hit(1), 1.0);
    assert_eq!(top.decile(), 0);
    // Two moves better, tied with three others (four in all): ranks 3..=6, expected 4.5.
    let s = RankStat {
        better: 2,
        tied: 4,
        legal: 11,
    };
    assert_eq!(s.expected_rank(), 4.5);
    assert_eq!(s.normalised(), 0.35);
    assert_eq!(s.decile(), 3);
    assert_eq!(
        [s.hit(1), s.hit(2), s.hit(3), s.hit(4), s.hit(6), s.hit(10)],
        [0.0, 0.0, 0.25, 0.5, 1.0, 1.0]
    );
    // Last of all.
    let last = RankStat {
        better: 10,
        tied: 1,
        legal: 11,
    };
    assert_eq!(last.normalised(), 1.0);
    assert_eq!(last.decile(), 9);
    // One legal move.
    let only = RankStat {
        better: 0,
        tied: 1,
        legal: 1,
    };
    assert_eq!((only.normalised(), only.hit(1)), (0.0, 1.0));
}

#[test]
fn chance_baseline_is_exact_on_known_legal_move_counts() {
    // The start position has 30 legal moves; the position after 7g7f as well.
    let start = Position::startpos();
    let empty = Model::default();
    let r = Ranking::of_position(&empty, &start);
    assert_eq!(r.legal(), 30);
    assert_eq!(chance(5, 30), 1.0 / 6.0);
    assert_eq!(chance(1, 30), 1.0 / 30.0);
    assert_eq!(chance(40, 30), 1.0);
    assert_eq!(chance(5, 0), 0.0);
    // Sente's king on 9e and a pawn on 5g: six legal moves.
    let six = position("sfen 4k4/9/9/9/K8/9/4P4/9/9 b - 1");
    assert_eq!(Ranking::of_position(&empty, &six).legal(), 6);
    assert_eq!(chance(5, 6), 5.0 / 6.0);
    // The mean over positions, as the evaluation reports it: (1/6 + 5/6) / 2 = 1/2.
    let mean = [30, 6].iter().map(|&l| chance(5, l)).sum::<f64>() / 2.0;
    assert_eq!(mean, 0.5);
    // An empty model scores every move the same: every move's expected top-k hit is the
    // chance baseline exactly, for every setting.
    for setting in Setting::ALL {
        for m in r.moves() {
            let stat = r.rank_of(m.mv, setting).expect("legal");
            assert_eq!((stat.better, stat.tied, stat.legal), (0, 30, 30));
            assert_eq!(stat.hit(5), chance(5, 30));
            assert_eq!(stat.expected_rank(), 15.5);
            assert_eq!(stat.normalised(), 0.5);
        }
    }
}

/// After 7g7f 3c3d (previous moves Z, then X), by hand from the model tests' codes:
/// 6g6f is U, seen once after Z and once two after X, making A_U once: v = (1, 1, 1);
/// 2g2f here is Y again (its file and the squares around are untouched), never after Z or
/// two after X, but it made A_Y both times Y was played: v = (0, 0, 1). Every other move
/// has a code the corpus never learned: v = (0, 0, 0).
#[test]
fn ranking_after_7g7f_3c3d_by_hand() {
    let model = model();
    let pos = position("startpos moves 7g7f 3c3d");
    let r = Ranking::of_position(&model, &pos);
    let legal = pos.legal_moves().len();
    assert_eq!(r.legal(), legal);
    let u = mv(&pos, "6g6f");
    let y = mv(&pos, "2g2f");
    let values = |m: Move| {
        let s = r.moves().iter().find(|s| s.mv == m).expect("legal");
        s.full
    };
    assert_eq!(values(u), [1.0, 1.0, 1.0]);
    assert_eq!(values(y), [0.0, 0.0, 1.0]);
    for s in r.moves() {
        if s.mv != u && s.mv != y {
            assert_eq!(s.full, [0.0; 3], "{}", s.mv);
        }
    }
    // d (4, 2, 1): U 7, Y 1, the rest 0.
    assert_eq!(
        r.rank_of(u, Setting::D),
        Some(RankStat {
            better: 0,
            tied: 1,
            legal
        })
    );
    assert_eq!(
        r.rank_of(y, Setting::D),
        Some(RankStat {
            better: 1,
            tied: 1,
            legal
        })
    );
    let other = mv(&pos, "1g1f");
    assert_eq!(
        r.rank_of(other, Setting::D),
        Some(RankStat {
            better: 2,
            tied: legal - 2,
            legal
        })
    );
    // b (0, 0, 1): U and Y tie at 1.
    let tie = r.rank_of(u, Setting::B).expect("legal");
    assert_eq!((tie.better, tie.tied), (0, 2));
    assert_eq!((tie.expected_rank(), tie.hit(1)), (1.5, 0.5));
    // e: U (2·2·2) = 8, Y 2, the rest 1.
    assert_eq!(
        r.moves()
            .iter()
            .find(|s| s.mv == u)
            .map(|s| s.score(Setting::E)),
        Some(8.0)
    );
    // The player's order: ties by USI text, so b puts 2g2f before 6g6f.
    assert_eq!(r.top(Setting::D, 2), vec![u, y]);
    assert_eq!(r.top(Setting::B, 2), vec![y, u]);
    assert_eq!(r.best(Setting::D), Some(u));
    let intuition = Intuition::new(&model, Setting::D);
    assert_eq!(intuition.best(&pos), Some(u));
    assert_eq!(intuition.top(&pos, 2), vec![u, y]);
    let scored = intuition.scored(&pos);
    assert_eq!(scored.len(), legal);
    assert_eq!(&scored[..2], &[(u, 7.0), (y, 1.0)]);
    // Moves past the tied 0s come in USI order.
    let rest: Vec<String> = scored[2..].iter().map(|(m, _)| m.to_usi()).collect();
    let mut sorted = rest.clone();
    sorted.sort();
    assert_eq!(rest, sorted);
    assert_eq!(
        r.rank_of(mv(&Position::startpos(), "7g7f"), Setting::D),
        None
    );
}

#[test]
fn rank_game_visits_the_positions_the_seed_evaluates_with_the_walks_codes() {
    let model = model();
    let line = moves("7g7f 3c3d 6g6f");
    let mut seen = Vec::new();
    rank_game(&model, "startpos", &line, |ply, ranking| {
        let stat = ranking.rank_of(ply.played, Setting::D).expect("legal");
        // The ranking starts from the same codes the walk gave the move.
        let scored = ranking
            .moves()
            .iter()
            .find(|s| s.mv == ply.played)
            .expect("played");
        assert_eq!(scored.encoded, ply.encoded);
        seen.push((ply.index, ply.played.to_usi(), stat.better));
    })
    .expect("replays");
    // 7g7f is the most common first move (2 of 3): best; 3c3d after 7g7f was seen once as was
    // 8c8d (Y, whose p' was seen twice): Y ranks first under d (v = (1/2, 1/3, 1) against
    // (1/2, 1/6, 1)); 6g6f is U: first.
    assert_eq!(
        seen,
        vec![
            (0, "7g7f".to_string(), 0),
            (1, "3c3d".to_string(), 1),
            (2, "6g6f".to_string(), 0)
        ]
    );
    // The ranking of a position on its own (its history giving the previous moves) is the
    // same as the walk's.
    let pos = position("startpos moves 7g7f 3c3d");
    let alone = Ranking::of_position(&model, &pos);
    let mut walked = None;
    rank_game(&model, "startpos", &line, |ply, ranking| {
        if ply.index == 2 {
            walked = Some(ranking.clone());
        }
    })
    .expect("replays");
    assert_eq!(walked, Some(alone));
}
