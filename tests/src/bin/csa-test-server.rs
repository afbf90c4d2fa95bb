//! A small CSA protocol 1.2.1 server for the tests of `council-csa` (written from the protocol
//! document, not a copy of shogi-server): it pairs logged-in clients, sends `Game_Summary`,
//! relays moves with `,T<sec>` times, keeps both clocks and judges every ending the protocol
//! names. Legality is the arbiter's (`council_play::game::adjudicate::judge_move`, the full
//! legal-move list: pawn-drop mate, nifu and the like are `#ILLEGAL_MOVE`), impasse
//! declarations the engine crate's 27-point rule, repetition the engine crate's (perpetual
//! check loses).
//!
//! `csa-test-server [--port P] [--game NAME] [--total S] [--byoyomi S] [--increment S]
//! [--least S] [--max-moves N] [--position FILE] [--games N] [--drop-after N]
//! [--chudan-after N]`, or `csa-test-server --version`
//!
//! - `--port 0` (the default) binds a free port; the first line on stdout is `port <n>`.
//! - A client logs in as `LOGIN <name> <game>,<password>` (floodgate's form); `<game>` must be
//!   `--game` (default `test`), any password is accepted. The first two clients are paired,
//!   the first to log in plays sente (the side to move first, from a standard start).
//! - Clocks are in seconds (`Time_Unit:1sec`), kept by the workspace's one clock
//!   (`engine::clock`) under shogi-server's rule: a move is charged its whole seconds, cut down,
//!   at least `--least`; the increment is credited before the move, and time is up when the
//!   charge reaches the main time left plus the increment plus the byoyomi. All three 0: no
//!   clock.
//! - `--position FILE`: a CSA position (`P1`..`P9` or `PI`, `P+`/`P-`, `+`/`-`, moves played)
//!   to start from, sent as the summary's `Position` section.
//! - Fault injection: `--drop-after N` closes both connections after N moves of a game;
//!   `--chudan-after N` sends `#CHUDAN` after N moves.
//! - `--games N`: stop after hosting N games (default: serve until killed). Each game ends with
//!   a line `end <game id> <#ENDING> <#WIN|#LOSE|#DRAW|#CENSORED for sente>` on stdout.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use council_play::game::adjudicate::judge_move;
use engine::clock::{Clocks, TimeControl};
use engine::position::{Position, Repetition};
use engine::record::{GameRecord, csa_move_to_usi};
use engine::types::Color;

struct Args {
    port: u16,
    game: String,
    total: u64,
    byoyomi: u64,
    increment: u64,
    least: u64,
    max_moves: u32,
    /// The `Position` section's lines, the position they give and the moves they played.
    position: (Vec<String>, Position, usize),
    games: Option<u64>,
    drop_after: Option<usize>,
    chudan_after: Option<usize>,
}

const STANDARD: &str = "PI\n+\n";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 0,
        game: "test".into(),
        total: 60,
        byoyomi: 0,
        increment: 0,
        least: 0,
        max_moves: 256,
        position: read_position(STANDARD)?,
        games: None,
        drop_after: None,
        chudan_after: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        let number = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{a}: `{v}` is not a number"))
        };
        match a.as_str() {
            "--port" => args.port = number(value()?)? as u16,
            "--game" => args.game = value()?,
            "--total" => args.total = number(value()?)?,
            "--byoyomi" => args.byoyomi = number(value()?)?,
            "--increment" => args.increment = number(value()?)?,
            "--least" => args.least = number(value()?)?,
            "--max-moves" => args.max_moves = number(value()?)? as u32,
            "--games" => args.games = Some(number(value()?)?),
            "--drop-after" => args.drop_after = Some(number(value()?)? as usize),
            "--chudan-after" => args.chudan_after = Some(number(value()?)? as usize),
            "--position" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                args.position = read_position(&text).map_err(|e| format!("{path}: {e}"))?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
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

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--version") {
        say_stdout(concat!("csa-test-server ", env!("CARGO_PKG_VERSION")));
        return;
    }
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
    let (logins, waiting) = mpsc::channel::<Client>();
    let game_name = args.game.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let logins = logins.clone();
            let game_name = game_name.clone();
            std::thread::spawn(move || {
                if let Some(c) = login(stream, &game_name) {
                    let _ = logins.send(c);
                }
            });
        }
    });
    let mut hosted = 0;
    while args.games.is_none_or(|n| hosted < n) {
        let Ok(first) = waiting.recv() else { break };
        let Ok(second) = waiting.recv() else { break };
        hosted += 1;
        let id = format!("{}+{}+{}+{hosted}", args.game, first.name, second.name);
        let (ending, sente_result) = host(&args, &id, [first, second]);
        say_stdout(&format!("end {id} {ending} {sente_result}"));
    }
}

