//! The match report: `summary.json` (standings, Elo, council statistics, costs). The readable
//! standings table printed at the end and the progress bar's live score are the play crate's
//! (`runner::report`).
//!
//! Invariant: everything here is derived from the finished games' results lines only, so a
//! resumed run reports exactly what a run without interruption would. Elo numbers come from
//! `crate::stats`; this module only gathers them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::by_family::{ByFamily, FamilyTally};
use super::plan::RunPlan;
use super::ratings::{MIN_RATED_GAMES, RatingFit, RunRatings};
use crate::results::GameResult;
use crate::stats::rating_fit::Estimate;
use crate::stats::table::GameTable;
use crate::stats::win_rate_scale::{MAX_CP, fit_counted};
use crate::stats::{EloEstimate, HeadToHead, HeadToHeadTally, SprtSummary};

/// One opponent as seen by a player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpponentSummary {
    pub name: String,
    pub games: u64,
    pub points: f64,
    pub score: f64,
    pub elo: Option<f64>,
    pub elo_error: Option<f64>,
}

/// One player's line of the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerSummary {
    pub name: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub points: f64,
    /// Points per game, in `[0, 1]`.
    pub score: f64,
    /// Elo difference against the field of its opponents, with its 95% error (the older
    /// estimate, kept for scripts: a 0% or 100% score is clamped; `rating` is the one shown).
    pub elo: Option<f64>,
    pub elo_error: Option<f64>,
    /// Its rating as `council-elo` fits the run's games (pool mean 0, 95% interval); `None`
    /// when `unrated` says why (absent in files written by older builds).
    #[serde(default)]
    pub rating: Option<Estimate>,
    /// The probability that it is stronger than `los_over`, the next player down in rating
    /// order.
    #[serde(default)]
    pub los: Option<f64>,
    #[serde(default)]
    pub los_over: Option<String>,
    /// Why it has no rating (too few games, a fit that failed).
    #[serde(default)]
    pub unrated: Option<String>,
    pub opponents: Vec<OpponentSummary>,
    /// Moves it played.
    pub moves: u64,
    /// Mean engine thinking per move, ms.
    pub engine_ms_per_move: f64,
    /// Mean time the orchestrator itself spent per move (wall time minus engine thinking), µs.
    pub overhead_us_per_move: f64,
    /// The win-rate constant `T` that best fits its reported scores to its results
    /// (`council::scale`), for the config's `win_rate_t`; `None` when there is no fit.
    pub fitted_win_rate_t: Option<f64>,
    /// Why `fitted_win_rate_t` is `None`: no data, or a likelihood that rises to a bound of the
    /// search (absent in files written by older builds).
    #[serde(default)]
    pub win_rate_t_unfitted: Option<String>,
    /// Moves asked after pondering on the reply the opponent played (`ponder = true`; 0 in
    /// files written by older builds).
    #[serde(default)]
    pub ponder_hits: u64,
    /// Moves asked after pondering on another reply.
    #[serde(default)]
    pub ponder_misses: u64,
    /// `ponder_hits / (ponder_hits + ponder_misses)`; `null` when it never pondered.
    #[serde(default)]
    pub ponder_hit_rate: Option<f64>,
}

/// One council member's time per move, from its ballots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemberTime {
    /// Moves it was asked for (not counting moves it sat out).
    pub ballots: u64,
    /// Mean time until it answered or was stopped, ms.
    pub mean_ms: f64,
    pub max_ms: u64,
    /// Ballots that were late: it had not answered by the council's deadline.
    pub late: u64,
}

