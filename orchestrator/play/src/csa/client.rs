//! `council-csa`'s session on a server, game after game: log in, wait for a game (as long as
//! pairing takes: floodgate pairs at :00 and :30, the session's keep-alive holds the connection),
//! agree, play it ([`super::game`]), write its records and results line, log out, and log in
//! again for the next (shogi-server closes the connection after each game in CSA mode, and after
//! a `REJECT`). A connection that fails or drops after the first one was made is made again
//! with a back-off; a stop (Ctrl-C, SIGTERM) ends the session after recording the game in
//! progress.
//!
//! Invariants: `--games N` is N played games (a rejected game is not one, and takes no game
//! id); every game that began (`START`) leaves its records (their `$EVENT` the server's
//! `Game_ID`) and one results line, however it ends.

use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::types::Color;

use super::game::{Game, GameSettings};
use super::protocol::{GameSummary, Outcome, ServerLine, login_line, parse_server_line};
use super::session::{ProtocolLog, Session, SessionError, Timing};
use crate::game::records::write_event_records;
use crate::signals::Stop;
use council_players::player::{Outcome as PlayerOutcome, Player};
use council_schema::config::Config;
use council_schema::results::append::ResultsWriter;
use council_schema::results::{GameResult, Reason};
use council_schema::written_by::WrittenBy;

/// How `council-csa` connects and plays.
#[derive(Debug, Clone)]
pub struct CsaOptions {
    /// `HOST:PORT`.
    pub server: String,
    pub id: String,
    pub password: String,
    /// Games to play (rejected games not counted).
    pub games: u32,
    pub out: PathBuf,
    /// Kept back from every move's time for the network and the server's measurement.
    pub margin: Duration,
    /// Silence after which an empty line is sent (zero: never).
    pub keep_alive: Duration,
    /// How long a line the server answers may wait for an answer before the connection is
    /// taken for dead (zero: forever).
    pub read_timeout: Duration,
    pub seed: u64,
    /// Send floodgate's evaluation and pv comment with each move.
    pub pv_comment: bool,
    /// Attempts in a row to connect again after a dropped or refused connection (0: none).
    pub reconnect: u32,
    /// Where the player's engines log their lines (`--log`, `log = true`).
    pub engine_log: Option<EngineLogAsk>,
    /// The program playing: the protocol log's first line and the records say so.
    pub written_by: WrittenBy,
}

/// The engine log asked for (`--log [FILE]`, `log = true`): opened, beside the protocol log,
/// once the first connection is made, so that a session that cannot connect leaves nothing.
#[derive(Debug, Clone)]
pub struct EngineLogAsk {
    pub path: PathBuf,
    /// Every engine's lines (`--log`), not only those of players with `log = true`.
    pub every_engine: bool,
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
    /// The player's engines failed their first start (`preflight`).
    #[error("{0}")]
    Player(String),
    /// A record, `results.jsonl`, the protocol log or the engine log could not be written (a
    /// full disk, a read-only folder): the game in play was finished, and `kept` says where it is.
    #[error("cannot write {}: {source}; {kept}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
        kept: String,
    },
}

/// One game as it was played and recorded, for the caller's report.
#[derive(Debug, Clone)]
pub struct CsaGame {
    pub game_id: String,
    pub result: GameResult,
    /// The server's words for the ending (`#RESIGN #WIN`), or what happened to the connection.
    pub said: String,
    /// The side this client played.
    pub you: Color,
}

/// What the session tells its caller as it goes (the library never prints).
#[derive(Debug)]
pub enum Event<'a> {
    /// A game was played and recorded.
    Game(&'a CsaGame),
    /// Something the user should read: a game without a result, a rejected game, a
    /// reconnection.
    Notice(String),
}

/// How the session ended.
#[derive(Debug, Clone)]
pub struct CsaRun {
    pub games: Vec<CsaGame>,
    /// Who stopped it before its games were played (`SIGTERM`), if anyone did.
    pub stopped_by: Option<String>,
}

impl CsaOptions {
    /// How each connection watches the server.
    pub fn timing(&self) -> Timing {
        Timing {
            keep_alive: self.keep_alive,
            read_timeout: self.read_timeout,
        }
    }
}

/// The wait before the `n`-th attempt in a row to connect again: 1 s, doubling, at most 60 s.
pub fn backoff(n: u32) -> Duration {
    Duration::from_secs(1u64 << n.saturating_sub(1).min(6)).min(Duration::from_secs(60))
}

