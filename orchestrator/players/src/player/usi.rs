//! An external USI engine as a [`Player`]: a child process spoken to through the shared
//! `engine::usi::protocol` parser and formatter.
//!
//! Invariants: every read has a deadline (start-up timeout for `usi`/`isready`, the move's
//! deadline for `go`); lines that are not USI (banners like sjaakii's, debug output) are logged
//! and skipped; after any failure the process is killed and the next game starts a fresh one.
//! The score of a move is taken from the last `info` whose PV starts with the chosen move, else
//! the last `info` with a score (gpsusi's last line is not always its chosen move); a `cp` at or
//! beyond `mate_cp` is a mate of unknown length (gpsusi reports mates as `cp +-1148897`).
//!
//! Engine quirks are per-engine settings ([`UsiEngineSettings`], kept as the config validated
//! them), never guesses: `go_nodes = false` (gpsusi aborts on `go nodes`/`go depth`),
//! `drop_notation = "@"` (sjaakii writes and reads drops as `P@5e`: the moves we send are
//! translated, and its `bestmove`/PV are translated back before the arbiter sees them; from any
//! other engine a `@` stays a malformed move), `go_byoyomi = false`
//! (sjaakii plays at once on byoyomi: the arbiter's clock goes out as `go movetime X`),
//! `position_startpos = false` (sjaakii reads `startpos` as the last SFEN it was given: the
//! start position's SFEN goes out instead), `restart = true` (a fresh process every game, for
//! engines that carry state across games).
//!
//! At a move's deadline the engine is sent `stop` and given [`STOP_ANSWER_WAIT`] to answer; an
//! answer then is returned (late: the caller judges it), no answer is a timeout and the engine
//! owes its `bestmove`, which is read and dropped before anything else is sent to it. An engine
//! that does not answer `stop` within [`STOP_GRACE`] is killed. With `ponder = true` the
//! engine searches in the opponent's time (`go ponder`, `USI_Ponder` set when it declares it):
//! the next move is a `ponderhit` when the opponent played the expected reply, else `stop`,
//! the pondered `bestmove` dropped, and a fresh `go`; a pondered answer is never taken for
//! another position. It ponders on the reply its `bestmove M ponder R` named, its pv's second
//! move only when it named none. A `bestmove` it sent while pondering, before any `ponderhit`
//! or `stop`, is a malformed answer at its next move (docs/reference/rules.md, pondering
//! faults).
//!
//! In a GUI's tree ([`UsiPlayer::live`], `council-usi`) it also ponders when asked (whatever
//! its `ponder` key says; `USI_Ponder` is set when the GUI enabled pondering), thinks with
//! `go infinite` when its budget is infinite, publishes every scored `info` line on the
//! progress board as it reads it, and treats the GUI's stop flag as a deadline: it sends `stop`
//! and its `bestmove` within [`STOP_ANSWER_WAIT`] is its answer (not late: the GUI asked for
//! it now); one that does not come is owed as at a deadline.

use std::convert::Infallible;
use std::time::Duration;

use engine::position::Position;
use engine::types::Score;
use engine::usi::protocol::{
    EngineMessage, Go, GuiCommand, Info, InfoRef, OptionSpec, PositionLine, UsiBestMove,
    parse_engine_message, parse_info_line,
};
use tokio::time::Instant;

use super::engine_log::LogTag;
use super::live::{Line, Live};
use super::process::{Deadline, EngineProcess, ProcessError};
use super::time::{STOP_ANSWER_WAIT, STOP_GRACE};
use super::{BoxFuture, Decision, MoveRequest, Outcome, Player, PlayerError, Thought};
use council_schema::config::{DropNotation, OptionValue, UsiEngineSettings};

/// The start position's SFEN, built once (a `Position` costs more to build than a move does).
fn startpos_sfen() -> &'static str {
    static SFEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SFEN.get_or_init(|| Position::startpos().root_sfen().to_string())
}

/// Plies reported for a mate whose length the engine did not say.
pub(crate) const UNKNOWN_MATE_PLIES: i32 = 99;

/// Grace between `quit` and SIGKILL.
const QUIT_GRACE: Duration = Duration::from_millis(500);

pub struct UsiPlayer {
    name: String,
    settings: UsiEngineSettings,
    /// `go searchmoves`: set only through [`UsiPlayer::restrict_search`], a test hook.
    searchmoves: Vec<String>,
    /// The MultiPV option last sent to the running process (analysis, approval councils).
    multipv: Option<usize>,
    process: Option<EngineProcess>,
    /// The options the engine declared in its last `usi` handshake.
    declared: Vec<OptionSpec>,
    /// Options changed by [`UsiPlayer::reconfigure`] while the process runs: sent with
    /// `setoption` before the next `usinewgame`.
    pending_options: Vec<(String, OptionValue)>,
    /// `ponder = true`.
    ponder: bool,
    /// A search it was sent `stop` for has not answered yet: its `bestmove` must come by then.
    owed: Option<Instant>,
    /// The search it runs in the opponent's time.
    pondering: Option<Pondering>,
    /// The pv of its last answer (its second move is the reply it expects when it names none).
    last_pv: Vec<String>,
    /// The reply its last `bestmove M ponder R` named (R, in our notation).
    last_ponder: Option<String>,
    /// A GUI's hook (see the module's docs).
    live: Option<Live>,
    /// Where its processes log their lines (`--log`, `log = true`).
    log: Option<LogTag>,
    /// The buffers of the last search's [`Scored`], emptied: the next search's, so a search's
    /// lines allocate nothing once the first searches grew them.
    scored_buffers: ScoredBuffers,
}