fn say_stdout(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A logged-in client: its name, its socket, and its lines as they arrive.
struct Client {
    name: String,
    stream: TcpStream,
    lines: mpsc::Receiver<Option<String>>,
}

impl Client {
    fn send(&mut self, line: &str) {
        let _ = self.stream.write_all(format!("{line}\n").as_bytes());
    }
}

/// Read `LOGIN <name> <game>,<password>`; answer it; hand over the client with a reader thread.
fn login(stream: TcpStream, game_name: &str) -> Option<Client> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut stream = stream;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let ok =
        words.len() == 3 && words[0] == "LOGIN" && words[2].split(',').next() == Some(game_name);
    if !ok {
        let _ = stream.write_all(b"LOGIN:incorrect\n");
        return None;
    }
    let name = words[1].to_string();
    let _ = stream.write_all(format!("LOGIN:{name} OK\n").as_bytes());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for l in reader.lines() {
            let Ok(l) = l else { break };
            if tx.send(Some(l.trim_end_matches('\r').to_string())).is_err() {
                return;
            }
        }
        let _ = tx.send(None);
    });
    Some(Client {
        name,
        stream,
        lines,
    })
}

fn summary(args: &Args, id: &str, names: [&str; 2], you: Color) -> String {
    let sign = |c: Color| if c == Color::Sente { "+" } else { "-" };
    let to_move = sign(args.position.1.side_to_move());
    let mut s = format!(
        "BEGIN Game_Summary\nProtocol_Version:1.2\nProtocol_Mode:Server\nFormat:Shogi 1.0\n\
         Declaration:Jishogi 1.1\nGame_ID:{id}\nName+:{}\nName-:{}\nYour_Turn:{}\n\
         Rematch_On_Draw:NO\nTo_Move:{to_move}\nMax_Moves:{}\nBEGIN Time\nTime_Unit:1sec\n\
         Total_Time:{}\nByoyomi:{}\nLeast_Time_Per_Move:{}\nIncrement:{}\nEND Time\n\
         BEGIN Position\n",
        names[0],
        names[1],
        sign(you),
        args.max_moves,
        args.total,
        args.byoyomi,
        args.least,
        args.increment
    );
    for l in &args.position.0 {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("END Position\nEND Game_Summary");
    s
}

/// Host one game between `clients` (sente first). Returns the ending word and sente's result.
fn host(args: &Args, id: &str, mut clients: [Client; 2]) -> (String, String) {
    let names = [clients[0].name.clone(), clients[1].name.clone()];
    for (i, c) in clients.iter_mut().enumerate() {
        let you = if i == 0 { Color::Sente } else { Color::Gote };
        c.send(&summary(args, id, [&names[0], &names[1]], you));
    }
    // Both must agree.
    for i in 0..2 {
        loop {
            match clients[i].lines.recv_timeout(Duration::from_secs(30)) {
                Ok(Some(l)) if l.starts_with("AGREE") => break,
                Ok(Some(l)) if l.starts_with("REJECT") => {
                    let by = names[i].clone();
                    for c in clients.iter_mut() {
                        c.send(&format!("REJECT:{id} by {by}"));
                    }
                    return ("#REJECT".into(), "-".into());
                }
                Ok(Some(_)) => {}
                _ => return ("#NO_AGREE".into(), "-".into()),
            }
        }
    }
    for c in clients.iter_mut() {
        c.send(&format!("START:{id}"));
    }
    let mut game = Referee {
        args,
        position: args.position.1.clone(),
        clocks: {
            let control = TimeControl {
                main: Duration::from_secs(args.total),
                byoyomi: Duration::from_secs(args.byoyomi),
                increment: Duration::from_secs(args.increment),
            };
            (!control.is_unlimited()).then(|| Clocks::start(control))
        },
        played: 0,
        plies: args.position.2,
    };
    let end = game.run(&mut clients);
    match end {
        End::Result { ending, winner } => {
            for (i, c) in clients.iter_mut().enumerate() {
                if let Some(e) = &ending {
                    c.send(e);
                }
                let result = match winner {
                    None if ending.as_deref() == Some("#MAX_MOVES") => "#CENSORED",
                    None => "#DRAW",
                    Some(w) if w.index() == i => "#WIN",
                    Some(_) => "#LOSE",
                };
                c.send(result);
            }
            logout(&mut clients);
            let sente = match winner {
                None if ending.as_deref() == Some("#MAX_MOVES") => "#CENSORED",
                None => "#DRAW",
                Some(Color::Sente) => "#WIN",
                Some(Color::Gote) => "#LOSE",
            };
            (ending.unwrap_or_default(), sente.into())
        }
        End::Chudan => {
            for c in clients.iter_mut() {
                c.send("#CHUDAN");
            }
            logout(&mut clients);
            ("#CHUDAN".into(), "-".into())
        }
        End::Dropped => {
            for c in &clients {
                let _ = c.stream.shutdown(Shutdown::Both);
            }
            ("#DROPPED".into(), "-".into())
        }
    }
}

/// Answer `LOGOUT` for a little while, then close.
fn logout(clients: &mut [Client; 2]) {
    let until = Instant::now() + Duration::from_secs(3);
    for c in clients.iter_mut() {
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match c.lines.recv_timeout(left) {
                Ok(Some(l)) if l == "LOGOUT" => {
                    c.send("LOGOUT:completed");
                    break;
                }
                Ok(Some(_)) => {}
                _ => break,
            }
        }
        let _ = c.stream.shutdown(Shutdown::Both);
    }
}

