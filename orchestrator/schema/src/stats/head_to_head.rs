//! Two players' match statistics: score, Elo difference with a 95% interval, normalized Elo and
//! likelihood of superiority, from game counts (trinomial) or colour-swapped pairs (pentanomial).
//!
//! Everything is from the first player's point of view. The interval is the normal-approximation
//! interval of the mean score, mapped through the logistic Elo curve; `elo_error` is half its width
//! (the `+/-` fishtest and fastchess print). Pairs of games that share a start position with
//! colours swapped are correlated, so when the games come in complete pairs the pentanomial
//! variance (of pair scores) is the right one; it is usually smaller.
//!
//! See: fishtest `server/fishtest/stats/stat_util.py` (`get_elo`) and fastchess
//! `app/src/matchmaking/elo/elo_wdl.cpp`, `elo_pentanomial.cpp`; the formulas are the textbook
//! ones of <https://www.chessprogramming.org/Match_Statistics>.

use std::collections::HashMap;

use serde::Serialize;

use super::elo::{
    NELO_PER_T, Pentanomial, Wdl, clamped_elo_from_score, mean_variance, phi, z_two_sided,
};
use crate::results::GameResult;

/// Confidence level of every interval this module reports.
pub const CONFIDENCE: f64 = 0.95;

/// Which sample the estimate was computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleModel {
    /// Single games: loss, draw, win.
    Trinomial,
    /// Colour-swapped pairs: LL, LD, WL+DD, WD, WW.
    Pentanomial,
}

/// Elo difference of the first player over the second, with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EloEstimate {
    pub model: SampleModel,
    /// Games the estimate uses (twice the pairs for the pentanomial model).
    pub games: u64,
    /// Mean points per game, in `[0, 1]`.
    pub score: f64,
    /// Logistic Elo difference (clamped near +-1200 for a 0% or 100% score, see `clamped`).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub elo_lower: f64,
    /// Upper end of the 95% interval.
    pub elo_upper: f64,
    /// Half the width of the 95% interval: the `+/-` of fishtest and fastchess.
    pub elo_error: f64,
    /// Normalized Elo: score excess over its per-game standard deviation, times `800 / ln 10`.
    pub nelo: f64,
    /// Half the width of the 95% interval of the normalized Elo.
    pub nelo_error: f64,
    /// Likelihood of superiority: probability that the first player is the stronger one.
    pub los: f64,
    /// True when the score or an interval end was clamped before turning it into Elo.
    pub clamped: bool,
}

impl EloEstimate {
    /// From a sample of scores in `[0, 1]`: `values` are the possible scores, `counts` how often
    /// each occurred; `games_per_sample` is 1 for games and 2 for pairs.
    fn from_sample(model: SampleModel, values: &[f64], counts: &[f64]) -> Option<Self> {
        let samples: f64 = counts.iter().sum();
        if samples <= 0.0 {
            return None;
        }
        let games_per_sample = match model {
            SampleModel::Trinomial => 1.0,
            SampleModel::Pentanomial => 2.0,
        };
        let (score, var) = mean_variance(values, counts);
        let se = (var / samples).sqrt();
        let z = z_two_sided(CONFIDENCE);
        let (elo, c0) = clamped_elo_from_score(score);
        let (elo_lower, c1) = clamped_elo_from_score(score - z * se);
        let (elo_upper, c2) = clamped_elo_from_score(score + z * se);
        // A pair's score is the mean of two games: its per-game deviation is sqrt(2) larger.
        let sd_per_game = (games_per_sample * var).sqrt();
        let excess = score - 0.5;
        let nelo = if excess == 0.0 {
            0.0
        } else {
            excess / sd_per_game * NELO_PER_T
        };
        let nelo_error = z * se / sd_per_game * NELO_PER_T;
        let los = if se > 0.0 {
            phi(excess / se)
        } else if excess > 0.0 {
            1.0
        } else if excess < 0.0 {
            0.0
        } else {
            0.5
        };
        Some(Self {
            model,
            games: (samples * games_per_sample).round() as u64,
            score,
            elo,
            elo_lower,
            elo_upper,
            elo_error: (elo_upper - elo_lower) / 2.0,
            nelo,
            nelo_error,
            los,
            clamped: c0 || c1 || c2,
        })
    }

