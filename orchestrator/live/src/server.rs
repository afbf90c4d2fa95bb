//! The live page's HTTP server (axum): the page and its script embedded in the binary, the JSON
//! endpoints of `docs/reference/files.md` ("Live page"), the server-sent event stream, the kanji
//! font the page draws its pieces with, and the finished games' records ([`super::records`]).
//!
//! Invariants: read-only (GET routes only); handlers are small and read a snapshot of [`Live`];
//! a browser that falls behind the event channel has its stream ended (its `EventSource`
//! reconnects and starts again from a snapshot), and one that stops reading is dropped when a
//! write to it has waited [`STALL_LIMIT`] ([`StallGuard`]): no browser holds up the run or the
//! other browsers. Every page asset is served from here; the page fetches nothing elsewhere,
//! and its Content-Security-Policy forbids it to.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

use super::positions::positions;
use super::records::{content_type, find_record, record_files};
use super::state::{Live, Message};

/// How long a write to a browser may wait for it to read before it is dropped.
pub const STALL_LIMIT: Duration = Duration::from_secs(10);

/// The kernel's send buffer per connection (Linux doubles it): bounds what a browser that stopped
/// reading holds of the server's memory, instead of the megabytes loopback autotuning grants.
const SEND_BUFFER: usize = 64 * 1024;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");
/// The glyphs the page draws in kanji, a subset of Noto Serif CJK JP (`font/subset.sh` builds
/// it), so that pieces read on a machine without a CJK font; its licence beside it.
const KANJI_WOFF2: &[u8] = include_bytes!("assets/font/kanji.woff2");
const KANJI_LICENCE: &str = include_str!("assets/font/OFL.txt");

/// No script, style, font, image or connection from anywhere but this server; no inline script.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; \
                   img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
                   frame-ancestors 'none'";

/// A record file is text to read or save, never a document to run.
const RECORD_CSP: &str = "default-src 'none'; sandbox";

/// Bind the page's address (`127.0.0.1:8700` unless given), naming it when that fails.
pub async fn bind(addr: &str) -> Result<TcpListener, io::Error> {
    TcpListener::bind(addr).await.map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot serve the live page on {addr}: {e}"),
        )
    })
}

/// The routes over `live`.
pub fn router(live: Arc<Live>) -> Router {
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", INDEX_HTML)))
        .route(
            "/app.js",
            get(|| asset("text/javascript; charset=utf-8", APP_JS)),
        )
        .route(
            "/style.css",
            get(|| asset("text/css; charset=utf-8", STYLE_CSS)),
        )
        .route(
            "/font/kanji.woff2",
            get(|| asset("font/woff2", KANJI_WOFF2)),
        )
        .route(
            "/font/OFL.txt",
            get(|| asset("text/plain; charset=utf-8", KANJI_LICENCE)),
        )
        .route("/api/summary", get(summary))
        .route("/api/games", get(games))
        .route("/api/games/{id}/positions", get(game_positions))
        .route("/records/{file}", get(record))
        .route("/api/live", get(live_games))
        .route("/api/tune", get(tune))
        .route("/api/events", get(events))
        .with_state(live)
}

/// Serve `live` on `listener` until `shutdown` is cancelled.
pub async fn serve(live: Arc<Live>, listener: TcpListener, shutdown: CancellationToken) {
    let app = router(live);
    tokio::select! {
        r = axum::serve(GuardedListener(listener), app) => {
            if let Err(e) = r {
                tracing::error!("live page: the server stopped: {e}");
            }
        }
        () = shutdown.cancelled() => {}
    }
}

async fn asset(content_type: &'static str, body: impl IntoResponse) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn json_text(text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        text,
    )
        .into_response()
}

fn json<T: serde::Serialize + ?Sized>(value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(text) => json_text(text),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn summary(State(live): State<Arc<Live>>) -> Response {
    json(&*live.summary())
}

async fn games(State(live): State<Arc<Live>>) -> Response {
    let games = live.finished();
    let list: Vec<&council_schema::results::GameResult> = games.iter().map(|g| &**g).collect();
    json(&list)
}

/// What the replay of a finished game needs: its positions, its moves in KIF notation and the
/// names of its record files (those that exist).
async fn game_positions(State(live): State<Arc<Live>>, Path(id): Path<u64>) -> Response {
    // An older game is read back from the folder's results: off the runtime's threads.
    let found = tokio::task::spawn_blocking({
        let live = live.clone();
        move || live.finished_game(id)
    })
    .await;
    let Ok(Some(g)) = found else {
        return (StatusCode::NOT_FOUND, format!("no finished game {id}")).into_response();
    };
    let records = live
        .folder()
        .map(|dir| record_files(&dir, &g))
        .unwrap_or_default();
    let replay = positions(&g);
    json(&serde_json::json!({
        "id": id, "sfens": replay.sfens, "kif": replay.kif, "records": records,
    }))
}

/// A finished game's CSA or KIF record, by the file name [`game_positions`] gave. The name is
/// only compared with the names of the games' records, never joined to a path.
async fn record(State(live): State<Arc<Live>>, Path(file): Path<String>) -> Response {
    let not_found = || (StatusCode::NOT_FOUND, "no such record").into_response();
    let Some(dir) = live.folder() else {
        return not_found();
    };
    let mut games = live.finished();
    // A record of an older game than the page keeps: its id leads its name.
    let older = file
        .split('-')
        .next()
        .and_then(|id| id.parse::<u64>().ok())
        .filter(|id| !games.iter().any(|g| g.id == *id));
    if let Some(id) = older {
        let live = live.clone();
        if let Ok(Some(g)) = tokio::task::spawn_blocking(move || live.finished_game(id)).await {
            games.push(g);
        }
    }
    let Some(path) = find_record(&dir, games.iter().map(|g| &**g), &file) else {
        return not_found();
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(&path)),
                (header::CONTENT_SECURITY_POLICY, RECORD_CSP),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            bytes,
        )
            .into_response(),
        Err(e) => {
            tracing::warn!("live page: cannot read {}: {e}", path.display());
            not_found()
        }
    }
}