/// Play `opts.games` games as `player_name` on the server, logging in for each, until `stop` is
/// asked for; `report` hears of each game and notice. A game that began is always recorded; an
/// error stops before the next game.
pub async fn run(
    config: &Config,
    player_name: &str,
    opts: &CsaOptions,
    stop: &Stop,
    report: &mut dyn FnMut(Event<'_>),
) -> Result<CsaRun, CsaError> {
    let records = opts.out.join("records");
    let results_path = opts.out.join("results.jsonl");
    let (mut next_id, complete_len) = games_so_far(&results_path)?;
    let log = ProtocolLog::with_first_note(
        &opts.out.join("protocol.log"),
        format!("written by {}", opts.written_by),
    );
    // The first connection is not retried, and nothing is written before it is made: a wrong
    // `--server` leaves no folder behind. The protocol log's first line makes the folder.
    let first = tokio::select! {
        s = Session::connect(&opts.server, opts.timing(), log.clone()) => s?,
        () = stop.requested() => {
            return Ok(CsaRun { games: Vec::new(), stopped_by: stop.by().map(str::to_string) });
        }
    };
    let engine_log = match &opts.engine_log {
        Some(ask) => Some(open_engine_log(ask, player_name)?),
        None => None,
    };
    if let Err(e) = council_players::factory::preflight_logged(config, engine_log.as_ref()).await {
        first.close().await;
        return Err(CsaError::Player(e.to_string()));
    }
    let mut first = Some(first);
    let mut results = None;
    let mut player = council_players::factory::build_player_logged(
        config,
        player_name,
        None,
        engine_log.as_ref(),
    );
    let session = Sessions {
        config,
        player_name,
        opts,
        log: &log,
        stop,
    };
    let mut played = Vec::new();
    let mut retries = 0;
    let mut outcome = Ok(());
    let engine_log_file = engine_log.as_ref().map(|l| &l.log);
    while played.len() < opts.games as usize && !stop.is_requested() {
        // A log that could not be written (the protocol log, or the engine log, the last
        // game's verdict included) stops the session before the next game.
        let failed = (log.failure().map(|e| (log.path(), e)))
            .or_else(|| engine_log_file.and_then(|l| Some((l.path(), l.failure()?))));
        if let Some((path, source)) = failed {
            outcome = Err(CsaError::Write {
                path: path.to_path_buf(),
                source,
                kept: "stopping before the next game".to_string(),
            });
            break;
        }
        let seed = council_schema::seed::game_seed(opts.seed, next_id);
        let attempt = council_players::player::engine_log::in_game(
            next_id,
            session.play_one(first.take(), player.as_mut(), next_id, seed, report),
        )
        .await;
        match attempt {
            Ok(Attempt::Played(game)) => {
                retries = 0;
                next_id += 1;
                let kept = keep(
                    &game,
                    &records,
                    (&results_path, complete_len, &mut results),
                    (&log, engine_log_file),
                    &opts.written_by,
                );
                if let Some(logs) = &engine_log {
                    logs.game_over(config, &game.played.result)
                }
                let game = *game;
                let g = CsaGame {
                    game_id: game.game_id,
                    result: game.played.result,
                    said: game.said,
                    you: game.you,
                };
                report(Event::Game(&g));
                played.push(g);
                if let Err(e) = kept {
                    outcome = Err(e);
                    break;
                }
            }
            Ok(Attempt::Rejected) => {
                retries = 0;
                // A moment before logging in again, as another client of the game does too.
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    () = stop.requested() => {}
                }
            }
            Ok(Attempt::Stopped) => break,
            Err(CsaError::Session(e)) if retries < opts.reconnect => {
                retries += 1;
                let wait = backoff(retries);
                report(Event::Notice(format!(
                    "{e}; connecting again in {} s (attempt {retries} of {})",
                    wait.as_secs(),
                    opts.reconnect
                )));
                log.line(
                    '#',
                    &format!("{e}; connecting again in {} s", wait.as_secs()),
                );
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = stop.requested() => {}
                }
            }
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    if let Some(by) = stop.by() {
        log.line('#', &format!("stopped by {by}"));
    }
    player.shutdown().await;
    outcome.map(|()| CsaRun {
        games: played,
        stopped_by: stop.by().map(str::to_string),
    })
}

/// Write a finished game's records and results line; when a file cannot be written (or the
/// protocol log or the engine log could not be, during the game), the error names the first
/// such file and says where the game is kept.
fn keep(
    game: &Finished,
    records: &Path,
    (results_path, complete_len, results): (&Path, Option<u64>, &mut Option<ResultsWriter>),
    (log, engine_log): (
        &ProtocolLog,
        Option<&council_players::player::engine_log::EngineLog>,
    ),
    by: &WrittenBy,
) -> Result<(), CsaError> {
    let result = &game.played.result;
    let recorded = std::fs::create_dir_all(records)
        .and_then(|()| write_event_records(records, &game.game_id, &game.played, by));
    let appended = match results {
        Some(w) => w.append(result),
        None => ResultsWriter::open(results_path, complete_len).and_then(|mut w| {
            let appended = w.append(result);
            *results = Some(w);
            appended
        }),
    };
    let logged = log.failure().map_or(Ok(()), Err);
    let record = crate::game::records::record_paths(records, result).0;
    let mut failed = None;
    let mut kept = Vec::new();
    for (written, path, place) in [
        (
            recorded,
            PathBuf::from(format!("{} (and .kif)", record.display())),
            records,
        ),
        (appended, results_path.to_path_buf(), results_path),
        (logged, log.path().to_path_buf(), log.path()),
    ]
    .into_iter()
    .chain(engine_log.map(|l| {
        let logged = l.failure().map_or(Ok(()), Err);
        (logged, l.path().to_path_buf(), l.path())
    })) {
        match written {
            Ok(()) => kept.push(place.display().to_string()),
            Err(source) if failed.is_none() => failed = Some((path, source)),
            Err(_) => {}
        }
    }
    let Some((path, source)) = failed else {
        return Ok(());
    };
    let game = format!("game {} ({})", result.id, game.game_id);
    let kept = if kept.is_empty() {
        format!("{game} could not be kept; stopping")
    } else {
        format!("{game} is kept in {}; stopping", kept.join(" and "))
    };
    Err(CsaError::Write { path, source, kept })
}

/// The engine log `ask` names, opened (its folder made) with a first note.
fn open_engine_log(
    ask: &EngineLogAsk,
    player_name: &str,
) -> Result<council_players::factory::EngineLogs, CsaError> {
    use council_players::player::engine_log::{DEFAULT_CAP_BYTES, EngineLog};
    if let Some(dir) = ask.path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CsaError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let log = EngineLog::open(&ask.path, DEFAULT_CAP_BYTES)
        .map_err(|e| CsaError::Player(e.to_string()))?;
    log.note(&format!("council-csa as {player_name}: session started"));
    Ok(council_players::factory::EngineLogs {
        log,
        every_engine: ask.every_engine,
    })
}

/// The number the next game takes in a `--out` folder that may hold earlier sessions' games (one
/// past the highest id; game ids and seeds go on from there), and where the file's complete
/// lines end (a line cut off by a crash is dropped).
fn games_so_far(path: &Path) -> Result<(u64, Option<u64>), CsaError> {
    use council_schema::results::read::{Malformed, Policy, Repeats, TornTail, read};
    // A missing or empty file holds no game; so does a special file in its place (`/dev/full`,
    // whose length is 0 and which reads as endless zeros).
    if !std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
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
    played: crate::game::sheet::PlayedGame,
    said: String,
    you: Color,
}

/// What one login came to.
enum Attempt {
    Played(Box<Finished>),
    /// The game was rejected (by either side or the server): log in again.
    Rejected,
    /// A stop came before the game began: nothing to record.
    Stopped,
}

/// What every login of the session shares.
struct Sessions<'a> {
    config: &'a Config,
    player_name: &'a str,
    opts: &'a CsaOptions,
    log: &'a ProtocolLog,
    stop: &'a Stop,
}

