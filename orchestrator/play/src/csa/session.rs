//! One TCP connection to a CSA server: lines in and out, the protocol log, the keep-alive, and
//! the read timeout that tells a silent server from a slow one.
//!
//! Kept apart from the game loop so that the loop only sees whole lines (or the end of the
//! connection), and so that every line, whoever sends it, passes the one writer that logs it
//! and times the keep-alive. The writer is a task of its own: an empty line goes out when
//! nothing has been sent for the keep-alive interval, while the player thinks as well as while
//! the client waits for the opponent or for a game (CSA protocol 1.2.1 lets a client send an
//! empty line to keep the connection, no more often than once every 30 seconds; floodgate
//! closes connections that stay silent for long).
//!
//! A server can go silent without closing the connection (a half-open connection: a crashed
//! host, a dropped route): writes still succeed, nothing comes back. shogi-server answers every
//! line but `AGREE` and `LOGOUT` at once (an empty line with an empty line), so each such line
//! the client sends starts a wait for anything from the server, and a wait longer than the read
//! timeout ends the connection. The keep-alive's clock runs from the last such line, so the
//! client learns of a silent server at most keep-alive + read timeout after its last line, in a
//! game or waiting for one. Lines are read at most [`MAX_LINE_BYTES`] long, bytes that are not
//! UTF-8 replaced.
//!
//! The end of a game ends the connection: shogi-server (floodgate) closes it in CSA mode after
//! `#WIN`/`#LOSE`/`#DRAW` without answering `LOGOUT`, other servers answer `LOGOUT:completed`.
//! [`Session::logout`] takes either as the normal end, so a reset by a server that has already
//! closed never reads as a failure in the log.
//!
//! Invariant: the log has every line sent and received, in order, with a timestamp, and never a
//! password (`LOGIN` lines are masked by [`super::protocol::masked`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedReadHalf;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::protocol::{ServerLine, masked, parse_server_line};

/// The protocol log: `<unix seconds.millis> <direction> <line>` per line, `>` sent, `<`
/// received, `#` a note of the client's own (connect, close, keep-alive). The file (and its
/// folder) is made at the first line, so a session that never connects leaves nothing. A write
/// that fails (a full disk, a read-only folder) never stops a game: the log stops there and
/// keeps the error for the session, which stops after the game in play.
#[derive(Clone)]
pub struct ProtocolLog {
    file: Arc<Mutex<LogFile>>,
    path: PathBuf,
}

#[derive(Default)]
struct LogFile {
    file: Option<std::fs::File>,
    /// A note written (as a `#` line) before the first line, when the file is opened then.
    first_note: Option<String>,
    /// The first write (or open) that failed.
    failed: Option<(std::io::ErrorKind, String)>,
}

impl ProtocolLog {
    /// The log at `path`, created (or appended to) at its first line.
    pub fn new(path: &Path) -> Self {
        ProtocolLog {
            file: Arc::new(Mutex::new(LogFile::default())),
            path: path.to_path_buf(),
        }
    }

    /// The log at `path` whose first line (when this log opens the file at its first line)
    /// is the `#` note `note`: the client says which build it is.
    #[must_use]
    pub fn with_first_note(path: &Path, note: String) -> Self {
        let log = Self::new(path);
        if let Ok(mut f) = log.file.lock() {
            f.first_note = Some(note);
        }
        log
    }

    /// Create (or append to) the log at `path` now.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let log = Self::new(path);
        if let Ok(mut f) = log.file.lock() {
            f.file = Some(open_append(path)?);
        }
        Ok(log)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Log one line (masked), flushed at once so a killed client leaves a complete log.
    pub fn line(&self, direction: char, text: &str) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let entry = format!(
            "{}.{:03} {direction} {}\n",
            now.as_secs(),
            now.subsec_millis(),
            masked(text)
        );
        let Ok(mut log) = self.file.lock() else {
            return;
        };
        if log.failed.is_some() {
            return;
        }
        let written = match log.file.as_mut() {
            Some(file) => file.write_all(entry.as_bytes()),
            None => open_append(&self.path).and_then(|mut file| {
                let first = log.first_note.take().map_or_else(String::new, |note| {
                    format!("{}.{:03} # {note}\n", now.as_secs(), now.subsec_millis())
                });
                let written = file.write_all(format!("{first}{entry}").as_bytes());
                log.file = Some(file);
                written
            }),
        };
        if let Err(e) = written {
            log.failed = Some((e.kind(), e.to_string()));
        }
    }

    /// The error of the first line that could not be written, if one could not.
    pub fn failure(&self) -> Option<std::io::Error> {
        let log = self.file.lock().ok()?;
        let (kind, text) = log.failed.clone()?;
        Some(std::io::Error::new(kind, text))
    }
}

/// `path` opened to append, its folder made first.
fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

/// The longest line the client reads, in bytes. CSA lines are short (a summary line, a move
/// with floodgate's comment); a server that sends more without a newline is broken, and
/// reading on would keep all it sends in memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How a connection watches its server.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Silence of ours after which an empty line is sent (zero: never).
    pub keep_alive: Duration,
    /// How long a line the server answers (`LOGIN`, a move, `%TORYO`, a keep-alive: all but
    /// `AGREE` and `LOGOUT`) may wait for anything from the server before the connection is
    /// taken for dead (zero: forever); also the longest wait for a connection to be made.
    pub read_timeout: Duration,
}

