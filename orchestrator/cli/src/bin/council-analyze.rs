//! `council-analyze moves|ir|calibrate-ir|game-length|complexity|famous|resign|council|candidates|similarity`:
//! recorded games held against theory. Each subcommand is `council_study::analyze::<name>::run`;
//! this only parses the flags, calls it, and prints its report (exit 2 on any error).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use council_schema::stats::kalman::KalmanSettings;
use council_study::analyze::calibrate_ir::{self, CalibrateOptions};
use council_study::analyze::candidates::{self, CandidatesOptions, ReferenceOptions};
use council_study::analyze::complexity::{self, ComplexityOptions};
use council_study::analyze::council::{self, CouncilOptions, ModelSettings};
use council_study::analyze::game_length::{self, GameLengthOptions};
use council_study::analyze::ir::{self, IrOptions, Rules};
use council_study::analyze::moves::{self, MovesOptions, ReferenceEngine, ReferenceLimit, Sample};
use council_study::analyze::similarity::{self, SimilarityOptions};
use council_study::analyze::{Output, famous, resign};

#[derive(Parser, Debug)]
#[command(
    name = "council-analyze",
    version = council_stamp::version!(),
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

/// `candidates` also writes its hit rates as CSV.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum TableFormat {
    Text,
    Json,
    Csv,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Analyse every position of recorded games with the built-in engine as the reference: one
    /// JSON line per position (its candidates with scores, the played move always scored).
    Moves(MovesArgs),
    /// Per player: match rate, average error, the move-probability model's s and c (maximum
    /// likelihood and percentile method), and with a calibration the intrinsic rating.
    Ir(IrArgs),
    /// Fit IR = a - b AE to the players of an analysis with known Elo (`council-elo --format json`).
    CalibrateIr(CalibrateIrArgs),
    /// The random-walk model of game length fitted to a run's decisive games.
    GameLength(GameLengthArgs),
    /// Per game of an analysis made with `moves --complexity`: root against leaf-level score
    /// (ρ raw and Kalman-filtered), RMS speed, the 16-position windowed ρ and the Kalman series.
    Complexity(ComplexityArgs),
    /// Seed 004's famous-game model: p = 1/(1+exp(-(M0 + M1 rho))) by maximum likelihood, with
    /// leave-one-out probabilities, precision and recall at 50%.
    Famous(FamousArgs),
    /// Seed 004's resignation model per player: mu, sigma by maximum likelihood, leave-one-out
    /// precision, recall and F at 50%.
    Resign(ResignArgs),
    /// Per council of a run: members' noise and pairs' sync from the votes (and from a reference
    /// analysis of the run: best-move rates), the council model's predicted best-move rate of
    /// every method beside the measured one.
    Council(CouncilArgs),
    /// Seed 003's candidate model on the test side of its corpus: for every setting a-f, the
    /// normalised rank by decile and the top-k hit rates (k = 1..10) beside the exact chance
    /// rate, overall and by legal moves (6-25, 26-50, 51+).
    Candidates(CandidatesArgs),
    /// Seed 002's evaluation of `council-learn similarity` weights files: leave-one-game-out
    /// 1-NN accuracy of the strategy family, weighted and unweighted, at each file's plies, with
    /// the seed's figures beside its stages.
    Similarity(SimilarityArgs),
}

#[derive(Args, Debug)]
struct SimilarityArgs {
    /// Weights files of `council-learn similarity`, one row each.
    #[arg(required = true)]
    weights: Vec<PathBuf>,
    /// The corpus (any input `council-learn corpus` reads).
    #[arg(long, required = true, num_args = 1..)]
    corpus: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Args, Debug)]
struct CandidatesArgs {
    /// A model file of `council-learn candidates`.
    model: PathBuf,
    /// The corpus (any input `council-learn corpus` reads); only its test side is used.
    #[arg(required = true)]
    corpus: Vec<PathBuf>,
    /// The split's seed [default: the one the model file records].
    #[arg(long)]
    split_seed: Option<u64>,
    /// The test side's share [default: the one the model file records].
    #[arg(long)]
    test_share: Option<f64>,
    /// Also rank the built-in engine's best move, searched to this many nodes per position.
    #[arg(long, value_name = "N", conflicts_with = "reference_depth")]
    reference_nodes: Option<u64>,
    /// Also rank the built-in engine's best move, searched to this fixed depth.
    #[arg(long, value_name = "D")]
    reference_depth: Option<u32>,
    /// Positions the reference searches at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    format: TableFormat,
}

#[derive(Args, Debug)]
struct MovesArgs {
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
}

#[derive(Args, Debug)]
struct IrArgs {
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
}

#[derive(Args, Debug)]
struct CalibrateIrArgs {
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
}

#[derive(Args, Debug)]
struct GameLengthArgs {
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
}

#[derive(Args, Debug)]
struct ComplexityArgs {
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
}

#[derive(Args, Debug)]
struct FamousArgs {
    /// Columns game,rho,label[,exclude] (label 1 = chosen; excluded games are left out of
    /// every fit but still predicted).
    #[arg(long)]
    csv: PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Args, Debug)]
