//! `council-usi`: any player of a council-match config, most usefully a whole council, as one
//! USI engine, so a shogi GUI (ShogiHome, ShogiGUI, Shogidokoro...) can load it like any engine:
//! play against it, ponder, analyse with it, enter it in the GUI's tournaments.
//!
//! Why: `council-match` plays councils only against engines it runs itself; users want to play
//! against a council, analyse with it or enter it in a GUI's tournament. The GUI is then the
//! arbiter and keeps the clock; this server turns its `go` into the player's [`Budget`]
//! ([`budget`], less the `MarginMs` option by the one margin rule), thinks on the tokio runtime
//! while it keeps reading stdin (so `stop`, `ponderhit`, `isready` and `quit` are answered), and
//! shows what the player thinks ([`show`]).
//!
//! The USI session rules (one `bestmove` per `go`, the answer of `go infinite` held for `stop`,
//! `bestmove resign` after a rejected `position`, commands ignored while a search runs, ...)
//! are `council-engine`'s too: both loops drive the one pure [`Session`] state machine, here
//! with [`Rules::COUNCIL_USI`]. This loop owns the rest. The player tree is built with a
//! [`Live`] hook ([`council_players::player::live`]), which is how the GUI reaches inside it:
//! - **Lines while thinking**: every leaf publishes its `info` lines and every council its tally
//!   on the hook's progress board; every [`SHOW_EVERY`] the server shows the council's current
//!   ranking as `info` rows (`MultiPV` of them) and each member's latest line as an
//!   `info string`, when they changed. Not while pondering before `ponderhit`.
//! - **`stop`** raises the hook's stop flag: in-process searches end with their best move, USI
//!   members are sent `stop`, and the council votes with what they answer within the late-member
//!   grace. Only when no member answered does a short search of the built-in engine answer; a
//!   think that has not ended [`STOP_WAIT`] after `stop` (a council has its own bounded waits,
//!   so only a stuck player) is abandoned (its engine processes killed, restarted at the next
//!   `go`) and the built-in engine answers too.
//! - **Pondering**: the `bestmove` names the reply the player expects ([`Player::expected_reply`],
//!   the rule council-match ponders by). `go ponder` on the position after that reply makes
//!   the player ponder on it ([`Player::ponder`]: USI members with their own `go ponder`,
//!   in-process ones searching it with their clock stopped); `ponderhit` starts its think on the
//!   `go`'s clock from that moment (members find their pondering matches and go on with it);
//!   `stop` thinks with the stop flag already raised, so the pondered search answers at once.
//!
//! Invariants of its own: a `bestmove` is never a move that is illegal in the current position
//! (checked with `engine::position`; otherwise the first legal move, with an `info string` that
//! says why), and `resign` only when the player resigned or there is no legal move; nothing a
//! GUI or a member engine does makes this process exit other than `quit` or the end of input.

pub mod budget;
pub mod players;
pub(crate) mod show;

use std::collections::VecDeque;
use std::io::Write;
use std::time::Duration;

use engine::position::Position;
use engine::search::{BestMove, Engine, EngineSettings, Limits, Silent, StopFlag};
use engine::usi::protocol::{
    EngineMessage, Go, IdField, Info, OptionKind, OptionSpec, UsiBestMove,
};
use engine::usi::session::{Action, Rules, Session};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use council_players::factory::{EngineLogs, build_player_logged};
use council_players::player::engine_log::in_game;
use council_players::player::live::Live;
use council_players::player::time::STOP_GRACE as MEMBER_STOP_GRACE;
use council_players::player::{Budget, Decision, MoveRequest, Player, PlayerError, Thought};
use council_schema::config::{Config, PlayerKind};

/// The seed of every game unless the GUI sets the `Seed` option: the same positions and seed
/// at a node or depth limit give the same moves.
pub(crate) const DEFAULT_SEED: u64 = 1;

/// The `MarginMs` option's default: what is kept back from the GUI's allowance for this
/// process's own work and the GUI's (reading `go`, writing `bestmove`, the pipes between).
/// Raise it on a loaded machine or a GUI that counts the time on a slow link.
pub const DEFAULT_MARGIN_MS: u64 = 50;

/// The most `MultiPV` rows the council ranks.
pub const MAX_MULTIPV: usize = 64;

/// How often the lines of a think in progress are shown (when they changed): at most a few
/// times a second, the rate GUIs redraw at (ShogiHome: every 500 ms).
pub const SHOW_EVERY: Duration = Duration::from_millis(300);

/// How long `quit` waits for a running search before it abandons it (its engine processes are
/// killed with it).
const QUIT_WAIT: Duration = Duration::from_millis(300);

