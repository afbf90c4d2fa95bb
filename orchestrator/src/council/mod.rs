//! A council: a [`Player`] made of member players that think on the same position at the same
//! time; their answers are combined by the pure rules of [`vote`].
//!
//! Invariants: members think concurrently (each in-process member on its own blocking thread,
//! each USI member in its own process); a member's move that is malformed or illegal in the
//! position is logged and left out of the vote (the council knows the rules; a single engine
//! that plays such a move loses by it); a member that failed sits out the rest of the game and
//! restarts at the next; the council fails only when no member answered. Every decision is
//! logged as a [`CouncilVote`].

pub mod vote;

use std::time::Duration;

use crate::config::{Fairness, Limits};
use crate::player::{
    BoxFuture, Budget, Decision, MoveRequest, Outcome, Player, PlayerError, Thought,
};
use crate::results::votes::{CouncilVote, MemberVote};
use vote::{Ballot, Method, VoteSettings};

/// The most a council keeps back from its own deadline: time to vote with the members that did
/// answer when another one hangs.
const DEADLINE_RESERVE: Duration = Duration::from_millis(500);

/// The deadline the members get: the council's, less a tenth of the time left (at most
/// [`DEADLINE_RESERVE`]), so a member that hangs times out while the council can still answer
/// in time with the others' votes instead of losing on time with them.
fn member_deadline(
    council: tokio::time::Instant,
    now: tokio::time::Instant,
) -> tokio::time::Instant {
    let left = council.saturating_duration_since(now);
    council - (left / 10).min(DEADLINE_RESERVE)
}

/// A member and how it is weighed.
pub(crate) struct Member {
    pub player: Box<dyn Player>,
    pub win_rate_t: f64,
    pub sigma: f64,
    /// Its vote weight in this council (majority and approval).
    pub weight: f64,
    /// Own limits; when empty the member takes the council's budget (whole or shared).
    pub limits: Limits,
    /// Still in this game (a member that failed sits out until the next game).
    active: bool,
}

impl Member {
    pub fn new(
        player: Box<dyn Player>,
        win_rate_t: f64,
        sigma: f64,
        weight: f64,
        limits: Limits,
    ) -> Self {
        Self {
            player,
            win_rate_t,
            sigma,
            weight,
            limits,
            active: false,
        }
    }
}

pub(crate) struct CouncilPlayer {
    name: String,
    method: Method,
    fairness: Fairness,
    settings: VoteSettings,
    members: Vec<Member>,
}

impl CouncilPlayer {
    pub fn new(
        name: &str,
        method: Method,
        fairness: Fairness,
        settings: VoteSettings,
        members: Vec<Member>,
    ) -> Self {
        Self {
            name: name.to_string(),
            method,
            fairness,
            settings,
            members,
        }
    }

    /// The MultiPV lines the members are asked for: the approval ballot's length, else one.
    fn lines_wanted(&self) -> usize {
        match self.method {
            Method::Approval => self.settings.k,
            _ => 1,
        }
    }

    fn strongest(&self) -> usize {
        let sigma: Vec<f64> = self.members.iter().map(|m| m.sigma).collect();
        vote::strongest(&sigma).unwrap_or(0)
    }

    fn member_budget(&self, m: &Member, budget: &Budget) -> Budget {
        if !m.limits.is_empty() {
            Budget::per_move(&m.limits)
        } else {
            match self.fairness {
                Fairness::Full => *budget,
                Fairness::Shared => budget.shared(self.members.len()),
            }
        }
    }

    /// One council move: ask every member still in the game, hear their answers, tally.
    async fn decide(&mut self, req: &MoveRequest) -> Result<Thought, PlayerError> {
        let answers = self.ask_members(req).await;
        let hearing = self.hear(req, answers);
        self.tally(req, hearing)
    }

