//! The ways to serve a live page: beside the run this process plays ([`LivePage`],
//! `council-match CONFIG --serve`), beside the tune this process runs ([`TunePage`],
//! `council-tune CONFIG --serve`), or of a run or tune folder read as it grows
//! ([`serve_folder`], `council-match serve DIR`).

use std::sync::Arc;

use super::follow::{follow, open};
use super::server::{bind, serve};
use super::state::{Live, Phase};
use super::tune::{follow_tune, is_tune_folder};
use council_play::game::feed::RunFeed;

/// `council-match CONFIG --serve`: the page of the run this process plays.
#[derive(Debug)]
pub struct LivePage {
    live: Arc<Live>,
    stop: tokio_util::sync::CancellationToken,
    server: tokio::task::JoinHandle<()>,
    url: String,
}

impl LivePage {
    /// Bind `addr` and serve the page of a run into the folder `out` (which then plays with
    /// [`Self::feed`] in its options, and tells the page its plan as it starts).
    pub async fn start(addr: &str, out: &std::path::Path) -> Result<Self, std::io::Error> {
        let listener = bind(addr).await?;
        let url = format!("http://{}/", listener.local_addr()?);
        let live = Live::new(None, Phase::Playing);
        live.set_folder(out);
        let stop = tokio_util::sync::CancellationToken::new();
        let server = tokio::spawn(serve(live.clone(), listener, stop.clone()));
        Ok(Self {
            live,
            stop,
            server,
            url,
        })
    }

    /// Where the page is.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What the runner publishes to.
    pub fn feed(&self) -> Arc<dyn RunFeed> {
        self.live.clone()
    }

    /// Keep serving until Ctrl-C or SIGTERM (as Slurm and Kubernetes stop a job), then stop.
    pub async fn until_stopped(self) {
        council_play::signals::stop_signal().await;
        self.stop.cancel();
        let _ = self.server.await;
    }
}

/// A run folder or an address that cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error(transparent)]
    Folder(#[from] council_schema::run::RunInfoError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// `council-tune CONFIG --serve`: the page of the tune this process runs into `out`. The tune's
/// course and finished games are read from `out` as the tune writes them; the games in play
/// come through [`Self::feed`].
#[derive(Debug)]
pub struct TunePage {
    page: LivePage,
}

impl TunePage {
    pub async fn start(addr: &str, out: &std::path::Path) -> Result<Self, std::io::Error> {
        let listener = bind(addr).await?;
        let url = format!("http://{}/", listener.local_addr()?);
        let live = Live::new(None, Phase::Playing);
        live.set_folder(out);
        let stop = tokio_util::sync::CancellationToken::new();
        tokio::spawn(follow_tune(out.to_path_buf(), live.clone()));
        let server = tokio::spawn(serve(live.clone(), listener, stop.clone()));
        Ok(Self {
            page: LivePage {
                live,
                stop,
                server,
                url,
            },
        })
    }

    pub fn url(&self) -> &str {
        self.page.url()
    }

    /// What the tune's games publish their moves to.
    pub fn feed(&self) -> Arc<dyn RunFeed> {
        self.page.feed()
    }

    /// The tune is over (or stopped): no game is in play any more.
    pub fn finished(&self) {
        self.page.live.set_phase(Phase::Finished);
    }

    /// Keep serving until Ctrl-C or SIGTERM, then stop.
    pub async fn until_stopped(self) {
        self.page.until_stopped().await;
    }
}

/// `council-match serve DIR`: serve the run folder or tune folder (one holding `tune.jsonl`)
/// `dir` on `addr`, following it as it grows, until Ctrl-C or SIGTERM.
pub async fn serve_folder(dir: &std::path::Path, addr: &str) -> Result<(), ServeError> {
    let tune = is_tune_folder(dir);
    let live = if tune {
        let live = Live::new(None, Phase::Following);
        live.set_folder(dir);
        live
    } else {
        open(dir)?
    };
    let listener = bind(addr).await?;
    eprintln!(
        "live page of {}{}: http://{}/ (Ctrl-C to stop)",
        if tune { "the tune in " } else { "" },
        dir.display(),
        listener.local_addr()?
    );
    let stop = tokio_util::sync::CancellationToken::new();
    if tune {
        tokio::spawn(follow_tune(dir.to_path_buf(), live.clone()));
    } else {
        tokio::spawn(follow(dir.to_path_buf(), live.clone()));
    }
    let server = tokio::spawn(serve(live, listener, stop.clone()));
    council_play::signals::stop_signal().await;
    stop.cancel();
    let _ = server.await;
    Ok(())
}