/// How often a read looks at the GUI's stop flag.
const GUI_STOP_POLL: Duration = Duration::from_millis(5);

/// A `go ponder` under way: the `position` command it searches and its MultiPV.
struct Pondering {
    position: String,
    multipv: usize,
}

/// One line of a MultiPV analysis: its first move and score (mover's view, `mate_cp` undone).
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisLine {
    pub mv: String,
    pub score: Score,
}

impl UsiPlayer {
    /// The player `name` running the engine `settings` describe (`ponder`: it thinks in the
    /// opponent's time). The process starts at the first `new_game`.
    pub fn new(name: &str, settings: &UsiEngineSettings, ponder: bool) -> Self {
        Self {
            name: name.to_string(),
            settings: settings.clone(),
            searchmoves: Vec::new(),
            multipv: None,
            process: None,
            declared: Vec::new(),
            pending_options: Vec::new(),
            ponder,
            owed: None,
            pondering: None,
            last_pv: Vec::new(),
            last_ponder: None,
            live: None,
            log: None,
            scored_buffers: ScoredBuffers::default(),
        }
    }

    /// This player in a GUI's tree (see the module's docs).
    pub(crate) fn live(mut self, live: Live) -> Self {
        self.live = Some(live);
        self
    }

    /// It thinks in the opponent's time when asked: `ponder = true`, or in a GUI's tree.
    fn may_ponder(&self) -> bool {
        self.ponder || self.live.is_some()
    }

    /// Log every line of its processes (from the next start) under `tag`.
    #[must_use]
    pub fn logged(mut self, tag: Option<LogTag>) -> Self {
        self.log = tag;
        self
    }

    /// Take new settings for the next game without restarting the engine: option
    /// values that changed are sent with `setoption` before the next `usinewgame` (legal between
    /// games), the orchestrator-side keys are set in place. False, and nothing changed, when the
    /// process itself would differ (`command`, `args`, `dir`) or an option would be dropped
    /// (USI cannot unset one): build a new player then. How `council-tune` re-parameterises a
    /// player between games.
    pub fn reconfigure(&mut self, name: &str, new: &UsiEngineSettings, ponder: bool) -> bool {
        let old = &self.settings;
        let same_process = old.command == new.command && old.args == new.args && old.dir == new.dir;
        let keeps_options = old
            .options
            .iter()
            .all(|(n, _)| new.options.iter().any(|(m, _)| m == n));
        if !same_process || !keeps_options || name != self.name || ponder != self.ponder {
            return false;
        }
        for (name, value) in &new.options {
            if !old.options.iter().any(|(n, v)| n == name && v == value) {
                self.pending_options.retain(|(n, _)| n != name);
                self.pending_options.push((name.clone(), value.clone()));
            }
        }
        self.settings = new.clone();
        true
    }

    /// The options the engine declared (`option name ...` before `usiok`) when it last
    /// started; empty before the first `new_game`.
    pub fn declared_options(&self) -> &[OptionSpec] {
        &self.declared
    }

    /// Restrict every following search to `moves` (USI text) with `go searchmoves`; empty lifts
    /// the restriction.
    ///
    /// A test hook, deliberately not a config key: a match never tells an engine which moves
    /// to consider. The tests use it to make a real engine answer a move it would avoid (e.g.
    /// Fairy-Stockfish's pawn-drop mate) and check that the arbiter rejects it.
    pub fn restrict_search(&mut self, moves: Vec<String>) {
        self.searchmoves = moves;
    }

    fn error(&self, e: ProcessError, doing: &str) -> PlayerError {
        process_error(&self.name, e, doing)
    }

    /// Kill the process (if any) so the next game starts a fresh one.
    async fn discard(&mut self) {
        self.owed = None;
        self.pondering = None;
        if let Some(p) = self.process.take() {
            p.stop(QUIT_GRACE).await;
        }
    }

    /// Read and drop the `bestmove` a stopped search owes, waiting until `limit` at most. An
    /// engine whose grace ran out is killed (a crash); one that may still answer in its grace
    /// is a timeout now and owes it still.
    async fn settle(&mut self, limit: Instant) -> Result<(), PlayerError> {
        let Some(by) = self.owed else {
            return Ok(());
        };
        let name = self.name.clone();
        let Some(p) = self.process.as_mut() else {
            self.owed = None;
            return Ok(());
        };
        let until = by.min(limit);
        match wait_for(p, Deadline::until(until), |m| {
            matches!(m, EngineMessage::BestMove(_))
        })
        .await
        {
            Ok(()) => {
                self.owed = None;
                Ok(())
            }
            Err(ProcessError::Timeout(_)) if until < by => Err(PlayerError::Timeout {
                player: name,
                detail: "still searching: the bestmove of a stopped search has not come".into(),
            }),
            Err(e) => {
                self.discard().await;
                Err(PlayerError::Crash {
                    player: name,
                    detail: format!(
                        "did not answer `stop` within {} ms ({e})",
                        STOP_GRACE.as_millis()
                    ),
                })
            }
        }
    }