/// A connection could not be made or broke.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    #[error("cannot connect to {server}: {source}")]
    Connect {
        server: String,
        source: std::io::Error,
    },
    #[error("{server}: the server closed the connection {when}")]
    Closed { server: String, when: &'static str },
    #[error("{server}: reading: {source}")]
    Read {
        server: String,
        source: std::io::Error,
    },
    #[error("{server}: no answer for {} s: the server went silent without closing the connection", .waited.as_secs())]
    Silent { server: String, waited: Duration },
    #[error("{server}: the server sent a line longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong { server: String },
}

impl SessionError {
    /// What happened to the connection, in a few words, for a game it ended.
    pub fn cause(&self) -> String {
        match self {
            SessionError::Connect { source, .. } => format!("cannot connect: {source}"),
            SessionError::Closed { .. } => "the connection dropped".to_string(),
            SessionError::Read { source, .. } => format!("the connection dropped: {source}"),
            SessionError::Silent { waited, .. } => format!(
                "the server went silent: no answer for {} s",
                waited.as_secs()
            ),
            SessionError::LineTooLong { .. } => {
                format!("the server sent a line longer than {MAX_LINE_BYTES} bytes")
            }
        }
    }
}

/// What the reader found next.
enum Read {
    Line(String),
    /// The end of the connection.
    End,
    /// More than [`MAX_LINE_BYTES`] without a newline.
    TooLong,
}

/// The server's lines: split at `\n` (a `\r` before it dropped), bytes that are not UTF-8 read
/// as U+FFFD (a line the client does not understand is logged and ignored, whatever its
/// bytes), at most [`MAX_LINE_BYTES`] a line. Cancel-safe: what a dropped read took stays in
/// `partial` for the next.
struct LineReader {
    inner: BufReader<OwnedReadHalf>,
    partial: Vec<u8>,
}

impl LineReader {
    async fn next(&mut self) -> std::io::Result<Read> {
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                if self.partial.is_empty() {
                    return Ok(Read::End);
                }
                return Ok(Read::Line(self.take_line()));
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let taken = newline.map_or(buf.len(), |i| i + 1);
            self.partial.extend_from_slice(&buf[..taken]);
            self.inner.consume(taken);
            if self.partial.len() > MAX_LINE_BYTES + 2 {
                return Ok(Read::TooLong);
            }
            if newline.is_some() {
                return Ok(Read::Line(self.take_line()));
            }
        }
    }

    fn take_line(&mut self) -> String {
        let bytes = std::mem::take(&mut self.partial);
        let text = String::from_utf8_lossy(&bytes);
        text.trim_end_matches(['\n', '\r']).to_string()
    }
}

/// A live connection.
pub struct Session {
    server: String,
    reader: LineReader,
    outbox: mpsc::UnboundedSender<String>,
    writer: tokio::task::JoinHandle<()>,
    log: ProtocolLog,
    /// The client is logging out: a write the closed connection refuses is expected.
    leaving: Arc<AtomicBool>,
    /// Since when a line the server answers has waited for anything from it (`None`: nothing
    /// waits). Set by the writer, cleared by every line read.
    waiting: watch::Receiver<Option<Instant>>,
    heard: Arc<watch::Sender<Option<Instant>>>,
    read_timeout: Duration,
}

