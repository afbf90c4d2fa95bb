//! A scriptable mock USI engine for the runner's failure tests (after fastchess `tests/mock`).
//!
//! `mock-usi SCENARIO [--after N] [--delay-ms D] [--child]` (or `mock-usi --version`, or `--help`,
//! which lists every option): behaves like a well-mannered engine
//! (plays the first legal move in the engine crate's order, with an `info` line whose `nodes` is
//! the `go nodes` it was given) for its first
//! `N` moves of each game (default 0), then misbehaves as SCENARIO says:
//! `normal` (never misbehaves), `crash-on-go` (exits), `hang` (never answers), `garbage` (prints
//! junk, then a malformed `bestmove`), `illegal` (a well-formed illegal move), `resign`,
//! `win` (a false impasse declaration), `slow-start` (sleeps D ms before `usiok`),
//! `banner` (prints a non-USI banner first, then plays normally), `flood` (prints 2 MB of
//! junk and a 300 kB line before each normal move), `no-usiok` (never finishes the
//! handshake), `crash-on-usi` (exits at `usi`, before `usiok`), `remembers` (well-mannered, but
//! carries state across games like an engine whose tables survive `usinewgame`: in the k-th
//! game of its process it plays the k-th legal move, counting from the first), `repeat`
//! (well-mannered, but undoes its own last move when it can, else plays its first legal king
//! move: two such players repeat the position until sennichite), `stall` (a
//! search that never ends by itself: it answers `stop` with the first legal move, as an engine
//! at a deadline does; `hang`, by contrast, ignores `stop`), `predict` and `mispredict`
//! (well-mannered pondering engines: they declare `USI_Ponder`, report a pv of their move and
//! the reply they expect and send `bestmove M ponder R`; `predict` expects the first legal
//! reply, which against an opponent that plays the first legal move is always right,
//! `mispredict` another legal reply, never the first; on `go ponder` they wait for `ponderhit`,
//! then play, or for `stop`, then answer the pondered position's first legal move: a stale
//! answer the player must drop), `ponder-named` (`predict`, but it prints no `info` at all:
//! `bestmove M ponder R` alone names the reply), the pondering faults, each `predict` until
//! `--after N` moves of the game and then at every `go ponder`: `ponder-crash` (exits at
//! `go ponder`), `ponder-deaf` (`mispredict`, so that it is sent `stop`, which it ignores),
//! `ponder-illegal` and `ponder-malformed` (answer `ponderhit` with a well-formed illegal move,
//! or with `bestmove 5e5%`), `ponder-early` (sends its `bestmove` at once, before any
//! `ponderhit` or `stop`), `spend` (well-mannered, but thinks the mover's whole allowance
//! as the `go` states it, `btime + binc + byoyomi` for sente, plus `--spend-offset-ms N`, which
//! may be negative), `sleep` (the runner benchmark's engine, `scripts/bench-runner.py`: it answers
//! the first legal move after `--share F` (default 0.9) of the mover's allowance as `go` states
//! it, `time / 20 + inc + byoyomi`, rounded down to whole milliseconds and counted from the
//! arrival of `position`; it sleeps, using no CPU, and reports the time it took by its own
//! clock in microseconds as its score, `score cp US`, so that `results.jsonl` holds it beside
//! the arbiter's `times_ms`; `--usi-stamp F` appends the Unix time in nanoseconds at which
//! `usi` arrived to `F`), `chaos` (the soak's engine, `scripts/soak.py`: the `sleep` engine,
//! pondering — it declares `USI_Ponder` and answers `bestmove M ponder R`, R the first legal
//! reply or, as a coin drawn from the seed says, the last — that misbehaves at random: at each
//! `go` it crashes (`--p-crash`), hangs ignoring `stop` (`--p-hang`), prints junk and a malformed
//! `bestmove` (`--p-garbage`), answers after 1 to 2 times its whole allowance
//! (`--p-slow`) or prints a 1 MB line before its move (`--p-long`); at each `go ponder` it
//! crashes (`--p-ponder-crash`), ignores a `stop` (`--p-ponder-deaf`), answers `ponderhit`
//! with an illegal or a malformed move (`--p-ponder-illegal`) or sends `bestmove` at once,
//! before any `ponderhit` (`--p-ponder-early`); each probability defaults to 0, so that
//! `chaos` alone is a well-behaved sleeping ponderer. Its draws depend only on `--seed S`
//! (default 0) and the position asked (its key and ply), never on time or process: a game
//! replayed with the same arguments misbehaves the same way). `--exit-status S`: the status
//! the crashes exit with (default 3). `--delay-ms` also slows every normal move; `--child`
//! starts a grandchild process (`sleep 600`, which inherits stdin, stdout and stderr) so tests
//! can check the whole process group is stopped, and, with a crash, that an engine which exits
//! while a child still holds its output is seen to exit; `--child-pid-file F` appends that
//! child's pid to `F`; `--mute-after-first-start F`: the first start (which creates `F`)
//! behaves, every later start never finishes the handshake.

