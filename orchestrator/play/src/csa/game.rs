//! The game loop of `council-csa`: log in, read the `Game_Summary`, agree, then play one game
//! move by move against the server's clock, and write what happened the way `council-match`
//! does (records through `game::records::write_records`, one `results.jsonl` line through
//! `results::append::ResultsWriter`), whatever way the game ends.
//!
//! The server is the arbiter here: a move counts when the server echoes it (`+7776FU,T3`),
//! the clocks are charged with the server's own `,T` times, and the result is the server's
//! `#` lines. The client still checks its own side with the arbiter's rules before sending
//! anything: a move that is not legal is never sent (the client resigns instead), and `%KACHI`
//! is sent only when the arbiter's own impasse check (`Position::impasse_declaration`, the
//! 27-point rule) agrees; a player's `win` that fails it resigns (`%TORYO`), as such a
//! declaration loses in `council-match` too.
//!
//! Invariant: every game that began (`START`) leaves its records and one results line, also
//! when the server stops it or the connection drops (reason `aborted`, scored for neither side).

use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::clock::Clocks;
use engine::position::Position;
use engine::types::{Color, Score};
use tokio::time::Instant;

use super::protocol::{
    Ending, GameSummary, Outcome, ServerLine, login_line, move_line, parse_server_line, verdict,
};
use super::session::{ProtocolLog, Session, SessionError};
use crate::game::adjudicate::judge_move;
use crate::game::arbiter::PlayedGame;
use crate::game::records::write_records;
use council_players::player::budget;
use council_players::player::{
    Budget, Decision, MoveRequest, Outcome as PlayerOutcome, Player, Thought,
};
use council_schema::config::Config;
use council_schema::results::append::ResultsWriter;
use council_schema::results::votes::CouncilVote;
use council_schema::results::{GameResult, PlayerCost, Reason, Winner};

/// How `council-csa` connects and plays.
#[derive(Debug, Clone)]
pub struct CsaOptions {
    /// `HOST:PORT`.
    pub server: String,
    pub id: String,
    pub password: String,
    pub games: u32,
    pub out: PathBuf,
    /// Kept back from every move's time for the network and the server's measurement.
    pub margin: Duration,
    /// Silence after which an empty line is sent (zero: never).
    pub keep_alive: Duration,
    pub seed: u64,
    /// Where the player's engines log their lines (`--log`, `log = true`).
    pub engine_log: Option<council_players::factory::EngineLogs>,
}

