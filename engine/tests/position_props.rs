//! Property tests of the facade along random games: the incremental hash equals the hash of
//! the same position set up afresh, play + undo restores the position, SFEN round-trips, and
//! move judgement agrees with the legal-move list (with a specific reason for every refusal).

use engine::position::{Handicap, IllegalReason, MoveError, Position};
use proptest::prelude::*;

fn start(choice: usize) -> Position {
    match choice % 3 {
        0 => Position::startpos(),
        1 => Position::handicap(Handicap::Bishop),
        _ => {
            Position::from_sfen("9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1").expect("sfen")
        }
    }
}

fn usi_text() -> impl Strategy<Value = String> {
    let square = (1u8..=9, b'a'..=b'i').prop_map(|(f, r)| format!("{f}{}", r as char));
    prop_oneof![
        (square.clone(), square.clone(), any::<bool>())
            .prop_filter("distinct squares", |(a, b, _)| a != b)
            .prop_map(|(a, b, p)| format!("{a}{b}{}", if p { "+" } else { "" })),
        (
            prop::sample::select(vec!['P', 'L', 'N', 'S', 'G', 'B', 'R']),
            square
        )
            .prop_map(|(p, s)| format!("{p}*{s}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn incremental_hash_play_undo_and_sfen_agree(start_choice in 0usize..3, picks in prop::collection::vec(any::<usize>(), 0..120)) {
        let mut pos = start(start_choice);
        let root = pos.clone();
        let mut keys = vec![pos.key()];
        for pick in &picks {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            pos.play(legal[pick % legal.len()]);
            let fresh = Position::from_sfen(&pos.to_sfen()).expect("our own SFEN parses");
            prop_assert_eq!(fresh.key(), pos.key(), "hash after {}", pos.to_usi_position());
            prop_assert_eq!(fresh.to_sfen(), pos.to_sfen());
            let again = Position::from_usi_position(&pos.to_usi_position()).expect("our own position line");
            prop_assert_eq!(again.key(), pos.key());
            keys.push(pos.key());
        }
        while pos.undo().is_some() {
            keys.pop();
            prop_assert_eq!(Some(&pos.key()), keys.last());
        }
        prop_assert_eq!(pos.to_sfen(), root.to_sfen());
        prop_assert_eq!(pos.key(), root.key());
    }

    #[test]
    fn judging_a_move_agrees_with_the_legal_list(start_choice in 0usize..3, picks in prop::collection::vec(any::<usize>(), 0..60), texts in prop::collection::vec(usi_text(), 1..40)) {
        let mut pos = start(start_choice);
        for pick in &picks {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            pos.play(legal[pick % legal.len()]);
        }
        let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_usi()).collect();
        for text in legal.iter().chain(&texts) {
            match pos.parse_usi_move(text) {
                Ok(mv) => prop_assert!(legal.contains(&mv.to_usi()) && mv.to_usi() == *text),
                Err(MoveError::Illegal { reason, .. }) => {
                    prop_assert!(!legal.contains(text), "{} refused: {}", text, reason);
                    prop_assert_ne!(reason, IllegalReason::Other, "{} in {}", text, pos.to_sfen());
                }
                Err(other) => prop_assert!(false, "{} is well-formed, got {}", text, other),
            }
        }
    }
}
