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

use council_schema::config::{Config, Openings, PlayerKind};
use council_schema::results::{GameResult, Reason, Winner};
use council_schema::run::ratings::RunRating;
use council_schema::run::schedule::GameSpec;
use council_schema::run::summary::{PlayerSummary, Summary, SummaryTally};
use council_schema::stats::rating_fit::Estimate;
use council_schema::stats::{EloEstimate, Sprt, SprtStatus};
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
    /// fastchess's or cutechess's lines instead of council's (a run from their command line):
    /// a line per started and finished game, their report every `report_every` games and at
    /// the end.
    pub field: Option<FieldFormat>,
}

impl ConsoleOptions {
    /// Nothing printed while playing (`--quiet`): the field format's final report is left out
    /// too.
    fn progress_only_quiet(&self) -> bool {
        !self.game_lines && self.report_every == 0
    }

    /// `--quiet`: nothing but errors and the closing table.
    pub const QUIET: ConsoleOptions = ConsoleOptions {
        progress: false,
        game_lines: false,
        report_every: 0,
        field: None,
    };
}

/// The run's console while it plays: the bar, and the lines printed above it.
pub(crate) struct Console {
    bar: ProgressBar,
    options: ConsoleOptions,
    /// Games the run will have played at its end.
    total: u64,
    /// The field format's report, when the run prints one.
    field: Option<FieldReport>,
    /// The SPRT's first decision (the field format's last line names it).
    decision: std::sync::Mutex<Option<SprtStatus>>,
    /// Finished games when the field format's report was last printed (the final report is
    /// not printed twice).
    reported_at: std::sync::atomic::AtomicU64,
}

impl Console {
    pub(crate) fn new(options: ConsoleOptions, config: &Config, total: u64, done: u64) -> Self {
        let bar = progress_bar(total, options.progress);
        bar.set_position(done);
        Self {
            bar,
            options,
            total,
            field: options.field.map(|f| FieldReport::new(config, f)),
            decision: std::sync::Mutex::new(None),
            reported_at: std::sync::atomic::AtomicU64::new(u64::MAX),
        }
    }

    /// A game starts: the field format's `Started game` line.
    pub(crate) fn game_started(&self, spec: &GameSpec) {
        if self.field.is_some() && self.options.game_lines {
            let line = field_started(spec.id, self.total, &spec.sente, &spec.gote);
            self.bar.suspend(|| println!("{line}"));
        }
    }

    /// A game ended, in the field format: its line, cutechess's score line, the report when
    /// its turn has come.
    fn field_game_ended(&self, f: &FieldReport, game: &GameResult, finished: &SummaryTally) {
        let mut out = String::new();
        if self.options.game_lines {
            out.push_str(&field_finished(game));
            out.push('\n');
            if f.format.output == OutputFormat::Cutechess {
                let (a, b) = f.pairing(game);
                out.push_str(&f.score_line(a, b, finished));
                out.push('\n');
            }
        }
        if let Ok(mut d) = self.decision.lock()
            && d.is_none()
        {
            *d = f.decision(finished).filter(|s| *s != SprtStatus::Continue);
        }
        let n = finished.games();
        if self.options.report_every > 0 && n.is_multiple_of(self.options.report_every) {
            out.push_str(&f.interval(finished));
            self.reported_at
                .store(n, std::sync::atomic::Ordering::Relaxed);
        }
        if !out.is_empty() {
            self.bar.suspend(|| print!("{out}"));
        }
    }

