//! What a player tree built for a GUI (`council-usi`) shares with the server that drives it:
//! the GUI's `stop`, a board of the lines being searched, and leave to ponder.
//!
//! Why: a GUI analyses (`go infinite` until `stop`), shows the engine's lines while it thinks,
//! stops it at any moment and ponders on its own clock, while a [`super::Player`] answers one
//! move at a time. Rather than widen the trait for every player, a tree is built with a [`Live`]
//! hook ([`crate::factory::build_player_tree`]):
//! - [`Live::stop`] is the GUI's `stop`: in-process searches end with their best move so far,
//!   USI engines are sent `stop` and their `bestmove` is their answer, so a council votes with
//!   what its members answer;
//! - every leaf publishes its latest `info` lines on the [`Progress`] board, and every council
//!   registers its [`Tally`] there, so the server can show the council's current choice (and
//!   its ranking of moves) and each member's line at any moment;
//! - every player may ponder (in-process engines too), since the GUI decides when.
//!
//! Players built without it (council-match, council-csa, council-tune) behave exactly as
//! before: nothing here is consulted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use engine::search::StopFlag;
use engine::types::Score;

/// The hook a GUI's player tree is built with.
#[derive(Clone, Debug, Default)]
pub struct Live {
    /// Raised by the GUI's `stop` (and by `quit`, `usinewgame`, `gameover` during a think);
    /// the server resets it before each think.
    pub stop: StopFlag,
    pub progress: Progress,
    /// The GUI enabled pondering (`USI_Ponder`): USI engines are told so when they start.
    pub usi_ponder: bool,
}

/// One line of a search in progress, as an `info` line states it (moves in USI, the score from
/// the mover's side on the searcher's own scale).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// 1-based MultiPV index.
    pub multipv: u32,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Searched so far.
    pub time: Duration,
    pub score: Option<Score>,
    pub pv: Vec<String>,
}

/// A council's view of the board: its current ranking of moves from its members' lines.
pub trait Tally: Send + Sync {
    /// At most `n` rows, best first (`multipv` 1, 2, ...): the council's choice if it voted now,
    /// then the moves it would choose next.
    fn rows(&self, board: &Board, n: usize) -> Vec<Line>;

    /// Its members, in order.
    fn members(&self) -> Vec<String>;
}

/// The latest lines of every player of a tree, by player name.
#[derive(Default)]
pub struct Board {
    lines: HashMap<String, Vec<Line>>,
    tallies: HashMap<String, Arc<dyn Tally>>,
}

impl Board {
    /// `player`'s latest lines, best first, at most `n`: a council's current rows, a leaf's
    /// last reported line of each MultiPV index.
    pub fn lines(&self, player: &str, n: usize) -> Vec<Line> {
        if let Some(tally) = self.tallies.get(player) {
            return tally.rows(self, n);
        }
        self.lines
            .get(player)
            .map(|l| l.iter().take(n).cloned().collect())
            .unwrap_or_default()
    }

    /// The members of council `player` (empty for a leaf or a council not thinking).
    pub fn members(&self, player: &str) -> Vec<String> {
        self.tallies
            .get(player)
            .map(|t| t.members())
            .unwrap_or_default()
    }
}

/// The board, shared by the players of a tree and the server that shows it.
#[derive(Clone, Default)]
pub struct Progress(Arc<Mutex<Board>>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl Progress {
    fn board(&self) -> MutexGuard<'_, Board> {
        // A panic elsewhere leaves the board as it was: still worth showing.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `player` reported `line`: it replaces its line of the same MultiPV index.
    pub fn publish(&self, player: &str, line: Line) {
        let mut board = self.board();
        let lines = board.lines.entry(player.to_string()).or_default();
        match lines.iter_mut().find(|l| l.multipv == line.multipv) {
            Some(l) => *l = line,
            None => {
                lines.push(line);
                lines.sort_by_key(|l| l.multipv);
            }
        }
    }

    /// Council `name` thinks: its rows come from `tally` until the board is cleared.
    pub fn register(&self, name: &str, tally: Arc<dyn Tally>) {
        self.board().tallies.insert(name.to_string(), tally);
    }

    /// A new search: every line and tally goes.
    pub fn clear(&self) {
        let mut board = self.board();
        board.lines.clear();
        board.tallies.clear();
    }

    /// `player`'s current lines, at most `n` ([`Board::lines`]).
    pub fn lines(&self, player: &str, n: usize) -> Vec<Line> {
        self.board().lines(player, n)
    }

    /// `player` and every player below it that has lines or a tally, each with its best line,
    /// in member order (councils before their members).
    pub fn tree(&self, player: &str) -> Vec<(String, Option<Line>)> {
        let board = self.board();
        let mut out = Vec::new();
        let mut todo = vec![player.to_string()];
        while let Some(name) = todo.pop() {
            if out.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let best = board.lines(&name, 1).into_iter().next();
            let members = board.members(&name);
            todo.extend(members.into_iter().rev());
            out.push((name, best));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(multipv: u32, mv: &str, cp: i32) -> Line {
        Line {
            multipv,
            depth: Some(3),
            nodes: Some(100),
            time: Duration::from_millis(10),
            score: Some(Score::Cp(cp)),
            pv: vec![mv.to_string()],
        }
    }

    /// A council of two whose rows are its members' best lines, the first member's first.
    struct Pair;
    impl Tally for Pair {
        fn rows(&self, board: &Board, n: usize) -> Vec<Line> {
            self.members()
                .iter()
                .filter_map(|m| board.lines(m, 1).into_iter().next())
                .take(n)
                .collect()
        }
        fn members(&self) -> Vec<String> {
            vec!["a".into(), "b".into()]
        }
    }

    #[test]
    fn a_line_replaces_the_one_of_its_index_and_councils_read_their_members() {
        let p = Progress::default();
        p.publish("a", line(2, "2g2f", 5));
        p.publish("a", line(1, "7g7f", 10));
        p.publish("a", line(1, "5g5f", 20));
        let a = p.lines("a", 5);
        assert_eq!(
            a.iter().map(|l| l.pv[0].as_str()).collect::<Vec<_>>(),
            ["5g5f", "2g2f"]
        );
        assert_eq!(p.lines("a", 1).len(), 1);
        p.publish("b", line(1, "2g2f", 0));
        p.register("c", Arc::new(Pair));
        assert_eq!(p.lines("c", 5).len(), 2);
        let tree: Vec<String> = p.tree("c").into_iter().map(|(n, _)| n).collect();
        assert_eq!(tree, ["c", "a", "b"]);
        p.clear();
        assert!(p.lines("c", 5).is_empty() && p.lines("a", 5).is_empty());
    }
}
