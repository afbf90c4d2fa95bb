//! `council-analyze candidates MODEL CORPUS...`: seed 003's evaluation of a candidate model on
//! the test side of the corpus's split (by default the seed and share the model file records,
//! so the games it was learned from are left out): for every setting a-f, where the move played
//! ranks among the legal moves — the normalised-rank histogram by deciles, the top-k hit rates
//! (k = 1..10) beside the exact chance baseline, overall and by legal-move bins (positions with
//! 5 or fewer legal moves excluded, 6-25, 26-50, 51+).
//!
//! With a reference limit (`--reference-nodes` or `--reference-depth`), also where the built-in
//! engine's best move ranks, on the same positions: the engine searches each one from scratch at
//! the fixed limit (`moves::best_moves`, deterministic), and the report gives the same hit rates
//! and mean rank for its move, and the share of positions where its move is outside the model's
//! top K — what a search whose root keeps only the model's top K moves would lose.
//!
//! Ranks are exact expectations over ties (`engine::intuition::RankStat`), never samples, so
//! the report is a pure function of the model and the games.

use std::path::PathBuf;

use engine::intuition::{
    MIN_LEGAL, Model, ModelFileError, RankStat, Setting, chance, rank_game, walk,
};
use engine::position::Position;
use serde::Serialize;

use super::Output;
use super::moves::{self, ReferenceLimit};
use council_schema::corpus::{self, CorpusError, CorpusGame, SplitError, TestShare, is_test};

/// The largest k of the top-k hit rates.
pub const MAX_K: usize = 10;

/// The K of the outside-the-top-K shares of the reference's move.
pub const OUTSIDE_K: [usize; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 16, 32];

/// The legal-move bins: inclusive lower bounds (the last bin is open).
pub const BINS: [(usize, Option<usize>); 3] = [(6, Some(25)), (26, Some(50)), (51, None)];

/// What to evaluate.
#[derive(Debug, Clone)]
pub struct CandidatesOptions {
    pub model: PathBuf,
    pub corpus: Vec<PathBuf>,
    /// The split; `None` takes the model file's.
    pub split_seed: Option<u64>,
    pub test_share: Option<f64>,
    /// Where the built-in engine's best move ranks too (none: not searched).
    pub reference: Option<ReferenceOptions>,
}

/// How the reference searches.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceOptions {
    pub limit: ReferenceLimit,
    /// Positions searched at once (the result does not depend on it).
    pub concurrency: usize,
    pub progress: bool,
}

/// Why there is no report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CandidatesError {
    #[error("cannot read {}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}: {error}", path.display())]
    Model {
        path: PathBuf,
        error: ModelFileError,
    },
    #[error(
        "{}: the model records no split {what}; give --{what}",
        path.display()
    )]
    NoSplit { path: PathBuf, what: &'static str },
    #[error("--test-share: {0}")]
    Share(#[from] SplitError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("--reference-nodes must be at least 1, --reference-depth between 1 and 64")]
    Limit,
}

/// Hit and chance sums over the positions of one group.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Hits {
    pub positions: u64,
    /// Top-k hit rate for k = 1..10 (index k - 1), as fractions.
    pub hit: Vec<f64>,
    /// The chance rate min(k, L) / L averaged over the same positions.
    pub chance: Vec<f64>,
}

/// One setting's results.
#[derive(Debug, Clone, Serialize)]
pub struct SettingReport {
    /// `a`..`f`.
    pub setting: String,
    /// Mean normalised rank (0 best, 1 worst; a random order gives 0.5).
    pub mean_normalised_rank: f64,
    /// Positions per decile of the normalised rank (`[0, 0.1)` first, `[0.9, 1]` last).
    pub deciles: Vec<u64>,
    pub all: Hits,
    /// One per legal-move bin (6-25, 26-50, 51+).
    pub bins: Vec<BinHits>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BinHits {
    /// `6-25`, `26-50`, `51+`.
    pub legal: String,
    #[serde(flatten)]
    pub hits: Hits,
}

/// The whole evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct CandidatesReport {
    pub model: PathBuf,
    /// Games the model was learned from (its file says).
    pub model_games: u64,
    pub split_seed: u64,
    pub test_share: f64,
    /// Distinct corpus games, and those on the test side.
    pub corpus_games: usize,
    pub test_games: u64,
    /// Test positions ranked (at least 6 legal moves), and those left out for fewer.
    pub positions: u64,
    pub positions_few_legal: u64,
    pub settings: Vec<SettingReport>,
    /// Where the reference's best move ranks (with a reference limit only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceReport>,
    /// Problems with the corpus inputs (file and line, what is wrong).
    pub warnings: Vec<String>,
}

