//! The candidate model alone as a [`Player`] (kind `intuition`): no search, the best-scoring
//! legal move of engine::intuition under the configured setting, or with a temperature a move
//! drawn among the scored moves.
//!
//! Invariants: the draw uses only the game's seed (a ChaCha8 stream seeded at `new_game`) and
//! one uniform number per move, so a game replays exactly; with temperature 0 nothing is drawn.
//! It reports no score (intuition's scores are pair statistics, not centipawns): a council
//! counts it as any member without a score (value 0 on the common scale for optimistic,
//! pessimistic and ml). Asked for MultiPV lines (approval), it gives its top moves by score,
//! without scores.

use std::sync::Arc;
use std::time::Instant;

use engine::intuition::{Intuition, Model, Setting};
use engine::position::Position;
use engine::types::Move;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{BoxFuture, Decision, MoveRequest, Outcome, Player, PlayerError, Thought};
use council_schema::config::{IntuitionSettings, Models};

pub struct IntuitionPlayer {
    name: String,
    model: Arc<Model>,
    setting: Setting,
    temperature: f64,
    rng: ChaCha8Rng,
}

impl IntuitionPlayer {
    /// The player `name` with the intuition player's settings `s`, its model from its config's
    /// `models`.
    pub fn new(name: &str, s: &IntuitionSettings, models: &Models) -> Self {
        Self {
            name: name.to_string(),
            model: models.get(&s.model),
            setting: s.setting,
            temperature: s.temperature,
            rng: ChaCha8Rng::seed_from_u64(0),
        }
    }

    async fn choose(&mut self, req: &MoveRequest) -> Result<Thought, PlayerError> {
        let (model, setting) = (Arc::clone(&self.model), self.setting);
        let position = req.position.clone();
        let began = Instant::now();
        let scored = tokio::task::spawn_blocking(move || scored(&model, setting, &position))
            .await
            .map_err(|e| PlayerError::Crash {
                player: self.name.clone(),
                detail: format!("scoring thread failed: {e}"),
            })?;
        let u: f64 = if self.temperature > 0.0 {
            self.rng.random()
        } else {
            0.0
        };
        let decision = match pick(&scored, self.temperature, u) {
            Some(mv) => Decision::Move(mv.to_usi()),
            None => Decision::Resign,
        };
        let mut lines: Vec<(String, Option<engine::types::Score>)> = Vec::new();
        if req.multipv > 1 {
            lines = scored
                .iter()
                .take(req.multipv)
                .map(|(mv, _)| (mv.to_usi(), None))
                .collect();
        }
        Ok(Thought {
            pv: match &decision {
                Decision::Move(m) => vec![m.clone()],
                _ => Vec::new(),
            },
            decision,
            eval: None,
            depth: None,
            nodes: None,
            engine_time: began.elapsed(),
            votes: Vec::new(),
            lines,
        })
    }
}

/// The legal moves of `position` scored under `setting`, best first (ties by USI text).
fn scored(model: &Model, setting: Setting, position: &Position) -> Vec<(Move, f64)> {
    Intuition::new(model, setting).scored(position)
}

/// The move for uniform `u` in [0, 1): the first (best) at temperature 0; otherwise the move
/// whose share of the cumulative weights `exp((score - best) / temperature)`, in `scored`'s
/// order, covers `u`. `None` without moves.
fn pick(scored: &[(Move, f64)], temperature: f64, u: f64) -> Option<Move> {
    let &(first, best) = scored.first()?;
    if temperature <= 0.0 {
        return Some(first);
    }
    let weight = |s: f64| ((s - best) / temperature).exp();
    let total: f64 = scored.iter().map(|&(_, s)| weight(s)).sum();
    let mut left = u * total;
    for &(mv, s) in scored {
        left -= weight(s);
        if left < 0.0 {
            return Some(mv);
        }
    }
    scored.last().map(|&(mv, _)| mv)
}

impl Player for IntuitionPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        Box::pin(async { Ok(()) })
    }

    fn think<'a>(
        &'a mut self,
        req: &'a MoveRequest,
    ) -> BoxFuture<'a, Result<Thought, PlayerError>> {
        Box::pin(self.choose(req))
    }

    fn game_over(&mut self, _outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn shutdown(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temperature_0_plays_the_best_and_a_draw_follows_the_weights() {
        let pos = Position::startpos();
        let moves: Vec<Move> = pos.legal_moves().into_iter().take(3).collect();
        let scored = vec![(moves[0], 2.0), (moves[1], 1.0), (moves[2], 1.0)];
        assert_eq!(pick(&scored, 0.0, 0.99), Some(moves[0]));
        assert_eq!(pick(&[], 1.0, 0.5), None);
        // Weights 1, e^-1, e^-1 (total 1.7358): u below 1/1.7358 = 0.576 takes the first.
        assert_eq!(pick(&scored, 1.0, 0.5), Some(moves[0]));
        assert_eq!(pick(&scored, 1.0, 0.7), Some(moves[1]));
        assert_eq!(pick(&scored, 1.0, 0.9), Some(moves[2]));
    }
}