    /// Trinomial estimate from win/draw/loss counts; `None` without games.
    pub fn from_wdl(wdl: &Wdl) -> Option<Self> {
        Self::from_sample(SampleModel::Trinomial, &[0.0, 0.5, 1.0], &wdl.frequencies())
    }

    /// Pentanomial estimate from pair counts; `None` without pairs.
    pub fn from_pentanomial(penta: &Pentanomial) -> Option<Self> {
        Self::from_sample(
            SampleModel::Pentanomial,
            &[0.0, 0.25, 0.5, 0.75, 1.0],
            &penta.frequencies(),
        )
    }
}

/// The games between two players, from the first player's point of view.
///
/// Build it from counts ([`HeadToHead::new`]) or straight from results lines
/// ([`HeadToHead::from_games`]); ask for [`HeadToHead::estimate`] (what `summary.json` reports)
/// or hand it to [`super::sprt::Sprt::test`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HeadToHead {
    /// Every game, paired or not.
    pub wdl: Wdl,
    /// The complete colour-swapped pairs among those games.
    pub pentanomial: Pentanomial,
    /// Games that are not part of a complete pair (unpaired, or a pair still being played).
    pub unpaired_games: u64,
}

impl HeadToHead {
    /// From counts. `pentanomial` holds the complete pairs among the `wdl` games (pass
    /// `Pentanomial::default()` when games are not paired).
    pub fn new(wdl: Wdl, pentanomial: Pentanomial) -> Self {
        Self {
            wdl,
            pentanomial,
            unpaired_games: wdl.games().saturating_sub(2 * pentanomial.pairs()),
        }
    }

    /// From results lines: the games between `player` and `opponent` (either colour), as
    /// [`HeadToHeadTally`] counts them.
    pub fn from_games<'a>(
        games: impl IntoIterator<Item = &'a GameResult>,
        player: &str,
        opponent: &str,
    ) -> Self {
        let mut tally = HeadToHeadTally::new(player, opponent);
        for game in games {
            tally.add(game);
        }
        tally.head_to_head()
    }

    /// Points per game of the first player; `None` without games.
    pub fn score(&self) -> Option<f64> {
        let games = self.wdl.games();
        (games > 0).then(|| self.wdl.points() / games as f64)
    }

    /// The estimate from single games, ignoring pairing.
    pub fn trinomial(&self) -> Option<EloEstimate> {
        EloEstimate::from_wdl(&self.wdl)
    }

    /// The estimate from the complete pairs only.
    pub fn pentanomial(&self) -> Option<EloEstimate> {
        EloEstimate::from_pentanomial(&self.pentanomial)
    }

    /// The estimate to report: pentanomial when every game is in a complete pair, trinomial
    /// otherwise; `None` without games.
    pub fn estimate(&self) -> Option<EloEstimate> {
        if self.unpaired_games == 0 && self.pentanomial.pairs() > 0 {
            self.pentanomial()
        } else {
            self.trinomial()
        }
    }

    /// The same games from the opponent's point of view.
    pub fn flipped(&self) -> Self {
        Self {
            wdl: self.wdl.flipped(),
            pentanomial: self.pentanomial.flipped(),
            unpaired_games: self.unpaired_games,
        }
    }
}

/// Builds a [`HeadToHead`] one game at a time, e.g. a runner updating its SPRT after every game.
///
/// Pairing: games with the same `pair` number form a colour-swapped pair when the first two of
/// them have the players on opposite colours; a pair whose second game has not arrived yet (still
/// being played), a same-colour "pair", and any further game with that number count in the
/// [`Wdl`] only.
#[derive(Debug, Clone, Default)]
pub struct HeadToHeadTally {
    player: String,
    opponent: String,
    wdl: Wdl,
    pentanomial: Pentanomial,
    /// pair number -> the first game (player was sente, player's points), or `None` once the
    /// pair is complete or broken.
    pairs: HashMap<u64, Option<(bool, f64)>>,
}

