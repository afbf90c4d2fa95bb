//! Behaviour of the search on positions whose right answer is known by construction.

use super::*;
use rsshogi::board::{Position, position_from_sfen};
use rsshogi::types::Move32;

fn pos(sfen: &str) -> Position {
    let mut p = position_from_sfen(sfen).expect("test sfen");
    p.init_stack();
    p
}

fn engine_with(settings: EngineSettings) -> Engine {
    Engine::new(EngineSettings {
        hash_mb: 8,
        ..settings
    })
}

fn search(engine: &mut Engine, p: &Position, limits: Limits) -> CoreResult {
    engine.search_core(p, &limits, &StopFlag::new(), &mut |_| {})
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn play(p: &Position, mv: Move32) -> Position {
    let mut next = p.clone();
    next.apply_move32(mv);
    next
}

#[test]
fn finds_mate_in_one() {
    // Gote king on 5a, a Sente gold on 5c and one in hand: G*5b mates.
    let p = pos("4k4/9/4G4/9/9/9/9/9/4K4 b G2r2b2g4s4n4l18p 1");
    let r = search(&mut engine_with(EngineSettings::default()), &p, depth(3));
    let best = r.best.expect("a move");
    assert!(play(&p, best).is_mated(), "{} does not mate", best.to_usi());
    assert_eq!(mate_plies(r.value), 1);
}

#[test]
fn finds_mate_in_three() {
    // A mate in 3 and not in 1 (checked independently with cshogi's `mate_move(3)`, which
    // finds G*2c): the search must report a mate in at most 5 plies and play a move after
    // which every defence still loses to a mate.
    let p = pos("7nl/7k1/9/7P1/9/9/9/9/K8 b 2GS2r2b2g3s3n3l17p 1");
    let r = search(&mut engine_with(EngineSettings::default()), &p, depth(6));
    assert!(r.value >= MATE_IN_MAX, "no mate found: value {}", r.value);
    let plies = mate_plies(r.value);
    assert!(plies <= 5 && plies % 2 == 1, "mate in {plies}");
    let best = r.best.expect("a move");
    let after = play(&p, best);
    let mut replies = rsshogi::board::Move32List::new();
    rsshogi::board::generate_legal_all_move32(&after, &mut replies);
    assert!(!replies.is_empty() || after.is_mated());
    for &reply in replies.iter() {
        let next = play(&after, reply);
        let mut engine = engine_with(EngineSettings::default());
        let r2 = search(&mut engine, &next, depth(4));
        assert!(
            r2.value >= MATE_IN_MAX,
            "after {} {} no mate",
            best.to_usi(),
            reply.to_usi()
        );
    }
}

#[test]
fn never_plays_a_pawn_drop_mate() {
    // P*1b would mate (king 1a, gold 2c covers 1b and 2b, knight 3c covers 2a): illegal.
    let p = pos("8k/9/6NG1/9/9/9/9/9/K8 b Pr2b3g4s3n4l17p 1");
    let illegal = p.move32_from_usi("P*1b");
    assert!(
        illegal.is_none_or(|m| !p.is_legal_move32(m)),
        "the position must make P*1b illegal"
    );
    let r = search(&mut engine_with(EngineSettings::default()), &p, depth(5));
    let best = r.best.expect("a move");
    assert_ne!(best.to_usi(), "P*1b");
    assert!(p.is_legal_move32(best));
    assert_ne!(
        mate_plies(r.value),
        1,
        "claims a mate in one that does not exist"
    );
}

#[test]
fn a_pawn_push_mate_is_played() {
    // Same net, but the pawn is on the board: 1c1b is a legal mate.
    let p = pos("8k/9/6NGP/9/9/9/9/9/K8 b r2b3g4s3n4l17p 1");
    let r = search(&mut engine_with(EngineSettings::default()), &p, depth(3));
    let best = r.best.expect("a move");
    assert!(play(&p, best).is_mated(), "{} does not mate", best.to_usi());
    assert_eq!(mate_plies(r.value), 1);
}

#[test]
fn mated_position_has_no_move() {
    // Gote to move, mated by the gold on 5b supported from 5c.
    let p = pos("4k4/4G4/4G4/9/9/9/9/9/4K4 w 2r2b2g4s4n4l18p 2");
    assert!(p.is_mated());
    let r = search(&mut engine_with(EngineSettings::default()), &p, depth(3));
    assert!(r.best.is_none());
}

#[test]
fn wins_hanging_material() {
    // Gote's rook on 5e hangs to Sente's bishop on 1a? No: to the rook on 5h along the file.
    let p = pos("4k4/9/9/9/4r4/9/9/4R4/4K4 b 2b4g4s4n4l18p 1");
    let r = search(&mut engine_with(EngineSettings::default()), &p, depth(4));
    assert_eq!(r.best.expect("a move").to_usi(), "5h5e");
}

#[test]
fn same_settings_and_seed_replay_exactly() {
    let start = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let settings = EngineSettings {
        noise_sd_cp: 80.0,
        noise_seed: 42,
        ..EngineSettings::default()
    };
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let a = search(&mut engine_with(settings.clone()), &start, limits.clone());
    let b = search(&mut engine_with(settings), &start, limits);
    assert_eq!(a.best, b.best);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.pv, b.pv);
    assert_eq!(a.value, b.value);
}

