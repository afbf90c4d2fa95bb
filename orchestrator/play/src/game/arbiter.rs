//! The arbiter of one game: the only holder of the position, both clocks, the resign tracker and
//! the game's sheet, so that what a game records cannot drift from what was judged.
//!
//! A game is three steps, repeated: **ask** the side to move (its request, its deadline, the
//! arbiter's own measurement of the time it took), **judge** the answer (a move from the full
//! legal-move list, or the end of the game with its winner, reason and detail), and at the end
//! **finish** (tell both players, hand over the [`PlayedGame`]). Asking does I/O; judging does
//! none, so every rule of a game can be tested on plain data. The rules themselves live in
//! `adjudicate`; nothing a player says is trusted.

use std::sync::Arc;
use std::time::Duration;

use engine::clock::{Clocks, Late, SideClock};
use engine::position::{Handicap, Position};
use engine::types::{ByColor, Color};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::adjudicate::{
    DrawTracker, ResignTracker, Verdict, failure_verdict, impasse_verdict, max_plies_verdict,
    play_move, position_verdict,
};
use super::feed::{ClockView, GameStart, MoveEvent, RunFeed};
use super::sheet::{Heading, PlayedGame, Sheet};
use council_players::player::{
    Budget, Decision, MoveRequest, Outcome, Player, PlayerError, Thought,
};
use council_schema::config::{Config, PlayerConfig};
use council_schema::results::{Reason, Winner};
use council_schema::run::schedule::{GameSpec, Start};

/// The start of a game: the position as the arbiter holds it.
pub(crate) struct StartPosition {
    /// SFEN of the base position.
    pub(crate) sfen: String,
    /// Opening moves played from the base.
    pub(crate) opening: Vec<String>,
    /// The position after the opening.
    pub(crate) position: Position,
    pub(crate) handicap: Option<String>,
}

/// A start position that cannot be set up (the config's validation makes this a bug).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    #[error("handicap `{name}`: {problem}")]
    Handicap { name: String, problem: String },
    #[error("`{text}`: {problem}")]
    Position { text: String, problem: String },
}

