//! Results by opening family: `summary.json`'s `by_family` object and the closing table
//! `council-match --by-family` prints after the standings.
//!
//! Each game goes in the row of its family as [`crate::results::family`] labels it (the one
//! place a game is labelled), or in the `unlabelled` row: every game is in exactly one row, so
//! the rows' games add up to the run's. Counted from the finished games' results lines only,
//! like the rest of the summary, so a resumed or merged run, and the live page, count the same.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::results::GameResult;
use crate::results::family::{family_key, row_name_ja, row_order};

/// One player's games in one family, from its own side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FamilyScore {
    pub games: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Points per game (a draw is half a point).
    pub score: f64,
}

/// One family's row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FamilyRow {
    /// The family's Japanese name (未分類 for `unlabelled`).
    pub name_ja: String,
    pub games: u64,
    /// This family's games / all the run's games.
    pub share: f64,
    /// Per player that played in this family (by name).
    pub players: BTreeMap<String, FamilyScore>,
}

/// Family key (`static-vs-static`, `static-vs-ranging:fourth-file`, ..., `unlabelled`) -> row.
pub type ByFamily = BTreeMap<String, FamilyRow>;

/// The rows of `games` for the players in `playing`; only families with games have a row.
pub fn by_family(playing: &[String], games: &[GameResult]) -> ByFamily {
    let mut tally = FamilyTally::default();
    for g in games {
        tally.add(playing, g);
    }
    tally.rows(games.len() as u64)
}

/// The rows counted one game at a time (a run's summary as its games end).
#[derive(Debug, Clone, Default)]
pub struct FamilyTally(ByFamily);

impl FamilyTally {
    /// Count one game for the players in `playing`.
    pub fn add(&mut self, playing: &[String], g: &GameResult) {
        self.add_in_row(playing, g, family_key(g));
    }

    /// As [`Self::add`], the game's row key being `key` (its family's, found by the caller).
    pub fn add_in_row(&mut self, playing: &[String], g: &GameResult, key: String) {
        let row = self.0.entry(key).or_insert_with_key(|key| FamilyRow {
            name_ja: row_name_ja(key),
            ..FamilyRow::default()
        });
        row.games += 1;
        for name in playing {
            let Some(points) = g.points_of(name) else {
                continue;
            };
            let s = row.players.entry(name.clone()).or_default();
            s.games += 1;
            match points {
                1.0 => s.wins += 1,
                0.0 => s.losses += 1,
                _ => s.draws += 1,
            }
        }
    }

    /// The rows, with shares of `total` games and scores.
    pub fn rows(&self, total: u64) -> ByFamily {
        let mut rows = self.0.clone();
        for row in rows.values_mut() {
            row.share = row.games as f64 / total as f64;
            for s in row.players.values_mut() {
                s.score = (s.wins as f64 + 0.5 * s.draws as f64) / s.games as f64;
            }
        }
        rows
    }
}

/// The closing table: one line per family (families in their fixed order, `unlabelled` last),
/// its games and share, and each player's W-L-D and score there.
pub fn family_table(by: &ByFamily, players: &[String]) -> String {
    let mut keys: Vec<&String> = by.keys().collect();
    keys.sort_by_key(|k| row_order(k));
    let kw = keys
        .iter()
        .map(|k| k.len())
        .max()
        .unwrap_or(6)
        .max("family".len());
    let cells: Vec<Vec<String>> = keys
        .iter()
        .map(|k| {
            players
                .iter()
                .map(|p| {
                    by[*k].players.get(p).map_or_else(
                        || "-".to_owned(),
                        |s| {
                            format!(
                                "{}-{}-{} {:.1}%",
                                s.wins,
                                s.losses,
                                s.draws,
                                100.0 * s.score
                            )
                        },
                    )
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = players
        .iter()
        .enumerate()
        .map(|(j, p)| {
            cells
                .iter()
                .map(|row| row[j].len())
                .chain([p.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::from("\nby opening family (each player's W-L-D and score)\n");
    let _ = write!(out, "{:<kw$}  {:>5}  {:>6}", "family", "games", "share");
    for (p, w) in players.iter().zip(&widths) {
        let _ = write!(out, "  {p:>w$}");
    }
    out.push_str("  name\n");
    for (k, row_cells) in keys.iter().zip(&cells) {
        let row = &by[*k];
        let _ = write!(
            out,
            "{:<kw$}  {:>5}  {:>5.1}%",
            k,
            row.games,
            100.0 * row.share
        );
        for (cell, w) in row_cells.iter().zip(&widths) {
            let _ = write!(out, "  {cell:>w$}");
        }
        let _ = writeln!(out, "  {}", row.name_ja);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::family::UNLABELLED;

    const EVEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    const STATIC: &str = "2g2f 8c8d 2f2e 8d8e";
    const FOURTH: &str = "7g7f 3c3d 6g6f 8c8d 2h6h";

    fn game(id: u64, sente: &str, gote: &str, moves: &str, result: &str) -> GameResult {
        serde_json::from_value(serde_json::json!({
            "id": id, "sente": sente, "gote": gote, "start": EVEN,
            "moves": moves.split_whitespace().collect::<Vec<_>>(),
            "result": result, "reason": "resign", "plies": 0,
        }))
        .expect("a results line")
    }

    #[test]
    fn every_game_is_in_one_row_and_each_player_is_scored_from_its_side() {
        let games = [
            game(0, "a", "b", STATIC, "sente"),
            game(1, "b", "a", STATIC, "draw"),
            game(2, "a", "b", FOURTH, "sente"),
            game(3, "b", "a", FOURTH, "gote"),
            game(4, "b", "a", "7g7f 7g7f", "sente"),
        ];
        let players = ["a".to_owned(), "b".to_owned()];
        let by = by_family(&players, &games);
        assert_eq!(
            by.keys().collect::<Vec<_>>(),
            [
                "static-vs-ranging:fourth-file",
                "static-vs-static",
                UNLABELLED
            ]
        );
        assert_eq!(by.values().map(|r| r.games).sum::<u64>(), 5);
        let st = &by["static-vs-static"];
        assert_eq!(
            (st.games, st.share, st.name_ja.as_str()),
            (2, 0.4, "相居飛車")
        );
        let a = &st.players["a"];
        assert_eq!(
            (a.games, a.wins, a.losses, a.draws, a.score),
            (2, 1, 0, 1, 0.75)
        );
        let b = &st.players["b"];
        assert_eq!((b.wins, b.losses, b.draws, b.score), (0, 1, 1, 0.25));
        let four = &by["static-vs-ranging:fourth-file"];
        assert_eq!(
            (four.players["a"].wins, four.players["b"].wins),
            (2, 0),
            "a won as sente in game 2 and as gote in game 3"
        );
        assert_eq!(by[UNLABELLED].players["b"].wins, 1);

        let table = family_table(&by, &players);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "", "a blank line after the standings");
        assert!(lines[3].starts_with("static-vs-static "), "{table}");
        assert!(lines[3].contains("1-0-1 75.0%"), "{table}");
        assert!(
            lines[4].starts_with("static-vs-ranging:fourth-file"),
            "{table}"
        );
        assert!(lines[5].starts_with("unlabelled"), "{table}");
        assert!(lines[5].ends_with("未分類"), "{table}");
    }
}