/// How long `stop` waits for the player's answer before it abandons the think: past the grace a
/// member has to answer `stop` at all, after which a council has voted or failed.
pub(crate) const STOP_WAIT: Duration = MEMBER_STOP_GRACE.saturating_add(Duration::from_millis(500));

/// Depth of the built-in engine's search that answers when no member answered.
const QUICK_DEPTH: u32 = 4;

type ThinkResult = (Box<dyn Player>, Result<Thought, PlayerError>);

/// How a think ended, for the session to answer or hold.
enum Reply {
    Thought(Result<Thought, PlayerError>),
    /// `stop` gave up on a think that did not end within [`STOP_WAIT`].
    Abandoned,
}

/// What woke the loop.
enum Event {
    Line(Option<String>),
    Joined(Result<ThinkResult, tokio::task::JoinError>),
    Show,
}

/// The server: the player and its think task; the session rules live in [`Session`].
struct Server {
    config: Config,
    name: String,
    out: Box<dyn Write + Send>,
    session: Session<Reply>,
    /// Shared with every player of the tree (built with it).
    live: Live,
    /// `None` while a think task owns it, or before it is (re)built.
    player: Option<Box<dyn Player>>,
    /// The running think.
    thinking: Option<JoinHandle<ThinkResult>>,
    /// The position it thinks on, and since when it thinks on the GUI's clock (`go`, or
    /// `ponderhit` after `go ponder`).
    searching: Option<(Position, std::time::Instant)>,
    /// A `go ponder` waiting for its `ponderhit`: the think task hears it here.
    ponder_hit: Option<oneshot::Sender<()>>,
    /// The lines shown last for this think (nothing new is shown twice).
    shown: Vec<String>,
    seed: u64,
    multipv: usize,
    margin: Duration,
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
    let mut front = Server {
        config,
        name,
        out,
        session: Session::new(Rules::COUNCIL_USI),
        live: Live::default(),
        player: None,
        thinking: None,
        searching: None,
        ponder_hit: None,
        shown: Vec::new(),
        seed: DEFAULT_SEED,
        multipv: 1,
        margin: Duration::from_millis(DEFAULT_MARGIN_MS),
        preflight_passed: false,
        logs,
        games: 0,
    };
    let mut show = tokio::time::interval(SHOW_EVERY);
    show.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        let event = match front.thinking.as_mut() {
            Some(handle) => {
                tokio::select! {
                    joined = handle => Event::Joined(joined),
                    line = input.recv() => Event::Line(line),
                    _ = show.tick() => Event::Show,
                }
            }
            None => Event::Line(input.recv().await),
        };
        let actions = match event {
            Event::Show => {
                front.show_progress();
                continue;
            }
            Event::Joined(joined) => {
                front.thinking = None;
                let reply = front.reply(joined);
                front.session.finished(reply)
            }
            Event::Line(Some(line)) => {
                tracing::trace!(target: "usi", "<< {line}");
                front.session.line(&line)
            }
            Event::Line(None) => front.session.end_of_input(),
        };
        if !front.perform(actions).await {
            break;
        }
    }
    front.quit().await;
}

