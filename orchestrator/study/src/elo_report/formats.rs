//! The rating report of `council-elo`: one view of a ratings fit and the games behind it, printed
//! as an Ordo-style text table, CSV, or JSON. Formatting only: every number comes from
//! [`council_schema::stats`].
//!
//! Invariants: players appear in rank order (highest rating first, ties by name) in every form;
//! the JSON keys `players[].{name, elo, error, games, score}` are promised in docs/reference/files.md.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::input::MergedResults;
use council_schema::results::read::FileRead;
use council_schema::stats::rating_fit::{Anchor, ParamEstimate, PlayerRating, Ratings};
use council_schema::stats::table::SideResults;
use council_schema::stats::{GameTable, Wdl};

/// Text output prints the crosstable and LOS matrix only up to this many players (JSON always
/// has them).
pub(crate) const TEXT_MATRIX_LIMIT: usize = 16;

/// One row of the rating table: the fitted rating (serialized flat: `name`, `elo`, `error`,
/// `lower`, `upper`, `games`, `score`, `points`, `wins`, `draws`, `losses`) with its rank and
/// its results by colour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerRow {
    pub rank: usize,
    #[serde(flatten)]
    pub rating: PlayerRating,
    pub as_sente: Wdl,
    pub as_gote: Wdl,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Ordo's model: logistic Elo, draws as half points, maximum likelihood.
    pub name: String,
    pub interval_method: String,
    pub confidence: f64,
    pub dispersion: f64,
    pub prior_draws: f64,
    pub games_fitted: u64,
    pub iterations: u32,
    pub log_likelihood: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LosMatrix {
    /// Names in rank order; `matrix[i][j]` is the probability that players[i] is stronger
    /// than players[j] (`null` on the diagonal).
    pub players: Vec<String>,
    pub matrix: Vec<Vec<Option<f64>>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossEntry {
    pub player: String,
    pub opponent: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub points: f64,
    pub games: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideRow {
    /// `even`, or the handicap name.
    pub games_of: String,
    pub games: u64,
    pub sente_wins: u64,
    pub gote_wins: u64,
    pub draws: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonRow {
    pub reason: String,
    pub games: u64,
    pub sente_wins: u64,
    pub gote_wins: u64,
    pub draws: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputInfo {
    pub files: Vec<FileRead>,
    pub games: u64,
    pub duplicates_merged: u64,
    pub malformed_skipped: u64,
}

/// Everything `council-elo` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingReport {
    pub players: Vec<PlayerRow>,
    pub model: ModelInfo,
    pub anchor: Anchor,
    pub first_move: Option<ParamEstimate>,
    pub handicaps: Vec<ParamEstimate>,
    pub los: LosMatrix,
    pub crosstable: Vec<CrossEntry>,
    /// Results by side, for even games and each handicap type.
    pub colours: Vec<SideRow>,
    pub reasons: Vec<ReasonRow>,
    pub input: InputInfo,
    pub notes: Vec<String>,
}

impl RatingReport {
    pub fn new(merged: &MergedResults, ratings: &Ratings) -> Self {
        let table: &GameTable = &merged.table;
        let mut order: Vec<usize> = (0..ratings.players.len()).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (&ratings.players[a], &ratings.players[b]);
            pb.elo
                .total_cmp(&pa.elo)
                .then_with(|| pa.name.cmp(&pb.name))
        });
        let colours = table.colour_results();
        let players = order
            .iter()
            .enumerate()
            .map(|(rank, &i)| PlayerRow {
                rank: rank + 1,
                rating: ratings.players[i].clone(),
                as_sente: colours[i].0,
                as_gote: colours[i].1,
            })
            .collect();
        let los = LosMatrix {
            players: order
                .iter()
                .map(|&i| ratings.players[i].name.clone())
                .collect(),
            matrix: order
                .iter()
                .map(|&i| order.iter().map(|&j| ratings.los(i, j)).collect())
                .collect(),
        };
        let cross = table.crosstable();
        let mut crosstable = Vec::new();
        for &i in &order {
            for &j in &order {
                let w = cross[i][j];
                if i != j && w.games() > 0 {
                    crosstable.push(CrossEntry {
                        player: table.players()[i].clone(),
                        opponent: table.players()[j].clone(),
                        wins: w.wins,
                        draws: w.draws,
                        losses: w.losses,
                        points: w.points(),
                        games: w.games(),
                    });
                }
            }
        }
        let side_row = |name: String, r: SideResults| SideRow {
            games_of: name,
            games: r.games(),
            sente_wins: r.sente_wins,
            gote_wins: r.gote_wins,
            draws: r.draws,
        };
        let mut colour_rows: Vec<SideRow> = table
            .side_results()
            .into_iter()
            .map(|(h, r)| {
                let name = h.map_or_else(|| "even".to_owned(), |k| table.handicaps()[k].clone());
                side_row(name, r)
            })
            .collect();
        // Even games first.
        colour_rows.sort_by_key(|r| r.games_of != "even");
        let reasons = table
            .reasons()
            .into_iter()
            .map(|(reason, r)| ReasonRow {
                reason: reason.name().to_string(),
                games: r.games(),
                sente_wins: r.sente_wins,
                gote_wins: r.gote_wins,
                draws: r.draws,
            })
            .collect();
        let mut notes = ratings.notes.clone();
        if merged.duplicates() > 0 {
            notes.push(format!(
                "{} results lines seen twice (identical lines) were counted once",
                merged.duplicates()
            ));
        }
        if table.self_play_games() > 0 {
            notes.push(format!(
                "{} games of a player against itself count only for the first-move value and the \
                 colour and reason tables",
                table.self_play_games()
            ));
        }
        if !merged.skipped.is_empty() {
            notes.push(format!(
                "{} malformed lines were skipped",
                merged.skipped.len()
            ));
        }
        Self {
            players,
            model: ModelInfo {
                name: "maximum likelihood, logistic Elo, draws as half points (Ordo's model)"
                    .to_owned(),
                interval_method: ratings.interval_method.to_owned(),
                confidence: ratings.confidence,
                dispersion: ratings.dispersion,
                prior_draws: ratings.prior_draws,
                games_fitted: ratings.games_fitted,
                iterations: ratings.iterations,
                log_likelihood: ratings.log_likelihood,
            },
            anchor: ratings.anchor.clone(),
            first_move: ratings.first_move.clone(),
            handicaps: ratings.handicaps.clone(),
            los,
            crosstable,
            colours: colour_rows,
            reasons,
            input: InputInfo {
                files: merged.files.clone(),
                games: merged.games(),
                duplicates_merged: merged.duplicates(),
                malformed_skipped: merged.skipped.len() as u64,
            },
            notes,
        }
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The rating table as CSV, one player per line, rank order.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "rank,player,rating,error,lower,upper,points,played,percent,wins,draws,losses\n",
        );
        for p in &self.players {
            let _ = writeln!(
                out,
                "{},{},{:.1},{:.1},{:.1},{:.1},{:.1},{},{:.1},{},{},{}",
                p.rank,
                csv_field(&p.rating.name),
                p.rating.elo,
                p.rating.error,
                p.rating.lower,
                p.rating.upper,
                p.rating.points,
                p.rating.games,
                100.0 * p.rating.score,
                p.rating.wdl.wins,
                p.rating.wdl.draws,
                p.rating.wdl.losses
            );
        }
        out
    }

    /// The Ordo-style text report.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let width = self
            .players
            .iter()
            .map(|p| p.rating.name.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let files = self.input.files.len();
        let _ = writeln!(
            out,
            "{} games, {} players, from {} file{}",
            self.input.games,
            self.players.len(),
            files,
            if files == 1 { "" } else { "s" }
        );
        let anchor = match &self.anchor {
            Anchor::PoolMean { elo } => format!("pool average = {elo}"),
            Anchor::Player { name, elo } => format!("{name} = {elo}"),
        };
        let _ = writeln!(
            out,
            "Ratings: maximum likelihood (Ordo's model), anchor {anchor}; ERROR = 95% interval \
             half-width from the likelihood's curvature (Hessian), dispersion {:.3}",
            self.model.dispersion
        );
        out.push('\n');
        write_rating_table(&mut out, &self.players, width);

        if self.first_move.is_some() || !self.handicaps.is_empty() {
            out.push('\n');
        }
        if let Some(fm) = &self.first_move {
            let _ = writeln!(
                out,
                "{}",
                param_line("First-move advantage (sente, even games)", fm)
            );
        }
        for h in &self.handicaps {
            let label = format!("Handicap {} (worth to the receiver)", h.name);
            let _ = writeln!(out, "{}", param_line(&label, h));
        }

        out.push_str("\nResults by colour (W-D-L from the player's side)\n");
        let _ = writeln!(
            out,
            "{:>4} {:<width$} : {:>20} {:>20}",
            "#", "PLAYER", "AS SENTE", "AS GOTE"
        );
        for p in &self.players {
            let _ = writeln!(
                out,
                "{:>4} {:<width$} : {:>20} {:>20}",
                p.rank,
                p.rating.name,
                wdl_cell(&p.as_sente),
                wdl_cell(&p.as_gote)
            );
        }
        out.push('\n');
        write_side_table(
            &mut out,
            ("GAMES", 14),
            "PLAYED",
            self.colours
                .iter()
                .map(|c| (&c.games_of, [c.games, c.sente_wins, c.gote_wins, c.draws])),
        );

        out.push_str("\nHow games ended\n");
        write_side_table(
            &mut out,
            ("REASON", 16),
            "GAMES",
            self.reasons
                .iter()
                .map(|r| (&r.reason, [r.games, r.sente_wins, r.gote_wins, r.draws])),
        );

        let n = self.players.len();
        if n <= TEXT_MATRIX_LIMIT {
            out.push_str("\nCrosstable (points of the row player / games)\n");
            let _ = write!(out, "{:>4} {:<width$} :", "#", "PLAYER");
            for j in 1..=n {
                let _ = write!(out, " {j:>9}");
            }
            out.push('\n');
            for p in &self.players {
                let _ = write!(out, "{:>4} {:<width$} :", p.rank, p.rating.name);
                for q in &self.players {
                    let cell = self
                        .crosstable
                        .iter()
                        .find(|c| c.player == p.rating.name && c.opponent == q.rating.name)
                        .map_or_else(
                            || "-".to_owned(),
                            |c| format!("{}/{}", trim_half(c.points), c.games),
                        );
                    let _ = write!(out, " {cell:>9}");
                }
                out.push('\n');
            }
            out.push_str("\nLOS (%: probability that the row player is stronger)\n");
            let _ = write!(out, "{:>4} {:<width$} :", "#", "PLAYER");
            for j in 1..=n {
                let _ = write!(out, " {j:>4}");
            }
            out.push('\n');
            for (i, p) in self.players.iter().enumerate() {
                let _ = write!(out, "{:>4} {:<width$} :", p.rank, p.rating.name);
                for v in &self.los.matrix[i] {
                    match v {
                        Some(v) => {
                            let _ = write!(out, " {:>4.0}", 100.0 * v);
                        }
                        None => out.push_str("     "),
                    }
                }
                out.push('\n');
            }
        } else {
            let _ = writeln!(
                out,
                "\n(crosstable and LOS matrix omitted for {n} players: see --format json)"
            );
        }

        if !self.notes.is_empty() {
            out.push_str("\nNotes\n");
            for note in &self.notes {
                let _ = writeln!(out, "- {note}");
            }
        }
        out
    }
}

