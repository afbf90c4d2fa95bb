//! What a run shows a person: the closing standings table (from `summary.json`'s
//! [`Summary`]) and the progress bar with its live score. The summary's numbers are computed in
//! the schema crate; this file only formats them.

use std::fmt::Write as _;
use std::time::Duration;

use council_schema::results::GameResult;
use council_schema::run::summary::{PlayerSummary, Summary};
use council_schema::stats::SprtStatus;
use indicatif::{ProgressBar, ProgressStyle};

fn fmt_elo(elo: Option<f64>, err: Option<f64>) -> String {
    match (elo, err) {
        (Some(e), Some(x)) if x.is_finite() => format!("{e:+.0} ± {x:.0}"),
        (Some(e), _) => format!("{e:+.0}"),
        _ => "-".into(),
    }
}

/// The standings table and council statistics as text.
pub fn standings_table(s: &Summary) -> String {
    let mut out = String::new();
    let mut players: Vec<&PlayerSummary> = s.players.iter().collect();
    players.sort_by(|a, b| b.points.total_cmp(&a.points));
    let width = players
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:>2}  {:<width$}  {:>5}  {:>4}  {:>4}  {:>4}  {:>6}  {:>6}  {:>12}  {:>10}  {:>11}",
        "#",
        "player",
        "games",
        "W",
        "D",
        "L",
        "points",
        "score",
        "elo (95%)",
        "engine/mv",
        "overhead/mv"
    );
    for (i, p) in players.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>2}  {:<width$}  {:>5}  {:>4}  {:>4}  {:>4}  {:>6.1}  {:>5.1}%  {:>12}  {:>8.1}ms  {:>9.0}µs",
            i + 1,
            p.name,
            p.games,
            p.wins,
            p.draws,
            p.losses,
            p.points,
            100.0 * p.score,
            fmt_elo(p.elo, p.elo_error),
            p.engine_ms_per_move,
            p.overhead_us_per_move,
        );
    }
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
    for c in &s.councils {
        fitted.extend(
            c.member_win_rate_t
                .iter()
                .filter_map(|(m, t)| t.map(|t| format!("{}/{m} {t:.0}", c.name))),
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

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}%", 100.0 * x))
}

/// A progress bar on stderr (hidden when `show` is false or stderr is not a terminal).
pub fn progress_bar(total: u64, show: bool) -> ProgressBar {
    if !show {
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
            let pts: f64 = games.iter().filter_map(|g| g.points_of(p)).sum();
            format!("{p} {pts}")
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