impl Session {
    /// Connect to `server` (`HOST:PORT`), sending an empty line after `timing.keep_alive` of
    /// silence and taking the connection for dead when a line the server answers has no answer
    /// within `timing.read_timeout`.
    pub async fn connect(
        server: &str,
        timing: Timing,
        log: ProtocolLog,
    ) -> Result<Session, SessionError> {
        let connecting = TcpStream::connect(server);
        let made = if timing.read_timeout.is_zero() {
            connecting.await
        } else {
            tokio::time::timeout(timing.read_timeout, connecting)
                .await
                .unwrap_or_else(|_| {
                    Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("no answer in {} s", timing.read_timeout.as_secs()),
                    ))
                })
        };
        let stream = made.map_err(|source| SessionError::Connect {
            server: server.to_string(),
            source,
        })?;
        // Moves are small and urgent: no Nagle delay.
        let _ = stream.set_nodelay(true);
        log.line('#', &format!("connected to {server}"));
        let (read, mut write) = stream.into_split();
        let (outbox, mut inbox) = mpsc::unbounded_channel::<String>();
        let writer_log = log.clone();
        let leaving = Arc::new(AtomicBool::new(false));
        let writer_leaving = leaving.clone();
        let (heard, waiting) = watch::channel(None);
        let heard = Arc::new(heard);
        let wait_from = heard.clone();
        let keep_alive = timing.keep_alive;
        let writer = tokio::spawn(async move {
            // The last line sent that the server answers: the keep-alive's clock. It starts at
            // the first line (`LOGIN`): before it the connection may wait for the player's
            // engines to start, and an empty line in place of a `LOGIN` is no keep-alive.
            let mut last = Instant::now();
            let mut logged_in = false;
            loop {
                let idle = async {
                    if keep_alive.is_zero() || !logged_in {
                        std::future::pending::<()>().await;
                    }
                    tokio::time::sleep_until(last + keep_alive).await;
                };
                let line = tokio::select! {
                    l = inbox.recv() => match l {
                        Some(l) => l,
                        None => break,
                    },
                    () = idle => String::new(),
                };
                let sent = write.write_all(format!("{line}\n").as_bytes()).await;
                if sent.is_err() {
                    if !writer_leaving.load(Ordering::Relaxed) {
                        writer_log
                            .line('#', "cannot write to the server: the connection is closed");
                    }
                    break;
                }
                writer_log.line(
                    '>',
                    if line.is_empty() {
                        "(keep-alive)"
                    } else {
                        &line
                    },
                );
                logged_in = true;
                // shogi-server answers every line but these two (`START` waits for the
                // opponent's `AGREE`; `LOGOUT` is answered by a close in CSA mode).
                if !(line.starts_with("AGREE") || line == "LOGOUT") {
                    let now = Instant::now();
                    last = now;
                    wait_from.send_if_modified(|since| {
                        let start = since.is_none();
                        if start {
                            *since = Some(now);
                        }
                        start
                    });
                }
            }
            let _ = write.shutdown().await;
        });
        Ok(Session {
            server: server.to_string(),
            reader: LineReader {
                inner: BufReader::new(read),
                partial: Vec::new(),
            },
            outbox,
            writer,
            log,
            leaving,
            waiting,
            heard,
            read_timeout: timing.read_timeout,
        })
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    /// Send one line (no newline). `Err` when the connection is gone.
    pub fn send(&self, line: &str) -> Result<(), SessionError> {
        self.outbox
            .send(line.to_string())
            .map_err(|_| SessionError::Closed {
                server: self.server.clone(),
                when: "before the client could write to it",
            })
    }

    /// The next line from the server; `Ok(None)` at the end of the connection; an error when
    /// the connection broke, the server sent a line too long, or a line it answers went
    /// unanswered for the read timeout. Cancel-safe, so a game loop may wait for it beside the
    /// player's move.
    pub async fn recv(&mut self) -> Result<Option<String>, SessionError> {
        loop {
            let since = *self.waiting.borrow_and_update();
            let limit = self.read_timeout;
            let silent = async move {
                match since {
                    Some(t) if !limit.is_zero() => tokio::time::sleep_until(t + limit).await,
                    _ => std::future::pending::<()>().await,
                }
            };
            let read = tokio::select! {
                read = self.reader.next() => read,
                () = silent => {
                    self.log.line(
                        '#',
                        &format!("no answer for {} s: the server is silent; leaving the connection", limit.as_secs()),
                    );
                    return Err(SessionError::Silent {
                        server: self.server.clone(),
                        waited: limit,
                    });
                }
                _ = self.waiting.changed() => continue,
            };
            return match read {
                Ok(Read::Line(line)) => {
                    self.heard.send_replace(None);
                    self.log.line('<', &line);
                    Ok(Some(line))
                }
                Ok(Read::End) => {
                    self.log.line('#', "the server closed the connection");
                    Ok(None)
                }
                Ok(Read::TooLong) => {
                    self.log.line(
                        '#',
                        &format!(
                            "the server sent a line longer than {MAX_LINE_BYTES} bytes; leaving the connection"
                        ),
                    );
                    Err(SessionError::LineTooLong {
                        server: self.server.clone(),
                    })
                }
                Err(source) => {
                    self.log.line('#', &format!("reading failed: {source}"));
                    Err(SessionError::Read {
                        server: self.server.clone(),
                        source,
                    })
                }
            };
        }
    }

    /// After a game (or a `REJECT`): send `LOGOUT` and wait a little for the server to answer
    /// `LOGOUT:completed` or to close the connection (shogi-server closes it without an
    /// answer), then close. Either is the normal end and is logged as such.
    pub async fn logout(mut self) {
        self.leaving.store(true, Ordering::Relaxed);
        let _ = self.send("LOGOUT");
        let how = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                match self.reader.next().await {
                    Ok(Read::Line(line)) => {
                        self.log.line('<', &line);
                        if parse_server_line(&line) == ServerLine::LogoutCompleted {
                            return "logged out";
                        }
                    }
                    // A reset by a server that has closed is its close too.
                    Ok(Read::End | Read::TooLong) | Err(_) => {
                        return "the server closed the connection after the game";
                    }
                }
            }
        })
        .await
        .unwrap_or("logged out (the server did not answer LOGOUT)");
        self.log.line('#', how);
        self.close().await;
    }

    /// Send what is queued, then close the connection (a writer the server no longer reads
    /// from is stopped after 2 s).
    pub async fn close(self) {
        drop(self.outbox);
        let mut writer = self.writer;
        if tokio::time::timeout(Duration::from_secs(2), &mut writer)
            .await
            .is_err()
        {
            writer.abort();
        }
        self.log.line('#', "closed");
    }
}
