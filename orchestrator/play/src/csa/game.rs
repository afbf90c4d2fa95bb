//! One game on a CSA server, from `START` to the server's verdict (or the end of the connection,
//! or a stop): the position, both clocks as the server keeps them, the player asked for our
//! moves and pondering in the opponent's time, and the game's sheet (the arbiter's own, which
//! becomes the game's records and its `results.jsonl` line as in `council-match`).
//!
//! The server is the arbiter here: a move counts when the server echoes it (`+7776FU,T3`),
//! both clocks are charged with the server's own `,T` times by the one clock's rule (the
//! increment credited before the move; shogi-server's), and the result is the server's `#`
//! lines. The client still checks its own side with the arbiter's rules before sending
//! anything: a move that is not legal is never sent (the client resigns instead), and `%KACHI`
//! is sent only when the arbiter's own impasse check (`Position::impasse_declaration`, the
//! 27-point rule) agrees; a player's `win` that fails it resigns (`%TORYO`), as such a
//! declaration loses in `council-match` too.
//!
//! Invariant: every game that began ends in an [`End`] that [`Game::finish`] turns into a
//! played game, also when the server stops it, the connection drops or a signal stops the
//! client (reason `aborted`, scored for neither side).

use std::time::Duration;

use engine::clock::{Clocks, SideClock};
use engine::position::Position;
use engine::types::{ByColor, Color};
use tokio::time::Instant;

use super::protocol::{
    Ending, GameSummary, Outcome, ServerLine, move_line, parse_server_line, verdict,
};
use super::session::{ProtocolLog, Session, SessionError};
use crate::game::adjudicate::{Verdict, judge_move};
use crate::game::sheet::{Heading, PlayedGame, Sheet};
use crate::signals::Stop;
use council_players::player::budget;
use council_players::player::{Budget, Decision, MoveRequest, Player, PlayerError, Thought};
use council_schema::config::Config;
use council_schema::results::{Reason, Winner};

/// How a game ended, as the loop saw it.
pub(crate) struct End {
    pub(crate) ending: Option<Ending>,
    pub(crate) outcome: Option<Outcome>,
    /// The `%` word the game ended on (`%TORYO`, `%KACHI`).
    last_special: Option<String>,
    /// How the connection is left: the server ended the game (log out), or it is gone or must
    /// be dropped (a stop).
    pub(crate) logout: bool,
    /// What happened, in a few words (the server's lines, or what broke).
    pub(crate) said: String,
    /// A note of the client's own (why it resigned, what broke, who stopped it).
    note: Option<String>,
}

/// Our move sent and not yet echoed: what the player said about it.
struct Pending {
    thought: Thought,
}

/// Where a game's course stands between two lines from the server.
#[derive(Default)]
struct Course {
    /// Our move, sent and not yet echoed.
    pending: Option<Pending>,
    /// The player has answered for the position on the board (a move waiting for its echo,
    /// `%TORYO`/`%KACHI` sent, or nothing sent because it ran out of time).
    answered: bool,
    /// The last `%` word sent or received.
    last_special: Option<String>,
    ending: Option<Ending>,
    outcome: Option<Outcome>,
    /// A note of the client's own (why it resigned, what broke).
    note: Option<String>,
    /// Our move was echoed and the player ponders: start pondering before the next line.
    ponder_now: bool,
    /// What broke the connection, when it broke.
    broken: Option<String>,
}

/// What the game needs from the session's options.
pub(crate) struct GameSettings {
    /// Kept back from every move's time for the network and the server's measurement.
    pub(crate) margin: Duration,
    /// Send floodgate's `'* <score> <pv>` comment with each move.
    pub(crate) pv_comment: bool,
}

/// One game's state on the client: the position, both clocks, and the growing sheet.
pub(crate) struct Game<'a> {
    config: &'a Config,
    player_name: &'a str,
    summary: &'a GameSummary,
    settings: GameSettings,
    log: ProtocolLog,
    id: u64,
    seed: u64,
    position: Position,
    /// Both clocks as the server keeps them (`None`: a game without a clock), charged with
    /// the server's own `,T` times.
    clocks: Option<Clocks>,
    /// The game's record; only our side's cost is kept.
    sheet: Sheet,
    /// The opponent's reply the player ponders on, while it does.
    pondering: Option<String>,
}

