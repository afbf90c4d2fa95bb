//! One finished game as a line of `results.jsonl`: the record every other output is derived from.
//!
//! The runner appends one line per finished game and flushes it ([`append`]), so a crash loses
//! no finished game; every reader of the lines goes through [`read`], naming its policy for a
//! torn, malformed or repeated line. Keys named in `docs/reference/files.md` are promises
//! to users: add fields freely, never rename one. Readers must accept lines written by older
//! builds (new fields default).

use serde::{Deserialize, Serialize};

pub mod append;
pub mod family;
pub mod read;
pub mod votes;

use engine::types::Score;
use votes::CouncilVote;

/// Who won a game, from the board's point of view (not a player's); the `result` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    Sente,
    Gote,
    Draw,
}

impl Winner {
    /// The name as written in `results.jsonl`.
    pub fn name(self) -> &'static str {
        match self {
            Winner::Sente => "sente",
            Winner::Gote => "gote",
            Winner::Draw => "draw",
        }
    }
}

/// Why a game ended. Serialized in `snake_case` (`"illegal_move"`, `"perpetual_check"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// The loser resigned (`bestmove resign`).
    Resign,
    /// The side to move had no legal move.
    Checkmate,
    /// Fourfold repetition without perpetual check: draw.
    Repetition,
    /// Fourfold repetition where one side checked on every move of the cycle: that side lost.
    PerpetualCheck,
    /// A valid impasse declaration (`bestmove win`, CSA 27-point rule): the declarer won.
    Impasse,
    /// An impasse declaration that failed the 27-point rule: the declarer lost.
    IllegalImpasse,
    /// The configured maximum number of plies was reached: draw.
    MaxPlies,
    /// Resign adjudication by score (both sides agreed the game was lost for long enough).
    Adjudication,
    /// Draw adjudication by score (`[match] draw`: both players scored the game level for long
    /// enough).
    DrawAdjudication,
    /// A well-formed move that is not legal in the position.
    IllegalMove,
    /// Output that is not a move at all where a move was required.
    MalformedMove,
    /// The player ran out of time (arbiter's clock) or did not answer within its timeout.
    Timeout,
    /// The engine process died or could not be started.
    Crash,
    /// The game has no result: a CSA server stopped it (`#CHUDAN`) or the connection dropped
    /// (`council-csa` only). Its `result` is `draw`, but it scores for neither player
    /// ([`GameResult::points_of`] is `None`).
    Aborted,
}

impl Reason {
    /// The name `results.jsonl` writes (`"perpetual_check"`, ...), for tables and keys.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Resign => "resign",
            Reason::Checkmate => "checkmate",
            Reason::Repetition => "repetition",
            Reason::PerpetualCheck => "perpetual_check",
            Reason::Impasse => "impasse",
            Reason::IllegalImpasse => "illegal_impasse",
            Reason::MaxPlies => "max_plies",
            Reason::Adjudication => "adjudication",
            Reason::DrawAdjudication => "draw_adjudication",
            Reason::IllegalMove => "illegal_move",
            Reason::MalformedMove => "malformed_move",
            Reason::Timeout => "timeout",
            Reason::Crash => "crash",
            Reason::Aborted => "aborted",
        }
    }
}

/// One line of `results.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// Game number within the run, unique; the schedule's order.
    pub id: u64,
    /// Games that share a start position with colours swapped share a pair number
    /// (for pentanomial statistics); `None` for unpaired games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<u64>,
    /// Player name that played sente (moves first in even games).
    pub sente: String,
    /// Player name that played gote (the handicap giver in handicap games).
    pub gote: String,
    /// Start position, SFEN.
    pub start: String,
    /// Handicap name (`lance`, `bishop`, ...) when the start is a handicap position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handicap: Option<String>,
    /// Moves in USI notation, from `start`.
    pub moves: Vec<String>,
    /// How many of `moves` came from the opening (a book line, the config's moves) rather than
    /// the players: `times_ms[k]` and `scores[k]` are those of `moves[opening_plies + k]`.
    /// Absent in lines written by older builds: [`GameResult::opening_len`] infers it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_plies: Option<u32>,
    pub result: Winner,
    pub reason: Reason,
    pub plies: u32,
    /// Seed this game was played with (derived from the run's master seed).
    #[serde(default)]
    pub seed: u64,
    /// Per-move council votes, for games with council players.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<CouncilVote>,
    /// The arbiter's sentence on the ending (which rule, which move, what an engine printed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Wall time of each move as the arbiter measured it, ms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub times_ms: Vec<u64>,
    /// The score each mover reported for its move, from its own side (`{"cp": 35}`,
    /// `{"mate": 5}`, or null).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<Option<Score>>,
    /// What each side's moves cost: engine thinking and the orchestrator's own overhead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub costs: Vec<PlayerCost>,
    /// When the game started (wall clock, Unix time in ms) and how long it took (ms): the
    /// games' intervals give a run's playing time across the sessions of a resumed run.
    /// Absent in lines written by older builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<u64>,
}

