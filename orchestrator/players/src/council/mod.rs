//! A council: a [`Player`] made of member players that think on the same position at the same
//! time; their answers are combined by the pure rules of [`vote`].
//!
//! Invariants: members think concurrently (each in-process member on its own blocking thread,
//! each USI member in its own process); a member's move that is malformed or illegal in the
//! position is logged and left out of the vote (the council knows the rules; a single engine
//! that plays such a move loses by it); the council fails only when no member answered. Every
//! decision is logged as a [`CouncilVote`].
//!
//! Time (docs/guide/clocks.md): under a clock the members are sent the allocation of
//! [`crate::player::time::allocate`] and the council stops waiting at its deadline: a member
//! that has not answered is stopped (USI `stop`, an in-process member's stop flag), its ballot
//! is recorded as late and left out of the vote, and it stays in the game. Only a member that
//! crashes, answers with garbage or does not even answer `stop` within its grace sits out the
//! rest of the game (it restarts at the next). With `ponder = true` the council ponders, after
//! its move, on the reply most of its members' pvs expect.
//!
//! In a GUI's tree (a [`Live`] hook, `council-usi`) it also registers its [`Tally`] on the
//! progress board at each move, so the GUI is shown its current choice and ranking while its
//! members think; with MultiPV asked it asks its members for as many lines and answers with its
//! ranking of moves ([`vote::rank`]); and it ponders when asked, whatever its `ponder` key says.

pub mod vote;

use std::convert::Infallible;
use std::time::Duration;

use tokio::time::Instant;

use crate::player::live::{Board, Line, Live, Tally};
use crate::player::time::{self, Allocation};
use crate::player::{
    BoxFuture, Budget, Decision, MoveRequest, Outcome, Player, PlayerError, Thought,
};
use council_schema::config::{Fairness, Limits};
use council_schema::results::votes::{CouncilVote, MemberVote};
use engine::position::Position;
use vote::{Ballot, Method, VoteSettings, Voter};

/// The most a council keeps back from its own deadline: time to vote with the members that did
/// answer when another one hangs.
const DEADLINE_RESERVE: Duration = Duration::from_millis(500);

/// Without a clock (node, depth or movetime budgets), the deadline the members get: the
/// council's, less a tenth of the time left (at most [`DEADLINE_RESERVE`]), so a member that
/// hangs is stopped while the council can still answer in time with the others' votes instead
/// of losing on time with them. Under a clock, [`time::allocate`] says instead.
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
    /// The move it answered at the council's last move (its own expected reply after it, when
    /// the council played it, is what pondering starts from).
    last_answer: Option<String>,
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
            last_answer: None,
        }
    }
}