impl Sessions<'_> {
    fn protocol(&self, problem: String) -> CsaError {
        CsaError::Protocol {
            server: self.opts.server.clone(),
            problem,
        }
    }

    /// Log in (on `connected`, the session's first connection, or a new one), wait for a game,
    /// agree, play it, log out (or leave at once on a stop).
    async fn play_one(
        &self,
        connected: Option<Session>,
        player: &mut dyn Player,
        number: u64,
        seed: u64,
        report: &mut dyn FnMut(Event<'_>),
    ) -> Result<Attempt, CsaError> {
        let opts = self.opts;
        let mut session = match connected {
            Some(s) => s,
            None => Session::connect(&opts.server, opts.timing(), self.log.clone()).await?,
        };
        session.send(&login_line(&opts.id, &opts.password))?;
        let mut when = "before answering LOGIN";
        let summary = loop {
            let line = tokio::select! {
                line = next(&mut session, when) => line?,
                () = self.stop.requested() => {
                    session.close().await;
                    return Ok(Attempt::Stopped);
                }
            };
            match line {
                ServerLine::LoginOk => when = "while the client waited for a game",
                ServerLine::Empty | ServerLine::Other(_) => {}
                ServerLine::LoginIncorrect => {
                    session.close().await;
                    return Err(CsaError::LoginRefused {
                        server: opts.server.clone(),
                        id: opts.id.clone(),
                    });
                }
                ServerLine::SummaryBegin => break read_summary(&mut session).await?,
                other => {
                    session.close().await;
                    return Err(self.protocol(format!("unexpected before a game: {other:?}")));
                }
            }
        };
        let summary = match summary {
            Ok(s) => s,
            Err((id, problem)) => {
                if let Some(id) = id {
                    let _ = session.send(&format!("REJECT {id}"));
                }
                session.close().await;
                return Err(
                    self.protocol(format!("a Game_Summary this client cannot play: {problem}"))
                );
            }
        };
        if let Err(e) = player.new_game(seed).await {
            let _ = session.send(&format!("REJECT {}", summary.game_id));
            session.close().await;
            return Err(self.protocol(format!("the player cannot start a game: {e}")));
        }
        session.send(&format!("AGREE {}", summary.game_id))?;
        loop {
            let line = tokio::select! {
                line = next(&mut session, "before the game started") => line?,
                () = self.stop.requested() => {
                    player.game_over(PlayerOutcome::Draw).await;
                    session.close().await;
                    return Ok(Attempt::Stopped);
                }
            };
            match line {
                ServerLine::Start(_) => break,
                ServerLine::Reject(why) => {
                    report(Event::Notice(format!(
                        "{}: game {} was rejected ({why}); logging in again",
                        opts.server, summary.game_id
                    )));
                    player.game_over(PlayerOutcome::Draw).await;
                    session.logout().await;
                    return Ok(Attempt::Rejected);
                }
                _ => {}
            }
        }
        let settings = GameSettings {
            margin: opts.margin,
            pv_comment: opts.pv_comment,
        };
        let mut game = Game::new(
            self.config,
            self.player_name,
            &summary,
            settings,
            self.log.clone(),
            number,
            seed,
        )
        .map_err(|e| self.protocol(format!("the Game_Summary's position: {e}")))?;
        let end = game.play(player, &mut session, self.stop).await;
        if let Some(by) = self.stop.by() {
            self.log
                .line('#', &format!("stopped by {by}: leaving the game"));
        }
        player
            .game_over(match end.outcome {
                Some(Outcome::Win) => PlayerOutcome::Win,
                Some(Outcome::Lose) => PlayerOutcome::Lose,
                _ => PlayerOutcome::Draw,
            })
            .await;
        if end.logout {
            session.logout().await;
        } else {
            session.close().await;
        }
        let finished = game.finish(&end);
        if finished.result.reason == Reason::Aborted {
            report(Event::Notice(format!(
                "{}: game {} ended without a result after {} moves ({}); its moves so far are recorded in {}",
                opts.server,
                summary.game_id,
                finished.result.moves.len(),
                end.said,
                opts.out.display()
            )));
        }
        Ok(Attempt::Played(Box::new(Finished {
            game_id: summary.game_id.clone(),
            played: finished,
            said: end.said,
            you: summary.you,
        })))
    }
}

/// The next line, classified; the end of the connection (`when` says at what point) is an
/// error outside a game.
async fn next(session: &mut Session, when: &'static str) -> Result<ServerLine, CsaError> {
    match session.recv().await? {
        Some(line) => Ok(parse_server_line(&line)),
        None => Err(SessionError::Closed {
            server: session.server().to_string(),
            when,
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
                when: "in the middle of a Game_Summary",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_a_minute() {
        let waits: Vec<u64> = (1..=9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }
}
