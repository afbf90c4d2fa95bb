//! The USI session rules, once: a pure state machine that both GUI-facing loops drive
//! (`council-engine`'s threaded [`super::frontend`] and the orchestrator's `council-usi` on
//! tokio). It does no I/O and starts nothing: it takes the GUI's lines ([`Session::line`]) and
//! the end of each search ([`Session::finished`]), and returns the [`Action`]s its loop carries
//! out, in order.
//!
//! The rules both loops share:
//! - An empty line is ignored; a line that does not parse earns an `info string` naming the
//!   problem and is otherwise ignored.
//! - `position` builds the position now; a rejected one clears it (`info string position
//!   rejected, no position set: ...`), and a `go` without a position answers `info string go
//!   without a valid position ...` and `bestmove resign` instead of moving from a wrong position.
//! - While a search runs (or its answer waits, or a `go ponder` waits), `position` and `go` are
//!   ignored with an `info string` that says so.
//! - Every `go` is answered by exactly one `bestmove` (`go mate` by `checkmate notimplemented`).
//! - `go searchmoves`: where the loop restricts its search ([`Rules`]), a listed move that is not
//!   legal in the position is left out with an `info string`, and when none is legal all moves
//!   are searched (said likewise); elsewhere it is refused with an `info string` and all moves
//!   are searched.
//! - `go ponder` searches at once (the loop keeps its clock from `ponderhit` on). After
//!   `go infinite` the answer waits for `stop`; after `go ponder` it waits for `ponderhit` or
//!   `stop`, even when the search ends sooner. `stop` answers at once with a waiting answer, or
//!   ends the running search, whose answer then goes out.
//! - `usi` is answered by the loop's identity; `isready` always by `readyok`, after the loop's
//!   own preparation ([`Action::Prepare`]) when no search runs.
//! - `usinewgame`, `gameover`, `quit` and the end of input end a running search first.
//!
//! Where the two loops differ, [`Rules`] says how, one field per difference, so each
//! difference is visible in one place.

use super::protocol::{
    CheckmateAnswer, EngineMessage, GameOutcome, Go, GuiCommand, Info, PositionStart, UsiBestMove,
    parse_gui_command,
};
use crate::position::{Position, Replay};

/// How one loop applies the shared rules where the two loops differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// A search that `usinewgame`, `gameover` or `quit` ends is still answered with its
    /// `bestmove` (true), or its answer is dropped (false).
    pub(crate) answer_interrupted: bool,
    /// `setoption` during a search is applied (true) or refused with an `info string` (false).
    pub(crate) options_while_searching: bool,
    /// A `position` line that does not even parse clears the position like a rejected one
    /// (true), or only earns the parser's complaint (false).
    pub(crate) malformed_position_clears: bool,
    /// `isready` and `go` start a game when none is started (true): a player that must be told
    /// of a new game gets one even from a GUI that never sends `usinewgame`.
    pub(crate) implicit_new_game: bool,
    /// `go searchmoves` restricts the search to the listed legal moves (true), or is refused
    /// with an `info string` (false).
    pub(crate) searchmoves: bool,
}

impl Rules {
    /// `council-engine`: one search thread.
    pub(crate) const COUNCIL_ENGINE: Self = Self {
        answer_interrupted: true,
        options_while_searching: false,
        malformed_position_clears: false,
        implicit_new_game: false,
        searchmoves: true,
    };

    /// `council-usi`: a player tree.
    pub const COUNCIL_USI: Self = Self {
        answer_interrupted: false,
        options_while_searching: true,
        malformed_position_clears: true,
        implicit_new_game: true,
        searchmoves: false,
    };
}

/// What the loop does next; `A` is the loop's own answer of a finished search.
pub enum Action<A> {
    /// Send this line now.
    Send(EngineMessage),
    /// Answer `usi`: the loop's `id` lines, its `option` lines, then `usiok`.
    Identify,
    /// Apply `setoption` to the loop's own options (it complains about bad ones itself).
    SetOption { name: String, value: Option<String> },
    /// The loop's own readiness work before `readyok` (only while no search runs).
    Prepare,
    /// Start a new game (the search's memory of the last one may go).
    NewGame,
    /// The game ended with this outcome.
    GameOver(GameOutcome),
    /// Start searching `position` under `go`; `go.ponder` means pondering. Its end comes back
    /// through [`Session::finished`].
    Search { position: Position, go: Go },
    /// The ponder move was played: the running search now thinks on its clock.
    PonderHit,
    /// End the running search soon; its answer comes back through [`Session::finished`].
    Stop,
    /// End the running search; its answer is not wanted (do not report it).
    Abandon,
    /// Send the `bestmove` (and the loop's lines about it) for this search of `position`.
    Answer { position: Position, answer: A },
    /// End the loop; a search still running ends with it, unanswered.
    Quit,
}