/// The rating table `# PLAYER : RATING ERROR POINTS PLAYED (%)`, names padded to `width`.
pub(crate) fn write_rating_table(out: &mut String, players: &[PlayerRow], width: usize) {
    let _ = writeln!(
        out,
        "{:>4} {:<width$} : {:>7} {:>6} {:>8} {:>7} {:>6}",
        "#", "PLAYER", "RATING", "ERROR", "POINTS", "PLAYED", "(%)"
    );
    for p in players {
        let _ = writeln!(
            out,
            "{:>4} {:<width$} : {:>7.1} {:>6.1} {:>8.1} {:>7} {:>5.1}%",
            p.rank,
            p.rating.name,
            p.rating.elo,
            p.rating.error,
            p.rating.points,
            p.rating.games,
            100.0 * p.rating.score
        );
    }
}

fn param_line(label: &str, p: &ParamEstimate) -> String {
    match (&p.estimate, &p.note) {
        (Some(e), _) => format!(
            "{label} = {:.1} +/- {:.1} Elo ({} games)",
            e.elo, e.error, p.games
        ),
        (None, Some(note)) => format!("{label}: {note} ({} games)", p.games),
        (None, None) => format!("{label}: not estimated ({} games)", p.games),
    }
}

/// A table of games by who won them: a header line, then one line a row of `(label, [games,
/// sente wins, gote wins, draws])`. `label` is the label column's header and width, `games`
/// the games column's header.
fn write_side_table<'r>(
    out: &mut String,
    (label, width): (&str, usize),
    games: &str,
    rows: impl Iterator<Item = (&'r String, [u64; 4])>,
) {
    let _ = writeln!(
        out,
        "{label:<width$} {games:>8} {:>10} {:>10} {:>8}",
        "SENTE WON", "GOTE WON", "DRAWN"
    );
    for (name, [games, sente_wins, gote_wins, draws]) in rows {
        let _ = writeln!(
            out,
            "{name:<width$} {games:>8} {sente_wins:>10} {gote_wins:>10} {draws:>8}"
        );
    }
}