async fn live_games(State(live): State<Arc<Live>>) -> Response {
    json(&live.live_games())
}

async fn tune(State(live): State<Arc<Live>>) -> Response {
    json(&live.tune())
}

/// A snapshot first, then every event; the stream ends when the browser falls behind the
/// channel (it reconnects and gets a new snapshot).
async fn events(
    State(live): State<Arc<Live>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // Subscribe before the snapshot: an event may then come twice, never be missed.
    let rx = live.subscribe();
    let snapshot = serde_json::to_string(&live.snapshot()).unwrap_or_else(|_| "{}".into());
    let first = Event::default()
        .event("snapshot")
        .retry(Duration::from_secs(2))
        .data(snapshot);
    let rest = futures::stream::unfold(rx, |mut rx| async move {
        match rx.recv().await {
            Ok(Message { kind, data }) => Some((Ok(Event::default().event(kind).data(&*data)), rx)),
            // Lagged: this browser missed events; Closed: the run's view is gone.
            Err(_) => None,
        }
    });
    let stream = futures::StreamExt::chain(futures::stream::once(async { Ok(first) }), rest);
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// Accepts connections as [`StallGuard`]s.
struct GuardedListener(TcpListener);

impl axum::serve::Listener for GuardedListener {
    type Io = StallGuard;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (io, peer) = axum::serve::Listener::accept(&mut self.0).await;
        let _ = io.set_nodelay(true);
        let _ = socket2::SockRef::from(&io).set_send_buffer_size(SEND_BUFFER);
        (
            StallGuard {
                io,
                peer,
                stalled: None,
            },
            peer,
        )
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// A connection whose writes fail once one has waited [`STALL_LIMIT`] for the peer to read, so
/// the server drops a browser that stopped reading instead of holding its connection forever.
/// (Hand-written because the one crate that does this, `tokio-io-timeout`, cannot say whom it
/// dropped.)
pub struct StallGuard {
    io: TcpStream,
    peer: SocketAddr,
    /// Started when a write first had to wait; cleared by any write that goes through.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl StallGuard {
    fn guard<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        if self.stalled.is_none() {
            tracing::debug!("live page: {} is not reading; waiting for it", self.peer);
        }
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(STALL_LIMIT)));
        ready!(timer.as_mut().poll(cx));
        tracing::warn!(
            "live page: dropped {}: it read nothing for {} s",
            self.peer,
            STALL_LIMIT.as_secs()
        );
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the browser stopped reading",
        )))
    }
}

impl AsyncRead for StallGuard {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for StallGuard {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write(cx, buf);
        self.guard(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.guard(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.io).poll_flush(cx);
        self.guard(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// Whether the page's font is the one to draw `c` with: kanji, kana, full-width forms and
    /// the shogi marks (the rest is Latin and symbols every font has).
    fn needs_the_font(c: char) -> bool {
        matches!(c, '\u{3000}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' | '\u{FF00}'..='\u{FFEF}')
            || "▲△☗☖".contains(c)
    }

    /// Every character the page can show in kanji is one `font/subset.sh` puts in the font:
    /// those of the page's own text, of the KIF moves and of the opening families' names.
    #[test]
    fn the_font_holds_every_kanji_the_page_can_show() {
        let glyphs = include_str!("../font/glyphs.txt");
        let mut shown: Vec<String> = vec![INDEX_HTML.into(), APP_JS.into()];
        shown.extend(
            engine::strategy::Family::all()
                .into_iter()
                .map(|f| f.name_ja()),
        );
        shown.push(council_schema::results::family::row_name_ja(
            council_schema::results::family::UNLABELLED,
        ));
        // KIF move text: file digits, rank numerals, every piece name, 同, 打, 成, 不成.
        shown.push("１２３４５６７８９一二三四五六七八九同　打成不成成香成桂成銀".into());
        let missing: std::collections::BTreeSet<char> = shown
            .iter()
            .flat_map(|t| t.chars())
            .filter(|&c| needs_the_font(c) && !glyphs.contains(c))
            .collect();
        assert!(
            missing.is_empty(),
            "add {missing:?} to orchestrator/live/font/glyphs.txt and run orchestrator/live/font/subset.sh"
        );
        assert_eq!(&KANJI_WOFF2[..4], b"wOF2", "the font is WOFF2");
        assert!(KANJI_LICENCE.contains("SIL OPEN FONT LICENSE Version 1.1"));
    }

    /// A peer that never reads: once the kernel's buffers are full, the guarded write waits
    /// [`STALL_LIMIT`] (the paused clock jumps there) and then fails instead of waiting forever.
    #[tokio::test(start_paused = true)]
    async fn a_write_to_a_peer_that_never_reads_fails_after_the_stall_limit() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let _client = TcpStream::connect(addr).await.expect("connect");
        let (io, peer) = listener.accept().await.expect("accept");
        let mut guarded = StallGuard {
            io,
            peer,
            stalled: None,
        };
        let chunk = vec![0u8; 1 << 20];
        let mut written = 0usize;
        let error = loop {
            match guarded.write_all(&chunk).await {
                Ok(()) => written += chunk.len(),
                Err(e) => break e,
            }
            assert!(
                written < 1 << 30,
                "a gigabyte went to a peer that never reads"
            );
        };
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }
}
