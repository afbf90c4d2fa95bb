//! What a run shows a person: a line per finished game and a standings line every N games on
//! stdout (so a log file or a pipe gets them as they happen), the progress bar with its live
//! score on stderr (only on a terminal), and the closing standings table (from `summary.json`'s
//! [`Summary`]). The numbers are computed in the schema crate (`run::ratings`,
//! `run::summary`); this file only formats them.
//!
//! Invariant: every rating shown has its interval, or is `n/a` with the reason; a fit that sits
//! at a bound is shown as no fit, with why.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::time::Duration;

use council_schema::results::{GameResult, Reason, Winner};
use council_schema::run::ratings::{RunRating, RunRatings};
use council_schema::run::summary::{PlayerSummary, Summary};
use council_schema::stats::SprtStatus;
use council_schema::stats::rating_fit::Estimate;
use indicatif::{ProgressBar, ProgressStyle};

/// A rating with its interval, or `n/a`.
fn fmt_rating(rating: Option<&Estimate>) -> String {
    match rating {
        Some(r) => format!("{:+.0} ± {:.0}", r.elo, r.error),
        None => "n/a".into(),
    }
}

/// The standings table and council statistics as text.
pub fn standings_table(s: &Summary) -> String {
    let mut out = String::new();
    // Rated players by rating, then the unrated by points.
    let mut players: Vec<&PlayerSummary> = s.players.iter().collect();
    players.sort_by(|a, b| match (&a.rating, &b.rating) {
        (Some(x), Some(y)) => y.elo.total_cmp(&x.elo),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b.points.total_cmp(&a.points),
    });
    let width = players
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:>2}  {:<width$}  {:>5}  {:>4}  {:>4}  {:>4}  {:>6}  {:>6}  {:>12}  {:>5}  {:>10}  {:>11}",
        "#",
        "player",
        "games",
        "W",
        "D",
        "L",
        "points",
        "score",
        "elo (95%)",
        "LOS",
        "engine/mv",
        "overhead/mv"
    );
    for (i, p) in players.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>2}  {:<width$}  {:>5}  {:>4}  {:>4}  {:>4}  {:>6.1}  {:>5.1}%  {:>12}  {:>5}  {:>8.1}ms  {:>9.0}µs",
            i + 1,
            p.name,
            p.games,
            p.wins,
            p.draws,
            p.losses,
            p.points,
            100.0 * p.score,
            fmt_rating(p.rating.as_ref()),
            p.los.map_or("-".into(), |l| format!("{:.0}%", 100.0 * l)),
            p.engine_ms_per_move,
            p.overhead_us_per_move,
        );
    }
    out.push_str(&ratings_legend(s, &players));
    for c in &s.councils {
        let _ = writeln!(
            out,
            "\ncouncil {} ({} decisions): overrode its strongest member in {:.1}%",
            c.name,
            c.moves,
            100.0 * c.overrode_strongest
        );
        let mw = c.members.iter().map(|m| m.len()).max().unwrap_or(6).max(6);
        let _ = write!(out, "  {:<mw$}  {:>8}", "member", "differed");
        for m in &c.members {
            let _ = write!(out, "  {:>8}", truncate(m, 8));
        }
        let _ = writeln!(out, "  {:>9}  {:>9}  {:>5}", "mean/mv", "max/mv", "late");
        for (i, m) in c.members.iter().enumerate() {
            let differed = c.differed_from.get(m).copied().flatten();
            let _ = write!(out, "  {:<mw$}  {:>8}", m, pct(differed));
            for j in 0..c.members.len() {
                let a = c.agreement.get(i).and_then(|r| r.get(j)).copied().flatten();
                let _ = write!(out, "  {:>8}", pct(a));
            }
            let t = c.member_time.get(m).cloned().unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:>7.0}ms  {:>7}ms  {:>5}",
                t.mean_ms, t.max_ms, t.late
            );
        }
    }
    let mut fitted: Vec<String> = s
        .players
        .iter()
        .filter_map(|p| p.fitted_win_rate_t.map(|t| format!("{} {t:.0}", p.name)))
        .collect();
    let mut unfitted: Vec<String> = s
        .players
        .iter()
        .filter_map(|p| {
            p.win_rate_t_unfitted
                .as_ref()
                .filter(|why| !is_no_data(why))
                .map(|why| format!("{}: {why}", p.name))
        })
        .collect();
    for c in &s.councils {
        fitted.extend(
            c.member_win_rate_t
                .iter()
                .filter_map(|(m, t)| t.map(|t| format!("{}/{m} {t:.0}", c.name))),
        );
        unfitted.extend(
            c.member_win_rate_t_unfitted
                .iter()
                .filter(|(_, why)| !is_no_data(why))
                .map(|(m, why)| format!("{}/{m}: {why}", c.name)),
        );
    }
    let pondering: Vec<String> = s
        .players
        .iter()
        .filter_map(|p| {
            p.ponder_hit_rate.map(|r| {
                format!(
                    "{} {} of {} ({:.1}%)",
                    p.name,
                    p.ponder_hits,
                    p.ponder_hits + p.ponder_misses,
                    100.0 * r
                )
            })
        })
        .collect();
    if !pondering.is_empty() {
        let _ = writeln!(out, "\nponder hits: {}", pondering.join(", "));
    }
    if !fitted.is_empty() {
        let _ = writeln!(
            out,
            "\nwin-rate T fitted from the games: {}",
            fitted.join(", ")
        );
    }
    if !unfitted.is_empty() {
        let sep = if fitted.is_empty() { "\n" } else { "" };
        let _ = writeln!(out, "{sep}win-rate T not fitted: {}", unfitted.join("; "));
    }
    let reasons: Vec<String> = s.reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    let rate = s
        .games_per_minute
        .map_or("unknown".to_string(), |r| format!("{r:.1}"));
    let _ = writeln!(
        out,
        "\n{} games ({} this session, {rate} games/min), seed {}; endings: {}",
        s.games,
        s.played_this_session,
        s.seed,
        reasons.join(", ")
    );
    if let Some(t) = &s.sprt {
        let model = match t.settings.model {
            council_schema::stats::EloModel::Logistic => "logistic",
            council_schema::stats::EloModel::Normalized => "normalized",
        };
        let verdict = match (t.decision, t.decided_after_games) {
            (SprtStatus::AcceptH1, Some(n)) => format!("H1 accepted after {n} games"),
            (SprtStatus::AcceptH0, Some(n)) => format!("H0 accepted after {n} games"),
            _ => "no decision yet".to_owned(),
        };
        let _ = writeln!(
            out,
            "SPRT elo0 = {}, elo1 = {} ({model} Elo, alpha {}, beta {}): LLR {:.2} ({:.2}, {:.2}) on {} {}; {verdict}",
            t.settings.elo0,
            t.settings.elo1,
            t.settings.alpha,
            t.settings.beta,
            t.last.llr,
            t.last.lower,
            t.last.upper,
            t.last.samples,
            if t.last.pentanomial { "pairs" } else { "games" },
        );
    }
    out
}

