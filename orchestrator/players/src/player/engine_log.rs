//! The engine log (`--log FILE`, a player's `log = true`): every line sent to and read from
//! every engine process, one line each, as
//! `<unix seconds>.<millis> <game> <player> <direction> <text>`, where `game` is the game's id
//! (`-` outside a game: a pre-flight handshake, the `quit` at the end), `player` the engine's
//! place in the player tree (`gps`, or `council/gps` for the member `gps` of `council`), and the
//! direction `>` (sent to the engine), `<` (its stdout), `!` (its stderr) or `#` (a note: the
//! process started, exited, was killed; and at the end of every game its verdict, under the
//! game's id and the player `-`: `result R reason W plies N detail D`, [`EngineLog::verdict`]).
//!
//! Invariants: every line is written whole by one `write` on an unbuffered file, so it is on
//! disk when the next one is written and a killed run loses none; the log is appended to (a
//! resumed run adds to it) and grows by at most its cap in one session, then one note says the
//! cap was reached and nothing more is written; a line belongs to the game whose task last
//! wrote to the process when the line is read (games run their players inside [`in_game`]), so
//! the replies an engine sends after its game's last command are still that game's until
//! another game writes to that process (what `docs/guide/matches.md` says). A write that fails
//! (a full disk, EIO) is kept as the log's [`EngineLog::failure`] and no later line is tried: the
//! program that owns the log decides what a broken log means and says it in one line of its own
//! (council-match and council-csa stop, naming the file); the log itself says nothing more,
//! so that the user reads one line, not two. An owner that plays on without its
//! log (council-usi: the GUI's game goes on) asks for [`EngineLog::warn_on_failure`]: one
//! warning naming the file, once.

use std::fs::File;
use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The cap of a log unless told otherwise: 100 MB.
pub const DEFAULT_CAP_BYTES: u64 = 100 * 1_000_000;

tokio::task_local! {
    /// The game the current task plays.
    static GAME: u64;
}

/// Runs `future` as game `id`: the engine lines it causes are logged under that id.
pub async fn in_game<F: Future>(id: u64, future: F) -> F::Output {
    GAME.scope(id, future).await
}

/// The game the current task plays, if it plays one.
fn current_game() -> Option<u64> {
    GAME.try_with(|g| *g).ok()
}

/// An engine log that cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the engine log {}: {cause}", path.display())]
pub struct EngineLogError {
    pub path: PathBuf,
    pub cause: std::io::Error,
}

/// Which way a line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Sent to the engine.
    Sent,
    /// Read from its stdout.
    Received,
    /// Read from its stderr.
    Stderr,
    /// A note of ours about the process.
    Note,
}

impl Direction {
    fn mark(self) -> char {
        match self {
            Direction::Sent => '>',
            Direction::Received => '<',
            Direction::Stderr => '!',
            Direction::Note => '#',
        }
    }
}

/// An open engine log, shared by every process that writes to it (cloning shares it).
#[derive(Clone)]
pub struct EngineLog {
    inner: Arc<Sink>,
}

struct Sink {
    path: PathBuf,
    cap: u64,
    state: Mutex<SinkState>,
}

struct SinkState {
    file: File,
    /// Bytes written this session.
    written: u64,
    /// The cap was reached (and said so).
    full: bool,
    /// The first write that failed (its kind and message); nothing is written after it.
    failed: Option<(std::io::ErrorKind, String)>,
    /// Say the failed write in a warning ([`EngineLog::warn_on_failure`]).
    warn_on_failure: bool,
}

impl std::fmt::Debug for EngineLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineLog")
            .field("path", &self.inner.path)
            .field("cap", &self.inner.cap)
            .finish()
    }
}

