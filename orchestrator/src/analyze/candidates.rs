//! `council-analyze candidates MODEL CORPUS...`: seed 003's evaluation of a candidate model on
//! the test side of the corpus's split (by default the seed and share the model file records,
//! so the games it was learned from are left out): for every setting a-f, where the move played
//! ranks among the legal moves — the normalised-rank histogram by deciles, the top-k hit rates
//! (k = 1..10) beside the exact chance baseline, overall and by legal-move bins (positions with
//! 5 or fewer legal moves excluded, 6-25, 26-50, 51+).
//!
//! Ranks are exact expectations over ties (`engine::intuition::RankStat`), never samples, so
//! the report is a pure function of the model and the games.

use std::path::PathBuf;

use engine::intuition::{MIN_LEGAL, Model, ModelFileError, Setting, chance, rank_game};
use serde::Serialize;

use super::Output;
use crate::corpus::{self, CorpusError, SplitError, TestShare, is_test};

/// The largest k of the top-k hit rates.
pub const MAX_K: usize = 10;

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
    /// Problems with the corpus inputs (file and line, what is wrong).
    pub warnings: Vec<String>,
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
    let mut sums = vec![SettingSums::default(); Setting::ALL.len()];
    let (mut test_games, mut positions, mut few) = (0u64, 0u64, 0u64);
    for game in &read.games {
        if !is_test(split_seed, share, &game.start, &game.moves) {
            continue;
        }
        test_games += 1;
        let walked = rank_game(&model, &game.start, &game.moves, |ply, ranking| {
            positions += 1;
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
    Ok(CandidatesReport {
        model: path.clone(),
        model_games: model.games,
        split_seed,
        test_share: share.get(),
        corpus_games: read.games.len(),
        test_games,
        positions,
        positions_few_legal,
        settings,
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