/// Statistics of one council's decisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CouncilSummary {
    pub name: String,
    pub members: Vec<String>,
    /// Decisions taken.
    pub moves: u64,
    /// `agreement[i][j]`: fraction of decisions in which members `i` and `j` both voted and
    /// voted the same move.
    pub agreement: Vec<Vec<Option<f64>>>,
    /// Per member: fraction of its votes that the council did not play.
    pub differed_from: BTreeMap<String, Option<f64>>,
    /// Fraction of decisions in which the council overrode its strongest member.
    pub overrode_strongest: f64,
    /// How often each rule decided.
    pub rules: BTreeMap<String, u64>,
    /// Member answers that could not be voted on (crash, timeout, illegal move...).
    pub member_failures: BTreeMap<String, u64>,
    /// Per member: the win-rate constant `T` fitted from its scores and the council's results
    /// (absent in files written by older builds).
    #[serde(default)]
    pub member_win_rate_t: BTreeMap<String, Option<f64>>,
    /// Per member without a fitted `T`: why.
    #[serde(default)]
    pub member_win_rate_t_unfitted: BTreeMap<String, String>,
    /// Per member: its time per move and late ballots (empty in files written by older
    /// builds).
    #[serde(default)]
    pub member_time: BTreeMap<String, MemberTime>,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub config: String,
    pub seed: u64,
    pub games: u64,
    pub played_this_session: u64,
    /// This session's wall time, seconds.
    pub wall_seconds: f64,
    /// The run's playing time, seconds: the time during which at least one of its games was
    /// being played, over every session of a resumed run (from the games' recorded intervals);
    /// `null` when a game has no timing (a line from an older build).
    pub playing_seconds: Option<f64>,
    /// Finished games per minute of `playing_seconds`; `null` when that is unknown.
    pub games_per_minute: Option<f64>,
    pub players: Vec<PlayerSummary>,
    /// How the players' `rating`s were fitted; `null` when none was (absent in files written
    /// by older builds).
    #[serde(default)]
    pub ratings: Option<RatingFit>,
    pub councils: Vec<CouncilSummary>,
    /// How games ended: reason -> count.
    pub reasons: BTreeMap<String, u64>,
    /// Results by opening family: family key (or `unlabelled`) -> its games, share and each
    /// player's score there. Empty in a summary written by an older build.
    #[serde(default)]
    pub by_family: ByFamily,
    /// The head-to-head's sequential test, when the config has `[match.sprt]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSummary>,
    /// The shard of the run these games are (`--shard`); absent for a whole or merged run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<super::shard::Shard>,
    /// The program that wrote this file; absent in files written by older builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<crate::written_by::WrittenBy>,
}

/// A `summary.json` that cannot be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {cause}", path.display())]
pub struct SummaryWriteError {
    pub path: PathBuf,
    pub cause: std::io::Error,
}

/// A `summary.json` that cannot be read back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SummaryReadError {
    #[error("cannot read {}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}: not a summary: {problem}", path.display())]
    Malformed { path: PathBuf, problem: String },
}

impl Summary {
    /// Write `DIR/summary.json`; an error names the file.
    pub fn write(&self, dir: &Path) -> Result<(), SummaryWriteError> {
        let path = dir.join("summary.json");
        // Plain data with string keys: serializing cannot fail.
        let json = serde_json::to_string_pretty(self).unwrap_or_default();
        std::fs::write(&path, json).map_err(|cause| SummaryWriteError { path, cause })
    }

    /// Read `DIR/summary.json` (as written by this build or an older one).
    pub fn read(dir: &Path) -> Result<Summary, SummaryReadError> {
        let path = dir.join("summary.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(cause) => return Err(SummaryReadError::Io { path, cause }),
        };
        serde_json::from_str(&text).map_err(|e| SummaryReadError::Malformed {
            path,
            problem: e.to_string(),
        })
    }

    /// The summary of `games` (in any order): [`SummaryTally`] over them.
    pub fn new(
        config: &RunPlan,
        games: &[GameResult],
        seed: u64,
        played_now: usize,
        wall: Duration,
    ) -> Self {
        let mut tally = SummaryTally::new(&config.playing);
        for g in games {
            tally.add(g);
        }
        tally.summary(config, seed, played_now, wall)
    }
}

/// What `summary.json` says of a run's games, kept as running counts: each finished game is
/// added once, in any order, and nothing of it is kept but counts, so a run of a million games
/// holds about what a run of a hundred does (the exceptions, each small: one span per stretch of
/// play with no game running, one entry per colour-swapped pair number seen, the distinct
/// `(score, result)` pairs below [`MAX_CP`](crate::stats::win_rate_scale) per player).
///
/// Invariant: [`SummaryTally::summary`] depends on the set of games added, not on their order:
/// players are numbered for the rating fit in order of first appearance by game id, as a fit
/// of the games sorted by id numbers them; the sequence of games added decides only the
/// as-played views ([`SummaryTally::ratings_as_played`], [`SummaryTally::head_to_head`]), which
/// a run's console shows while it plays.
#[derive(Debug, Clone, Default)]
pub struct SummaryTally {
    playing: Vec<String>,
    games: u64,
    reasons: BTreeMap<String, u64>,
    /// Every game with a result, numbered in the order the games were added.
    table: GameTable,
    /// Per player and handicap type of `table`: its first game (id, then sente before gote).
    first_player: BTreeMap<String, (u64, u8)>,
    first_handicap: BTreeMap<String, u64>,
    players: BTreeMap<String, PlayerTally>,
    /// Per unordered pairing `(a, b)`, `a < b`: its games, and its results from `a`'s side.
    pairings: BTreeMap<(String, String), (u64, HeadToHeadTally)>,
    councils: CouncilTally,
    families: FamilyTally,
    spans: Spans,
}

/// One player's counts.
#[derive(Debug, Clone, Default)]
struct PlayerTally {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    points: f64,
    moves: u64,
    engine_us: u64,
    overhead_us: u64,
    ponder_hits: u64,
    ponder_misses: u64,
    samples: ScoreSamples,
}

