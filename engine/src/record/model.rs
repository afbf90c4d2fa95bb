//! The record's data: a game (start, moves with their annotations, the end), the formats and
//! the errors. The readers and writers ([`super::csa`], [`super::kif`], [`super::convert`])
//! build and read these; the facade (`record/mod.rs`) dispatches to them.

use crate::clock::TimeControl;
use crate::position::{Handicap, MoveError, Position, SfenError};
use crate::types::{ByColor, Color, Move, Score};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;
use thiserror::Error;

/// The two text formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csa,
    Kif,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Csa => "CSA",
            Self::Kif => "KIF",
        })
    }
}

/// Why a record could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RecordError {
    /// A line that is not what the format allows there.
    #[error("{format} line {line}: `{text}`: {problem}")]
    Syntax {
        format: Format,
        line: usize,
        text: String,
        problem: String,
    },
    /// The start position the file describes is not a valid position.
    #[error("{format} line {line}: start position: {error}")]
    StartPosition {
        format: Format,
        line: usize,
        error: SfenError,
    },
    /// A move that is well-formed but not legal where it is played.
    #[error("{format} line {line}: move {number}: {error}")]
    IllegalMove {
        format: Format,
        line: usize,
        number: usize,
        error: MoveError,
    },
    /// A record that cannot be written in this format (e.g. an end that contradicts its winner).
    #[error("cannot write {format}: {problem}")]
    Unwritable { format: Format, problem: String },
    /// Bytes that are neither UTF-8 nor Shift_JIS (CP932) text: the first byte Shift_JIS
    /// decoding cannot take (0-based offset) and its 1-based line.
    #[error(
        "{format} line {line}, byte {offset}: neither UTF-8 nor Shift_JIS (CP932) text (bytes {bytes})"
    )]
    Encoding {
        format: Format,
        line: usize,
        offset: usize,
        /// The offending bytes in hex (`81 ff`).
        bytes: String,
    },
    /// A file that could not be read at all (missing, unreadable, or of an unknown kind).
    #[error("{}: {problem}", path.display())]
    Io { path: PathBuf, problem: String },
    /// A problem in a file, with the file's name.
    #[error("{}: {error}", path.display())]
    InFile {
        path: PathBuf,
        error: Box<RecordError>,
    },
}

/// How a game ended. The names are those of `results.jsonl` (`EndReason::name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move resigned.
    Resign,
    /// The side to move had no legal move.
    Checkmate,
    /// Fourth occurrence of a position: draw.
    Repetition,
    /// Fourth occurrence reached by one side checking throughout: that side loses.
    PerpetualCheck,
    /// A valid impasse declaration (27-point rule): the declarer, the side to move, wins.
    /// (A declaration that fails the rule is recorded as `IllegalMove`.)
    Impasse,
    /// The configured maximum number of plies was reached: draw.
    MaxPlies,
    /// An illegal or malformed move (or a failed declaration): its author loses.
    IllegalMove,
    /// A player ran out of time.
    Timeout,
    /// A player's engine crashed or stopped answering.
    Crash,
    /// The game was interrupted without a result (中断).
    Abort,
}

impl EndReason {
    /// Every reason.
    pub const ALL: [EndReason; 10] = [
        EndReason::Resign,
        EndReason::Checkmate,
        EndReason::Repetition,
        EndReason::PerpetualCheck,
        EndReason::Impasse,
        EndReason::MaxPlies,
        EndReason::IllegalMove,
        EndReason::Timeout,
        EndReason::Crash,
        EndReason::Abort,
    ];

    /// The snake_case name used in `results.jsonl` (`"resign"`, `"perpetual_check"`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Resign => "resign",
            Self::Checkmate => "checkmate",
            Self::Repetition => "repetition",
            Self::PerpetualCheck => "perpetual_check",
            Self::Impasse => "impasse",
            Self::MaxPlies => "max_plies",
            Self::IllegalMove => "illegal_move",
            Self::Timeout => "timeout",
            Self::Crash => "crash",
            Self::Abort => "abort",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EndReason {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|r| r.name() == text)
            .ok_or_else(|| format!("unknown end reason `{text}`"))
    }
}

/// The end of a game: why, and who won (`None` for a draw or an aborted game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameEnd {
    pub reason: EndReason,
    pub winner: Option<Color>,
}

/// An engine's view of a move it played: its score and the line it expected next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineComment {
    /// From the mover's point of view.
    pub score: Score,
    /// The expected continuation after this move (the opponent's reply first).
    pub pv: Vec<Move>,
}

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    pub mv: Move,
    /// Thinking time (CSA and KIF keep whole seconds).
    pub time: Option<Duration>,
    /// A free-text comment.
    pub comment: Option<String>,
    /// The mover's score and expected line, if it reported one.
    pub engine: Option<EngineComment>,
}

impl RecordedMove {
    /// A bare move.
    #[must_use]
    pub const fn new(mv: Move) -> Self {
        Self {
            mv,
            time: None,
            comment: None,
            engine: None,
        }
    }
}

