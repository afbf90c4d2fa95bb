//! Training data from finished games: every position where a move was played, with the mover's
//! score, the move, the position's move number and the game's result from the mover's view, in
//! the formats NNUE and value-network trainers read (`engine::training`: YaneuraOu's
//! PackedSfenValue, cshogi's hcpe, YaneuraOu's plain text).
//!
//! One place decides what a record of a game holds, for both writers: `council-learn export`
//! (any runs and corpora, then a dedup and a seeded shuffle over all of them) and a run's own
//! `[match] training` file (written game by game as the runner finishes them; `write::RunExport`).
//! The same games under the same settings give the same records, in the same order, either way.
//!
//! What a record says: the position before the move (replayed with the engine's one replay); the
//! move played (a council's: the voted move); the mover's score, which for a council is chosen
//! by [`CouncilScore`]; the result by the board ([`Winner`]) turned to the mover's view. A game
//! without a result (`aborted`, or a corpus line without one) gives no record. The filters
//! (the [`Settings`] filters) drop positions, never change a record.

pub mod write;

use std::collections::HashSet;

use engine::position::{Position, ReplayError, SfenError, replay};
use engine::training::{MAX_EVAL, Outcome, Sample, score_value};
use engine::types::{Color, Score};
use serde::{Deserialize, Serialize};

use crate::results::votes::CouncilVote;
use crate::results::{GameResult, Reason, Winner};

/// The file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// YaneuraOu's PackedSfenValue, 40 bytes a record.
    Psv,
    /// cshogi's and Apery's HuffmanCodedPosAndEval, 38 bytes a record.
    Hcpe,
    /// YaneuraOu's plain text (`learn convert_plain`), six lines a record.
    Sfen,
}

impl Format {
    /// The name `--format` and `[match] training` take.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Psv => "psv",
            Format::Hcpe => "hcpe",
            Format::Sfen => "sfen",
        }
    }

    /// The file a run writes in its folder: `training.psv`, `training.hcpe`, `training.sfen`.
    #[must_use]
    pub fn run_file(self) -> String {
        format!("training.{}", self.name())
    }
}

/// A name `--format` or `--council-score` does not know, and the names it does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}`: give {choices}")]
pub struct UnknownName {
    pub given: String,
    pub choices: &'static str,
}

/// A game that gives no records because it does not replay (none of it is written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameError {
    #[error("bad start position `{start}`: {error}")]
    Start { start: String, error: SfenError },
    /// The first move that cannot be played.
    #[error(transparent)]
    Move(#[from] ReplayError),
}

impl std::str::FromStr for Format {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s {
            "psv" => Ok(Format::Psv),
            "hcpe" => Ok(Format::Hcpe),
            "sfen" => Ok(Format::Sfen),
            other => Err(UnknownName {
                given: other.to_string(),
                choices: "psv, hcpe or sfen",
            }),
        }
    }
}

/// Which score a council's record carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CouncilScore {
    /// The score the council answered with (`scores` in `results.jsonl`): its speaking member's,
    /// the member whose answer it played, on the council's common scale.
    #[default]
    Chosen,
    /// The mean of every member's score that reported one.
    Mean,
    /// The mean of the scores of the members that voted for the move played.
    Voters,
}

impl std::str::FromStr for CouncilScore {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s {
            "chosen" => Ok(CouncilScore::Chosen),
            "mean" => Ok(CouncilScore::Mean),
            "voters" => Ok(CouncilScore::Voters),
            other => Err(UnknownName {
                given: other.to_string(),
                choices: "chosen, mean or voters",
            }),
        }
    }
}

/// What a record holds and which positions are written: `[match] training` as validated (its
/// keys are these fields' names), and `council-learn export`'s flags. Every filter drops
/// positions; none changes a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub format: Format,
    /// A council's score.
    #[serde(default)]
    pub council_score: CouncilScore,
    /// Leave out the opening's plies (`[match] start` / `openings` moves, played before the
    /// players' first move).
    #[serde(default)]
    pub skip_book: bool,
    /// Leave out positions whose side to move is in check.
    #[serde(default)]
    pub skip_in_check: bool,
    /// Leave out positions whose score is beyond ±this many centipawns (mates always are).
    #[serde(default)]
    pub max_score: Option<i32>,
    /// Leave out every position but those of the game's winner (draws give none).
    #[serde(default)]
    pub winner_only: bool,
    /// Leave out a position met before (board, hands, side to move).
    #[serde(default)]
    pub dedup: bool,
    /// Keep positions without a score (opening plies, an engine's own book moves, corpus
    /// games), with score 0; by default they are left out.
    #[serde(default)]
    pub keep_unscored: bool,
}

impl Settings {
    /// Every position of every game with a result and a score: no filter.
    #[must_use]
    pub fn new(format: Format) -> Self {
        Self {
            format,
            council_score: CouncilScore::Chosen,
            skip_book: false,
            skip_in_check: false,
            max_score: None,
            winner_only: false,
            dedup: false,
            keep_unscored: false,
        }
    }
}

/// Why positions were left out, and how many were written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Games looked at.
    pub games: u64,
    /// Games without a result (aborted, or a corpus line that gives none): no record.
    pub games_without_result: u64,
    /// Positions where a move was played, in the games with a result.
    pub positions: u64,
    pub written: u64,
    pub book: u64,
    pub unscored: u64,
    pub in_check: u64,
    pub beyond_max_score: u64,
    pub not_winner: u64,
    pub duplicates: u64,
}

