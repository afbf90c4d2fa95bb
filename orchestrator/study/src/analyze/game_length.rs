//! `council-analyze game-length`: the random-walk model of game length (models.md section 2)
//! fitted to a run's decisive games, beside the professional and floodgate sets the seed fitted,
//! so a run's games can be compared with human and computer play.
//!
//! Only decisive games count (a draw by the ply limit says nothing about when a game would have
//! ended). The fit is the simulator's exact moment fit; the plot draws the fitted model with a
//! seeded Monte Carlo run beside the games.

use std::path::{Path, PathBuf};

use serde::Serialize;
use sim::error::SimError;
use sim::game_length::fit::{FitTarget, fit};
use sim::game_length::simulate::{Layout, simulate};
use sim::game_length::{GameLengthParams, Preset};
use sim::moments::PowerSums;
use thiserror::Error;

use super::Output;
use super::moves::read_games;
use council_schema::results::{GameResult, Winner};

/// Why `game-length` has no report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum GameLengthError {
    /// The inputs could not be read (the message names the file).
    #[error(transparent)]
    Games(#[from] super::moves::GamesError),
    #[error("{decisive} decisive games: the model needs at least 10 to fit")]
    TooFew { decisive: usize },
    #[error("the games' lengths (mean {mean:.1}, sd {sd:.1}, m3 {m3:.0}) do not fit the model")]
    NoFit {
        mean: f64,
        sd: f64,
        m3: f64,
        #[source]
        source: SimError,
    },
    /// The fitted model could not be simulated or drawn.
    #[error(transparent)]
    Model(#[from] SimError),
}

/// What `game-length` is asked.
#[derive(Debug, Clone)]
pub struct GameLengthOptions {
    /// Run folders or results files.
    pub inputs: Vec<PathBuf>,
    /// Draw the games' lengths beside the fitted model.
    pub svg: Option<PathBuf>,
    /// The seed of the model's simulation in the picture.
    pub seed: u64,
}

/// `game-length INPUTS`: the model fitted to the inputs' decisive games (and its picture).
pub fn run(opts: &GameLengthOptions) -> Result<GameLengthReport, GameLengthError> {
    let games = read_games(&opts.inputs).map_err(GameLengthError::Games)?;
    let report = analyse(&games)?;
    if let Some(path) = &opts.svg {
        svg(path, &games, &report, opts.seed)?;
    }
    Ok(report)
}

/// The fitted model beside the seed's sets.
#[derive(Debug, Clone, Serialize)]
pub struct GameLengthReport {
    /// Decisive games used.
    pub games: usize,
    pub draws_left_out: usize,
    pub mean: f64,
    pub sd: f64,
    /// Third central moment.
    pub m3: f64,
    pub a: f64,
    pub m: f64,
    pub s: f64,
    pub pro: GameLengthParams,
    pub floodgate: GameLengthParams,
}

/// Fit the model to `games`' decisive games.
pub fn analyse(games: &[GameResult]) -> Result<GameLengthReport, GameLengthError> {
    let decisive: Vec<f64> = games
        .iter()
        .filter(|g| g.result != Winner::Draw)
        .map(|g| f64::from(g.plies))
        .collect();
    if decisive.len() < 10 {
        return Err(GameLengthError::TooFew {
            decisive: decisive.len(),
        });
    }
    // Power sums about the first length keep the sums small (the simulator's own sample moments).
    let mut sums = PowerSums::new(decisive[0]);
    for &x in &decisive {
        sums.push(x);
    }
    let m = sums
        .moments()
        .ok_or(GameLengthError::TooFew { decisive: 0 })?;
    let (mean, sd, m3) = (m.mean, m.sd(), m.m3);
    let no_fit = |source| GameLengthError::NoFit {
        mean,
        sd,
        m3,
        source,
    };
    let f = FitTarget::new(mean, sd, m3)
        .and_then(|target| fit(&target))
        .map_err(no_fit)?;
    Ok(GameLengthReport {
        games: decisive.len(),
        draws_left_out: games.len() - decisive.len(),
        mean,
        sd,
        m3,
        a: f.params.a,
        m: f.params.m,
        s: f.params.s,
        pro: Preset::Pro.params(),
        floodgate: Preset::Floodgate.params(),
    })
}

/// The games' histogram beside the fitted model (a seeded simulation of 10^6 games).
pub fn svg(
    path: &Path,
    games: &[GameResult],
    report: &GameLengthReport,
    seed: u64,
) -> Result<(), GameLengthError> {
    let params = GameLengthParams::new(report.a, report.m, report.s)?;
    let run = simulate(
        &params,
        1_000_000,
        seed,
        &Layout::for_params(&params),
        &|_| {},
    );
    let plies: Vec<u32> = games
        .iter()
        .filter(|g| g.result != Winner::Draw)
        .map(|g| g.plies)
        .collect();
    let title = format!(
        "game length of {} decisive games: mean {:.1}, sd {:.1}",
        report.games, report.mean, report.sd
    );
    Ok(super::game_length_svg::observed_game_length_svg(
        path, &title, &plies, &run, 10,
    )?)
}

impl Output for GameLengthReport {
    fn table(&self) -> String {
        table(self)
    }
}

/// The readable table.
#[must_use]
pub fn table(r: &GameLengthReport) -> String {
    format!(
        "{} decisive games ({} draws left out): mean {:.1}, sd {:.1}, m3 {:.0} plies\n\
         {:<10} {:>8} {:>8} {:>8}\n\
         {:<10} {:>8.4} {:>8.2} {:>8.2}\n\
         {:<10} {:>8.4} {:>8.2} {:>8.2}\n\
         {:<10} {:>8.4} {:>8.2} {:>8.2}\n",
        r.games,
        r.draws_left_out,
        r.mean,
        r.sd,
        r.m3,
        "model",
        "A",
        "M",
        "S",
        "this run",
        r.a,
        r.m,
        r.s,
        "pro",
        r.pro.a,
        r.pro.m,
        r.pro.s,
        "floodgate",
        r.floodgate.a,
        r.floodgate.m,
        r.floodgate.s
    ) + &super::legend(&[
        "A: the step of the random walk a game's score follows, per move (larger: decided sooner); \
         M, S: mean and sd of the plies outside the walk (opening, forced replies, moves after the \
         game was decided). pro, floodgate: seed 000's fits, for comparison (docs/models.md \
         section 2). --svg FILE draws the lengths beside the fitted walk.",
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::game_length::simulate::simulate;

    #[test]
    fn recovers_the_model_its_games_were_drawn_from() {
        // Draw 20000 game lengths from the pro preset, then fit them back.
        let p = Preset::Pro.params();
        let run = simulate(&p, 20_000, 5, &Layout::for_params(&p), &|_| {});
        let h = &run.histogram;
        let mut games = Vec::new();
        for (i, &c) in h.counts.iter().enumerate() {
            for _ in 0..c {
                let plies = (h.lo + i as i64).max(1) as u32;
                games.push(GameResult {
                    id: games.len() as u64,
                    pair: None,
                    sente: "a".into(),
                    gote: "b".into(),
                    start: String::new(),
                    handicap: None,
                    moves: Vec::new(),
                    opening_plies: Some(0),
                    result: Winner::Sente,
                    reason: council_schema::results::Reason::Checkmate,
                    plies,
                    seed: 0,
                    votes: Vec::new(),
                    detail: None,
                    times_ms: Vec::new(),
                    scores: Vec::new(),
                    costs: Vec::new(),
                    started_unix_ms: None,
                    wall_ms: None,
                });
            }
        }
        let r = analyse(&games).expect("fits");
        assert!((r.m / p.m - 1.0).abs() < 0.1, "{r:?}");
        assert!((r.a / p.a - 1.0).abs() < 0.35, "{r:?}");
        assert_eq!(r.games, games.len());
    }
}