/// Where the built-in engine's best move ranks, on the ranked positions.
#[derive(Debug, Clone, Serialize)]
pub struct ReferenceReport {
    /// The search limit per position: a node budget or a depth (the other is `None`).
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    /// Positions searched: the ranked positions.
    pub positions: u64,
    /// Of them, those left out of the rates: the engine gives no move (it declares a win), or
    /// one the ranking does not hold (not expected).
    pub without_move: u64,
    /// The K of `outside` (1..8, 16, 32).
    pub outside_k: Vec<usize>,
    pub settings: Vec<ReferenceSetting>,
}

/// One setting's ranks of the reference's move.
#[derive(Debug, Clone, Serialize)]
pub struct ReferenceSetting {
    pub setting: String,
    pub mean_normalised_rank: f64,
    /// Top-k hit rate for k = 1..10 (index k - 1), as fractions.
    pub hit: Vec<f64>,
    /// Share of positions where the move is outside the model's top K, one per `outside_k`
    /// (1 - the tie-aware top-K hit).
    pub outside: Vec<f64>,
}

/// A setting's sums for the reference's move.
#[derive(Debug, Clone, Default)]
struct ReferenceSums {
    positions: u64,
    normalised: f64,
    hit: [f64; MAX_K],
    outside: [f64; OUTSIDE_K.len()],
}

impl ReferenceSums {
    fn add(&mut self, stat: &RankStat) {
        self.positions += 1;
        self.normalised += stat.normalised();
        for k in 1..=MAX_K {
            self.hit[k - 1] += stat.hit(k);
        }
        for (o, &k) in self.outside.iter_mut().zip(&OUTSIDE_K) {
            *o += 1.0 - stat.hit(k);
        }
    }

    fn report(&self, setting: Setting) -> ReferenceSetting {
        let n = self.positions.max(1) as f64;
        ReferenceSetting {
            setting: setting.to_string(),
            mean_normalised_rank: self.normalised / n,
            hit: self.hit.iter().map(|h| h / n).collect(),
            outside: self.outside.iter().map(|o| o / n).collect(),
        }
    }
}

/// The positions `rank_game` ranks in the test games, in its order (the reference searches them).
fn ranked_positions(games: &[&CorpusGame]) -> Vec<Position> {
    let mut positions = Vec::new();
    for game in games {
        // A game that stops replaying is reported by the ranking pass, which stops at the same ply.
        let _ = walk(&game.start, &game.moves, |ply| {
            if ply.legal >= MIN_LEGAL {
                positions.push(ply.position.clone());
            }
        });
    }
    positions
}

/// Accumulates one group's sums.
#[derive(Debug, Clone, Default)]
struct Sums {
    positions: u64,
    hit: [f64; MAX_K],
    chance: [f64; MAX_K],
}

impl Sums {
    fn add(&mut self, hit: impl Fn(usize) -> f64, legal: usize) {
        self.positions += 1;
        for k in 1..=MAX_K {
            self.hit[k - 1] += hit(k);
            self.chance[k - 1] += chance(k, legal);
        }
    }

    fn rates(&self) -> Hits {
        let n = self.positions.max(1) as f64;
        Hits {
            positions: self.positions,
            hit: self.hit.iter().map(|h| h / n).collect(),
            chance: self.chance.iter().map(|c| c / n).collect(),
        }
    }
}

