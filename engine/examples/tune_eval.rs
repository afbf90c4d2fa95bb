//! Fits the evaluation weights to game results (Texel's tuning method).
//!
//! Reads `council-match` result files (`results.jsonl`: start SFEN, moves, result), takes the
//! positions of each game after its first `--skip` plies (every `--every` ply, not in check),
//! settles each into its quiescence-search leaf, and records the leaf's features with the
//! game's result for Sente (1, 1/2, 0). Then it fits the scale `K` of the win-probability model
//! `sigmoid(K * eval)` to the current weights and runs full-batch Adam on the mean squared error
//! between result and predicted probability, with an L2 pull towards the starting weights.
//! Games are split into a training and a validation set by a seeded hash of their index, and
//! the error of both is printed. The fitted weights are written as `engine/src/eval/weights.rs`
//! source (`--out`).
//!
//! ```sh
//! cargo run --release -p engine --example tune_eval -- runs/gen/results.jsonl --out w.rs
//! ```
//! See: chessprogramming wiki "Texel's Tuning Method"; Kingma & Ba, "Adam" (2014).

use anyhow::{Context, Result, bail};
use clap::Parser;
use engine::eval::{FeatureVector, feature_vector, features, weights};
use engine::position::Position;
use engine::search::{Engine, EngineSettings};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Fit the evaluation weights to game results (Texel's method)")]
struct Cli {
    /// `results.jsonl` files written by council-match.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Plies of each game left out at the start (book moves).
    #[arg(long, default_value_t = 12)]
    skip: usize,
    /// Take every n-th position of a game.
    #[arg(long, default_value_t = 2)]
    every: usize,
    /// Adam iterations over the whole training set.
    #[arg(long, default_value_t = 400)]
    epochs: usize,
    /// Adam step for linear weights (centipawns); danger weights move a tenth of it.
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// L2 pull towards the starting weights, per weight (in error units per cp²).
    #[arg(long, default_value_t = 1e-7)]
    l2: f64,
    /// One game in this many goes to the validation set.
    #[arg(long, default_value_t = 10)]
    validation_every: u64,
    /// Seed of the training / validation split.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Feature groups to fit (the others keep their weights): board, hand, rank, file,
    /// own-king, enemy-king, mobility, tempo, danger, threat. Default: all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Where to write the fitted weights (Rust source for engine/src/eval/weights.rs).
    #[arg(long)]
    out: Option<PathBuf>,
}

struct Sample {
    features: FeatureVector,
    result: f64,
}

#[derive(serde::Deserialize)]
struct GameLine {
    start: String,
    moves: Vec<String>,
    result: String,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// SplitMix64: decides the split of a game from (seed, file number, line number).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn load(cli: &Cli) -> Result<(Vec<Sample>, Vec<Sample>)> {
    let mut engine = Engine::new(EngineSettings {
        hash_mb: 4,
        ..EngineSettings::default()
    });
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (file_no, path) in cli.results.iter().enumerate() {
        let file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
        for (line_no, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.with_context(|| format!("{}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let Ok(game) = serde_json::from_str::<GameLine>(&line) else {
                eprintln!(
                    "{}:{}: not a game line, skipped",
                    path.display(),
                    line_no + 1
                );
                continue;
            };
            let result = match game.result.as_str() {
                "sente" => 1.0,
                "gote" => 0.0,
                "draw" => 0.5,
                _ => continue,
            };
            let mut pos = Position::from_sfen(&game.start)
                .with_context(|| format!("{}:{}: start", path.display(), line_no + 1))?;
            let to_valid = mix(cli.seed ^ ((file_no as u64) << 32) ^ line_no as u64)
                .is_multiple_of(cli.validation_every);
            for (ply, text) in game.moves.iter().enumerate() {
                if ply >= cli.skip && (ply - cli.skip).is_multiple_of(cli.every) && !pos.in_check()
                {
                    engine.new_game();
                    if let Some(leaf) = engine.quiescence_leaf(&pos) {
                        let sample = Sample {
                            features: feature_vector(&leaf),
                            result,
                        };
                        if to_valid {
                            valid.push(sample);
                        } else {
                            train.push(sample);
                        }
                    }
                }
                let Ok(mv) = pos.parse_usi_move(text) else {
                    bail!("{}:{}: illegal move {text}", path.display(), line_no + 1);
                };
                pos.play(mv);
            }
        }
    }
    Ok((train, valid))
}

fn error(samples: &[Sample], w: &[f64], k: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| (s.result - sigmoid(k * s.features.sente_eval(w))).powi(2))
        .sum();
    total / samples.len().max(1) as f64
}

/// The scale K that best fits the current weights (golden-section search on a log scale).
fn fit_k(samples: &[Sample], w: &[f64]) -> f64 {
    let (mut lo, mut hi) = ((1e-4f64).ln(), (0.05f64).ln());
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if error(samples, w, a.exp()) < error(samples, w, b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Gradient of the mean squared error with respect to every weight.
fn gradient(samples: &[Sample], w: &[f64], k: f64, grad: &mut [f64]) {
    grad.fill(0.0);
    let div = f64::from(features::DANGER_DIV);
    let cap = f64::from(features::DANGER_CAP * features::DANGER_DIV);
    for s in samples {
        let fv = &s.features;
        let p = sigmoid(k * fv.sente_eval(w));
        let d_eval = 2.0 * (p - s.result) * p * (1.0 - p) * k;
        for &(f, c) in &fv.linear {
            grad[usize::from(f)] += d_eval * f64::from(c);
        }
        for (terms, sign) in [(&fv.danger.sente, -1.0), (&fv.danger.gote, 1.0)] {
            let danger: f64 = terms
                .iter()
                .map(|&(f, c)| w[usize::from(f)] * f64::from(c))
                .sum();
            if danger <= 0.0 || danger * danger >= cap {
                continue;
            }
            let slope = sign * 2.0 * danger / div;
            for &(f, c) in terms {
                grad[usize::from(f)] += d_eval * slope * f64::from(c);
            }
        }
    }
    let n = samples.len().max(1) as f64;
    for g in grad.iter_mut() {
        *g /= n;
    }
}

fn write_weights(path: &PathBuf, w: &[i32], note: &str) -> Result<()> {
    let mut out = std::fs::File::create(path).with_context(|| format!("{}", path.display()))?;
    writeln!(
        out,
        "//! Evaluation weights, indexed by the feature numbers of [`super::features`] (centipawns for"
    )?;
    writeln!(
        out,
        "//! linear features, danger units for danger features)."
    )?;
    writeln!(out, "//!")?;
    for line in note.lines() {
        writeln!(out, "//! {line}")?;
    }
    writeln!(out, "\nuse super::features::COUNT;\n")?;
    writeln!(out, "#[rustfmt::skip]")?;
    writeln!(out, "pub(crate) const WEIGHTS: [i32; COUNT] = [")?;
    for chunk in w.chunks(12) {
        let items: Vec<String> = chunk.iter().map(|v| format!("{v},")).collect();
        writeln!(out, "    {}", items.join(" "))?;
    }
    writeln!(out, "];")?;
    Ok(())
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let start: Vec<f64> = weights().iter().map(|&v| f64::from(v)).collect();
    let (train, valid) = load(&cli)?;
    if train.is_empty() {
        bail!("no positions in the given result files");
    }
    eprintln!(
        "{} training and {} validation positions",
        train.len(),
        valid.len()
    );
    let k = fit_k(&train, &start);
    eprintln!(
        "K = {k:.6}; error train {:.6} validation {:.6}",
        error(&train, &start, k),
        error(&valid, &start, k)
    );

    let danger_from = features::ZONE_ATTACK;
    let groups = [
        ("board", features::BOARD, features::HAND),
        ("hand", features::HAND, features::RANK),
        ("rank", features::RANK, features::FILE),
        ("file", features::FILE, features::OWN_KING),
        ("own-king", features::OWN_KING, features::ENEMY_KING),
        ("enemy-king", features::ENEMY_KING, features::MOBILITY),
        ("mobility", features::MOBILITY, features::TEMPO),
        ("tempo", features::TEMPO, features::ZONE_ATTACK),
        ("danger", features::ZONE_ATTACK, features::HANGING),
        ("threat", features::HANGING, features::COUNT),
    ];
    for name in &cli.only {
        if !groups.iter().any(|g| g.0 == name) {
            bail!("--only: no feature group {name}");
        }
    }
    let free: Vec<bool> = (0..features::COUNT)
        .map(|i| {
            cli.only.is_empty()
                || groups.iter().any(|&(name, from, to)| {
                    (from..to).contains(&i) && cli.only.iter().any(|o| o == name)
                })
        })
        .collect();
    let mut w = start.clone();
    let mut grad = vec![0.0; w.len()];
    let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-12f64);
    for epoch in 1..=cli.epochs {
        gradient(&train, &w, k, &mut grad);
        for i in 0..w.len() {
            if !free[i] {
                continue;
            }
            let g = grad[i] + 2.0 * cli.l2 * (w[i] - start[i]);
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(epoch as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(epoch as i32));
            let lr = if (danger_from..features::HANGING).contains(&i) {
                cli.lr / 10.0
            } else {
                cli.lr
            };
            w[i] -= lr * m_hat / (v_hat.sqrt() + eps);
        }
        if epoch % 25 == 0 || epoch == cli.epochs {
            eprintln!(
                "epoch {epoch}: error train {:.6} validation {:.6}",
                error(&train, &w, k),
                error(&valid, &w, k)
            );
        }
    }
    let rounded: Vec<i32> = w.iter().map(|x| x.round() as i32).collect();
    let as_f64: Vec<f64> = rounded.iter().map(|&x| f64::from(x)).collect();
    eprintln!(
        "rounded: error train {:.6} validation {:.6}",
        error(&train, &as_f64, k),
        error(&valid, &as_f64, k)
    );
    eprintln!(
        "board values: {:?}",
        &rounded[features::BOARD..features::BOARD + 15]
    );
    eprintln!(
        "hand values:  {:?}",
        &rounded[features::HAND..features::HAND + 28]
    );
    let mut changes: Vec<(usize, i32)> = rounded
        .iter()
        .zip(weights())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i, a - b))
        .collect();
    changes.sort_by_key(|&(_, d)| -d.abs());
    for (i, d) in changes.iter().take(30) {
        let group = groups.iter().rev().find(|g| g.1 <= *i).map_or("?", |g| g.0);
        eprintln!(
            "  {group} [{}]: {} -> {} ({d:+})",
            i - groups.iter().rev().find(|g| g.1 <= *i).map_or(0, |g| g.1),
            weights()[*i],
            rounded[*i]
        );
    }
    if let Some(out) = &cli.out {
        let files: Vec<String> = cli
            .results
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let note = format!(
            "Fitted by `examples/tune_eval.rs` (Texel's method: K = {k:.6}, {} positions, {} epochs,\n\
             lr {}, l2 {}, skip {}, every {}, seed {}) to the games of:\n{}",
            train.len(),
            cli.epochs,
            cli.lr,
            cli.l2,
            cli.skip,
            cli.every,
            cli.seed,
            files.join("\n")
        );
        write_weights(out, &rounded, &note)?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