/// A `council-usi` that cannot start (its config does not load, say), answering a GUI: reads
/// `input` until `usi`, answers it with `id name` and an `info string` carrying `problem`, and
/// returns, so the GUI's log or dialog shows the cause rather than an engine that said nothing.
/// `usiok` is not sent: there is no engine to load. Returns at `quit` or the end of input too.
pub fn refuse(problem: &str, input: impl std::io::BufRead, out: &mut dyn Write) {
    for line in input.lines() {
        let Ok(line) = line else { return };
        match line.trim() {
            "usi" => {
                let lines = [
                    EngineMessage::Id(IdField::Name("council-usi (not started)".into())),
                    EngineMessage::Id(IdField::Author("the council project".into())),
                    EngineMessage::Info(Info {
                        string: Some(problem.to_string()),
                        ..Info::default()
                    }),
                ];
                for msg in lines {
                    let _ = writeln!(out, "{msg}");
                }
                let _ = out.flush();
                return;
            }
            "quit" => return,
            _ => {}
        }
    }
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
                Action::SetOption { name, value } => {
                    self.set_option(&name, value.as_deref()).await;
                }
                Action::Prepare => self.preflight().await,
                Action::NewGame => self.new_game().await,
                Action::GameOver(outcome) => {
                    if let Some(p) = self.player.as_mut() {
                        p.game_over(outcome).await;
                    }
                }
                Action::Search { position, go } => self.think(position, &go),
                Action::PonderHit => {
                    if let Some((_, since)) = self.searching.as_mut() {
                        *since = std::time::Instant::now();
                    }
                    if let Some(hit) = self.ponder_hit.take() {
                        // A think that already ended (it was stopped) does not hear it.
                        let _ = hit.send(());
                    }
                }
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
                            "stop: {} did not answer within {} ms; it was abandoned (restarted at the next go) and a quick search of the built-in engine answers",
                            self.name,
                            STOP_WAIT.as_millis()
                        ));
                        self.send(&EngineMessage::BestMove(quick_move(&position)));
                    }
                },
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
            spin("MultiPV", 1, 1, MAX_MULTIPV as i64),
            spin("MarginMs", DEFAULT_MARGIN_MS as i64, 0, 60_000),
            spin("Seed", DEFAULT_SEED as i64, 0, i64::MAX),
        ] {
            self.send(&EngineMessage::Option(spec));
        }
        self.send(&EngineMessage::UsiOk);
    }

    async fn set_option(&mut self, name: &str, value: Option<&str>) {
        let text = value.map(str::trim).unwrap_or("");
        let number = text.parse::<u64>().ok();
        match name.to_ascii_lowercase().as_str() {
            // Accepted for GUIs that always send it; members keep their configured hash.
            "usi_hash" => {}
            "usi_ponder" => match text {
                "true" | "false" => {
                    let on = text == "true";
                    if on != self.live.usi_ponder {
                        self.live.usi_ponder = on;
                        // USI members are told at their start: a new tree, built at next use.
                        self.rebuild().await;
                    }
                }
                _ => self.say(&format!(
                    "option USI_Ponder: value `{text}` is not true or false"
                )),
            },
            "multipv" => match number {
                Some(n) if (1..=MAX_MULTIPV as u64).contains(&n) => self.multipv = n as usize,
                _ => self.say(&format!(
                    "option MultiPV: value `{text}` is not an integer from 1 to {MAX_MULTIPV}"
                )),
            },
            "marginms" => match number {
                Some(ms) if ms <= 60_000 => self.margin = Duration::from_millis(ms),
                _ => self.say(&format!(
                    "option MarginMs: value `{text}` is not an integer from 0 to 60000"
                )),
            },
            "seed" => match number {
                Some(s) => self.seed = s,
                None => self.say(&format!(
                    "option Seed: value `{text}` is not a non-negative integer"
                )),
            },
            _ => self.say(&format!("unknown option `{name}`")),
        }
    }

    /// The player tree is built anew at its next use (its processes are shut down now; one that
    /// thinks goes when its think ends).
    async fn rebuild(&mut self) {
        if let Some(mut p) = self.player.take() {
            p.shutdown().await;
        }
        self.session.game_lost();
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

    fn build(&self) -> Box<dyn Player> {
        build_player_logged(
            &self.config,
            &self.name,
            Some(&self.live),
            self.logs.as_ref(),
        )
    }

    fn player_mut(&mut self) -> &mut Box<dyn Player> {
        let (config, name, live, logs) = (&self.config, &self.name, &self.live, &self.logs);
        self.player
            .get_or_insert_with(|| build_player_logged(config, name, Some(live), logs.as_ref()))
    }

    /// Starts thinking on `position` in a task that owns the player; after `go ponder` the task
    /// ponders until `ponderhit` or `stop` first.
    fn think(&mut self, position: Position, go: &Go) {
        let pc = self.config.player(&self.name);
        let plan = budget::plan(
            &pc.limits,
            pc.move_timeout_ms,
            go,
            position.side_to_move(),
            self.margin,
        );
        log_budget(&self.name, &plan.budget);
        self.live.stop.reset();
        self.live.progress.clear();
        self.shown.clear();
        self.searching = Some((position.clone(), std::time::Instant::now()));
        let mut player = match self.player.take() {
            Some(p) => p,
            None => self.build(),
        };
        let multipv = self.multipv;
        let games = self.games;
        let request = move |position: Position| MoveRequest {
            position: position.into(),
            budget: plan.budget,
            deadline: tokio::time::Instant::now() + plan.deadline,
            multipv,
        };
        if !go.ponder {
            let req = request(position);
            self.thinking = Some(tokio::spawn(in_game(games, async move {
                let r = player.think(&req).await;
                (player, r)
            })));
            return;
        }
        let (hit, heard) = oneshot::channel();
        self.ponder_hit = Some(hit);
        let stop = self.live.stop.clone();
        self.thinking = Some(tokio::spawn(in_game(games, async move {
            // The GUI's position ends with the reply it expects: ponder on it from the position
            // before it, as after our own move.
            let mut before = position.clone();
            if let Some(reply) = before.undo() {
                player.ponder(&request(before), Some(&reply.to_usi())).await;
            }
            // Its engines are read while it ponders.
            tokio::select! {
                _ = heard => {}
                () = stopped(&stop) => {}
                never = player.idle() => match never {},
            }
            // Its clock from now on; after `stop` the stop flag is up, so it answers at once.
            let r = player.think(&request(position)).await;
            (player, r)
        })));
    }

    /// The think task ended: the player comes back, or is lost with the task.
    fn reply(&mut self, joined: Result<ThinkResult, tokio::task::JoinError>) -> Reply {
        self.ponder_hit = None;
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

    /// Shows the lines of the think in progress when they changed: the player's rows, then each
    /// member's line. Nothing while pondering before `ponderhit`.
    fn show_progress(&mut self) {
        if self.ponder_hit.is_some() {
            return;
        }
        let Some((position, _)) = self.searching.clone() else {
            return;
        };
        let several = self.multipv > 1;
        let progress = self.live.progress.clone();
        let mut lines: Vec<String> = progress
            .lines(&self.name, self.multipv)
            .iter()
            .filter_map(|l| show::row(&position, l, several))
            .map(|info| EngineMessage::Info(info).to_string())
            .collect();
        for (member, line) in progress.tree(&self.name).into_iter().skip(1) {
            if let Some(line) = line {
                let text = show::member_text(&position, &member, &line);
                lines.push(
                    EngineMessage::Info(Info {
                        string: Some(text),
                        ..Info::default()
                    })
                    .to_string(),
                );
            }
        }
        if lines.is_empty() || lines == self.shown {
            return;
        }
        for line in &lines {
            let _ = writeln!(self.out, "{line}");
        }
        let _ = self.out.flush();
        self.shown = lines;
    }

    /// `stop`: the stop flag goes up (in-process searches end, USI members are sent `stop`)
    /// and the think's answer is awaited; one still running after [`STOP_WAIT`] is abandoned
    /// and a quick search answers. Returns the session's actions for the think's end.
    async fn stop_now(&mut self) -> Vec<Action<Reply>> {
        self.live.stop.stop();
        self.ponder_hit = None;
        let Some(mut handle) = self.thinking.take() else {
            return Vec::new();
        };
        let reply = match tokio::time::timeout(STOP_WAIT, &mut handle).await {
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
        self.ponder_hit = None;
        if let Some(handle) = self.thinking.take() {
            self.live.stop.stop();
            match handle.await {
                Ok((player, _)) => self.player = Some(player),
                Err(_) => self.session.game_lost(),
            }
        }
    }

    async fn quit(&mut self) {
        self.ponder_hit = None;
        if let Some(mut handle) = self.thinking.take() {
            self.live.stop.stop();
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
                    "{} gave no move: {e}; a quick search of the built-in engine answers",
                    self.name
                ));
                self.send(&EngineMessage::BestMove(quick_move(position)));
                return;
            }
        };
        for vote in &thought.votes {
            for line in show::vote_lines(vote) {
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
                Ok(mv) => {
                    let mut after = position.clone();
                    after.play(mv);
                    let ponder = self.player.as_ref().and_then(|p| p.expected_reply(&after));
                    UsiBestMove::Move {
                        mv: mv.to_usi(),
                        ponder,
                    }
                }
                Err(e) => {
                    self.say(&format!(
                        "{} chose `{text}`, which is not legal here ({e}); playing the first legal move",
                        self.name
                    ));
                    first_legal(position)
                }
            },
        };
        if let UsiBestMove::Move { mv, .. } = &best
            && (thought.eval.is_some() || !thought.pv.is_empty() || self.multipv > 1)
        {
            let board = self.live.progress.lines(&self.name, self.multipv);
            for row in show::final_rows(position, mv, &thought, self.multipv, &board) {
                self.send(&EngineMessage::Info(row));
            }
        }
        self.send(&EngineMessage::BestMove(best));
        if let Some((_, since)) = self.searching.take() {
            tracing::debug!(player = %self.name, "answered {} ms after go or ponderhit", since.elapsed().as_millis());
        }
    }
}

/// Resolves once `flag` is raised.
async fn stopped(flag: &StopFlag) {
    while !flag.is_stopped() {
        tokio::time::sleep(Duration::from_millis(5)).await;
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

/// The built-in engine's move after a short search (depth [`QUICK_DEPTH`]): the answer when no
/// member answered. Always legal, `resign` only without a legal move.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_legal_move_is_a_move_and_a_mated_side_resigns() {
        assert!(matches!(
            first_legal(&Position::startpos()),
            UsiBestMove::Move { .. }
        ));
        let mated = Position::from_usi_position("sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1")
            .expect("the test's position");
        assert_eq!(first_legal(&mated), UsiBestMove::Resign);
        assert_eq!(quick_move(&mated), UsiBestMove::Resign);
    }
}