    pub(crate) fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// A game ended: its line, and the standings when their turn has come. `finished` counts
    /// every finished game of the run, this one included; `sprt` is the running test's line.
    pub(crate) fn game_ended(
        &self,
        game: &GameResult,
        playing: &[String],
        finished: &SummaryTally,
        sprt: Option<String>,
    ) {
        self.bar.inc(1);
        if let Some(f) = &self.field {
            self.field_game_ended(f, game, finished);
            return;
        }
        let mut lines = Vec::new();
        if self.options.game_lines {
            lines.push(game_line(game));
        }
        let n = finished.games();
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

    /// The run is over: the bar goes; the field format prints its final report and last line.
    pub(crate) fn finish(&self, finished: &SummaryTally) {
        self.bar.finish_and_clear();
        if let Some(f) = &self.field
            && !self.options.progress_only_quiet()
        {
            let mut out = String::new();
            if f.format.output == OutputFormat::Cutechess && f.playing.len() == 2 {
                out.push_str(&f.score_line(&f.playing[0], &f.playing[1], finished));
                out.push('\n');
            }
            let n = finished.games();
            if self.reported_at.load(std::sync::atomic::Ordering::Relaxed) != n {
                out.push_str(&f.interval(finished));
            }
            let decision = self.decision.lock().ok().and_then(|d| *d);
            out.push_str(&f.end_line(decision));
            out.push('\n');
            print!("{out}");
        }
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

/// The standings after the `games` counted of `total` games: each player's points, rating (or
/// `n/a` and why) and LOS over the next, best first, and the SPRT's line when there is one.
pub fn standings_line(
    playing: &[String],
    games: &SummaryTally,
    total: u64,
    sprt: Option<&str>,
) -> String {
    let ratings = games.ratings_as_played(playing);
    let mut rows: Vec<(&String, f64, u64, &RunRating)> = ratings
        .players
        .iter()
        .map(|(name, r)| {
            let (points, n) = games.points(name);
            (name, points + 0.0, n, r)
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
        games.games(),
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
pub fn live_score(playing: &[String], games: &SummaryTally) -> String {
    playing
        .iter()
        .map(|p| {
            // `+ 0.0`: the empty sum of floats is -0.
            let pts = games.points(p).0 + 0.0;
            format!("{p} {pts}")
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

// ---------------------------------------------------------------------------------------------
// fastchess's and cutechess's console formats, for a run from their command line
// (`council_schema::config::flags`): the lines their readers parse (test workers match
// `Finished game (\d+) \((.+) vs (.+)\): (1-0|0-1|1/2-1/2)`), with their number formats. The
// numbers are council's statistics (`stats::HeadToHead`, `EloEstimate`, `Sprt`); only the
// text is theirs. Games are named (sente vs gote) and `1-0` is a sente win, as Shogitest
// prints them.

/// Which tool's lines a run prints, and whether its reports are pentanomial (`-report penta=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldFormat {
    pub output: OutputFormat,
    pub penta: bool,
}

pub use council_schema::config::flags::OutputFormat;

/// A number as fmt's `{:.2f}` writes it (`nan`, `inf`, `-inf` included).
fn fixed(x: f64, digits: usize) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x:.digits$}")
    }
}

/// A number as fmt's `{:.2g}` writes an increment in seconds (two significant digits, no
/// trailing zeros).
fn general2(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return fixed(x, 0);
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-4..2).contains(&exp) {
        return format!("{x:.1e}");
    }
    let decimals = (1 - exp).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The result as PGN writes it: `1-0` sente won, `0-1` gote won, `1/2-1/2`, `*` no result.
pub fn pgn_result(g: &GameResult) -> &'static str {
    match (g.reason, g.result) {
        (Reason::Aborted, _) => "*",
        (_, Winner::Sente) => "1-0",
        (_, Winner::Gote) => "0-1",
        (_, Winner::Draw) => "1/2-1/2",
    }
}

/// How the game ended, in the words Shogitest writes between the braces.
pub fn ending_words(g: &GameResult) -> String {
    let (winner, loser) = match g.result {
        Winner::Sente => ("Sente", "Gote"),
        Winner::Gote => ("Gote", "Sente"),
        Winner::Draw => ("", ""),
    };
    match g.reason {
        Reason::Checkmate => format!("{winner} mates"),
        Reason::Resign => format!("{loser} resigns"),
        Reason::Repetition => "Draw by 4-fold repetition".into(),
        Reason::PerpetualCheck => format!("{loser} makes an illegal perpetual check"),
        Reason::Impasse => format!("{winner} wins by impasse"),
        Reason::IllegalImpasse => format!("{loser} makes an illegal impasse declaration"),
        Reason::MaxPlies => "Draw by adjudication: Reached move limit".into(),
        Reason::Adjudication => format!("{winner} wins by adjudication"),
        Reason::DrawAdjudication => "Draw by adjudication".into(),
        Reason::IllegalMove | Reason::MalformedMove => format!("{loser} makes an illegal move"),
        Reason::Timeout => format!("{loser} loses on time"),
        Reason::Crash => format!("{loser} disconnects"),
        Reason::Aborted => "aborted".into(),
        _ => g.reason.name().into(),
    }
}

/// `Started game 3 of 40 (dev vs base)`: game ids count from 1.
pub fn field_started(id: u64, total: u64, sente: &str, gote: &str) -> String {
    format!("Started game {} of {total} ({sente} vs {gote})", id + 1)
}

/// `Finished game 3 (dev vs base): 1-0 {Sente mates}`.
pub fn field_finished(g: &GameResult) -> String {
    format!(
        "Finished game {} ({} vs {}): {} {{{}}}",
        g.id + 1,
        g.sente,
        g.gote,
        pgn_result(g),
        ending_words(g)
    )
}

/// What fastchess's report header says of a player: its time control, threads and hash.
#[derive(Debug, Clone, PartialEq)]
struct Setup {
    tc: String,
    threads: String,
    hash: String,
}

impl Setup {
    fn of(config: &Config, name: &str) -> Self {
        let p = config.player(name);
        let l = &p.limits;
        let secs = |ms: u64| ms as f64 / 1000.0;
        let tc =
            if l.time_ms.unwrap_or(0) + l.increment_ms.unwrap_or(0) > 0 && l.byoyomi_ms.is_none() {
                let inc = l
                    .increment_ms
                    .filter(|&i| i > 0)
                    .map_or(String::new(), |i| format!("+{}", general2(secs(i))));
                format!("{}{inc}", secs(l.time_ms.unwrap_or(0)))
            } else if let Some(b) = l.byoyomi_ms {
                format!("{},{}", secs(l.time_ms.unwrap_or(0)), secs(b))
            } else if let Some(t) = l.movetime_ms {
                format!("{}/move", secs(t))
            } else if let Some(d) = l.depth {
                format!("{d} plies")
            } else if let Some(n) = l.nodes {
                format!("{n} nodes")
            } else {
                String::new()
            };
        let option = |names: &[&str]| match &p.kind {
            PlayerKind::Usi(u) => names.iter().find_map(|n| {
                u.options
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, v)| v.to_string())
            }),
            _ => None,
        };
        Self {
            tc,
            threads: option(&["Threads"]).map_or("NULL".into(), |v| format!("{v}t")),
            hash: option(&["USI_Hash", "Hash"]).map_or("NULL".into(), |v| format!("{v}MB")),
        }
    }
}

/// `a` when both are the same, else `a - b`.
fn both(a: &str, b: &str) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a} - {b}")
    }
}