    /// A fault when its search in the opponent's time has sent `bestmove` already, before any
    /// `ponderhit` or `stop` (USI forbids it: a pondering engine waits for one of them, however
    /// soon its search ends). Such an answer, read before `ponderhit` or `stop` is sent, is
    /// never taken, for a hit or a miss (one that crosses them on the pipe cannot be told).
    fn ponder_answered_early(&mut self) -> Result<(), PlayerError> {
        let Some(p) = self.process.as_mut().filter(|_| self.pondering.is_some()) else {
            return Ok(());
        };
        if !p.has_unread("bestmove") {
            return Ok(());
        }
        Err(PlayerError::Malformed {
            player: self.name.clone(),
            detail: "sent `bestmove` while pondering, before any `ponderhit` or `stop`".into(),
        })
    }

    /// End a search in the opponent's time: `stop`, and its `bestmove` read and dropped.
    async fn stop_pondering(&mut self) -> Result<(), PlayerError> {
        if self.pondering.take().is_none() {
            return Ok(());
        }
        let name = self.name.clone();
        let Some(p) = self.process.as_mut() else {
            return Ok(());
        };
        p.send(&GuiCommand::Stop.to_string())
            .await
            .map_err(|e| process_error(&name, e, "stop"))?;
        self.owed = Some(Instant::now() + STOP_GRACE);
        self.settle(Instant::now() + STOP_GRACE).await
    }

    /// Stop pondering and take any owed `bestmove` before a new game or its end; an engine
    /// that does not answer is killed (the next game starts a fresh one).
    async fn quiesce(&mut self) {
        let r = match self.stop_pondering().await {
            Ok(()) => self.settle(Instant::now() + STOP_GRACE).await,
            e => e,
        };
        if let Err(e) = r {
            tracing::warn!(player = %self.name, "{e}");
            self.discard().await;
        }
    }

    async fn start(&mut self) -> Result<(), PlayerError> {
        let s = &self.settings;
        let log = self.log.clone();
        let mut p = EngineProcess::spawn(&self.name, &s.command, &s.args, s.dir.as_deref(), log)
            .map_err(|e| self.error(e, "start"))?;
        let deadline = Deadline::after(s.startup_timeout());
        p.send(&GuiCommand::Usi.to_string())
            .await
            .map_err(|e| self.error(e, "usi"))?;
        let mut declared = Vec::new();
        let r = async {
            loop {
                match parse_engine_message(&p.read_line(deadline).await?) {
                    Ok(EngineMessage::UsiOk) => return Ok(()),
                    Ok(EngineMessage::Option(spec)) => declared.push(spec),
                    _ => {}
                }
            }
        }
        .await;
        r.map_err(|e| self.error(e, "waiting for usiok"))?;
        let announce = self.ponder || self.live.as_ref().is_some_and(|l| l.usi_ponder);
        let usi_ponder = announce && declared.iter().any(|o| o.name == "USI_Ponder");
        self.declared = declared;
        self.pending_options.clear();
        if usi_ponder {
            let cmd = GuiCommand::SetOption {
                name: "USI_Ponder".into(),
                value: Some("true".into()),
            };
            p.send(&cmd.to_string())
                .await
                .map_err(|e| self.error(e, "setoption USI_Ponder"))?;
        }
        for (name, value) in &s.options {
            let cmd = GuiCommand::SetOption {
                name: name.clone(),
                value: Some(value.to_string()),
            };
            p.send(&cmd.to_string())
                .await
                .map_err(|e| self.error(e, "setoption"))?;
        }
        self.process = Some(p);
        // A fresh process has the default MultiPV.
        self.multipv = None;
        Ok(())
    }

    async fn prepare(&mut self, seed: u64) -> Result<(), PlayerError> {
        self.quiesce().await;
        if self.process.is_none() {
            self.start().await?;
        }
        let changed: Vec<String> = std::mem::take(&mut self.pending_options)
            .into_iter()
            .map(|(name, value)| {
                GuiCommand::SetOption {
                    name,
                    value: Some(value.to_string()),
                }
                .to_string()
            })
            .collect();
        let deadline = Deadline::after(self.settings.startup_timeout());
        let name = self.name.clone();
        let Some(p) = self.process.as_mut() else {
            return Err(PlayerError::Crash {
                player: name,
                detail: "not running".into(),
            });
        };
        let seed_cmd = self.settings.seed_option.as_ref().map(|name| {
            GuiCommand::SetOption {
                name: name.clone(),
                // USI spins are signed 64-bit: keep the seed in range.
                value: Some((seed >> 1).to_string()),
            }
            .to_string()
        });
        let r = async {
            for cmd in &changed {
                p.send(cmd).await?;
            }
            if let Some(cmd) = &seed_cmd {
                p.send(cmd).await?;
            }
            p.send(&GuiCommand::IsReady.to_string()).await?;
            wait_for(p, deadline, |m| matches!(m, EngineMessage::ReadyOk)).await?;
            p.send(&GuiCommand::UsiNewGame.to_string()).await
        }
        .await;
        r.map_err(|e| self.error(e, "isready"))
    }