use std::io::{BufRead, Write};
use std::time::Duration;

use clap::Parser;
use engine::position::Position;
use engine::usi::protocol::{GuiCommand, PositionStart, parse_gui_command};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The mock's command line (`mock-usi --help` lists it; the module's docs explain each mode).
#[derive(Parser, Debug)]
#[command(
    name = "mock-usi",
    about = "A scriptable mock USI engine for the runner's failure tests",
    args_override_self = true
)]
struct Args {
    /// How it misbehaves: `normal`, `crash-on-go`, `hang`, `sleep`, `chaos`, ... (see the
    /// module's docs).
    scenario: String,
    /// Moves of each game it plays well before it misbehaves.
    #[arg(long, value_name = "N", default_value_t = 0)]
    after: usize,
    /// Milliseconds every normal move takes (`slow-start`: before `usiok`).
    #[arg(long = "delay-ms", value_name = "D", default_value = "0", value_parser = millis)]
    delay: Duration,
    /// The status its crashes exit with.
    #[arg(long, value_name = "S", default_value_t = 3)]
    exit_status: i32,
    /// Start a grandchild process (`sleep 600`) holding stdin, stdout and stderr.
    #[arg(long)]
    child: bool,
    /// Append the grandchild's pid to this file (implies `--child`).
    #[arg(long, value_name = "F")]
    child_pid_file: Option<String>,
    /// The first start creates this file and behaves; every later start never finishes the
    /// handshake.
    #[arg(long, value_name = "F")]
    mute_after_first_start: Option<String>,
    /// `spend`: milliseconds added to the allowance it thinks (may be negative).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    spend_offset_ms: i64,
    /// `sleep` and `chaos`: the share of the allowance it sleeps, from 0 to 1.
    #[arg(long, value_name = "F", default_value_t = 0.9, value_parser = fraction)]
    share: f64,
    /// Append the Unix time in nanoseconds at which `usi` arrived to this file.
    #[arg(long, value_name = "F")]
    usi_stamp: Option<String>,
    /// `chaos`: the seed its draws depend on (with the position asked).
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    faults: Faults,
}

/// `--delay-ms`: whole milliseconds.
fn millis(text: &str) -> Result<Duration, String> {
    text.parse()
        .map(Duration::from_millis)
        .map_err(|_| format!("`{text}` is not a whole number of milliseconds"))
}

/// `--share` and the `--p-*` probabilities: a number from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    text.parse()
        .ok()
        .filter(|p: &f64| (0.0..=1.0).contains(p))
        .ok_or_else(|| format!("`{text}` is not a number from 0 to 1"))
}

/// `chaos`: the probability of each misbehaviour, per `go` (the first five) or per `go ponder`
/// (the last four); within each group they are exclusive and sum to at most 1.
#[derive(clap::Args, Debug, Default)]
struct Faults {
    /// `chaos`: the probability that a `go` crashes.
    #[arg(long = "p-crash", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    crash: f64,
    /// `chaos`: the probability that a `go` hangs, ignoring `stop`.
    #[arg(long = "p-hang", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    hang: f64,
    /// `chaos`: the probability that a `go` prints junk and a malformed `bestmove`.
    #[arg(long = "p-garbage", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    garbage: f64,
    /// `chaos`: the probability that a `go` takes 1 to 2 times its whole allowance.
    #[arg(long = "p-slow", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    slow: f64,
    /// `chaos`: the probability that a `go` prints a 1 MB line before its move.
    #[arg(long = "p-long", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    long: f64,
    /// `chaos`: the probability that a `go ponder` crashes.
    #[arg(long = "p-ponder-crash", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    ponder_crash: f64,
    /// `chaos`: the probability that a `go ponder` ignores `stop`.
    #[arg(long = "p-ponder-deaf", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    ponder_deaf: f64,
    /// `chaos`: the probability that a `go ponder` answers `ponderhit` with an illegal or a
    /// malformed move.
    #[arg(long = "p-ponder-illegal", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    ponder_illegal: f64,
    /// `chaos`: the probability that a `go ponder` sends `bestmove` at once.
    #[arg(long = "p-ponder-early", value_name = "P", default_value_t = 0.0, value_parser = fraction)]
    ponder_early: f64,
}

