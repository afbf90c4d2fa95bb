//! One game between two players, refereed by the arbiter.
//!
//! Invariants: the arbiter asks only the side to move, measures every move with its own clock,
//! checks every move against the position's full legal-move list, and ends the game on the first
//! rule that applies (checkmate, repetition, perpetual check, impasse, resignation, maximum plies,
//! resign adjudication, or a failure of a player: illegal or malformed move, timeout, crash).
//! A failure of a player is a result, not an error.

use std::time::Duration;

use engine::position::{Handicap, Position};
use engine::types::Color;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::schedule::{GameSpec, Start};
use crate::config::{Config, PlayerConfig};
use crate::player::{Budget, Decision, MoveRequest, Outcome, Player, PlayerError};
use crate::results::{GameResult, PlayerCost, Reason, Winner};
use crate::runner::adjudicate::{
    Clock, ResignTracker, Verdict, clock_state, impasse_verdict, judge_move, position_verdict,
};
use engine::types::Score;

/// Everything about a finished game: the results line plus what the records need.
#[derive(Debug, Clone)]
pub struct PlayedGame {
    pub result: GameResult,
    /// The principal variation each mover reported, per played move (for record comments).
    pub pvs: Vec<Vec<String>>,
    /// Number of leading moves in `result.moves` that came from the opening, not the players.
    pub opening_plies: usize,
}

/// The start of a game: the position as the arbiter holds it.
pub struct StartPosition {
    /// SFEN of the base position.
    pub sfen: String,
    /// Opening moves played from the base.
    pub opening: Vec<String>,
    /// The position after the opening.
    pub position: Position,
    pub handicap: Option<String>,
}

/// Build a start position (already validated with the config; errors here name the problem).
pub fn start_position(start: &Start) -> Result<StartPosition, String> {
    match start {
        Start::Handicap(name) => {
            let h: Handicap = name
                .parse()
                .map_err(|e| format!("handicap `{name}`: {e}"))?;
            let position = Position::handicap(h);
            let sfen = position.to_sfen();
            Ok(StartPosition {
                sfen,
                opening: Vec::new(),
                position,
                handicap: Some(name.clone()),
            })
        }
        Start::Position(text) => {
            let position = Position::from_start_text(text).map_err(|e| format!("`{text}`: {e}"))?;
            let sfen = position.root_sfen().to_string();
            Ok(StartPosition {
                sfen,
                opening: position.moves().iter().map(|m| m.to_usi()).collect(),
                position,
                handicap: None,
            })
        }
    }
}

fn idx(c: Color) -> usize {
    match c {
        Color::Sente => 0,
        Color::Gote => 1,
    }
}

/// The verdict for a player's failure to answer.
fn failure_verdict(mover: Color, e: &PlayerError) -> Verdict {
    let reason = match e {
        PlayerError::Crash { .. } => Reason::Crash,
        PlayerError::Timeout { .. } => Reason::Timeout,
        PlayerError::Malformed { .. } => Reason::MalformedMove,
    };
    Verdict::loss(mover, reason, e.to_string())
}

