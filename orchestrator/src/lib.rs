//! Players (in-process engine, USI process, council), the match runner and its arbiter, records
//! and ratings: `council-match`, the USI server `council-usi`, `council-elo`, `council-analyze`
//! and `council-learn`.

// Shared vocabulary: what every program of the crate speaks (`corpus`: recorded games to learn
// from, read through `results` for run folders).
pub mod config;
pub mod corpus;
pub mod results;
pub mod seed;
pub mod stats;

// Players, councils, and the one factory that builds them from a config.
pub mod council;
pub mod factory;
pub mod player;

// The programs' rooms: council-match's runner (arbiter, records, summary), council-usi's USI
// server, council-elo's report, council-analyze's analyses, council-learn's learning, council-tune's
// tuner (which plays through the runner's game loop). The
// runner tells a watcher of its moves through `runner::feed`.
pub mod analyze;
pub mod csa;
pub mod elo_report;
pub mod learn;
pub mod runner;
pub mod tune;
pub mod usi_server;

// Above the runner: the live page, a view of a run as it plays.
pub mod live;

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