/// `(score_cp, points)` samples for a win-rate fit, counted: at most one entry per score
/// within [`MAX_CP`](crate::stats::win_rate_scale) and result, however many moves.
#[derive(Debug, Clone, Default)]
struct ScoreSamples(BTreeMap<(i32, u8), u64>);

impl ScoreSamples {
    fn add(&mut self, cp: i32, points: f64) {
        // Scores the fit leaves out are not kept.
        if f64::from(cp).abs() <= MAX_CP && (0.0..=1.0).contains(&points) {
            *self.0.entry((cp, (points * 2.0) as u8)).or_insert(0) += 1;
        }
    }

    /// The fitted `T` of these samples from `games` games, or why there is none. Fewer games
    /// than a rating needs give no fit: a `T` from two games reads as a finding and swings by
    /// orders of magnitude with the next two.
    fn win_rate_t(&self, games: u64) -> Result<f64, String> {
        if games < MIN_RATED_GAMES {
            return Err(format!("{games} games; a fit needs {MIN_RATED_GAMES}"));
        }
        fit_counted(
            self.0
                .iter()
                .map(|(&(cp, y), &n)| (f64::from(cp), f64::from(y) / 2.0, n)),
        )
        .map_err(|why| why.reason())
    }
}

/// The union of `[start, end]` intervals, as disjoint spans.
#[derive(Debug, Clone, Default)]
struct Spans {
    spans: BTreeMap<u64, u64>,
    /// A game without its timing was added (a line from an older build).
    untimed: bool,
}

impl Spans {
    fn add(&mut self, start: u64, end: u64) {
        let (mut start, mut end) = (start, end);
        if let Some((&s, &e)) = self.spans.range(..=start).next_back()
            && e >= start
        {
            start = s;
            end = end.max(e);
            self.spans.remove(&s);
        }
        while let Some((&s, &e)) = self.spans.range(start..).next() {
            if s > end {
                break;
            }
            end = end.max(e);
            self.spans.remove(&s);
        }
        self.spans.insert(start, end);
    }

    fn total(&self) -> Option<Duration> {
        if self.untimed || self.spans.is_empty() {
            return None;
        }
        Some(Duration::from_millis(
            self.spans.iter().map(|(s, e)| e - s).sum(),
        ))
    }
}

impl SummaryTally {
    /// Counts for a run of `playing`.
    pub fn new(playing: &[String]) -> Self {
        Self {
            playing: playing.to_vec(),
            ..Self::default()
        }
    }

    /// Games added.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Count one finished game.
    pub fn add(&mut self, g: &GameResult) {
        self.add_in_family(g, crate::results::family::family(g));
    }

    /// As [`Self::add`], the game's opening family being `family`: what
    /// [`family`](crate::results::family::family) finds, known to the caller without replaying
    /// the game again (see [`family_after_opening`](crate::results::family::family_after_opening)).
    pub fn add_in_family(&mut self, g: &GameResult, family: Option<engine::strategy::Family>) {
        self.games += 1;
        *self.reasons.entry(g.reason.name().to_string()).or_insert(0) += 1;
        if g.reason != crate::results::Reason::Aborted {
            self.table.add(g);
            for (side, name) in [(0u8, &g.sente), (1, &g.gote)] {
                let first = self
                    .first_player
                    .entry(name.clone())
                    .or_insert((g.id, side));
                *first = (*first).min((g.id, side));
            }
            if let Some(h) = &g.handicap {
                let first = self.first_handicap.entry(h.clone()).or_insert(g.id);
                *first = (*first).min(g.id);
            }
        }
        match (g.started_unix_ms, g.wall_ms) {
            (Some(s), Some(w)) => self.spans.add(s, s + w),
            _ => self.spans.untimed = true,
        }
        let opening = g.opening_len();
        // The players of the scored moves, by the parity of the move (one look at the start).
        let movers = [g.mover_at(opening), g.mover_at(opening + 1)];
        for name in &self.playing {
            let Some(y) = g.points_of(name) else { continue };
            let p = self.players.entry(name.clone()).or_default();
            p.games += 1;
            p.points += y;
            match y {
                1.0 => p.wins += 1,
                0.0 => p.losses += 1,
                _ => p.draws += 1,
            }
            for c in g.costs.iter().filter(|c| c.player == *name) {
                p.moves += u64::from(c.moves);
                p.engine_us += c.engine_us;
                p.overhead_us += c.overhead_us;
                p.ponder_hits += u64::from(c.ponder_hits);
                p.ponder_misses += u64::from(c.ponder_misses);
            }
            // `scores` covers the played moves, after any opening moves.
            for (k, score) in g.scores.iter().enumerate() {
                if movers[k % 2] == name
                    && let Some(engine::types::Score::Cp(cp)) = score
                {
                    p.samples.add(*cp, y);
                }
            }
        }
        let (a, b) = if g.sente <= g.gote {
            (&g.sente, &g.gote)
        } else {
            (&g.gote, &g.sente)
        };
        if a != b && self.playing.contains(a) && self.playing.contains(b) {
            let (n, h2h) = self
                .pairings
                .entry((a.clone(), b.clone()))
                .or_insert_with(|| (0, HeadToHeadTally::new(a, b)));
            *n += 1;
            h2h.add(g);
        }
        self.councils.add(g);
        self.families
            .add_in_row(&self.playing, g, crate::results::family::row_key(family));
    }

