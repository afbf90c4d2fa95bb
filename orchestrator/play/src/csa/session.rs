//! One TCP connection to a CSA server: lines in and out, the protocol log, and the keep-alive.
//!
//! Kept apart from the game loop so that the loop only sees whole lines (or the end of the
//! connection), and so that every line, whoever sends it, passes the one writer that logs it
//! and times the keep-alive. The writer is a task of its own: an empty line goes out when
//! nothing has been sent for the keep-alive interval, while the player thinks as well as while
//! the client waits for the opponent or for a game (CSA protocol 1.2.1 lets a client send an
//! empty line to keep the connection, no more often than once every 30 seconds; floodgate
//! closes connections that stay silent for long).
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

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedReadHalf;
use tokio::sync::mpsc;

use super::protocol::{ServerLine, masked, parse_server_line};

/// The protocol log: `<unix seconds.millis> <direction> <line>` per line, `>` sent, `<`
/// received, `#` a note of the client's own (connect, close, keep-alive). The file (and its
/// folder) is made at the first line, so a session that never connects leaves nothing.
#[derive(Clone)]
pub struct ProtocolLog {
    file: Arc<Mutex<Option<std::fs::File>>>,
    path: PathBuf,
}

impl ProtocolLog {
    /// The log at `path`, created (or appended to) at its first line.
    pub fn new(path: &Path) -> Self {
        ProtocolLog {
            file: Arc::new(Mutex::new(None)),
            path: path.to_path_buf(),
        }
    }

    /// Create (or append to) the log at `path` now.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let log = Self::new(path);
        if let Ok(mut f) = log.file.lock() {
            *f = Some(open_append(path)?);
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
        if let Ok(mut f) = self.file.lock() {
            if f.is_none() {
                *f = open_append(&self.path).ok();
            }
            if let Some(f) = f.as_mut() {
                // A log that cannot be written must not stop a game.
                let _ = f.write_all(entry.as_bytes());
            }
        }
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

/// A connection could not be made or broke.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    #[error("cannot connect to {server}: {source}")]
    Connect {
        server: String,
        source: std::io::Error,
    },
    #[error("{server}: the connection is closed")]
    Closed { server: String },
    #[error("{server}: reading: {source}")]
    Read {
        server: String,
        source: std::io::Error,
    },
}

/// A live connection.
pub struct Session {
    server: String,
    lines: Lines<BufReader<OwnedReadHalf>>,
    outbox: mpsc::UnboundedSender<String>,
    writer: tokio::task::JoinHandle<()>,
    log: ProtocolLog,
    /// The client is logging out: a write the closed connection refuses is expected.
    leaving: Arc<AtomicBool>,
}

impl Session {
    /// Connect to `server` (`HOST:PORT`), sending an empty line after `keep_alive` of silence
    /// (`Duration::ZERO`: never).
    pub async fn connect(
        server: &str,
        keep_alive: Duration,
        log: ProtocolLog,
    ) -> Result<Session, SessionError> {
        let stream = TcpStream::connect(server)
            .await
            .map_err(|source| SessionError::Connect {
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
        let writer = tokio::spawn(async move {
            let mut last = tokio::time::Instant::now();
            loop {
                let idle = async {
                    if keep_alive.is_zero() {
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
                last = tokio::time::Instant::now();
            }
            let _ = write.shutdown().await;
        });
        Ok(Session {
            server: server.to_string(),
            lines: BufReader::new(read).lines(),
            outbox,
            writer,
            log,
            leaving,
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
            })
    }

    /// The next line from the server; `Ok(None)` at the end of the connection. Cancel-safe
    /// (tokio's `Lines::next_line`), so a game loop may wait for it beside the player's move.
    pub async fn recv(&mut self) -> Result<Option<String>, SessionError> {
        match self.lines.next_line().await {
            Ok(Some(line)) => {
                let line = line.trim_end_matches('\r').to_string();
                self.log.line('<', &line);
                Ok(Some(line))
            }
            Ok(None) => {
                self.log.line('#', "the server closed the connection");
                Ok(None)
            }
            Err(source) => {
                self.log.line('#', &format!("reading failed: {source}"));
                Err(SessionError::Read {
                    server: self.server.clone(),
                    source,
                })
            }
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
                match self.lines.next_line().await {
                    Ok(Some(line)) => {
                        let line = line.trim_end_matches('\r').to_string();
                        self.log.line('<', &line);
                        if parse_server_line(&line) == ServerLine::LogoutCompleted {
                            return "logged out";
                        }
                    }
                    // A reset by a server that has closed is its close too.
                    Ok(None) | Err(_) => return "the server closed the connection after the game",
                }
            }
        })
        .await
        .unwrap_or("logged out (the server did not answer LOGOUT)");
        self.log.line('#', how);
        self.close().await;
    }

    /// Send what is queued, then close the connection.
    pub async fn close(self) {
        drop(self.outbox);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.writer).await;
        self.log.line('#', "closed");
    }
}
