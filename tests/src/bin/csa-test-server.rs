//! A small CSA protocol 1.2.1 server for the tests of `council-csa` that behaves as shogi-server
//! (floodgate's server, which the computer shogi championships' servers run too) does on every
//! point a client sees, written from the protocol document and shogi-server's observed
//! behaviour, not a copy of its code: it pairs logged-in clients by game name, sends
//! `Game_Summary`, relays moves with `,T<sec>` times, keeps both clocks and judges every ending
//! the protocol names. Legality is the arbiter's (`council_play::game::adjudicate::judge_move`,
//! the full legal-move list: pawn-drop mate, nifu and the like are `#ILLEGAL_MOVE`), impasse
//! declarations the engine crate's 27-point rule, repetition the engine crate's (perpetual
//! check loses).
//!
//! `csa-test-server [--port P] [--game NAME] [--total S] [--byoyomi S] [--increment S]
//! [--least S] [--max-moves N] [--position FILE] [--games N] [--drop-after N]
//! [--chudan-after N] [--reject-game N] [the network's faults, below]`, or `csa-test-server --help` (each option explained) or
//! `--version`
//!
//! - `--port 0` (the default) binds a free port; the first line on stdout is `port <n>`.
//! - Logins, as shogi-server reads them: `LOGIN <name> <password>`, where the password is
//!   `<game name>,<password>` or a bare game name. A game name is `NAME-TOTAL-BYOYOMI`, `F` after
//!   the byoyomi for a Fischer increment instead (`floodgate-300-10F`), a byoyomi written with a
//!   leading 0 for shogi-server's stop watch (`sw-600-060`: `Time_Unit:1min`, time charged in
//!   whole byoyomi periods, no byoyomi after the main time), and `-B` or `-W` after that to ask
//!   for sente or gote. A password without a game name joins the default game, `--game`
//!   (default `test`), with the clock of `--total`, `--byoyomi` and `--increment`. Any password
//!   is accepted; a malformed `LOGIN` line gets `LOGIN:incorrect`.
//! - Two clients of the same game are paired; the first to log in plays sente unless the sides
//!   asked for say otherwise.
//! - Clocks are in seconds (`Time_Unit:1sec`; `Increment:` always sent), kept by the
//!   workspace's one clock (`engine::clock`) under shogi-server's rule: a move is charged its
//!   whole seconds, cut down, at least `--least`; the increment is credited before the move, and
//!   time is up when the charge reaches the main time left plus the increment plus the byoyomi.
//!   All three 0: no clock. After each move a line `clock <game id> <moves> <sente ms> <gote ms>`
//!   (main time left) goes to stdout.
//! - Endings as shogi-server sends them: `%TORYO #RESIGN`, `%KACHI #JISHOGI` or
//!   `%KACHI #ILLEGAL_MOVE`, `#ILLEGAL_MOVE`, `#TIME_UP`, `#SENNICHITE #DRAW`,
//!   `#OUTE_SENNICHITE`, `#MAX_MOVES #CENSORED`, then `#WIN`/`#LOSE`/`#DRAW`. A client that
//!   disconnects loses: its opponent gets `%TORYO #RESIGN #WIN` (at once when the one gone was
//!   to move, else after the opponent's next move is relayed), never a word of its own.
//! - After each game (and after a `REJECT`) the connection is closed without answering
//!   `LOGOUT`, as shogi-server does in CSA mode: at once for the client whose move ended the
//!   game, at its next line (or after 3 s) for the other. An empty line is answered with an empty
//!   line (the keep-alive), in a game or not.
//! - `--position FILE`: a CSA position (`P1`..`P9` or `PI`, `P+`/`P-`, `+`/`-`, moves played)
//!   to start from, sent as the summary's `Position` section (its moves are not charged).
//! - Fault injection: `--drop-after N` closes both connections after N moves of a game;
//!   `--chudan-after N` sends `#CHUDAN` after N moves; `--reject-game N` answers the N-th game's
//!   `AGREE`s with `REJECT:<id> by the Server`. The network's faults: `--reset-after N` resets
//!   the mover's connection (a TCP RST) when its move after N arrives; `--silent-after N` goes
//!   silent on both players without closing (no move relayed, no keep-alive answered);
//!   `--garbage-after N` sends lines that are not UTF-8, control characters and unknown
//!   commands; `--long-line-after N` sends a line of 256 KiB; `--fault-game N` keeps a game's
//!   faults to the N-th game. Logins: `--close-logins N` closes the connection on each of the
//!   first N `LOGIN` lines; `--silent-logins N` answers the N after those and then says
//!   nothing, the connection left open.
//! - `--games N`: stop after hosting N games, rejected ones included (default: serve until
//!   killed). Each game ends with a line `end <game id> <#ENDING> <#WIN|#LOSE|#DRAW|#CENSORED for
//!   sente>` on stdout.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use clap::Parser;
use council_play::game::adjudicate::judge_move;
use engine::clock::{Clocks, TimeControl};
use engine::position::{Position, Repetition};
use engine::record::{GameRecord, csa_move_to_usi};
use engine::types::{ByColor, Color};

