//! The opening family (戦型) of a finished game: the one place a results line is labelled, so
//! `summary.json`, the closing table, `council-elo --by family` and the live page all put every
//! game in the same row.
//!
//! A game's family is the label of its own record, as GUIs label a record by its opening: its
//! start and its moves (opening moves included), replayed up to [`OPENING_PLIES`] moves (or
//! fewer when the game is shorter) and read by [`engine::strategy::label`]. Computed from the
//! line alone, so runs written by older builds are labelled the same way (no key is stored in
//! `results.jsonl`).
//!
//! A game has no family ([`family`] is `None`, its row is [`UNLABELLED`]) when its record cannot
//! be replayed (a start that is not a position, an illegal move within the opening plies) or
//! when it starts from a handicap position: the labeller's rules read both sides' full sets, and
//! a handicap start (the `handicap` key, or fewer than the 40 pieces on board and in hand) is
//! not one the labeller can read. Such games are counted in the `unlabelled` row, never dropped.

use engine::position::Position;
use engine::position::replay;
use engine::strategy::{Family, OPENING_PLIES, label};
use engine::types::{Color, PieceKind, Square};

use super::GameResult;

/// The row of the games that have no family.
pub const UNLABELLED: &str = "unlabelled";

/// Pieces of an even game: board and hands together.
const FULL_SET: u32 = 40;

/// `game`'s opening family, or `None` when its record cannot be labelled (see the module doc).
#[must_use]
pub fn family(game: &GameResult) -> Option<Family> {
    if game.handicap.is_some() {
        return None;
    }
    let opening = &game.moves[..game.moves.len().min(OPENING_PLIES)];
    let position = replay(&game.start, opening).ok()?.finish().ok()?;
    family_after_opening(game, &position)
}

/// What [`family`] finds, given the position it replays: `after_opening` is `game`'s start
/// with its first [`OPENING_PLIES`] moves played on it (all of them when fewer), e.g. by a walk
/// through the game that has judged them anyway (the run's records).
#[must_use]
pub fn family_after_opening(game: &GameResult, after_opening: &Position) -> Option<Family> {
    if game.handicap.is_some() || pieces(after_opening) < FULL_SET {
        return None;
    }
    Some(label(after_opening).family())
}

/// The key of `game`'s row: its family's key, or [`UNLABELLED`].
#[must_use]
pub fn family_key(game: &GameResult) -> String {
    row_key(family(game))
}

/// The key of the row of a game of `family`: the family's key, or [`UNLABELLED`].
#[must_use]
pub fn row_key(family: Option<Family>) -> String {
    family.map_or_else(|| UNLABELLED.to_owned(), Family::key)
}

/// The Japanese name of a row key (a family's, or 未分類 for [`UNLABELLED`]); the key itself when
/// it is neither.
#[must_use]
pub fn row_name_ja(key: &str) -> String {
    if key == UNLABELLED {
        return "未分類".to_owned();
    }
    key.parse::<Family>()
        .map_or_else(|_| key.to_owned(), Family::name_ja)
}

/// The order rows are shown in: the families in [`Family::all`]'s order, then [`UNLABELLED`],
/// then anything else by name.
#[must_use]
pub fn row_order(key: &str) -> (usize, String) {
    let families = Family::all();
    let rank = key
        .parse::<Family>()
        .ok()
        .and_then(|f| families.iter().position(|g| *g == f))
        .unwrap_or(if key == UNLABELLED {
            families.len()
        } else {
            families.len() + 1
        });
    (rank, key.to_owned())
}

