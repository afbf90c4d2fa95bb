//! What the orchestrator's programs share at the top, and only that: logging to stderr and the
//! one way a program ends. The libraries below return typed errors and set up no logging (so
//! none of them depends on clap, anyhow or a log subscriber); each program in `src/bin/` parses
//! its arguments into a library call and hands the result to [`finish`].

use std::process::ExitCode;

/// Diagnostics to stderr, `warn` and up unless `RUST_LOG` says otherwise (stdout is the table,
/// the JSON or the USI channel).
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
