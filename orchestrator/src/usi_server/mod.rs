//! `council-usi`: any player of a council-match config, most usefully a whole council, as one
//! USI engine, so a shogi GUI (ShogiHome, ShogiGUI, Shogidokoro...) can load it like any engine.
//!
//! Why: `council-match` plays councils only against engines it runs itself; users want to play
//! against a council, analyse with it or enter it in a GUI's tournament. The GUI is then the
//! arbiter and keeps the clock; this front end turns its `go` into the player's [`Budget`]
//! ([`budget`]), thinks on the tokio runtime while it keeps reading stdin (so `stop`, `isready`
//! and `quit` are answered), and reports each council decision as `info string` lines.
//!
//! Invariants: every `go` is answered by exactly one `bestmove` (after `go infinite` it waits
//! for `stop`); a `bestmove` is never a move that is illegal in the current position (checked
//! with `engine::position`; otherwise the first legal move, with an `info string` that says
//! why), and `resign` only when the player resigned or there is no legal move; a rejected or
//! malformed `position` clears the position, so the next `go` answers `bestmove resign` with an
//! explanation (as `council-engine` does) instead of moving from a wrong position; nothing a GUI
//! or a member engine does makes this process exit other than `quit` or the end of input.
//!
//! `stop`: the player trait has no abort. In-process engines share a [`StopFlag`] with this
//! front end and end their searches at once with their best move so far, so a council of them
//! answers `stop` promptly with its vote. A USI-process member cannot be interrupted (it thinks
//! to its own budget, which `go infinite` bounds by the player's `move_timeout_ms`): if the
//! vote is not in [`STOP_GRACE`] after `stop`, the think is abandoned (its engine processes are
//! killed and restarted at the next `go`) and a short search of the built-in engine answers,
//! with an `info string` saying so. `go ponder` is not searched: thinking starts at `ponderhit`
//! with the `go`'s clock, and `stop` before it answers from the short search (the GUI discards
//! that move).

pub mod budget;
pub mod players;

use std::io::Write;
use std::time::Duration;

