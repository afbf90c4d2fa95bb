//! A child process that talks in lines over stdin/stdout: the transport under the USI player.
//!
//! Invariants: every read has a deadline, and a timeout states the whole time it waited (fixed
//! when the wait began, never what is left when it ends); the child runs in its own process
//! group so stopping it (`quit`, a grace period, then SIGKILL to the whole group) also reaches
//! grandchildren (shell wrappers, engines that fork helpers); dropping an [`EngineProcess`]
//! kills the group. A read also watches the process itself: when it exits the read fails at
//! once with its exit status, even while a grandchild still holds its output open (the group
//! is killed then, so nothing it started outlives it). Output that is not UTF-8 is read
//! lossily, never a panic. With a [`LogTag`] every line both ways, the engine's stderr and the
//! process's start and end go to the engine log ([`super::engine_log`]) as they pass.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::engine_log::{Direction, LogTag, ProcessLog};

/// Lines read ahead of the player.
const LINE_BUFFER: usize = 1024;
/// The longest line kept whole, bytes.
const MAX_LINE: u64 = 64 * 1024;
/// The read buffers of an engine's stdout and stderr, bytes: per engine, so per concurrent game
/// twice (a longer line is still read whole, up to [`MAX_LINE`]; stderr is seldom written).
const STDOUT_BUFFER: usize = 4096;
const STDERR_BUFFER: usize = 512;
/// How long output written before an exit is still read once the process is gone (its group
/// is killed at the exit, so the pipe normally closes well before this).
const EXIT_DRAIN: Duration = Duration::from_millis(200);
/// How long a write may block.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a read or write failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProcessError {
    #[error("cannot start {command}: {reason}")]
    Spawn { command: String, reason: String },
    /// Nothing arrived within this budget (the whole wait, see [`Deadline`]).
    #[error("{}", timeout_message(*.0))]
    Timeout(Duration),
    /// The process is gone, or closed its end of the pipes: how, e.g. `exited with status 3`.
    #[error("{0}")]
    Exited(String),
}

/// What a [`ProcessError::Timeout`] says: the budget it waited for, in milliseconds.
pub(crate) fn timeout_message(budget: Duration) -> String {
    if budget.is_zero() {
        // Not a wait at all: the deadline was already over when it began.
        "no answer: its deadline had passed before the wait began".to_string()
    } else {
        // Rounded up: a budget of 2999.6 ms was not "2999 ms".
        format!("no answer within {} ms", budget.as_micros().div_ceil(1000))
    }
}

/// How a process ended, in words: `exited with status 3`, `killed by signal 9 (SIGKILL)`.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        format!("exited with status {code}")
    } else if let Some(sig) = status.signal() {
        match Signal::try_from(sig) {
            Ok(name) => format!("killed by signal {sig} ({name})"),
            Err(_) => format!("killed by signal {sig}"),
        }
    } else {
        format!("exited ({status})")
    }
}

/// When a wait ends, and the budget it stands for.
///
/// The budget is fixed when the wait is set up: a timeout reports it, not the time left when
/// the deadline passes (which is always about zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deadline {
    pub at: Instant,
    pub budget: Duration,
}

impl Deadline {
    /// `budget` from now.
    pub fn after(budget: Duration) -> Self {
        Self {
            at: Instant::now() + budget,
            budget,
        }
    }

    /// Until `at`, a wait that begins now.
    pub fn until(at: Instant) -> Self {
        Self::until_from(at, Instant::now())
    }

    /// Until `at`, a wait that begins at `began`.
    pub(crate) fn until_from(at: Instant, began: Instant) -> Self {
        Self {
            at,
            budget: at.saturating_duration_since(began),
        }
    }
}

/// A running engine process.
pub(crate) struct EngineProcess {
    child: Child,
    pgid: Option<Pid>,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    label: String,
    /// How the process ended and when that was seen, once it was.
    exited: Option<(String, Instant)>,
    /// Where its lines are logged, when they are.
    log: Option<ProcessLog>,
}

