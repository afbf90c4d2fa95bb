//! What council-usi shows a GUI while it thinks and when it answers, as USI `info` lines.
//!
//! Why its own module: the choice of what goes where is the GUI's view of a council. The
//! council's own line goes out as ordinary `info` rows (`multipv 1, 2, ...` when the GUI asked
//! for MultiPV), because that is what every GUI reads as the engine's evaluation and plots:
//! ShogiHome takes the row without `multipv` or with `multipv 1` as the engine's score and pv,
//! and its "latest" pane keeps one row per `multipv` index and drops a row whose first move an
//! earlier row already shows. Members' lines therefore go out as `info string` rows naming the
//! member (as GougiShogi, the best-known consultation engine, shows each member in the GUI's pv
//! pane): as `multipv` rows they would be taken for the council's second and third choices, and
//! two members naming the same move would hide each other. A member's `info string` never holds
//! the word `pv`, so a parser that looks for ` pv ` anywhere (cshogi's `InfoListener`) does not
//! take it for the council's line. Invariants: every pv shown is cut before its first move that
//! is not legal, and the first row of a final answer is the move played.

use std::time::Duration;

use council_players::player::Thought;
use council_players::player::live::Line;
use council_schema::results::votes::CouncilVote;
use engine::position::{Position, Replay};
use engine::types::Score;
use engine::usi::protocol::{Info, InfoScore, ScoreBound};

/// `pv` cut before its first move that is not legal in `position`.
pub(crate) fn legal_moves_of(position: &Position, pv: &[String]) -> Vec<String> {
    Replay::new(position.clone(), pv)
        .play_while_legal()
        .iter()
        .map(|mv| mv.to_usi())
        .collect()
}

/// `pv` when it starts with `best`, cut before its first move that is not legal; else `best`.
pub(crate) fn legal_pv(position: &Position, best: &str, pv: &[String]) -> Vec<String> {
    if pv.first().map(String::as_str) != Some(best) {
        return vec![best.to_string()];
    }
    legal_moves_of(position, pv)
}

fn score(value: Score) -> InfoScore {
    InfoScore {
        value,
        bound: ScoreBound::Exact,
    }
}

fn nps(nodes: Option<u64>, time: Duration) -> Option<u64> {
    let ms = time.as_millis() as u64;
    nodes
        .filter(|_| ms > 0)
        .map(|n| n.saturating_mul(1000) / ms)
}

/// A row of the council's current ranking (or a single player's line) as an `info` line;
/// `None` when no move of its pv is legal. `multipv` is stated when the GUI asked for several.
pub(crate) fn row(position: &Position, line: &Line, several: bool) -> Option<Info> {
    let pv = legal_moves_of(position, &line.pv);
    if pv.is_empty() {
        return None;
    }
    Some(Info {
        depth: line.depth,
        time: Some(line.time.as_millis() as u64),
        nodes: line.nodes,
        nps: nps(line.nodes, line.time),
        multipv: several.then_some(line.multipv),
        score: line.score.map(score),
        pv,
        ..Info::default()
    })
}

/// A member's latest line as the text of an `info string`: `strong: 7g7f 3c3d 2g2f (depth 9,
/// cp 45, 123456 nodes)`.
pub(crate) fn member_text(position: &Position, name: &str, line: &Line) -> String {
    let moves = legal_moves_of(position, &line.pv);
    let mut about = Vec::new();
    if let Some(d) = line.depth {
        about.push(format!("depth {d}"));
    }
    if let Some(s) = line.score {
        about.push(s.to_string());
    }
    if let Some(n) = line.nodes {
        about.push(format!("{n} nodes"));
    }
    let moves = if moves.is_empty() {
        "(no legal move yet)".to_string()
    } else {
        moves.join(" ")
    };
    format!("{name}: {moves} ({})", about.join(", "))
}

/// The rows of a final answer: the move played with the thought's score, pv, depth, nodes and
/// time, then (with `n` > 1) the player's next moves from `thought.lines`, each with the pv and
/// depth of `board`'s row for it when there is one.
pub(crate) fn final_rows(
    position: &Position,
    best: &str,
    thought: &Thought,
    n: usize,
    board: &[Line],
) -> Vec<Info> {
    let several = n > 1;
    let time = thought.engine_time;
    let first = Info {
        depth: thought.depth,
        time: Some(time.as_millis() as u64),
        nodes: thought.nodes,
        nps: nps(thought.nodes, time),
        multipv: several.then_some(1),
        score: thought.eval.map(score),
        pv: legal_pv(position, best, &thought.pv),
        ..Info::default()
    };
    let mut rows = vec![first];
    if !several {
        return rows;
    }
    for (mv, eval) in thought.lines.iter().filter(|(mv, _)| mv != best) {
        if rows.len() == n {
            break;
        }
        if position.parse_usi_move(mv).is_err() {
            continue;
        }
        let line = board.iter().find(|l| l.pv.first() == Some(mv));
        let pv = line.map_or_else(|| vec![mv.clone()], |l| legal_pv(position, mv, &l.pv));
        rows.push(Info {
            depth: line.and_then(|l| l.depth),
            time: Some(time.as_millis() as u64),
            nodes: thought.nodes,
            nps: nps(thought.nodes, time),
            multipv: Some(rows.len() as u32 + 1),
            score: eval.map(score),
            pv,
            ..Info::default()
        });
    }
    rows
}