    /// `player`'s results against `opponent` so far, colour-swapped pairs counted as their
    /// games were added.
    pub fn head_to_head(&self, player: &str, opponent: &str) -> HeadToHead {
        let key = if player <= opponent {
            (player.to_string(), opponent.to_string())
        } else {
            (opponent.to_string(), player.to_string())
        };
        let Some((_, h2h)) = self.pairings.get(&key) else {
            return HeadToHead::default();
        };
        let h = h2h.head_to_head();
        if player <= opponent { h } else { h.flipped() }
    }

    /// `player`'s points and games with a result.
    pub fn points(&self, player: &str) -> (f64, u64) {
        self.players
            .get(player)
            .map_or((0.0, 0), |p| (p.points, p.games))
    }

    /// The ratings of `playing` from the games, players numbered as they first came (the
    /// standings while a run plays).
    pub fn ratings_as_played(&self, playing: &[String]) -> RunRatings {
        RunRatings::of_table(playing, &self.table)
    }

    /// `summary.json` of the games added.
    pub fn summary(
        &self,
        config: &RunPlan,
        seed: u64,
        played_now: usize,
        wall: Duration,
    ) -> Summary {
        let mut players: Vec<(&String, &(u64, u8))> = self.first_player.iter().collect();
        players.sort_by_key(|(_, first)| **first);
        let players: Vec<&str> = players.into_iter().map(|(n, _)| n.as_str()).collect();
        let mut handicaps: Vec<(&String, &u64)> = self.first_handicap.iter().collect();
        handicaps.sort_by_key(|(_, first)| **first);
        let handicaps: Vec<&str> = handicaps.into_iter().map(|(n, _)| n.as_str()).collect();
        let ratings =
            RunRatings::of_table(&config.playing, &self.table.reindexed(&players, &handicaps));
        let players = config
            .playing
            .iter()
            .map(|p| {
                let mut s = self.player_summary(p);
                if let Some(r) = ratings.of_player(p) {
                    // The closing table's numbers, or `null` where it says `n/a`.
                    s.elo = r.rating.map(|e| e.elo);
                    s.elo_error = r.rating.map(|e| e.error);
                    s.rating = r.rating;
                    s.los = r.los;
                    s.los_over.clone_from(&r.los_over);
                    s.unrated.clone_from(&r.unrated);
                }
                s
            })
            .collect();
        let playing = self.spans.total();
        Summary {
            config: config.config_file.clone(),
            seed,
            games: self.games,
            played_this_session: played_now as u64,
            wall_seconds: wall.as_secs_f64(),
            playing_seconds: playing.map(|d| d.as_secs_f64()),
            games_per_minute: playing
                .filter(|d| !d.is_zero())
                .map(|d| self.games as f64 / (d.as_secs_f64() / 60.0)),
            players,
            ratings: ratings.fit,
            councils: self.councils.summaries(),
            reasons: self.reasons.clone(),
            by_family: self.families.rows(self.games),
            sprt: None,
            shard: None,
            written_by: None,
        }
    }

    fn player_summary(&self, name: &str) -> PlayerSummary {
        let none = PlayerTally::default();
        let t = self.players.get(name).unwrap_or(&none);
        let mut s = PlayerSummary {
            name: name.to_string(),
            games: t.games,
            wins: t.wins,
            draws: t.draws,
            losses: t.losses,
            points: t.points,
            score: 0.0,
            elo: None,
            elo_error: None,
            rating: None,
            los: None,
            los_over: None,
            unrated: None,
            opponents: Vec::new(),
            moves: t.moves,
            engine_ms_per_move: 0.0,
            overhead_us_per_move: 0.0,
            fitted_win_rate_t: None,
            win_rate_t_unfitted: None,
            ponder_hits: t.ponder_hits,
            ponder_misses: t.ponder_misses,
            ponder_hit_rate: None,
        };
        let pondered = s.ponder_hits + s.ponder_misses;
        s.ponder_hit_rate = (pondered > 0).then(|| s.ponder_hits as f64 / pondered as f64);
        if s.games > 0 {
            s.score = s.points / s.games as f64;
        }
        if s.moves > 0 {
            s.engine_ms_per_move = t.engine_us as f64 / s.moves as f64 / 1000.0;
            s.overhead_us_per_move = t.overhead_us as f64 / s.moves as f64;
        }
        match t.samples.win_rate_t(s.games) {
            Ok(t) => s.fitted_win_rate_t = Some(t),
            Err(why) => s.win_rate_t_unfitted = Some(why),
        }
        for o in self.playing.iter().filter(|o| *o != name) {
            let key = if name <= o.as_str() {
                (name.to_string(), o.clone())
            } else {
                (o.clone(), name.to_string())
            };
            let Some(&(games, _)) = self.pairings.get(&key) else {
                continue;
            };
            let h = self.head_to_head(name, o);
            let pts = h.wdl.points();
            // As few games as leave a player unrated give no head-to-head number either.
            let (elo, elo_error) = if games >= MIN_RATED_GAMES {
                split(h.estimate())
            } else {
                (None, None)
            };
            s.opponents.push(OpponentSummary {
                name: o.clone(),
                games,
                points: pts,
                score: pts / games as f64,
                elo,
                elo_error,
            });
        }
        s
    }
}