    /// The `position` command for `position` (its root and moves, in the engine's notation).
    fn position_line(&self, position: &Position) -> String {
        let s = &self.settings;
        let root = position.root_sfen();
        let notation = s.drop_notation;
        PositionLine {
            sfen: (!(s.position_startpos && root == startpos_sfen())).then_some(root),
            moves: position.moves_played().map(|m| EngineMove(m, notation)),
        }
        .to_string()
    }

    /// Send `position` and `go`, then read until `bestmove`: the last `keep` info lines that
    /// carry a score (their PVs in our notation), the answer, and the engine's time. With
    /// `stop_at_deadline` the engine is sent `stop` at the deadline (see the module's docs).
    async fn search(
        &mut self,
        position: String,
        go: Go,
        deadline: Deadline,
        keep: usize,
        stop_at_deadline: bool,
    ) -> Result<(Scored, UsiBestMove, Duration), PlayerError> {
        self.send_commands(&[position, GuiCommand::Go(go).to_string()])
            .await?;
        self.read_answer(Instant::now(), deadline, keep, stop_at_deadline)
            .await
    }

    /// Send `lines` in order.
    async fn send_commands(&mut self, lines: &[String]) -> Result<(), PlayerError> {
        let name = self.name.clone();
        let Some(p) = self.process.as_mut() else {
            return Err(PlayerError::Crash {
                player: name,
                detail: "not running".into(),
            });
        };
        // One write for all of them (`position` and `go`: one wake-up of the engine, one
        // system call); a failure names the first command, as a line-by-line send did when the
        // pipe was already broken.
        let word = lines
            .first()
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("");
        p.send_lines(lines)
            .await
            .map_err(|e| process_error(&name, e, word))
    }

    /// Read a search's answer (see [`UsiPlayer::search`]); its time counts from `began`.
    async fn read_answer(
        &mut self,
        began: Instant,
        deadline: Deadline,
        keep: usize,
        stop_at_deadline: bool,
    ) -> Result<(Scored, UsiBestMove, Duration), PlayerError> {
        let mut owed = None;
        let r = self
            .read_bestmove(began, deadline, keep, stop_at_deadline, &mut owed)
            .await;
        self.owed = owed;
        r
    }

    async fn read_bestmove(
        &mut self,
        began: Instant,
        deadline: Deadline,
        keep: usize,
        stop_at_deadline: bool,
        owed: &mut Option<Instant>,
    ) -> Result<(Scored, UsiBestMove, Duration), PlayerError> {
        let name = self.name.clone();
        let drop_notation = self.settings.drop_notation;
        let from_engine = |mv: &str| from_engine(drop_notation, mv);
        let mate_cp = self.settings.mate_cp;
        let progress = self.live.as_ref().map(|l| l.progress.clone());
        let gui_stop = self
            .live
            .as_ref()
            .filter(|_| stop_at_deadline)
            .map(|l| l.stop.clone());
        let Some(p) = self.process.as_mut() else {
            return Err(PlayerError::Crash {
                player: name,
                detail: "not running".into(),
            });
        };
        let mut infos = Scored::new(
            keep,
            drop_notation,
            std::mem::take(&mut self.scored_buffers),
        );
        let mut wait = deadline;
        loop {
            let gui_stopping = gui_stop.as_ref().filter(|_| owed.is_none());
            // Looked at before each line too, so an engine that floods its output is stopped.
            // Without a GUI's stop flag a read is only a read (no select to poll per line).
            let read = match gui_stopping {
                Some(flag) if flag.is_stopped() => None,
                Some(flag) => tokio::select! {
                    read = p.read_line(wait) => Some(read),
                    () = async {
                        while !flag.is_stopped() {
                            tokio::time::sleep(GUI_STOP_POLL).await;
                        }
                    } => None,
                },
                None => Some(p.read_line(wait).await),
            };
            let Some(read) = read else {
                // The GUI's stop: as at a deadline, but the answer it gives now is on time.
                p.send(&GuiCommand::Stop.to_string())
                    .await
                    .map_err(|e| process_error(&name, e, "stop"))?;
                *owed = Some(Instant::now() + STOP_GRACE);
                wait = Deadline::after(STOP_ANSWER_WAIT);
                continue;
            };
            let line = match read {
                Ok(line) => line,
                Err(ProcessError::Timeout(_)) if stop_at_deadline && owed.is_none() => {
                    // The deadline: stop the search and give it a moment to answer.
                    p.send(&GuiCommand::Stop.to_string())
                        .await
                        .map_err(|e| process_error(&name, e, "stop"))?;
                    *owed = Some(Instant::now() + STOP_GRACE);
                    wait = Deadline::after(STOP_ANSWER_WAIT);
                    continue;
                }
                Err(ProcessError::Timeout(_)) if owed.is_some() => {
                    return Err(process_error(
                        &name,
                        ProcessError::Timeout(deadline.budget),
                        "waiting for bestmove (sent `stop`, its bestmove is owed)",
                    ));
                }
                Err(e) => return Err(process_error(&name, e, "waiting for bestmove")),
            };
            if line.trim().is_empty() {
                continue;
            }
            // Only an `info` with a `score` word is kept, as its text, parsed only when an
            // answer looks at it (see [`Scored`]); a GUI's progress board gets it parsed now.
            if is_info(&line) {
                if !line.split_whitespace().any(|w| w == "score") {
                    continue;
                }
                let Some(progress) = &progress else {
                    infos.push(&line);
                    continue;
                };
                match parse_info_line(&line) {
                    Ok(info) => {
                        let Some(score) = info.score else {
                            continue;
                        };
                        progress.publish(
                            &name,
                            Line {
                                multipv: info.multipv.unwrap_or(1),
                                depth: info.depth,
                                nodes: info.nodes,
                                time: info
                                    .time
                                    .map_or_else(|| began.elapsed(), Duration::from_millis),
                                score: Some(normalize_score(score.value, mate_cp)),
                                pv: info.pv().map(from_engine).collect(),
                            },
                        );
                        infos.push(&line);
                    }
                    Err(e) => tracing::debug!(player = %name, "ignoring non-USI line: {e}"),
                }
                continue;
            }
            match parse_engine_message(&line) {
                Ok(EngineMessage::BestMove(best)) => {
                    *owed = None;
                    let best = match best {
                        UsiBestMove::Move { mv, ponder } => UsiBestMove::Move {
                            mv: from_engine(&mv),
                            ponder: ponder.map(|r| from_engine(&r)),
                        },
                        other => other,
                    };
                    return Ok((infos, best, began.elapsed()));
                }
                Ok(_) => {}
                Err(e) if line.trim_start().starts_with("bestmove") => {
                    return Err(PlayerError::Malformed {
                        player: name,
                        detail: format!("{e}"),
                    });
                }
                Err(e) => tracing::debug!(player = %name, "ignoring non-USI line: {e}"),
            }
        }
    }

