//! Stopping a run from outside: Ctrl-C, or SIGTERM as batch schedulers send (scancel, the end
//! of a Kubernetes pod), cancels the run's token, so that the runner finishes its writes and
//! the run can be resumed. The program says what happened (`on_stop`): the library never prints.
//! A page served after the run ends on either signal too ([`stop_signal`]).

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