/// The time during which at least one of `games` was being played: the union of their
/// `[started, started + wall]` intervals, so concurrent games count once and the pauses between
/// the sessions of a resumed run not at all. `None` when there are no games or one lacks its
/// timing.
#[cfg(test)]
pub(crate) fn playing_time(games: &[GameResult]) -> Option<Duration> {
    let mut spans = Spans::default();
    for g in games {
        match (g.started_unix_ms, g.wall_ms) {
            (Some(s), Some(w)) => spans.add(s, s + w),
            _ => spans.untimed = true,
        }
    }
    spans.total()
}

/// Per member pair: decisions where both voted, and where they also agreed.
type PairCounts = (Vec<Vec<u64>>, Vec<Vec<u64>>);

/// Every council's logged decisions, counted.
#[derive(Debug, Clone, Default)]
struct CouncilTally {
    by_name: BTreeMap<String, CouncilSummary>,
    /// Per council: pair counts (both voted, agreed), per member (voted, differed).
    pairs: BTreeMap<String, PairCounts>,
    diffs: BTreeMap<String, Vec<(u64, u64)>>,
    overrode: BTreeMap<String, u64>,
    member_samples: BTreeMap<(String, String), ScoreSamples>,
    /// Per council: the games it decided a move in.
    council_games: BTreeMap<String, u64>,
}

impl CouncilTally {
    fn add(&mut self, g: &GameResult) {
        let mut councils: Vec<&str> = g.votes.iter().map(|v| v.council.as_str()).collect();
        councils.sort_unstable();
        councils.dedup();
        for c in councils {
            *self.council_games.entry(c.to_string()).or_insert(0) += 1;
        }
        for v in &g.votes {
            let n = v.members.len();
            let s = self
                .by_name
                .entry(v.council.clone())
                .or_insert_with(|| CouncilSummary {
                    name: v.council.clone(),
                    members: v.members.iter().map(|m| m.name.clone()).collect(),
                    moves: 0,
                    agreement: Vec::new(),
                    differed_from: BTreeMap::new(),
                    overrode_strongest: 0.0,
                    rules: BTreeMap::new(),
                    member_failures: BTreeMap::new(),
                    member_win_rate_t: BTreeMap::new(),
                    member_win_rate_t_unfitted: BTreeMap::new(),
                    member_time: BTreeMap::new(),
                });
            if s.members.len() != n {
                continue;
            }
            s.moves += 1;
            *s.rules.entry(v.rule.name().to_string()).or_insert(0) += 1;
            *self.overrode.entry(v.council.clone()).or_insert(0) += u64::from(v.overrode_strongest);
            let (both, agreed) = self
                .pairs
                .entry(v.council.clone())
                .or_insert_with(|| (vec![vec![0; n]; n], vec![vec![0; n]; n]));
            let d = self
                .diffs
                .entry(v.council.clone())
                .or_insert_with(|| vec![(0, 0); n]);
            if let Some(y) = g.points_of(&v.council) {
                for m in &v.members {
                    if let Some(engine::types::Score::Cp(cp)) = m.score {
                        self.member_samples
                            .entry((v.council.clone(), m.name.clone()))
                            .or_default()
                            .add(cp, y);
                    }
                }
            }
            for (i, a) in v.members.iter().enumerate() {
                if a.error.is_some() {
                    *s.member_failures.entry(a.name.clone()).or_insert(0) += 1;
                }
                // A member sitting the move out has neither a move nor a time.
                if a.mv.is_some() || a.late || a.time_ms > 0 {
                    let t = s.member_time.entry(a.name.clone()).or_default();
                    t.ballots += 1;
                    // The sum until the end, when it becomes the mean.
                    t.mean_ms += a.time_ms as f64;
                    t.max_ms = t.max_ms.max(a.time_ms);
                    t.late += u64::from(a.late);
                }
                let Some(am) = &a.mv else { continue };
                d[i].0 += 1;
                d[i].1 += u64::from(*am != v.chosen);
                for (j, b) in v.members.iter().enumerate() {
                    if let Some(bm) = &b.mv {
                        both[i][j] += 1;
                        agreed[i][j] += u64::from(am == bm);
                    }
                }
            }
        }
    }