fn wdl_cell(w: &Wdl) -> String {
    if w.games() == 0 {
        return "-".to_owned();
    }
    format!(
        "{}-{}-{} ({:.0}%)",
        w.wins,
        w.draws,
        w.losses,
        100.0 * w.points() / w.games() as f64
    )
}

fn trim_half(points: f64) -> String {
    if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_schema::results::{Reason, Winner};
    use council_schema::stats::{FitOptions, fit};

    fn merged() -> MergedResults {
        let mut table = GameTable::new();
        for (s, g, r, n) in [
            ("A", "B", Winner::Sente, 6),
            ("B", "A", Winner::Gote, 3),
            ("B", "A", Winner::Sente, 3),
            ("A", "C", Winner::Draw, 4),
            ("C", "A", Winner::Sente, 2),
            ("C", "B", Winner::Sente, 5),
            ("B", "C", Winner::Sente, 3),
        ] {
            for _ in 0..n {
                table.add_game(s, g, None, r, Reason::Resign);
            }
        }
        MergedResults {
            table,
            ..MergedResults::default()
        }
    }

    #[test]
    fn every_form_lists_players_in_rank_order() {
        let merged = merged();
        let ratings = fit(&merged.table, &FitOptions::default()).expect("fit");
        let report = RatingReport::new(&merged, &ratings);
        // C scored 2/3 against A, and both beat B: C, A, B.
        let names: Vec<&str> = report
            .players
            .iter()
            .map(|p| p.rating.name.as_str())
            .collect();
        assert_eq!(names, ["C", "A", "B"]);
        assert!(
            report
                .players
                .windows(2)
                .all(|w| w[0].rating.elo >= w[1].rating.elo)
        );

        let text = report.to_text();
        let header = text
            .lines()
            .find(|l| l.contains("PLAYER") && l.contains("RATING"))
            .expect("Ordo header");
        for col in ["#", "PLAYER", "RATING", "ERROR", "POINTS", "PLAYED", "(%)"] {
            assert!(header.contains(col), "{header}");
        }
        let first_row = text
            .lines()
            .skip_while(|l| !l.contains("RATING"))
            .nth(1)
            .expect("row");
        assert!(first_row.trim_start().starts_with("1 C"), "{first_row}");

        let csv = report.to_csv();
        assert_eq!(csv.lines().nth(1).map(|l| &l[..4]), Some("1,C,"));
        assert_eq!(csv.lines().count(), 4);

        let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("json");
        let p0 = &json["players"][0];
        for key in ["name", "elo", "error", "games", "score"] {
            assert!(!p0[key].is_null(), "missing {key}");
        }
        assert_eq!(p0["games"], 14);
        assert_eq!(p0["score"], 9.0 / 14.0);
        assert_eq!(json["los"]["matrix"][0][0], serde_json::Value::Null);
        assert_eq!(json["model"]["interval_method"], "hessian");
    }

    /// `json` read as a report holds what it holds read as plain JSON: every key, every value.
    /// (Floats compare as serde_json reads them, which may be a unit in the last place off
    /// the written digits, typed or not.)
    fn reads_whole(json: &str) -> RatingReport {
        let report: RatingReport = serde_json::from_str(json).expect("a rating report");
        let plain: serde_json::Value = serde_json::from_str(json).expect("JSON");
        assert_eq!(serde_json::to_value(&report).expect("a value"), plain);
        report
    }

    #[test]
    fn a_report_reads_back_from_its_json() {
        let merged = merged();
        let ratings = fit(&merged.table, &FitOptions::default()).expect("fit");
        let report = RatingReport::new(&merged, &ratings);
        let back = reads_whole(&report.to_json());
        assert_eq!(back.players.len(), 3);
        assert_eq!(back.players[0].rating.wdl, report.players[0].rating.wdl);
        assert_eq!(back.anchor, report.anchor);
        assert!((back.players[0].rating.elo - report.players[0].rating.elo).abs() < 1e-9);
    }

    /// `council-elo --format json` as the binary wrote it (two copies of a file of 120 games
    /// with handicaps, `--first-move --anchor A=1500`): every key reads into the report.
    #[test]
    fn council_elos_own_json_reads_into_a_report() {
        let written = include_str!("../../../../tests/fixtures/council-elo.json");
        let report = reads_whole(written);
        assert_eq!(report.players.len(), 4);
        assert_eq!(report.players[0].rank, 1);
        assert!(
            matches!(&report.anchor, Anchor::Player { name, elo } if name == "A" && *elo == 1500.0)
        );
        assert!(report.first_move.is_some());
        assert_eq!(report.handicaps.len(), 2);
        assert_eq!(report.input.files.len(), 2);
        assert_eq!(report.input.duplicates_merged, 120);
        assert_eq!(report.players[3].rating.name, "A");
        assert_eq!(report.players[3].rating.elo, 1500.0);
    }

    #[test]
    fn csv_quotes_awkward_names() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