#[test]
fn noise_seeds_change_choices() {
    // With strong noise, different seeds perceive the opening differently and pick different
    // moves; without noise the choice does not depend on the seed at all.
    let start = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    let mut noisy = std::collections::HashSet::new();
    let mut quiet = std::collections::HashSet::new();
    for seed in 0..12 {
        let s = EngineSettings {
            noise_sd_cp: 150.0,
            noise_seed: seed,
            ..EngineSettings::default()
        };
        noisy.insert(search(&mut engine_with(s), &start, limits.clone()).best);
        let s = EngineSettings {
            noise_sd_cp: 0.0,
            noise_seed: seed,
            ..EngineSettings::default()
        };
        quiet.insert(search(&mut engine_with(s), &start, limits.clone()).best);
    }
    assert!(
        noisy.len() >= 3,
        "only {} distinct moves across seeds",
        noisy.len()
    );
    assert_eq!(quiet.len(), 1);
}

#[test]
fn multipv_gives_distinct_moves_ordered_by_score() {
    let start = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let mut engine = engine_with(EngineSettings {
        multipv: 4,
        ..EngineSettings::default()
    });
    let mut last: Vec<(usize, i32, String)> = Vec::new();
    let mut max_depth = 0;
    let r = engine.search_core(&start, &depth(4), &StopFlag::new(), &mut |line| {
        if line.depth > max_depth {
            max_depth = line.depth;
            last.clear();
        }
        last.push((line.multipv, line.value, line.pv[0].to_usi()));
    });
    assert_eq!(last.len(), 4, "{last:?}");
    let firsts: std::collections::HashSet<&String> = last.iter().map(|l| &l.2).collect();
    assert_eq!(firsts.len(), 4, "{last:?}");
    for w in last.windows(2) {
        assert_eq!(w[0].0 + 1, w[1].0);
        assert!(w[0].1 >= w[1].1, "{last:?}");
    }
    assert_eq!(r.best.expect("move").to_usi(), last[0].2);
}

#[test]
fn node_limit_is_respected() {
    let start = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let r = search(
        &mut engine_with(EngineSettings::default()),
        &start,
        Limits {
            nodes: Some(5_000),
            ..Limits::default()
        },
    );
    assert!(r.nodes <= 5_000, "{}", r.nodes);
    assert!(r.best.is_some());
}

#[test]
fn stop_flag_ends_an_infinite_search() {
    let start = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let stop = StopFlag::new();
    let mut engine = engine_with(EngineSettings::default());
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let r = std::thread::scope(|s| {
        let stopper = stop.clone();
        s.spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stopper.stop();
        });
        engine.search_core(&start, &limits, &stop, &mut |_| {})
    });
    assert!(r.best.is_some());
}

