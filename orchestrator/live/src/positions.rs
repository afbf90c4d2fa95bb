//! A finished game as the replay shows it: the position after each ply and each move in KIF
//! notation, computed here by the engine's own rules, so the page's script needs none.

use engine::position::replay;
use engine::record::kif_move;
use serde::Serialize;

use council_schema::results::GameResult;

/// The replay of a finished game: `sfens[k]` is the position after `k` moves (`sfens[0]` the
/// start) and `kif[k]` the move from `sfens[k]` in KIF notation (`７六歩(77)`, `同　銀(31)`,
/// `４五角打`), without the side's mark. Both stop at a move the rules reject (a line from a
/// broken file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Positions {
    pub sfens: Vec<String>,
    pub kif: Vec<String>,
}

/// The positions and KIF moves of a finished game (see [`Positions`]).
pub fn positions(game: &GameResult) -> Positions {
    let Ok(mut replayed) = replay(&game.start, &game.moves) else {
        return Positions::default();
    };
    let mut out = Positions {
        sfens: Vec::with_capacity(game.moves.len() + 1),
        kif: Vec::with_capacity(game.moves.len()),
    };
    out.sfens.push(replayed.position().to_sfen());
    while let Some(Ok(mv)) = replayed.peek() {
        // A legal move always has its KIF text; its USI text stands in if it ever had none.
        let text = kif_move(replayed.position(), mv).unwrap_or_else(|| mv.to_usi());
        out.kif.push(text);
        let _ = replayed.step();
        out.sfens.push(replayed.position().to_sfen());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::position::Position;

    #[test]
    fn one_position_and_one_kif_move_per_ply_by_the_engines_rules() {
        let start = Position::startpos().to_sfen();
        let line = serde_json::json!({
            "id": 3, "sente": "a", "gote": "b", "start": start,
            "moves": ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"],
            "result": "draw", "reason": "max_plies", "plies": 5,
        });
        let game: GameResult = serde_json::from_value(line).expect("a results line");
        let mut p = Position::startpos();
        let mut expected = vec![p.to_sfen()];
        for m in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"] {
            let mv = p.parse_usi_move(m).expect("a legal move");
            p.play(mv);
            expected.push(p.to_sfen());
        }
        let shown = positions(&game);
        assert_eq!(shown.sfens, expected);
        assert_eq!(
            shown.kif,
            [
                "７六歩(77)",
                "３四歩(33)",
                "２二角成(88)",
                "同　銀(31)",
                "４五角打"
            ]
        );
    }

    #[test]
    fn a_move_the_rules_reject_ends_the_replay_there() {
        let line = serde_json::json!({
            "id": 1, "sente": "a", "gote": "b", "start": "startpos",
            "moves": ["7g7f", "7g7f", "3c3d"],
            "result": "draw", "reason": "max_plies", "plies": 3,
        });
        let game: GameResult = serde_json::from_value(line).expect("a results line");
        let shown = positions(&game);
        assert_eq!((shown.sfens.len(), shown.kif.len()), (2, 1));
    }
}
