//! `council-elo RESULTS.jsonl... [--anchor NAME=ELO] [--format text|csv|json] [--svg FILE]
//! [--by family] [--split-names]`: rating tables from one or more results files, and with
//! `--by family` the ratings within each opening family (see docs/reference/files.md and
//! docs/guide/ratings.md). A name that stands for different players in different runs (by
//! their `run.json`) is warned of, and rated apart with `--split-names`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use council_schema::stats::{Anchor, FitOptions, fit};
use council_study::elo_report::groups::{GroupBy, GroupedReport, groups_text, rate_groups};
use council_study::elo_report::identity::{Clash, Renames, find_clashes};
use council_study::elo_report::input::{MergedResults, read_results_with_progress};
use council_study::elo_report::svg::write_ratings_svg;
use council_study::elo_report::{MergeOptions, RatingReport};

/// What `--by` groups games by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum By {
    /// The opening family of each game (static-vs-static, static-vs-ranging:<file>,
    /// ranging-vs-ranging, unlabelled).
    Family,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Csv,
    Json,
}

/// Maximum-likelihood Elo ratings (Ordo's model) from council-match results files.
///
/// Identical results lines (the same game seen twice, e.g. the same file given twice) count once;
/// a malformed line stops with its file and line number.
#[derive(Debug, Parser)]
#[command(name = "council-elo", version = council_stamp::version!())]
struct Args {
    /// results.jsonl files to merge.
    #[arg(required = true, value_name = "RESULTS.jsonl")]
    files: Vec<PathBuf>,
    /// Pin player NAME at rating ELO (errors are then relative to NAME).
    #[arg(long, value_name = "NAME=ELO", conflicts_with = "average")]
    anchor: Option<String>,
    /// Pin the pool average at ELO (the default anchor, at 0).
    #[arg(long, value_name = "ELO", allow_negative_numbers = true)]
    average: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Also write a plot of the ratings with their intervals to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Fit the advantage of moving first (sente) in even games.
    #[arg(long)]
    first_move: bool,
    /// Virtual draws per player against the pool average (default: 0, or 1 when the games alone
    /// give no finite ratings, e.g. a player won every game; the report says so).
    #[arg(long, value_name = "N")]
    prior_draws: Option<f64>,
    /// Count every line, even one identical to a line seen before.
    #[arg(long)]
    keep_duplicates: bool,
    /// Skip malformed lines (each is reported on stderr) instead of stopping.
    #[arg(long)]
    skip_malformed: bool,
    /// After the main table, the ratings fitted separately within each group of games (same
    /// model and anchor; a group with too few games says so). Text and json formats.
    #[arg(long, value_enum, value_name = "GROUPING")]
    by: Option<By>,
    /// Rate a name that stands for different players in different runs (their run.json
    /// records the players) as one player per version, NAME@RUN (RUN: the first run
    /// folder's name where it is that player).
    #[arg(long)]
    split_names: bool,
}

fn parse_anchor(text: &str) -> Result<(String, f64)> {
    let Some((name, elo)) = text.rsplit_once('=') else {
        bail!("--anchor expects NAME=ELO, got {text:?}");
    };
    let elo: f64 = elo
        .trim()
        .parse()
        .with_context(|| format!("--anchor {text:?}: {elo:?} is not a number"))?;
    if name.is_empty() || !elo.is_finite() {
        bail!("--anchor expects NAME=ELO with a finite ELO, got {text:?}");
    }
    Ok((name.to_owned(), elo))
}

fn main() -> ExitCode {
    let result = run(&Args::parse()).map(|()| ExitCode::SUCCESS);
    council_cli::finish("council-elo", 1, result)
}

