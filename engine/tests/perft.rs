//! The perft suite of `data/perft.txt`, run through the engine's perft (one harness, data in a
//! file). Counts up to a million nodes run in every build; deeper ones in release builds only.

mod common;

use engine::position::Position;

const SHALLOW_LIMIT: u64 = 1_000_000;

fn run(select: impl Fn(u64) -> bool) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in common::perft_cases() {
        let pos = Position::from_sfen(&case.sfen).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for (i, &expected) in case.counts.iter().enumerate() {
            if !select(expected) {
                continue;
            }
            let depth = u32::try_from(i + 1).expect("small depth");
            let got = engine::perft::perft(&pos, depth);
            checked += 1;
            if got != expected {
                failures.push(format!(
                    "{} depth {depth}: expected {expected}, got {got}",
                    case.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
    checked
}

#[test]
fn perft_suite_shallow() {
    assert!(run(|n| n <= SHALLOW_LIMIT) > 50);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft runs in release builds (cargo test --release)"
)]
fn perft_suite_deep() {
    assert!(run(|n| n > SHALLOW_LIMIT) >= 4);
}

#[test]
fn divide_sums_to_perft_and_lists_every_legal_move() {
    for case in common::perft_cases().iter().filter(|c| c.counts.len() >= 2) {
        let pos = Position::from_sfen(&case.sfen).expect("suite sfen");
        let split = engine::perft::divide(&pos, 2);
        assert_eq!(split.len() as u64, case.counts[0], "{}", case.name);
        assert_eq!(
            split.iter().map(|(_, n)| n).sum::<u64>(),
            case.counts[1],
            "{}",
            case.name
        );
        let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_usi()).collect();
        let mut listed: Vec<String> = split.iter().map(|(m, _)| m.to_usi()).collect();
        legal.sort();
        listed.sort();
        assert_eq!(legal, listed, "{}", case.name);
    }
}