use engine::position::Position;
use engine::search::{BestMove, Engine, EngineSettings, Limits, Silent, StopFlag};
use engine::types::Color;
use engine::usi::session::build_position;
use engine::usi::protocol::{
    CheckmateAnswer, EngineMessage, GameOutcome, Go, GuiCommand, IdField, Info, InfoScore,
    OptionKind, OptionSpec, PositionStart, ScoreBound, UsiBestMove, parse_gui_command,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::config::{Config, PlayerKind};
use crate::player::{Budget, Decision, MoveRequest, Outcome, Player, PlayerError, Thought};
use crate::results::votes::CouncilVote;

/// The seed of every game unless the GUI sets the `Seed` option: the same positions and seed
/// at a node or depth limit give the same moves.
pub const DEFAULT_SEED: u64 = 1;

/// How long `quit` waits for a running search before it abandons it (its engine processes are
/// killed with it).
const QUIT_WAIT: Duration = Duration::from_millis(300);

/// How long `stop` waits for the player's answer before it abandons the think.
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// Depth of the built-in engine's search that answers when a think had to be abandoned.
const QUICK_DEPTH: u32 = 4;

type ThinkResult = (Box<dyn Player>, Result<Thought, PlayerError>);

/// A `go` being thought about.
struct Thinking {
    handle: JoinHandle<ThinkResult>,
    position: Position,
    /// `go infinite`: the `bestmove` waits for `stop`.
    hold: bool,
    stopped: bool,
    /// The answer, kept while it waits for `stop`.
    done: Option<Result<Thought, PlayerError>>,
}

struct FrontEnd {
    config: Config,
    name: String,
    out: Box<dyn Write + Send>,
    stop: StopFlag,
    /// `None` while a think task owns it.
    player: Option<Box<dyn Player>>,
    thinking: Option<Thinking>,
    /// A `go ponder` waiting for `ponderhit`.
    ponder: Option<Go>,
    /// `None` after a rejected `position`.
    position: Option<Position>,
    seed: u64,
    game_started: bool,
    preflight_passed: bool,
}

/// Runs the USI loop for player `name` of `config` on `input` lines until `quit` or the end of
/// input, writing to `out`. Never fails: problems are `info string` lines.
pub async fn run(
    config: Config,
    name: String,
    mut input: mpsc::UnboundedReceiver<String>,
    out: Box<dyn Write + Send>,
) {
    let stop = StopFlag::new();
    let player = players::build(&config, &name, &stop);
    let mut front = FrontEnd {
        config,
        name,
        out,
        stop,
        player: Some(player),
        thinking: None,
        ponder: None,
        position: Some(Position::startpos()),
        seed: DEFAULT_SEED,
        game_started: false,
        preflight_passed: false,
    };
    loop {
        let line = match front.thinking.as_mut() {
            Some(t) if t.done.is_none() => {
                tokio::select! {
                    joined = &mut t.handle => Err(joined),
                    line = input.recv() => Ok(line),
                }
            }
            _ => Ok(input.recv().await),
        };
        let line = match line {
            Ok(line) => line,
            Err(joined) => {
                front.finished(joined);
                continue;
            }
        };
        let Some(line) = line else { break };
        tracing::trace!(target: "usi", "<< {line}");
        if !front.handle(&line).await {
            break;
        }
    }
    front.quit().await;
}

impl FrontEnd {
    fn send(&mut self, msg: &EngineMessage) {
        // A GUI that closed our stdout cannot be told anything more; the loop ends on EOF.
        let _ = writeln!(self.out, "{msg}");
        let _ = self.out.flush();
    }

    fn say(&mut self, text: &str) {
        self.send(&EngineMessage::Info(Info {
            string: Some(text.to_string()),
            ..Info::default()
        }));
    }

    /// Handles one line; false on `quit`.
    async fn handle(&mut self, line: &str) -> bool {
        if line.trim().is_empty() {
            return true;
        }
        let command = match parse_gui_command(line) {
            Ok(c) => c,
            Err(e) => {
                if line.split_whitespace().next() == Some("position") {
                    if self.busy() {
                        self.say(&format!("{e}; ignored: a search is running"));
                    } else {
                        self.position = None;
                        self.say(&format!("position rejected, no position set: {e}"));
                    }
                } else {
                    self.say(&e.to_string());
                }
                return true;
            }
        };
        match command {
            GuiCommand::Usi => self.usi(),
            GuiCommand::IsReady => self.is_ready().await,
            GuiCommand::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            GuiCommand::UsiNewGame => {
                self.abandon().await;
                self.new_game().await;
            }
            GuiCommand::Position { start, moves } => self.set_position(&start, &moves),
            GuiCommand::Go(go) => self.go(go).await,
            GuiCommand::Stop => self.stop_now().await,
            GuiCommand::PonderHit => {
                if let Some(go) = self.ponder.take() {
                    self.think(&go);
                }
            }
            GuiCommand::GameOver(o) => {
                self.abandon().await;
                let outcome = match o {
                    GameOutcome::Win => Outcome::Win,
                    GameOutcome::Lose => Outcome::Lose,
                    GameOutcome::Draw => Outcome::Draw,
                };
                if let Some(p) = self.player.as_mut() {
                    p.game_over(outcome).await;
                }
                self.game_started = false;
            }
            GuiCommand::Quit => return false,
        }
        true
    }

    fn busy(&self) -> bool {
        self.thinking.is_some() || self.ponder.is_some()
    }

    fn usi(&mut self) {
        self.send(&EngineMessage::Id(IdField::Name(format!(
            "council ({})",
            self.name
        ))));
        self.send(&EngineMessage::Id(IdField::Author(
            "the council project".into(),
        )));
        let spin = |name: &str, default: i64, min: i64, max: i64| OptionSpec {
            name: name.into(),
            kind: OptionKind::Spin {
                default: Some(default),
                min: Some(min),
                max: Some(max),
            },
        };
        for spec in [
            spin("USI_Hash", 16, 1, 4096),
            OptionSpec {
                name: "USI_Ponder".into(),
                kind: OptionKind::Check {
                    default: Some(false),
                },
            },
            spin("Seed", DEFAULT_SEED as i64, 0, i64::MAX),
        ] {
            self.send(&EngineMessage::Option(spec));
        }
        self.send(&EngineMessage::UsiOk);
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match name.to_ascii_lowercase().as_str() {
            // Accepted for GUIs that always send them; members keep their configured hash.
            "usi_hash" | "usi_ponder" => {}
            "seed" => match value.map(str::trim).and_then(|v| v.parse::<u64>().ok()) {
                Some(s) => self.seed = s,
                None => self.say(&format!(
                    "option Seed: value `{}` is not a non-negative integer",
                    value.unwrap_or("")
                )),
            },
            _ => self.say(&format!("unknown option `{name}`")),
        }
    }

    /// Pre-flight of every USI engine of the player (as `council-match` does), once it passes;
    /// then the player is started. Failures are `info string` lines; `readyok` always follows.
    async fn is_ready(&mut self) {
        if !self.busy() {
            if !self.preflight_passed {
                let sub = players::sub_config(&self.config, &self.name);
                let checks = sub
                    .players
                    .values()
                    .filter(|p| matches!(p.kind, PlayerKind::Usi(_)))
                    .map(|p| {
                        let mut one = sub.clone();
                        one.players.retain(|n, _| *n == p.name);
                        async move { crate::factory::preflight(&one).await }
                    });
                let failures: Vec<String> = futures::future::join_all(checks)
                    .await
                    .into_iter()
                    .filter_map(Result::err)
                    .collect();
                for f in &failures {
                    self.say(&format!("member failed: {f}"));
                }
                self.preflight_passed = failures.is_empty();
            }
            if !self.game_started {
                self.new_game().await;
            }
        }
        self.send(&EngineMessage::ReadyOk);
    }

    async fn new_game(&mut self) {
        let seed = self.seed;
        let player = self.player_mut();
        let r = player.new_game(seed).await;
        if let Err(e) = r {
            self.say(&format!("cannot start {}: {e}", self.name));
        }
        self.game_started = true;
    }

    fn player_mut(&mut self) -> &mut Box<dyn Player> {
        let (config, name, stop) = (&self.config, &self.name, &self.stop);
        self.player
            .get_or_insert_with(|| players::build(config, name, stop))
    }

    fn set_position(&mut self, start: &PositionStart, moves: &[String]) {
        if self.busy() {
            self.say("position ignored: a search is running (send stop first)");
            return;
        }
        match build_position(start, moves) {
            Ok(pos) => {
                self.position = Some(pos);
            }
            Err(e) => {
                self.position = None;
                self.say(&format!("position rejected, no position set: {e}"));
            }
        }
    }

    async fn go(&mut self, go: Go) {
        if self.busy() {
            self.say("go ignored: a search is already running");
            return;
        }
        if go.mate.is_some() {
            self.send(&EngineMessage::Checkmate(CheckmateAnswer::NotImplemented));
            return;
        }
        if self.position.is_none() {
            self.say("go without a valid position (the last position command was rejected)");
            self.send(&EngineMessage::BestMove(UsiBestMove::Resign));
            return;
        }
        if !go.searchmoves.is_empty() {
            self.say("searchmoves is not supported; searching all moves");
        }
        if !self.game_started {
            self.new_game().await;
        }
        if go.ponder {
            self.ponder = Some(Go {
                ponder: false,
                ..go
            });
            return;
        }
        self.think(&go);
    }

    /// Starts thinking on the current position in a task that owns the player.
    fn think(&mut self, go: &Go) {
        let Some(position) = self.position.clone() else {
            return;
        };
        let pc = self.config.player(&self.name);
        let plan = budget::plan(
            &pc.limits,
            pc.move_timeout_ms,
            go,
            position.side_to_move() == Color::Sente,
        );
        let req = MoveRequest {
            position: position.clone(),
            budget: plan.budget,
            deadline: tokio::time::Instant::now() + plan.deadline,
        };
        log_budget(&self.name, &plan.budget);
        self.stop.reset();
        let mut player = match self.player.take() {
            Some(p) => p,
            None => players::build(&self.config, &self.name, &self.stop),
        };
        let handle = tokio::spawn(async move {
            let r = player.think(&req).await;
            (player, r)
        });
        self.thinking = Some(Thinking {
            handle,
            position,
            hold: go.infinite,
            stopped: false,
            done: None,
        });
    }

    /// The think task ended: answer now, or keep the answer until `stop` (`go infinite`).
    fn finished(&mut self, joined: Result<ThinkResult, tokio::task::JoinError>) {
        let result = match joined {
            Ok((player, r)) => {
                self.player = Some(player);
                r
            }
            Err(e) => {
                // The player went with the task: a fresh one starts at the next game.
                self.game_started = false;
                Err(PlayerError::Crash {
                    player: self.name.clone(),
                    detail: format!("the thinking task failed: {e}"),
                })
            }
        };
        let Some(t) = self.thinking.as_mut() else {
            return;
        };
        if t.hold && !t.stopped {
            t.done = Some(result);
            return;
        }
        if let Some(t) = self.thinking.take() {
            self.answer(&t.position, result);
        }
    }

    /// `stop`: in-process searches end at once; a think still running after [`STOP_GRACE`]
    /// (a USI member cannot be interrupted) is abandoned and a quick search answers.
    async fn stop_now(&mut self) {
        if self.ponder.take().is_some() {
            self.say("stopped while pondering: nothing was searched; a quick search answers");
            if let Some(pos) = self.position.clone() {
                let best = quick_move(&pos);
                self.send(&EngineMessage::BestMove(best));
            }
            return;
        }
        let Some(t) = self.thinking.as_mut() else {
            return;
        };
        t.stopped = true;
        self.stop.stop();
        if t.done.is_none() {
            match tokio::time::timeout(STOP_GRACE, &mut t.handle).await {
                Ok(joined) => self.finished(joined),
                Err(_) => {
                    t.handle.abort();
                    let position = t.position.clone();
                    self.thinking = None;
                    // The player went with the task (its engine processes are killed): a fresh
                    // one starts at the next `go`.
                    self.game_started = false;
                    self.say(&format!(
                        "stop: a member of {} cannot be interrupted; it was abandoned (restarted at the next go) and a quick search of the built-in engine answers",
                        self.name
                    ));
                    let best = quick_move(&position);
                    self.send(&EngineMessage::BestMove(best));
                }
            }
        } else if let Some(mut t) = self.thinking.take()
            && let Some(result) = t.done.take()
        {
            self.answer(&t.position, result);
        }
    }

    /// Ends any search without answering it (`usinewgame`, `gameover`).
    async fn abandon(&mut self) {
        self.ponder = None;
        if let Some(t) = self.thinking.take() {
            self.stop.stop();
            if t.done.is_none() {
                match t.handle.await {
                    Ok((player, _)) => self.player = Some(player),
                    Err(_) => self.game_started = false,
                }
            }
        }
    }

    async fn quit(&mut self) {
        self.ponder = None;
        if let Some(mut t) = self.thinking.take() {
            self.stop.stop();
            if t.done.is_none() {
                match tokio::time::timeout(QUIT_WAIT, &mut t.handle).await {
                    Ok(Ok((player, _))) => self.player = Some(player),
                    // Abandoned: its engine processes are killed when it is dropped.
                    _ => t.handle.abort(),
                }
            }
        }
        if let Some(mut p) = self.player.take() {
            p.shutdown().await;
        }
    }

    /// The `info` lines and the `bestmove` for a finished think.
    fn answer(&mut self, position: &Position, result: Result<Thought, PlayerError>) {
        let thought = match result {
            Ok(t) => t,
            Err(e) => {
                self.say(&format!(
                    "{} failed: {e}; playing the first legal move",
                    self.name
                ));
                let best = first_legal(position);
                self.send(&EngineMessage::BestMove(best));
                return;
            }
        };
        for vote in &thought.votes {
            for line in vote_lines(vote) {
                self.say(&line);
            }
        }
        let best = match &thought.decision {
            Decision::Resign => UsiBestMove::Resign,
            Decision::Win => {
                if position.impasse_declaration().is_ok() {
                    UsiBestMove::Win
                } else {
                    self.say(&format!(
                        "{} declared an impasse win that does not hold; playing the first legal move",
                        self.name
                    ));
                    first_legal(position)
                }
            }
            Decision::Move(text) => match position.parse_usi_move(text) {
                Ok(mv) => UsiBestMove::Move {
                    mv: mv.to_usi(),
                    ponder: None,
                },
                Err(e) => {
                    self.say(&format!(
                        "{} chose `{text}`, which is not legal here ({e}); playing the first legal move",
                        self.name
                    ));
                    first_legal(position)
                }
            },
        };
        let pv = match &best {
            UsiBestMove::Move { mv, .. } => legal_pv(position, mv, &thought.pv),
            _ => Vec::new(),
        };
        if thought.eval.is_some() || !pv.is_empty() {
            self.send(&EngineMessage::Info(Info {
                depth: thought.depth,
                time: Some(thought.engine_time.as_millis() as u64),
                nodes: thought.nodes,
                score: thought.eval.map(|e| InfoScore {
                    value: e,
                    bound: ScoreBound::Exact,
                }),
                pv,
                ..Info::default()
            }));
        }
        self.send(&EngineMessage::BestMove(best));
    }
}

fn log_budget(name: &str, b: &Budget) {
    tracing::debug!(player = %name, ?b, "go");
}

/// The first legal move, or `resign` when there is none.
fn first_legal(position: &Position) -> UsiBestMove {
    position
        .legal_moves()
        .first()
        .map_or(UsiBestMove::Resign, |m| UsiBestMove::Move {
            mv: m.to_usi(),
            ponder: None,
        })
}

/// The built-in engine's move after a short search (depth [`QUICK_DEPTH`]): the answer when the
/// player's think had to be abandoned. Always legal, `resign` only without a legal move.
fn quick_move(position: &Position) -> UsiBestMove {
    let mut engine = Engine::new(EngineSettings {
        hash_mb: 1,
        ..EngineSettings::default()
    });
    let limits = Limits {
        depth: Some(QUICK_DEPTH),
        ..Limits::default()
    };
    match engine
        .search(position, &limits, &StopFlag::new(), &mut Silent)
        .best
    {
        BestMove::Move(m) if position.is_legal(m) => UsiBestMove::Move {
            mv: m.to_usi(),
            ponder: None,
        },
        _ => first_legal(position),
    }
}

/// `pv` when it starts with `best`, cut before its first move that is not legal; else `best`.
fn legal_pv(position: &Position, best: &str, pv: &[String]) -> Vec<String> {
    if pv.first().map(String::as_str) != Some(best) {
        return vec![best.to_string()];
    }
    let mut pos = position.clone();
    let mut out = Vec::new();
    for text in pv {
        match pos.parse_usi_move(text) {
            Ok(mv) => {
                pos.play(mv);
                out.push(mv.to_usi());
            }
            Err(_) => break,
        }
    }
    out
}

/// One council decision as `info string` texts: one per member, then the rule.
pub fn vote_lines(v: &CouncilVote) -> Vec<String> {
    let mut lines: Vec<String> = v
        .members
        .iter()
        .map(|m| match (&m.mv, &m.error) {
            (Some(mv), _) => {
                let score = m
                    .score
                    .map_or_else(|| "no score".to_string(), |e| e.to_string());
                let nodes = m.nodes.map(|n| format!(", {n} nodes")).unwrap_or_default();
                format!(
                    "council {} member {} votes {mv} ({score}{nodes}, {} ms)",
                    v.council, m.name, m.time_ms
                )
            }
            (None, error) => format!(
                "council {} member {} has no vote: {}",
                v.council,
                m.name,
                error.as_deref().unwrap_or("no answer")
            ),
        })
        .collect();
    let rule = serde_json::to_value(v.rule)
        .ok()
        .and_then(|r| r.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{:?}", v.rule));
    let overrode = if v.overrode_strongest {
        format!(", overriding the strongest member {}", v.strongest)
    } else {
        String::new()
    };
    lines.push(format!(
        "council {} chose {} by rule {rule} ({}){overrode}",
        v.council,
        v.chosen,
        serde_json::to_value(v.method)
            .ok()
            .and_then(|r| r.as_str().map(str::to_string))
            .unwrap_or_default()
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pv_is_cut_at_its_first_illegal_move_and_always_starts_with_the_move() {
        let pos = Position::startpos();
        let pv = vec!["7g7f".to_string(), "3c3d".into(), "7g7f".into()];
        assert_eq!(legal_pv(&pos, "7g7f", &pv), ["7g7f", "3c3d"]);
        assert_eq!(legal_pv(&pos, "2g2f", &pv), ["2g2f"]);
        assert!(matches!(first_legal(&pos), UsiBestMove::Move { .. }));
    }
}
