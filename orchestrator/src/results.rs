//! One finished game as a line of `results.jsonl`: the record every other output is derived from.
//!
//! The runner appends one line per finished game and flushes it, so a crash loses no finished
//! game; `council-elo` and `--resume` read the lines back. Keys named in
//! `../shared/spec/interfaces.md` are promises to users: add fields freely, never rename one.
//! Readers must accept lines written by older builds (new fields default) and report a truncated
//! or malformed line by file and line number.

use serde::{Deserialize, Serialize};

/// Who won a game, from the board's point of view (not the player's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Sente,
    Gote,
    Draw,
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
    /// A well-formed move that is not legal in the position.
    IllegalMove,
    /// Output that is not a move at all where a move was required.
    MalformedMove,
    /// The player ran out of time (arbiter's clock) or did not answer within its timeout.
    Timeout,
    /// The engine process died or could not be started.
    Crash,
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
    pub result: Outcome,
    pub reason: Reason,
    pub plies: u32,
    /// Seed this game was played with (derived from the run's master seed).
    #[serde(default)]
    pub seed: u64,
    /// Per-move council votes, for games with council players (shape owned by the council code).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<serde_json::Value>,
}