/// The server's options (`--help` lists them).
#[derive(Parser, Debug)]
#[command(
    name = "csa-test-server",
    version = council_stamp::version!(),
    about = "A small CSA protocol 1.2.1 server that behaves as shogi-server does, for the tests of council-csa",
    after_help = "The first line on stdout is `port <n>`; then a line `clock <game id> <moves> <sente ms> <gote ms>` after each move and `end <game id> <#ENDING> <#WIN|#LOSE|#DRAW|#CENSORED for sente>` after each game."
)]
struct Cli {
    /// The port to listen on, on 127.0.0.1 (0: a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The game a password without a game name joins.
    #[arg(long, default_value = "test")]
    game: String,
    /// The default game's main time, seconds.
    #[arg(long, default_value_t = 60)]
    total: u64,
    /// The default game's byoyomi, seconds.
    #[arg(long, default_value_t = 0)]
    byoyomi: u64,
    /// The default game's Fischer increment, seconds.
    #[arg(long, default_value_t = 0)]
    increment: u64,
    /// The least time charged for a move, seconds (shogi-server's Least_Time_Per_Move).
    #[arg(long, default_value_t = 0)]
    least: u64,
    /// Moves after which a game is drawn (`#MAX_MOVES`, `#CENSORED`).
    #[arg(long, default_value_t = 256)]
    max_moves: u32,
    /// A CSA position to start every game from (its moves are not charged).
    #[arg(long, value_name = "FILE")]
    position: Option<PathBuf>,
    /// Stop after hosting this many games, rejected ones included (default: serve until
    /// killed).
    #[arg(long)]
    games: Option<u64>,
    /// Fault: close both connections after this many moves of a game.
    #[arg(long, value_name = "N")]
    drop_after: Option<usize>,
    /// Fault: send `#CHUDAN` after this many moves of a game.
    #[arg(long, value_name = "N")]
    chudan_after: Option<usize>,
    /// Fault: answer the N-th game's `AGREE`s with `REJECT:<id> by the Server`.
    #[arg(long, value_name = "N")]
    reject_game: Option<u64>,
    /// Fault: after this many moves of a game, reset the mover's connection (a TCP RST) when
    /// its move arrives, without echoing it; its opponent wins as by resignation.
    #[arg(long, value_name = "N")]
    reset_after: Option<usize>,
    /// Fault: after this many moves of a game, go silent on both players without closing:
    /// no move relayed, no keep-alive answered, until both have closed their connections.
    #[arg(long, value_name = "N")]
    silent_after: Option<usize>,
    /// Fault: after this many moves of a game, send each player garbage lines (bytes that are
    /// not UTF-8, control characters, an unknown command); the game goes on.
    #[arg(long, value_name = "N")]
    garbage_after: Option<usize>,
    /// Fault: after this many moves of a game, send each player a line of 256 KiB; the game
    /// goes on for whoever reads it.
    #[arg(long, value_name = "N")]
    long_line_after: Option<usize>,
    /// The game (1 for the first hosted) the faults of a game (--drop-after, --chudan-after,
    /// --reset-after, --silent-after, --garbage-after, --long-line-after) apply to (default:
    /// every game).
    #[arg(long, value_name = "N")]
    fault_game: Option<u64>,
    /// Fault: close the connection on each of the first N `LOGIN` lines, without an answer.
    #[arg(long, value_name = "N", default_value_t = 0)]
    close_logins: u64,
    /// Fault: answer the N logins after those `LOGIN:<name> OK`, then nothing: no game, no
    /// keep-alive answered, the connection left open.
    #[arg(long, value_name = "N", default_value_t = 0)]
    silent_logins: u64,
}

