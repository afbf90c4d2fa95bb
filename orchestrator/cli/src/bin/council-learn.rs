//! `council-learn corpus|candidates|similarity|export`: what is learned from recorded games. Each subcommand is
//! `council_study::learn::<name>::run`; this only parses the flags, calls it, prints its report
//! (problems with the inputs as warning lines on stderr) and exits 2 on any error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use council_schema::training::{CouncilScore, Format, Settings};
use council_study::learn::candidates::{self, CandidatesOptions};
use council_study::learn::corpus::{self, CorpusOptions};
use council_study::learn::export::{self, ExportOptions};
use council_study::learn::similarity::{self, Plies, SimilarityOptions};

#[derive(Parser, Debug)]
#[command(
    name = "council-learn",
    version = council_stamp::version!(),
    about = "Learn from recorded games: pack a corpus, learn the candidate-move model"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Pack games (CSA, KIF, run folders, results files, USI position lines; folders
    /// recursed) into one corpus file of USI position lines with a provenance header.
    Corpus(CorpusArgs),
    /// Learn the candidate-move model (seed 003) from the training side of the corpus's
    /// seeded split and write the model file.
    Candidates(CandidatesArgs),
    /// Learn seed 002's similarity weights by linear programming from FAR pairs (positions of
    /// different strategy families) and write the weights file.
    Similarity(SimilarityArgs),
    /// Write training data (YaneuraOu PackedSfenValue, cshogi hcpe, YaneuraOu plain text):
    /// every position of every game with the mover's score, the move played, the ply and the
    /// result from the mover's view.
    Export(ExportArgs),
}

#[derive(Args, Debug)]
struct ExportArgs {
    /// Run folders, results files, or any input `corpus` reads (corpus games have no scores).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// psv (40-byte PackedSfenValue), hcpe (38-byte HuffmanCodedPosAndEval) or sfen (plain text).
    #[arg(long)]
    format: Format,
    /// The file to write (its sidecar is FILE.json).
    #[arg(long)]
    out: PathBuf,
    /// A council's score: chosen (the member it played), mean (every member), voters (those
    /// that voted for the move played).
    #[arg(long, default_value = "chosen")]
    council_score: CouncilScore,
    /// Leave out the opening's plies (the start line's moves).
    #[arg(long)]
    skip_book: bool,
    /// Leave out positions whose side to move is in check.
    #[arg(long)]
    skip_in_check: bool,
    /// Leave out positions scored beyond ±CP (and every mate).
    #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(0..))]
    max_score: Option<i32>,
    /// Only the winner's moves.
    #[arg(long)]
    winner_only: bool,
    /// Leave out a position (board, hands, side to move) met before.
    #[arg(long)]
    dedup: bool,
    /// Keep positions without a score, with score 0.
    #[arg(long)]
    keep_unscored: bool,
    /// Shuffle the records with this seed (default: game order).
    #[arg(long, value_name = "SEED")]
    shuffle: Option<u64>,
}

#[derive(Args, Debug)]
struct SimilarityArgs {
    /// Corpus files (or any input `corpus` reads).
    #[arg(required = true)]
    corpus: Vec<PathBuf>,
    /// The plies of each game, `A-B` (or one ply `A`).
    #[arg(long)]
    plies: String,
    /// Every how many plies within the range a position is taken.
    #[arg(long, default_value_t = 5)]
    step: usize,
    /// 56 or 112.
    #[arg(long, default_value = "56")]
    grouping: engine::similarity::Grouping,
    /// The weights file to write.
    #[arg(long)]
    out: PathBuf,
    /// FAR pairs drawn for the linear program.
    #[arg(long, default_value_t = 500)]
    far_pairs: usize,
    /// The seed of the FAR-pair draw.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args, Debug)]
struct CorpusArgs {
    /// Files, folders and run folders.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The corpus file to write.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct CandidatesArgs {
    /// Corpus files (or any input `corpus` reads).
    #[arg(required = true)]
    corpus: Vec<PathBuf>,
    /// The model file to write.
    #[arg(long)]
    out: PathBuf,
    /// Share of the games kept for testing, not learned.
    #[arg(long, default_value_t = 0.1)]
    test_share: f64,
    /// The seed of the train/test split.
    #[arg(long, default_value_t = 1)]
    split_seed: u64,
    /// Learn only the winners' moves.
    #[arg(long)]
    winner_only: bool,
}

fn main() -> ExitCode {
    council_cli::init_logging(true);
    let result = run(Cli::parse().command).map(|()| ExitCode::SUCCESS);
    council_cli::finish("council-learn", 2, result)
}

fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("council-learn: warning: {w}");
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Corpus(a) => {
            let report = corpus::run(&CorpusOptions {
                inputs: a.inputs,
                out: a.out,
                command: council_study::learn::command_line(),
            })?;
            warn_all(&report.warnings);
            print!("{}", report.table());
        }
        Command::Candidates(a) => {
            let report = candidates::run(&CandidatesOptions {
                corpus: a.corpus,
                out: a.out,
                test_share: a.test_share,
                split_seed: a.split_seed,
                winner_only: a.winner_only,
                command: council_study::learn::command_line(),
            })?;
            warn_all(&report.warnings);
            print!("{}", report.table());
        }
        Command::Similarity(a) => {
            let plies = Plies::parse(&a.plies, a.step)?;
            let report = similarity::run(&SimilarityOptions {
                corpus: a.corpus,
                plies,
                grouping: a.grouping,
                out: a.out,
                far_pairs: a.far_pairs,
                seed: a.seed,
                command: council_study::learn::command_line(),
            })?;
            warn_all(&report.warnings);
            print!("{}", report.table());
        }
        Command::Export(a) => {
            let report = export::run(&ExportOptions {
                inputs: a.inputs,
                settings: Settings {
                    council_score: a.council_score,
                    skip_book: a.skip_book,
                    skip_in_check: a.skip_in_check,
                    max_score: a.max_score,
                    winner_only: a.winner_only,
                    dedup: a.dedup,
                    keep_unscored: a.keep_unscored,
                    ..Settings::new(a.format)
                },
                shuffle: a.shuffle,
                out: a.out,
                command: council_study::learn::command_line(),
            })?;
            warn_all(&report.warnings);
            print!("{}", report.table());
        }
    }
    Ok(())
}