/// One game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    start: Position,
    current: Position,
    moves: Vec<RecordedMove>,
    /// Sente's name (下手 in handicap games).
    pub sente: Option<String>,
    /// Gote's name (上手 in handicap games).
    pub gote: Option<String>,
    /// The event or match name.
    pub event: Option<String>,
    /// When the game started, as the formats write it: `YYYY/MM/DD HH:MM:SS` (CSA
    /// `$START_TIME`, KIF `開始日時`).
    pub start_time: Option<String>,
    /// Each side's clock, when it had one: one `$TIME_LIMIT` / `持ち時間` when
    /// both are the same, else one per side (`$TIME+`/`$TIME-`, `先手持ち時間`/`後手持ち時間`).
    /// Both formats count whole seconds: a clock with a fraction of a second is not written.
    pub clocks: ByColor<Option<TimeControl>>,
    /// How the game ended, if it did.
    pub end: Option<GameEnd>,
    /// The program that wrote the record, as its `--version` says it (`council-match 0.1.0
    /// (commit 0123456789ab, clean)`): a `'` comment line after CSA's `V2.2`, a `#` comment line
    /// opening the KIF, which every reader skips. Written only: reading leaves it `None`, and
    /// records are equal whatever it says.
    pub written_by: Option<String>,
}

impl PartialEq for GameRecord {
    fn eq(&self, other: &Self) -> bool {
        self.start == other.start
            && self.moves == other.moves
            && self.sente == other.sente
            && self.gote == other.gote
            && self.event == other.event
            && self.start_time == other.start_time
            && self.clocks == other.clocks
            && self.end == other.end
    }
}

impl GameRecord {
    /// An empty record starting from `start` (its current position; moves played before it
    /// are not part of this record).
    #[must_use]
    pub fn new(start: &Position) -> Self {
        let start = Position::from_sfen(&start.to_sfen())
            .unwrap_or_else(|e| unreachable!("a position's own SFEN is valid: {e}"));
        Self::from_start(start)
    }

    /// An empty record starting from `start`, as [`Self::new`], the position taken as it is
    /// when no move has been played on it (no round trip through its SFEN).
    #[must_use]
    pub fn from_start(start: Position) -> Self {
        if !start.moves().is_empty() {
            return Self::new(&start);
        }
        Self {
            current: start.clone(),
            start,
            moves: Vec::new(),
            sente: None,
            gote: None,
            event: None,
            start_time: None,
            clocks: ByColor::default(),
            end: None,
            written_by: None,
        }
    }

    /// The record of the game `pos` has played since its root.
    #[must_use]
    pub fn from_game(pos: &Position) -> Self {
        let root = Position::from_sfen(pos.root_sfen())
            .unwrap_or_else(|e| unreachable!("a position's root SFEN is valid: {e}"));
        let mut record = Self::new(&root);
        for mv in pos.moves() {
            record.current.play(mv);
            record.moves.push(RecordedMove::new(mv));
        }
        record
    }

    /// Appends a move, which must be legal in the current position.
    ///
    /// # Errors
    /// [`MoveError::Illegal`] (with the reason) if it is not; the record is unchanged.
    pub fn push(&mut self, mv: RecordedMove) -> Result<(), MoveError> {
        self.current.try_play(mv.mv)?;
        self.moves.push(mv);
        Ok(())
    }

    /// Plays the USI move `text` in the current position and appends it bare (annotate it
    /// with [`Self::annotate`]): one look-up in the legal moves, where reading it
    /// ([`Position::parse_usi_move`]) and then [`Self::push`] take two.
    ///
    /// # Errors
    /// As [`Position::play_usi_move`]: malformed text, or the rule the move breaks; the record
    /// is unchanged.
    pub fn push_usi(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = self.current.play_usi_move(text)?;
        self.moves.push(RecordedMove::new(mv));
        Ok(mv)
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The named start (even game or handicap) this record begins from, if it is one.
    #[must_use]
    pub fn handicap(&self) -> Option<Handicap> {
        Handicap::from_sfen(&self.start.to_sfen())
    }

    /// The position after the last move, with the game's history (for repetition checks).
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.current
    }

    /// The moves, first first.
    #[must_use]
    pub fn moves(&self) -> &[RecordedMove] {
        &self.moves
    }

    /// Mutable access to the annotations of the moves (not the moves themselves).
    pub fn annotate(&mut self, index: usize) -> Option<Annotations<'_>> {
        self.moves.get_mut(index).map(|m| Annotations {
            time: &mut m.time,
            comment: &mut m.comment,
            engine: &mut m.engine,
        })
    }
}

/// The editable annotations of one recorded move.
pub struct Annotations<'a> {
    pub time: &'a mut Option<Duration>,
    pub comment: &'a mut Option<String>,
    pub engine: &'a mut Option<EngineComment>,
}