/// What stops `council-csa` before or between games (a game that began always ends in a
/// results line instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CsaError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("{server}: LOGIN as `{id}` was refused (LOGIN:incorrect)")]
    LoginRefused { server: String, id: String },
    #[error("{server}: {problem}")]
    Protocol { server: String, problem: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Results(#[from] council_schema::results::read::ReadError),
}

/// One game as it was played and recorded, for the caller's report.
#[derive(Debug, Clone)]
pub struct CsaGame {
    pub game_id: String,
    pub result: GameResult,
    /// The server's words for the ending (`#RESIGN #WIN`), or what happened to the connection.
    pub said: String,
}

/// Play `opts.games` games as `player` on the server, reconnecting for each; returns each game
/// as recorded. A game that began is always recorded; an error stops before the next game.
pub async fn run(
    config: &Config,
    player_name: &str,
    opts: &CsaOptions,
    report: &mut dyn FnMut(&CsaGame),
) -> Result<Vec<CsaGame>, CsaError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CsaError::Io { path, source }
    };
    let records = opts.out.join("records");
    std::fs::create_dir_all(&records).map_err(io(&records))?;
    let results_path = opts.out.join("results.jsonl");
    let (first, complete_len) = games_so_far(&results_path)?;
    let mut results =
        ResultsWriter::open(&results_path, complete_len).map_err(io(&results_path))?;
    let log_path = opts.out.join("protocol.log");
    let log = ProtocolLog::open(&log_path).map_err(io(&log_path))?;
    let mut player = council_players::factory::build_player_logged(
        config,
        player_name,
        None,
        opts.engine_log.as_ref(),
    );
    let mut played = Vec::new();
    let mut outcome = Ok(());
    for n in first..first + u64::from(opts.games) {
        let seed = council_schema::seed::game_seed(opts.seed, n);
        let game = play_one(config, player_name, player.as_mut(), opts, &log, n, seed);
        match council_players::player::engine_log::in_game(n, game).await {
            Ok(Some(game)) => {
                write_records(&records, config, &game.played).map_err(io(&records))?;
                results
                    .append(&game.played.result)
                    .map_err(io(&results_path))?;
                let g = CsaGame {
                    game_id: game.game_id,
                    result: game.played.result,
                    said: game.said,
                };
                report(&g);
                played.push(g);
            }
            Ok(None) => {}
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    player.shutdown().await;
    outcome.map(|()| played)
}

/// The number the next game takes in a `--out` folder that may hold earlier sessions' games (one
/// past the highest id; game ids and seeds go on from there), and where the file's complete
/// lines end (a line cut off by a crash is dropped).
fn games_so_far(path: &Path) -> Result<(u64, Option<u64>), CsaError> {
    use council_schema::results::read::{Malformed, Policy, Repeats, TornTail, read};
    if !path.exists() {
        return Ok((0, None));
    }
    let policy = Policy {
        torn_tail: TornTail::Skip,
        malformed: Malformed::Fail,
        repeats: Repeats::KeepAll,
    };
    let found = read(std::slice::from_ref(&path.to_path_buf()), policy)?;
    let next = found.games.iter().map(|g| g.id + 1).max().unwrap_or(0);
    Ok((next, found.files.first().map(|f| f.complete_len)))
}

/// A game as it ended, before it is written.
struct Finished {
    game_id: String,
    played: PlayedGame,
    said: String,
}

/// Log in, wait for a game, agree, play it, log out. `Ok(None)`: the game was rejected.
async fn play_one(
    config: &Config,
    player_name: &str,
    player: &mut dyn Player,
    opts: &CsaOptions,
    log: &ProtocolLog,
    number: u64,
    seed: u64,
) -> Result<Option<Finished>, CsaError> {
    let mut session = Session::connect(&opts.server, opts.keep_alive, log.clone()).await?;
    let protocol = |problem: String| CsaError::Protocol {
        server: opts.server.clone(),
        problem,
    };
    session.send(&login_line(&opts.id, &opts.password))?;
    let summary = loop {
        match next(&mut session).await? {
            ServerLine::LoginOk | ServerLine::Empty | ServerLine::Other(_) => {}
            ServerLine::LoginIncorrect => {
                return Err(CsaError::LoginRefused {
                    server: opts.server.clone(),
                    id: opts.id.clone(),
                });
            }
            ServerLine::SummaryBegin => break read_summary(&mut session).await?,
            other => return Err(protocol(format!("unexpected before a game: {other:?}"))),
        }
    };
    let summary = match summary {
        Ok(s) => s,
        Err((id, problem)) => {
            if let Some(id) = id {
                session.send(&format!("REJECT {id}"))?;
            }
            session.close().await;
            return Err(protocol(format!(
                "a Game_Summary this client cannot play: {problem}"
            )));
        }
    };
    if let Err(e) = player.new_game(seed).await {
        session.send(&format!("REJECT {}", summary.game_id))?;
        session.close().await;
        return Err(protocol(format!("the player cannot start a game: {e}")));
    }
    session.send(&format!("AGREE {}", summary.game_id))?;
    loop {
        match next(&mut session).await? {
            ServerLine::Start(_) => break,
            ServerLine::Reject(why) => {
                eprintln!(
                    "council-csa: {}: game {} was rejected ({why})",
                    opts.server, summary.game_id
                );
                player.game_over(PlayerOutcome::Draw).await;
                let _ = session.send("LOGOUT");
                session.close().await;
                return Ok(None);
            }
            _ => {}
        }
    }
    let mut game = Game::new(config, player_name, &summary, opts.margin, number, seed)
        .map_err(|e| protocol(format!("the Game_Summary's position: {e}")))?;
    let end = game.play(player, &mut session).await;
    player
        .game_over(match end.outcome {
            Some(Outcome::Win) => PlayerOutcome::Win,
            Some(Outcome::Lose) => PlayerOutcome::Lose,
            _ => PlayerOutcome::Draw,
        })
        .await;
    if end.connected {
        let _ = session.send("LOGOUT");
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Ok(Some(line)) = session.recv().await {
                if parse_server_line(&line) == ServerLine::LogoutCompleted {
                    break;
                }
            }
        })
        .await;
    }
    session.close().await;
    let finished = game.finish(&end);
    if finished.result.reason == Reason::Aborted {
        eprintln!(
            "council-csa: {}: game {} ended without a result after {} moves ({}); its moves so far are recorded in {}",
            opts.server,
            summary.game_id,
            finished.result.moves.len(),
            end.said,
            opts.out.display()
        );
    }
    Ok(Some(Finished {
        game_id: summary.game_id.clone(),
        played: finished,
        said: end.said,
    }))
}

/// The next line, classified; the end of the connection is an error outside a game.
async fn next(session: &mut Session) -> Result<ServerLine, CsaError> {
    match session.recv().await? {
        Some(line) => Ok(parse_server_line(&line)),
        None => Err(SessionError::Closed {
            server: session.server().to_string(),
        }
        .into()),
    }
}