#[test]
fn leaves_are_counted_from_sentes_view_whoever_is_to_move() {
    // Gote without rook and bishop, gote to move: nearly every leaf is good for sente.
    let gote_short = pos("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    // Sente without them, sente to move: nearly none is.
    let sente_short = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/9/LNSGKGSNL b - 1");
    for (p, good_for_sente) in [(gote_short, true), (sente_short, false)] {
        let r = search(&mut engine_with(EngineSettings::default()), &p, depth(4));
        let ratio = r.leaves.ratio().expect("some leaves");
        assert!(r.leaves.leaves > 100, "{:?}", r.leaves);
        assert!(
            if good_for_sente {
                ratio > 0.9
            } else {
                ratio < 0.1
            },
            "{}: {:?}",
            p.to_sfen(None),
            r.leaves
        );
    }
}

/// Frontier nodes and check extensions of a fresh depth-`d` search of `p`, measuring or not.
fn frontier_and_extensions(p: &Position, d: i32, measure: bool) -> (u64, u64) {
    let mut engine = engine_with(EngineSettings::default());
    let limits = CoreLimits::to_depth(d, measure);
    let mut s = Searcher::new(
        p.clone(),
        &mut engine.tt,
        &mut engine.heur,
        Noise::default(),
        Flags::default(),
        limits,
    );
    let _ = s.run(&mut |_| {});
    (s.frontier, s.extensions)
}

#[test]
fn measuring_mode_has_no_check_extension() {
    // Root: sente is in check from the rook on 5a; R*5e blocks it and checks the king on 9e
    // (a root extension in play). Deeper: the bench's tactical middle game, full of checks.
    let root_check = pos("4r4/9/9/9/k8/9/9/9/4K4 b R2b4g4s4n4l18p 1");
    let checks = pos("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1");
    for (p, d) in [(&root_check, 1), (&checks, 4)] {
        let (measured, none) = frontier_and_extensions(p, d, true);
        let (played, some) = frontier_and_extensions(p, d, false);
        assert_eq!(none, 0, "{}", p.to_sfen(None));
        assert!(some > 0, "{}", p.to_sfen(None));
        assert_ne!(measured, played, "{}", p.to_sfen(None));
    }
    // At depth 1 every root move's reply is a frontier node, entered once, or twice when PVS
    // re-searches it.
    let mut legal = rsshogi::board::Move32List::new();
    rsshogi::board::generate_legal_all_move32(&root_check, &mut legal);
    let moves = legal.len() as u64;
    let (measured, _) = frontier_and_extensions(&root_check, 1, true);
    assert!(
        (moves..=2 * moves).contains(&measured),
        "{measured} for {moves} moves"
    );
}

#[test]
fn the_frontier_counts_entries_into_quiescence_not_the_nodes_inside() {
    // A tactical middle game (bench position 3): captures everywhere, so quiescence searches
    // below the frontier. At depth 1 each root move's reply is a frontier node, entered once,
    // or twice when PVS re-searches it with the full window.
    let p = pos("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1");
    let mut legal = rsshogi::board::Move32List::new();
    rsshogi::board::generate_legal_all_move32(&p, &mut legal);
    let mut engine = engine_with(EngineSettings::default());
    let limits = CoreLimits::to_depth(1, true);
    let mut s = Searcher::new(
        p.clone(),
        &mut engine.tt,
        &mut engine.heur,
        Noise::default(),
        Flags::default(),
        limits,
    );
    let r = s.run(&mut |_| {});
    let moves = legal.len() as u64;
    assert!(
        (moves..=2 * moves).contains(&s.frontier),
        "{} frontier nodes for {moves} moves",
        s.frontier
    );
    // Quiescence went below the frontier (nodes past the root moves): not counted there.
    assert!(r.nodes > moves, "{} nodes", r.nodes);
    // One quiescence search of the root alone (the bishops can be exchanged): one entry,
    // however many nodes it visits.
    let mut fresh = engine_with(EngineSettings::default());
    let mut s = Searcher::new(
        pos("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"),
        &mut fresh.tt,
        &mut fresh.heur,
        Noise::default(),
        Flags::default(),
        limits,
    );
    let _ = s.quiescence();
    assert_eq!(s.frontier, 1);
    assert!(s.nodes > 1, "{} nodes", s.nodes);
}

mod restricted_root {
    use super::*;
    use crate::position::Position as Game;
    use crate::position::attacks::test_support::random_game;
    use proptest::prelude::*;

    fn moves(p: &Game, texts: &[&str]) -> Vec<Move> {
        texts
            .iter()
            .map(|t| p.parse_usi_move(t).expect("legal"))
            .collect()
    }

    /// Searches `p` with `searchmoves`, returning the result and the first move of every line
    /// of every iteration.
    fn restricted(
        p: &Game,
        only: Option<Vec<Move>>,
        multipv: usize,
        limits: Limits,
    ) -> (SearchResult, Vec<Move>) {
        let mut engine = engine_with(EngineSettings {
            multipv,
            ..EngineSettings::default()
        });
        let mut firsts = Vec::new();
        let r = engine.search(
            p,
            &Limits {
                searchmoves: only,
                ..limits
            },
            &StopFlag::new(),
            &mut |info: &SearchInfo| firsts.push(info.pv[0]),
        );
        (r, firsts)
    }

    #[test]
    fn searchmoves_keep_the_search_inside_the_list_even_when_the_best_move_is_outside() {
        // Unrestricted, sente takes the hanging rook (5h5e); told to search two king moves
        // only, it plays one of them, and MultiPV 4 reports just those two lines.
        let p = Game::from_sfen("4k4/9/9/9/4r4/9/9/4R4/4K4 b 2b4g4s4n4l18p 1").expect("sfen");
        let (free, _) = restricted(&p, None, 1, depth(4));
        assert_eq!(free.best, BestMove::Move(moves(&p, &["5h5e"])[0]));
        let only = moves(&p, &["5i4i", "5i6i"]);
        let (r, firsts) = restricted(&p, Some(only.clone()), 4, depth(4));
        let BestMove::Move(best) = r.best else {
            panic!("{:?}", r.best)
        };
        assert!(only.contains(&best), "{best}");
        assert!(firsts.iter().all(|m| only.contains(m)), "{firsts:?}");
        let at_depth_4: Vec<&Move> = firsts.iter().rev().take(2).collect();
        assert_eq!(at_depth_4.len(), 2);
        assert_ne!(at_depth_4[0], at_depth_4[1]);
    }

    #[test]
    fn searchmoves_without_a_legal_move_search_every_move() {
        let p = Game::from_sfen("4k4/9/9/9/4r4/9/9/4R4/4K4 b 2b4g4s4n4l18p 1").expect("sfen");
        // 7g7f is a move of another position: not legal here, so nothing restricts.
        let elsewhere = Game::startpos().parse_usi_move("7g7f").expect("legal");
        let (r, _) = restricted(&p, Some(vec![elsewhere]), 1, depth(4));
        assert_eq!(r.best, BestMove::Move(moves(&p, &["5h5e"])[0]));
        // An empty list likewise.
        let (r, _) = restricted(&p, Some(Vec::new()), 1, depth(4));
        assert_eq!(r.best, BestMove::Move(moves(&p, &["5h5e"])[0]));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// On positions of random games and random subsets of their legal moves, the best move
        /// and every reported line (MultiPV 3) start with a listed move.
        #[test]
        fn a_restricted_search_never_leaves_the_list(
            seed in any::<u64>(),
            plies in 0usize..80,
            pick in proptest::collection::vec(any::<prop::sample::Index>(), 1..4),
        ) {
            let p = random_game(seed, plies);
            let legal = p.legal_moves();
            prop_assume!(!legal.is_empty());
            let only: Vec<Move> = pick.iter().map(|i| legal[i.index(legal.len())]).collect();
            let limits = Limits { nodes: Some(3_000), ..Limits::default() };
            let (r, firsts) = restricted(&p, Some(only.clone()), 3, limits);
            match r.best {
                BestMove::Move(m) => prop_assert!(only.contains(&m), "{} not in {:?}", m, only),
                BestMove::Win => {}
                BestMove::Resign => prop_assert!(false, "resigned with legal moves"),
            }
            for m in firsts {
                prop_assert!(only.contains(&m), "line starting {} not in {:?}", m, only);
            }
        }
    }
}