impl Faults {
    /// Each group's probabilities sum to at most 1.
    fn check(&self) -> Result<(), String> {
        if self.crash + self.hang + self.garbage + self.slow + self.long > 1.0 {
            return Err(
                "--p-crash, --p-hang, --p-garbage, --p-slow and --p-long sum to more than 1".into(),
            );
        }
        if self.ponder_crash + self.ponder_deaf + self.ponder_illegal + self.ponder_early > 1.0 {
            return Err("the --p-ponder-* probabilities sum to more than 1".into());
        }
        Ok(())
    }
}

/// What one `go` of `chaos` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoFault {
    Crash,
    Hang,
    Garbage,
    Slow,
    Long,
}

/// What one `go ponder` of `chaos` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PonderFault {
    Crash,
    Deaf,
    Illegal,
    Early,
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--version") {
        say(&council_stamp::build!("mock-usi").to_string());
        return;
    }
    let mut args = Args::parse();
    args.child |= args.child_pid_file.is_some();
    if let Err(e) = args.faults.check() {
        eprintln!("mock-usi: {e}");
        std::process::exit(2);
    }
    // Kept until the end: dropping a Child neither kills nor waits for it.
    let _child = start_child(&args);
    if let Some(marker) = &args.mute_after_first_start {
        // The first start (the runner's pre-flight check) answers; every later one is mute.
        if std::path::Path::new(marker).exists() {
            args.scenario = "no-usiok".into();
        } else {
            let _ = std::fs::write(marker, "started\n");
        }
    }
    if args.scenario == "banner" {
        say("Mock Engine version 0 (not USI)");
        say("Type 'help' for a list of commands");
    }
    let mut mock = Mock::new(args);
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(cmd) = parse_gui_command(&line) else {
            continue;
        };
        if !mock.answer(cmd) {
            break;
        }
    }
}

/// With `--child`: a grandchild process (`sleep 600`) holding stdin, stdout and stderr, its pid
/// appended to `--child-pid-file`.
fn start_child(args: &Args) -> Option<std::process::Child> {
    let child = args
        .child
        .then(|| std::process::Command::new("sleep").arg("600").spawn().ok())
        .flatten();
    if let (Some(c), Some(path)) = (&child, &args.child_pid_file) {
        let line = format!("{}\n", c.id());
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
    }
    child
}

/// The engine's state between commands.
struct Mock {
    args: Args,
    position: Position,
    moves_this_game: usize,
    games_begun: usize,
    /// A search under way that only a command ends.
    waiting: Option<Wait>,
    /// When the last `position` arrived (`sleep` counts its time from there).
    asked: Option<std::time::Instant>,
    /// `chaos`: the `go ponder` under way and the fault drawn for it.
    pondering: Option<(engine::usi::protocol::Go, Option<PonderFault>)>,
}

/// What a search under way waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// `stop` (the `stall` scenario).
    Stall,
    /// `ponderhit` or `stop` (a `go ponder`).
    Ponder,
}

impl Mock {
    fn new(args: Args) -> Self {
        Mock {
            args,
            position: Position::startpos(),
            moves_this_game: 0,
            games_begun: 0,
            waiting: None,
            asked: None,
            pondering: None,
        }
    }