    /// The `go` for `req` (its limits and clock as this engine takes them).
    fn go_command(&self, req: &MoveRequest) -> Go {
        let s = &self.settings;
        let b = &req.budget;
        let mut go = Go {
            movetime: b.movetime_ms,
            infinite: b.infinite,
            searchmoves: self
                .searchmoves
                .iter()
                .map(|m| to_engine(s.drop_notation, m))
                .collect(),
            ..Go::default()
        };
        if s.go_nodes {
            go.nodes = b.nodes;
            go.depth = b.depth;
        }
        let mover = req.position.side_to_move();
        if !s.go_byoyomi && b.clock.is_some() {
            go.movetime = b.clock_as_movetime(mover);
        } else if let Some(c) = b.clock {
            go.state_clocks(&c, mover);
        }
        go
    }

    async fn go(&mut self, req: &MoveRequest) -> Result<Thought, PlayerError> {
        // The whole wait for the answer, from the request on: what a timeout reports.
        let deadline = Deadline::until(req.deadline);
        self.settle(req.deadline).await?;
        let position = self.position_line(&req.position);
        let multipv = req.multipv.max(1);
        let keep = if multipv == 1 { 64 } else { 4 * multipv + 64 };
        self.ponder_answered_early()?;
        let answer = match self.pondering.take() {
            Some(pd) if pd.position == position && pd.multipv == multipv => {
                // The expected reply came: the search in progress is this move's. A GUI that
                // stopped the ponder before any `ponderhit` gets its answer by `stop` alone (the
                // read below sends it), as USI says.
                let gui_stopped = self.live.as_ref().is_some_and(|l| l.stop.is_stopped());
                if !gui_stopped {
                    self.send_commands(&[GuiCommand::PonderHit.to_string()])
                        .await?;
                }
                self.read_answer(Instant::now(), deadline, keep, true)
                    .await?
            }
            pondering => {
                self.pondering = pondering;
                self.stop_pondering().await?;
                let go = self.go_command(req);
                self.set_multipv(multipv).await?;
                self.search(position, go, deadline, keep, true).await?
            }
        };
        self.last_ponder = match &answer.1 {
            UsiBestMove::Move { ponder, .. } => ponder.clone(),
            _ => None,
        };
        let thought = self.thought(answer, multipv);
        self.last_pv = thought.pv.clone();
        Ok(thought)
    }

    /// The answer of a search as a [`Thought`].
    fn thought(
        &mut self,
        (scored, best, engine_time): (Scored, UsiBestMove, Duration),
        multipv: usize,
    ) -> Thought {
        let mate_cp = self.settings.mate_cp;
        let lines = if multipv == 1 {
            Vec::new()
        } else {
            multipv_lines(&scored.infos(), mate_cp)
                .into_iter()
                .map(|l| (l.mv, Some(l.score)))
                .collect()
        };
        let decision = match best {
            UsiBestMove::Move { mv, .. } => Decision::Move(mv),
            UsiBestMove::Resign => Decision::Resign,
            UsiBestMove::Win => Decision::Win,
        };
        let info = match &decision {
            Decision::Move(m) => scored.for_move(m),
            _ => scored.last(),
        };
        self.scored_buffers = scored.into_buffers();
        let info = info.as_ref();
        Thought {
            eval: info
                .and_then(|i| i.score)
                .map(|s| normalize_score(s.value, mate_cp)),
            pv: info.map(|i| i.pv.clone()).unwrap_or_default(),
            depth: info.and_then(|i| i.depth),
            nodes: info.and_then(|i| i.nodes),
            decision,
            engine_time,
            votes: Vec::new(),
            lines,
        }
    }