    /// Every active member thinks on the position at once, with its budget and a deadline a
    /// little before the council's; `None` for a member that sits out this game.
    async fn ask_members(
        &mut self,
        req: &MoveRequest,
    ) -> Vec<Option<Result<Thought, PlayerError>>> {
        let deadline = member_deadline(req.deadline, tokio::time::Instant::now());
        let multipv = self.lines_wanted();
        let requests: Vec<Option<MoveRequest>> = self
            .members
            .iter()
            .map(|m| {
                m.active.then(|| MoveRequest {
                    budget: self.member_budget(m, &req.budget),
                    deadline,
                    multipv,
                    ..req.clone()
                })
            })
            .collect();
        futures::future::join_all(
            self.members
                .iter_mut()
                .zip(&requests)
                .map(|(m, r)| async move {
                    match r {
                        Some(r) => Some(m.player.think(r).await),
                        None => None,
                    }
                }),
        )
        .await
    }

    /// The members' answers as ballots: a member that failed leaves the game, a move that is
    /// malformed or illegal in the position is recorded and left out of the vote.
    fn hear(
        &mut self,
        req: &MoveRequest,
        answers: Vec<Option<Result<Thought, PlayerError>>>,
    ) -> Hearing {
        let mut h = Hearing::default();
        for (i, answer) in answers.into_iter().enumerate() {
            let m = &mut self.members[i];
            let mut vote = MemberVote {
                name: m.player.name().to_string(),
                mv: None,
                score: None,
                error: None,
                time_ms: 0,
                nodes: None,
                ranked: Vec::new(),
                weight: m.weight,
            };
            let thought = match answer {
                None => {
                    vote.error = Some("out of this game after an earlier failure".into());
                    None
                }
                Some(Err(e)) => {
                    m.active = false;
                    vote.error = Some(e.to_string());
                    h.first_error.get_or_insert(e);
                    None
                }
                Some(Ok(t)) => {
                    h.engine_time = h.engine_time.max(t.engine_time);
                    vote.time_ms = t.engine_time.as_millis() as u64;
                    vote.nodes = t.nodes;
                    vote.score = t.eval;
                    match check_move(req, &t.decision) {
                        Ok(()) => {
                            vote.mv = Some(t.decision.as_usi().to_string());
                            let ballot = Ballot {
                                mv: t.decision.as_usi().to_string(),
                                eval: t.eval,
                                win_rate_t: m.win_rate_t,
                                sigma: m.sigma,
                                weight: m.weight,
                                ranked: ranked_moves(req, &t),
                            };
                            if self.method == Method::Approval {
                                vote.ranked = ballot
                                    .ranking()
                                    .take(self.settings.k)
                                    .map(String::from)
                                    .collect();
                            }
                            h.ballots.push(ballot);
                            h.ballot_member.push(i);
                        }
                        Err(e) => vote.error = Some(e),
                    }
                    Some(t)
                }
            };
            h.thoughts.push(thought);
            h.member_votes.push(vote);
        }
        h
    }

    /// The vote and what the council answers: the chosen move, the speaker's score on the
    /// common scale and its pv, every member's nodes, and the vote record (with member
    /// councils' records after it). Fails only when no member gave a legal move.
    fn tally(&self, req: &MoveRequest, mut h: Hearing) -> Result<Thought, PlayerError> {
        let Some(choice) = vote::decide(self.method, self.settings, &h.ballots) else {
            return Err(h.first_error.unwrap_or_else(|| PlayerError::Malformed {
                player: self.name.clone(),
                detail: "no member gave a legal move".into(),
            }));
        };
        let speaker = h.ballot_member[choice.speaker];
        let strongest = self.strongest();
        let strongest_move = h.member_votes[strongest].mv.clone();
        let mut votes = vec![CouncilVote {
            ply: req.position.moves().len() as u32,
            council: self.name.clone(),
            method: self.method,
            chosen: choice.mv.clone(),
            rule: choice.rule,
            strongest: h.member_votes[strongest].name.clone(),
            overrode_strongest: strongest_move.is_some_and(|m| m != choice.mv),
            members: h.member_votes,
        }];
        let mut nodes = 0;
        for t in h.thoughts.iter_mut().flatten() {
            nodes += t.nodes.unwrap_or(0);
            votes.append(&mut t.votes);
        }
        let Some(spoken) = h.thoughts[speaker].take() else {
            unreachable!("the speaker answered");
        };
        let t = self.members[speaker].win_rate_t;
        // Under approval the speaker may have named the move below its first: that line's score
        // and the move alone as the pv.
        let (eval, pv) = if spoken.decision.as_usi() == choice.mv {
            (spoken.eval, spoken.pv)
        } else {
            let line = spoken.lines.iter().find(|(mv, _)| *mv == choice.mv);
            (line.and_then(|l| l.1), vec![choice.mv.clone()])
        };
        Ok(Thought {
            decision: Decision::from_usi(&choice.mv),
            eval: eval.map(|e| vote::on_common_scale(e, t)),
            pv,
            depth: spoken.depth,
            nodes: Some(nodes),
            engine_time: h.engine_time,
            votes,
            lines: Vec::new(),
        })
    }
}