impl Counts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Counts) {
        self.games += other.games;
        self.games_without_result += other.games_without_result;
        self.positions += other.positions;
        self.written += other.written;
        self.book += other.book;
        self.unscored += other.unscored;
        self.in_check += other.in_check;
        self.beyond_max_score += other.beyond_max_score;
        self.not_winner += other.not_winner;
        self.duplicates += other.duplicates;
    }
}

/// A game as the exporter needs it: a results line, or a corpus game (no scores, no votes).
#[derive(Debug, Clone, Copy)]
pub struct Game<'a> {
    start: &'a str,
    moves: &'a [String],
    winner: Option<Winner>,
    /// Moves before the players' first (the opening's).
    opening: usize,
    /// One per move after the opening.
    scores: &'a [Option<Score>],
    votes: &'a [CouncilVote],
    /// The results line, for who moved when.
    result: Option<&'a GameResult>,
}

impl<'a> Game<'a> {
    /// A `results.jsonl` line: its scores and times start after the opening's moves.
    #[must_use]
    pub fn of_result(g: &'a GameResult) -> Self {
        Self {
            start: &g.start,
            moves: &g.moves,
            winner: (g.reason != Reason::Aborted).then_some(g.result),
            opening: g.opening_len(),
            scores: &g.scores,
            votes: &g.votes,
            result: Some(g),
        }
    }

    /// A game with no scores and no opening known (a corpus game): its start (SFEN), its moves
    /// (USI) and its winner (`None` for a draw or a game that did not end).
    #[must_use]
    pub fn unscored(start: &'a str, moves: &'a [String], winner: Option<Winner>) -> Self {
        Self {
            start,
            moves,
            winner,
            opening: 0,
            scores: &[],
            votes: &[],
            result: None,
        }
    }

    /// The mover's score at move `i` (from 0 at the start) on the formats' scale.
    fn score(&self, i: usize, choice: CouncilScore) -> Option<i16> {
        let own = i
            .checked_sub(self.opening)
            .and_then(|k| self.scores.get(k).copied().flatten());
        let vote = self.result.and_then(|r| {
            let mover = r.mover_at(i);
            self.votes
                .iter()
                .find(|v| v.ply as usize == i && v.council == mover)
        });
        let mean = |scores: Vec<i16>| -> Option<i16> {
            (!scores.is_empty()).then(|| {
                let sum: f64 = scores.iter().map(|&s| f64::from(s)).sum();
                // A mean of i16 values is within i16.
                (sum / scores.len() as f64).round() as i16
            })
        };
        match (choice, vote) {
            (CouncilScore::Chosen, _) | (_, None) => own.map(score_value),
            (CouncilScore::Mean, Some(v)) => mean(
                v.members
                    .iter()
                    .filter_map(|m| m.score.map(score_value))
                    .collect(),
            ),
            (CouncilScore::Voters, Some(v)) => mean(
                v.members
                    .iter()
                    .filter(|m| m.mv.as_deref() == Some(v.chosen.as_str()))
                    .filter_map(|m| m.score.map(score_value))
                    .collect(),
            ),
        }
    }
}

/// A game's records under `settings`, each handed to `record` in move order; `seen` holds the
/// positions already written (for [`Settings::dedup`]). Returns this game's counts.
///
/// # Errors
/// The game's start or a move that does not replay.
pub fn records(
    game: Game<'_>,
    settings: &Settings,
    seen: &mut HashSet<[u8; 32]>,
    mut record: impl FnMut(Vec<u8>),
) -> Result<Counts, GameError> {
    let mut counts = Counts {
        games: 1,
        ..Counts::default()
    };
    let Some(winner) = game.winner else {
        counts.games_without_result = 1;
        return Ok(counts);
    };
    let f = settings;
    // The whole game first, so a game that does not replay leaves `seen` untouched.
    let mut r = replay(game.start, game.moves).map_err(|error| GameError::Start {
        start: game.start.to_string(),
        error,
    })?;
    let mut plies = Vec::with_capacity(game.moves.len());
    loop {
        let position: Position = r.position().clone();
        match r.step() {
            Some(Ok(mv)) => plies.push((position, mv)),
            Some(Err(e)) => return Err(e.into()),
            None => break,
        }
    }
    for (i, (position, played)) in plies.into_iter().enumerate() {
        counts.positions += 1;
        let outcome = match (winner, position.side_to_move()) {
            (Winner::Draw, _) => Outcome::Draw,
            (Winner::Sente, Color::Sente) | (Winner::Gote, Color::Gote) => Outcome::Win,
            _ => Outcome::Loss,
        };
        if f.skip_book && i < game.opening {
            counts.book += 1;
            continue;
        }
        let score = match game.score(i, settings.council_score) {
            Some(s) => s,
            None if f.keep_unscored => 0,
            None => {
                counts.unscored += 1;
                continue;
            }
        };
        if f.skip_in_check && position.in_check() {
            counts.in_check += 1;
            continue;
        }
        if let Some(bound) = f.max_score
            && (i32::from(score).abs() > bound || i32::from(score).abs() > MAX_EVAL)
        {
            counts.beyond_max_score += 1;
            continue;
        }
        if f.winner_only && outcome != Outcome::Win {
            counts.not_winner += 1;
            continue;
        }
        if f.dedup && !seen.insert(engine::training::packed_sfen(&position)) {
            counts.duplicates += 1;
            continue;
        }
        let sample = Sample {
            position: &position,
            score,
            played,
            outcome,
        };
        record(match settings.format {
            Format::Psv => sample.psv().to_vec(),
            Format::Hcpe => sample.hcpe().to_vec(),
            Format::Sfen => sample.plain().into_bytes(),
        });
        counts.written += 1;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests;