/// One council decision as `info string` texts: one per member, then the rule.
pub(crate) fn vote_lines(v: &CouncilVote) -> Vec<String> {
    let mut lines: Vec<String> = v
        .members
        .iter()
        .map(|m| match (&m.mv, &m.error) {
            (Some(mv), _) => {
                let score = m
                    .score
                    .map_or_else(|| "no score".to_string(), |e| e.to_string());
                let nodes = m.nodes.map(|n| format!(", {n} nodes")).unwrap_or_default();
                format!(
                    "council {} member {} votes {mv} ({score}{nodes}, {} ms)",
                    v.council, m.name, m.time_ms
                )
            }
            (None, error) => format!(
                "council {} member {} has no vote: {}",
                v.council,
                m.name,
                error.as_deref().unwrap_or("no answer")
            ),
        })
        .collect();
    let rule = v.rule.name();
    let overrode = if v.overrode_strongest {
        format!(", overriding the strongest member {}", v.strongest)
    } else {
        String::new()
    };
    lines.push(format!(
        "council {} chose {} by rule {rule} ({}){overrode}",
        v.council,
        v.chosen,
        v.method.name()
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::usi::protocol::EngineMessage;

    fn line(multipv: u32, pv: &[&str]) -> Line {
        Line {
            multipv,
            depth: Some(7),
            nodes: Some(5000),
            time: Duration::from_millis(250),
            score: Some(Score::Cp(42)),
            pv: pv.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn a_pv_is_cut_at_its_first_illegal_move_and_always_starts_with_the_move() {
        let pos = Position::startpos();
        let pv = vec!["7g7f".to_string(), "3c3d".into(), "7g7f".into()];
        assert_eq!(legal_pv(&pos, "7g7f", &pv), ["7g7f", "3c3d"]);
        assert_eq!(legal_pv(&pos, "2g2f", &pv), ["2g2f"]);
    }

    #[test]
    fn rows_state_multipv_only_when_several_and_members_never_say_pv() {
        let pos = Position::startpos();
        let l = line(2, &["7g7f", "3c3d", "5e5d"]);
        let one = EngineMessage::Info(row(&pos, &l, false).expect("legal")).to_string();
        assert_eq!(
            one,
            "info depth 7 time 250 nodes 5000 nps 20000 score cp 42 pv 7g7f 3c3d"
        );
        let two = EngineMessage::Info(row(&pos, &l, true).expect("legal")).to_string();
        assert!(two.contains("multipv 2"), "{two}");
        assert!(row(&pos, &line(1, &["5e5d"]), false).is_none());
        let text = member_text(&pos, "strong", &l);
        assert_eq!(text, "strong: 7g7f 3c3d (depth 7, cp 42, 5000 nodes)");
        assert!(!text.split_whitespace().any(|w| w == "pv"));
    }

    #[test]
    fn a_final_answer_shows_the_move_played_first_then_the_ranking() {
        let pos = Position::startpos();
        let thought = Thought {
            decision: council_players::player::Decision::Move("2g2f".into()),
            eval: Some(Score::Cp(30)),
            pv: vec!["2g2f".into(), "8c8d".into()],
            depth: Some(9),
            nodes: Some(9000),
            engine_time: Duration::from_millis(900),
            votes: Vec::new(),
            lines: vec![
                ("2g2f".into(), Some(Score::Cp(30))),
                ("7g7f".into(), Some(Score::Cp(20))),
                ("9a9b".into(), None),
                ("5g5f".into(), None),
            ],
        };
        let board = [line(2, &["7g7f", "3c3d"])];
        let rows = final_rows(&pos, "2g2f", &thought, 3, &board);
        let firsts: Vec<&str> = rows.iter().map(|r| r.pv[0].as_str()).collect();
        assert_eq!(firsts, ["2g2f", "7g7f", "5g5f"], "illegal 9a9b left out");
        assert_eq!(rows[1].pv, ["7g7f", "3c3d"]);
        assert_eq!(
            rows.iter().map(|r| r.multipv).collect::<Vec<_>>(),
            [Some(1), Some(2), Some(3)]
        );
        let single = final_rows(&pos, "2g2f", &thought, 1, &board);
        assert_eq!((single.len(), single[0].multipv), (1, None));
    }
}