fn run(args: &Args) -> Result<()> {
    if args.by.is_some() && args.format == Format::Csv {
        bail!("--by prints text or json, not csv (use --format text or --format json)");
    }
    let anchor = anchor(args)?;
    let merged = read(args)?;
    if let Anchor::Player { name, .. } = &anchor {
        check_anchor(name, &merged, &args.files)?;
    }
    let options = FitOptions {
        anchor,
        first_move: args.first_move,
        prior_draws: args.prior_draws,
    };
    let ratings = fit(&merged.table, &options).with_context(|| {
        format!(
            "rating the {} games of {}",
            merged.games(),
            display_list(&args.files)
        )
    })?;
    let report = RatingReport::new(&merged, &ratings);
    let groups = group_by(args).map(|by| (by, rate_groups(by, &merged.groups, &options)));
    match (args.format, &groups) {
        (Format::Text, None) => print!("{}", report.to_text()),
        (Format::Text, Some((by, groups))) => {
            print!("{}{}", report.to_text(), groups_text(*by, groups));
        }
        (Format::Csv, _) => print!("{}", report.to_csv()),
        (Format::Json, None) => println!("{}", report.to_json()),
        (Format::Json, Some((_, groups))) => {
            let grouped = GroupedReport {
                report: &report,
                by_family: groups,
            };
            println!("{}", grouped.to_json());
        }
    }
    if let Some(svg) = &args.svg {
        write_ratings_svg(&report, svg)?;
    }
    Ok(())
}

/// `--by`'s grouping.
fn group_by(args: &Args) -> Option<GroupBy> {
    args.by.map(|By::Family| GroupBy::Family)
}

/// `--anchor NAME=ELO`, else `--average ELO` (0 by default).
fn anchor(args: &Args) -> Result<Anchor> {
    Ok(match (&args.anchor, args.average) {
        (Some(text), _) => {
            let (name, elo) = parse_anchor(text)?;
            Anchor::Player { name, elo }
        }
        (None, average) => Anchor::PoolMean {
            elo: average.unwrap_or(0.0),
        },
    })
}

/// The results files merged, with a progress bar over their bytes; each skipped line is
/// reported on stderr.
fn read(args: &Args) -> Result<MergedResults> {
    let clashes = find_clashes(&args.files);
    report_clashes(&clashes, &args.files, args.split_names);
    let renames = if args.split_names {
        Renames::of(&clashes)
    } else {
        Renames::default()
    };
    let total_bytes: u64 = args
        .files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let progress = ProgressBar::new(total_bytes);
    progress.set_style(
        ProgressStyle::with_template("reading {bytes}/{total_bytes} {wide_bar} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let merged = read_results_with_progress(
        &args.files,
        MergeOptions {
            keep_duplicates: args.keep_duplicates,
            skip_malformed: args.skip_malformed,
            group: group_by(args),
            renames,
        },
        &|bytes| progress.inc(bytes),
    )?;
    progress.finish_and_clear();
    for file in merged.files.iter().filter(|f| f.torn_tail) {
        eprintln!(
            "council-elo: {}: skipped its cut-off last line (a run still writing it, or stopped while it did)",
            file.path.display()
        );
    }
    for skipped in &merged.skipped {
        eprintln!(
            "council-elo: skipped {}:{}: {}",
            skipped.path.display(),
            skipped.line,
            skipped.message
        );
    }
    if merged.games() == 0 {
        bail!("no games in {}", display_list(&args.files));
    }
    Ok(merged)
}

/// One line per name that stands for different players in different runs: a warning, or with
/// `--split-names` what each version is rated as.
fn report_clashes(clashes: &[Clash], files: &[PathBuf], split: bool) {
    for c in clashes {
        let versions: Vec<String> = c
            .versions
            .iter()
            .map(|v| {
                let at: Vec<String> = v
                    .files
                    .iter()
                    .map(|&f| files[f].display().to_string())
                    .collect();
                format!("{} ({})", v.qualified, at.join(", "))
            })
            .collect();
        let differs = c.differs_in.join(", ");
        if split {
            eprintln!(
                "council-elo: `{}` stands for {} different players (they differ in: {differs}); rated apart as {}",
                c.name,
                c.versions.len(),
                versions.join("; ")
            );
        } else {
            eprintln!(
                "council-elo: warning: `{}` stands for {} different players (they differ in: {differs}): {}; their games are rated as one player's (--split-names rates them apart)",
                c.name,
                c.versions.len(),
                versions.join("; ")
            );
        }
    }
}

/// The anchor must be one of the players (naming up to 20 of them when it is not).
fn check_anchor(name: &str, merged: &MergedResults, files: &[PathBuf]) -> Result<()> {
    if merged.table.player_index(name).is_some() {
        return Ok(());
    }
    let players = merged.table.players();
    let mut shown = players
        .iter()
        .take(20)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if players.len() > 20 {
        shown.push_str(&format!(", ... ({} players)", players.len()));
    }
    bail!(
        "--anchor: no player named {name:?} in {}; players: {shown}",
        display_list(files)
    );
}

fn display_list(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