/// A player's results against all its opponents, as fastchess's `Stats`.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    wdl: council_schema::stats::Wdl,
    penta: council_schema::stats::Pentanomial,
}

impl Tally {
    fn between(games: &SummaryTally, player: &str, opponent: &str) -> Self {
        let h = games.head_to_head(player, opponent);
        Self {
            wdl: h.wdl,
            penta: h.pentanomial,
        }
    }

    fn all(games: &SummaryTally, playing: &[String], player: &str) -> Self {
        let mut t = Tally::default();
        for o in playing.iter().filter(|o| *o != player) {
            let h = Self::between(games, player, o);
            t.wdl.wins += h.wdl.wins;
            t.wdl.draws += h.wdl.draws;
            t.wdl.losses += h.wdl.losses;
            let (a, b) = (&mut t.penta, h.penta);
            a.ll += b.ll;
            a.ld += b.ld;
            a.wl += b.wl;
            a.dd += b.dd;
            a.wd += b.wd;
            a.ww += b.ww;
        }
        t
    }

    fn games(&self) -> u64 {
        self.wdl.games()
    }

    fn points_ratio(&self) -> f64 {
        self.wdl.points() / self.games() as f64 * 100.0
    }

    fn draw_ratio(&self, penta: bool) -> f64 {
        if penta {
            (self.penta.wl + self.penta.dd) as f64 / self.penta.pairs() as f64 * 100.0
        } else {
            100.0 * self.wdl.draws as f64 / self.games() as f64
        }
    }

    fn penta_text(&self) -> String {
        let p = &self.penta;
        format!("[{}, {}, {}, {}, {}]", p.ll, p.ld, p.wl + p.dd, p.wd, p.ww)
    }
}

/// Elo, its error, nElo, its error and LOS as fastchess computes them (a score of 0 or 1, or
/// an interval past it, gives its infinities and NaNs).
#[derive(Debug, Clone, Copy)]
struct FieldElo {
    elo: f64,
    error: f64,
    nelo: f64,
    nelo_error: f64,
    los: f64,
}

impl FieldElo {
    fn of(t: &Tally, penta: bool) -> Self {
        let e = if penta {
            EloEstimate::from_pentanomial(&t.penta)
        } else {
            EloEstimate::from_wdl(&t.wdl)
        };
        match e {
            None => Self {
                elo: f64::NAN,
                error: f64::NAN,
                nelo: f64::NAN,
                nelo_error: f64::NAN,
                los: f64::NAN,
            },
            Some(e) if e.clamped => Self {
                elo: council_schema::stats::elo::elo_from_score(e.score),
                error: f64::NAN,
                nelo: e.nelo,
                nelo_error: e.nelo_error,
                los: e.los,
            },
            Some(e) => Self {
                elo: e.elo,
                error: e.elo_error,
                nelo: e.nelo,
                nelo_error: e.nelo_error,
                los: e.los,
            },
        }
    }
}