/// What the server runs with: the options, the start position read.
struct Args {
    port: u16,
    game: String,
    /// The default game's clock.
    time: Time,
    least: u64,
    max_moves: u32,
    /// The `Position` section's lines, the position they give and the moves they played.
    position: (Vec<String>, Position, usize),
    games: Option<u64>,
    drop_after: Option<usize>,
    chudan_after: Option<usize>,
    reject_game: Option<u64>,
    reset_after: Option<usize>,
    silent_after: Option<usize>,
    garbage_after: Option<usize>,
    long_line_after: Option<usize>,
    fault_game: Option<u64>,
    /// The faults of logins: how many are closed, then how many answered and left silent.
    login_faults: LoginFaults,
}

/// What the first logins meet (counted from 1 in the order their `LOGIN` lines arrive).
#[derive(Clone, Copy, Debug)]
struct LoginFaults {
    close: u64,
    silent: u64,
}

/// A game's clock, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Time {
    total: u64,
    byoyomi: u64,
    increment: u64,
    /// shogi-server's stop watch: time charged in whole byoyomi periods.
    stop_watch: bool,
}

const STANDARD: &str = "PI\n+\n";

fn parse_args() -> Result<Args, String> {
    let cli = Cli::parse();
    let position = match &cli.position {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--position {}: {e}", path.display()))?;
            read_position(&text).map_err(|e| format!("--position {}: {e}", path.display()))?
        }
        None => read_position(STANDARD)?,
    };
    Ok(Args {
        port: cli.port,
        game: cli.game,
        time: Time {
            total: cli.total,
            byoyomi: cli.byoyomi,
            increment: cli.increment,
            stop_watch: false,
        },
        least: cli.least,
        max_moves: cli.max_moves,
        position,
        games: cli.games,
        drop_after: cli.drop_after,
        chudan_after: cli.chudan_after,
        reject_game: cli.reject_game,
        reset_after: cli.reset_after,
        silent_after: cli.silent_after,
        garbage_after: cli.garbage_after,
        long_line_after: cli.long_line_after,
        fault_game: cli.fault_game,
        login_faults: LoginFaults {
            close: cli.close_logins,
            silent: cli.silent_logins,
        },
    })
}

/// A CSA position text: its `Position` section lines and the position after its moves.
fn read_position(text: &str) -> Result<(Vec<String>, Position, usize), String> {
    let record = GameRecord::read_csa(text).map_err(|e| e.to_string())?;
    let lines = text
        .lines()
        .map(str::trim_end)
        .filter(|l| l.starts_with('P') || l.starts_with('+') || l.starts_with('-'))
        .map(str::to_string)
        .collect();
    Ok((lines, record.position().clone(), record.moves().len()))
}

/// The game a `LOGIN` password asks for: its name, the side asked for, and its clock when the
/// name gives one.
#[derive(Clone, Debug)]
struct GameName {
    name: String,
    side: Option<Color>,
    time: Option<Time>,
}

/// shogi-server's identifiers: letters, digits, `_`, `@`, `-`, `.`.
fn identifier(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '@' | '-' | '.'))
}

/// `NAME-TOTAL-BYOYOMI[F][-B|-W]`: the name without the side, the side, the clock.
fn game_name(text: &str) -> Option<GameName> {
    let (rest, side) = match text.rsplit_once('-') {
        Some((rest, "B" | "b")) => (rest, Some(Color::Sente)),
        Some((rest, "W" | "w")) => (rest, Some(Color::Gote)),
        _ => (text, None),
    };
    let (front, last) = rest.rsplit_once('-')?;
    let (head, total) = front.rsplit_once('-')?;
    let fischer = last.ends_with('F');
    let digits = last.trim_end_matches('F');
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !(numeric(total) && numeric(digits) && identifier(head)) {
        return None;
    }
    let (total, n) = (total.parse().ok()?, digits.parse().ok()?);
    let stop_watch = digits.len() > 1 && digits.starts_with('0');
    Some(GameName {
        name: rest.to_string(),
        side,
        time: Some(Time {
            total,
            byoyomi: if fischer { 0 } else { n },
            increment: if fischer { n } else { 0 },
            stop_watch,
        }),
    })
}

