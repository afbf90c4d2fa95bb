//! What the orchestrator's programs share at the top, and only that: logging to stderr and the
//! one way a program ends. The libraries below return typed errors and set up no logging (so
//! none of them depends on clap, anyhow or a log subscriber); each program in `src/bin/` parses
//! its arguments into a library call and hands the result to [`finish`].

use std::process::ExitCode;

/// Diagnostics to stderr, `warn` and up unless `RUST_LOG` says otherwise (stdout is the table,
/// the JSON or the USI channel). `RUST_LOG` takes `level` and `target=level` directives, comma
/// separated (tracing-subscriber's `Targets`, without env-filter's span and regex matching,
/// whose regex engine was a quarter of a megabyte of every program's code).
pub fn init_logging(ansi: bool) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::WARN));
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(ansi)
                .with_filter(filter),
        )
        .init();
}

/// The end of a program: `Ok(status)` is its exit status; an error is one line on stderr,
/// `<program>: <what failed: why>`, and the exit status `failure`.
pub fn finish(program: &str, failure: u8, result: anyhow::Result<ExitCode>) -> ExitCode {
    result.unwrap_or_else(|e| fail(program, failure, &e))
}

/// One line on stderr, `<program>: <what failed: why>`, and the exit status `status`.
pub fn fail(program: &str, status: u8, error: &anyhow::Error) -> ExitCode {
    eprintln!("{program}: {error:#}");
    ExitCode::from(status)
}
