//! A child process that talks in lines over stdin/stdout: the transport under the USI player.
//!
//! Invariants: every read has a deadline; the child runs in its own process group so stopping
//! it (`quit`, a grace period, then SIGKILL to the whole group) also reaches grandchildren
//! (shell wrappers, engines that fork helpers); dropping an [`EngineProcess`] kills the group.
//! Output that is not UTF-8 is read lossily, never a panic.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Lines read ahead of the player.
const LINE_BUFFER: usize = 1024;
/// The longest line kept whole, bytes.
const MAX_LINE: u64 = 64 * 1024;

/// Why a read or write failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    #[error("cannot start {command}: {reason}")]
    Spawn { command: String, reason: String },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the process exited ({0})")]
    Exited(String),
}

/// A running engine process.
pub struct EngineProcess {
    child: Child,
    pgid: Option<Pid>,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    label: String,
}

impl EngineProcess {
    /// Start `command args...` in `dir` (if any) in a new process group. `label` names the
    /// player in logs.
    pub fn spawn(
        label: &str,
        command: &Path,
        args: &[String],
        dir: Option<&Path>,
    ) -> Result<Self, ProcessError> {
        let mut cmd = Command::new(command);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        let mut child = cmd.spawn().map_err(|e| ProcessError::Spawn {
            command: command.display().to_string(),
            reason: e.to_string(),
        })?;
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw);
        let stdin = child.stdin.take();
        // Bounded: an engine that floods its output blocks on its own pipe instead of filling our
        // memory; an endless line is cut into pieces of at most MAX_LINE bytes.
        let (tx, lines) = mpsc::channel(LINE_BUFFER);
        if let Some(stdout) = child.stdout.take() {
            let label = label.to_string();
            tokio::spawn(async move {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match (&mut reader)
                        .take(MAX_LINE)
                        .read_until(b'\n', &mut buf)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                            tracing::trace!(player = %label, "< {line}");
                            if tx.send(line).await.is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
        if let Some(stderr) = child.stderr.take() {
            let label = label.to_string();
            tokio::spawn(async move {
                let mut reader = BufReader::new(stderr);
                let mut buf = Vec::new();
                while let Ok(n) = reader.read_until(b'\n', &mut buf).await {
                    if n == 0 {
                        break;
                    }
                    tracing::debug!(player = %label, "stderr: {}", String::from_utf8_lossy(&buf).trim_end());
                    buf.clear();
                }
            });
        }
        Ok(Self {
            child,
            pgid,
            stdin,
            lines,
            label: label.to_string(),
        })
    }

    /// Send one line (a newline is added) and flush.
    pub async fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        tracing::trace!(player = %self.label, "> {line}");
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(ProcessError::Exited("stdin closed".into()));
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let write = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(Duration::from_secs(5), write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(self.exit_error().await),
            Err(_) => Err(ProcessError::Timeout(Duration::from_secs(5))),
        }
    }

    /// The next line, or an error at `deadline` or when the process's output ends.
    pub async fn read_line(&mut self, deadline: Instant) -> Result<String, ProcessError> {
        match tokio::time::timeout_at(deadline, self.lines.recv()).await {
            Ok(Some(line)) => Ok(line),
            Ok(None) => Err(self.exit_error().await),
            Err(_) => Err(ProcessError::Timeout(
                deadline.saturating_duration_since(Instant::now()),
            )),
        }
    }

    async fn exit_error(&mut self) -> ProcessError {
        // The output ended: give the process a moment to be reaped so the status is known.
        match tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await {
            Ok(Ok(status)) => ProcessError::Exited(status.to_string()),
            _ => ProcessError::Exited("output closed".into()),
        }
    }

    /// Stop politely: `quit`, wait up to `grace` for the exit, then kill the process group.
    pub async fn stop(mut self, grace: Duration) {
        if self.send("quit").await.is_ok() {
            self.stdin = None;
            if let Ok(Ok(_)) = tokio::time::timeout(grace, self.child.wait()).await {
                // Helpers the engine started may still live in its group.
                self.kill_group();
                return;
            }
        }
        self.kill_group();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
    }

    fn kill_group(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            // ESRCH (already gone) is fine.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
        let _ = self.child.start_kill();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        // A cancelled game drops its players: never leave an engine (or its children) behind.
        self.kill_group();
    }
}
