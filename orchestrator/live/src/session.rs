//! A run or a tune played by a program, with what surrounds its games: the live page when asked,
//! a clean stop on Ctrl-C or SIGTERM, and what is printed when it ends. `council-match` and
//! `council-tune` call this, so their `main`s only parse arguments and map the outcome to an exit
//! status; the games themselves are the runner's ([`council_play::runner`]) and the tuner's
//! ([`council_play::tune`]). It lives beside the page because `--serve` needs the page.

use std::io::IsTerminal;

use council_play::runner::{self, RunError, RunOptions, RunOutcome, report};
use council_play::signals::cancel_on_stop_signals;
use council_play::tune::TuneError;
use council_play::tune::run::{TuneOptions, TuneOutcome, tune};
use council_schema::config::Config;
use council_schema::run::by_family::family_table;
use council_schema::run::summary::Summary;
use tokio_util::sync::CancellationToken;

use crate::{LivePage, TunePage};

/// Why a played run or tune stopped before its end: the page could not be served, or the run or
/// the tune failed (each says why itself).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Page(#[from] std::io::Error),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Tune(#[from] TuneError),
}

/// What a run prints when it ends: council's standings (and the results by opening family), or
/// nothing more (the field format has printed its report).
#[derive(Debug, Clone, Copy)]
pub enum Tables {
    Council { by_family: bool },
    None,
}

/// How a program plays a run: the live page's address when it serves one, what it prints when
/// the run ends, and the command that resumes the run (named when it is interrupted).
#[derive(Debug, Clone)]
pub struct RunSession<'a> {
    pub serve: Option<&'a str>,
    pub tables: Tables,
    pub resume: String,
}

/// The closing standings, and the results by opening family when `by_family`.
pub fn print_tables(s: &Summary, by_family: bool) {
    print!("{}", report::standings_table(s));
    if by_family {
        let players: Vec<String> = s.players.iter().map(|p| p.name.clone()).collect();
        print!("{}", family_table(&s.by_family, &players));
    }
}

/// Play the run (serving its live page when asked), stopping cleanly on Ctrl-C or SIGTERM; print
/// the tables `session` asks for. A served page stays up after a finished run until Ctrl-C or
/// SIGTERM.
pub async fn play_run(
    config: Config,
    mut opts: RunOptions,
    session: RunSession<'_>,
) -> Result<RunOutcome, SessionError> {
    let page = match session.serve {
        Some(addr) => {
            let page = LivePage::start(addr, &opts.out).await?;
            eprintln!("live page: {}", page.url());
            opts.feed = Some(page.feed());
            Some(page)
        }
        None => None,
    };
    let cancel = CancellationToken::new();
    let resume = session.resume;
    let on_stop = resume.clone();
    let signals = cancel_on_stop_signals(cancel.clone(), move || {
        // On a line of its own: on a terminal the progress bar's line is cleared first (the
        // bar redraws below).
        let clear = if std::io::stderr().is_terminal() {
            "\r\x1b[2K"
        } else {
            ""
        };
        eprintln!(
            "{clear}council-match: interrupted; finishing the writes. Resume with:\n  {on_stop}"
        );
    });
    let outcome = runner::run(config, &opts, cancel).await?;
    signals.abort();
    match session.tables {
        Tables::Council { by_family } => {
            print_tables(&outcome.summary, by_family);
            println!("results in {}", opts.out.display());
        }
        // The field format's last line on stdout is its own (`Tournament finished`).
        Tables::None => eprintln!("results in {}", opts.out.display()),
    }
    if outcome.interrupted {
        eprintln!(
            "council-match: interrupted after {} games; resume with:\n  {resume}",
            outcome.summary.games
        );
    }
    if let Some(page) = page
        && !outcome.interrupted
    {
        eprintln!(
            "the run is over; its live page stays up at {} until Ctrl-C or SIGTERM",
            page.url()
        );
        page.until_stopped().await;
    }
    Ok(outcome)
}

/// Play the tune into `opts.out` (serving its live page on `serve`), stopping cleanly on Ctrl-C
/// or SIGTERM. The page, when served, comes back marked finished: the program keeps it up while
/// it reports ([`TunePage::until_stopped`]).
pub async fn play_tune(
    config: Config,
    mut opts: TuneOptions,
    serve: Option<&str>,
) -> Result<(TuneOutcome, Option<TunePage>), SessionError> {
    let page = match serve {
        Some(addr) => {
            let page = TunePage::start(addr, &opts.out).await?;
            eprintln!("live page: {}", page.url());
            opts.feed = Some(page.feed());
            Some(page)
        }
        None => None,
    };
    let cancel = CancellationToken::new();
    let signals = cancel_on_stop_signals(cancel.clone(), || {
        eprintln!("council-tune: interrupted; rerun the same command to resume");
    });
    let outcome = tune(config, &opts, cancel).await;
    signals.abort();
    if let Some(page) = &page {
        page.finished();
    }
    Ok((outcome?, page))
}