impl GameResult {
    /// The points `player` scored in this game (1 a win, 1/2 a draw, 0 a loss), if it played
    /// in it (as sente when it played both sides) and the game has a result (not `aborted`).
    #[must_use]
    pub fn points_of(&self, player: &str) -> Option<f64> {
        if self.reason == Reason::Aborted {
            return None;
        }
        let sente_points = match self.result {
            Winner::Sente => 1.0,
            Winner::Gote => 0.0,
            Winner::Draw => 0.5,
        };
        if self.sente == player {
            Some(sente_points)
        } else if self.gote == player {
            Some(1.0 - sente_points)
        } else {
            None
        }
    }

    /// How many of `moves` came from the opening: `opening_plies`, or in a line of an older
    /// build the moves before the first timed or scored one.
    #[must_use]
    pub fn opening_len(&self) -> usize {
        match self.opening_plies {
            Some(n) => n as usize,
            None => self
                .moves
                .len()
                .saturating_sub(self.scores.len().max(self.times_ms.len())),
        }
    }

    /// The player who makes move `ply` (0-based, counted from `start`): sente at the even plies
    /// when the start has sente to move (its SFEN's second field), gote at them otherwise.
    #[must_use]
    pub fn mover_at(&self, ply: usize) -> &str {
        let sente_starts = self.start.split_whitespace().nth(1) != Some("w");
        if sente_starts == ply.is_multiple_of(2) {
            &self.sente
        } else {
            &self.gote
        }
    }
}

/// One side's cost in one game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerCost {
    pub player: String,
    pub moves: u32,
    /// Time the engines spent thinking, µs: from handing a position over to having the answer
    /// back (`go` to `bestmove` for a USI process; dispatch to return of the search thread in
    /// process); for a council, its slowest member per move.
    pub engine_us: u64,
    /// The rest of each move's wall time: the orchestrator's own work (process I/O, legality
    /// checks, voting, logging), µs.
    pub overhead_us: u64,
    /// Moves it was asked for after pondering on the reply the opponent then played
    /// (`ponder = true`; absent when zero).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ponder_hits: u32,
    /// Moves it was asked for after pondering on another reply.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ponder_misses: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aborted_game_scores_for_neither_player_and_is_left_out_of_tables() {
        let game = |reason: &str| -> GameResult {
            serde_json::from_value(serde_json::json!({
                "id": 0, "sente": "s", "gote": "g", "start": "startpos", "moves": [],
                "result": "draw", "reason": reason, "plies": 0,
            }))
            .expect("a results line")
        };
        let aborted = game("aborted");
        assert_eq!(aborted.reason, Reason::Aborted);
        assert_eq!(
            (aborted.points_of("s"), aborted.points_of("g")),
            (None, None)
        );
        assert_eq!(
            crate::stats::head_to_head::points_for(&aborted, "s", "g"),
            None
        );
        assert_eq!(game("max_plies").points_of("g"), Some(0.5));
        let mut table = crate::stats::table::GameTable::new();
        table.add(&aborted);
        table.add(&game("max_plies"));
        assert_eq!(table.games(), 1);
    }

    /// `opening_plies` is written, read back, and inferred for a line of an older build.
    #[test]
    fn the_opening_moves_are_counted_in_new_lines_and_inferred_in_old_ones() {
        let line = serde_json::json!({
            "id": 0, "sente": "s", "gote": "g", "start": "startpos",
            "moves": ["7g7f", "3c3d", "2g2f"], "opening_plies": 2,
            "result": "draw", "reason": "max_plies", "plies": 3,
            "times_ms": [5], "scores": [{"cp": 10}],
        });
        let g: GameResult = serde_json::from_value(line.clone()).expect("a results line");
        assert_eq!((g.opening_plies, g.opening_len()), (Some(2), 2));
        let written = serde_json::to_value(&g).expect("a value");
        assert_eq!(written["opening_plies"], 2);
        let mut none = g.clone();
        none.opening_plies = Some(0);
        assert_eq!(
            serde_json::to_value(&none).expect("a value")["opening_plies"],
            0
        );

        let mut old = line;
        old.as_object_mut()
            .expect("an object")
            .remove("opening_plies");
        let g: GameResult = serde_json::from_value(old).expect("an older line");
        assert_eq!((g.opening_plies, g.opening_len()), (None, 2));
    }

    #[test]
    fn the_mover_follows_the_start_side_to_move() {
        let game = |start: &str| -> GameResult {
            serde_json::from_value(serde_json::json!({
                "id": 0, "sente": "s", "gote": "g", "start": start, "moves": [],
                "result": "draw", "reason": "max_plies", "plies": 0,
            }))
            .expect("a results line")
        };
        let even = game("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert_eq!((even.mover_at(0), even.mover_at(1)), ("s", "g"));
        // A handicap start: gote (the giver) moves first.
        let handicap = game("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        assert_eq!(
            (
                handicap.mover_at(0),
                handicap.mover_at(7),
                handicap.mover_at(8)
            ),
            ("g", "s", "g")
        );
    }
}
