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
//!
//! How a line reaches the code that waits for it: its stdout has no reader task and no channel.
//! The task that waits for an answer reads the pipe itself ([`EngineProcess::read_line`]) into
//! one buffer and cuts the next line there, borrowed (a caller copies only the lines it keeps),
//! so a line costs one wake-up of that task and no hand-off between tasks or threads (as a
//! thread per game reads its engines in a runner without an async runtime). While nobody waits
//! (between moves, pondering in the opponent's time) [`EngineProcess::idle`] reads and logs
//! what comes and keeps it for the next read: the game runs it beside the opponent's think
//! ([`super::Player::idle`]), so the pipe never fills, the log's times are when lines came and an
//! exit is seen when it happens. Only stderr, seldom written, keeps a small task of its own.

use std::borrow::Cow;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::{Instant, Sleep};

use super::engine_log::{Direction, LogTag, ProcessLog};

/// The longest line kept whole, bytes.
const MAX_LINE: usize = 64 * 1024;
/// The read buffers of an engine's stdout and stderr, bytes: per engine, so per concurrent game
/// twice (stdout's grows for a longer line, up to [`MAX_LINE`], and for what is read while
/// nobody waits; stderr is seldom written).
const STDOUT_BUFFER: usize = 4096;
/// The most output [`EngineProcess::idle`] reads ahead of the player, bytes (a pondering
/// engine's lines wait here until its next move reads them).
const IDLE_KEPT: usize = 1024 * 1024;
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

/// An engine's stdout as the task that waits for it reads it: one growing buffer, cut into
/// lines where they are asked for, so a line costs no hand-off and no copy until someone keeps it.
struct Output {
    stdout: Option<ChildStdout>,
    /// Bytes read and not yet taken: `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    /// The lines in `buf[start..logged]` were logged when read (by [`EngineProcess::idle`]).
    logged: usize,
    /// The output ended (or failed): no more bytes will come.
    ended: bool,
}

impl Output {
    fn new(stdout: Option<ChildStdout>) -> Self {
        Self {
            ended: stdout.is_none(),
            stdout,
            buf: Vec::new(),
            start: 0,
            logged: 0,
        }
    }

    /// The length of the piece that begins at `from`, when it is whole: up to and with its
    /// newline, or [`MAX_LINE`] bytes of a longer line, or the rest once the output ended.
    fn piece(&self, from: usize) -> Option<usize> {
        let rest = &self.buf[from..];
        let window = &rest[..rest.len().min(MAX_LINE)];
        match window.iter().position(|&b| b == b'\n') {
            Some(i) => Some(i + 1),
            None if window.len() == MAX_LINE => Some(MAX_LINE),
            None if self.ended && !rest.is_empty() => Some(rest.len()),
            None => None,
        }
    }

    /// Bytes read and not yet taken.
    fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Read what the pipe holds into the buffer (at least one byte, or the end of the output).
    /// Cancel-safe: a read that did not complete took nothing.
    async fn fill(&mut self) {
        let Some(stdout) = self.stdout.as_mut() else {
            self.ended = true;
            return std::future::pending().await;
        };
        if self.start == self.buf.len() {
            self.buf.clear();
            self.logged = 0;
            self.start = 0;
        } else if self.start >= STDOUT_BUFFER && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.logged -= self.start;
            self.start = 0;
        }
        // At most a buffer's worth a read, so what idle keeps stays within its bound.
        self.buf.reserve(STDOUT_BUFFER);
        match stdout
            .take(STDOUT_BUFFER as u64)
            .read_buf(&mut self.buf)
            .await
        {
            Ok(0) | Err(_) => {
                self.ended = true;
                self.stdout = None;
            }
            Ok(_) => {}
        }
    }
}