    /// Answer one command as its scenario says; `false` at `quit`.
    fn answer(&mut self, cmd: GuiCommand) -> bool {
        let chaos = self.args.scenario == "chaos";
        match cmd {
            GuiCommand::Usi => self.usi(),
            GuiCommand::IsReady => say("readyok"),
            GuiCommand::UsiNewGame => {
                self.moves_this_game = 0;
                self.games_begun += 1;
            }
            GuiCommand::Position { start, moves } => {
                self.asked = Some(std::time::Instant::now());
                self.set_position(start, &moves)
            }
            GuiCommand::Go(go) if go.ponder && chaos => self.chaos_ponder(go),
            GuiCommand::Go(go) if go.ponder => self.go_ponder(),
            GuiCommand::Go(go) if self.args.scenario == "sleep" => self.sleep(&go),
            GuiCommand::Go(go) if chaos => self.chaos_go(&go),
            GuiCommand::PonderHit if self.waiting == Some(Wait::Ponder) && chaos => {
                self.waiting = None;
                self.chaos_ponderhit();
            }
            GuiCommand::Go(go) => {
                if self.args.scenario == "spend" {
                    std::thread::sleep(self.allowance(&go));
                }
                self.go(go.nodes)
            }
            GuiCommand::PonderHit if self.waiting == Some(Wait::Ponder) => {
                self.waiting = None;
                self.ponderhit();
            }
            GuiCommand::Stop => self.stop(),
            GuiCommand::Quit => return false,
            _ => {}
        }
        true
    }

    /// `stop`: the search under way answers, unless it is deaf to it.
    fn stop(&mut self) {
        match self.waiting.take() {
            Some(Wait::Ponder) if self.args.scenario == "chaos" => self.chaos_stop(),
            Some(Wait::Ponder) if self.ponder_fault() == Some("ponder-deaf") => {}
            Some(Wait::Ponder) | Some(Wait::Stall) => self.play(None),
            None => {}
        }
    }