    fn summaries(&self) -> Vec<CouncilSummary> {
        let mut by_name = self.by_name.clone();
        for (name, s) in by_name.iter_mut() {
            if let Some((both, agreed)) = self.pairs.get(name) {
                s.agreement = both
                    .iter()
                    .zip(agreed)
                    .map(|(b, a)| {
                        b.iter()
                            .zip(a)
                            .map(|(&b, &a)| (b > 0).then(|| a as f64 / b as f64))
                            .collect()
                    })
                    .collect();
            }
            if let Some(d) = self.diffs.get(name) {
                for (m, &(voted, differed)) in s.members.iter().zip(d) {
                    s.differed_from.insert(
                        m.clone(),
                        (voted > 0).then(|| differed as f64 / voted as f64),
                    );
                }
            }
            if s.moves > 0 {
                s.overrode_strongest =
                    self.overrode.get(name).copied().unwrap_or(0) as f64 / s.moves as f64;
            }
            for t in s.member_time.values_mut() {
                t.mean_ms /= t.ballots.max(1) as f64;
            }
            let none = ScoreSamples::default();
            for m in &s.members {
                let samples = self
                    .member_samples
                    .get(&(name.clone(), m.clone()))
                    .unwrap_or(&none);
                let fitted = samples.win_rate_t(self.council_games.get(name).copied().unwrap_or(0));
                if let Err(why) = &fitted {
                    s.member_win_rate_t_unfitted.insert(m.clone(), why.clone());
                }
                s.member_win_rate_t.insert(m.clone(), fitted.ok());
            }
        }
        by_name.into_values().collect()
    }
}