/// What the members said on one position, ready for the vote.
#[derive(Default)]
struct Hearing {
    /// One per member, in member order: its part of the vote record.
    member_votes: Vec<MemberVote>,
    /// The legal answers, and the member behind each.
    ballots: Vec<Ballot>,
    ballot_member: Vec<usize>,
    /// Each member's answer, when it gave one.
    thoughts: Vec<Option<Thought>>,
    first_error: Option<PlayerError>,
    /// The slowest member's thinking time.
    engine_time: Duration,
}

/// A member's MultiPV moves that are legal in the position (others are left out of its ranked
/// ballot, as an illegal first move is left out of the vote).
fn ranked_moves(req: &MoveRequest, t: &Thought) -> Vec<String> {
    t.lines
        .iter()
        .filter(|(mv, _)| req.position.parse_usi_move(mv).is_ok())
        .map(|(mv, _)| mv.clone())
        .collect()
}

/// A member's move must parse as a move of the position (`resign` and `win` are voted on as
/// they are; the arbiter judges them if they win the vote).
fn check_move(req: &MoveRequest, decision: &Decision) -> Result<(), String> {
    match decision {
        Decision::Move(text) => req
            .position
            .parse_usi_move(text)
            .map(|_| ())
            .map_err(|e| format!("`{text}` rejected: {e}")),
        _ => Ok(()),
    }
}

impl Player for CouncilPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        Box::pin(async move {
            // Each member its own stream of the game's seed, so members' noise differs.
            let results = futures::future::join_all(self.members.iter_mut().enumerate().map(
                |(i, m)| async move {
                    let r = m
                        .player
                        .new_game(crate::seed::game_seed(seed, i as u64 + 1))
                        .await;
                    m.active = r.is_ok();
                    r
                },
            ))
            .await;
            if self.members.iter().any(|m| m.active) {
                for e in results.into_iter().filter_map(Result::err) {
                    tracing::warn!(council = %self.name, "member sits out this game: {e}");
                }
                Ok(())
            } else {
                results
                    .into_iter()
                    .find_map(Result::err)
                    .map_or(Ok(()), Err)
            }
        })
    }

    fn think<'a>(
        &'a mut self,
        req: &'a MoveRequest,
    ) -> BoxFuture<'a, Result<Thought, PlayerError>> {
        Box::pin(self.decide(req))
    }

    fn game_over(&mut self, outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            futures::future::join_all(
                self.members
                    .iter_mut()
                    .filter(|m| m.active)
                    .map(|m| m.player.game_over(outcome)),
            )
            .await;
        })
    }

    fn shutdown(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            futures::future::join_all(self.members.iter_mut().map(|m| m.player.shutdown())).await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_must_answer_before_the_council_has_to() {
        let now = tokio::time::Instant::now();
        let ms = Duration::from_millis;
        assert_eq!(member_deadline(now + ms(2000), now), now + ms(1800));
        assert_eq!(member_deadline(now + ms(60_000), now), now + ms(59_500));
        assert_eq!(member_deadline(now, now), now);
    }
}