    fn usi(&self) {
        if let Some(path) = &self.args.usi_stamp {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(format!("{now}\n").as_bytes()));
        }
        match self.args.scenario.as_str() {
            "crash-on-usi" => std::process::exit(self.args.exit_status),
            "no-usiok" => return,
            "slow-start" => std::thread::sleep(self.args.delay),
            _ => {}
        }
        say("id name mock-usi");
        say("id author council tests");
        if self.args.scenario == "chaos" || self.predicts().is_some() {
            say("option name USI_Ponder type check default false");
        }
        say("usiok");
    }

    /// `spend`: the mover's allowance as `go` states it (`btime + binc + byoyomi` for sente,
    /// `wtime + winc + byoyomi` for gote), plus `--spend-offset-ms`.
    fn allowance(&self, go: &engine::usi::protocol::Go) -> Duration {
        let (time, inc) = match self.position.side_to_move() {
            engine::types::Color::Sente => (go.btime, go.binc),
            engine::types::Color::Gote => (go.wtime, go.winc),
        };
        let ms = [time, inc, go.byoyomi].map(|x| x.unwrap_or(0) as i64);
        let total = ms.iter().sum::<i64>() + self.args.spend_offset_ms;
        Duration::from_millis(total.max(0) as u64)
    }

    /// `sleep`: the first legal move after `--share` of the mover's allowance (see the module's
    /// docs), its own time in microseconds as its score.
    fn sleep(&mut self, go: &engine::usi::protocol::Go) {
        let ms = (self.sleep_allowance_ms(go) as f64 * self.args.share).floor() as u64;
        self.sleep_answer(ms, ms);
    }

    /// The mover's allowance as `sleep` reads `go`: `time / 20 + inc + byoyomi`, in ms.
    fn sleep_allowance_ms(&self, go: &engine::usi::protocol::Go) -> u64 {
        let (time, inc) = match self.position.side_to_move() {
            engine::types::Color::Sente => (go.btime, go.binc),
            engine::types::Color::Gote => (go.wtime, go.winc),
        };
        time.unwrap_or(0) / 20 + inc.unwrap_or(0) + go.byoyomi.unwrap_or(0)
    }

    /// The first legal move `ms` after the last `position` (or now), reporting `reported` ms as
    /// its time and its own time in microseconds as its score; `chaos` names a reply to ponder.
    fn sleep_answer(&mut self, ms: u64, reported: u64) {
        let began = self.asked.take().unwrap_or_else(std::time::Instant::now);
        let chosen = self.position.legal_moves().first().map(|m| m.to_usi());
        let until = began + Duration::from_millis(ms);
        let now = std::time::Instant::now();
        if until > now {
            std::thread::sleep(until - now);
        }
        let own = began.elapsed().as_micros();
        let ponder = if self.args.scenario == "chaos" {
            self.chaos_reply()
        } else {
            None
        };
        match (chosen, ponder) {
            (Some(m), Some(r)) => {
                say(&format!(
                    "info depth 2 time {reported} score cp {own} pv {m} {r}"
                ));
                say(&format!("bestmove {m} ponder {r}"));
            }
            (Some(m), None) => {
                say(&format!(
                    "info depth 1 time {reported} score cp {own} pv {m}"
                ));
                say(&format!("bestmove {m}"));
            }
            (None, _) => say("bestmove resign"),
        }
    }

    /// `chaos`: a generator drawn from `--seed`, the position asked and `salt` alone.
    fn chaos_rng(&self, salt: u64) -> Xoshiro256PlusPlus {
        let key = self.position.key() ^ u64::from(self.position.ply()).rotate_left(40);
        Xoshiro256PlusPlus::seed_from_u64(self.args.seed.rotate_left(23) ^ key ^ salt)
    }

    /// `chaos`: the reply it names to ponder on: the first legal reply to its move, or the
    /// last, as a coin from the seed says (so that the opponent, which plays the first, is
    /// sometimes not the one expected).
    fn chaos_reply(&self) -> Option<String> {
        let mv = *self.position.legal_moves().first()?;
        let mut after = self.position.clone();
        after.play(mv);
        let replies = after.legal_moves();
        let last = self.chaos_rng(1).random::<f64>() < 0.5;
        if last {
            replies.last()
        } else {
            replies.first()
        }
        .map(|r| r.to_usi())
    }

    /// `chaos`: what this `go` does, drawn from the seed and the position.
    fn chaos_draw(&self) -> Option<GoFault> {
        let f = &self.args.faults;
        let u = self.chaos_rng(2).random::<f64>();
        [
            (GoFault::Crash, f.crash),
            (GoFault::Hang, f.hang),
            (GoFault::Garbage, f.garbage),
            (GoFault::Slow, f.slow),
            (GoFault::Long, f.long),
        ]
        .into_iter()
        .scan(0.0, |acc, (fault, p)| {
            *acc += p;
            Some((fault, *acc))
        })
        .find(|&(_, upto)| u < upto)
        .map(|(fault, _)| fault)
    }

    /// `chaos`: a `go` (see the module's docs).
    fn chaos_go(&mut self, go: &engine::usi::protocol::Go) {
        let allowance = self.sleep_allowance_ms(go);
        let ms = (allowance as f64 * self.args.share).floor() as u64;
        match self.chaos_draw() {
            None => self.sleep_answer(ms, ms),
            Some(GoFault::Crash) => std::process::exit(self.args.exit_status),
            Some(GoFault::Hang) => {}
            Some(GoFault::Garbage) => {
                say("\u{1b}[31m@@@ ### garbage ### @@@");
                say("info depth x nodes -1 score cp banana");
                say("bestmove 99zz!");
            }
            Some(GoFault::Slow) => {
                let factor = 1.0 + self.chaos_rng(3).random::<f64>();
                let slow = (allowance as f64 * factor) as u64;
                self.sleep_answer(slow, slow);
            }
            Some(GoFault::Long) => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&vec![b'z'; 1 << 20]);
                let _ = writeln!(out);
                drop(out);
                self.sleep_answer(ms, ms);
            }
        }
    }

    /// `chaos`: a `go ponder`: a fault drawn from the seed and the pondered position.
    fn chaos_ponder(&mut self, go: engine::usi::protocol::Go) {
        let f = &self.args.faults;
        let u = self.chaos_rng(4).random::<f64>();
        let fault = [
            (PonderFault::Crash, f.ponder_crash),
            (PonderFault::Deaf, f.ponder_deaf),
            (PonderFault::Illegal, f.ponder_illegal),
            (PonderFault::Early, f.ponder_early),
        ]
        .into_iter()
        .scan(0.0, |acc, (fault, p)| {
            *acc += p;
            Some((fault, *acc))
        })
        .find(|&(_, upto)| u < upto)
        .map(|(fault, _)| fault);
        match fault {
            Some(PonderFault::Crash) => std::process::exit(self.args.exit_status),
            Some(PonderFault::Early) => {
                self.pondering = None;
                self.sleep_answer(0, 0);
            }
            _ => {
                self.waiting = Some(Wait::Ponder);
                self.pondering = Some((go, fault));
            }
        }
    }

    /// `chaos`: `stop` during a `go ponder`: the pondered position's move at once, or nothing
    /// when the draw said to ignore it.
    fn chaos_stop(&mut self) {
        if let Some((_, Some(PonderFault::Deaf))) = self.pondering.take() {
            return;
        }
        self.sleep_answer(0, 0);
    }

    /// `chaos`: `ponderhit`: the move after `--share` of the allowance counted from now, or,
    /// when the draw said so, an illegal or a malformed move.
    fn chaos_ponderhit(&mut self) {
        let Some((go, fault)) = self.pondering.take() else {
            return;
        };
        if fault == Some(PonderFault::Illegal) {
            if self.chaos_rng(5).random::<f64>() < 0.5 {
                say(&format!("bestmove {}", self.illegal_move()));
            } else {
                say("bestmove 5e5%");
            }
            return;
        }
        self.asked = Some(std::time::Instant::now());
        let ms = (self.sleep_allowance_ms(&go) as f64 * self.args.share).floor() as u64;
        self.sleep_answer(ms, ms);
    }

    fn set_position(&mut self, start: PositionStart, moves: &[String]) {
        let text = match start {
            PositionStart::Startpos => "startpos".to_string(),
            PositionStart::Sfen(s) => format!("sfen {s}"),
        };
        let text = if moves.is_empty() {
            text
        } else {
            format!("{text} moves {}", moves.join(" "))
        };
        match Position::from_usi_position(&text) {
            Ok(p) => self.position = p,
            Err(e) => eprintln!("mock-usi: bad position: {e}"),
        }
    }

    fn go(&mut self, nodes: Option<u64>) {
        self.moves_this_game += 1;
        let scenario = self.args.scenario.as_str();
        let past = self.moves_this_game > self.args.after;
        let misbehave = !matches!(
            scenario,
            "normal"
                | "banner"
                | "slow-start"
                | "remembers"
                | "repeat"
                | "predict"
                | "mispredict"
                | "ponder-named"
                | "ponder-crash"
                | "ponder-deaf"
                | "ponder-illegal"
                | "ponder-malformed"
                | "ponder-early"
                | "spend"
                | "sleep"
                | "chaos"
        ) && past;
        if scenario == "flood" && past {
            flood();
        }
        if scenario == "stall" && past {
            self.waiting = Some(Wait::Stall);
            return;
        }
        if !misbehave || scenario == "flood" {
            self.play(nodes);
        } else {
            self.misbehave();
        }
    }

    /// A well-mannered move: the first legal one (with `remembers`, the k-th in the k-th game
    /// of the process), after `--delay-ms`.
    fn play(&self, nodes: Option<u64>) {
        if self.args.scenario != "slow-start" {
            std::thread::sleep(self.args.delay);
        }
        if let Some(reply) = self.expected_reply() {
            let m = &self.position.legal_moves()[0];
            if self.args.scenario == "ponder-named" {
                // No `info` at all: the reply it names is the only one it gives.
                say(&format!("bestmove {} ponder {reply}", m.to_usi()));
                return;
            }
            say(&format!(
                "info depth 2 nodes {} score cp 0 pv {} {reply}",
                nodes.unwrap_or(1),
                m.to_usi()
            ));
            say(&format!("bestmove {} ponder {reply}", m.to_usi()));
            return;
        }
        self.play_plainly(nodes);
    }

    /// Whether it is a pondering scenario and which reply it names: `Some(true)` the first
    /// legal one (`predict` and the `ponder-*` faults but `ponder-deaf`), `Some(false)` another
    /// (`mispredict`, `ponder-deaf`: its opponent never plays it, so it is sent `stop`).
    fn predicts(&self) -> Option<bool> {
        match self.args.scenario.as_str() {
            "predict" | "ponder-named" | "ponder-crash" | "ponder-illegal" | "ponder-malformed"
            | "ponder-early" => Some(true),
            "mispredict" | "ponder-deaf" => Some(false),
            _ => None,
        }
    }

    /// The `ponder-*` fault it commits now: its scenario once past `--after N` moves of the
    /// game, `None` before (and for every other scenario).
    fn ponder_fault(&self) -> Option<&str> {
        let s = self.args.scenario.as_str();
        (s.starts_with("ponder-") && s != "ponder-named" && self.moves_this_game > self.args.after)
            .then_some(s)
    }

    /// `go ponder` (but `chaos`'s): wait for `ponderhit` or `stop`, or commit its fault.
    fn go_ponder(&mut self) {
        match self.ponder_fault() {
            Some("ponder-crash") => std::process::exit(self.args.exit_status),
            // Its answer at once, before any `ponderhit` or `stop`.
            Some("ponder-early") => self.play(None),
            _ => self.waiting = Some(Wait::Ponder),
        }
    }

    /// `ponderhit` on its `go ponder`: its move, or its fault's answer.
    fn ponderhit(&mut self) {
        match self.ponder_fault() {
            Some("ponder-illegal") => say(&format!("bestmove {}", self.illegal_move())),
            Some("ponder-malformed") => say("bestmove 5e5%"),
            _ => self.go(None),
        }
    }

    /// `predict`: the first legal reply to its first legal move; `mispredict`: the last, when
    /// that is not the first (see [`Mock::predicts`]).
    fn expected_reply(&self) -> Option<String> {
        let predict = self.predicts()?;
        let mv = *self.position.legal_moves().first()?;
        let mut after = self.position.clone();
        after.play(mv);
        let replies = after.legal_moves();
        match (predict, replies.len()) {
            (true, _) => replies.first(),
            (false, n) if n > 1 => replies.last(),
            _ => None,
        }
        .map(|r| r.to_usi())
    }

    fn play_plainly(&self, nodes: Option<u64>) {
        let legal = self.position.legal_moves();
        let nth = if self.args.scenario == "remembers" {
            self.games_begun.saturating_sub(1) % legal.len().max(1)
        } else {
            0
        };
        let chosen = if self.args.scenario == "repeat" {
            self.repeat_move().or_else(|| legal.get(nth).copied())
        } else {
            legal.get(nth).copied()
        };
        match chosen {
            Some(m) => {
                // Reports the node budget it was given as its node count.
                say(&format!(
                    "info depth 1 nodes {} score cp 0 pv {}",
                    nodes.unwrap_or(1),
                    m.to_usi()
                ));
                say(&format!("bestmove {}", m.to_usi()));
            }
            None => say("bestmove resign"),
        }
    }

    /// With `repeat`: the move back to where its own last move came from, if legal, else its
    /// first legal king move.
    fn repeat_move(&self) -> Option<engine::types::Move> {
        let moves = self.position.moves();
        let legal = self.position.legal_moves();
        if let Some(mine) = moves.len().checked_sub(2).map(|i| moves[i])
            && let Some(from) = mine.from()
        {
            let back = legal
                .iter()
                .find(|m| m.from() == Some(mine.to()) && m.to() == from);
            if back.is_some() {
                return back.copied();
            }
        }
        let king = self.position.king_square(self.position.side_to_move());
        legal.iter().find(|m| m.from() == Some(king)).copied()
    }

    fn misbehave(&self) {
        match self.args.scenario.as_str() {
            "crash-on-go" => std::process::exit(self.args.exit_status),
            "hang" => {}
            "garbage" => {
                say("\u{1b}[31m@@@ ### garbage ### @@@");
                say("info depth x nodes -1 score cp banana");
                say("bestmove 99zz!");
            }
            "illegal" => say(&format!("bestmove {}", self.illegal_move())),
            "resign" => say("bestmove resign"),
            "win" => say("bestmove win"),
            other => {
                eprintln!("mock-usi: unknown scenario `{other}`");
                std::process::exit(2);
            }
        }
    }

    /// Well-formed and not legal here: the first such square-to-square move.
    fn illegal_move(&self) -> String {
        let files = "123456789";
        let ranks = "abcdefghi";
        files
            .chars()
            .flat_map(|f| ranks.chars().map(move |r| format!("{f}{r}")))
            .flat_map(|from| ["5e", "1a", "9i"].map(|to| format!("{from}{to}")))
            .filter(|m| m[..2] != m[2..])
            .find(|m| self.position.parse_usi_move(m).is_err())
            .unwrap_or_else(|| "5e5d".into())
    }
}

/// Lots of junk, one endless line among it (then a normal move follows).
fn flood() {
    let junk = "x".repeat(100);
    for _ in 0..20_000 {
        say(&junk);
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&vec![b'y'; 300_000]);
    let _ = writeln!(out);
}