/// Pieces on the board and in both hands.
fn pieces(position: &Position) -> u32 {
    let board = Square::all()
        .filter(|&s| position.piece_at(s).is_some())
        .count() as u32;
    let hands: u32 = Color::BOTH
        .iter()
        .flat_map(|&c| PieceKind::HAND.map(|k| position.hand_count(c, k)))
        .sum();
    board + hands
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::position::Handicap;
    use engine::strategy::RangingFile;

    fn game(start: &str, moves: &str) -> GameResult {
        serde_json::from_value(serde_json::json!({
            "id": 0, "sente": "s", "gote": "g", "start": start,
            "moves": moves.split_whitespace().collect::<Vec<_>>(),
            "result": "draw", "reason": "max_plies", "plies": 0,
        }))
        .expect("a results line")
    }

    const EVEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    #[test]
    fn the_family_after_a_walk_is_the_family_of_the_replay() {
        let mut long = String::from("7g7f 3c3d");
        for _ in 0..19 {
            long.push_str(" 4i4h 6a6b 4h4i 6b6a");
        }
        long.push_str(" 2h5h");
        let games = [
            game(EVEN, ""),
            game(EVEN, "7g7f 3c3d 6g6f 8c8d 2h6h 8d8e 8h7g 7a6b"),
            game(
                EVEN,
                "2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g",
            ),
            game(EVEN, &long),
            game(Handicap::Lance.sfen(), "3c3d 7g7f"),
        ];
        let labelled = games.iter().filter(|g| family(g).is_some()).count();
        assert!(labelled >= 3, "{labelled} of the games are labelled");
        for g in &games {
            // The walk: every move judged and played, the position taken after the opening's.
            let mut position = replay(&g.start, &g.moves[..0])
                .expect("a start")
                .finish()
                .expect("no moves");
            let mut after_opening = (g.moves.is_empty()).then(|| position.clone());
            for (i, text) in g.moves.iter().enumerate() {
                position.play_usi_move(text).expect("a legal move");
                if i + 1 == g.moves.len().min(OPENING_PLIES) {
                    after_opening = Some(position.clone());
                }
            }
            let after_opening = after_opening.expect("the opening was walked");
            assert_eq!(
                family_after_opening(g, &after_opening),
                family(g),
                "{:?}",
                g.moves
            );
        }
    }

    #[test]
    fn both_static_rooks_are_static_vs_static() {
        // 相掛かり: both rooks advance their pawns and stay home.
        let g = game(
            EVEN,
            "2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g",
        );
        assert_eq!(family(&g), Some(Family::StaticVsStatic));
        assert_eq!(family_key(&g), "static-vs-static");
    }

    #[test]
    fn a_ranging_rook_is_found_whichever_side_ranges() {
        // Sente's 四間飛車: ▲6八飛.
        let sente = game(EVEN, "7g7f 3c3d 6g6f 8c8d 2h6h 8d8e 8h7g 7a6b");
        // Gote's 四間飛車: △4二飛, the same file counted from gote's left.
        let gote = game(EVEN, "7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 8b4b");
        let four = Some(Family::StaticVsRanging(RangingFile::FourthFile));
        assert_eq!((family(&sente), family(&gote)), (four, four));
        // And the start given as `startpos`, as older lines and tests write it.
        let startpos = game("startpos", "7g7f 3c3d 6g6f 8c8d 2h6h");
        assert_eq!(family(&startpos), four);
    }

    #[test]
    fn a_rook_that_ranges_after_the_opening_plies_does_not_count() {
        // 40 moves of shuffling golds and kings with both rooks at home, then ▲5八飛.
        let mut moves = String::from("7g7f 3c3d");
        for _ in 0..19 {
            moves.push_str(" 4i4h 6a6b 4h4i 6b6a");
        }
        // 2 + 76 plies; the rook swing is move 79.
        moves.push_str(" 2h5h");
        let g = game(EVEN, &moves);
        assert!(g.moves.len() > OPENING_PLIES);
        assert_eq!(family(&g), Some(Family::StaticVsStatic));
        // The same swing inside the opening does.
        let early = game(EVEN, "7g7f 3c3d 2h5h");
        assert_eq!(
            family(&early),
            Some(Family::StaticVsRanging(RangingFile::Central))
        );
    }

    #[test]
    fn handicap_starts_and_broken_records_are_unlabelled() {
        let lance = Handicap::Lance.sfen();
        // By the handicap key ...
        let mut keyed = game(lance, "3c3d");
        keyed.handicap = Some("lance".into());
        assert_eq!(family(&keyed), None);
        // ... and by the missing pieces, when only the SFEN says so.
        let bare = game(lance, "3c3d 7g7f");
        assert_eq!(family_key(&bare), UNLABELLED);
        // An illegal move inside the opening plies.
        assert_eq!(family(&game(EVEN, "7g7f 7g7f")), None);
        // A start that is not a position.
        assert_eq!(family(&game("not a position", "")), None);
        // An illegal move after the opening plies does not matter: the opening is readable.
        let mut moves = String::from("7g7f 3c3d");
        for _ in 0..10 {
            moves.push_str(" 4i4h 6a6b 4h4i 6b6a");
        }
        moves.push_str(" 9a9a");
        assert_eq!(family(&game(EVEN, &moves)), Some(Family::StaticVsStatic));
    }

    #[test]
    fn rows_are_named_and_ordered() {
        assert_eq!(row_name_ja("static-vs-static"), "相居飛車");
        assert_eq!(row_name_ja(UNLABELLED), "未分類");
        let mut keys = vec![
            UNLABELLED.to_owned(),
            "ranging-vs-ranging".to_owned(),
            "static-vs-ranging:central".to_owned(),
            "static-vs-static".to_owned(),
        ];
        keys.sort_by_key(|k| row_order(k));
        assert_eq!(
            keys,
            [
                "static-vs-static",
                "static-vs-ranging:central",
                "ranging-vs-ranging",
                UNLABELLED
            ]
        );
    }
}