/// The search side of the session.
enum Search<A> {
    Idle,
    Running {
        position: Position,
        infinite: bool,
        /// Pondering: no `ponderhit` yet.
        pondering: bool,
        /// `stop` (or an interruption that wants the answer) was sent.
        stopped: bool,
    },
    /// The search ended; its answer waits for `stop` or `ponderhit`.
    Held {
        position: Position,
        infinite: bool,
        answer: A,
    },
}

/// One GUI session's state: the position, the search, the game.
pub struct Session<A> {
    rules: Rules,
    /// `None` after a rejected `position`.
    position: Option<Position>,
    search: Search<A>,
    game_started: bool,
}

impl<A> Session<A> {
    /// A session at the start position, no game started.
    pub fn new(rules: Rules) -> Self {
        Self {
            rules,
            position: Some(Position::startpos()),
            search: Search::Idle,
            game_started: false,
        }
    }

    /// True while a search runs or its answer waits.
    fn busy(&self) -> bool {
        !matches!(self.search, Search::Idle)
    }

    /// The player was lost with its search: the next `isready` or `go` starts a new game
    /// (with [`Rules::implicit_new_game`]).
    pub fn game_lost(&mut self) {
        self.game_started = false;
    }

    /// One line from the GUI (without its line end).
    pub fn line(&mut self, line: &str) -> Vec<Action<A>> {
        if line.trim().is_empty() {
            return Vec::new();
        }
        match parse_gui_command(line) {
            Ok(command) => self.command(command),
            Err(e) => {
                let is_position = line.split_whitespace().next() == Some("position");
                if !(self.rules.malformed_position_clears && is_position) {
                    vec![say(e.to_string())]
                } else if self.busy() {
                    vec![say(format!("{e}; ignored: a search is running"))]
                } else {
                    self.position = None;
                    vec![say(format!("position rejected, no position set: {e}"))]
                }
            }
        }
    }

    /// The end of input: as `quit`.
    pub fn end_of_input(&mut self) -> Vec<Action<A>> {
        self.command(GuiCommand::Quit)
    }

    /// One parsed GUI command.
    pub(crate) fn command(&mut self, command: GuiCommand) -> Vec<Action<A>> {
        match command {
            GuiCommand::Usi => vec![Action::Identify],
            GuiCommand::IsReady => self.is_ready(),
            GuiCommand::SetOption { name, value } => {
                if self.busy() && !self.rules.options_while_searching {
                    vec![say(format!("option {name} ignored: a search is running"))]
                } else {
                    vec![Action::SetOption { name, value }]
                }
            }
            GuiCommand::UsiNewGame => {
                let mut actions = self.interrupt();
                actions.push(Action::NewGame);
                self.game_started = true;
                actions
            }
            GuiCommand::Position { start, moves } => self.set_position(&start, &moves),
            GuiCommand::Go(go) => self.go(go),
            GuiCommand::Stop => self.stop(),
            GuiCommand::PonderHit => self.ponder_hit(),
            GuiCommand::GameOver(outcome) => {
                let mut actions = self.interrupt();
                actions.push(Action::GameOver(outcome));
                self.game_started = false;
                actions
            }
            GuiCommand::Quit => {
                let mut actions = if self.rules.answer_interrupted {
                    self.stop()
                } else {
                    self.search = Search::Idle;
                    Vec::new()
                };
                actions.push(Action::Quit);
                actions
            }
        }
    }

    /// The search that [`Action::Search`] started ended with `answer`: answer now, hold it
    /// for `stop`/`ponderhit`, or drop it when nobody waits for it any more.
    pub fn finished(&mut self, answer: A) -> Vec<Action<A>> {
        match std::mem::replace(&mut self.search, Search::Idle) {
            Search::Running {
                position,
                infinite,
                pondering,
                stopped,
            } => {
                if !stopped && (infinite || pondering) {
                    self.search = Search::Held {
                        position,
                        infinite,
                        answer,
                    };
                    Vec::new()
                } else {
                    vec![Action::Answer { position, answer }]
                }
            }
            other => {
                self.search = other;
                Vec::new()
            }
        }
    }

    fn is_ready(&mut self) -> Vec<Action<A>> {
        let mut actions = Vec::new();
        if !self.busy() {
            actions.push(Action::Prepare);
            actions.extend(self.start_game_if_needed());
        }
        actions.push(Action::Send(EngineMessage::ReadyOk));
        actions
    }