/// Play `spec` between `sente` and `gote`. `None` when cancelled (the game is not finished and
/// must not be recorded).
pub async fn play_game(
    config: &Config,
    spec: &GameSpec,
    players: [&mut dyn Player; 2],
    cancel: &CancellationToken,
) -> Option<PlayedGame> {
    let game_began = Instant::now();
    let started_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_millis() as u64);
    let [sente, gote] = players;
    let mut players: [&mut dyn Player; 2] = [sente, gote];
    let configs: [&PlayerConfig; 2] = [config.player(&spec.sente), config.player(&spec.gote)];
    let start = match start_position(&spec.start) {
        Ok(s) => s,
        Err(e) => {
            // Validated with the config, so this is a bug, not bad input: fail loudly but safely.
            tracing::error!(game = spec.id, "cannot set up the start position: {e}");
            return None;
        }
    };
    let mut position = start.position.clone();
    let mut moves: Vec<String> = start.opening.clone();
    let mut times_ms = Vec::new();
    let mut scores = Vec::new();
    let mut pvs = Vec::new();
    let mut votes = Vec::new();
    let mut costs = [0, 1].map(|i| PlayerCost {
        player: configs[i].name.clone(),
        ..PlayerCost::default()
    });
    let mut clocks = [
        Clock::new(&configs[0].limits),
        Clock::new(&configs[1].limits),
    ];
    let mut resign = ResignTracker::new(config.resign);
    let margin = Duration::from_millis(config.timeout_margin_ms);

    // Both players get ready; one that cannot start loses before the first move.
    let mut verdict = None;
    for side in [Color::Sente, Color::Gote] {
        let p = &mut players[idx(side)];
        let ready = tokio::select! {
            r = p.new_game(spec.seed) => r,
            () = cancel.cancelled() => return None,
        };
        if let Err(e) = ready {
            verdict = Some(failure_verdict(side, &e));
            break;
        }
    }

    let max_plies = config.max_plies as usize;
    while verdict.is_none() {
        if let Some(v) = position_verdict(&position) {
            verdict = Some(v);
            break;
        }
        if moves.len() >= max_plies {
            verdict = Some(Verdict::draw(
                Reason::MaxPlies,
                format!("{max_plies} plies without a result"),
            ));
            break;
        }
        let mover = position.side_to_move();
        let me = idx(mover);
        let began = Instant::now();
        let pc = configs[me];
        let mut budget = Budget::per_move(&pc.limits);
        budget.clock = clock_state(&clocks[0], &clocks[1], mover);
        let wait = match budget.time_allowance(mover == Color::Sente) {
            Some(t) => t + margin,
            None => Duration::from_millis(pc.move_timeout_ms),
        };
        let req = MoveRequest {
            position: position.clone(),
            budget,
            deadline: began + wait,
        };
        let think_began = Instant::now();
        let answer = tokio::select! {
            a = players[me].think(&req) => a,
            () = cancel.cancelled() => return None,
        };
        let spent = think_began.elapsed();
        let thought = match answer {
            Ok(t) => t,
            Err(e) => {
                verdict = Some(failure_verdict(mover, &e));
                break;
            }
        };
        if let Err(over) = clocks[me].charge(spent, margin) {
            verdict = Some(Verdict::loss(
                mover,
                Reason::Timeout,
                format!(
                    "{}: took {} ms, {} ms over its time",
                    pc.name,
                    spent.as_millis(),
                    over.as_millis()
                ),
            ));
            break;
        }
        votes.extend(thought.votes.iter().cloned());
        match &thought.decision {
            Decision::Resign => {
                verdict = Some(Verdict::loss(
                    mover,
                    Reason::Resign,
                    format!("{} resigned", pc.name),
                ));
            }
            Decision::Win => verdict = Some(impasse_verdict(&position)),
            Decision::Move(text) => match judge_move(&position, &pc.name, text) {
                Ok(mv) => {
                    position.play(mv);
                    moves.push(mv.to_usi());
                    times_ms.push(spent.as_millis() as u64);
                    scores.push(thought.eval);
                    pvs.push(thought.pv.clone());
                    resign.update(mover, thought.eval);
                    verdict = resign.verdict();
                }
                Err(v) => verdict = Some(v),
            },
        }
        let cost = &mut costs[me];
        cost.moves += 1;
        cost.engine_us += thought.engine_time.as_micros() as u64;
        cost.overhead_us += began
            .elapsed()
            .saturating_sub(thought.engine_time)
            .as_micros() as u64;
    }
    let verdict = verdict?;

    for (side, p) in [Color::Sente, Color::Gote]
        .into_iter()
        .zip(players.iter_mut())
    {
        let outcome = match (verdict.result, side) {
            (Winner::Draw, _) => Outcome::Draw,
            (Winner::Sente, Color::Sente) | (Winner::Gote, Color::Gote) => Outcome::Win,
            _ => Outcome::Lose,
        };
        p.game_over(outcome).await;
    }

    let plies = moves.len() as u32;
    Some(PlayedGame {
        result: GameResult {
            id: spec.id,
            pair: spec.pair,
            sente: spec.sente.clone(),
            gote: spec.gote.clone(),
            start: start.sfen.clone(),
            handicap: start.handicap.clone(),
            moves,
            result: verdict.result,
            reason: verdict.reason,
            plies,
            seed: spec.seed,
            votes,
            detail: Some(verdict.detail),
            times_ms,
            scores,
            costs: costs.to_vec(),
            started_unix_ms,
            wall_ms: Some(game_began.elapsed().as_millis() as u64),
        },
        pvs,
        opening_plies: start.opening.len(),
    })
}

/// The score as a CSA/KIF comment number: cp, or +-(100000 - plies) for mates.
pub fn comment_score(e: Score) -> i32 {
    match e {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => 100_000 - n,
        Score::Mate(n) => -100_000 - n,
    }
}
