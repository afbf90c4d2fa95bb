//! `council-usi`: any player of a council-match config, most usefully a whole council, as one
//! USI engine, so a shogi GUI (ShogiHome, ShogiGUI, Shogidokoro...) can load it like any engine.
//!
//! Why: `council-match` plays councils only against engines it runs itself; users want to play
//! against a council, analyse with it or enter it in a GUI's tournament. The GUI is then the
//! arbiter and keeps the clock; this server turns its `go` into the player's [`Budget`]
//! ([`budget`]), thinks on the tokio runtime while it keeps reading stdin (so `stop`, `isready`
//! and `quit` are answered), and reports each council decision as `info string` lines.
//!
//! The USI session rules (one `bestmove` per `go`, the answer of `go infinite` held for `stop`,
//! `bestmove resign` after a rejected `position`, commands ignored while a search runs, ...)
//! are `council-engine`'s too: both loops drive the one pure [`Session`] state machine, here
//! with [`Rules::COUNCIL_USI`]. This loop owns the rest: the player tree, its budget, council
//! votes as `info string` lines, the members' pre-flight. Invariants of its own: a `bestmove`
//! is never a move that is illegal in the current position (checked with `engine::position`;
//! otherwise the first legal move, with an `info string` that says why), and `resign` only
//! when the player resigned or there is no legal move; nothing a GUI or a member engine does
//! makes this process exit other than `quit` or the end of input.
//!
//! `stop`: the player trait has no abort. In-process engines share a [`StopFlag`] with this
//! server and end their searches at once with their best move so far, so a council of them
//! answers `stop` promptly with its vote. A USI-process member cannot be interrupted (it thinks
//! to its own budget, which `go infinite` bounds by the player's `move_timeout_ms`): if the
//! vote is not in [`STOP_GRACE`] after `stop`, the think is abandoned (its engine processes are
//! killed and restarted at the next `go`) and a short search of the built-in engine answers,
//! with an `info string` saying so. `go ponder` is not searched: thinking starts at `ponderhit`
//! with the `go`'s clock, and `stop` before it answers from the short search (the GUI discards
//! that move).

pub mod budget;
pub mod players;

use std::collections::VecDeque;
use std::io::Write;
use std::time::Duration;

use engine::position::{Position, Replay};
use engine::search::{BestMove, Engine, EngineSettings, Limits, Silent, StopFlag};
use engine::usi::protocol::{
    EngineMessage, Go, IdField, Info, InfoScore, OptionKind, OptionSpec, ScoreBound, UsiBestMove,
};
use engine::usi::session::{Action, Rules, Session};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use council_players::factory::{EngineLogs, build_player_logged};
use council_players::player::engine_log::in_game;
use council_players::player::{Budget, Decision, MoveRequest, Player, PlayerError, Thought};
use council_schema::config::{Config, PlayerKind};
use council_schema::results::votes::CouncilVote;

/// The seed of every game unless the GUI sets the `Seed` option: the same positions and seed
/// at a node or depth limit give the same moves.
pub(crate) const DEFAULT_SEED: u64 = 1;

/// How long `quit` waits for a running search before it abandons it (its engine processes are
/// killed with it).
const QUIT_WAIT: Duration = Duration::from_millis(300);

/// How long `stop` waits for the player's answer before it abandons the think.
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(500);

/// Depth of the built-in engine's search that answers when a think had to be abandoned.
const QUICK_DEPTH: u32 = 4;

type ThinkResult = (Box<dyn Player>, Result<Thought, PlayerError>);

/// How a think ended, for the session to answer or hold.
enum Reply {
    Thought(Result<Thought, PlayerError>),
    /// `stop` gave up on a think that did not end within [`STOP_GRACE`].
    Abandoned,
}

/// The server: the player and its think task; the session rules live in [`Session`].
struct Server {
    config: Config,
    name: String,
    out: Box<dyn Write + Send>,
    session: Session<Reply>,
    stop: StopFlag,
    /// `None` while a think task owns it.
    player: Option<Box<dyn Player>>,
    /// The running think.
    thinking: Option<JoinHandle<ThinkResult>>,
    seed: u64,
    preflight_passed: bool,
    /// Where the player's engines log their lines (`--log`, `log = true`).
    logs: Option<EngineLogs>,
    /// The GUI's games so far (`usinewgame`s): the engine log's game ids.
    games: u64,
}