/// The game a password asks for: the whole password when it is a game name, else what comes
/// before a comma, else the default game.
fn game_of_password(password: &str, default: &str) -> GameName {
    game_name(password)
        .or_else(|| game_name(password.split_once(',')?.0))
        .unwrap_or(GameName {
            name: default.to_string(),
            side: None,
            time: None,
        })
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("csa-test-server: {e}");
            std::process::exit(2);
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("csa-test-server: cannot listen on port {}: {e}", args.port);
            std::process::exit(2);
        }
    };
    let port = listener.local_addr().map_or(0, |a| a.port());
    say_stdout(&format!("port {port}"));
    let arrivals = accept_logins(listener, args.game.clone(), args.login_faults);
    host_games(&args, &arrivals);
}

/// Accept connections, each logged in on its own thread; the clients logged in arrive on the
/// channel returned.
fn accept_logins(
    listener: TcpListener,
    default_game: String,
    faults: LoginFaults,
) -> mpsc::Receiver<Client> {
    let (logins, arrivals) = mpsc::channel::<Client>();
    std::thread::spawn(move || {
        let counted = Arc::new(AtomicU64::new(0));
        for stream in listener.incoming().flatten() {
            let logins = logins.clone();
            let default_game = default_game.clone();
            let counted = counted.clone();
            std::thread::spawn(move || {
                if let Some(c) = login(stream, &default_game, &counted, faults) {
                    let _ = logins.send(c);
                }
            });
        }
    });
    arrivals
}

/// Pair the clients as they arrive by the game they asked for and host each pair's game, until
/// `--games` games have been hosted (or for ever).
fn host_games(args: &Args, arrivals: &mpsc::Receiver<Client>) {
    let mut waiting: Vec<Client> = Vec::new();
    // Logins left silent: kept, so their connections stay open.
    let mut silenced: Vec<Client> = Vec::new();
    let mut hosted = 0;
    while args.games.is_none_or(|n| hosted < n) {
        let Ok(arrived) = arrivals.recv() else { break };
        if arrived.mute.load(Ordering::SeqCst) {
            silenced.push(arrived);
            continue;
        }
        waiting.retain(|c| !c.gone.load(Ordering::SeqCst));
        let Some(i) = waiting
            .iter()
            .position(|c| c.game.name == arrived.game.name)
        else {
            waiting.push(arrived);
            continue;
        };
        let first = waiting.remove(i);
        // The first to log in plays sente, unless the sides asked for say otherwise.
        let pair = match (first.game.side, arrived.game.side) {
            (Some(Color::Gote), _) | (_, Some(Color::Sente)) => ByColor {
                sente: arrived,
                gote: first,
            },
            _ => ByColor {
                sente: first,
                gote: arrived,
            },
        };
        hosted += 1;
        let id = format!(
            "{}+{}+{}+{hosted}",
            pair.sente.game.name, pair.sente.name, pair.gote.name
        );
        let reject = args.reject_game == Some(hosted);
        let faulty = args.fault_game.is_none_or(|n| n == hosted);
        let (ending, sente_result) = host(args, &id, pair, reject, faulty);
        say_stdout(&format!("end {id} {ending} {sente_result}"));
    }
}