    fn start_game_if_needed(&mut self) -> Option<Action<A>> {
        (self.rules.implicit_new_game && !self.game_started).then(|| {
            self.game_started = true;
            Action::NewGame
        })
    }

    fn set_position(&mut self, start: &PositionStart, moves: &[String]) -> Vec<Action<A>> {
        if self.busy() {
            return vec![say(
                "position ignored: a search is running (send stop first)".into(),
            )];
        }
        match build_position(start, moves) {
            Ok(position) => {
                self.position = Some(position);
                Vec::new()
            }
            Err(e) => {
                self.position = None;
                vec![say(format!("position rejected, no position set: {e}"))]
            }
        }
    }

    fn go(&mut self, go: Go) -> Vec<Action<A>> {
        if self.busy() {
            return vec![say("go ignored: a search is already running".into())];
        }
        if go.mate.is_some() {
            return vec![Action::Send(EngineMessage::Checkmate(
                CheckmateAnswer::NotImplemented,
            ))];
        }
        let Some(position) = self.position.clone() else {
            return vec![
                say("go without a valid position (the last position command was rejected)".into()),
                Action::Send(EngineMessage::BestMove(UsiBestMove::Resign)),
            ];
        };
        let mut actions = Vec::new();
        let mut go = go;
        if !go.searchmoves.is_empty() {
            if self.rules.searchmoves {
                let (legal, illegal): (Vec<String>, Vec<String>) = go
                    .searchmoves
                    .drain(..)
                    .partition(|m| position.parse_usi_move(m).is_ok());
                for m in &illegal {
                    actions.push(say(format!(
                        "searchmoves: `{m}` is not a legal move here; left out"
                    )));
                }
                if legal.is_empty() {
                    actions.push(say(
                        "searchmoves: no legal move listed; searching all moves".into(),
                    ));
                }
                go.searchmoves = legal;
            } else {
                actions.push(say(
                    "searchmoves is not supported; searching all moves".into()
                ));
            }
        }
        actions.extend(self.start_game_if_needed());
        actions.push(self.start(position, go));
        actions
    }

    fn start(&mut self, position: Position, go: Go) -> Action<A> {
        self.search = Search::Running {
            position: position.clone(),
            infinite: go.infinite,
            pondering: go.ponder,
            stopped: false,
        };
        Action::Search { position, go }
    }

    fn stop(&mut self) -> Vec<Action<A>> {
        match std::mem::replace(&mut self.search, Search::Idle) {
            Search::Idle => Vec::new(),
            Search::Running {
                position,
                infinite,
                pondering,
                ..
            } => {
                self.search = Search::Running {
                    position,
                    infinite,
                    pondering,
                    stopped: true,
                };
                vec![Action::Stop]
            }
            Search::Held {
                position, answer, ..
            } => vec![Action::Answer { position, answer }],
        }
    }

    fn ponder_hit(&mut self) -> Vec<Action<A>> {
        match std::mem::replace(&mut self.search, Search::Idle) {
            Search::Running {
                position,
                infinite,
                pondering: true,
                stopped,
            } => {
                self.search = Search::Running {
                    position,
                    infinite,
                    pondering: false,
                    stopped,
                };
                vec![Action::PonderHit]
            }
            Search::Held {
                position,
                infinite: false,
                answer,
            } => vec![Action::Answer { position, answer }],
            other => {
                self.search = other;
                Vec::new()
            }
        }
    }

    /// Ends whatever search there is for `usinewgame` or `gameover`.
    fn interrupt(&mut self) -> Vec<Action<A>> {
        if self.rules.answer_interrupted {
            return self.stop();
        }
        match std::mem::replace(&mut self.search, Search::Idle) {
            Search::Running { .. } => vec![Action::Abandon],
            Search::Idle | Search::Held { .. } => Vec::new(),
        }
    }
}

fn say<A>(text: String) -> Action<A> {
    Action::Send(EngineMessage::Info(Info {
        string: Some(text),
        ..Info::default()
    }))
}

/// Builds the position of a `position` command, or says what is wrong with it.
pub fn build_position(start: &PositionStart, moves: &[String]) -> Result<Position, String> {
    let pos = match start {
        PositionStart::Startpos => Position::startpos(),
        PositionStart::Sfen(sfen) => {
            Position::from_sfen(sfen).map_err(|e| format!("bad SFEN `{sfen}`: {e}"))?
        }
    };
    Replay::new(pos, moves)
        .finish()
        .map_err(|e| format!("move {} `{}` rejected: {}", e.number(), e.text, e.error))
}

#[cfg(test)]
mod tests;