/// The lines up to `END Game_Summary`, parsed; a summary that does not parse gives its game id
/// (when it has one, to reject it) and the problem.
async fn read_summary(
    session: &mut Session,
) -> Result<Result<GameSummary, (Option<String>, String)>, CsaError> {
    let mut lines = Vec::new();
    loop {
        let Some(line) = session.recv().await? else {
            return Err(SessionError::Closed {
                server: session.server().to_string(),
            }
            .into());
        };
        if line == "END Game_Summary" {
            break;
        }
        lines.push(line);
    }
    Ok(GameSummary::parse(&lines).map_err(|e| {
        let id = lines
            .iter()
            .find_map(|l| l.strip_prefix("Game_ID:"))
            .map(str::to_string);
        (id, e.to_string())
    }))
}

/// How a game ended, as the loop saw it.
struct End {
    ending: Option<Ending>,
    outcome: Option<Outcome>,
    /// The `%` word the game ended on (`%TORYO`, `%KACHI`).
    last_special: Option<String>,
    /// The connection is still up (the client logs out).
    connected: bool,
    said: String,
    /// A note of the client's own (why it resigned, what broke).
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
}

/// One game's state on the client: the position, both clocks, and the growing sheet.
struct Game<'a> {
    config: &'a Config,
    player_name: &'a str,
    summary: &'a GameSummary,
    margin: Duration,
    id: u64,
    seed: u64,
    position: Position,
    /// Both clocks as the server keeps them (`None`: a game without a clock), charged with
    /// the server's own `,T` times.
    clocks: Option<Clocks>,
    moves: Vec<String>,
    opening_plies: usize,
    times_ms: Vec<u64>,
    scores: Vec<Option<Score>>,
    pvs: Vec<Vec<String>>,
    votes: Vec<CouncilVote>,
    cost: PlayerCost,
    began: Instant,
    started_unix_ms: Option<u64>,
}

impl<'a> Game<'a> {
    fn new(
        config: &'a Config,
        player_name: &'a str,
        summary: &'a GameSummary,
        margin: Duration,
        id: u64,
        seed: u64,
    ) -> Result<Self, String> {
        let mut position = Position::from_sfen(&summary.start_sfen).map_err(|e| e.to_string())?;
        // The moves the server gave with the summary are not charged: its clocks start full.
        let clocks = summary.time.control().map(Clocks::start);
        let mut moves = Vec::new();
        for (usi, _units) in &summary.played {
            let mv = position.parse_usi_move(usi).map_err(|e| e.to_string())?;
            position.play(mv);
            moves.push(usi.clone());
        }
        Ok(Game {
            config,
            player_name,
            summary,
            margin,
            id,
            seed,
            position,
            clocks,
            opening_plies: moves.len(),
            moves,
            times_ms: Vec::new(),
            scores: Vec::new(),
            pvs: Vec::new(),
            votes: Vec::new(),
            cost: PlayerCost {
                player: player_name.to_string(),
                ..PlayerCost::default()
            },
            began: Instant::now(),
            started_unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()
                .map(|d| d.as_millis() as u64),
        })
    }

    /// The request for our move: the player's per-move limits and the server's clocks less the
    /// margin, planned as `council-usi` plans a GUI's clock ([`budget::plan`]).
    fn request(&self) -> MoveRequest {
        let you = self.summary.you;
        let pc = self.config.player(self.player_name);
        let mut budget = Budget::per_move(&pc.limits);
        if let Some(clocks) = self.clocks {
            budget.clock = Some(clocks.less(you, self.margin));
        }
        let p = budget::plan(budget, pc.move_timeout_ms, you);
        MoveRequest {
            position: self.position.clone(),
            budget: p.budget,
            deadline: Instant::now() + p.deadline,
            multipv: 1,
        }
    }