fn say_stdout(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A logged-in client: its name, the game it asked for, its socket (`None` once reset), its
/// lines as they arrive (keep-alives answered and left out), whether it is gone, and whether
/// the server is silent to it (its keep-alives unanswered).
struct Client {
    name: String,
    game: GameName,
    writer: Arc<Mutex<Option<TcpStream>>>,
    lines: mpsc::Receiver<Option<String>>,
    gone: Arc<AtomicBool>,
    mute: Arc<AtomicBool>,
}

impl Client {
    fn send(&self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    fn send_bytes(&self, bytes: &[u8]) {
        if let Ok(mut w) = self.writer.lock()
            && let Some(w) = w.as_mut()
        {
            let _ = w.write_all(bytes);
        }
    }

    fn close(&self) {
        if let Ok(w) = self.writer.lock()
            && let Some(w) = w.as_ref()
        {
            let _ = w.shutdown(Shutdown::Both);
        }
    }

    /// Reset the connection: with a zero linger its close sends a TCP RST instead of a FIN.
    /// Shutting the reading side wakes the reader thread, which lets go of its handle, and the
    /// socket closes when the last handle does.
    fn reset(&self) {
        if let Ok(mut w) = self.writer.lock()
            && let Some(stream) = w.take()
        {
            let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
            let _ = stream.shutdown(Shutdown::Read);
        }
    }

    /// Be silent to this client until it closes its connection (at most `patience`).
    fn silent_until_gone(&self, patience: Duration) {
        self.mute.store(true, Ordering::SeqCst);
        let until = Instant::now() + patience;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        self.close();
    }
}

/// Read `LOGIN <name> <password>`; answer it (or, for the first logins `faults` names, close
/// the connection or answer and fall silent); hand over the client with a reader thread.
fn login(
    stream: TcpStream,
    default_game: &str,
    counted: &AtomicU64,
    faults: LoginFaults,
) -> Option<Client> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let writer = Arc::new(Mutex::new(Some(stream)));
    let line = first_line(&mut reader, &writer)?;
    let words: Vec<&str> = line.split_whitespace().collect();
    if !(words.len() == 3 && words[0] == "LOGIN" && identifier(words[1])) {
        let _ = writer
            .lock()
            .ok()?
            .as_mut()?
            .write_all(b"LOGIN:incorrect\n");
        return None;
    }
    let number = counted.fetch_add(1, Ordering::SeqCst) + 1;
    if number <= faults.close {
        let _ = writer.lock().ok()?.as_ref()?.shutdown(Shutdown::Both);
        return None;
    }
    let silent = number <= faults.close + faults.silent;
    let name = words[1].to_string();
    let game = game_of_password(words[2], default_game);
    writer
        .lock()
        .ok()?
        .as_mut()?
        .write_all(format!("LOGIN:{name} OK\n").as_bytes())
        .ok()?;
    let mute = Arc::new(AtomicBool::new(silent));
    let (lines, gone) = read_lines(reader, writer.clone(), mute.clone());
    Some(Client {
        name,
        game,
        writer,
        lines,
        gone,
        mute,
    })
}

/// The first line that is not empty, the empty ones before it answered (a keep-alive before
/// logging in is answered too); `None` when the connection ends first.
fn first_line(
    reader: &mut BufReader<TcpStream>,
    writer: &Mutex<Option<TcpStream>>,
) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if !line.trim().is_empty() {
            return Some(line);
        }
        writer.lock().ok()?.as_mut()?.write_all(b"\n").ok()?;
    }
}

/// A thread that reads a client's lines: each keep-alive answered (unless `quiet`) and left
/// out, every other line handed over, then `None` when the connection ends. Returns the lines
/// and whether the client is gone.
fn read_lines(
    reader: BufReader<TcpStream>,
    echo: Arc<Mutex<Option<TcpStream>>>,
    quiet: Arc<AtomicBool>,
) -> (mpsc::Receiver<Option<String>>, Arc<AtomicBool>) {
    let (tx, lines) = mpsc::channel();
    let gone = Arc::new(AtomicBool::new(false));
    let left = gone.clone();
    std::thread::spawn(move || {
        for l in reader.lines() {
            let Ok(l) = l else { break };
            let l = l.trim_end_matches('\r').to_string();
            if l.is_empty() {
                if !quiet.load(Ordering::SeqCst)
                    && let Ok(mut w) = echo.lock()
                    && let Some(w) = w.as_mut()
                {
                    let _ = w.write_all(b"\n");
                }
                continue;
            }
            if tx.send(Some(l)).is_err() {
                return;
            }
        }
        left.store(true, Ordering::SeqCst);
        let _ = tx.send(None);
    });
    (lines, gone)
}

