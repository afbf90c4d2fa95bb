//! `council-analyze moves|ir|calibrate-ir|game-length|council`: recorded games held against theory.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use orchestrator::analyze::ir::{self, CalibrationFile, Rules};
use orchestrator::analyze::{analysis, complexity, council, game_length, ir_svg, moves, verdicts};
use orchestrator::config::Config;
use orchestrator::runner::RunInfo;

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Analyse recorded games: intrinsic ratings and game length"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Analyse every position of recorded games with the built-in engine as the reference: one
    /// JSON line per position (its candidates with scores, the played move always scored).
    Moves {
        /// Run folders or results.jsonl files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The analysis file (JSON lines).
        #[arg(long)]
        out: PathBuf,
        /// The reference's node budget per position [default: 200000, unless --depth].
        #[arg(long, conflicts_with = "depth")]
        nodes: Option<u64>,
        /// Search every position to this fixed depth instead of a node budget.
        #[arg(long)]
        depth: Option<u32>,
        /// Give the MultiPV search only to positions a single-line search of the same budget
        /// scores below CP either way (the data rules drop |V0| >= 300 anyway); the others are
        /// written with their best move alone, marked `screened`.
        #[arg(long, value_name = "CP")]
        screen_cp: Option<i32>,
        /// Analyse only this share of the positions (0 < F <= 1), chosen by --seed; resume with
        /// a larger F and the same seed to add positions.
        #[arg(long, value_name = "F")]
        sample: Option<f64>,
        /// Analyse only this player's moves (repeat for several; default: every player's).
        #[arg(long = "player", value_name = "NAME")]
        players: Vec<String>,
        /// The sample's seed.
        #[arg(long, default_value_t = 1, requires = "sample")]
        seed: u64,
        /// A USI engine of a config as the reference (CONFIG:PLAYER); default: the built-in
        /// engine, in process.
        #[arg(long, value_name = "CONFIG:PLAYER")]
        reference: Option<String>,
        /// Candidates per position (MultiPV).
        #[arg(long, default_value_t = 50)]
        multipv: usize,
        /// Positions before this ply are not analysed.
        #[arg(long, default_value_t = 16)]
        skip_plies: u32,
        /// Also record each position's complexity (built-in reference): root score from sente's
        /// view, leaves and leaf ratio of a normal search, and the EBF.
        #[arg(long)]
        complexity: bool,
        /// The EBF's frontier-node threshold (with --complexity); 0: no EBF.
        #[arg(long, default_value_t = 200_000)]
        ebf_nodes: u64,
        /// Positions analysed at once (default: the number of cores).
        #[arg(long)]
        concurrency: Option<usize>,
        /// Continue an interrupted analysis in --out.
        #[arg(long)]
        resume: bool,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Per player: match rate, average error, the move-probability model's s and c (maximum
    /// likelihood and percentile method), and with a calibration the intrinsic rating.
    Ir {
        /// An analysis file of `moves`.
        file: PathBuf,
        /// The scaled error's unit, cp (default 100, or the calibration's).
        #[arg(long)]
        u: Option<f64>,
        /// Leave out positions the reference scores at this or beyond (default 300).
        #[arg(long)]
        max_cp: Option<f64>,
        /// Leave out positions before this ply (default 16).
        #[arg(long)]
        skip_plies: Option<u32>,
        /// A calibration file of `calibrate-ir`: adds ir, ir_lower, ir_upper (95%).
        #[arg(long)]
        calibration: Option<PathBuf>,
        /// Seed of the bootstrap over games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Fit IR = a - b AE to the players of an analysis with known Elo (`council-elo --format json`).
    CalibrateIr {
        file: PathBuf,
        #[arg(long)]
        elo: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 100.0)]
        u: f64,
        #[arg(long, default_value_t = 300.0)]
        max_cp: f64,
        #[arg(long, default_value_t = 16)]
        skip_plies: u32,
        /// Also draw each rung's Elo against its AE, the line and the leave-one-out IRs (SVG).
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// The random-walk model of game length fitted to a run's decisive games.
    GameLength {
        /// Run folders or results.jsonl files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Draw the games' lengths beside the fitted model.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Seed of the model's simulation in the plot.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Per game of an analysis made with `moves --complexity`: root against leaf-level score
    /// (ρ raw and Kalman-filtered), RMS speed, the 16-position windowed ρ and the Kalman series.
    Complexity {
        file: PathBuf,
        /// Process noise variance Q (cp²).
        #[arg(long, default_value_t = 400.0)]
        kalman_q: f64,
        /// Observation noise variance R (cp²).
        #[arg(long, default_value_t = 10000.0)]
        kalman_r: f64,
        /// P_0 = P·I (default: diag(R, 1e4, 1e4)).
        #[arg(long)]
        kalman_p0: Option<f64>,
        /// The win-rate constant T that turns the leaf ratio into a score.
        #[arg(long, default_value_t = 600.0)]
        win_rate_t: f64,
        /// Both series are clamped to ±this (a mate counts as a large score, not ±30000).
        #[arg(long, default_value_t = 3000.0)]
        clamp_cp: f64,
        /// Write one SVG per game into this folder.
        #[arg(long)]
        svg: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Seed 004's famous-game model: p = 1/(1+exp(-(M0 + M1 rho))) by maximum likelihood, with
    /// leave-one-out probabilities, precision and recall at 50%.
    Famous {
        /// Columns game,rho,label[,exclude] (label 1 = chosen; excluded games are left out of
        /// every fit but still predicted).
        #[arg(long)]
        csv: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Seed 004's resignation model per player: mu, sigma by maximum likelihood, leave-one-out
    /// precision, recall and F at 50%.
    Resign {
        /// Columns player,v,ebf,resigned (v: the resigner's score; resigned 1 at the resigning
        /// position, 0 sixteen plies earlier).
        #[arg(long)]
        csv: PathBuf,
        /// The "v only" variant: ignore the EBF.
        #[arg(long)]
        no_ebf: bool,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Per council of a run: members' noise and pairs' sync from the votes (and from a reference
    /// analysis of the run: best-move rates), the council model's predicted best-move rate of
    /// every method beside the measured one.
    Council {
        /// A council-match run folder.
        run: PathBuf,
        /// An analysis of the same run (`council-analyze moves RUN --out FILE`).
        #[arg(long)]
        analysis: Option<PathBuf>,
        /// The model's number of candidate moves.
        #[arg(long, default_value_t = 2)]
        candidates: usize,
        /// Simulated positions for the predictions.
        #[arg(long, default_value_t = 1_000_000)]
        trials: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

fn main() -> ExitCode {
    orchestrator::init_logging(true);
    match run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("council-analyze: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Moves {
            inputs,
            out,
            nodes,
            depth,
            screen_cp,
            sample,
            seed,
            players,
            reference,
            multipv,
            skip_plies,
            complexity,
            ebf_nodes,
            concurrency,
            resume,
            quiet,
        } => {
            let reference = match reference {
                None => moves::ReferenceEngine::Builtin,
                Some(text) => {
                    let (file, player) = text.rsplit_once(':').with_context(|| {
                        format!("--reference {text}: write CONFIG:PLAYER, e.g. configs/vs-fairy-stockfish.toml:fairy-stockfish")
                    })?;
                    let config = Config::load_players(std::path::Path::new(file))?;
                    let p = config
                        .players
                        .get(player)
                        .with_context(|| format!("--reference: {file} has no player `{player}`"))?;
                    moves::ReferenceEngine::Usi(Box::new(p.clone()))
                }
            };
            let concurrency = concurrency.unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
            let opts = moves::MovesOptions {
                inputs,
                out: out.clone(),
                reference,
                budget: match depth {
                    Some(d) => moves::Budget::Depth(d),
                    None => moves::Budget::Nodes(nodes.unwrap_or(200_000)),
                },
                screen_cp,
                sample: sample.map(|fraction| moves::Sample { fraction, seed }),
                players,
                multipv,
                skip_plies,
                complexity: complexity.then_some(ebf_nodes),
                concurrency,
                resume,
                progress: !quiet,
            };
            let r = moves::analyse(&opts).map_err(anyhow::Error::msg)?;
            println!(
                "{} positions of {} games in {} ({} analysed now, {:.1} s)",
                r.positions,
                r.games,
                out.display(),
                r.analysed_now,
                r.wall.as_secs_f64()
            );
        }
        Command::Ir {
            file,
            u,
            max_cp,
            skip_plies,
            calibration,
            seed,
            format,
        } => {
            let cal: Option<CalibrationFile> = match &calibration {
                Some(p) => {
                    let text =
                        std::fs::read_to_string(p).with_context(|| format!("{}", p.display()))?;
                    Some(
                        serde_json::from_str(&text)
                            .with_context(|| format!("{}: not a calibration file", p.display()))?,
                    )
                }
                None => None,
            };
            let base = cal
                .as_ref()
                .map_or_else(Rules::default, CalibrationFile::rules);
            let rules = Rules {
                u: u.unwrap_or(base.u),
                max_cp: max_cp.unwrap_or(base.max_cp),
                skip_plies: skip_plies.unwrap_or(base.skip_plies),
            };
            if let Some(c) = &cal {
                anyhow::ensure!(
                    rules == c.rules(),
                    "--u/--max-cp/--skip-plies differ from the calibration's ({} / {} / {}): an IR is only meaningful under the rules it was calibrated with",
                    c.u,
                    c.max_cp,
                    c.skip_plies
                );
            }
            let read = analysis::read(&file).map_err(anyhow::Error::msg)?;
            // The reference's lines depend on its settings (at depth 8, MultiPV 10 and 50 name
            // different best moves in a third to a half of the ladder's positions): rate only
            // by the calibration's own.
            if let Some(wanted) = cal.as_ref().and_then(|c| c.reference.as_ref())
                && let Some(p) = read
                    .positions
                    .iter()
                    .find(|p| !p.reference.same_search(wanted))
            {
                anyhow::bail!(
                    "{}: game {} ply {} was analysed by {}, the calibration {} by {}: analyse with the calibration's reference (engine, MultiPV, nodes or depth)",
                    file.display(),
                    p.game,
                    p.ply,
                    p.reference.describe(),
                    calibration
                        .as_ref()
                        .map(|c| c.display().to_string())
                        .unwrap_or_default(),
                    wanted.describe(),
                );
            }
            let by = ir::decisions_by_player(&read.positions, &rules);
            let players = ir::report(&by, cal.as_ref(), seed);
            match format {
                Format::Text => print!("{}", ir::table(&players)),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "players": players,
                        "u": rules.u,
                        "max_cp": rules.max_cp,
                        "skip_plies": rules.skip_plies,
                        "seed": seed,
                        "bootstrap": ir::BOOTSTRAP,
                    }))?
                ),
            }
        }
        Command::CalibrateIr {
            file,
            elo,
            out,
            u,
            max_cp,
            skip_plies,
            svg,
        } => {
            let text =
                std::fs::read_to_string(&elo).with_context(|| format!("{}", elo.display()))?;
            let json: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{}: not JSON", elo.display()))?;
            let mut ratings = BTreeMap::new();
            for p in json["players"].as_array().with_context(|| {
                format!(
                    "{}: no `players` list (write it with council-elo --format json)",
                    elo.display()
                )
            })? {
                if let (Some(name), Some(e)) = (p["name"].as_str(), p["elo"].as_f64()) {
                    ratings.insert(name.to_string(), e);
                }
            }
            let rules = Rules {
                u,
                max_cp,
                skip_plies,
            };
            let read = analysis::read(&file).map_err(anyhow::Error::msg)?;
            // One analysis differs from line to line only by a grown sample (`moves` refuses
            // anything else): a resume with a larger sample completes it, so name the largest.
            let reference = read
                .positions
                .iter()
                .map(|p| &p.reference)
                .max_by(|a, b| a.sample.unwrap_or(1.0).total_cmp(&b.sample.unwrap_or(1.0)))
                .cloned();
            let by = ir::decisions_by_player(&read.positions, &rules);
            let cal =
                ir::calibrate(&by, &ratings, &rules, reference).map_err(anyhow::Error::msg)?;
            std::fs::write(&out, serde_json::to_string_pretty(&cal)?)
                .with_context(|| format!("{}", out.display()))?;
            if let Some(svg) = &svg {
                ir_svg::write_calibration_svg(&cal, svg).map_err(anyhow::Error::msg)?;
            }
            println!(
                "IR = {:.1} - {:.1} AE  (R² {:.3}, {} players) -> {}",
                cal.a,
                cal.b,
                cal.r2,
                cal.rungs.len(),
                out.display()
            );
            if let Some(l) = &cal.on_ae_e {
                println!(
                    "on AE_e instead: IR = {:.1} - {:.1} AE_e  (R² {:.3})",
                    l.a, l.b, l.r2
                );
            }
            println!(
                "{:<16} {:>8} {:>8} {:>9} {:>8} {:>8} {:>10}",
                "player", "elo", "AE", "positions", "loo IR", "AE_e", "loo IR(e)"
            );
            let or_dash = |v: Option<f64>, digits: usize| {
                v.map_or("-".to_string(), |v| format!("{v:.digits$}"))
            };
            for r in &cal.rungs {
                println!(
                    "{:<16} {:>8.1} {:>8.4} {:>9} {:>8.1} {:>8} {:>10}",
                    r.name,
                    r.elo,
                    r.ae,
                    r.positions,
                    r.loo_ir,
                    or_dash(r.ae_e, 4),
                    or_dash(r.loo_ir_ae_e, 1)
                );
            }
        }
        Command::GameLength {
            inputs,
            svg,
            seed,
            format,
        } => {
            let games = moves::read_games(&inputs).map_err(anyhow::Error::msg)?;
            let report = game_length::analyse(&games).map_err(anyhow::Error::msg)?;
            if let Some(path) = &svg {
                game_length::svg(path, &games, &report, seed).map_err(anyhow::Error::msg)?;
            }
            match format {
                Format::Text => print!("{}", game_length::table(&report)),
                Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
            }
        }
        Command::Complexity {
            file,
            kalman_q,
            kalman_r,
            kalman_p0,
            win_rate_t,
            clamp_cp,
            svg,
            format,
        } => {
            anyhow::ensure!(
                kalman_q > 0.0 && kalman_r > 0.0 && kalman_p0.is_none_or(|p| p > 0.0),
                "--kalman-q, --kalman-r and --kalman-p0 are variances: give positive numbers"
            );
            let k = complexity::KalmanSettings {
                q: kalman_q,
                r: kalman_r,
                p0: kalman_p0,
            };
            let read = analysis::read(&file).map_err(anyhow::Error::msg)?;
            let games = complexity::analyse(&read.positions, &k, win_rate_t, clamp_cp)
                .map_err(anyhow::Error::msg)?;
            if let Some(dir) = &svg {
                complexity::svgs(dir, &games).map_err(anyhow::Error::msg)?;
            }
            match format {
                Format::Text => print!("{}", complexity::table(&games)),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "games": games,
                        "kalman": k,
                        "win_rate_t": win_rate_t,
                        "clamp_cp": clamp_cp,
                    }))?
                ),
            }
        }
        Command::Famous { csv, format } => {
            let r = verdicts::famous(&csv).map_err(anyhow::Error::msg)?;
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&r)?),
                Format::Text => {
                    println!("p = 1 / (1 + exp(-({:.3} + {:.3} rho)))", r.m0, r.m1);
                    for g in &r.games {
                        println!(
                            "{:>6.1}%  {}  rho {:.3}{}{}",
                            100.0 * g.loo_p,
                            if g.label { "chosen    " } else { "not chosen" },
                            g.rho,
                            if g.excluded {
                                " (excluded from fits)"
                            } else {
                                ""
                            },
                            format_args!("  {}", g.game)
                        );
                    }
                    println!(
                        "precision {:.1}%, recall {:.1}% (leave-one-out, at 50%)",
                        100.0 * r.precision,
                        100.0 * r.recall
                    );
                }
            }
        }
        Command::Resign {
            csv,
            no_ebf,
            format,
        } => {
            let players = verdicts::resign(&csv, !no_ebf).map_err(anyhow::Error::msg)?;
            match format {
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({ "players": players, "ebf": !no_ebf })
                    )?
                ),
                Format::Text => {
                    println!(
                        "{:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
                        "player", "positions", "mu", "sigma", "precision", "recall", "F"
                    );
                    for p in &players {
                        println!(
                            "{:<16} {:>9} {:>9.4} {:>9.4} {:>8.1}% {:>8.1}% {:>6.1}%",
                            p.name,
                            p.positions,
                            p.mu,
                            p.sigma,
                            100.0 * p.precision,
                            100.0 * p.recall,
                            100.0 * p.f
                        );
                    }
                }
            }
        }
        Command::Council {
            run,
            analysis: analysis_file,
            candidates,
            trials,
            seed,
            format,
        } => {
            anyhow::ensure!(candidates >= 2, "--candidates must be at least 2");
            let info = RunInfo::read(&run).map_err(anyhow::Error::msg)?;
            let config = Config::parse(std::path::Path::new(&info.config_file), &info.config_text)
                .with_context(|| {
                    format!(
                        "{}: the run's config as recorded",
                        run.join("run.json").display()
                    )
                })?;
            let games =
                moves::read_games(std::slice::from_ref(&run)).map_err(anyhow::Error::msg)?;
            let best = match &analysis_file {
                Some(f) => {
                    let read = analysis::read(f).map_err(anyhow::Error::msg)?;
                    Some(
                        read.positions
                            .iter()
                            .filter_map(|p| {
                                p.candidates
                                    .first()
                                    .map(|c| ((p.game, p.ply), c.mv.clone()))
                            })
                            .collect::<BTreeMap<_, _>>(),
                    )
                }
                None => None,
            };
            let opts = council::CouncilOptions {
                candidates,
                trials,
                seed,
            };
            let reports = council::analyse(&config, &games, best.as_ref(), opts)
                .map_err(anyhow::Error::msg)?;
            anyhow::ensure!(
                !reports.is_empty(),
                "{}: no council voted in this run",
                run.display()
            );
            match format {
                Format::Text => print!("{}", council::table(&reports)),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({ "councils": reports }))?
                ),
            }
        }
    }
    Ok(())
}