impl HeadToHeadTally {
    /// Counts from `player`'s point of view against `opponent`.
    pub fn new(player: &str, opponent: &str) -> Self {
        Self {
            player: player.to_owned(),
            opponent: opponent.to_owned(),
            ..Self::default()
        }
    }

    /// Adds one finished game; returns false (and counts nothing) for a game between other
    /// players.
    pub fn add(&mut self, game: &GameResult) -> bool {
        let Some(points) = points_for(game, &self.player, &self.opponent) else {
            return false;
        };
        self.wdl.add_points(points);
        if let Some(pair) = game.pair {
            let player_sente = game.sente == self.player;
            match self.pairs.get_mut(&pair) {
                None => {
                    self.pairs.insert(pair, Some((player_sente, points)));
                }
                Some(slot) => {
                    if let Some((first_sente, first_points)) = slot.take()
                        && first_sente != player_sente
                    {
                        self.pentanomial.add_pair(first_points, points);
                    }
                }
            }
        }
        true
    }

    /// The games so far.
    pub fn head_to_head(&self) -> HeadToHead {
        HeadToHead::new(self.wdl, self.pentanomial)
    }
}

/// The points `player` scored in `game` if it was a game between `player` and `opponent`
/// (and it has a result: [`GameResult::points_of`]).
pub fn points_for(game: &GameResult, player: &str, opponent: &str) -> Option<f64> {
    let between = (game.sente == player && game.gote == opponent)
        || (game.gote == player && game.sente == opponent);
    if between {
        game.points_of(player)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    //! Reference values: fastchess `app/tests/elo_test.cpp` (Disservin/fastchess, test cases
    //! "EloWDL 1-3" and "EloPentanomial 1-3"), which checks to a relative tolerance of 1%
    //! (`doctest::Approx(..).epsilon(0.01)`) and prints LOS to two decimals in percent.
    //! fastchess's constructors are `Stats(wins, losses, draws)` and
    //! `Stats(ll, ld, wl, dd, wd, ww)`.

    use super::*;
    use crate::results::{Reason, Winner};

    fn close(actual: f64, expected: f64, rel: f64) -> bool {
        (actual - expected).abs() <= rel * expected.abs().max(1.0)
    }

    #[track_caller]
    fn check(actual: f64, expected: f64) {
        assert!(close(actual, expected, 0.01), "{actual} != {expected}");
    }

    #[track_caller]
    fn check_los_percent(actual: f64, expected_percent: f64) {
        // fastchess compares the string "{:.2f} %": we allow half a unit of the last digit.
        assert!(
            (actual * 100.0 - expected_percent).abs() <= 0.005 + 1e-9,
            "LOS {}% != {expected_percent}%",
            actual * 100.0
        );
    }

    fn wdl(wins: u64, losses: u64, draws: u64) -> EloEstimate {
        EloEstimate::from_wdl(&Wdl::new(wins, draws, losses)).expect("games")
    }

    fn penta(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> EloEstimate {
        EloEstimate::from_pentanomial(&Pentanomial::new(ll, ld, wl, dd, wd, ww)).expect("pairs")
    }

    #[test]
    fn fastchess_elo_wdl_1() {
        let e = wdl(76, 89, 123);
        check(e.nelo, -20.76);
        check(e.nelo_error, 40.13);
        check_los_percent(e.los, 15.53);
    }

    #[test]
    fn fastchess_elo_wdl_2() {
        let e = wdl(136, 96, 111);
        check(e.nelo, 49.77);
        check(e.nelo_error, 36.77);
        check(e.elo, 40.70);
        check(e.elo_error, 30.43);
        check_los_percent(e.los, 99.60);
    }

    #[test]
    fn fastchess_elo_wdl_3() {
        let e = wdl(34, 356, 0);
        check(e.nelo, -508.44);
        check(e.nelo_error, 34.48);
    }

    #[test]
    fn fastchess_elo_pentanomial_1() {
        let e = penta(34, 54, 31, 32, 64, 75);
        check(e.nelo, 57.94);
        check(e.nelo_error, 28.28);
        check(e.elo, 55.58);
        check(e.elo_error, 27.65);
        check_los_percent(e.los, 100.00);
    }

    #[test]
    fn fastchess_elo_pentanomial_2() {
        let e = penta(332, 433, 457, 41, 333, 334);
        check(e.nelo, -9.17);
        check(e.nelo_error, 10.96);
        check(e.elo, -8.64);
        check(e.elo_error, 10.33);
        check_los_percent(e.los, 5.05);
    }

    #[test]
    fn fastchess_elo_pentanomial_3() {
        let e = penta(7895, 8757, 5485, 200, 568, 9999);
        check(e.nelo, -19.01);
        check(e.nelo_error, 2.65);
        check(e.elo, -21.04);
        check(e.elo_error, 2.95);
    }

    #[test]
    fn even_score_is_zero_elo_and_even_odds() {
        let e = wdl(50, 50, 0);
        assert_eq!(e.elo, 0.0);
        assert!((e.los - 0.5).abs() < 1e-12);
        let all_draws = wdl(0, 0, 10);
        assert_eq!(
            (all_draws.elo, all_draws.nelo, all_draws.los),
            (0.0, 0.0, 0.5)
        );
    }

    #[test]
    fn perfect_score_is_clamped_not_infinite() {
        let e = wdl(10, 0, 0);
        assert!(e.clamped && e.elo.is_finite() && e.elo > 1000.0);
        assert_eq!(e.los, 1.0);
        assert!(EloEstimate::from_wdl(&Wdl::default()).is_none());
    }

    fn game(id: u64, pair: Option<u64>, sente: &str, gote: &str, result: Winner) -> GameResult {
        GameResult {
            id,
            pair,
            sente: sente.into(),
            gote: gote.into(),
            start: "startpos".into(),
            handicap: None,
            moves: vec![],
            opening_plies: Some(0),
            result,
            reason: Reason::Resign,
            plies: 0,
            seed: 0,
            votes: vec![],
            detail: None,
            times_ms: vec![],
            scores: vec![],
            costs: vec![],
            started_unix_ms: None,
            wall_ms: None,
        }
    }

    #[test]
    fn from_games_counts_from_the_players_side_and_pairs_swapped_colours() {
        let games = [
            game(0, Some(0), "A", "B", Winner::Sente), // A wins
            game(1, Some(0), "B", "A", Winner::Sente), // A loses: pair WL
            game(2, Some(1), "A", "B", Winner::Draw),
            game(3, Some(1), "B", "A", Winner::Gote), // pair DW -> WD bucket for A
            game(4, Some(2), "A", "B", Winner::Gote), // pair still being played
            game(5, None, "A", "C", Winner::Sente),   // another opponent
        ];
        let h = HeadToHead::from_games(&games, "A", "B");
        assert_eq!(h.wdl, Wdl::new(2, 1, 2));
        assert_eq!(h.pentanomial, Pentanomial::new(0, 0, 1, 0, 1, 0));
        assert_eq!(h.unpaired_games, 1);
        assert_eq!(h.estimate().map(|e| e.model), Some(SampleModel::Trinomial));
        // A third game with a complete pair's number, and a same-colour "pair", stay unpaired.
        let extra = [
            game(6, Some(0), "A", "B", Winner::Sente),
            game(7, Some(5), "A", "B", Winner::Sente),
            game(8, Some(5), "A", "B", Winner::Gote),
        ];
        let more = HeadToHead::from_games(games.iter().chain(&extra), "A", "B");
        assert_eq!(more.pentanomial, h.pentanomial);
        assert_eq!(more.unpaired_games, 4);
        let complete = HeadToHead::from_games(&games[..4], "A", "B");
        assert_eq!(
            complete.estimate().map(|e| e.model),
            Some(SampleModel::Pentanomial)
        );
        assert_eq!(h.flipped().wdl, Wdl::new(2, 1, 2));
        assert_eq!(
            HeadToHead::from_games(&games, "B", "A").pentanomial,
            h.pentanomial.flipped()
        );
    }
}