    /// Start `go ponder` on `req.position` after `expected` (see [`Player::ponder`]).
    async fn start_pondering(
        &mut self,
        req: &MoveRequest,
        expected: Option<&str>,
    ) -> Option<String> {
        if !self.may_ponder() || self.process.is_none() {
            return None;
        }
        if self.stop_pondering().await.is_err() || self.settle(Instant::now()).await.is_err() {
            return None;
        }
        let expected = match expected {
            Some(e) => e.to_string(),
            None => self.expected_reply(&req.position)?,
        };
        let mv = req.position.parse_usi_move(&expected).ok()?;
        let mut next = req.clone();
        std::sync::Arc::make_mut(&mut next.position).play(mv);
        let position = self.position_line(&next.position);
        let go = Go {
            ponder: true,
            ..self.go_command(&next)
        };
        let multipv = req.multipv.max(1);
        let started = async {
            self.set_multipv(multipv).await?;
            self.send_commands(&[position.clone(), GuiCommand::Go(go).to_string()])
                .await
        }
        .await;
        match started {
            Ok(()) => {
                self.pondering = Some(Pondering { position, multipv });
                Some(expected)
            }
            Err(e) => {
                tracing::warn!(player = %self.name, "cannot ponder: {e}");
                self.discard().await;
                None
            }
        }
    }

    /// Analyse `position` as a reference engine: `multipv` lines at `nodes` (sent as `go nodes`
    /// whatever `go_nodes` says: an analysis needs a fixed budget), restricted to `searchmoves`
    /// when given, within `timeout`. Each MultiPV index's last reported line, best first. Start
    /// the engine with `new_game` first.
    pub async fn analyse(
        &mut self,
        position: &Position,
        nodes: Option<u64>,
        depth: Option<u32>,
        multipv: usize,
        searchmoves: &[String],
        timeout: Duration,
    ) -> Result<Vec<AnalysisLine>, PlayerError> {
        let name = self.name.clone();
        self.set_multipv(multipv).await?;
        let notation = self.settings.drop_notation;
        let go = Go {
            nodes,
            depth,
            searchmoves: searchmoves.iter().map(|m| to_engine(notation, m)).collect(),
            ..Go::default()
        };
        let position = self.position_line(position);
        let keep = 4 * multipv + 64;
        let (scored, best, _) = self
            .search(position, go, Deadline::after(timeout), keep, false)
            .await?;
        let lines = multipv_lines(&scored.infos(), self.settings.mate_cp);
        self.scored_buffers = scored.into_buffers();
        if lines.is_empty()
            && let UsiBestMove::Move { mv, .. } = best
        {
            return Err(PlayerError::Malformed {
                player: name,
                detail: format!("answered bestmove {mv} without a scored info line"),
            });
        }
        Ok(lines)
    }

    /// Send `setoption MultiPV` when `multipv` is not what the engine has (never sent counts as
    /// the USI default, 1).
    async fn set_multipv(&mut self, multipv: usize) -> Result<(), PlayerError> {
        if self.multipv.unwrap_or(1) == multipv {
            return Ok(());
        }
        let name = self.name.clone();
        let Some(p) = self.process.as_mut() else {
            return Err(PlayerError::Crash {
                player: name,
                detail: "not running".into(),
            });
        };
        let cmd = GuiCommand::SetOption {
            name: "MultiPV".into(),
            value: Some(multipv.to_string()),
        };
        p.send(&cmd.to_string())
            .await
            .map_err(|e| process_error(&name, e, "setoption MultiPV"))?;
        self.multipv = Some(multipv);
        Ok(())
    }
}

/// The scored `info` lines of one search, the last `keep` of them (oldest first), kept as the
/// engine wrote them. A line is kept when it has a `score` word, unparsed: it is parsed when an
/// answer looks at it (one that does not parse, or has no score, counts as never kept), so a
/// search's many lines cost one copy of their text each into one buffer, not an allocation or
/// a parse each; an answer parses the few newest lines it uses. Exactly the last `keep` valid
/// lines count: past `2 * keep` candidates the newest `keep` valid ones are kept, the rest
/// dropped ([`Scored::compact`]).
struct Scored {
    /// The candidates' text, one after another.
    text: String,
    /// Each candidate's span in `text`, oldest first.
    lines: Vec<std::ops::Range<usize>>,
    keep: usize,
    notation: DropNotation,
}

/// A [`Scored`]'s buffers (its text, its spans), kept from one search for the next.
#[derive(Default)]
struct ScoredBuffers(String, Vec<std::ops::Range<usize>>);

/// A kept line that counts: it parses, with a score.
fn scored_info(line: &str) -> Option<InfoRef<'_>> {
    parse_info_line(line).ok().filter(|i| i.score.is_some())
}

impl Scored {
    /// Empty, in `buffers` (what an earlier search's [`Scored::into_buffers`] gave back).
    fn new(keep: usize, notation: DropNotation, buffers: ScoredBuffers) -> Self {
        let ScoredBuffers(mut text, mut lines) = buffers;
        text.clear();
        lines.clear();
        Self {
            text,
            lines,
            keep,
            notation,
        }
    }

    /// Its buffers, for the next search.
    fn into_buffers(self) -> ScoredBuffers {
        ScoredBuffers(self.text, self.lines)
    }

