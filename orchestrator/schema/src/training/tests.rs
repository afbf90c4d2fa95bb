use std::collections::HashSet;

use super::write::Export;
use super::*;

/// A council (sente) against a single engine, from `startpos moves 7g7f` (one opening ply):
/// 3c3d (the council, +20) 2g2f (no score) 4c4d (the council, mate in 3), gote won. The
/// council's second move was voted by members a (4c4d, +50), b (4c4d, +30) and c (5c5d, -40).
fn game() -> GameResult {
    serde_json::from_value(serde_json::json!({
        "id": 3, "sente": "single", "gote": "council",
        "start": "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "moves": ["7g7f", "3c3d", "2g2f", "4c4d"],
        "result": "gote", "reason": "resign", "plies": 4,
        "times_ms": [10, 10, 10],
        "scores": [{"cp": 20}, null, {"mate": 3}],
        "votes": [
            {"ply": 1, "council": "council", "method": "majority", "chosen": "3c3d",
             "rule": "unanimous", "strongest": "a", "overrode_strongest": false,
             "members": [{"name": "a", "mv": "3c3d", "score": {"cp": 20}, "time_ms": 1},
                         {"name": "b", "mv": "3c3d", "score": {"cp": 10}, "time_ms": 1}]},
            {"ply": 3, "council": "council", "method": "majority", "chosen": "4c4d",
             "rule": "plurality", "strongest": "a", "overrode_strongest": false,
             "members": [{"name": "a", "mv": "4c4d", "score": {"cp": 50}, "time_ms": 1},
                         {"name": "b", "mv": "4c4d", "score": {"cp": 30}, "time_ms": 1},
                         {"name": "c", "mv": "5c5d", "score": {"cp": -40}, "time_ms": 1}]}
        ]
    }))
    .expect("a results line")
}

fn run(settings: Settings) -> (Vec<Vec<u8>>, Counts) {
    let mut got = Vec::new();
    let g = game();
    let counts = records(Game::of_result(&g), &settings, &mut HashSet::new(), |r| {
        got.push(r);
    })
    .expect("replays");
    (got, counts)
}

fn plain(settings: Settings) -> Vec<String> {
    let settings = Settings {
        format: Format::Sfen,
        ..settings
    };
    run(settings)
        .0
        .into_iter()
        .map(|r| String::from_utf8(r).expect("text"))
        .collect()
}

#[test]
fn every_scored_position_is_a_record_from_the_movers_view() {
    let got = plain(Settings::new(Format::Sfen));
    // 7g7f is the opening and 2g2f has no score: 3c3d and 4c4d remain.
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].contains("\nmove 3c3d\nscore 20\nply 2\nresult 1\n"),
        "{}",
        got[0]
    );
    // Gote's mate in 3 on the formats' scale; gote won.
    assert!(
        got[1].contains("\nmove 4c4d\nscore 31997\nply 4\nresult 1\n"),
        "{}",
        got[1]
    );
    let (_, counts) = run(Settings::new(Format::Psv));
    assert_eq!(
        (counts.positions, counts.written, counts.unscored),
        (4, 2, 2)
    );
}

#[test]
fn a_council_record_takes_the_score_it_is_asked_for() {
    let at = |choice| {
        plain(Settings {
            council_score: choice,
            ..Settings::new(Format::Sfen)
        })[1]
            .clone()
    };
    assert!(at(CouncilScore::Chosen).contains("score 31997\n"));
    // (50 + 30 - 40) / 3, rounded.
    assert!(at(CouncilScore::Mean).contains("score 13\n"));
    assert!(at(CouncilScore::Voters).contains("score 40\n"));
}

#[test]
fn filters_drop_positions_and_count_them() {
    let keep = Settings {
        keep_unscored: true,
        ..Settings::new(Format::Sfen)
    };
    assert_eq!(plain(keep).len(), 4);
    let (_, c) = run(Settings {
        skip_book: true,
        ..keep
    });
    assert_eq!((c.book, c.written), (1, 3));
    let (_, c) = run(Settings {
        max_score: Some(1000),
        ..keep
    });
    assert_eq!((c.beyond_max_score, c.written), (1, 3));
    let (_, c) = run(Settings {
        winner_only: true,
        ..keep
    });
    assert_eq!((c.not_winner, c.written), (2, 2));
}

#[test]
fn an_aborted_game_gives_no_record_and_a_broken_one_an_error() {
    let mut g = game();
    g.reason = Reason::Aborted;
    let mut seen = HashSet::new();
    let c = records(
        Game::of_result(&g),
        &Settings::new(Format::Psv),
        &mut seen,
        |_| {},
    )
    .expect("read");
    assert_eq!((c.games_without_result, c.written), (1, 0));
    let mut g = game();
    g.moves[2] = "2g2e".into();
    let err = records(
        Game::of_result(&g),
        &Settings::new(Format::Psv),
        &mut seen,
        |_| {},
    )
    .expect_err("refused");
    assert!(
        matches!(&err, GameError::Move(e) if e.number() == 3 && e.text == "2g2e"),
        "{err:?}"
    );
    assert!(err.to_string().contains("move 3 `2g2e`"), "{err}");
}

#[test]
fn dedup_and_the_shuffle_are_across_games_and_seeded() {
    let g = game();
    let settings = Settings {
        keep_unscored: true,
        dedup: true,
        ..Settings::new(Format::Psv)
    };
    let mut export = Export::new(settings);
    export.add(Game::of_result(&g)).expect("adds");
    export.add(Game::of_result(&g)).expect("adds");
    assert_eq!(
        (export.counts().written, export.counts().duplicates),
        (4, 4)
    );
    let mut all = Export::new(Settings {
        dedup: false,
        ..settings
    });
    for _ in 0..5 {
        all.add(Game::of_result(&g)).expect("adds");
    }
    let before = all.records().to_vec();
    all.shuffle(7);
    let once = all.records().to_vec();
    assert_ne!(once, before);
    let mut again = Export::new(Settings {
        dedup: false,
        ..settings
    });
    for _ in 0..5 {
        again.add(Game::of_result(&g)).expect("adds");
    }
    again.shuffle(7);
    assert_eq!(again.records(), &once[..]);
    let (mut a, mut b) = (before, once);
    a.sort();
    b.sort();
    assert_eq!(a, b);
}