/// A piece of output as a line: lossy UTF-8, trailing whitespace trimmed (borrowed when valid).
fn as_line(bytes: &[u8]) -> Cow<'_, str> {
    // The valid case first: `from_utf8` checks ASCII a word at a time, the lossy walk a byte.
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(s.trim_end());
    }
    match String::from_utf8_lossy(bytes) {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim_end()),
        Cow::Owned(s) => Cow::Owned(s.trim_end().to_string()),
    }
}

/// A running engine process.
pub(crate) struct EngineProcess {
    child: Child,
    pgid: Option<Pid>,
    stdin: Option<ChildStdin>,
    output: Output,
    label: String,
    /// How the process ended and when that was seen, once it was.
    exited: Option<(String, Instant)>,
    /// Where its lines are logged, when they are.
    log: Option<ProcessLog>,
    /// The timer of [`EngineProcess::read_line`]'s deadline: one for all its reads, moved only
    /// when the deadline changes (a move's many lines share one), so a line costs no timer
    /// set and cleared; cleared by [`EngineProcess::idle`] (a move's reads are over).
    timer: Option<Pin<Box<Sleep>>>,
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
        let output = Output::new(child.stdout.take());
        if let Some(stderr) = child.stderr.take() {
            // Seldom written: its own small task, which logs each line as it comes.
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
            output,
            label: label.to_string(),
            exited: None,
            log,
            timer: None,
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

    /// Log (and trace) the whole lines read since the last were logged.
    fn log_read(&mut self) {
        let out = &mut self.output;
        while out.logged < out.buf.len() {
            let Some(len) = out.piece(out.logged) else {
                break;
            };
            let line = as_line(&out.buf[out.logged..out.logged + len]);
            tracing::trace!(player = %self.label, "< {line}");
            if let Some(log) = &self.log {
                log.line(Direction::Received, &line);
            }
            out.logged += len;
        }
    }

    /// The next line, borrowed from the read buffer until the next read; an error when the
    /// process exits (at once, whoever still holds its output), when its output ends, or at
    /// the deadline.
    ///
    /// Lines the process wrote before it exited are still returned first.
    pub(crate) async fn read_line(
        &mut self,
        deadline: Deadline,
    ) -> Result<Cow<'_, str>, ProcessError> {
        loop {
            if self.output.piece(self.output.start).is_some() {
                break;
            }
            if let Some((how, at)) = &self.exited {
                let how = how.clone();
                let drain = *at + EXIT_DRAIN;
                if self.output.ended
                    || tokio::time::timeout_at(drain, self.output.fill())
                        .await
                        .is_err()
                {
                    if self.output.piece(self.output.start).is_some() {
                        break;
                    }
                    return Err(ProcessError::Exited(how));
                }
                continue;
            }
            if self.output.ended {
                return Err(self.exit_error().await);
            }
            let timer = match &mut self.timer {
                Some(timer) => {
                    if timer.deadline() != deadline.at {
                        timer.as_mut().reset(deadline.at);
                    }
                    timer
                }
                None => self
                    .timer
                    .insert(Box::pin(tokio::time::sleep_until(deadline.at))),
            };
            tokio::select! {
                biased;
                () = self.output.fill() => {}
                status = self.child.wait() => {
                    self.on_exit(status);
                }
                () = timer.as_mut() => {
                    return Err(ProcessError::Timeout(deadline.budget));
                }
            }
        }
        let out = &mut self.output;
        let from = out.start;
        let len = out.piece(from).unwrap_or_default();
        out.start += len;
        if from >= out.logged {
            out.logged = out.start;
            // Cut out again only for someone who looks (the log, a trace).
            if self.log.is_some() || tracing::enabled!(tracing::Level::TRACE) {
                let line = as_line(&out.buf[from..from + len]);
                tracing::trace!(player = %self.label, "< {line}");
                if let Some(log) = &self.log {
                    log.line(Direction::Received, &line);
                }
            }
        }
        Ok(as_line(&self.output.buf[from..from + len]))
    }