enum End {
    /// The `#` ending line (none for a plain result) and the winner (`None`: a draw).
    Result {
        ending: Option<String>,
        winner: Option<Color>,
    },
    Chudan,
    Dropped,
}

struct Referee<'a> {
    args: &'a Args,
    position: Position,
    /// Both sides' clocks (`None`: a game without a clock).
    clocks: Option<Clocks>,
    /// Moves played in this game (after the start position's).
    played: usize,
    /// Moves from the start of the game (the start position's included), for `Max_Moves`.
    plies: usize,
}

impl Referee<'_> {
    fn run(&mut self, clients: &mut [Client; 2]) -> End {
        loop {
            let mover = self.position.side_to_move();
            let m = mover.index();
            let began = Instant::now();
            // Whole seconds are charged, cut down: the flag falls when they reach the allowance.
            let allowance = self
                .clocks
                .map_or(Duration::MAX, |c| c.side(mover).allowance());
            let line = loop {
                let Some(left) = allowance.checked_sub(began.elapsed()) else {
                    break None;
                };
                match clients[m].lines.recv_timeout(left) {
                    Ok(Some(l)) if l.trim().is_empty() => {}
                    Ok(Some(l)) => break Some(l),
                    Ok(None) => return End::Dropped,
                    Err(mpsc::RecvTimeoutError::Timeout) => break None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return End::Dropped,
                }
            };
            let loss = |ending: &str| End::Result {
                ending: Some(ending.into()),
                winner: Some(mover.opposite()),
            };
            let Some(line) = line else {
                return loss("#TIME_UP");
            };
            let secs = (began.elapsed().as_secs()).max(self.args.least);
            let mut charged = self.clocks;
            if let Some(c) = &mut charged
                && c.side_mut(mover)
                    .charge(Duration::from_secs(secs), Duration::ZERO)
                    .is_err()
            {
                return loss("#TIME_UP");
            }
            let word = line.split(',').next().unwrap_or("").trim().to_string();
            match word.as_str() {
                "%TORYO" => {
                    for c in clients.iter_mut() {
                        c.send(&format!("%TORYO,T{secs}"));
                    }
                    return loss("#RESIGN");
                }
                "%KACHI" => {
                    if self.position.impasse_declaration().is_err() {
                        return loss("#ILLEGAL_MOVE");
                    }
                    for c in clients.iter_mut() {
                        c.send("%KACHI");
                    }
                    return End::Result {
                        ending: Some("#JISHOGI".into()),
                        winner: Some(mover),
                    };
                }
                _ => {}
            }
            let name = clients[m].name.clone();
            let Some(usi) = csa_move_to_usi(&self.position, &word) else {
                return loss("#ILLEGAL_MOVE");
            };
            let Ok(mv) = judge_move(&self.position, &name, &usi) else {
                return loss("#ILLEGAL_MOVE");
            };
            self.clocks = charged;
            self.position.play(mv);
            self.played += 1;
            self.plies += 1;
            for c in clients.iter_mut() {
                c.send(&format!("{word},T{secs}"));
            }
            match self.position.repetition() {
                Repetition::Draw => {
                    return End::Result {
                        ending: Some("#SENNICHITE".into()),
                        winner: None,
                    };
                }
                Repetition::PerpetualCheck { loser } => {
                    return End::Result {
                        ending: Some("#OUTE_SENNICHITE".into()),
                        winner: Some(loser.opposite()),
                    };
                }
                _ => {}
            }
            if self.plies >= self.args.max_moves as usize {
                return End::Result {
                    ending: Some("#MAX_MOVES".into()),
                    winner: None,
                };
            }
            if self.args.drop_after == Some(self.played) {
                return End::Dropped;
            }
            if self.args.chudan_after == Some(self.played) {
                return End::Chudan;
            }
        }
    }
}