fn split(e: Option<EloEstimate>) -> (Option<f64>, Option<f64>) {
    match e {
        // A clamped estimate (a 0% or 100% score) has no meaningful error bar.
        Some(e) => (
            Some(e.elo + 0.0).filter(|x| x.is_finite()),
            Some(e.elo_error).filter(|x| x.is_finite() && !e.clamped),
        ),
        None => (None, None),
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{SprtStatus, Wdl};

    fn timed(started: Option<u64>, wall: Option<u64>) -> GameResult {
        let line = serde_json::json!({
            "id": 0, "sente": "a", "gote": "b", "start": "startpos", "moves": [],
            "result": "draw", "reason": "max_plies", "plies": 0,
        });
        let mut g: GameResult = serde_json::from_value(line).expect("a results line");
        g.started_unix_ms = started;
        g.wall_ms = wall;
        g
    }

    /// A summary with every optional part present.
    fn full_summary() -> Summary {
        let sprt = crate::stats::Sprt::new(0.0, 10.0, 0.05, 0.05, crate::stats::EloModel::Logistic)
            .expect("settings");
        let h2h = HeadToHead::new(Wdl::new(30, 20, 10), crate::stats::Pentanomial::default());
        Summary {
            config: "configs/x.toml".into(),
            seed: 7,
            games: 60,
            played_this_session: 20,
            wall_seconds: 12.5,
            playing_seconds: Some(11.0),
            games_per_minute: Some(327.27),
            players: vec![PlayerSummary {
                name: "council".into(),
                games: 60,
                wins: 30,
                draws: 20,
                losses: 10,
                points: 40.0,
                score: 40.0 / 60.0,
                elo: Some(120.4),
                elo_error: None,
                rating: Some(Estimate {
                    elo: 60.2,
                    error: 44.0,
                    lower: 16.2,
                    upper: 104.2,
                }),
                los: Some(0.996),
                los_over: Some("single".into()),
                unrated: None,
                opponents: vec![OpponentSummary {
                    name: "single".into(),
                    games: 60,
                    points: 40.0,
                    score: 40.0 / 60.0,
                    elo: Some(120.4),
                    elo_error: Some(88.1),
                }],
                moves: 3000,
                engine_ms_per_move: 1.25,
                overhead_us_per_move: 40.0,
                fitted_win_rate_t: Some(612.0),
                win_rate_t_unfitted: None,
                ponder_hits: 30,
                ponder_misses: 10,
                ponder_hit_rate: Some(0.75),
            }],
            ratings: Some(RatingFit {
                model: "maximum likelihood, Ordo's model".into(),
                interval_method: "hessian".into(),
                anchor: crate::stats::Anchor::default(),
                prior_draws: 0.0,
                min_games: 10,
                notes: vec![],
            }),
            councils: vec![CouncilSummary {
                name: "council".into(),
                members: vec!["a".into(), "b".into()],
                moves: 3000,
                agreement: vec![vec![Some(1.0), Some(0.5)], vec![Some(0.5), None]],
                differed_from: BTreeMap::from([("a".into(), Some(0.25)), ("b".into(), None)]),
                overrode_strongest: 0.1,
                rules: BTreeMap::from([("plurality".into(), 2000), ("strongest".into(), 1000)]),
                member_failures: BTreeMap::from([("b".into(), 3)]),
                member_win_rate_t: BTreeMap::from([("a".into(), Some(580.0)), ("b".into(), None)]),
                member_win_rate_t_unfitted: BTreeMap::from([("b".into(), "no fit".into())]),
                member_time: BTreeMap::from([(
                    "b".into(),
                    MemberTime {
                        ballots: 3000,
                        mean_ms: 412.5,
                        max_ms: 950,
                        late: 3,
                    },
                )]),
            }],
            reasons: BTreeMap::from([("resign".into(), 50), ("max_plies".into(), 10)]),
            by_family: BTreeMap::from([(
                "static-vs-static".into(),
                super::super::by_family::FamilyRow {
                    name_ja: "相居飛車".into(),
                    games: 60,
                    share: 1.0,
                    players: BTreeMap::from([(
                        "council".into(),
                        super::super::by_family::FamilyScore {
                            games: 60,
                            wins: 30,
                            losses: 10,
                            draws: 20,
                            score: 40.0 / 60.0,
                        },
                    )]),
                },
            )]),
            sprt: Some(SprtSummary {
                settings: sprt,
                last: sprt.test(&h2h),
                decision: SprtStatus::AcceptH1,
                decided_after_games: Some(58),
            }),
            shard: Some(super::super::shard::Shard::new(1, 4).expect("a shard")),
            written_by: Some(crate::written_by::WrittenBy {
                program: "council-match".into(),
                version: "0.1.0".into(),
                commit: "0123456789ab".into(),
                dirty: "clean".into(),
            }),
        }
    }

    #[test]
    fn a_summary_reads_back_from_its_file() {
        let dir = std::env::temp_dir().join(format!("council-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let summary = full_summary();
        summary.write(&dir).expect("written");
        assert_eq!(Summary::read(&dir).expect("read back"), summary);
        // Without the optional parts (a whole run with no SPRT): still the same.
        let plain = Summary {
            sprt: None,
            shard: None,
            ..summary
        };
        plain.write(&dir).expect("written");
        let text = std::fs::read_to_string(dir.join("summary.json")).expect("the file");
        assert!(!text.contains("\"sprt\"") && !text.contains("\"shard\""));
        assert_eq!(Summary::read(&dir).expect("read back"), plain);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_summary_by_an_older_build_reads_and_a_broken_one_is_named() {
        let dir = std::env::temp_dir().join(format!("council-summary-old-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let mut value = serde_json::to_value(full_summary()).expect("a value");
        // What older builds did not write.
        for key in ["sprt", "shard", "playing_seconds", "by_family", "ratings"] {
            value.as_object_mut().expect("an object").remove(key);
        }
        for key in [
            "rating",
            "los",
            "los_over",
            "unrated",
            "win_rate_t_unfitted",
        ] {
            value["players"][0]
                .as_object_mut()
                .expect("an object")
                .remove(key);
        }
        value["councils"][0]
            .as_object_mut()
            .expect("an object")
            .remove("member_win_rate_t");
        std::fs::write(dir.join("summary.json"), value.to_string()).expect("write");
        let old = Summary::read(&dir).expect("an older summary");
        assert_eq!(
            (old.sprt, old.shard, old.playing_seconds),
            (None, None, None)
        );
        assert_eq!((old.ratings, old.players[0].rating), (None, None));
        assert!(old.councils[0].member_win_rate_t.is_empty());
        assert!(old.by_family.is_empty());

        std::fs::write(dir.join("summary.json"), "{\"games\": ").expect("write");
        let err = Summary::read(&dir).expect_err("cut off");
        assert!(
            err.to_string().starts_with(&format!(
                "{}: not a summary: ",
                dir.join("summary.json").display()
            )),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `a` against `b` in colour-swapped pairs: `a` wins the first `wins` games, draws the
    /// next `draws`, loses the rest; each game has one scored move per player.
    fn head_to_head(wins: u64, draws: u64, losses: u64) -> (RunPlan, Vec<GameResult>) {
        let text = "[match]\nplayers = [\"a\", \"b\"]\ngames = 2\n\n\
            [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
            [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";
        let plan =
            RunPlan::of(&crate::config::Config::parse(Path::new("t.toml"), text).expect("valid"));
        let games = (0..wins + draws + losses)
            .map(|i| {
                let (sente, gote) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
                let a_points = if i < wins {
                    1.0
                } else if i < wins + draws {
                    0.5
                } else {
                    0.0
                };
                let result = match (a_points, sente == "a") {
                    (0.5, _) => "draw",
                    (1.0, true) | (0.0, false) => "sente",
                    _ => "gote",
                };
                // a's score follows its result, so a `T` could be fitted from any count.
                let cp = if a_points > 0.5 { 300 } else { -300 };
                let (s_cp, g_cp) = if sente == "a" { (cp, -cp) } else { (-cp, cp) };
                serde_json::from_value(serde_json::json!({
                    "id": i, "pair": i / 2, "sente": sente, "gote": gote, "start": "startpos",
                    "moves": ["7g7f", "3c3d"], "scores": [{"cp": s_cp}, {"cp": g_cp}],
                    "result": result, "reason": "resign", "plies": 2,
                }))
                .expect("a results line")
            })
            .collect();
        (plan, games)
    }

    /// A run counts its games as they end, in whatever order: the summary of the counts is the
    /// summary of the games in id order (ratings, head-to-head, win-rate fits included).
    #[test]
    fn games_counted_in_any_order_give_the_summary_of_the_games_in_id_order() {
        let (plan, games) = head_to_head(7, 2, 3);
        let by_id = Summary::new(&plan, &games, 1, 12, Duration::ZERO);
        assert!(by_id.players[0].rating.is_some() && by_id.players[0].opponents[0].elo.is_some());
        let mut tally = SummaryTally::new(&plan.playing);
        for g in games.iter().rev() {
            tally.add(g);
        }
        assert_eq!(tally.games(), 12);
        assert_eq!(tally.summary(&plan, 1, 12, Duration::ZERO), by_id);
        let h = tally.head_to_head("b", "a");
        assert_eq!((h.wdl.wins, h.wdl.draws, h.wdl.losses), (3, 2, 7));
        assert_eq!(tally.points("a"), (8.0, 12));
    }

    /// 2-2 in four games: the table says `n/a`, so `summary.json` says `null` with the reason,
    /// never `0 ± 0`; no head-to-head number and no win-rate `T` either.
    #[test]
    fn four_games_give_no_elo_but_the_reason() {
        let (plan, games) = head_to_head(2, 0, 2);
        let s = Summary::new(&plan, &games, 1, 4, Duration::ZERO);
        for p in &s.players {
            assert_eq!((p.elo, p.elo_error, p.rating), (None, None, None), "{p:?}");
            assert_eq!(p.unrated.as_deref(), Some("4 games; a rating needs 10"));
            assert_eq!((p.opponents[0].elo, p.opponents[0].elo_error), (None, None));
            assert_eq!(p.fitted_win_rate_t, None);
            assert_eq!(
                p.win_rate_t_unfitted.as_deref(),
                Some("4 games; a fit needs 10")
            );
        }
        assert_eq!(s.ratings, None);
    }

    /// 8-0-2 (80%) in ten games: `elo` and `elo_error` are the closing table's rating and its
    /// finite interval (the score's normal interval passes 100% there, which left it `null`).
    #[test]
    fn eight_wins_and_two_losses_give_the_tables_elo_with_a_finite_interval() {
        let (plan, games) = head_to_head(8, 0, 2);
        let s = Summary::new(&plan, &games, 1, 10, Duration::ZERO);
        let a = &s.players[0];
        let rating = a.rating.expect("a is rated");
        assert_eq!((a.elo, a.elo_error), (Some(rating.elo), Some(rating.error)));
        let (elo, error) = (a.elo.expect("elo"), a.elo_error.expect("an interval"));
        assert!(
            elo > 0.0 && error.is_finite() && error > 0.0,
            "{elo} ± {error}"
        );
        let b = &s.players[1];
        let b_elo = b.elo.expect("b's elo");
        assert!(
            (b_elo + elo).abs() < 1e-9,
            "the pool mean is 0: {b_elo} {elo}"
        );
        assert!(s.ratings.is_some());
    }

    #[test]
    fn playing_time_counts_overlapping_games_once_and_skips_pauses_between_sessions() {
        let s = 1_000;
        let games = [
            // First session: two games at once, then a third overlapping the second.
            timed(Some(10 * s), Some(60 * s)),
            timed(Some(20 * s), Some(60 * s)),
            timed(Some(70 * s), Some(30 * s)),
            // Resumed an hour later: one more game.
            timed(Some(3_700 * s), Some(60 * s)),
            // A game inside another one adds nothing.
            timed(Some(3_710 * s), Some(5 * s)),
        ];
        // [10, 100] and [3700, 3760]: 150 s.
        assert_eq!(playing_time(&games), Some(Duration::from_secs(150)));
        assert_eq!(playing_time(&games[3..4]), Some(Duration::from_secs(60)));
        assert_eq!(playing_time(&[]), None);
        let mut with_old = games.to_vec();
        with_old.push(timed(None, None));
        assert_eq!(playing_time(&with_old), None);
    }
}