fn summary(args: &Args, time: Time, id: &str, names: ByColor<&str>, you: Color) -> String {
    let sign = |c: Color| if c == Color::Sente { "+" } else { "-" };
    let to_move = sign(args.position.1.side_to_move());
    let unit = if time.stop_watch { "1min" } else { "1sec" };
    let mut s = format!(
        "BEGIN Game_Summary\nProtocol_Version:1.2\nProtocol_Mode:Server\nFormat:Shogi 1.0\n\
         Declaration:Jishogi 1.1\nGame_ID:{id}\nName+:{}\nName-:{}\nYour_Turn:{}\n\
         Rematch_On_Draw:NO\nTo_Move:{to_move}\nMax_Moves:{}\nBEGIN Time\nTime_Unit:{unit}\n\
         Total_Time:{}\nByoyomi:{}\nIncrement:{}\nLeast_Time_Per_Move:{}\nEND Time\n\
         BEGIN Position\n",
        names.sente,
        names.gote,
        sign(you),
        args.max_moves,
        time.total,
        time.byoyomi,
        time.increment,
        args.least,
    );
    for l in &args.position.0 {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("END Position\nEND Game_Summary");
    s
}

/// Host one game between `clients`. Returns the ending word and sente's result.
fn host(
    args: &Args,
    id: &str,
    clients: ByColor<Client>,
    reject: bool,
    faulty: bool,
) -> (String, String) {
    let names = clients.as_ref().map(|c| c.name.as_str());
    let time = clients.sente.game.time.unwrap_or(args.time);
    for (you, c) in clients.as_ref().into_iter_colors() {
        c.send(&summary(args, time, id, names, you));
    }
    if let Err(by) = agree(&clients) {
        return rejected(&clients, id, &by);
    }
    if reject {
        return rejected(&clients, id, "the Server");
    }
    for c in &clients {
        c.send(&format!("START:{id}"));
    }
    let (end, mover) = Referee::new(args, id, time, faulty).run(&clients);
    finish(&clients, end, mover)
}

/// Wait for both `AGREE`s; who rejected the game (or that the server timed out) otherwise.
fn agree(clients: &ByColor<Client>) -> Result<(), String> {
    for c in clients {
        loop {
            match c.lines.recv_timeout(Duration::from_secs(30)) {
                Ok(Some(l)) if l.starts_with("AGREE") => break,
                Ok(Some(l)) if l.starts_with("REJECT") => return Err(c.name.clone()),
                Ok(Some(_)) => {}
                _ => return Err("the Server (timed out)".into()),
            }
        }
    }
    Ok(())
}

/// Tell both clients how the game ended and close (or leave silent) their connections; the
/// ending word and sente's result.
fn finish(clients: &ByColor<Client>, end: End, mover: Option<Color>) -> (String, String) {
    match end {
        End::Result { lines, winner } => {
            for (side, c) in clients.as_ref().into_iter_colors() {
                for l in &lines {
                    c.send(l);
                }
                c.send(result(side, winner, &lines));
            }
            close_after_game(clients, mover);
            let sente = result(Color::Sente, winner, &lines);
            let ending = lines.last().cloned().unwrap_or_default();
            (ending, sente.into())
        }
        End::Chudan => {
            for c in clients {
                c.send("#CHUDAN");
            }
            close_after_game(clients, mover);
            ("#CHUDAN".into(), "-".into())
        }
        End::Dropped => {
            for c in clients {
                c.close();
            }
            ("#DROPPED".into(), "-".into())
        }
        End::Silent => {
            // Each must find out by itself: a keep-alive unanswered, a move never echoed.
            for c in clients {
                c.mute.store(true, Ordering::SeqCst);
            }
            for c in clients {
                c.silent_until_gone(Duration::from_secs(600));
            }
            ("#SILENT".into(), "-".into())
        }
    }
}

/// The result of `side` in a game ended by `lines`: `#WIN`, `#LOSE`, `#DRAW`, or `#CENSORED`
/// for a draw at `Max_Moves`.
fn result(side: Color, winner: Option<Color>, lines: &[String]) -> &'static str {
    match winner {
        None if lines.last().map(String::as_str) == Some("#MAX_MOVES") => "#CENSORED",
        None => "#DRAW",
        Some(w) if w == side => "#WIN",
        Some(_) => "#LOSE",
    }
}

/// `REJECT:<id> by <who>` to both, then both connections closed (CSA mode).
fn rejected(clients: &ByColor<Client>, id: &str, by: &str) -> (String, String) {
    for c in clients {
        c.send(&format!("REJECT:{id} by {by}"));
    }
    close_after_game(clients, None);
    ("#REJECT".into(), "-".into())
}

/// shogi-server in CSA mode: the connection of the client whose line ended the game closes at
/// once; the other's at its next line (never answered, `LOGOUT` included), or after 3 s.
fn close_after_game(clients: &ByColor<Client>, mover: Option<Color>) {
    if let Some(m) = mover {
        clients[m].close();
    }
    let until = Instant::now() + Duration::from_secs(3);
    for (side, c) in clients.as_ref().into_iter_colors() {
        if mover == Some(side) {
            continue;
        }
        if let Some(left) = until.checked_duration_since(Instant::now()) {
            let _ = c.lines.recv_timeout(left);
        }
        c.close();
    }
}

enum End {
    /// The lines that say how (`%TORYO`, `#RESIGN`; none for a plain result) and the winner
    /// (`None`: a draw).
    Result {
        lines: Vec<String>,
        winner: Option<Color>,
    },
    Chudan,
    Dropped,
    /// The server fell silent on both players (`--silent-after`).
    Silent,
}