    /// Read and log the process's output as it comes while nobody waits for a line (between
    /// moves, while it ponders in the opponent's time): its pipe never fills, its lines reach the
    /// engine log when written, and an exit is noted (and its group killed) when it happens.
    /// Whole lines stay for [`EngineProcess::read_line`]; past [`IDLE_KEPT`] unread bytes it
    /// stops reading, so an engine that floods its output blocks on its own pipe. Never ends:
    /// run it beside the wait it fills (`select!`) and drop it.
    pub(crate) async fn idle(&mut self) -> std::convert::Infallible {
        // Nobody waits: the last wait's timer goes (left set, it would wake the game for
        // nothing at a deadline already met).
        self.timer = None;
        loop {
            self.log_read();
            let full = self.output.ended || self.output.pending() >= IDLE_KEPT;
            if self.exited.is_some() {
                if full {
                    return std::future::pending().await;
                }
                self.output.fill().await;
                continue;
            }
            if full {
                let status = self.child.wait().await;
                self.on_exit(status);
                continue;
            }
            tokio::select! {
                biased;
                () = self.output.fill() => {}
                status = self.child.wait() => {
                    self.on_exit(status);
                }
            }
        }
    }

    /// Whether a line whose first word is `word` has come and is not read yet: what the pipe
    /// holds now is read first (up to [`IDLE_KEPT`] unread bytes, never waiting), so a line
    /// written before this call is seen. How a player tells that a pondering engine answered
    /// before it was sent `ponderhit` or `stop`.
    pub(crate) fn has_unread(&mut self, word: &str) -> bool {
        use futures::FutureExt as _;
        while !self.output.ended
            && self.output.pending() < IDLE_KEPT
            && self.output.fill().now_or_never().is_some()
        {}
        self.log_read();
        let out = &self.output;
        let mut at = out.start;
        while let Some(len) = out.piece(at) {
            if as_line(&out.buf[at..at + len]).split_whitespace().next() == Some(word) {
                return true;
            }
            at += len;
        }
        false
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
        let pid = p
            .read_line(deadline)
            .await
            .expect("the grandchild's pid")
            .into_owned();
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

    /// An engine log in a scratch folder, and its path.
    fn scratch_log(name: &str) -> (LogTag, std::path::PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("council-process-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let path = dir.join("engines.log");
        let log = super::super::engine_log::EngineLog::open(&path, u64::MAX).expect("open");
        (log.tag("e"), path)
    }

    /// The texts of the log's lines (after `<time> <game> <who> `).
    fn logged(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(|l| l.splitn(4, ' ').nth(3).unwrap_or_default().to_string())
            .collect()
    }

    /// Runs `p.idle()` until the log holds `line` (a minute at most: then the test fails).
    async fn idle_until_logged(p: &mut EngineProcess, path: &Path, line: &str) {
        let seen = async {
            while !logged(path).iter().any(|l| l == line) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::select! {
            never = p.idle() => match never {},
            () = seen => {}
            () = tokio::time::sleep(Duration::from_secs(60)) => panic!("`{line}` never logged"),
        }
    }

    #[tokio::test]
    async fn idle_logs_lines_as_they_come_and_keeps_them_for_the_next_read() {
        let (tag, path) = scratch_log("idle");
        let mut p = EngineProcess::spawn(
            "test",
            Path::new("sh"),
            &[
                "-c".to_string(),
                "echo info one; echo bestmove 7g7f; exec sleep 30".to_string(),
            ],
            None,
            Some(tag),
        )
        .expect("start sh");
        // Nobody reads a line: idle alone logs both.
        idle_until_logged(&mut p, &path, "< bestmove 7g7f").await;
        let deadline = Deadline::after(Duration::from_secs(60));
        assert_eq!(p.read_line(deadline).await.as_deref(), Ok("info one"));
        assert_eq!(p.read_line(deadline).await.as_deref(), Ok("bestmove 7g7f"));
        // Each line logged once, when it came, not again when it was read.
        let received: Vec<String> = logged(&path)
            .into_iter()
            .filter(|l| l.starts_with('<'))
            .collect();
        assert_eq!(received, ["< info one", "< bestmove 7g7f"]);
        p.stop(Duration::ZERO).await;
    }

    #[tokio::test]
    async fn idle_sees_an_exit_when_it_happens() {
        let (tag, path) = scratch_log("exit");
        let mut p = EngineProcess::spawn(
            "test",
            Path::new("sh"),
            &["-c".to_string(), "echo last words; exit 3".to_string()],
            None,
            Some(tag),
        )
        .expect("start sh");
        idle_until_logged(&mut p, &path, "# process exited with status 3").await;
        // What it wrote first is still read, then the exit.
        let deadline = Deadline::after(Duration::from_secs(60));
        assert_eq!(p.read_line(deadline).await.as_deref(), Ok("last words"));
        assert_eq!(
            p.read_line(deadline).await,
            Err(ProcessError::Exited("exited with status 3".into()))
        );
    }

    #[tokio::test]
    async fn idle_keeps_a_bounded_backlog_of_a_flooding_engine() {
        let mut p = sh("yes info string flood");
        // Idle until its backlog is at its bound (reads continue to be asked for meanwhile).
        let waited = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                tokio::select! {
                    never = p.idle() => match never {},
                    () = tokio::time::sleep(Duration::from_millis(20)) => {}
                }
                if p.output.pending() >= IDLE_KEPT {
                    break;
                }
            }
        })
        .await;
        assert!(waited.is_ok(), "the backlog never reached its bound");
        tokio::select! {
            never = p.idle() => match never {},
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
        assert!(
            p.output.pending() < IDLE_KEPT + STDOUT_BUFFER,
            "{} bytes kept",
            p.output.pending()
        );
        // The lines are all there, whole, in order.
        let deadline = Deadline::after(Duration::from_secs(60));
        assert_eq!(
            p.read_line(deadline).await.as_deref(),
            Ok("info string flood")
        );
        p.stop(Duration::ZERO).await;
    }

    #[tokio::test]
    async fn a_line_longer_than_the_cap_comes_in_pieces() {
        let mut p = sh("head -c 70000 /dev/zero | tr '\\0' x; echo; echo usiok");
        let deadline = Deadline::after(Duration::from_secs(60));
        assert_eq!(p.read_line(deadline).await.map(|l| l.len()), Ok(MAX_LINE));
        assert_eq!(
            p.read_line(deadline).await.map(|l| l.len()),
            Ok(70000 - MAX_LINE)
        );
        assert_eq!(p.read_line(deadline).await.as_deref(), Ok("usiok"));
        // Not UTF-8: read lossily.
        let mut p = sh("printf 'bestmove \\377\\n'");
        assert_eq!(
            p.read_line(deadline).await.as_deref(),
            Ok("bestmove \u{fffd}")
        );
    }

    #[tokio::test]
    async fn an_unread_line_is_found_by_its_first_word_and_stays_to_be_read() {
        let mut p = sh("echo info string bestmove; echo bestmove 7g7f; exec sleep 30");
        let mut q = sh("echo info string bestmove; exec sleep 30");
        let waited = tokio::time::timeout(Duration::from_secs(60), async {
            while !p.has_unread("bestmove") || !q.has_unread("info") {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(waited.is_ok(), "the lines never came");
        // A word elsewhere in a line is not its first word.
        assert!(!q.has_unread("bestmove"));
        let deadline = Deadline::after(Duration::from_secs(60));
        assert_eq!(
            p.read_line(deadline).await.as_deref(),
            Ok("info string bestmove")
        );
        assert_eq!(p.read_line(deadline).await.as_deref(), Ok("bestmove 7g7f"));
        assert!(!p.has_unread("bestmove"), "a line read is not unread");
        p.stop(Duration::ZERO).await;
        q.stop(Duration::ZERO).await;
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
