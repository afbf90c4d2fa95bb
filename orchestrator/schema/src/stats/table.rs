//! Game counts grouped the way every rating statistic needs them: by (sente, gote, handicap type),
//! plus how games ended. A million games collapse into at most players² × (handicap types + 1)
//! cells, so the fits below never touch individual games.
//!
//! Invariants: a cell's [`Wdl`] is from sente's point of view; players and handicap types are
//! numbered in order of first appearance; `reasons` counts every game added exactly once.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::elo::Wdl;
use crate::results::{GameResult, Reason, Winner};

/// Index of the handicap type in a cell key: `EVEN` for games from the normal start position.
pub const EVEN: usize = usize::MAX;

/// Results by board side: how often sente won, gote won, or the game was drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SideResults {
    pub sente_wins: u64,
    pub gote_wins: u64,
    pub draws: u64,
}

impl SideResults {
    pub fn games(&self) -> u64 {
        self.sente_wins + self.gote_wins + self.draws
    }

    fn add(&mut self, outcome: Winner) {
        match outcome {
            Winner::Sente => self.sente_wins += 1,
            Winner::Gote => self.gote_wins += 1,
            Winner::Draw => self.draws += 1,
        }
    }
}

/// The grouped counts of a set of games.
#[derive(Debug, Clone, Default)]
pub struct GameTable {
    players: Vec<String>,
    player_index: HashMap<String, usize>,
    handicaps: Vec<String>,
    handicap_index: HashMap<String, usize>,
    /// (sente, gote, handicap or EVEN) -> results from sente's side.
    cells: BTreeMap<(usize, usize, usize), Wdl>,
    reasons: HashMap<Reason, SideResults>,
    games: u64,
}

impl GameTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one finished game; a game without a result (`aborted`) is left out.
    pub fn add(&mut self, game: &GameResult) {
        if game.reason == Reason::Aborted {
            return;
        }
        self.add_game(
            &game.sente,
            &game.gote,
            game.handicap.as_deref(),
            game.result,
            game.reason,
        );
    }

    /// Adds one finished game given by its parts.
    pub fn add_game(
        &mut self,
        sente: &str,
        gote: &str,
        handicap: Option<&str>,
        result: Winner,
        reason: Reason,
    ) {
        let s = intern(&mut self.players, &mut self.player_index, sente);
        let g = intern(&mut self.players, &mut self.player_index, gote);
        let h = handicap.map_or(EVEN, |name| {
            intern(&mut self.handicaps, &mut self.handicap_index, name)
        });
        let cell = self.cells.entry((s, g, h)).or_default();
        match result {
            Winner::Sente => cell.wins += 1,
            Winner::Gote => cell.losses += 1,
            Winner::Draw => cell.draws += 1,
        }
        self.reasons.entry(reason).or_default().add(result);
        self.games += 1;
    }

    /// The same counts with players and handicap types numbered in the given orders (each a
    /// permutation of [`GameTable::players`] and [`GameTable::handicaps`]): the table the games
    /// would have made added in another order. A name missing from an order keeps its place
    /// after the named ones.
    pub fn reindexed(&self, players: &[&str], handicaps: &[&str]) -> GameTable {
        let mut out = GameTable {
            reasons: self.reasons.clone(),
            games: self.games,
            ..GameTable::default()
        };
        let (mut p_at, mut h_at) = (Vec::new(), Vec::new());
        let named = |n: &&str| self.player_index.contains_key(*n);
        for name in players
            .iter()
            .copied()
            .filter(named)
            .chain(self.players.iter().map(String::as_str))
        {
            intern(&mut out.players, &mut out.player_index, name);
        }
        let typed = |n: &&str| self.handicap_index.contains_key(*n);
        for name in handicaps
            .iter()
            .copied()
            .filter(typed)
            .chain(self.handicaps.iter().map(String::as_str))
        {
            intern(&mut out.handicaps, &mut out.handicap_index, name);
        }
        for p in &self.players {
            p_at.push(out.player_index[p]);
        }
        for h in &self.handicaps {
            h_at.push(out.handicap_index[h]);
        }
        for (&(s, g, h), wdl) in &self.cells {
            let h = if h == EVEN { EVEN } else { h_at[h] };
            out.cells.insert((p_at[s], p_at[g], h), *wdl);
        }
        out
    }

    /// Player names, in order of first appearance; indices into this list name players elsewhere.
    pub fn players(&self) -> &[String] {
        &self.players
    }

    pub fn player_index(&self, name: &str) -> Option<usize> {
        self.player_index.get(name).copied()
    }

    /// Handicap type names, in order of first appearance.
    pub fn handicaps(&self) -> &[String] {
        &self.handicaps
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    /// Every non-empty cell: `((sente, gote, handicap or EVEN), results from sente's side)`.
    pub fn cells(&self) -> impl Iterator<Item = ((usize, usize, usize), Wdl)> + '_ {
        self.cells.iter().map(|(k, v)| (*k, *v))
    }

    /// Each player's results with each colour: `(as sente, as gote)`, from the player's side.
    pub fn colour_results(&self) -> Vec<(Wdl, Wdl)> {
        let mut out = vec![(Wdl::default(), Wdl::default()); self.players.len()];
        for (&(s, g, _), wdl) in &self.cells {
            add_wdl(&mut out[s].0, wdl);
            add_wdl(&mut out[g].1, &wdl.flipped());
        }
        out
    }

    /// Each player's results over all games against others, from the player's side (a game of a
    /// player against itself has no result for that player; see [`GameTable::self_play_games`]).
    pub fn totals(&self) -> Vec<Wdl> {
        let mut out = vec![Wdl::default(); self.players.len()];
        for (&(s, g, _), wdl) in &self.cells {
            if s != g {
                add_wdl(&mut out[s], wdl);
                add_wdl(&mut out[g], &wdl.flipped());
            }
        }
        out
    }

    /// Games a player played against itself (same name on both sides): they inform only the
    /// first-move value and the per-colour and per-reason counts.
    pub fn self_play_games(&self) -> u64 {
        self.cells
            .iter()
            .filter(|((s, g, _), _)| s == g)
            .map(|(_, w)| w.games())
            .sum()
    }

    /// `matrix[i][j]`: player i's results against player j, both colours, all handicaps (the
    /// diagonal stays empty).
    pub fn crosstable(&self) -> Vec<Vec<Wdl>> {
        let n = self.players.len();
        let mut m = vec![vec![Wdl::default(); n]; n];
        for (&(s, g, _), wdl) in &self.cells {
            if s == g {
                continue;
            }
            add_wdl(&mut m[s][g], wdl);
            add_wdl(&mut m[g][s], &wdl.flipped());
        }
        m
    }

    /// Results by side for even games (`None` key) and for each handicap type.
    pub fn side_results(&self) -> Vec<(Option<usize>, SideResults)> {
        let mut by_kind: BTreeMap<usize, SideResults> = BTreeMap::new();
        for (&(_, _, h), wdl) in &self.cells {
            let e = by_kind.entry(h).or_default();
            e.sente_wins += wdl.wins;
            e.gote_wins += wdl.losses;
            e.draws += wdl.draws;
        }
        by_kind
            .into_iter()
            .map(|(h, r)| ((h != EVEN).then_some(h), r))
            .collect()
    }

    /// How games ended, most frequent reason first (ties in a fixed order).
    pub fn reasons(&self) -> Vec<(Reason, SideResults)> {
        let mut v: Vec<(Reason, SideResults)> =
            self.reasons.iter().map(|(r, c)| (*r, *c)).collect();
        v.sort_by_key(|(r, c)| (std::cmp::Reverse(c.games()), format!("{r:?}")));
        v
    }
}