/// "No data" is the usual state of a player without decisive games: not worth a line.
fn is_no_data(why: &str) -> bool {
    why.starts_with("no fit: no scored moves")
}

/// Under the table: what the ratings are, the fit's notes, and why a rating is `n/a`.
fn ratings_legend(s: &Summary, players: &[&PlayerSummary]) -> String {
    let mut out = String::new();
    if let Some(fit) = &s.ratings {
        let _ = writeln!(
            out,
            "elo: council-elo's rating of these games ({}, the pool's mean at 0, 95% interval); LOS: the chance a player is stronger than the next one down",
            fit.model
        );
        for note in &fit.notes {
            let _ = writeln!(out, "  note: {note}");
        }
    }
    let unrated: Vec<String> = players
        .iter()
        .filter_map(|p| p.unrated.as_ref().map(|why| format!("{} ({why})", p.name)))
        .collect();
    if !unrated.is_empty() {
        let _ = writeln!(out, "n/a: {}", unrated.join(", "));
    }
    out
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}%", 100.0 * x))
}

/// What a run prints while it plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleOptions {
    /// The progress bar with the live score, on stderr when it is a terminal.
    pub progress: bool,
    /// A line per finished game, on stdout.
    pub game_lines: bool,
    /// A standings line on stdout after every this many finished games (0: never).
    pub report_every: u64,
}

impl ConsoleOptions {
    /// `--quiet`: nothing but errors and the closing table.
    pub const QUIET: ConsoleOptions = ConsoleOptions {
        progress: false,
        game_lines: false,
        report_every: 0,
    };
}

/// The run's console while it plays: the bar, and the lines printed above it.
pub(crate) struct Console {
    bar: ProgressBar,
    options: ConsoleOptions,
    /// Games the run will have played at its end.
    total: u64,
}

impl Console {
    pub(crate) fn new(options: ConsoleOptions, total: u64, done: u64) -> Self {
        let bar = progress_bar(total, options.progress);
        bar.set_position(done);
        Self {
            bar,
            options,
            total,
        }
    }