/// What a field-format console needs of the run: the players, their setups, the book, the
/// test.
#[derive(Debug, Clone)]
pub struct FieldReport {
    format: FieldFormat,
    playing: Vec<String>,
    setups: Vec<Setup>,
    book: Option<String>,
    sprt: Option<Sprt>,
}

impl FieldReport {
    pub fn new(config: &Config, format: FieldFormat) -> Self {
        let book = match &config.openings {
            Openings::File { path, .. } => {
                path.file_name().map(|f| f.to_string_lossy().into_owned())
            }
            _ => None,
        };
        Self {
            format,
            playing: config.playing.clone(),
            setups: config
                .playing
                .iter()
                .map(|n| Setup::of(config, n))
                .collect(),
            book,
            sprt: config.sprt,
        }
    }

    /// The pairing a game belongs to, in the order the players were given.
    fn pairing<'a>(&self, g: &'a GameResult) -> (&'a str, &'a str) {
        let at = |n: &str| self.playing.iter().position(|p| p == n);
        if at(&g.gote) < at(&g.sente) {
            (&g.gote, &g.sente)
        } else {
            (&g.sente, &g.gote)
        }
    }

    /// cutechess's line after every game: `Score of A vs B: W - L - D  [0.537] N`.
    pub fn score_line(&self, first: &str, second: &str, games: &SummaryTally) -> String {
        let t = Tally::between(games, first, second);
        let score = t.wdl.points() / t.games() as f64;
        format!(
            "Score of {first} vs {second}: {} - {} - {}  [{}] {}",
            t.wdl.wins,
            t.wdl.losses,
            t.wdl.draws,
            fixed(score, 3),
            t.games()
        )
    }

    /// The SPRT's LLR on the games so far (the first player's), pentanomial or by game.
    fn llr(&self, sprt: &Sprt, games: &SummaryTally) -> f64 {
        let t = Tally::between(games, &self.playing[0], &self.playing[1]);
        if self.format.penta {
            sprt.llr_pentanomial(&t.penta)
        } else {
            sprt.llr_trinomial(&t.wdl)
        }
    }

    /// The report every `-ratinginterval` games and at the end: fastchess's block between two
    /// rules, or cutechess's lines.
    pub fn interval(&self, games: &SummaryTally) -> String {
        let penta = self.format.penta && self.format.output == OutputFormat::Fastchess;
        let mut out = String::new();
        let rule = "--------------------------------------------------\n";
        if self.format.output == OutputFormat::Fastchess {
            out.push_str(rule);
        }
        if self.playing.len() == 2 {
            let t = Tally::between(games, &self.playing[0], &self.playing[1]);
            let e = FieldElo::of(&t, penta);
            match self.format.output {
                OutputFormat::Fastchess => {
                    let (a, b) = (&self.setups[0], &self.setups[1]);
                    let book = self
                        .book
                        .as_ref()
                        .map_or(String::new(), |b| format!(", {b}"));
                    let _ = writeln!(
                        out,
                        "Results of {} vs {} ({}, {}, {}{book}):",
                        self.playing[0],
                        self.playing[1],
                        both(&a.tc, &b.tc),
                        both(&a.threads, &b.threads),
                        both(&a.hash, &b.hash)
                    );
                    let _ = writeln!(
                        out,
                        "Elo: {} +/- {}, nElo: {} +/- {}",
                        fixed(e.elo, 2),
                        fixed(e.error, 2),
                        fixed(e.nelo, 2),
                        fixed(e.nelo_error, 2)
                    );
                    let pairs_ratio = if penta {
                        let p = &t.penta;
                        format!(
                            ", PairsRatio: {}",
                            fixed((p.ww + p.wd) as f64 / (p.ld + p.ll) as f64, 2)
                        )
                    } else {
                        String::new()
                    };
                    let _ = writeln!(
                        out,
                        "LOS: {} %, DrawRatio: {} %{pairs_ratio}",
                        fixed(e.los * 100.0, 2),
                        fixed(t.draw_ratio(penta), 2)
                    );
                    let _ = writeln!(
                        out,
                        "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {} ({} %)",
                        t.games(),
                        t.wdl.wins,
                        t.wdl.losses,
                        t.wdl.draws,
                        fixed(t.wdl.points(), 1),
                        fixed(t.points_ratio(), 2)
                    );
                    if penta {
                        let _ = writeln!(
                            out,
                            "Ptnml(0-2): {}, WL/DD Ratio: {}",
                            t.penta_text(),
                            fixed(t.penta.wl as f64 / t.penta.dd as f64, 2)
                        );
                    }
                }
                OutputFormat::Cutechess => {
                    let _ = writeln!(
                        out,
                        "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
                        fixed(e.elo, 2),
                        fixed(e.error, 2),
                        fixed(e.los * 100.0, 2),
                        fixed(t.draw_ratio(false), 2)
                    );
                }
            }
        } else {
            out.push_str(&self.table(games, penta));
        }
        if let Some(sprt) = &self.sprt {
            let llr = self.llr(sprt, games);
            let (lower, upper) = sprt.bounds();
            match self.format.output {
                OutputFormat::Fastchess => {
                    let fraction = if llr >= 0.0 {
                        llr / upper
                    } else {
                        -llr / lower
                    };
                    let _ = writeln!(
                        out,
                        "LLR: {} ({}%) ({}, {}) [{}, {}]",
                        fixed(llr, 2),
                        fixed(fraction * 100.0, 1),
                        fixed(lower, 2),
                        fixed(upper, 2),
                        fixed(sprt.elo0, 2),
                        fixed(sprt.elo1, 2)
                    );
                }
                OutputFormat::Cutechess => {
                    let pct = if llr < 0.0 { llr / lower } else { llr / upper } * 100.0;
                    let verdict = if llr >= upper {
                        " - H1 was accepted"
                    } else if llr < lower {
                        " - H0 was accepted"
                    } else {
                        ""
                    };
                    let _ = writeln!(
                        out,
                        "SPRT: llr {} ({}%), lbound {}, ubound {}{verdict}",
                        fixed(llr, 2),
                        fixed(pct, 1),
                        fixed(lower, 2),
                        fixed(upper, 2)
                    );
                }
            }
        }
        if self.format.output == OutputFormat::Fastchess {
            out.push_str(rule);
        }
        out
    }

    /// The standings of more than two players: fastchess's (or cutechess's) rank table.
    fn table(&self, games: &SummaryTally, penta: bool) -> String {
        let mut rows: Vec<(&String, Tally, FieldElo)> = self
            .playing
            .iter()
            .map(|p| {
                let t = Tally::all(games, &self.playing, p);
                (p, t, FieldElo::of(&t, penta))
            })
            .collect();
        rows.sort_by(|a, b| {
            let (x, y) = (a.2.elo, b.2.elo);
            match (x.is_nan(), y.is_nan()) {
                (false, true) => std::cmp::Ordering::Less,
                (true, false) => std::cmp::Ordering::Greater,
                _ => y.partial_cmp(&x).unwrap_or(std::cmp::Ordering::Equal),
            }
        });
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(25);
        let mut out = String::new();
        let fast = self.format.output == OutputFormat::Fastchess;
        let _ = write!(
            out,
            "{:<4} {:<w$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw"
        );
        if fast {
            let _ = write!(out, " {:>20}", "Ptnml(0-2)");
        }
        out.push('\n');
        for (i, (name, t, e)) in rows.iter().enumerate() {
            let _ = write!(
                out,
                "{:>4} {:<w$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}% {:>9}%",
                i + 1,
                name,
                fixed(e.elo, 2),
                fixed(e.error, 2),
                fixed(e.nelo, 2),
                fixed(e.nelo_error, 2),
                t.games(),
                fixed(t.points_ratio(), 1),
                fixed(t.draw_ratio(penta), 1)
            );
            if fast {
                let penta_text = if penta { t.penta_text() } else { String::new() };
                let _ = write!(out, " {penta_text:>20}");
            }
            out.push('\n');
        }
        out
    }

    /// The last line: the SPRT's decision, or `Tournament finished`.
    pub fn end_line(&self, decision: Option<SprtStatus>) -> String {
        match (self.format.output, &self.sprt, decision) {
            (
                OutputFormat::Fastchess,
                Some(s),
                Some(d @ (SprtStatus::AcceptH0 | SprtStatus::AcceptH1)),
            ) => {
                format!(
                    "SPRT ([{}, {}]) completed - {} was accepted",
                    fixed(s.elo0, 2),
                    fixed(s.elo1, 2),
                    if d == SprtStatus::AcceptH0 {
                        "H0"
                    } else {
                        "H1"
                    }
                )
            }
            _ => "Tournament finished".into(),
        }
    }

    /// The SPRT's state on these games.
    fn decision(&self, games: &SummaryTally) -> Option<SprtStatus> {
        let sprt = self.sprt.as_ref()?;
        Some(sprt.status(self.llr(sprt, games)))
    }
}