struct Referee<'a> {
    args: &'a Args,
    id: &'a str,
    position: Position,
    /// Both sides' clocks (`None`: a game without a clock).
    clocks: Option<Clocks>,
    /// shogi-server's stop watch: its period, seconds (time is charged in whole periods, and
    /// up when the charge reaches the main time left).
    stop_watch: Option<u64>,
    /// Moves played in this game (after the start position's).
    played: usize,
    /// Moves from the start of the game (the start position's included), for `Max_Moves`.
    plies: usize,
    /// The game's faults apply to this game (`--fault-game`).
    faulty: bool,
}

/// A line that is not UTF-8, control characters, and commands no client knows: what a broken
/// server or a noisy network may deliver.
const GARBAGE: &[&[u8]] = &[
    b"\xff\xfe\x80 not UTF-8 \xc3\x28\n",
    b"\x01\x02\x1b[31m control characters\x07\n",
    b"##[ERROR] unknown command LOREM-IPSUM\n",
    b"BEGIN Nonsense\n",
];

impl<'a> Referee<'a> {
    /// A game from `--position` on the clock `time` (all three 0: no clock).
    fn new(args: &'a Args, id: &'a str, time: Time, faulty: bool) -> Self {
        let control = TimeControl {
            main: Duration::from_secs(time.total),
            byoyomi: Duration::from_secs(time.byoyomi),
            increment: Duration::from_secs(time.increment),
        };
        Referee {
            args,
            id,
            position: args.position.1.clone(),
            clocks: (!control.is_unlimited()).then(|| Clocks::start(control)),
            stop_watch: time.stop_watch.then_some(time.byoyomi.max(1)),
            played: 0,
            plies: args.position.2,
            faulty,
        }
    }

    /// Whether the fault `after` moves applies now.
    fn fault(&self, after: Option<usize>) -> bool {
        self.faulty && after == Some(self.played)
    }

    /// Play until the game ends; how, and the side whose line (or silence) ended it.
    fn run(&mut self, clients: &ByColor<Client>) -> (End, Option<Color>) {
        loop {
            let mover = self.position.side_to_move();
            let (end, ended) = self.step(clients, mover);
            if let Some(end) = end {
                return (end, ended.then_some(mover));
            }
        }
    }

    /// The mover's allowance: what its next move may take, at most.
    fn allowance(&self, mover: Color) -> Duration {
        match (self.clocks, self.stop_watch) {
            (None, _) => Duration::MAX,
            (Some(c), Some(_)) => c.side(mover).remaining,
            (Some(c), None) => c.side(mover).allowance(),
        }
    }

    /// Charge `mover` `secs`; `false` when that is time up.
    fn charge(&mut self, mover: Color, secs: u64) -> bool {
        let Some(clocks) = &mut self.clocks else {
            return true;
        };
        let side = clocks.side_mut(mover);
        match self.stop_watch {
            Some(period) => {
                let charged = Duration::from_secs(secs / period * period);
                if side.remaining <= charged {
                    return false;
                }
                side.remaining -= charged;
                true
            }
            None => side
                .charge(Duration::from_secs(secs), Duration::ZERO)
                .is_ok(),
        }
    }

    /// One move of the side to move; the game's end when it ends, and whether the mover's
    /// own line (or silence) ended it.
    fn step(&mut self, clients: &ByColor<Client>, mover: Color) -> (Option<End>, bool) {
        if self.fault(self.args.silent_after) {
            return (Some(End::Silent), false);
        }
        if let Err((end, ended)) = self.play_move(clients, mover) {
            return (Some(end), ended);
        }
        let end = self
            .judge(clients, mover)
            .or_else(|| self.after_move_faults(clients));
        let ended = end.is_some();
        (end, ended)
    }