impl EngineLog {
    /// Open `path` for appending (created if absent), writing at most `cap` bytes this session.
    pub fn open(path: &Path, cap: u64) -> Result<Self, EngineLogError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|cause| EngineLogError {
                path: path.to_path_buf(),
                cause,
            })?;
        Ok(Self {
            inner: Arc::new(Sink {
                path: path.to_path_buf(),
                cap,
                state: Mutex::new(SinkState {
                    file,
                    written: 0,
                    full: false,
                    failed: None,
                    warn_on_failure: false,
                }),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The error of the first write that failed, if one has (`None` while the log is whole).
    pub fn failure(&self) -> Option<std::io::Error> {
        let state = self.inner.state.lock().ok()?;
        let (kind, text) = state.failed.clone()?;
        Some(std::io::Error::new(kind, text))
    }

    /// For an owner that plays on without its log: a write that fails is also one warning on
    /// stderr naming the file (an owner that stops says it in its own line instead).
    pub fn warn_on_failure(&self) {
        if let Ok(mut state) = self.inner.state.lock() {
            state.warn_on_failure = true;
        }
    }

    /// A note outside any game and player (e.g. the session's start, with its command line).
    pub fn note(&self, text: &str) {
        self.write(None, "-", Direction::Note, text);
    }

    /// The verdict of game `game`, once it is over: `# result R reason W plies N detail D`
    /// under its id (`detail` last, as it has spaces; absent when the arbiter gave none).
    pub fn verdict(&self, game: u64, result: &str, reason: &str, plies: u32, detail: Option<&str>) {
        let detail = detail.map_or_else(String::new, |d| format!(" detail {d}"));
        self.write(
            Some(game),
            "-",
            Direction::Note,
            &format!("result {result} reason {reason} plies {plies}{detail}"),
        );
    }

    /// What the engine at `who` (its place in the player tree) writes with.
    pub fn tag(&self, who: &str) -> LogTag {
        LogTag {
            log: self.clone(),
            who: who.to_string(),
        }
    }

    fn write(&self, game: Option<u64>, who: &str, direction: Direction, text: &str) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let game = game.map_or_else(|| "-".to_string(), |g| g.to_string());
        let line = format!(
            "{}.{:03} {game} {who} {} {text}\n",
            now.as_secs(),
            now.subsec_millis(),
            direction.mark()
        );
        let Ok(mut state) = self.inner.state.lock() else {
            return;
        };
        if state.full || state.failed.is_some() {
            return;
        }
        if state.written + line.len() as u64 > self.inner.cap {
            state.full = true;
            let note = format!(
                "{}.{:03} - - # the log reached its cap of {} bytes this session: no more lines are written\n",
                now.as_secs(),
                now.subsec_millis(),
                self.inner.cap
            );
            let _ = state.file.write_all(note.as_bytes());
            tracing::warn!(
                "{}: the engine log reached its cap of {} bytes; later engine lines are not logged",
                self.inner.path.display(),
                self.inner.cap
            );
            return;
        }
        // An unbuffered file: the line is the kernel's once this returns.
        match state.file.write_all(line.as_bytes()) {
            Ok(()) => state.written += line.len() as u64,
            Err(e) => {
                if state.warn_on_failure {
                    tracing::warn!(
                        "cannot write the engine log {}: {e}; no more lines are written",
                        self.inner.path.display()
                    );
                }
                state.failed = Some((e.kind(), e.to_string()));
            }
        }
    }
}

/// Where one engine's lines go, and under which name.
#[derive(Clone, Debug)]
pub struct LogTag {
    log: EngineLog,
    who: String,
}

impl LogTag {
    /// The engine's place in the player tree, as its lines show it.
    pub fn who(&self) -> &str {
        &self.who
    }
}

/// No game seen yet on a process.
const NO_GAME: u64 = u64::MAX;

/// One process's logging: its tag and the game it last worked for (shared with the tasks that
/// read its output).
#[derive(Clone)]
pub(crate) struct ProcessLog {
    tag: LogTag,
    game: Arc<AtomicU64>,
}

impl ProcessLog {
    /// Logging for a process started now, by the current task.
    pub(crate) fn new(tag: LogTag) -> Self {
        let log = Self {
            tag,
            game: Arc::new(AtomicU64::new(NO_GAME)),
        };
        log.follow_task();
        log
    }

    /// The process now works for the current task's game (or for none).
    fn follow_task(&self) {
        self.game
            .store(current_game().unwrap_or(NO_GAME), Ordering::Relaxed);
    }

    fn game(&self) -> Option<u64> {
        Some(self.game.load(Ordering::Relaxed)).filter(|&g| g != NO_GAME)
    }

    /// A line sent by the current task.
    pub(crate) fn sent(&self, text: &str) {
        self.follow_task();
        self.line(Direction::Sent, text);
    }

    pub(crate) fn line(&self, direction: Direction, text: &str) {
        self.tag
            .log
            .write(self.game(), &self.tag.who, direction, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("council-engine-log-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir.join("engines.log")
    }

    /// `<seconds>.<millis> <game> <who> <dir> <text>`, split.
    fn fields(line: &str) -> Vec<String> {
        line.splitn(5, ' ').map(str::to_string).collect()
    }

    #[tokio::test]
    async fn lines_carry_the_game_of_the_task_that_last_wrote_and_are_on_disk_at_once() {
        let path = scratch("game");
        let log = EngineLog::open(&path, DEFAULT_CAP_BYTES).expect("open");
        let p = ProcessLog::new(log.tag("council/gps"));
        p.sent("usi");
        p.line(Direction::Received, "usiok");
        in_game(7, async { p.sent("go btime 0") }).await;
        // Read by another task after the game's command: still game 7.
        p.line(Direction::Received, "bestmove 7g7f");
        p.sent("quit");
        p.line(Direction::Stderr, "bye");
        let text = std::fs::read_to_string(&path).expect("the log");
        let lines: Vec<Vec<String>> = text.lines().map(fields).collect();
        let rest: Vec<Vec<&str>> = lines
            .iter()
            .map(|f| f[1..].iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            rest,
            [
                ["-", "council/gps", ">", "usi"],
                ["-", "council/gps", "<", "usiok"],
                ["7", "council/gps", ">", "go btime 0"],
                ["7", "council/gps", "<", "bestmove 7g7f"],
                ["-", "council/gps", ">", "quit"],
                ["-", "council/gps", "!", "bye"],
            ]
        );
        let (secs, millis) = lines[0][0].split_once('.').expect("seconds.millis");
        assert!(
            secs.parse::<u64>().is_ok() && millis.len() == 3,
            "{}",
            lines[0][0]
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_game_ends_with_its_verdict() {
        let path = scratch("verdict");
        let log = EngineLog::open(&path, DEFAULT_CAP_BYTES).expect("open");
        log.verdict(3, "gote", "timeout", 41, Some("sente used 1203 ms of 1000"));
        log.verdict(4, "draw", "max_plies", 80, None);
        let text = std::fs::read_to_string(&path).expect("the log");
        let rest: Vec<String> = text.lines().map(|l| fields(l)[1..].join(" ")).collect();
        assert_eq!(
            rest,
            [
                "3 - # result gote reason timeout plies 41 detail sente used 1203 ms of 1000",
                "4 - # result draw reason max_plies plies 80",
            ]
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_full_log_says_so_once_and_stops() {
        let path = scratch("cap");
        // Room for two lines of this size, not three.
        let log = EngineLog::open(&path, 100).expect("open");
        let p = ProcessLog::new(log.tag("fsf"));
        for n in 0..5 {
            p.line(Direction::Received, &format!("info depth {n} score cp 10"));
        }
        let text = std::fs::read_to_string(&path).expect("the log");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].ends_with("info depth 1 score cp 10"), "{text}");
        assert!(
            lines[2].contains("# the log reached its cap of 100 bytes"),
            "{text}"
        );
        // Appended, not truncated: a second session adds to it.
        let again = EngineLog::open(&path, 100).expect("open");
        again.note("session 2");
        let text = std::fs::read_to_string(&path).expect("the log");
        assert_eq!(text.lines().count(), 4);
        assert!(text.ends_with("- - # session 2\n"), "{text}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_failed_write_is_kept_and_stops_the_log() {
        // Linux's /dev/full opens and fails every write with ENOSPC, as a full disk does.
        let log = EngineLog::open(Path::new("/dev/full"), DEFAULT_CAP_BYTES).expect("open");
        assert!(log.failure().is_none(), "nothing written yet");
        log.note("session");
        let failure = log.failure().expect("the failed write is kept");
        assert_eq!(failure.kind(), std::io::ErrorKind::StorageFull, "{failure}");
        log.verdict(1, "1-0", "checkmate", 10, None);
        assert_eq!(
            log.failure().map(|e| e.kind()),
            Some(std::io::ErrorKind::StorageFull)
        );
    }
}