struct ResignArgs {
    /// Columns player,v,ebf,resigned (v: the resigner's score; resigned 1 at the resigning
    /// position, 0 sixteen plies earlier).
    #[arg(long)]
    csv: PathBuf,
    /// The "v only" variant: ignore the EBF.
    #[arg(long)]
    no_ebf: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Args, Debug)]
struct CouncilArgs {
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
}

fn main() -> ExitCode {
    council_cli::init_logging(true);
    let result = run(Cli::parse().command).map(|()| ExitCode::SUCCESS);
    council_cli::finish("council-analyze", 2, result)
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
        Command::Moves(a) => print!("{}", moves::run(&a.options()?)?.table()),
        Command::Ir(a) => print(&ir::run(&a.options())?, a.format)?,
        Command::CalibrateIr(a) => print!("{}", calibrate_ir::run(&a.options())?.table()),
        Command::GameLength(a) => print(&game_length::run(&a.options())?, a.format)?,
        Command::Complexity(a) => print(&complexity::run(&a.options())?, a.format)?,
        Command::Famous(a) => print(&famous::run(&a.csv)?, a.format)?,
        Command::Resign(a) => print(&resign::run(&a.csv, !a.no_ebf)?, a.format)?,
        Command::Council(a) => print(&council::run(&a.options())?, a.format)?,
        Command::Similarity(a) => {
            let report = similarity::run(&SimilarityOptions {
                weights: a.weights,
                corpus: a.corpus,
            })?;
            for w in &report.warnings {
                eprintln!("council-analyze: warning: {w}");
            }
            print(&report, a.format)?;
        }
        Command::Candidates(a) => {
            let report = candidates::run(&CandidatesOptions {
                model: a.model,
                corpus: a.corpus,
                split_seed: a.split_seed,
                test_share: a.test_share,
                reference: match (a.reference_nodes, a.reference_depth) {
                    (Some(n), _) => Some(ReferenceLimit::Nodes(n)),
                    (None, Some(d)) => Some(ReferenceLimit::Depth(d)),
                    (None, None) => None,
                }
                .map(|limit| ReferenceOptions {
                    limit,
                    concurrency: a.concurrency.unwrap_or_else(cores),
                    progress: !a.quiet,
                }),
            })?;
            for w in &report.warnings {
                eprintln!("council-analyze: warning: {w}");
            }
            match a.format {
                TableFormat::Text => print!("{}", report.table()),
                TableFormat::Json => println!("{}", report.json()?),
                TableFormat::Csv => print!("{}", report.csv()),
            }
        }
    }
    Ok(())
}

impl MovesArgs {
    fn options(self) -> anyhow::Result<MovesOptions> {
        Ok(MovesOptions {
            reference: match &self.reference {
                None => ReferenceEngine::Builtin,
                Some(text) => ReferenceEngine::from_spec(text)?,
            },
            limit: match self.depth {
                Some(d) => ReferenceLimit::Depth(d),
                None => ReferenceLimit::Nodes(self.nodes.unwrap_or(200_000)),
            },
            sample: self.sample.map(|fraction| Sample {
                fraction,
                seed: self.seed,
            }),
            complexity: self.complexity.then_some(self.ebf_nodes),
            concurrency: self.concurrency.unwrap_or_else(cores),
            progress: !self.quiet,
            inputs: self.inputs,
            out: self.out,
            screen_cp: self.screen_cp,
            players: self.players,
            multipv: self.multipv,
            skip_plies: self.skip_plies,
            resume: self.resume,
        })
    }
}

/// The default number of workers: the machine's cores.
fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

impl IrArgs {
    fn options(&self) -> IrOptions {
        IrOptions {
            file: self.file.clone(),
            u: self.u,
            max_cp: self.max_cp,
            skip_plies: self.skip_plies,
            calibration: self.calibration.clone(),
            seed: self.seed,
        }
    }
}

impl CalibrateIrArgs {
    fn options(self) -> CalibrateOptions {
        CalibrateOptions {
            file: self.file,
            elo: self.elo,
            out: self.out,
            rules: Rules {
                u: self.u,
                max_cp: self.max_cp,
                skip_plies: self.skip_plies,
            },
            svg: self.svg,
        }
    }
}

impl GameLengthArgs {
    fn options(&self) -> GameLengthOptions {
        GameLengthOptions {
            inputs: self.inputs.clone(),
            svg: self.svg.clone(),
            seed: self.seed,
        }
    }
}

impl ComplexityArgs {
    fn options(&self) -> ComplexityOptions {
        ComplexityOptions {
            file: self.file.clone(),
            kalman: KalmanSettings {
                q: self.kalman_q,
                r: self.kalman_r,
                p0: self.kalman_p0,
            },
            win_rate_t: self.win_rate_t,
            clamp_cp: self.clamp_cp,
            svg: self.svg.clone(),
        }
    }
}

impl CouncilArgs {
    fn options(&self) -> CouncilOptions {
        CouncilOptions {
            run: self.run.clone(),
            analysis: self.analysis.clone(),
            model: ModelSettings {
                candidates: self.candidates,
                trials: self.trials,
                seed: self.seed,
            },
        }
    }
}
