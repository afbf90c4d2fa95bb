//! `council-analyze moves|ir|calibrate-ir|game-length|complexity|famous|resign|council`:
//! recorded games held against theory. Each subcommand is `orchestrator::analyze::<name>::run`;
//! this only parses the flags, calls it, and prints its report (exit 2 on any error).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use orchestrator::analyze::calibrate_ir::{self, CalibrateOptions};
use orchestrator::analyze::complexity::{self, ComplexityOptions};
use orchestrator::analyze::council::{self, CouncilOptions, ModelSettings};
use orchestrator::analyze::game_length::{self, GameLengthOptions};
use orchestrator::analyze::ir::{self, IrOptions, Rules};
use orchestrator::analyze::moves::{self, MovesOptions, ReferenceEngine, ReferenceLimit, Sample};
use orchestrator::analyze::{Output, famous, resign};
use orchestrator::stats::kalman::KalmanSettings;

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

/// Print a report as `format` asks.
fn print(report: &impl Output, format: Format) -> anyhow::Result<()> {
    match format {
        Format::Text => print!("{}", report.table()),
        Format::Json => println!("{}", report.json()?),
    }
    Ok(())
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
            let report = moves::run(&MovesOptions {
                inputs,
                out,
                reference: match reference {
                    None => ReferenceEngine::Builtin,
                    Some(text) => ReferenceEngine::from_spec(&text)?,
                },
                limit: match depth {
                    Some(d) => ReferenceLimit::Depth(d),
                    None => ReferenceLimit::Nodes(nodes.unwrap_or(200_000)),
                },
                screen_cp,
                sample: sample.map(|fraction| Sample { fraction, seed }),
                players,
                multipv,
                skip_plies,
                complexity: complexity.then_some(ebf_nodes),
                concurrency: concurrency.unwrap_or_else(cores),
                resume,
                progress: !quiet,
            })?;
            print!("{}", report.table());
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
            let options = IrOptions {
                file,
                u,
                max_cp,
                skip_plies,
                calibration,
                seed,
            };
            print(&ir::run(&options)?, format)?;
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
            let rules = Rules {
                u,
                max_cp,
                skip_plies,
            };
            let options = CalibrateOptions {
                file,
                elo,
                out,
                rules,
                svg,
            };
            print!("{}", calibrate_ir::run(&options)?.table());
        }
        Command::GameLength {
            inputs,
            svg,
            seed,
            format,
        } => {
            let options = GameLengthOptions { inputs, svg, seed };
            print(&game_length::run(&options)?, format)?;
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
            let kalman = KalmanSettings {
                q: kalman_q,
                r: kalman_r,
                p0: kalman_p0,
            };
            let options = ComplexityOptions {
                file,
                kalman,
                win_rate_t,
                clamp_cp,
                svg,
            };
            print(&complexity::run(&options)?, format)?;
        }
        Command::Famous { csv, format } => print(&famous::run(&csv)?, format)?,
        Command::Resign {
            csv,
            no_ebf,
            format,
        } => print(&resign::run(&csv, !no_ebf)?, format)?,
        Command::Council {
            run,
            analysis,
            candidates,
            trials,
            seed,
            format,
        } => {
            let model = ModelSettings {
                candidates,
                trials,
                seed,
            };
            let options = CouncilOptions {
                run,
                analysis,
                model,
            };
            print(&council::run(&options)?, format)?;
        }
    }
    Ok(())
}

/// The default number of workers: the machine's cores.
fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