pub(crate) struct CouncilPlayer {
    name: String,
    method: Method,
    fairness: Fairness,
    settings: VoteSettings,
    members: Vec<Member>,
    /// Under a clock, kept back from each move, ms ([`time::allocate`]).
    reserve_ms: u64,
    /// `ponder = true`: its members ponder on the reply it expects after each of its moves.
    ponder: bool,
    /// The move it played last.
    last_move: Option<String>,
    /// A GUI's hook (see the module's docs).
    live: Option<Live>,
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
            reserve_ms: council_schema::config::DEFAULT_RESERVE_MS,
            ponder: false,
            last_move: None,
            live: None,
        }
    }

    /// In a GUI's tree when `live` is given (see the module's docs).
    pub fn with_live(mut self, live: Option<Live>) -> Self {
        self.live = live;
        self
    }

    /// With a reserve of `reserve_ms` under a clock, pondering when `ponder`.
    pub fn with_time(mut self, reserve_ms: u64, ponder: bool) -> Self {
        self.reserve_ms = reserve_ms;
        self.ponder = ponder;
        self
    }

    /// The MultiPV lines the members are asked for: the approval ballot's length, else one;
    /// in a GUI's tree at least the lines `req` asks for.
    fn lines_wanted(&self, req: &MoveRequest) -> usize {
        let ballot = match self.method {
            Method::Approval => self.settings.k,
            _ => 1,
        };
        match self.live {
            Some(_) => ballot.max(req.multipv),
            None => ballot,
        }
    }

    /// What its tally on the progress board needs to know of it, on `position`.
    fn tally_view(&self, position: &Position) -> CouncilTally {
        CouncilTally {
            method: self.method,
            settings: self.settings,
            position: position.clone(),
            seats: self
                .members
                .iter()
                .map(|m| Seat {
                    name: m.player.name().to_string(),
                    win_rate_t: m.win_rate_t,
                    sigma: m.sigma,
                    weight: m.weight,
                })
                .collect(),
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
        let asked = Instant::now();
        if let Some(live) = &self.live {
            let tally = std::sync::Arc::new(self.tally_view(&req.position));
            live.progress.register(&self.name, tally);
        }
        let (requests, deadline) = self.member_requests(req, asked);
        let answers = futures::future::join_all(self.members.iter_mut().zip(&requests).map(
            |(m, r)| async move {
                match r {
                    Some(r) => Some((m.player.think(r).await, asked.elapsed())),
                    None => None,
                }
            },
        ))
        .await;
        let mut hearing = self.hear(req, answers, deadline - asked);
        if hearing.ballots.is_empty() && hearing.late_ballots.is_empty() {
            self.wait_for_a_late_answer(req, &mut hearing, asked).await;
        }
        let thought = self.tally(req, hearing);
        self.last_move = thought
            .as_ref()
            .ok()
            .map(|t| t.decision.as_usi().to_string());
        thought
    }

    /// No member answered in time, nor in the moment after `stop`: rather than lose on time,
    /// wait until the council's own deadline for the first stopped member to answer after all
    /// (its ballot stays late). Under a clock that deadline is the arbiter's allowance plus its
    /// margin: a move then is over the allocation but, when the answer comes, not lost.
    async fn wait_for_a_late_answer(&mut self, req: &MoveRequest, h: &mut Hearing, asked: Instant) {
        use futures::StreamExt;
        let mut waits: futures::stream::FuturesUnordered<_> = self
            .members
            .iter_mut()
            .enumerate()
            .filter(|(i, m)| m.active && h.member_votes[*i].late)
            .map(|(i, m)| {
                let weighed = (m.win_rate_t, m.sigma, m.weight);
                let answer = m.player.late_answer(req.deadline);
                async move { (i, weighed, answer.await) }
            })
            .collect();
        while let Some((i, (win_rate_t, sigma, weight), answer)) = waits.next().await {
            let Some(t) = answer else { continue };
            if check_move(req, &t.decision).is_err() {
                continue;
            }
            let took = asked.elapsed();
            h.engine_time = h.engine_time.max(took);
            let vote = &mut h.member_votes[i];
            vote.time_ms = took.as_millis() as u64;
            vote.nodes = t.nodes;
            vote.score = t.eval;
            vote.error = Some(format!(
                "late: answered `{}` after {} ms, past the council's deadline",
                t.decision.as_usi(),
                took.as_millis()
            ));
            h.late_ballots.push((
                Ballot {
                    mv: t.decision.as_usi().to_string(),
                    eval: t.eval,
                    win_rate_t,
                    sigma,
                    weight,
                    ranked: ranked_moves(req, &t),
                },
                i,
            ));
            h.thoughts[i] = Some(t);
            break;
        }
    }

    /// What each active member is asked for a move of the council's on `req.position`'s side
    /// to move (`None` for a member that sits out this game), and the deadline the council
    /// keeps for them: under a clock [`time::allocate`]'s, else [`member_deadline`].
    fn member_requests(
        &self,
        req: &MoveRequest,
        asked: Instant,
    ) -> (Vec<Option<MoveRequest>>, Instant) {
        let mover = req.position.side_to_move();
        let allocation: Option<Allocation> = req
            .budget
            .clock
            .map(|c| time::allocate(&c, mover, self.reserve_ms));
        let deadline = match allocation {
            Some(a) => a.deadline(asked).min(req.deadline),
            None => member_deadline(req.deadline, asked),
        };
        let shared = (self.fairness == Fairness::Shared).then_some(self.members.len());
        let multipv = self.lines_wanted(req);
        let requests = self
            .members
            .iter()
            .map(|m| {
                m.active.then(|| {
                    let mut budget = self.member_budget(m, &req.budget);
                    if let Some(a) = allocation
                        && m.limits.is_empty()
                    {
                        budget.clock = Some(a.member_clock(shared));
                    }
                    MoveRequest {
                        budget,
                        deadline,
                        multipv,
                        ..req.clone()
                    }
                })
            })
            .collect();
        (requests, deadline)
    }

    /// The reply most members expect to the council's last move, legal in `after`: the most
    /// common of the replies the members that answered that move expect
    /// ([`Player::expected_reply`]: the one an engine named in `bestmove M ponder R`, else its
    /// pv's second move), the first such member's on a tie. The one rule: what it ponders on,
    /// and what `council-usi` names as `ponder`.
    fn reply_most_expect(&self, after: &Position) -> Option<String> {
        let played = self.last_move.as_deref()?;
        let mut counts: Vec<(String, usize)> = Vec::new();
        for m in self.members.iter().filter(|m| m.active) {
            if m.last_answer.as_deref() != Some(played) {
                continue;
            }
            let Some(reply) = m.player.expected_reply(after) else {
                continue;
            };
            match counts.iter_mut().find(|(r, _)| *r == reply) {
                Some((_, n)) => *n += 1,
                None => counts.push((reply, 1)),
            }
        }
        let best = counts.iter().map(|&(_, n)| n).max()?;
        let (reply, _) = counts.into_iter().find(|&(_, n)| n == best)?;
        Some(reply)
    }

    /// The members' answers as ballots, each with the time it took from the request on: a
    /// member that timed out was stopped at the deadline (`wait` after the request) and is late
    /// (it stays in the game), one that answered after it is late too and its move is left out
    /// of the vote unless no member answered in time; a
    /// member that failed otherwise leaves the game; a move that is malformed or illegal in the
    /// position is recorded and left out of the vote.
    fn hear(
        &mut self,
        req: &MoveRequest,
        answers: Vec<Option<(Result<Thought, PlayerError>, Duration)>>,
        wait: Duration,
    ) -> Hearing {
        let mut h = Hearing::default();
        for (i, answer) in answers.into_iter().enumerate() {
            let m = &mut self.members[i];
            m.last_answer = None;
            let mut vote = MemberVote {
                name: m.player.name().to_string(),
                mv: None,
                score: None,
                error: None,
                time_ms: 0,
                nodes: None,
                ranked: Vec::new(),
                weight: m.weight,
                late: false,
            };
            let thought = match answer {
                None => {
                    vote.error = Some("out of this game after an earlier failure".into());
                    None
                }
                Some((Err(e), took)) => {
                    vote.time_ms = took.as_millis() as u64;
                    if matches!(e, PlayerError::Timeout { .. }) {
                        // Stopped at the deadline: late, but still in the game.
                        vote.late = true;
                        h.engine_time = h.engine_time.max(took);
                    } else {
                        m.active = false;
                    }
                    vote.error = Some(e.to_string());
                    h.first_error.get_or_insert(e);
                    None
                }
                Some((Ok(t), took)) => {
                    let late = took > wait;
                    m.last_answer = Some(t.decision.as_usi().to_string());
                    vote.nodes = t.nodes;
                    vote.score = t.eval;
                    if late {
                        h.engine_time = h.engine_time.max(took);
                        vote.time_ms = took.as_millis() as u64;
                        vote.late = true;
                        vote.error = Some(format!(
                            "late: answered `{}` after {} ms, past the council's deadline",
                            t.decision.as_usi(),
                            took.as_millis()
                        ));
                        h.first_error.get_or_insert(PlayerError::Timeout {
                            player: vote.name.clone(),
                            detail: "answered after the council's deadline".into(),
                        });
                    } else {
                        h.engine_time = h.engine_time.max(t.engine_time);
                        vote.time_ms = t.engine_time.as_millis() as u64;
                    }
                    match check_move(req, &t.decision) {
                        Ok(()) => {
                            let ballot = Ballot {
                                mv: t.decision.as_usi().to_string(),
                                eval: t.eval,
                                win_rate_t: m.win_rate_t,
                                sigma: m.sigma,
                                weight: m.weight,
                                ranked: ranked_moves(req, &t),
                            };
                            if late {
                                h.late_ballots.push((ballot, i));
                            } else {
                                if self.method == Method::Approval {
                                    vote.ranked = ballot
                                        .ranking()
                                        .take(self.settings.k)
                                        .map(String::from)
                                        .collect();
                                }
                                vote.mv = Some(ballot.mv.clone());
                                h.ballots.push(ballot);
                                h.ballot_member.push(i);
                            }
                        }
                        Err(e) if !late => vote.error = Some(e.to_string()),
                        Err(_) => {}
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
        if h.ballots.is_empty() {
            // No member answered in time: rather than lose on time, vote with the answers that
            // came in the moment after `stop` (they stay marked late).
            for (ballot, i) in std::mem::take(&mut h.late_ballots) {
                h.member_votes[i].mv = Some(ballot.mv.clone());
                h.ballots.push(ballot);
                h.ballot_member.push(i);
            }
        }
        let Some(choice) = vote::decide(self.method, self.settings, &h.ballots) else {
            return Err(h.first_error.unwrap_or_else(|| PlayerError::Malformed {
                player: self.name.clone(),
                detail: "no member gave a legal move".into(),
            }));
        };
        let lines = match &self.live {
            Some(_) if req.multipv > 1 => {
                ranking(self.method, self.settings, &h, &choice.mv, req.multipv)
            }
            _ => Vec::new(),
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
            lines,
        })
    }
}

/// The council's ranking of moves on the ballots it voted with, at most `n`, each with its
/// speaker's score on the common scale; `chosen` (the vote's move) first.
fn ranking(
    method: Method,
    settings: VoteSettings,
    h: &Hearing,
    chosen: &str,
    n: usize,
) -> Vec<(String, Option<engine::types::Score>)> {
    let voters: Vec<Voter> = h
        .ballots
        .iter()
        .zip(&h.ballot_member)
        .map(|(b, &i)| {
            let lines = h.thoughts[i].as_ref().map_or(&[][..], |t| &t.lines[..]);
            let score = |mv: &str| {
                if mv == b.mv {
                    b.eval
                } else {
                    lines.iter().find(|(m, _)| m == mv).and_then(|(_, e)| *e)
                }
            };
            Voter {
                moves: b.ranking().map(|m| (m.to_string(), score(m))).collect(),
                win_rate_t: b.win_rate_t,
                sigma: b.sigma,
                weight: b.weight,
            }
        })
        .collect();
    let mut rows: Vec<(String, Option<engine::types::Score>)> =
        vote::rank(method, settings, &voters, n)
            .into_iter()
            .map(|r| {
                let t = voters[r.voter].win_rate_t;
                (r.mv, r.eval.map(|e| vote::on_common_scale(e, t)))
            })
            .collect();
    // The first row is the vote's choice by construction; kept so whatever the ballots.
    if rows.first().map(|(mv, _)| mv.as_str()) != Some(chosen) {
        rows.retain(|(mv, _)| mv != chosen);
        rows.insert(0, (chosen.to_string(), None));
        rows.truncate(n);
    }
    rows
}

/// A member as the council's tally weighs it.
struct Seat {
    name: String,
    win_rate_t: f64,
    sigma: f64,
    weight: f64,
}

/// The council's current ranking on the progress board: its members' latest lines voted on as
/// if they were their answers now.
struct CouncilTally {
    method: Method,
    settings: VoteSettings,
    position: Position,
    seats: Vec<Seat>,
}

impl Tally for CouncilTally {
    /// Each row: the move, its speaker's score on the common scale, pv and depth; the members'
    /// nodes summed and the longest member's time (a sum of depths would mean nothing).
    fn rows(&self, board: &Board, n: usize) -> Vec<Line> {
        let want = match self.method {
            Method::Approval => n.max(self.settings.k),
            _ => n,
        };
        let lines: Vec<Vec<Line>> = self
            .seats
            .iter()
            .map(|s| board.lines(&s.name, want))
            .collect();
        let voters: Vec<Voter> = self
            .seats
            .iter()
            .zip(&lines)
            .map(|(s, ls)| {
                let mut moves: Vec<(String, Option<engine::types::Score>)> = Vec::new();
                for l in ls {
                    let Some(mv) = l.pv.first() else { continue };
                    if self.position.parse_usi_move(mv).is_ok()
                        && !moves.iter().any(|(m, _)| m == mv)
                    {
                        moves.push((mv.clone(), l.score));
                    }
                }
                Voter {
                    moves,
                    win_rate_t: s.win_rate_t,
                    sigma: s.sigma,
                    weight: s.weight,
                }
            })
            .collect();
        let nodes: u64 = lines
            .iter()
            .filter_map(|ls| ls.iter().filter_map(|l| l.nodes).max())
            .sum();
        let time = lines
            .iter()
            .flatten()
            .map(|l| l.time)
            .max()
            .unwrap_or_default();
        vote::rank(self.method, self.settings, &voters, n)
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let line = lines[r.voter].iter().find(|l| l.pv.first() == Some(&r.mv));
                Line {
                    multipv: i as u32 + 1,
                    depth: line.and_then(|l| l.depth),
                    nodes: Some(nodes),
                    time,
                    score: r
                        .eval
                        .map(|e| vote::on_common_scale(e, self.seats[r.voter].win_rate_t)),
                    pv: line.map_or_else(|| vec![r.mv.clone()], |l| l.pv.clone()),
                }
            })
            .collect()
    }

    fn members(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.name.clone()).collect()
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
    /// Legal answers that came after the deadline, and the member behind each: voted with only
    /// when no member answered in time.
    late_ballots: Vec<(Ballot, usize)>,
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

/// A member's move that is not a move of the position.
#[derive(Debug, thiserror::Error)]
#[error("`{text}` rejected: {error}")]
struct Rejected {
    text: String,
    error: engine::position::MoveError,
}

/// A member's move must parse as a move of the position (`resign` and `win` are voted on as
/// they are; the arbiter judges them if they win the vote).
fn check_move(req: &MoveRequest, decision: &Decision) -> Result<(), Rejected> {
    match decision {
        Decision::Move(text) => req
            .position
            .parse_usi_move(text)
            .map(|_| ())
            .map_err(|error| Rejected {
                text: text.clone(),
                error,
            }),
        _ => Ok(()),
    }
}

impl Player for CouncilPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        Box::pin(async move {
            self.last_move = None;
            // Each member its own stream of the game's seed, so members' noise differs.
            let results = futures::future::join_all(self.members.iter_mut().enumerate().map(
                |(i, m)| async move {
                    let r = m
                        .player
                        .new_game(council_schema::seed::game_seed(seed, i as u64 + 1))
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

    fn ponders(&self) -> bool {
        self.ponder
    }

    fn ponder<'a>(
        &'a mut self,
        req: &'a MoveRequest,
        expected: Option<&'a str>,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            if !self.ponder && self.live.is_none() {
                return None;
            }
            let expected = match expected {
                Some(e) => e.to_string(),
                None => self.reply_most_expect(&req.position)?,
            };
            let mv = req.position.parse_usi_move(&expected).ok()?;
            // The members' requests as for the council's next move, after the expected reply.
            let mut next = req.clone();
            std::sync::Arc::make_mut(&mut next.position).play(mv);
            let (requests, _) = self.member_requests(&next, Instant::now());
            let pondering =
                futures::future::join_all(self.members.iter_mut().zip(requests).map(|(m, r)| {
                    let expected = expected.as_str();
                    async move {
                        let r = r.map(|r| MoveRequest {
                            position: req.position.clone(),
                            ..r
                        });
                        match &r {
                            Some(r) => m.player.ponder(r, Some(expected)).await,
                            None => None,
                        }
                    }
                }))
                .await;
            pondering.iter().any(Option::is_some).then_some(expected)
        })
    }

    fn expected_reply(&self, after: &Position) -> Option<String> {
        self.reply_most_expect(after)
    }

    fn idle(&mut self) -> BoxFuture<'_, Infallible> {
        // Every member's processes, pondering or not (a member that sits out has none running).
        let members: Vec<_> = self.members.iter_mut().map(|m| m.player.idle()).collect();
        if members.is_empty() {
            return Box::pin(std::future::pending());
        }
        Box::pin(async move { futures::future::select_all(members).await.0 })
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