    /// Play until the server ends the game or the connection drops.
    async fn play(&mut self, player: &mut dyn Player, session: &mut Session) -> End {
        let you = self.summary.you;
        let mut st = Course::default();
        loop {
            let our_turn = self.position.side_to_move() == you && st.pending.is_none();
            if our_turn && !st.answered {
                let req = self.request();
                let asked = Instant::now();
                let think = player.think(&req);
                tokio::pin!(think);
                // The server may end the game while we think (time up, a stop, a dropped
                // connection), or send an empty line: listen too, and keep thinking.
                let thought = loop {
                    tokio::select! {
                        thought = &mut think => break thought,
                        line = session.recv() => {
                            if let Some(end) = self.hear(line, &mut st) {
                                return end;
                            }
                        }
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
            if let Some(end) = self.hear(session.recv().await, &mut st) {
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

    /// Charge `mover` the time the server said its move took. A move the server accepted
    /// past the clock as we keep it means our copy is off: it is told and set to no main time.
    fn charge(&mut self, mover: Color, spent: Duration) {
        let Some(side) = self.clocks.as_mut().map(|c| c.side_mut(mover)) else {
            return;
        };
        if let Err(late) = side.charge(spent, Duration::ZERO) {
            tracing::warn!(
                "the server accepted a move of {} ms from {mover:?}, {} ms past its clock as this client keeps it; taking its main time to 0",
                spent.as_millis(),
                late.over.as_millis()
            );
            side.remaining = Duration::ZERO;
        }
    }

    /// Take in one line from the server (or the end of the connection); the game's end when
    /// it ends here.
    fn hear(&mut self, line: Result<Option<String>, SessionError>, st: &mut Course) -> Option<End> {
        let Ok(Some(line)) = line else {
            return Some(self.end(std::mem::take(st), false));
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
                let spent = self.summary.time.duration(units.unwrap_or(0));
                self.charge(mover, spent);
                self.position.play(mv);
                self.moves.push(usi);
                self.times_ms.push(spent.as_millis() as u64);
                match st.pending.take().filter(|_| mover == self.summary.you) {
                    Some(p) => self.record_ours(p),
                    None => {
                        self.scores.push(None);
                        self.pvs.push(Vec::new());
                    }
                }
                if mover == self.summary.you {
                    st.answered = false;
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
        thought: Result<Thought, council_players::player::PlayerError>,
        asked: Instant,
        pending: &mut Option<Pending>,
    ) -> (Option<String>, Option<String>) {
        let thought = match thought {
            Ok(t) => t,
            Err(e @ council_players::player::PlayerError::Timeout { .. }) => {
                return (None, Some(format!("{e}; waited for the server's clock")));
            }
            Err(e) => return (Some("%TORYO".into()), Some(format!("{e}; resigned"))),
        };
        self.cost.moves += 1;
        let spent = asked.elapsed();
        self.cost.engine_us += thought.engine_time.as_micros() as u64;
        self.cost.overhead_us += spent.saturating_sub(thought.engine_time).as_micros() as u64;
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
                match judge_move(&self.position, self.player_name, text)
                    .ok()
                    .and_then(|_| move_line(&self.position, text))
                {
                    Some(word) => {
                        *pending = Some(Pending { thought });
                        (word, None)
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

    /// Our move was echoed: its score, pv and votes join the sheet.
    fn record_ours(&mut self, p: Pending) {
        let ply = (self.moves.len() - 1) as u32;
        self.scores.push(p.thought.eval);
        self.pvs.push(p.thought.pv);
        self.votes.extend(p.thought.votes.into_iter().map(|mut v| {
            v.ply = ply;
            v
        }));
    }

    fn end(&self, st: Course, connected: bool) -> End {
        let said = match (st.ending, st.outcome) {
            (None, None) if !connected => "the connection dropped".to_string(),
            (None, None) => "the client stopped the game".to_string(),
            (ending, outcome) => verdict(self.summary.you, ending, outcome, None, false).2,
        };
        End {
            ending: st.ending,
            outcome: st.outcome,
            last_special: st.last_special,
            connected,
            said,
            note: st.note,
        }
    }

    /// The played game as `council-match` records it.
    fn finish(&self, end: &End) -> PlayedGame {
        let mated = self.position.legal_moves().is_empty();
        let (result, reason, detail) = verdict(
            self.summary.you,
            end.ending,
            end.outcome,
            end.last_special.as_deref(),
            mated,
        );
        let detail = match &end.note {
            Some(n) => format!("{}: {detail}; {n}", self.summary.game_id),
            None if reason == Reason::Aborted => {
                format!("{}: {}", self.summary.game_id, end.said)
            }
            None => format!("{}: {detail}", self.summary.game_id),
        };
        let names = [0, 1].map(|i| {
            if i == self.summary.you.index() {
                self.player_name.to_string()
            } else {
                self.summary.names[i].clone()
            }
        });
        let [sente, gote] = names;
        PlayedGame {
            result: GameResult {
                id: self.id,
                pair: None,
                sente,
                gote,
                start: self.summary.start_sfen.clone(),
                handicap: None,
                plies: self.moves.len() as u32,
                moves: self.moves.clone(),
                result: if reason == Reason::Aborted {
                    Winner::Draw
                } else {
                    result
                },
                reason,
                seed: self.seed,
                votes: self.votes.clone(),
                detail: Some(detail),
                times_ms: self.times_ms.clone(),
                scores: self.scores.clone(),
                costs: vec![self.cost.clone()],
                started_unix_ms: self.started_unix_ms,
                wall_ms: Some(self.began.elapsed().as_millis() as u64),
            },
            pvs: self.pvs.clone(),
            opening_plies: self.opening_plies,
        }
    }
}