impl EngineProcess {
    /// Start `command args...` in `dir` (if any) in a new process group. `label` names the
    /// player in logs; with `log` every line also goes to the engine log.
    pub fn spawn(
        label: &str,
        command: &Path,
        args: &[String],
        dir: Option<&Path>,
        log: Option<LogTag>,
    ) -> Result<Self, ProcessError> {
        let log = log.map(ProcessLog::new);
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
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) => {
                let e = ProcessError::Spawn {
                    command: command.display().to_string(),
                    reason: e.to_string(),
                };
                if let Some(log) = &log {
                    log.line(Direction::Note, &e.to_string());
                }
                return Err(e);
            }
        };
        if let Some(log) = &log {
            let mut text = format!(
                "started pid {}: {}",
                child.id().unwrap_or(0),
                command.display()
            );
            for a in args {
                text.push(' ');
                text.push_str(a);
            }
            log.line(Direction::Note, &text);
        }
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
            let log = log.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::with_capacity(STDOUT_BUFFER, stdout);
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
                            if let Some(log) = &log {
                                log.line(Direction::Received, &line);
                            }
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
            let log = log.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::with_capacity(STDERR_BUFFER, stderr);
                let mut buf = Vec::new();
                while let Ok(n) = reader.read_until(b'\n', &mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let line = String::from_utf8_lossy(&buf);
                    let line = line.trim_end();
                    tracing::debug!(player = %label, "stderr: {line}");
                    if let Some(log) = &log {
                        log.line(Direction::Stderr, line);
                    }
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
            exited: None,
            log,
        })
    }

    /// Send one line (a newline is added) and flush.
    pub async fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        self.send_lines(std::slice::from_ref(&line)).await
    }

    /// Send `lines` in order (a newline added to each) in one write, and flush.
    pub async fn send_lines<S: AsRef<str>>(&mut self, lines: &[S]) -> Result<(), ProcessError> {
        let mut len = 0;
        for line in lines {
            let line = line.as_ref();
            tracing::trace!(player = %self.label, "> {line}");
            if let Some(log) = &self.log {
                log.sent(line);
            }
            len += line.len() + 1;
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(ProcessError::Exited("its input is closed".into()));
        };
        let mut bytes = Vec::with_capacity(len);
        for line in lines {
            bytes.extend_from_slice(line.as_ref().as_bytes());
            bytes.push(b'\n');
        }
        let write = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(SEND_TIMEOUT, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(self.exit_error().await),
            Err(_) => Err(ProcessError::Timeout(SEND_TIMEOUT)),
        }
    }

    /// The next line; an error when the process exits (at once, whoever still holds its
    /// output), when its output ends, or at the deadline.
    ///
    /// Lines the process wrote before it exited are still returned first.
    pub(crate) async fn read_line(&mut self, deadline: Deadline) -> Result<String, ProcessError> {
        loop {
            if let Some((how, at)) = &self.exited {
                let how = how.clone();
                return match tokio::time::timeout_at(*at + EXIT_DRAIN, self.lines.recv()).await {
                    Ok(Some(line)) => Ok(line),
                    _ => Err(ProcessError::Exited(how)),
                };
            }
            tokio::select! {
                biased;
                line = self.lines.recv() => {
                    return match line {
                        Some(line) => Ok(line),
                        None => Err(self.exit_error().await),
                    };
                }
                status = self.child.wait() => {
                    self.on_exit(status);
                }
                () = tokio::time::sleep_until(deadline.at) => {
                    return Err(ProcessError::Timeout(deadline.budget));
                }
            }
        }
    }

    /// The process is gone: note how, and kill what it left in its group (a grandchild that
    /// holds the output pipe would otherwise keep it open and keep running).
    fn on_exit(&mut self, status: std::io::Result<ExitStatus>) -> String {
        let how = match status {
            Ok(status) => describe_exit(status),
            Err(e) => format!("exited (status unknown: {e})"),
        };
        tracing::debug!(player = %self.label, "process {how}");
        self.note(&format!("process {how}"));
        self.kill_group();
        self.exited = Some((how.clone(), Instant::now()));
        how
    }

    async fn exit_error(&mut self) -> ProcessError {
        if let Some((how, _)) = &self.exited {
            return ProcessError::Exited(how.clone());
        }
        // The output ended: give the process a moment to be reaped so the status is known.
        match tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await {
            Ok(status) => ProcessError::Exited(self.on_exit(status)),
            Err(_) => ProcessError::Exited("closed its output".into()),
        }
    }

    fn note(&self, text: &str) {
        if let Some(log) = &self.log {
            log.line(Direction::Note, text);
        }
    }

    /// Stop politely: `quit`, wait up to `grace` for the exit, then kill the process group.
    pub async fn stop(mut self, grace: Duration) {
        if self.exited.is_none() && self.send("quit").await.is_ok() {
            self.stdin = None;
            if let Ok(Ok(status)) = tokio::time::timeout(grace, self.child.wait()).await {
                self.note(&format!("process {}", describe_exit(status)));
                // Helpers the engine started may still live in its group.
                self.kill_group();
                return;
            }
        }
        if self.exited.is_none() {
            self.note("killed: it did not exit after quit");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_states_the_budget_it_waited_for() {
        let t = |ms| ProcessError::Timeout(Duration::from_millis(ms)).to_string();
        assert_eq!(t(1500), "no answer within 1500 ms");
        assert_eq!(
            timeout_message(Duration::from_micros(2_999_600)),
            "no answer within 3000 ms"
        );
        assert_eq!(
            timeout_message(Duration::from_micros(300)),
            "no answer within 1 ms"
        );
        // A deadline that was over before the wait: said so, never "0ns" or "0 ms".
        let zero = t(0);
        assert!(!zero.contains('0'), "{zero}");
        // The budget is fixed when the wait is set up, not when it runs out.
        let began = Instant::now();
        let d = Deadline::until_from(began + Duration::from_millis(2000), began);
        assert_eq!(d.budget, Duration::from_millis(2000));
        assert_eq!(
            Deadline::until_from(began, began + Duration::from_secs(1)).budget,
            Duration::ZERO
        );
    }

    #[test]
    fn an_exit_is_described_by_its_status_or_signal() {
        assert_eq!(
            describe_exit(ExitStatus::from_raw(3 << 8)),
            "exited with status 3"
        );
        assert_eq!(
            describe_exit(ExitStatus::from_raw(0)),
            "exited with status 0"
        );
        assert_eq!(
            describe_exit(ExitStatus::from_raw(9)),
            "killed by signal 9 (SIGKILL)"
        );
    }

    fn sh(script: &str) -> EngineProcess {
        EngineProcess::spawn(
            "test",
            Path::new("sh"),
            &["-c".to_string(), script.to_string()],
            None,
            None,
        )
        .expect("start sh")
    }

    #[tokio::test]
    async fn a_read_that_times_out_reports_its_whole_budget() {
        let mut p = sh("exec sleep 30");
        let budget = Duration::from_millis(50);
        let e = p.read_line(Deadline::after(budget)).await;
        assert_eq!(e, Err(ProcessError::Timeout(budget)));
        p.stop(Duration::ZERO).await;
    }

    /// Whether process `pid` is gone (or a zombie waiting to be reaped by whoever adopted it).
    fn gone(pid: &str) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.is_empty() || stat.rsplit(") ").next().and_then(|r| r.chars().next()) == Some('Z')
    }

    #[tokio::test]
    async fn an_exit_is_seen_at_once_while_a_grandchild_holds_the_output() {
        // The shell prints its background child's pid, then exits: the child keeps stdout open.
        let mut p = sh("sleep 30 & echo $!; exit 3");
        // Far beyond the grandchild's life: only the exit itself can end this read in time.
        let deadline = Deadline::after(Duration::from_secs(60));
        let pid = p.read_line(deadline).await.expect("the grandchild's pid");
        assert_eq!(
            p.read_line(deadline).await,
            Err(ProcessError::Exited("exited with status 3".into()))
        );
        // Later reads say the same; the grandchild was killed with the group.
        assert_eq!(
            p.read_line(deadline).await,
            Err(ProcessError::Exited("exited with status 3".into()))
        );
        let mut waited = 0;
        while !gone(&pid) && waited < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += 1;
        }
        assert!(gone(&pid), "grandchild {pid} outlived the engine");
        p.stop(Duration::ZERO).await;
    }

    #[tokio::test]
    async fn lines_written_before_an_exit_are_still_read() {
        let mut p = sh("echo usiok; exit 0");
        let deadline = Deadline::after(Duration::from_secs(60));
        assert_eq!(p.read_line(deadline).await.as_deref(), Ok("usiok"));
        assert_eq!(
            p.read_line(deadline).await,
            Err(ProcessError::Exited("exited with status 0".into()))
        );
    }
}
