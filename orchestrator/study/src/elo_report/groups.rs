//! `council-elo --by family`: the ratings fitted separately within each group of games, with the
//! same estimator, anchor and options as the main table.
//!
//! A game's group is its opening family as [`council_schema::results::family`] labels it (the one place
//! games are labelled; `unlabelled` for games it cannot label, so no game is dropped). A group
//! with fewer than [`MIN_GROUP_GAMES`] games, fewer than two players, without the anchor
//! player, or whose fit fails, is listed with the reason instead of numbers: a rating from a
//! handful of games would read as a finding. Formatting only; the numbers come from `stats`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::formats::{PlayerRow, RatingReport, write_rating_table};
pub use super::group_by::GroupBy;
use super::input::MergedResults;
use council_schema::stats::rating_fit::{Anchor, ParamEstimate};
use council_schema::stats::{FitOptions, GameTable, fit};

/// Groups with fewer games are not rated.
pub const MIN_GROUP_GAMES: u64 = 10;

/// One group's ratings, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRatings {
    /// The group's key (`static-vs-static`, ..., `unlabelled`).
    pub key: String,
    /// Its name for people.
    pub name: String,
    pub games: u64,
    /// Rank order within the group; empty when `unrated` says why.
    pub players: Vec<PlayerRow>,
    pub first_move: Option<ParamEstimate>,
    /// Why the group has no ratings (too few games, no anchor player, a failed fit).
    pub unrated: Option<String>,
    pub notes: Vec<String>,
}

/// The report's JSON with the groups added (`council-elo --by family --format json`): every key
/// of the main report, then `by_family`.
#[derive(Debug, Serialize)]
pub struct GroupedReport<'r> {
    #[serde(flatten)]
    pub report: &'r RatingReport,
    pub by_family: &'r [GroupRatings],
}

impl GroupedReport<'_> {
    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Each group of `groups` rated on its own games with `options`, in the groups' display order.
#[must_use]
pub fn rate_groups(
    by: GroupBy,
    groups: &BTreeMap<String, GameTable>,
    options: &FitOptions,
) -> Vec<GroupRatings> {
    let mut keys: Vec<&String> = groups.keys().collect();
    keys.sort_by_key(|k| by.order(k));
    keys.into_iter()
        .map(|key| rate_group(key, by.name(key), &groups[key], options))
        .collect()
}

fn rate_group(key: &str, name: String, table: &GameTable, options: &FitOptions) -> GroupRatings {
    let mut group = GroupRatings {
        key: key.to_owned(),
        name,
        games: table.games(),
        players: Vec::new(),
        first_move: None,
        unrated: None,
        notes: Vec::new(),
    };
    group.unrated = if table.games() < MIN_GROUP_GAMES {
        Some(format!(
            "too few games to rate ({} < {MIN_GROUP_GAMES})",
            table.games()
        ))
    } else if table.players().len() < 2 {
        Some("fewer than two players".to_owned())
    } else if let Anchor::Player { name, .. } = &options.anchor
        && table.player_index(name).is_none()
    {
        Some(format!("the anchor {name:?} played no game here"))
    } else {
        None
    };
    if group.unrated.is_some() {
        return group;
    }
    match fit(table, options) {
        Ok(ratings) => {
            let merged = MergedResults {
                table: table.clone(),
                ..MergedResults::default()
            };
            let report = RatingReport::new(&merged, &ratings);
            group.players = report.players;
            group.first_move = report.first_move;
            group.notes = report.notes;
        }
        Err(e) => group.unrated = Some(format!("no ratings: {e}")),
    }
    group
}

/// The groups as text: one small table per group (rating, error, points, games, score), or the
/// reason it has none.
#[must_use]
pub fn groups_text(by: GroupBy, groups: &[GroupRatings]) -> String {
    let what = match by {
        GroupBy::Family => "opening family",
    };
    let mut out = format!(
        "\nRatings by {what} (each fitted on its own games, same model and anchor; fewer than \
         {MIN_GROUP_GAMES} games are not rated)\n"
    );
    let width = groups
        .iter()
        .flat_map(|g| g.players.iter().map(|p| p.rating.name.chars().count()))
        .max()
        .unwrap_or(6)
        .max(6);
    for g in groups {
        let _ = write!(out, "\n{} ({}): {} games", g.key, g.name, g.games);
        if let Some(why) = &g.unrated {
            let _ = writeln!(out, ": {why}");
            continue;
        }
        out.push('\n');
        write_rating_table(&mut out, &g.players, width);
        for note in &g.notes {
            let _ = writeln!(out, "     - {note}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64, sente: &str, gote: &str, moves: &[&str], result: &str) -> GameResult {
        serde_json::from_value(serde_json::json!({
            "id": id, "sente": sente, "gote": gote, "start": "startpos", "moves": moves,
            "result": result, "reason": "resign", "plies": moves.len(),
        }))
        .expect("a results line")
    }

    use council_schema::results::GameResult;

    #[test]
    fn small_groups_and_groups_without_the_anchor_say_why_they_have_no_ratings() {
        let mut groups: BTreeMap<String, GameTable> = BTreeMap::new();
        let statics = ["2g2f", "8c8d"];
        for id in 0..12 {
            let (s, g) = if id % 2 == 0 { ("A", "B") } else { ("B", "A") };
            let result = if id % 3 == 0 { "gote" } else { "sente" };
            let game = game(id, s, g, &statics, result);
            groups
                .entry(GroupBy::Family.key(&game))
                .or_default()
                .add(&game);
        }
        let broken = game(20, "A", "C", &["7g7f", "7g7f"], "sente");
        groups
            .entry(GroupBy::Family.key(&broken))
            .or_default()
            .add(&broken);

        let rated = rate_groups(GroupBy::Family, &groups, &FitOptions::default());
        assert_eq!(
            rated.iter().map(|g| g.key.as_str()).collect::<Vec<_>>(),
            ["static-vs-static", "unlabelled"]
        );
        assert_eq!((rated[0].games, rated[0].players.len()), (12, 2));
        assert!(rated[0].unrated.is_none());
        assert_eq!(
            rated[1].unrated.as_deref(),
            Some("too few games to rate (1 < 10)")
        );
        let text = groups_text(GroupBy::Family, &rated);
        assert!(
            text.contains("\nunlabelled (未分類): 1 games: too few games to rate (1 < 10)\n"),
            "{text}"
        );

        let anchored = FitOptions {
            anchor: Anchor::Player {
                name: "C".into(),
                elo: 1500.0,
            },
            ..FitOptions::default()
        };
        let mut only_ab = groups.clone();
        only_ab.remove("unlabelled");
        let rated = rate_groups(GroupBy::Family, &only_ab, &anchored);
        assert_eq!(
            rated[0].unrated.as_deref(),
            Some("the anchor \"C\" played no game here")
        );
    }
}