    pub(crate) fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// A game ended: its line, and the standings when their turn has come. `finished` holds
    /// every finished game of the run, this one included; `sprt` is the running test's line.
    pub(crate) fn game_ended(
        &self,
        game: &GameResult,
        playing: &[String],
        finished: &[GameResult],
        sprt: Option<String>,
    ) {
        self.bar.inc(1);
        let mut lines = Vec::new();
        if self.options.game_lines {
            lines.push(game_line(game));
        }
        let n = finished.len() as u64;
        if self.options.report_every > 0 && n.is_multiple_of(self.options.report_every) {
            lines.push(standings_line(
                playing,
                finished,
                self.total,
                sprt.as_deref(),
            ));
        }
        if !lines.is_empty() {
            // Above the bar, which is redrawn after; stdout is line-buffered, so a log file
            // gets each line as it is printed.
            self.bar.suspend(|| {
                for line in &lines {
                    println!("{line}");
                }
            });
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// One finished game, as cutechess-cli's `Finished game 3 (A vs B): 1-0 {White mates}` in
/// shogi's terms: `Finished game 3 (council vs single): sente (council) wins by checkmate,
/// 87 plies, 41.2 s`.
pub fn game_line(g: &GameResult) -> String {
    let outcome = match (g.reason, g.result) {
        (Reason::Aborted, _) => "aborted".to_string(),
        (reason, Winner::Draw) => format!("draw by {}", reason.name()),
        (reason, Winner::Sente) => format!("sente ({}) wins by {}", g.sente, reason.name()),
        (reason, Winner::Gote) => format!("gote ({}) wins by {}", g.gote, reason.name()),
    };
    let detail = g
        .detail
        .as_deref()
        .filter(|d| !d.is_empty())
        .map_or(String::new(), |d| format!(" {{{}}}", truncate(d, 120)));
    let time = g
        .wall_ms
        .map_or(String::new(), |ms| format!(", {:.1} s", ms as f64 / 1000.0));
    format!(
        "Finished game {} ({} vs {}): {outcome}{detail}, {} plies{time}",
        g.id, g.sente, g.gote, g.plies
    )
}

/// The standings after `games.len()` of `total` games: each player's points, rating (or `n/a`
/// and why) and LOS over the next, best first, and the SPRT's line when there is one.
pub fn standings_line(
    playing: &[String],
    games: &[GameResult],
    total: u64,
    sprt: Option<&str>,
) -> String {
    let ratings = RunRatings::of(playing, games);
    let mut rows: Vec<(&String, f64, u64, &RunRating)> = ratings
        .players
        .iter()
        .map(|(name, r)| {
            let mine: Vec<f64> = games.iter().filter_map(|g| g.points_of(name)).collect();
            (name, mine.iter().sum::<f64>() + 0.0, mine.len() as u64, r)
        })
        .collect();
    rows.sort_by(|a, b| match (&a.3.rating, &b.3.rating) {
        (Some(x), Some(y)) => y.elo.total_cmp(&x.elo),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b.1.total_cmp(&a.1),
    });
    let parts: Vec<String> = rows
        .iter()
        .map(|(name, points, n, r)| {
            let rating = match (&r.rating, &r.unrated) {
                (Some(e), _) => fmt_rating(Some(e)),
                (None, Some(why)) => format!("n/a ({why})"),
                (None, None) => "n/a".into(),
            };
            let los = r
                .los
                .map_or(String::new(), |l| format!(" LOS {:.0}%", 100.0 * l));
            format!("{name} {points}/{n} {rating}{los}")
        })
        .collect();
    let mut line = format!(
        "Standings after {} of {total} games: {}",
        games.len(),
        parts.join(", ")
    );
    if let Some(t) = sprt {
        line.push_str("; ");
        line.push_str(t);
    }
    line
}

/// A progress bar on stderr (hidden when `show` is false or stderr is not a terminal).
pub fn progress_bar(total: u64, show: bool) -> ProgressBar {
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30.cyan/blue} {pos}/{len} games [{elapsed_precise} < {eta}] {msg}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}

/// The live score for the progress bar: points per playing player.
pub fn live_score(playing: &[String], games: &[GameResult]) -> String {
    playing
        .iter()
        .map(|p| {
            // `+ 0.0`: the empty sum of floats is -0.
            let pts: f64 = games.iter().filter_map(|g| g.points_of(p)).sum::<f64>() + 0.0;
            format!("{p} {pts}")
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