fn intern(names: &mut Vec<String>, index: &mut HashMap<String, usize>, name: &str) -> usize {
    if let Some(&i) = index.get(name) {
        return i;
    }
    names.push(name.to_owned());
    index.insert(name.to_owned(), names.len() - 1);
    names.len() - 1
}

fn add_wdl(into: &mut Wdl, other: &Wdl) {
    into.wins += other.wins;
    into.draws += other.draws;
    into.losses += other.losses;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_from_every_side() {
        let mut t = GameTable::new();
        t.add_game("A", "B", None, Winner::Sente, Reason::Resign);
        t.add_game("B", "A", None, Winner::Draw, Reason::Repetition);
        t.add_game("A", "C", Some("lance"), Winner::Gote, Reason::Checkmate);
        t.add_game("C", "B", None, Winner::Sente, Reason::Resign);
        assert_eq!(t.players(), ["A", "B", "C"]);
        assert_eq!(t.handicaps(), ["lance"]);
        assert_eq!(t.games(), 4);
        let totals = t.totals();
        assert_eq!(totals[0], Wdl::new(1, 1, 1));
        assert_eq!(totals[1], Wdl::new(0, 1, 2));
        assert_eq!(totals[2], Wdl::new(2, 0, 0));
        let colours = t.colour_results();
        assert_eq!(colours[0], (Wdl::new(1, 0, 1), Wdl::new(0, 1, 0)));
        let x = t.crosstable();
        assert_eq!(x[0][1], Wdl::new(1, 1, 0));
        assert_eq!(x[1][0], Wdl::new(0, 1, 1));
        let sides = t.side_results();
        assert_eq!(
            sides[0],
            (
                Some(0),
                SideResults {
                    sente_wins: 0,
                    gote_wins: 1,
                    draws: 0
                }
            )
        );
        assert_eq!(sides[1].0, None);
        assert_eq!(sides[1].1.games(), 3);
        let reasons = t.reasons();
        assert_eq!(reasons[0].0, Reason::Resign);
        assert_eq!(reasons[0].1.sente_wins, 2);
        assert_eq!(reasons.iter().map(|r| r.1.games()).sum::<u64>(), 4);
        assert_eq!(t.self_play_games(), 0);
    }

    #[test]
    fn self_play_counts_per_colour_but_not_in_totals() {
        let mut t = GameTable::new();
        t.add_game("A", "A", None, Winner::Sente, Reason::Resign);
        t.add_game("A", "B", None, Winner::Draw, Reason::Resign);
        assert_eq!(t.self_play_games(), 1);
        assert_eq!(t.totals()[0], Wdl::new(0, 1, 0));
        assert_eq!(
            t.colour_results()[0],
            (Wdl::new(1, 1, 0), Wdl::new(0, 0, 1))
        );
        assert_eq!(t.crosstable()[0][0], Wdl::default());
    }
}