    /// Keep `line` (an `info` with a `score` word), dropping the oldest beyond `keep`.
    fn push(&mut self, line: &str) {
        if self.keep == 0 {
            return;
        }
        let at = self.text.len();
        self.text.push_str(line);
        self.lines.push(at..self.text.len());
        if self.lines.len() > 2 * self.keep {
            self.compact();
        }
    }

    /// Keep only the newest `keep` valid lines.
    fn compact(&mut self) {
        let kept: Vec<std::ops::Range<usize>> = self.valid().take(self.keep).collect();
        let mut text = String::with_capacity(self.text.len());
        self.lines.clear();
        for r in kept.into_iter().rev() {
            let at = text.len();
            text.push_str(&self.text[r]);
            self.lines.push(at..text.len());
        }
        self.text = text;
    }

    /// The spans of the valid lines that count, newest first.
    fn valid(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.lines
            .iter()
            .rev()
            .filter(|r| scored_info(&self.text[(*r).clone()]).is_some())
            .take(self.keep)
            .cloned()
    }

    /// A line as an [`Info`], its pv in our notation.
    fn info(&self, info: InfoRef<'_>) -> Info {
        let mut info = info.to_info();
        if self.notation != DropNotation::Star {
            info.pv = info
                .pv
                .iter()
                .map(|m| from_engine(self.notation, m))
                .collect();
        }
        info
    }

    /// The line at `span` (a valid one) as an [`Info`].
    fn info_at(&self, span: std::ops::Range<usize>) -> Option<Info> {
        scored_info(&self.text[span]).map(|i| self.info(i))
    }

    /// Every line that counts, oldest first.
    fn infos(&self) -> Vec<Info> {
        let mut spans: Vec<_> = self.valid().collect();
        spans.reverse();
        spans.into_iter().filter_map(|r| self.info_at(r)).collect()
    }

    /// The last line.
    fn last(&self) -> Option<Info> {
        self.valid().next().and_then(|r| self.info_at(r))
    }

    /// The last line whose pv starts with `mv` (our notation), else the last line.
    fn for_move(&self, mv: &str) -> Option<Info> {
        let starts_with_mv = |r: &std::ops::Range<usize>| {
            scored_info(&self.text[r.clone()])
                .and_then(|i| i.pv().next())
                .is_some_and(|first| match self.notation {
                    DropNotation::Star => first == mv,
                    at => from_engine(at, first) == mv,
                })
        };
        match self.valid().find(starts_with_mv) {
            Some(r) => self.info_at(r),
            None => self.last(),
        }
    }
}

/// Each MultiPV index's last reported line (first move, score with `mate_cp` undone), best
/// first, a move repeated by consecutive lines once.
fn multipv_lines(infos: &[Info], mate_cp: i32) -> Vec<AnalysisLine> {
    let mut by_index: std::collections::BTreeMap<u32, AnalysisLine> = Default::default();
    for i in infos {
        if let (Some(mv), Some(score)) = (i.pv.first(), i.score) {
            by_index.insert(
                i.multipv.unwrap_or(1),
                AnalysisLine {
                    mv: mv.clone(),
                    score: normalize_score(score.value, mate_cp),
                },
            );
        }
    }
    let mut lines: Vec<AnalysisLine> = by_index.into_values().collect();
    lines.dedup_by(|a, b| a.mv == b.mv);
    lines
}

/// A USI move as an engine with `notation` writes it.
/// A move as an engine with `.1`'s drop notation reads it, written where it is needed.
struct EngineMove(engine::types::Move, DropNotation);

impl std::fmt::Display for EngineMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            DropNotation::Star => self.0.fmt(f),
            at => f.write_str(&to_engine(at, &self.0.to_usi())),
        }
    }
}

pub(crate) fn to_engine(notation: DropNotation, mv: &str) -> String {
    match notation {
        DropNotation::Star => mv.to_string(),
        DropNotation::At => mv.replacen('*', "@", 1),
    }
}

/// Whether `line` is an `info` message (its first word), without parsing it.
fn is_info(line: &str) -> bool {
    line.split_whitespace().next() == Some("info")
}

/// A move from an engine with `notation` as USI text. An engine not configured for `@` drops
/// keeps its text as is, so a `@` from it stays a malformed move.
pub(crate) fn from_engine(notation: DropNotation, mv: &str) -> String {
    match notation {
        DropNotation::Star => mv.to_string(),
        DropNotation::At => mv.replacen('@', "*", 1),
    }
}

/// A failed exchange with `name`'s process while `doing` something: a timeout, else a crash.
fn process_error(name: &str, e: ProcessError, doing: &str) -> PlayerError {
    let detail = format!("{doing}: {e}");
    match e {
        ProcessError::Timeout(_) => PlayerError::Timeout {
            player: name.to_string(),
            detail,
        },
        ProcessError::Spawn { .. } | ProcessError::Exited(_) => PlayerError::Crash {
            player: name.to_string(),
            detail,
        },
    }
}

/// Read lines until one parses to a message `done` accepts; other lines are skipped (`info`
/// lines without being parsed: `done` never wants one, and a dropped search sends many).
async fn wait_for(
    p: &mut EngineProcess,
    deadline: Deadline,
    done: impl Fn(&EngineMessage) -> bool,
) -> Result<(), ProcessError> {
    loop {
        let line = p.read_line(deadline).await?;
        if is_info(&line) {
            continue;
        }
        if let Ok(m) = parse_engine_message(&line)
            && done(&m)
        {
            return Ok(());
        }
    }
}