/// Runs the USI loop for player `name` of `config` on `input` lines until `quit` or the end of
/// input, writing to `out`. Never fails: problems are `info string` lines.
pub async fn run(
    config: Config,
    name: String,
    input: mpsc::UnboundedReceiver<String>,
    out: Box<dyn Write + Send>,
) {
    run_logged(config, name, None, input, out).await;
}

/// As [`run`], the player's engines writing their lines to `logs` as it says, each GUI game's
/// under its number (the `usinewgame`s counted from 1).
pub async fn run_logged(
    config: Config,
    name: String,
    logs: Option<EngineLogs>,
    mut input: mpsc::UnboundedReceiver<String>,
    out: Box<dyn Write + Send>,
) {
    let stop = StopFlag::new();
    let player = build_player_logged(&config, &name, Some(&stop), logs.as_ref());
    let mut front = Server {
        config,
        name,
        out,
        session: Session::new(Rules::COUNCIL_USI),
        stop,
        player: Some(player),
        thinking: None,
        seed: DEFAULT_SEED,
        preflight_passed: false,
        logs,
        games: 0,
    };
    loop {
        let line = match front.thinking.as_mut() {
            Some(handle) => {
                tokio::select! {
                    joined = handle => Err(joined),
                    line = input.recv() => Ok(line),
                }
            }
            None => Ok(input.recv().await),
        };
        let actions = match line {
            Err(joined) => {
                front.thinking = None;
                let reply = front.reply(joined);
                front.session.finished(reply)
            }
            Ok(Some(line)) => {
                tracing::trace!(target: "usi", "<< {line}");
                front.session.line(&line)
            }
            Ok(None) => front.session.end_of_input(),
        };
        if !front.perform(actions).await {
            break;
        }
    }
    front.quit().await;
}

impl Server {
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