#[derive(Debug, Clone, Default)]
struct SettingSums {
    normalised: f64,
    deciles: [u64; 10],
    all: Sums,
    bins: [Sums; 3],
}

fn bin_of(legal: usize) -> Option<usize> {
    BINS.iter()
        .position(|&(lo, hi)| legal >= lo && hi.is_none_or(|hi| legal <= hi))
}

fn bin_name(i: usize) -> String {
    match BINS[i] {
        (lo, Some(hi)) => format!("{lo}-{hi}"),
        (lo, None) => format!("{lo}+"),
    }
}

/// Evaluates the model on the test side of the corpus.
///
/// # Errors
/// [`CandidatesError`] for an unreadable model, a missing split, a bad share or a missing input.
pub fn run(options: &CandidatesOptions) -> Result<CandidatesReport, CandidatesError> {
    if let Some(r) = &options.reference {
        r.limit.check().map_err(|_| CandidatesError::Limit)?;
    }
    let path = &options.model;
    let bytes = std::fs::read(path).map_err(|cause| CandidatesError::Io {
        path: path.clone(),
        cause,
    })?;
    let model = Model::from_bytes(&bytes).map_err(|error| CandidatesError::Model {
        path: path.clone(),
        error,
    })?;
    let split_seed = options
        .split_seed
        .or(model.provenance.split_seed)
        .ok_or_else(|| CandidatesError::NoSplit {
            path: path.clone(),
            what: "split-seed",
        })?;
    let share = options
        .test_share
        .or(model.provenance.test_share)
        .ok_or_else(|| CandidatesError::NoSplit {
            path: path.clone(),
            what: "test-share",
        })?;
    let share = TestShare::new(share)?;
    let read = corpus::read(&options.corpus)?;
    let mut warnings: Vec<String> = read.warnings.iter().map(ToString::to_string).collect();
    let tests: Vec<&CorpusGame> = read
        .games
        .iter()
        .filter(|game| is_test(split_seed, share, &game.start, &game.moves))
        .collect();
    // The reference's best move of every ranked position, in the order the ranking visits them.
    let best = options.reference.map(|r| {
        moves::best_moves(
            &ranked_positions(&tests),
            r.limit,
            r.concurrency,
            r.progress,
        )
    });
    let mut sums = vec![SettingSums::default(); Setting::ALL.len()];
    let mut reference_sums = vec![ReferenceSums::default(); Setting::ALL.len()];
    let (mut positions, mut few) = (0u64, 0u64);
    for game in &tests {
        let walked = rank_game(&model, &game.start, &game.moves, |ply, ranking| {
            let index = positions as usize;
            positions += 1;
            if let Some(Some(mv)) = best.as_ref().and_then(|b| b.get(index)) {
                for (setting, sum) in Setting::ALL.into_iter().zip(reference_sums.iter_mut()) {
                    if let Some(stat) = ranking.rank_of(*mv, setting) {
                        sum.add(&stat);
                    }
                }
            }
            let bin = bin_of(ply.legal);
            for (setting, sum) in Setting::ALL.into_iter().zip(sums.iter_mut()) {
                let Some(stat) = ranking.rank_of(ply.played, setting) else {
                    continue;
                };
                sum.normalised += stat.normalised();
                sum.deciles[stat.decile()] += 1;
                sum.all.add(|k| stat.hit(k), ply.legal);
                if let Some(b) = bin {
                    sum.bins[b].add(|k| stat.hit(k), ply.legal);
                }
            }
        });
        // Corpus games replay; a failure here would be an engine bug, reported, not hidden.
        if let Err(e) = walked {
            warnings.push(format!("{}: {e}", game.source));
        }
        few += game.moves.len() as u64;
    }
    let positions_few_legal = few - positions;
    let settings = Setting::ALL
        .into_iter()
        .zip(&sums)
        .map(|(setting, s)| SettingReport {
            setting: setting.to_string(),
            mean_normalised_rank: s.normalised / s.all.positions.max(1) as f64,
            deciles: s.deciles.to_vec(),
            all: s.all.rates(),
            bins: s
                .bins
                .iter()
                .enumerate()
                .map(|(i, b)| BinHits {
                    legal: bin_name(i),
                    hits: b.rates(),
                })
                .collect(),
        })
        .collect();
    let reference = options.reference.map(|r| ReferenceReport {
        nodes: r.limit.nodes(),
        depth: r.limit.depth(),
        positions,
        without_move: positions - reference_sums[0].positions,
        outside_k: OUTSIDE_K.to_vec(),
        settings: Setting::ALL
            .into_iter()
            .zip(&reference_sums)
            .map(|(setting, s)| s.report(setting))
            .collect(),
    });
    Ok(CandidatesReport {
        model: path.clone(),
        model_games: model.games,
        split_seed,
        test_share: share.get(),
        corpus_games: read.games.len(),
        test_games: tests.len() as u64,
        positions,
        positions_few_legal,
        settings,
        reference,
        warnings,
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

impl CandidatesReport {
    /// The hit rates as CSV: `setting,legal,positions,k,hit_rate,chance_rate`, one row per
    /// setting, legal-move group (`all` and the bins) and k.
    #[must_use]
    pub fn csv(&self) -> String {
        let mut text = String::from("setting,legal,positions,k,hit_rate,chance_rate\n");
        for s in &self.settings {
            let groups = std::iter::once(("all", &s.all))
                .chain(s.bins.iter().map(|b| (b.legal.as_str(), &b.hits)));
            for (legal, hits) in groups {
                for k in 1..=MAX_K {
                    text.push_str(&format!(
                        "{},{legal},{},{k},{:.6},{:.6}\n",
                        s.setting,
                        hits.positions,
                        hits.hit[k - 1],
                        hits.chance[k - 1]
                    ));
                }
            }
        }
        text
    }
}

impl Output for CandidatesReport {
    fn table(&self) -> String {
        let mut t = format!(
            "model {} (learned from {} games); split seed {}, test share {}\n\
             test side: {} of {} games, {} positions ranked ({} with fewer than {MIN_LEGAL} legal moves left out)\n\n",
            self.model.display(),
            self.model_games,
            self.split_seed,
            self.test_share,
            self.test_games,
            self.corpus_games,
            self.positions,
            self.positions_few_legal
        );
        t.push_str("top-k hit rate, % of positions (chance: a random order of the legal moves)\n");
        t.push_str("setting");
        for k in 1..=MAX_K {
            t.push_str(&format!("{:>6}", format!("k={k}")));
        }
        t.push_str("  mean rank\n");
        if let Some(first) = self.settings.first() {
            t.push_str("chance ");
            for c in &first.all.chance {
                t.push_str(&format!("{:>6}", pct(*c)));
            }
            t.push_str(&format!("{:>11}\n", "0.500"));
        }
        for s in &self.settings {
            t.push_str(&format!("{:<7}", s.setting));
            for h in &s.all.hit {
                t.push_str(&format!("{:>6}", pct(*h)));
            }
            t.push_str(&format!("{:>11.3}\n", s.mean_normalised_rank));
        }
        t.push_str("\ntop-5 hit rate by legal moves, % (chance in brackets)\nsetting");
        if let Some(first) = self.settings.first() {
            for b in &first.bins {
                t.push_str(&format!(
                    "{:>22}",
                    format!("{} ({} pos)", b.legal, b.hits.positions)
                ));
            }
        }
        t.push('\n');
        for s in &self.settings {
            t.push_str(&format!("{:<7}", s.setting));
            for b in &s.bins {
                t.push_str(&format!(
                    "{:>22}",
                    format!("{} ({})", pct(b.hits.hit[4]), pct(b.hits.chance[4]))
                ));
            }
            t.push('\n');
        }
        t.push_str(
            "\nnormalised rank by decile, % of positions (0-10% = ranked near the top)\nsetting",
        );
        for d in 0..10 {
            t.push_str(&format!("{:>6}", format!("{}%", d * 10)));
        }
        t.push('\n');
        for s in &self.settings {
            t.push_str(&format!("{:<7}", s.setting));
            let n = s.all.positions.max(1) as f64;
            for &c in &s.deciles {
                t.push_str(&format!("{:>6}", pct(c as f64 / n)));
            }
            t.push('\n');
        }
        if let Some(r) = &self.reference {
            t.push_str(&r.table());
        }
        t
    }
}

impl ReferenceReport {
    fn table(&self) -> String {
        let limit = match (self.nodes, self.depth) {
            (Some(n), _) => format!("{n} nodes"),
            (None, Some(d)) => format!("depth {d}"),
            (None, None) => String::new(),
        };
        let mut t = format!(
            "\nreference: the built-in engine's best move at {limit} per position; {} positions ({} left out: no move)\n\
             top-k hit rate of the reference's move, % of positions\nsetting",
            self.positions, self.without_move
        );
        for k in 1..=MAX_K {
            t.push_str(&format!("{:>6}", format!("k={k}")));
        }
        t.push_str("  mean rank\n");
        for s in &self.settings {
            t.push_str(&format!("{:<7}", s.setting));
            for h in &s.hit {
                t.push_str(&format!("{:>6}", pct(*h)));
            }
            t.push_str(&format!("{:>11.3}\n", s.mean_normalised_rank));
        }
        t.push_str(
            "\nreference's move outside the model's top K, % of positions (lost by a root keeping the top K)\nsetting",
        );
        for k in &self.outside_k {
            t.push_str(&format!("{:>6}", format!("K={k}")));
        }
        t.push('\n');
        for s in &self.settings {
            t.push_str(&format!("{:<7}", s.setting));
            for o in &s.outside {
                t.push_str(&format!("{:>6}", pct(*o)));
            }
            t.push('\n');
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_every_count_of_legal_moves_from_six() {
        assert_eq!(bin_of(5), None);
        assert_eq!(bin_of(6), Some(0));
        assert_eq!(bin_of(25), Some(0));
        assert_eq!(bin_of(26), Some(1));
        assert_eq!(bin_of(50), Some(1));
        assert_eq!(bin_of(51), Some(2));
        assert_eq!(bin_of(593), Some(2));
        assert_eq!(
            (0..3).map(bin_name).collect::<Vec<_>>(),
            ["6-25", "26-50", "51+"]
        );
    }

    #[test]
    fn reference_sums_average_hits_ranks_and_outside_shares() {
        let mut s = ReferenceSums::default();
        // First of 10 for sure, and tied with 3 others just below the top 4 of 40.
        s.add(&RankStat {
            better: 0,
            tied: 1,
            legal: 10,
        });
        s.add(&RankStat {
            better: 4,
            tied: 4,
            legal: 40,
        });
        let r = s.report(Setting::ALL[3]);
        assert_eq!(r.setting, "d");
        assert!((r.hit[0] - 0.5).abs() < 1e-12);
        assert!((r.hit[5] - (1.0 + 0.5) / 2.0).abs() < 1e-12);
        assert!((r.mean_normalised_rank - (0.0 + 5.5 / 39.0) / 2.0).abs() < 1e-12);
        // K = 1: outside once; K = 6: half of the second; K = 8, 16, 32: never.
        assert!((r.outside[0] - 0.5).abs() < 1e-12);
        assert!((r.outside[5] - 0.25).abs() < 1e-12);
        assert!(r.outside[7..].iter().all(|o| o.abs() < 1e-12));
    }

    #[test]
    fn sums_average_hits_and_exact_chance() {
        let mut s = Sums::default();
        // A sure top-1 hit among 10 moves, and a 3-way tie at the top of 6 moves.
        s.add(|_| 1.0, 10);
        s.add(|k| (k as f64 / 3.0).min(1.0), 6);
        let r = s.rates();
        assert_eq!(r.positions, 2);
        assert!((r.hit[0] - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-12);
        assert!((r.chance[0] - (0.1 + 1.0 / 6.0) / 2.0).abs() < 1e-12);
        assert!((r.chance[9] - (1.0 + 1.0) / 2.0).abs() < 1e-12);
    }
}