/// An engine's score with its `mate_cp` convention undone: `cp` at or beyond `mate_cp` is a mate
/// of unknown length ([`UNKNOWN_MATE_PLIES`]).
pub(crate) fn normalize_score(score: Score, mate_cp: i32) -> Score {
    match score {
        Score::Cp(cp) if cp >= mate_cp => Score::Mate(UNKNOWN_MATE_PLIES),
        Score::Cp(cp) if cp <= -mate_cp => Score::Mate(-UNKNOWN_MATE_PLIES),
        Score::Cp(cp) => Score::Cp(cp),
        Score::Mate(n) => Score::Mate(n),
    }
}

impl Player for UsiPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> BoxFuture<'_, Result<(), PlayerError>> {
        Box::pin(async move {
            if self.settings.restart {
                self.discard().await;
            }
            let r = self.prepare(seed).await;
            if r.is_err() {
                self.discard().await;
            }
            r
        })
    }

    fn think<'a>(
        &'a mut self,
        req: &'a MoveRequest,
    ) -> BoxFuture<'a, Result<Thought, PlayerError>> {
        Box::pin(async move {
            let r = self.go(req).await;
            if r.is_err() && self.owed.is_none() {
                // Whatever state the engine is in, it is not trusted again: restart next game.
                // (An engine stopped at its deadline that owes its answer is kept: see
                // `settle`.)
                self.discard().await;
            }
            r
        })
    }

    fn ponders(&self) -> bool {
        self.ponder
    }

    fn late_answer(&mut self, until: Instant) -> BoxFuture<'_, Option<Thought>> {
        Box::pin(async move {
            let owed = self.owed?;
            let began = Instant::now();
            match self
                .read_answer(began, Deadline::until(until.min(owed)), 64, false)
                .await
            {
                Ok(answer) => Some(self.thought(answer, 1)),
                Err(_) => {
                    self.owed = Some(owed);
                    None
                }
            }
        })
    }

    fn ponder<'a>(
        &'a mut self,
        req: &'a MoveRequest,
        expected: Option<&'a str>,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(self.start_pondering(req, expected))
    }

    fn expected_reply(&self, after: &Position) -> Option<String> {
        super::expected_reply_in(self.last_ponder.as_deref(), &self.last_pv, after)
    }

    fn idle(&mut self) -> BoxFuture<'_, Infallible> {
        match self.process.as_mut() {
            Some(p) => Box::pin(p.idle()),
            None => Box::pin(std::future::pending()),
        }
    }

    fn game_over(&mut self, outcome: Outcome) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.quiesce().await;
            if let Some(p) = self.process.as_mut()
                && p.send(&GuiCommand::GameOver(outcome).to_string())
                    .await
                    .is_err()
            {
                self.discard().await;
            }
        })
    }

    fn shutdown(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(self.discard())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_keep_valid_scored_lines_count() {
        let mut s = Scored::new(2, DropNotation::Star, ScoredBuffers::default());
        s.push("info depth 1 score cp 10 pv 7g7f");
        for _ in 0..10 {
            // Garbage and unscored lines with a `score` word never count, however many.
            s.push("info depth x score cp 1 pv 2g2f");
            s.push("info string score");
        }
        s.push("info depth 2 score cp 20 pv 2g2f 8c8d");
        let depths = |s: &Scored| s.infos().iter().map(|i| i.depth).collect::<Vec<_>>();
        assert_eq!(depths(&s), [Some(1), Some(2)]);
        assert_eq!(s.for_move("7g7f").and_then(|i| i.depth), Some(1));
        s.push("info depth 3 score cp 30 pv 2g2f");
        // Beyond `keep`, the oldest valid line is dropped: a move only it names falls back
        // to the last line.
        assert_eq!(depths(&s), [Some(2), Some(3)]);
        assert_eq!(s.for_move("7g7f").and_then(|i| i.depth), Some(3));
        assert_eq!(s.for_move("2g2f").map(|i| i.pv.len()), Some(1));
        assert_eq!(
            s.last().and_then(|i| i.score).map(|sc| sc.value),
            Some(Score::Cp(30))
        );
        // Its buffers serve the next search, emptied.
        let s = Scored::new(0, DropNotation::Star, s.into_buffers());
        assert!(s.last().is_none() && s.infos().is_empty());
    }

    #[test]
    fn drops_are_translated_only_for_engines_configured_for_at() {
        assert_eq!(to_engine(DropNotation::At, "P*5e"), "P@5e");
        assert_eq!(from_engine(DropNotation::At, "P@5e"), "P*5e");
        // Board moves are the same in both notations; a `*` from an `@` engine is fine too.
        assert_eq!(to_engine(DropNotation::At, "8h2b+"), "8h2b+");
        assert_eq!(from_engine(DropNotation::At, "G*5b"), "G*5b");
        // A strict engine's `@` reaches the arbiter as it was written (a malformed move).
        assert_eq!(from_engine(DropNotation::Star, "P@5e"), "P@5e");
        assert_eq!(to_engine(DropNotation::Star, "P*5e"), "P*5e");
    }
}