    /// Carries out the session's actions in order; false on `quit`.
    async fn perform(&mut self, actions: Vec<Action<Reply>>) -> bool {
        let mut queue = VecDeque::from(actions);
        while let Some(action) = queue.pop_front() {
            match action {
                Action::Send(msg) => self.send(&msg),
                Action::Identify => self.usi(),
                Action::SetOption { name, value } => self.set_option(&name, value.as_deref()),
                Action::Prepare => self.preflight().await,
                Action::NewGame => self.new_game().await,
                Action::GameOver(outcome) => {
                    if let Some(p) = self.player.as_mut() {
                        p.game_over(outcome).await;
                    }
                }
                Action::Search { position, go } => self.think(position, &go),
                // Under these rules nothing is searched before `ponderhit`.
                Action::PonderHit => {}
                Action::Stop => {
                    // Its answer (or none) goes before the actions that followed `stop`.
                    for next in self.stop_now().await.into_iter().rev() {
                        queue.push_front(next);
                    }
                }
                Action::Abandon => self.abandon().await,
                Action::Answer { position, answer } => match answer {
                    Reply::Thought(result) => self.answer(&position, result),
                    Reply::Abandoned => {
                        self.say(&format!(
                            "stop: a member of {} cannot be interrupted; it was abandoned (restarted at the next go) and a quick search of the built-in engine answers",
                            self.name
                        ));
                        self.send(&EngineMessage::BestMove(quick_move(&position)));
                    }
                },
                Action::AnswerUnsearched { position } => {
                    self.send(&EngineMessage::BestMove(quick_move(&position)));
                }
                Action::Quit => return false,
            }
        }
        true
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

    /// Pre-flight of every USI engine of the player (as `council-match` does), until it
    /// passes. Failures are `info string` lines.
    async fn preflight(&mut self) {
        if self.preflight_passed {
            return;
        }
        let sub = players::sub_config(&self.config, &self.name);
        let checks = sub
            .players
            .values()
            .filter(|p| matches!(p.kind, PlayerKind::Usi(_)))
            .map(|p| {
                let mut one = sub.clone();
                one.players.retain(|n, _| *n == p.name);
                let logs = self.logs.as_ref();
                async move { council_players::factory::preflight_logged(&one, logs).await }
            });
        let failures: Vec<_> = futures::future::join_all(checks)
            .await
            .into_iter()
            .filter_map(Result::err)
            .collect();
        for f in &failures {
            self.say(&format!("member failed: {f}"));
        }
        self.preflight_passed = failures.is_empty();
    }

    async fn new_game(&mut self) {
        let seed = self.seed;
        self.games += 1;
        let games = self.games;
        let player = self.player_mut();
        let r = in_game(games, player.new_game(seed)).await;
        if let Err(e) = r {
            self.say(&format!("cannot start {}: {e}", self.name));
        }
    }

    fn player_mut(&mut self) -> &mut Box<dyn Player> {
        let (config, name, stop, logs) = (&self.config, &self.name, &self.stop, &self.logs);
        self.player
            .get_or_insert_with(|| build_player_logged(config, name, Some(stop), logs.as_ref()))
    }

    /// Starts thinking on `position` in a task that owns the player.
    fn think(&mut self, position: Position, go: &Go) {
        let pc = self.config.player(&self.name);
        let plan = budget::plan(&pc.limits, pc.move_timeout_ms, go, position.side_to_move());
        let req = MoveRequest {
            position,
            budget: plan.budget,
            deadline: tokio::time::Instant::now() + plan.deadline,
            multipv: 1,
        };
        log_budget(&self.name, &plan.budget);
        self.stop.reset();
        let mut player = match self.player.take() {
            Some(p) => p,
            None => build_player_logged(
                &self.config,
                &self.name,
                Some(&self.stop),
                self.logs.as_ref(),
            ),
        };
        let games = self.games;
        self.thinking = Some(tokio::spawn(in_game(games, async move {
            let r = player.think(&req).await;
            (player, r)
        })));
    }

    /// The think task ended: the player comes back, or is lost with the task.
    fn reply(&mut self, joined: Result<ThinkResult, tokio::task::JoinError>) -> Reply {
        Reply::Thought(match joined {
            Ok((player, r)) => {
                self.player = Some(player);
                r
            }
            Err(e) => {
                // The player went with the task: a fresh one starts at the next game.
                self.session.game_lost();
                Err(PlayerError::Crash {
                    player: self.name.clone(),
                    detail: format!("the thinking task failed: {e}"),
                })
            }
        })
    }

    /// `stop`: in-process searches end at once; a think still running after [`STOP_GRACE`]
    /// (a USI member cannot be interrupted) is abandoned and a quick search answers. Returns
    /// the session's actions for the think's end.
    async fn stop_now(&mut self) -> Vec<Action<Reply>> {
        self.stop.stop();
        let Some(mut handle) = self.thinking.take() else {
            return Vec::new();
        };
        let reply = match tokio::time::timeout(STOP_GRACE, &mut handle).await {
            Ok(joined) => self.reply(joined),
            Err(_) => {
                handle.abort();
                // The player went with the task (its engine processes are killed): a fresh
                // one starts at the next `go`.
                self.session.game_lost();
                Reply::Abandoned
            }
        };
        self.session.finished(reply)
    }

    /// Ends the running think without answering it (`usinewgame`, `gameover`).
    async fn abandon(&mut self) {
        if let Some(handle) = self.thinking.take() {
            self.stop.stop();
            match handle.await {
                Ok((player, _)) => self.player = Some(player),
                Err(_) => self.session.game_lost(),
            }
        }
    }

    async fn quit(&mut self) {
        if let Some(mut handle) = self.thinking.take() {
            self.stop.stop();
            match tokio::time::timeout(QUIT_WAIT, &mut handle).await {
                Ok(Ok((player, _))) => self.player = Some(player),
                // Abandoned: its engine processes are killed when it is dropped.
                _ => handle.abort(),
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
    Replay::new(position.clone(), pv)
        .play_while_legal()
        .iter()
        .map(|mv| mv.to_usi())
        .collect()
}

/// One council decision as `info string` texts: one per member, then the rule.
pub(crate) fn vote_lines(v: &CouncilVote) -> Vec<String> {
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
    let rule = v.rule.name();
    let overrode = if v.overrode_strongest {
        format!(", overriding the strongest member {}", v.strongest)
    } else {
        String::new()
    };
    lines.push(format!(
        "council {} chose {} by rule {rule} ({}){overrode}",
        v.council,
        v.chosen,
        v.method.name()
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