/// Build a start position (already validated with the config; errors here name the problem).
pub(crate) fn start_position(start: &Start) -> Result<StartPosition, StartError> {
    match start {
        Start::Handicap(name) => {
            let h: Handicap = name
                .parse()
                .map_err(
                    |e: engine::position::UnknownHandicap| StartError::Handicap {
                        name: name.clone(),
                        problem: e.to_string(),
                    },
                )?;
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
            let position = Position::from_start_text(text).map_err(|e| StartError::Position {
                text: text.clone(),
                problem: e.to_string(),
            })?;
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

/// The game was cancelled: it is not finished and must not be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cancelled;

/// The mover's answer as the arbiter received it, with the arbiter's own timings.
#[derive(Debug)]
pub(crate) struct Answer {
    /// When the arbiter began to ask (the start of the move's overhead).
    pub(crate) asked: Instant,
    /// How long the player took to answer, measured by the arbiter.
    pub(crate) spent: Duration,
    pub(crate) reply: Result<Thought, PlayerError>,
}

/// What the arbiter ruled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Judgement {
    /// The game goes on: the side now to move is asked next.
    Continue,
    End(Verdict),
}

impl From<Option<Verdict>> for Judgement {
    fn from(v: Option<Verdict>) -> Self {
        v.map_or(Judgement::Continue, Judgement::End)
    }
}

/// One game's referee.
pub(crate) struct Arbiter<'a> {
    spec: &'a GameSpec,
    players: ByColor<&'a PlayerConfig>,
    max_plies: usize,
    /// Grace past a clock or deadline before a move is a timeout.
    margin: Duration,
    /// The one position of the game (the start's SFEN and opening are on the sheet): shared
    /// with the requests (no copy per move), played on in place once they are gone.
    position: Arc<Position>,
    /// Each side's clock, `None` for a side without one.
    clocks: ByColor<Option<SideClock>>,
    resign: ResignTracker,
    draw: DrawTracker,
    sheet: Sheet,
    /// Thinking time each side has used, ms (for a watcher's clocks).
    used_ms: ByColor<u64>,
    /// Who hears of each move as it is played (the live page); `None`: nobody.
    feed: Option<Arc<dyn RunFeed>>,
    /// The reply each side ponders on in its opponent's time (`ponder = true`).
    pondering: ByColor<Option<String>>,
}

impl<'a> Arbiter<'a> {
    /// Set up the board for `spec`. `Err` names a start position that cannot be set up.
    pub(crate) fn new(config: &'a Config, spec: &'a GameSpec) -> Result<Self, StartError> {
        let players = ByColor {
            sente: config.player(&spec.sente),
            gote: config.player(&spec.gote),
        };
        let StartPosition {
            sfen,
            opening,
            position,
            handicap,
        } = start_position(&spec.start)?;
        let sheet = Sheet::new(
            sfen,
            handicap,
            opening,
            players.map(|p| Some(p.name.as_str())),
        );
        Ok(Arbiter {
            spec,
            players,
            max_plies: config.max_plies as usize,
            margin: Duration::from_millis(config.timeout_margin_ms),
            position: Arc::new(position),
            sheet,
            clocks: players.map(|p| p.limits.time_control().map(SideClock::new)),
            resign: ResignTracker::new(config.resign),
            draw: DrawTracker::new(config.draw),
            used_ms: ByColor::default(),
            feed: None,
            pondering: ByColor::default(),
        })
    }

    /// Tell `feed` of the game's start and of every move played.
    pub(crate) fn with_feed(mut self, feed: Option<Arc<dyn RunFeed>>) -> Self {
        self.feed = feed;
        self
    }

    /// Both clocks as a watcher sees them.
    fn clock_views(&self) -> ByColor<ClockView> {
        ByColor::new_with(|side| {
            let c = self.clocks[side].unwrap_or_default();
            ClockView {
                enabled: self.clocks[side].is_some(),
                remaining_ms: c.remaining.as_millis() as u64,
                byoyomi_ms: c.byoyomi.as_millis() as u64,
                increment_ms: c.increment.as_millis() as u64,
                used_ms: self.used_ms[side],
            }
        })
    }

    /// Both players get ready; one that cannot start loses before the first move. Then the
    /// start position itself may already end the game.
    pub(crate) async fn seat(
        &self,
        players: &mut ByColor<&mut dyn Player>,
        cancel: &CancellationToken,
    ) -> Result<Judgement, Cancelled> {
        for side in [Color::Sente, Color::Gote] {
            let ready = tokio::select! {
                r = players[side].new_game(self.spec.seed) => r,
                () = cancel.cancelled() => return Err(Cancelled),
            };
            if let Err(e) = ready {
                return Ok(Judgement::End(failure_verdict(side, &e)));
            }
        }
        if let Some(feed) = &self.feed {
            feed.game_started(GameStart {
                id: self.spec.id,
                sente: self.spec.sente.clone(),
                gote: self.spec.gote.clone(),
                start: self.sheet.start().to_string(),
                moves: self.sheet.moves().to_vec(),
                sfen: self.position.to_sfen(),
                clocks: self.clock_views(),
            });
        }
        Ok(self.standing_verdict().into())
    }

    /// Ask the side to move for its move, with the deadline its budget allows. When it pondered
    /// in the opponent's time, whether it pondered on the move just played is counted; its
    /// clock runs from here either way (pondering is free).
    pub(crate) async fn ask(
        &mut self,
        players: &mut ByColor<&mut dyn Player>,
        cancel: &CancellationToken,
    ) -> Result<Answer, Cancelled> {
        let mover = self.position.side_to_move();
        self.sheet.count_ponder(mover, self.pondering[mover].take());
        let asked = Instant::now();
        let req = self.request(mover, asked);
        // The side that waits reads its engines meanwhile (its pondering lines, an exit).
        let ByColor { sente, gote } = players;
        let (asked_player, waiting) = match mover {
            Color::Sente => (sente, gote),
            Color::Gote => (gote, sente),
        };
        let think_began = Instant::now();
        let reply = tokio::select! {
            biased;
            a = asked_player.think(&req) => a,
            never = waiting.idle() => match never {},
            () = cancel.cancelled() => return Err(Cancelled),
        };
        Ok(Answer {
            asked,
            spent: think_began.elapsed(),
            reply,
        })
    }

    /// After a move that did not end the game: the side that played it ponders in its
    /// opponent's time when it is a pondering player (on the reply it expects, with its clock
    /// as it now stands).
    pub(crate) async fn ponder(&mut self, players: &mut ByColor<&mut dyn Player>) {
        let side = self.position.side_to_move().opposite();
        let player = &mut players[side];
        if !player.ponders() {
            return;
        }
        let req = self.request(side, Instant::now());
        self.pondering[side] = player.ponder(&req, None).await;
    }

    /// The request for `mover` (on the current position): its per-move limits, both clocks, and a deadline of its time
    /// allowance plus the margin (or its move timeout when no time applies).
    fn request(&self, mover: Color, asked: Instant) -> MoveRequest {
        let pc = self.players[mover];
        let mut budget = Budget::per_move(&pc.limits);
        budget.clock = self.clocks[mover].map(|_| {
            let ByColor { sente, gote } = self.clocks.map(Option::unwrap_or_default);
            Clocks::new(sente, gote)
        });
        let wait = match budget.time_allowance(mover) {
            Some(t) => t + self.margin,
            None => Duration::from_millis(pc.move_timeout_ms),
        };
        MoveRequest {
            position: Arc::clone(&self.position),
            budget,
            deadline: asked + wait,
            multipv: 1,
        }
    }

    /// Judge the side to move's answer: a failure, a move over its time, a resignation, an
    /// impasse declaration or an illegal move ends the game; a legal move is played and
    /// recorded, and the game goes on unless resign adjudication or the new position ends it.
    pub(crate) fn judge(&mut self, answer: Answer) -> Judgement {
        let mover = self.position.side_to_move();
        let Thought {
            decision,
            eval,
            pv,
            engine_time,
            votes,
            ..
        } = match answer.reply {
            Ok(t) => t,
            Err(e) => return Judgement::End(failure_verdict(mover, &e)),
        };
        let name = &self.players[mover].name;
        if let Some(Err(Late { over })) = self.clocks[mover]
            .as_mut()
            .map(|c| c.charge(answer.spent, self.margin))
        {
            return Judgement::End(Verdict::loss(
                mover,
                Reason::Timeout,
                format!(
                    "{name}: took {} ms, {} ms over its time",
                    answer.spent.as_millis(),
                    over.as_millis()
                ),
            ));
        }
        let votes_before = self.sheet.votes().len();
        self.sheet.add_votes(votes);
        let verdict = match decision {
            Decision::Resign => Some(Verdict::loss(
                mover,
                Reason::Resign,
                format!("{name} resigned"),
            )),
            Decision::Win => Some(impasse_verdict(&self.position)),
            Decision::Move(text) => match play_move(Arc::make_mut(&mut self.position), name, &text)
            {
                Ok(mv) => {
                    self.sheet
                        .record_move(mv.to_usi(), answer.spent, eval, pv.clone());
                    self.used_ms[mover] += answer.spent.as_millis() as u64;
                    if let Some(feed) = &self.feed {
                        feed.moved(MoveEvent {
                            id: self.spec.id,
                            ply: self.sheet.moves().len() as u32,
                            mv: mv.to_usi(),
                            mover,
                            sfen: self.position.to_sfen(),
                            time_ms: answer.spent.as_millis() as u64,
                            score: eval,
                            pv,
                            clocks: self.clock_views(),
                            votes: self.sheet.votes()[votes_before..].to_vec(),
                        });
                    }
                    self.resign.update(mover, eval);
                    self.draw.update(eval);
                    self.resign.verdict()
                }
                Err(v) => Some(v),
            },
        };
        self.sheet
            .charge(mover, engine_time, answer.asked.elapsed());
        // Only a played move leaves no verdict yet: the position it made may end the game, by
        // the rules first, then by draw adjudication.
        verdict
            .or_else(|| self.standing_verdict())
            .or_else(|| self.draw.verdict())
            .into()
    }

    /// The end the game has reached before the side to move is asked: checkmate, repetition,
    /// perpetual check, or the maximum length.
    fn standing_verdict(&self) -> Option<Verdict> {
        position_verdict(&self.position)
            .or_else(|| max_plies_verdict(self.sheet.moves().len(), self.max_plies))
    }

    /// Tell both players how the game ended and hand over the played game.
    pub(crate) async fn finish(
        self,
        players: ByColor<&mut dyn Player>,
        verdict: Verdict,
    ) -> PlayedGame {
        for (side, p) in players.into_iter_colors() {
            let outcome = match (verdict.result, side) {
                (Winner::Draw, _) => Outcome::Draw,
                (Winner::Sente, Color::Sente) | (Winner::Gote, Color::Gote) => Outcome::Win,
                _ => Outcome::Lose,
            };
            p.game_over(outcome).await;
        }
        self.played(verdict)
    }

    /// The played game as the records and the results line hold it.
    fn played(self, verdict: Verdict) -> PlayedGame {
        let heading = self.heading();
        self.sheet.finish(heading, verdict)
    }

    /// The game's number and players, as its sheet is headed.
    fn heading(&self) -> Heading {
        Heading {
            id: self.spec.id,
            pair: self.spec.pair,
            seed: self.spec.seed,
            names: ByColor {
                sente: self.spec.sente.clone(),
                gote: self.spec.gote.clone(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use engine::types::Score;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    /// `a` (sente) against `b` (gote) from `start`, with extra `[match]` keys and `a`'s limits.
    fn config(start: &str, match_keys: &str, a_limits: &str) -> Config {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\nstart = \"{start}\"\n{match_keys}\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\n{a_limits}\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n"
        );
        Config::parse(Path::new("t.toml"), &text).expect("valid config")
    }

    fn spec(start: &str) -> GameSpec {
        GameSpec {
            id: 7,
            pair: Some(3),
            sente: "a".into(),
            gote: "b".into(),
            start: Start::Position(start.into()),
            seed: 11,
        }
    }

    fn answer(spent_ms: u64, decision: Decision) -> Answer {
        Answer {
            asked: Instant::now(),
            spent: ms(spent_ms),
            reply: Ok(Thought {
                decision,
                eval: Some(Score::Cp(-40)),
                pv: vec!["x".into()],
                depth: Some(3),
                nodes: Some(100),
                engine_time: ms(spent_ms),
                votes: Vec::new(),
                lines: Vec::new(),
            }),
        }
    }

    /// The sheet as it stands, closed as if the game ended now.
    fn so_far(a: &Arbiter<'_>) -> PlayedGame {
        let verdict = Verdict::loss(Color::Sente, Reason::Resign, "");
        a.sheet.clone().finish(a.heading(), verdict)
    }

    fn mv(text: &str) -> Decision {
        Decision::Move(text.into())
    }

    fn end(j: Judgement) -> Verdict {
        match j {
            Judgement::End(v) => v,
            Judgement::Continue => panic!("the game should have ended"),
        }
    }

    #[test]
    fn a_legal_move_is_played_recorded_and_charged() {
        let c = config("startpos", "", "byoyomi_ms = 1000\ntime_ms = 5000");
        let s = spec("startpos");
        let mut a = Arbiter::new(&c, &s).expect("start");
        assert_eq!(a.judge(answer(300, mv("7g7f"))), Judgement::Continue);
        assert_eq!(a.position.side_to_move(), Color::Gote);
        let p = so_far(&a);
        let g = &p.result;
        assert_eq!(g.moves, ["7g7f"]);
        assert_eq!(g.times_ms, [300]);
        assert_eq!(g.scores, [Some(Score::Cp(-40))]);
        assert_eq!(p.pvs, [vec!["x".to_string()]]);
        assert_eq!(
            a.clocks.sente.map(|c| c.remaining),
            Some(ms(4700)),
            "the mover's main time is charged"
        );
        assert_eq!((g.costs[0].moves, g.costs[1].moves), (1, 0));
        assert_eq!(g.costs[0].engine_us, 300_000);
        // The gote's request states both clocks as they now stand.
        let req = a.request(Color::Gote, Instant::now());
        assert_eq!(req.position.moves().len(), 1);
        assert_eq!(req.budget.clock, None, "gote has no clock of its own");
    }

    #[test]
    fn a_fischer_increment_is_credited_before_the_move() {
        let c = config(
            "startpos",
            "timeout_margin_ms = 0",
            "time_ms = 1000\nincrement_ms = 500",
        );
        let s = spec("startpos");
        let mut a = Arbiter::new(&c, &s).expect("start");
        // 1000 ms main time and this move's 500 ms increment: 1450 ms is in time.
        let req = a.request(Color::Sente, Instant::now());
        assert_eq!(req.budget.time_allowance(Color::Sente), Some(ms(1500)));
        assert_eq!(a.judge(answer(1450, mv("7g7f"))), Judgement::Continue);
        assert_eq!(a.clocks.sente.map(|c| c.remaining), Some(ms(50)));
        assert_eq!(a.judge(answer(400, mv("3c3d"))), Judgement::Continue);
        // Now 50 ms and 500 ms: 550 ms is the whole allowance, and late.
        let v = end(a.judge(answer(550, mv("2g2f"))));
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::Timeout));
    }

    #[test]
    fn a_move_past_the_clock_and_its_margin_loses_on_time_and_is_not_played() {
        let c = config("startpos", "timeout_margin_ms = 50", "byoyomi_ms = 100");
        let s = spec("startpos");
        let mut a = Arbiter::new(&c, &s).expect("start");
        // Within byoyomi plus the margin: played.
        assert_eq!(a.judge(answer(140, mv("7g7f"))), Judgement::Continue);
        assert_eq!(a.judge(answer(10, mv("3c3d"))), Judgement::Continue);
        let v = end(a.judge(answer(160, mv("2g2f"))));
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::Timeout));
        assert_eq!(v.detail, "a: took 160 ms, 60 ms over its time");
        assert_eq!(
            a.sheet.moves(),
            ["7g7f", "3c3d"],
            "the late move is not played"
        );
        assert_eq!(
            so_far(&a).result.costs[0].moves,
            1,
            "a move over time costs nothing"
        );
    }

    #[test]
    fn an_illegal_move_loses_with_the_rule_it_breaks_and_is_not_played() {
        // Sente to move with a pawn in hand; P*1b would be a pawn-drop mate.
        let sfen = "7lk/7p1/9/7N1/9/9/9/9/4K4 b P 1";
        let c = config(sfen, "", "nodes = 10");
        let s = spec(sfen);
        let mut a = Arbiter::new(&c, &s).expect("start");
        let v = end(a.judge(answer(5, mv("P*1b"))));
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::IllegalMove));
        assert!(v.detail.starts_with("a played `P*1b`"), "{}", v.detail);
        assert!(v.detail.contains("uchifuzume"), "{}", v.detail);
        assert!(a.sheet.moves().is_empty() && so_far(&a).result.times_ms.is_empty());
        assert_eq!(
            a.position.side_to_move(),
            Color::Sente,
            "the board is untouched"
        );
        // Text that is no USI move at all is malformed, not illegal.
        let mut a = Arbiter::new(&c, &s).expect("start");
        let v = end(a.judge(answer(5, mv("pawn to 1c"))));
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::MalformedMove));
    }

    #[test]
    fn a_win_declaration_is_checked_not_trusted() {
        let c = config("startpos", "", "nodes = 10");
        let s = spec("startpos");
        let mut a = Arbiter::new(&c, &s).expect("start");
        let v = end(a.judge(answer(5, Decision::Win)));
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::IllegalImpasse));
        assert!(v.detail.contains("27-point rule"), "{}", v.detail);
    }

    #[test]
    fn resignation_and_failures_end_the_game_for_the_mover() {
        let c = config("startpos", "", "nodes = 10");
        let s = spec("startpos");
        let mut a = Arbiter::new(&c, &s).expect("start");
        assert_eq!(a.judge(answer(5, mv("7g7f"))), Judgement::Continue);
        let v = end(a.judge(answer(5, Decision::Resign)));
        assert_eq!(
            (v.result, v.reason, v.detail.as_str()),
            (Winner::Sente, Reason::Resign, "b resigned")
        );

        let mut a = Arbiter::new(&c, &s).expect("start");
        let crash = PlayerError::Crash {
            player: "a".into(),
            detail: "exit status 1".into(),
        };
        let v = end(a.judge(Answer {
            asked: Instant::now(),
            spent: ms(5),
            reply: Err(crash.clone()),
        }));
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::Crash));
        assert_eq!(v.detail, crash.to_string());
        assert_eq!(so_far(&a).result.costs[0].moves, 0, "no answer, no cost");
    }

    #[test]
    fn the_position_a_move_makes_can_end_the_game() {
        // A gold drop on 1b, guarded by the pawn on 1c, mates the boxed-in king.
        let sfen = "7nk/7s1/8P/9/9/9/9/9/4K4 b G 1";
        let c = config(sfen, "", "nodes = 10");
        let s = spec(sfen);
        let mut a = Arbiter::new(&c, &s).expect("start");
        let v = end(a.judge(answer(5, mv("G*1b"))));
        assert_eq!((v.result, v.reason), (Winner::Sente, Reason::Checkmate));
        assert_eq!(a.sheet.moves(), ["G*1b"], "the mating move is recorded");

        // The maximum length counts the opening's moves too.
        let c = config("startpos moves 7g7f", "max_plies = 2", "nodes = 10");
        let s = spec("startpos moves 7g7f");
        let mut a = Arbiter::new(&c, &s).expect("start");
        assert_eq!(a.standing_verdict(), None);
        let v = end(a.judge(answer(5, mv("3c3d"))));
        assert_eq!(
            (v.result, v.reason, v.detail.as_str()),
            (Winner::Draw, Reason::MaxPlies, "2 plies without a result")
        );
    }

    #[test]
    fn the_played_game_holds_the_record_and_the_verdict() {
        let c = config("startpos moves 7g7f", "", "nodes = 10");
        let s = spec("startpos moves 7g7f");
        let mut a = Arbiter::new(&c, &s).expect("start");
        assert_eq!(a.judge(answer(20, mv("3c3d"))), Judgement::Continue);
        let v = end(a.judge(answer(5, Decision::Resign)));
        let p = a.played(v);
        let g = &p.result;
        assert_eq!((g.id, g.pair, g.seed), (7, Some(3), 11));
        assert_eq!(g.moves, ["7g7f", "3c3d"]);
        assert_eq!((g.plies, p.opening_plies, g.opening_plies), (2, 1, Some(1)));
        assert_eq!((g.result, g.reason), (Winner::Gote, Reason::Resign));
        assert_eq!(g.detail.as_deref(), Some("a resigned"));
        assert_eq!(g.times_ms, [20], "opening moves have no time");
        assert_eq!(p.pvs.len(), 1);
        assert_eq!(g.costs.len(), 2);
        assert_eq!((g.costs[0].moves, g.costs[1].moves), (1, 1));
    }
}
