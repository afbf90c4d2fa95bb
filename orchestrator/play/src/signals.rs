//! Stopping a run from outside: Ctrl-C, or SIGTERM as batch schedulers send (scancel, the end
//! of a Kubernetes pod), cancels the run's token, so that the runner finishes its writes and
//! the run can be resumed. The program says what happened (`on_stop`): the library never prints.
//! `council-csa` also needs who stopped it (the game in progress is recorded with the signal's
//! name) and a way out at once on a second signal: [`Stop`] and [`stop_on_signals`]. A page
//! served after the run ends on either signal too ([`stop_signal`]).

use std::sync::{Arc, OnceLock};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Cancel `cancel` at the first Ctrl-C or SIGTERM, after calling `on_stop`. Abort the returned
/// task when the run is over. Call within a tokio runtime.
pub fn cancel_on_stop_signals(
    cancel: CancellationToken,
    on_stop: impl FnOnce() + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        if stop_signal().await {
            on_stop();
            cancel.cancel();
        }
    })
}

/// The first Ctrl-C or SIGTERM: true when one came (false when neither can be listened for).
/// Call within a tokio runtime.
pub async fn stop_signal() -> bool {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => t.recv().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.is_ok(),
        _ = terminated => true,
    }
}

/// A request to stop and who made it: what a loop that must record its work before it ends
/// selects on ([`Stop::requested`]), and the name it records (`SIGTERM`). Clones share it.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    token: CancellationToken,
    by: Arc<OnceLock<String>>,
}

impl Stop {
    pub fn new() -> Self {
        Stop::default()
    }

    /// Ask to stop; the first request's `by` is the one kept.
    pub fn request(&self, by: &str) {
        let _ = self.by.set(by.to_string());
        self.token.cancel();
    }

    /// Who asked, once someone has.
    pub fn by(&self) -> Option<&str> {
        self.by.get().map(String::as_str)
    }

    pub fn is_requested(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Resolves when a stop is asked for (at once if it was).
    pub async fn requested(&self) {
        self.token.cancelled().await;
    }
}

/// Request `stop` at the first Ctrl-C or SIGTERM, by the signal's name, after calling `on_first`
/// with it; call `on_second` at the next one (where a program exits at once, without waiting
/// for what the first one lets finish). Abort the returned task when the work is over. Call
/// within a tokio runtime.
pub fn stop_on_signals(
    stop: Stop,
    on_first: impl FnOnce(&'static str) + Send + 'static,
    on_second: impl FnOnce(&'static str) + Send + 'static,
) -> JoinHandle<()> {
    use tokio::signal::unix::{SignalKind, signal};
    tokio::spawn(async move {
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        let mut next = async || -> &'static str {
            tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            }
        };
        let first = next().await;
        on_first(first);
        stop.request(first);
        on_second(next().await);
    })
}