impl<'a> Game<'a> {
    /// The game `summary` describes, as game `id` of this session's output.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        config: &'a Config,
        player_name: &'a str,
        summary: &'a GameSummary,
        settings: GameSettings,
        log: ProtocolLog,
        id: u64,
        seed: u64,
    ) -> Result<Self, String> {
        let mut position = Position::from_sfen(&summary.start_sfen).map_err(|e| e.to_string())?;
        // The moves the server gave with the summary are not charged: its clocks start full.
        let controls = summary.time.map(|t| t.control());
        let clocks = (controls.iter().any(Option::is_some)).then(|| {
            let ByColor { sente, gote } = controls.map(|c| SideClock::new(c.unwrap_or_default()));
            Clocks::new(sente, gote)
        });
        let mut moves = Vec::new();
        for (usi, _units) in &summary.played {
            let mv = position.parse_usi_move(usi).map_err(|e| e.to_string())?;
            position.play(mv);
            moves.push(usi.clone());
        }
        let ours = ByColor::new_with(|c| (c == summary.you).then_some(player_name));
        Ok(Game {
            config,
            player_name,
            summary,
            settings,
            log,
            id,
            seed,
            position,
            clocks,
            sheet: Sheet::new(summary.start_sfen.clone(), None, moves, ours),
            pondering: None,
        })
    }

    /// The request for our move on the board (or, pondering, for our next move after the
    /// opponent's): the player's per-move limits and the server's clocks with the margin kept
    /// back from ours, planned as `council-usi` plans a GUI's clock ([`budget::plan`]).
    fn request(&self) -> MoveRequest {
        let p = self.plan();
        MoveRequest {
            position: self.position.clone().into(),
            budget: p.budget,
            deadline: Instant::now() + p.deadline,
            multipv: 1,
        }
    }

    /// The plan behind [`Game::request`]: the margin comes off our clock by the one margin rule
    /// (byoyomi, then main time, then increment: a Fischer game's last seconds too), then the
    /// plan keeps its own safety; the deadline is the server's allowance less the margin.
    fn plan(&self) -> budget::Plan {
        let you = self.summary.you;
        let pc = self.config.player(self.player_name);
        let mut budget = Budget::per_move(&pc.limits);
        if let Some(clocks) = self.clocks {
            budget.clock = Some(clocks.less(you, self.settings.margin));
        }
        budget::plan(budget, pc.move_timeout_ms, you)
    }

    /// Play until the server ends the game, the connection drops or `stop` is asked for.
    pub(crate) async fn play(
        &mut self,
        player: &mut dyn Player,
        session: &mut Session,
        stop: &Stop,
    ) -> End {
        let you = self.summary.you;
        let ponders = player.ponders();
        let mut st = Course::default();
        loop {
            if st.ponder_now {
                st.ponder_now = false;
                let req = self.request();
                tokio::select! {
                    p = player.ponder(&req, None) => self.pondering = p,
                    () = stop.requested() => return self.stopped(st, stop),
                }
            }
            let our_turn = self.position.side_to_move() == you && st.pending.is_none();
            if our_turn && !st.answered {
                self.count_ponder();
                let req = self.request();
                let asked = Instant::now();
                let think = player.think(&req);
                tokio::pin!(think);
                // The server may end the game while we think (time up, a stop, a dropped
                // connection), or send an empty line: listen too, and keep thinking. The server's
                // lines first: an end that came with the move we answer (`#MAX_MOVES` after the
                // last move) ends the game before a quick answer is sent after it.
                let thought = loop {
                    tokio::select! {
                        biased;
                        line = session.recv() => {
                            if let Some(end) = self.hear(line, &mut st, ponders) {
                                return end;
                            }
                        }
                        () = stop.requested() => return self.stopped(st, stop),
                        thought = &mut think => break thought,
                    }
                };
                st.answered = true;
                let (send, why) = self.answer(thought, asked, &mut st.pending);
                st.note = why.or(st.note.take());
                // Nothing to send: out of time, the server's flag falls next.
                if let Some(send) = send {
                    if send.starts_with('%') {
                        st.last_special = Some(send.clone());
                    }
                    if session.send(&send).is_err() {
                        return self.end(st, false);
                    }
                }
                continue;
            }
            // Waiting for the server: the player's engines are read meanwhile (its pondering).
            let line = tokio::select! {
                line = session.recv() => line,
                never = player.idle() => match never {},
                () = stop.requested() => return self.stopped(st, stop),
            };
            if let Some(end) = self.hear(line, &mut st, ponders) {
                return end;
            }
            // Checkmated: the protocol has no word for it but resignation.
            if self.position.side_to_move() == you
                && !st.answered
                && st.ending.is_none()
                && self.position.legal_moves().is_empty()
            {
                st.answered = true;
                st.last_special = Some("%TORYO".into());
                if session.send("%TORYO").is_err() {
                    return self.end(st, false);
                }
            }
        }
    }

    /// When the player pondered in the opponent's time: whether on the move the opponent
    /// played, counted in the player's costs.
    fn count_ponder(&mut self) {
        self.sheet
            .count_ponder(self.summary.you, self.pondering.take());
    }

    /// Charge `mover` the time the server said its move took, by the one clock's rule, and log
    /// both clocks as they then stand. A move the server accepted past the clock as we keep it
    /// means our copy is off: it is told and set to no main time.
    fn charge(&mut self, mover: Color, spent: Duration) {
        let Some(clocks) = self.clocks.as_mut() else {
            return;
        };
        let side = clocks.side_mut(mover);
        if let Err(late) = side.charge(spent, Duration::ZERO) {
            tracing::warn!(
                "the server accepted a move of {} ms from {mover:?}, {} ms past its clock as this client keeps it; taking its main time to 0",
                spent.as_millis(),
                late.over.as_millis()
            );
            side.remaining = Duration::ZERO;
        }
        let [sente, gote] = [Color::Sente, Color::Gote].map(|c| clocks.side(c).remaining);
        self.log.line(
            '#',
            &format!(
                "clocks after move {}: sente {} ms, gote {} ms",
                self.sheet.moves().len() + 1,
                sente.as_millis(),
                gote.as_millis()
            ),
        );
    }

    /// Take in one line from the server (or the end of the connection); the game's end when
    /// it ends here.
    fn hear(
        &mut self,
        line: Result<Option<String>, SessionError>,
        st: &mut Course,
        ponders: bool,
    ) -> Option<End> {
        let line = match line {
            Ok(Some(line)) => line,
            Ok(None) => return Some(self.end(std::mem::take(st), false)),
            Err(e) => {
                st.broken = Some(e.cause());
                return Some(self.end(std::mem::take(st), false));
            }
        };
        match parse_server_line(&line) {
            ServerLine::Move { word, units } => {
                let mover = self.position.side_to_move();
                let judged = engine::record::csa_move_to_usi(&self.position, &word)
                    .ok_or_else(|| format!("the server sent `{word}`, not a move here"))
                    .and_then(|usi| {
                        judge_move(&self.position, "the server", &usi)
                            .map(|mv| (usi, mv))
                            .map_err(|v| v.detail)
                    });
                let (usi, mv) = match judged {
                    Ok(m) => m,
                    Err(why) => {
                        st.note = Some(why);
                        return Some(self.end(std::mem::take(st), true));
                    }
                };
                let spent = self.summary.time[mover].duration(units.unwrap_or(0));
                self.charge(mover, spent);
                self.position.play(mv);
                match st.pending.take().filter(|_| mover == self.summary.you) {
                    Some(p) => self.record_ours(usi, spent, p),
                    None => self.sheet.record_move(usi, spent, None, Vec::new()),
                }
                if mover == self.summary.you {
                    st.answered = false;
                    // Not when the game cannot go on (mated, or at `Max_Moves`).
                    st.ponder_now = ponders
                        && !self.position.legal_moves().is_empty()
                        && self
                            .summary
                            .max_moves
                            .is_none_or(|m| self.sheet.moves().len() < m as usize);
                }
                None
            }
            ServerLine::Special { word, .. } => {
                st.last_special = Some(word);
                None
            }
            ServerLine::Ending(e) => {
                st.ending = Some(e);
                // `#CHUDAN` is the whole verdict: no `#WIN`/`#LOSE` follows.
                (e == Ending::Chudan).then(|| self.end(std::mem::take(st), true))
            }
            ServerLine::Outcome(o) => {
                st.outcome = Some(o);
                Some(self.end(std::mem::take(st), true))
            }
            _ => None,
        }
    }

    /// What to send for the player's answer (nothing when it ran out of time: its deadline is
    /// the server's allowance, so the server's flag falls next), and a note when it is not
    /// what the player said. A player that crashed or answered nonsense resigns.
    fn answer(
        &mut self,
        thought: Result<Thought, PlayerError>,
        asked: Instant,
        pending: &mut Option<Pending>,
    ) -> (Option<String>, Option<String>) {
        let thought = match thought {
            Ok(t) => t,
            Err(e @ PlayerError::Timeout { .. }) => {
                return (None, Some(format!("{e}; waited for the server's clock")));
            }
            Err(e) => return (Some("%TORYO".into()), Some(format!("{e}; resigned"))),
        };
        self.sheet
            .charge(self.summary.you, thought.engine_time, asked.elapsed());
        let (send, note) = match &thought.decision {
            Decision::Resign => ("%TORYO".into(), None),
            Decision::Win => match self.position.impasse_declaration() {
                Ok(()) => ("%KACHI".into(), None),
                Err(e) => (
                    "%TORYO".into(),
                    Some(format!(
                        "{} declared an impasse that fails the 27-point rule ({e}); resigned instead",
                        self.player_name
                    )),
                ),
            },
            Decision::Move(text) => {
                let comment = thought
                    .eval
                    .filter(|_| self.settings.pv_comment)
                    .map(|score| (score, thought.pv.as_slice()));
                match judge_move(&self.position, self.player_name, text)
                    .ok()
                    .and_then(|_| move_line(&self.position, text, comment))
                {
                    Some(line) => {
                        *pending = Some(Pending { thought });
                        (line, None)
                    }
                    None => (
                        "%TORYO".into(),
                        Some(format!(
                            "{} played `{text}`, not a legal move here; resigned instead of sending it",
                            self.player_name
                        )),
                    ),
                }
            }
        };
        (Some(send), note)
    }

    /// Our move was echoed as `usi`, taking `spent` by the server's clock: it joins the sheet
    /// with its score, pv and votes.
    fn record_ours(&mut self, usi: String, spent: Duration, p: Pending) {
        let ply = self.sheet.moves().len() as u32;
        let Thought {
            eval, pv, votes, ..
        } = p.thought;
        self.sheet.record_move(usi, spent, eval, pv);
        self.sheet.add_votes(votes.into_iter().map(|mut v| {
            v.ply = ply;
            v
        }));
    }

    /// The game as `stop` left it: this client stopped it, the server will score it as our
    /// loss (it hears a disconnect), we record it without a result.
    fn stopped(&self, st: Course, stop: &Stop) -> End {
        let by = stop.by().unwrap_or("a stop request");
        let mut end = self.end(st, false);
        end.said = format!("council-csa was stopped by {by}");
        end.note = Some(format!(
            "this client was stopped by {by} and left the game; the server scores a disconnect as a loss"
        ));
        end
    }

    fn end(&self, st: Course, logout: bool) -> End {
        let said = match (st.ending, st.outcome) {
            (None, None) if !logout => st
                .broken
                .unwrap_or_else(|| "the connection dropped".to_string()),
            (None, None) => "the client stopped the game".to_string(),
            (ending, outcome) => verdict(self.summary.you, ending, outcome, None, false).2,
        };
        End {
            ending: st.ending,
            outcome: st.outcome,
            last_special: st.last_special,
            logout,
            said,
            note: st.note,
        }
    }

    /// The played game as `council-match` records it (an aborted game scored for neither side).
    pub(crate) fn finish(self, end: &End) -> PlayedGame {
        let mated = self.position.legal_moves().is_empty();
        let (result, reason, detail) = verdict(
            self.summary.you,
            end.ending,
            end.outcome,
            end.last_special.as_deref(),
            mated,
        );
        let detail = match &end.note {
            Some(n) if reason == Reason::Aborted && end.ending.is_none() => {
                format!("{}: {n}", self.summary.game_id)
            }
            Some(n) => format!("{}: {detail}; {n}", self.summary.game_id),
            None if reason == Reason::Aborted => {
                format!("{}: {}", self.summary.game_id, end.said)
            }
            None => format!("{}: {detail}", self.summary.game_id),
        };
        let heading = Heading {
            id: self.id,
            pair: None,
            seed: self.seed,
            names: ByColor::new_with(|c| {
                if c == self.summary.you {
                    self.player_name.to_string()
                } else {
                    self.summary.names[c].clone()
                }
            }),
        };
        let verdict = Verdict {
            result: if reason == Reason::Aborted {
                Winner::Draw
            } else {
                result
            },
            reason,
            detail,
        };
        self.sheet.finish(heading, verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    /// WCSC's 15 minutes + 5 s Fischer, as shogi-server's summary states it, for gote.
    const WCSC: &str = "Game_ID:wcsc+1\nName+:a\nName-:council\nYour_Turn:-\nTo_Move:+\nBEGIN Time\nTime_Unit:1sec\nTotal_Time:900\nByoyomi:0\nIncrement:5\nLeast_Time_Per_Move:0\nEND Time\nBEGIN Position\nPI\n+\nEND Position";

    #[test]
    fn under_fischer_the_margin_and_the_increment_shape_every_move_as_the_server_allows_it() {
        let dir = std::env::temp_dir().join(format!("csa-game-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch");
        let path = dir.join("players.toml");
        std::fs::write(
            &path,
            "[[player]]\nname = \"council\"\nkind = \"internal\"\n",
        )
        .expect("config");
        let config = Config::load_players(&path).expect("config");
        let lines: Vec<String> = WCSC.lines().map(str::to_string).collect();
        let summary = GameSummary::parse(&lines).expect("summary");
        let log = ProtocolLog::open(&dir.join("protocol.log")).expect("log");
        let settings = GameSettings {
            margin: secs(1),
            pv_comment: true,
        };
        let mut game = Game::new(&config, "council", &summary, settings, log, 0, 1).expect("game");
        let ours = |g: &Game<'_>| {
            let p = g.plan();
            let clock = *p.budget.clock.expect("a clock").side(Color::Gote);
            (p.deadline, clock.remaining, clock.increment)
        };
        // The first move may take 900 + 5 s at the server; the client stops at that less its
        // 1 s margin, and the player is told 898 s + 5 s (the plan's own safety, 1 s, off too).
        assert_eq!(ours(&game), (secs(904), secs(898), secs(5)));
        // Forty moves of 25 s each (sente's moves are free): 1000 s used of 900 + 40 x 5.
        for _ in 0..40 {
            game.charge(Color::Sente, Duration::ZERO);
            game.charge(Color::Gote, secs(25));
        }
        assert_eq!(
            game.clocks.map(|c| c.side(Color::Gote).remaining),
            Some(secs(100))
        );
        assert_eq!(ours(&game), (secs(104), secs(98), secs(5)));
        // With 0.3 s left the margin takes the main time and 0.7 s of the increment: the move
        // may take 5.3 s at the server, 4.3 s here.
        game.clocks
            .as_mut()
            .expect("clocks")
            .side_mut(Color::Gote)
            .remaining = Duration::from_millis(300);
        let (deadline, remaining, increment) = ours(&game);
        assert_eq!(deadline, Duration::from_millis(4300));
        assert_eq!(remaining + increment, Duration::from_millis(4300 - 860));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