    /// The mover's line, charged, judged and relayed with its time when it is a move; the
    /// game's end otherwise.
    fn play_move(&mut self, clients: &ByColor<Client>, mover: Color) -> Result<(), Ended> {
        let began = Instant::now();
        let line = self.receive(&clients[mover], mover)?;
        if self.fault(self.args.reset_after) {
            // The move arrived and is never echoed: the mover's connection is reset, and the
            // server hears a disconnect.
            clients[mover].reset();
            return Err((abandoned(mover.opposite()), false));
        }
        let secs = (began.elapsed().as_secs()).max(self.args.least);
        let before = self.clocks;
        if !self.charge(mover, secs) {
            return Err((loss(mover, &["#TIME_UP"]), true));
        }
        let word = line.split(',').next().unwrap_or("").trim().to_string();
        self.declaration(mover, &word)?;
        let legal = csa_move_to_usi(&self.position, &word)
            .and_then(|usi| judge_move(&self.position, &clients[mover].name, &usi).ok());
        let Some(mv) = legal else {
            self.clocks = before;
            return Err((loss(mover, &["#ILLEGAL_MOVE"]), true));
        };
        self.position.play(mv);
        self.played += 1;
        self.plies += 1;
        for c in clients {
            c.send(&format!("{word},T{secs}"));
        }
        if let Some(c) = self.clocks {
            say_stdout(&format!(
                "clock {} {} {} {}",
                self.id,
                self.plies,
                c.side(Color::Sente).remaining.as_millis(),
                c.side(Color::Gote).remaining.as_millis()
            ));
        }
        Ok(())
    }

    /// The mover's next line, waited for as long as its allowance lasts.
    fn receive(&self, client: &Client, mover: Color) -> Result<String, Ended> {
        // Whole seconds are charged, cut down: the flag falls when they reach the allowance.
        let allowance = self.allowance(mover);
        // Keep-alives are answered by the reader and never reach here: one wait suffices.
        match client.lines.recv_timeout(allowance) {
            Ok(Some(l)) => Ok(l),
            // The mover is gone: its opponent wins as by resignation.
            Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err((abandoned(mover.opposite()), false))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Err((loss(mover, &["#TIME_UP"]), true)),
        }
    }

    /// `%TORYO` and `%KACHI` (a win when the 27-point rule allows it, else a loss) end the game.
    fn declaration(&self, mover: Color, word: &str) -> Result<(), Ended> {
        match word {
            "%TORYO" => Err((loss(mover, &["%TORYO", "#RESIGN"]), true)),
            "%KACHI" if self.position.impasse_declaration().is_err() => {
                Err((loss(mover, &["%KACHI", "#ILLEGAL_MOVE"]), true))
            }
            "%KACHI" => {
                let won = End::Result {
                    lines: vec!["%KACHI".into(), "#JISHOGI".into()],
                    winner: Some(mover),
                };
                Err((won, true))
            }
            _ => Ok(()),
        }
    }

    /// After a move: the game's end when the opponent has left, the position repeats or the
    /// game reaches `Max_Moves`.
    fn judge(&self, clients: &ByColor<Client>, mover: Color) -> Option<End> {
        // The opponent left while the mover thought: the mover wins as by resignation.
        if clients[mover.opposite()].gone.load(Ordering::SeqCst) {
            return Some(abandoned(mover));
        }
        let (lines, winner) = match self.position.repetition() {
            Repetition::Draw => (vec!["#SENNICHITE".into()], None),
            Repetition::PerpetualCheck { loser } => {
                (vec!["#OUTE_SENNICHITE".into()], Some(loser.opposite()))
            }
            _ if self.plies >= self.args.max_moves as usize => (vec!["#MAX_MOVES".into()], None),
            _ => return None,
        };
        Some(End::Result { lines, winner })
    }

    /// After a move, the game's faults due now: a drop or a `#CHUDAN` ends the game; garbage
    /// and a long line go to both players, and the game goes on.
    fn after_move_faults(&self, clients: &ByColor<Client>) -> Option<End> {
        if self.fault(self.args.drop_after) {
            return Some(End::Dropped);
        }
        if self.fault(self.args.chudan_after) {
            return Some(End::Chudan);
        }
        if self.fault(self.args.garbage_after) {
            for c in clients {
                for g in GARBAGE {
                    c.send_bytes(g);
                }
            }
        }
        if self.fault(self.args.long_line_after) {
            let mut long = vec![b'x'; 256 * 1024];
            long.push(b'\n');
            for c in clients {
                c.send_bytes(&long);
            }
        }
        None
    }
}

/// How a game ended, and whether the mover's own line (or silence) ended it.
type Ended = (End, bool);

/// A loss for `mover`, told by `lines`.
fn loss(mover: Color, lines: &[&str]) -> End {
    End::Result {
        lines: lines.iter().map(|l| l.to_string()).collect(),
        winner: Some(mover.opposite()),
    }
}

/// A game its opponent left: `winner` hears `%TORYO #RESIGN #WIN`, as from shogi-server.
fn abandoned(winner: Color) -> End {
    End::Result {
        lines: vec!["%TORYO".into(), "#RESIGN".into()],
        winner: Some(winner),
    }
}
