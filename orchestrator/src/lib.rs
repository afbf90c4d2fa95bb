//! Players (in-process engine, USI process, council), the match runner and its arbiter, records
//! and ratings.

pub mod adjudicate;
pub mod config;
pub mod council;
pub mod frontend;
pub mod player;
pub mod rating_report;
pub mod record;
pub mod report;
pub mod results;
pub mod runner;
pub mod stats;

/// Diagnostics to stderr for the binaries, `warn` and up unless `RUST_LOG` says otherwise
/// (stdout is the table, the JSON or the USI channel).
pub fn init_logging(ansi: bool) {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
}
