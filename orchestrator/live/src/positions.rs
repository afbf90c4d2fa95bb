//! The positions of a finished game, for the page's board: computed here by the engine's own
//! rules, so the page's script needs none.

use engine::position::replay;

use council_schema::results::GameResult;

/// The positions of a finished game, one SFEN per ply from the start (`sfens[k]` after `k`
/// moves), computed by the engine's own rules so the page needs none. Stops at a move the rules
/// reject (a line from a broken file).
pub fn positions(game: &GameResult) -> Vec<String> {
    let Ok(mut replayed) = replay(&game.start, &game.moves) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(game.moves.len() + 1);
    out.push(replayed.position().to_sfen());
    while let Some(Ok(_)) = replayed.step() {
        out.push(replayed.position().to_sfen());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::position::Position;

    #[test]
    fn one_position_per_ply_by_the_engines_rules() {
        let start = Position::startpos().to_sfen();
        let line = serde_json::json!({
            "id": 3, "sente": "a", "gote": "b", "start": start, "moves": ["7g7f", "3c3d"],
            "result": "draw", "reason": "max_plies", "plies": 2,
        });
        let game: GameResult = serde_json::from_value(line).expect("a results line");
        let mut p = Position::startpos();
        let mut expected = vec![p.to_sfen()];
        for m in ["7g7f", "3c3d"] {
            let mv = p.parse_usi_move(m).expect("a legal move");
            p.play(mv);
            expected.push(p.to_sfen());
        }
        assert_eq!(positions(&game), expected);
    }
}
