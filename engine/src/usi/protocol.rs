//! The USI protocol as data: every line a GUI sends an engine ([`GuiCommand`]) and every line
//! an engine sends back ([`EngineMessage`]), parsed from text and formatted to text.
//!
//! Pure: no I/O, no position. Moves stay text here (the receiver judges them against its
//! position, so it can tell a malformed move from an illegal one). Parsing is tolerant of
//! unknown tokens (skipped) and strict about malformed values of known ones (an error that
//! quotes the line). Formatting writes canonical lines that parse back to the same value.
//!
//! See: the USI protocol description, <http://shogidokoro.starfree.jp/usi.html>.

use crate::clock::{Clocks, SideClock};
use crate::types::{Color, Score};
use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// A line that could not be understood, quoted whole.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("USI line `{line}`: {kind}")]
pub struct ProtocolError {
    pub line: String,
    pub kind: ProtocolErrorKind,
}

/// What was wrong with a USI line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ProtocolErrorKind {
    #[error("empty line")]
    Empty,
    #[error("unknown command `{0}`")]
    UnknownCommand(String),
    #[error("`{key}` needs a value")]
    MissingValue { key: String },
    #[error("`{key}` value `{value}` is not {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: &'static str,
    },
}

// ---------------------------------------------------------------------------------------------
// GUI -> engine

/// A command from the GUI to the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuiCommand {
    Usi,
    IsReady,
    /// `setoption name <name> [value <value>]` (no value for buttons).
    SetOption {
        name: String,
        value: Option<String>,
    },
    UsiNewGame,
    /// `position startpos|sfen <sfen> [moves ...]`; the SFEN and moves are not checked here.
    Position {
        start: PositionStart,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    GameOver(GameOutcome),
    Quit,
}

/// The start of a `position` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionStart {
    Startpos,
    /// The SFEN fields joined by single spaces.
    Sfen(String),
}

/// The parameters of `go`. Times are milliseconds; negative times sent by a GUI read as 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub ponder: bool,
    pub btime: Option<u64>,
    pub wtime: Option<u64>,
    pub byoyomi: Option<u64>,
    pub binc: Option<u64>,
    pub winc: Option<u64>,
    pub movetime: Option<u64>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    /// `go mate <ms>|infinite`: a mate search.
    pub mate: Option<MateLimit>,
    pub infinite: bool,
    pub searchmoves: Vec<String>,
}

impl Go {
    /// The clocks this `go` states, `None` when it states none (`go nodes ...`, `go infinite`).
    /// Both sides get its `byoyomi` (USI sends only the mover's).
    pub fn clocks(&self) -> Option<Clocks> {
        let go = self;
        let stated = go.btime.is_some()
            || go.wtime.is_some()
            || go.byoyomi.is_some()
            || go.binc.is_some()
            || go.winc.is_some();
        let ms = |x: Option<u64>| Duration::from_millis(x.unwrap_or(0));
        stated.then(|| {
            let side = |time, inc| SideClock {
                remaining: ms(time),
                byoyomi: ms(go.byoyomi),
                increment: ms(inc),
            };
            Clocks::new(side(go.btime, go.binc), side(go.wtime, go.winc))
        })
    }

    /// States `clocks` as `mover` is told them: `btime wtime`, then `byoyomi` (the mover's,
    /// when it has one) and `binc winc` (when either side has an increment).
    pub fn state_clocks(&mut self, clocks: &Clocks, mover: Color) {
        let go = self;
        let ms = |d: Duration| d.as_millis() as u64;
        let (sente, gote) = (clocks.side(Color::Sente), clocks.side(Color::Gote));
        go.btime = Some(ms(sente.remaining));
        go.wtime = Some(ms(gote.remaining));
        let byoyomi = clocks.side(mover).byoyomi;
        go.byoyomi = (!byoyomi.is_zero()).then(|| ms(byoyomi));
        let increments = !sente.increment.is_zero() || !gote.increment.is_zero();
        go.binc = increments.then(|| ms(sente.increment));
        go.winc = increments.then(|| ms(gote.increment));
    }
}

/// The time limit of `go mate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateLimit {
    Millis(u64),
    Infinite,
}

/// The result `gameover` announces, from the engine's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOutcome {
    Win,
    Lose,
    Draw,
}

impl GameOutcome {
    const fn word(self) -> &'static str {
        match self {
            Self::Win => "win",
            Self::Lose => "lose",
            Self::Draw => "draw",
        }
    }
}

/// Parses one line a GUI sent.
///
/// # Errors
/// An empty line, an unknown command, or a known key with a missing or malformed value.
pub fn parse_gui_command(line: &str) -> Result<GuiCommand, ProtocolError> {
    let err = |kind| ProtocolError {
        line: line.trim().to_string(),
        kind,
    };
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&command, args)) = tokens.split_first() else {
        return Err(err(ProtocolErrorKind::Empty));
    };
    Ok(match command {
        "usi" => GuiCommand::Usi,
        "isready" => GuiCommand::IsReady,
        "usinewgame" => GuiCommand::UsiNewGame,
        "stop" => GuiCommand::Stop,
        "ponderhit" => GuiCommand::PonderHit,
        "quit" => GuiCommand::Quit,
        "setoption" => parse_setoption(args).map_err(err)?,
        "position" => parse_position(args).map_err(err)?,
        "go" => GuiCommand::Go(parse_go(args).map_err(err)?),
        "gameover" => GuiCommand::GameOver(match args.first() {
            Some(&"win") => GameOutcome::Win,
            Some(&"lose") => GameOutcome::Lose,
            Some(&"draw") => GameOutcome::Draw,
            Some(other) => {
                return Err(err(bad_value("gameover", other, "`win`, `lose` or `draw`")));
            }
            None => return Err(err(missing("gameover"))),
        }),
        other => return Err(err(ProtocolErrorKind::UnknownCommand(other.to_string()))),
    })
}

fn parse_setoption(args: &[&str]) -> Result<GuiCommand, ProtocolErrorKind> {
    let rest = match args.split_first() {
        Some((&"name", rest)) if !rest.is_empty() && rest[0] != "value" => rest,
        _ => return Err(missing("setoption name")),
    };
    match rest.iter().position(|t| *t == "value") {
        Some(i) => Ok(GuiCommand::SetOption {
            name: rest[..i].join(" "),
            // `value` followed by nothing sets an empty string.
            value: Some(rest[i + 1..].join(" ")),
        }),
        None => Ok(GuiCommand::SetOption {
            name: rest.join(" "),
            value: None,
        }),
    }
}

fn parse_position(args: &[&str]) -> Result<GuiCommand, ProtocolErrorKind> {
    let moves_at = args.iter().position(|t| *t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let start = match setup {
        ["startpos"] => PositionStart::Startpos,
        ["sfen", fields @ ..] if !fields.is_empty() => PositionStart::Sfen(fields.join(" ")),
        ["sfen"] => return Err(missing("position sfen")),
        [] => return Err(missing("position")),
        [other, ..] => return Err(bad_value("position", other, "`startpos` or `sfen <sfen>`")),
    };
    Ok(GuiCommand::Position {
        start,
        moves: moves.iter().map(|m| (*m).to_string()).collect(),
    })
}

const GO_KEYWORDS: [&str; 13] = [
    "ponder",
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movetime",
    "nodes",
    "depth",
    "mate",
    "infinite",
    "searchmoves",
    "movestogo",
];

fn parse_go(args: &[&str]) -> Result<Go, ProtocolErrorKind> {
    let mut go = Go::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let value = args.get(i + 1).copied();
        // How many tokens this key used, itself included.
        let used = match key {
            "ponder" => {
                go.ponder = true;
                1
            }
            "infinite" => {
                go.infinite = true;
                1
            }
            "btime" => set(&mut go.btime, time_value(key, value)?),
            "wtime" => set(&mut go.wtime, time_value(key, value)?),
            "byoyomi" => set(&mut go.byoyomi, time_value(key, value)?),
            "binc" => set(&mut go.binc, time_value(key, value)?),
            "winc" => set(&mut go.winc, time_value(key, value)?),
            "movetime" => set(&mut go.movetime, time_value(key, value)?),
            "nodes" => set(&mut go.nodes, number(key, value)?),
            "depth" => set(&mut go.depth, number(key, value)?),
            "mate" => {
                let limit = match value {
                    Some("infinite") => MateLimit::Infinite,
                    _ => MateLimit::Millis(number(key, value)?),
                };
                set(&mut go.mate, limit)
            }
            "searchmoves" => {
                go.searchmoves = words_until(&args[i + 1..], &GO_KEYWORDS);
                1 + go.searchmoves.len()
            }
            // Unknown tokens are skipped one at a time.
            _ => 1,
        };
        i += used;
    }
    Ok(go)
}

impl fmt::Display for GuiCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usi => f.write_str("usi"),
            Self::IsReady => f.write_str("isready"),
            Self::UsiNewGame => f.write_str("usinewgame"),
            Self::Stop => f.write_str("stop"),
            Self::PonderHit => f.write_str("ponderhit"),
            Self::Quit => f.write_str("quit"),
            Self::SetOption {
                name,
                value: Some(value),
            } => {
                write!(f, "setoption name {name} value {value}")
            }
            Self::SetOption { name, value: None } => write!(f, "setoption name {name}"),
            Self::Position { start, moves } => PositionLine {
                sfen: match start {
                    PositionStart::Startpos => None,
                    PositionStart::Sfen(sfen) => Some(sfen),
                },
                moves: moves.iter(),
            }
            .fmt(f),
            Self::Go(go) => go.fmt(f),
            Self::GameOver(outcome) => write!(f, "gameover {}", outcome.word()),
        }
    }
}

/// The text of a `position` command, written from borrowed parts: a GUI that sends one per move
/// of a long game writes the moves into the line, not a `String` per move first.
pub struct PositionLine<'a, I> {
    /// `None`: `startpos`.
    pub sfen: Option<&'a str>,
    /// The moves, each as its USI text.
    pub moves: I,
}

impl<I> fmt::Display for PositionLine<'_, I>
where
    I: Iterator + Clone,
    I::Item: fmt::Display,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sfen {
            None => f.write_str("position startpos")?,
            Some(sfen) => write!(f, "position sfen {sfen}")?,
        }
        let mut moves = self.moves.clone().peekable();
        if moves.peek().is_some() {
            f.write_str(" moves")?;
            for m in moves {
                write!(f, " {m}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        if self.ponder {
            f.write_str(" ponder")?;
        }
        let numbers = [
            ("btime", self.btime),
            ("wtime", self.wtime),
            ("byoyomi", self.byoyomi),
            ("binc", self.binc),
            ("winc", self.winc),
            ("movetime", self.movetime),
            ("nodes", self.nodes),
            ("depth", self.depth.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        match self.mate {
            Some(MateLimit::Millis(ms)) => write!(f, " mate {ms}")?,
            Some(MateLimit::Infinite) => f.write_str(" mate infinite")?,
            None => {}
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        if !self.searchmoves.is_empty() {
            write!(f, " searchmoves {}", self.searchmoves.join(" "))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// engine -> GUI

/// A line from the engine to the GUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineMessage {
    /// `id name ...` / `id author ...`.
    Id(IdField),
    /// `option name ... type ...`.
    Option(OptionSpec),
    UsiOk,
    ReadyOk,
    Info(Info),
    BestMove(UsiBestMove),
    /// The answer to `go mate`.
    Checkmate(CheckmateAnswer),
}

/// The two `id` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdField {
    Name(String),
    Author(String),
}

/// An option the engine declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: String,
    pub kind: OptionKind,
}

/// The type of an engine option, with its default and bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Check {
        default: Option<bool>,
    },
    Spin {
        default: Option<i64>,
        min: Option<i64>,
        max: Option<i64>,
    },
    Combo {
        default: Option<String>,
        vars: Vec<String>,
    },
    Button,
    String {
        default: Option<String>,
    },
    Filename {
        default: Option<String>,
    },
}

/// `bestmove`: a move (text, judged by the receiver), `resign`, or `win` (an impasse
/// declaration, which the receiver must check).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsiBestMove {
    Move { mv: String, ponder: Option<String> },
    Resign,
    Win,
}

/// The answer to `go mate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckmateAnswer {
    Moves(Vec<String>),
    NoMate,
    NotImplemented,
    Timeout,
}

/// One `info` line. Every field is optional; `string` takes the rest of the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// Milliseconds searched.
    pub time: Option<u64>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    /// Per mille.
    pub hashfull: Option<u32>,
    pub multipv: Option<u32>,
    pub score: Option<InfoScore>,
    pub currmove: Option<String>,
    pub pv: Vec<String>,
    pub string: Option<String>,
}

/// `score cp N` / `score mate N` with an optional bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InfoScore {
    pub value: Score,
    pub bound: ScoreBound,
}

/// Whether a reported score is exact or a bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScoreBound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// Parses one line an engine sent.
///
/// # Errors
/// An empty line, an unknown first word, or a known key with a missing or malformed value.
pub fn parse_engine_message(line: &str) -> Result<EngineMessage, ProtocolError> {
    let trimmed = line.trim();
    let err = |kind| ProtocolError {
        line: trimmed.to_string(),
        kind,
    };
    let tokens: Vec<&str> = trimmed.split_whitespace().collect();
    let Some((&command, args)) = tokens.split_first() else {
        return Err(err(ProtocolErrorKind::Empty));
    };
    Ok(match command {
        "usiok" => EngineMessage::UsiOk,
        "readyok" => EngineMessage::ReadyOk,
        "id" => {
            let key = args.first().copied();
            let value = args
                .get(1)
                .map_or(String::new(), |_| rest_after(trimmed, 2));
            match key {
                Some("name") => EngineMessage::Id(IdField::Name(value)),
                Some("author") => EngineMessage::Id(IdField::Author(value)),
                Some(other) => return Err(err(bad_value("id", other, "`name` or `author`"))),
                None => return Err(err(missing("id"))),
            }
        }
        "option" => EngineMessage::Option(parse_option(args).map_err(err)?),
        "info" => EngineMessage::Info(parse_info(trimmed).map_err(err)?.to_info()),
        "bestmove" => EngineMessage::BestMove(match args {
            [] => return Err(err(missing("bestmove"))),
            ["resign", ..] => UsiBestMove::Resign,
            ["win", ..] => UsiBestMove::Win,
            [mv, rest @ ..] => {
                let ponder = match rest {
                    ["ponder", p, ..] => Some((*p).to_string()),
                    ["ponder"] => return Err(err(missing("ponder"))),
                    _ => None,
                };
                UsiBestMove::Move {
                    mv: (*mv).to_string(),
                    ponder,
                }
            }
        }),
        "checkmate" => EngineMessage::Checkmate(match args {
            [] => return Err(err(missing("checkmate"))),
            ["nomate"] => CheckmateAnswer::NoMate,
            ["notimplemented"] => CheckmateAnswer::NotImplemented,
            ["timeout"] => CheckmateAnswer::Timeout,
            moves => CheckmateAnswer::Moves(moves.iter().map(|m| (*m).to_string()).collect()),
        }),
        other => return Err(err(ProtocolErrorKind::UnknownCommand(other.to_string()))),
    })
}

const OPTION_KEYWORDS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];

fn parse_option(args: &[&str]) -> Result<OptionSpec, ProtocolErrorKind> {
    // Split into (keyword, words up to the next keyword) groups.
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for token in args {
        if OPTION_KEYWORDS.contains(token) {
            groups.push((token, Vec::new()));
        } else if let Some((_, words)) = groups.last_mut() {
            words.push(token);
        }
    }
    let joined = |key: &str| -> Option<String> {
        groups
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, words)| words.join(" "))
    };
    let name = joined("name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| missing("option name"))?;
    let kind_word = joined("type")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| missing("option type"))?;
    // `default <empty>` is USI's way of writing an empty string default.
    let text_default = || joined("default").map(|d| if d == "<empty>" { String::new() } else { d });
    let int = |key: &'static str| -> Result<Option<i64>, ProtocolErrorKind> {
        match joined(key) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| bad_value(key, &v, "an integer")),
        }
    };
    let kind = match kind_word.as_str() {
        "check" => OptionKind::Check {
            default: match joined("default").as_deref() {
                None => None,
                Some("true") => Some(true),
                Some("false") => Some(false),
                Some(other) => return Err(bad_value("default", other, "`true` or `false`")),
            },
        },
        "spin" => OptionKind::Spin {
            default: int("default")?,
            min: int("min")?,
            max: int("max")?,
        },
        "combo" => OptionKind::Combo {
            default: text_default(),
            vars: groups
                .iter()
                .filter(|(k, _)| *k == "var")
                .map(|(_, w)| w.join(" "))
                .collect(),
        },
        "button" => OptionKind::Button,
        "string" => OptionKind::String {
            default: text_default(),
        },
        "filename" => OptionKind::Filename {
            default: text_default(),
        },
        other => {
            return Err(bad_value(
                "type",
                other,
                "check, spin, combo, button, string or filename",
            ));
        }
    };
    Ok(OptionSpec { name, kind })
}

const INFO_KEYWORDS: [&str; 12] = [
    "depth", "seldepth", "time", "nodes", "nps", "hashfull", "multipv", "score", "currmove", "pv",
    "string", "cpuload",
];

/// One `info` line as [`Info`] holds it, borrowed from the line's text: what a reader that
/// keeps few of many lines parses each with, allocating nothing ([`InfoRef::to_info`] makes the
/// owned one). The one grammar of `info`: [`parse_engine_message`] reads `info` through it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InfoRef<'a> {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub time: Option<u64>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub hashfull: Option<u32>,
    pub multipv: Option<u32>,
    pub score: Option<InfoScore>,
    pub currmove: Option<&'a str>,
    /// The text of the `pv` moves (whitespace between them as written); empty without a pv.
    pv: &'a str,
    pub string: Option<&'a str>,
}

impl<'a> InfoRef<'a> {
    /// The `pv` moves, in order.
    pub fn pv(&self) -> std::str::SplitWhitespace<'a> {
        self.pv.split_whitespace()
    }

    /// The owned [`Info`].
    #[must_use]
    pub fn to_info(&self) -> Info {
        Info {
            depth: self.depth,
            seldepth: self.seldepth,
            time: self.time,
            nodes: self.nodes,
            nps: self.nps,
            hashfull: self.hashfull,
            multipv: self.multipv,
            score: self.score,
            currmove: self.currmove.map(str::to_string),
            pv: self.pv().map(str::to_string).collect(),
            string: self.string.map(str::to_string),
        }
    }
}

/// Parses an `info` line (its first word `info`) without copying any of it.
///
/// # Errors
/// As [`parse_engine_message`] for the same line: another first word, or a known key with a
/// missing or malformed value.
pub fn parse_info_line(line: &str) -> Result<InfoRef<'_>, ProtocolError> {
    let trimmed = line.trim();
    let err = |kind| ProtocolError {
        line: trimmed.to_string(),
        kind,
    };
    match trimmed.split_whitespace().next() {
        Some("info") => parse_info(trimmed).map_err(err),
        Some(other) => Err(err(ProtocolErrorKind::UnknownCommand(other.to_string()))),
        None => Err(err(ProtocolErrorKind::Empty)),
    }
}

/// `line`: trimmed, its first word `info`.
fn parse_info(line: &str) -> Result<InfoRef<'_>, ProtocolErrorKind> {
    let mut info = InfoRef::default();
    let mut words = line.split_whitespace().peekable();
    words.next();
    while let Some(key) = words.next() {
        match key {
            "depth" => info.depth = Some(number(key, words.next())?),
            "seldepth" => info.seldepth = Some(number(key, words.next())?),
            "time" => info.time = Some(number(key, words.next())?),
            "nodes" => info.nodes = Some(number(key, words.next())?),
            "nps" => info.nps = Some(number(key, words.next())?),
            "hashfull" => info.hashfull = Some(number(key, words.next())?),
            "multipv" => info.multipv = Some(number(key, words.next())?),
            "currmove" => info.currmove = Some(words.next().ok_or_else(|| missing(key))?),
            "score" => info.score = Some(parse_score(&mut words)?),
            "pv" => {
                // The words up to the next keyword, as one span of the line.
                let mut span: Option<(&str, &str)> = None;
                while let Some(&w) = words.peek() {
                    if INFO_KEYWORDS.contains(&w) {
                        break;
                    }
                    words.next();
                    span = Some((span.map_or(w, |(first, _)| first), w));
                }
                info.pv = span.map_or("", |(first, last)| {
                    let from = offset_in(line, first);
                    &line[from..offset_in(line, last) + last.len()]
                });
            }
            "string" => {
                // `string` takes the rest of the line, spacing kept.
                let from = offset_in(line, key) + key.len();
                info.string = Some(line[from..].trim());
                break;
            }
            // Unknown keys are skipped one token at a time.
            _ => {}
        }
    }
    Ok(info)
}

/// Where `word`, a slice of `line`, begins in it.
fn offset_in(line: &str, word: &str) -> usize {
    word.as_ptr() as usize - line.as_ptr() as usize
}

/// Stores a key's value; the key and its value used two tokens.
fn set<T>(slot: &mut Option<T>, value: T) -> usize {
    *slot = Some(value);
    2
}

/// The leading tokens that are not keywords, as owned strings.
fn words_until(tokens: &[&str], keywords: &[&str]) -> Vec<String> {
    tokens
        .iter()
        .take_while(|t| !keywords.contains(t))
        .map(|t| (*t).to_string())
        .collect()
}

/// Reads `cp N` / `mate N|+|-` and an optional bound after `score`.
fn parse_score<'a>(
    words: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Result<InfoScore, ProtocolErrorKind> {
    let value = match (words.next(), words.next()) {
        (Some("cp"), Some(v)) => Score::Cp(
            v.parse()
                .map_err(|_| bad_value("score cp", v, "an integer"))?,
        ),
        (Some("mate"), Some("+")) => Score::Mate(Score::MATE_UNKNOWN),
        (Some("mate"), Some("-")) => Score::Mate(-Score::MATE_UNKNOWN),
        (Some("mate"), Some(v)) => Score::Mate(
            v.trim_start_matches('+')
                .parse()
                .map_err(|_| bad_value("score mate", v, "an integer, `+` or `-`"))?,
        ),
        (Some(kind @ ("cp" | "mate")), None) => return Err(missing(&format!("score {kind}"))),
        (Some(other), _) => return Err(bad_value("score", other, "`cp` or `mate`")),
        (None, _) => return Err(missing("score")),
    };
    let bound = match words.peek() {
        Some(&"lowerbound") => ScoreBound::Lower,
        Some(&"upperbound") => ScoreBound::Upper,
        _ => ScoreBound::Exact,
    };
    if bound != ScoreBound::Exact {
        words.next();
    }
    Ok(InfoScore { value, bound })
}

impl fmt::Display for EngineMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UsiOk => f.write_str("usiok"),
            Self::ReadyOk => f.write_str("readyok"),
            Self::Id(IdField::Name(name)) => write!(f, "id name {name}"),
            Self::Id(IdField::Author(author)) => write!(f, "id author {author}"),
            Self::Option(spec) => spec.fmt(f),
            Self::Info(info) => info.fmt(f),
            Self::BestMove(UsiBestMove::Resign) => f.write_str("bestmove resign"),
            Self::BestMove(UsiBestMove::Win) => f.write_str("bestmove win"),
            Self::BestMove(UsiBestMove::Move { mv, ponder: None }) => write!(f, "bestmove {mv}"),
            Self::BestMove(UsiBestMove::Move {
                mv,
                ponder: Some(p),
            }) => {
                write!(f, "bestmove {mv} ponder {p}")
            }
            Self::Checkmate(CheckmateAnswer::NoMate) => f.write_str("checkmate nomate"),
            Self::Checkmate(CheckmateAnswer::NotImplemented) => {
                f.write_str("checkmate notimplemented")
            }
            Self::Checkmate(CheckmateAnswer::Timeout) => f.write_str("checkmate timeout"),
            Self::Checkmate(CheckmateAnswer::Moves(moves)) => {
                write!(f, "checkmate {}", moves.join(" "))
            }
        }
    }
}

impl fmt::Display for OptionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = |d: &str| {
            if d.is_empty() {
                "<empty>".to_string()
            } else {
                d.to_string()
            }
        };
        write!(f, "option name {} type ", self.name)?;
        match &self.kind {
            OptionKind::Check { default } => {
                f.write_str("check")?;
                if let Some(d) = default {
                    write!(f, " default {d}")?;
                }
            }
            OptionKind::Spin { default, min, max } => {
                f.write_str("spin")?;
                for (key, v) in [("default", default), ("min", min), ("max", max)] {
                    if let Some(v) = v {
                        write!(f, " {key} {v}")?;
                    }
                }
            }
            OptionKind::Combo { default, vars } => {
                f.write_str("combo")?;
                if let Some(d) = default {
                    write!(f, " default {}", text(d))?;
                }
                for v in vars {
                    write!(f, " var {v}")?;
                }
            }
            OptionKind::Button => f.write_str("button")?,
            OptionKind::String { default } | OptionKind::Filename { default } => {
                let word = if matches!(self.kind, OptionKind::String { .. }) {
                    "string"
                } else {
                    "filename"
                };
                f.write_str(word)?;
                if let Some(d) = default {
                    write!(f, " default {}", text(d))?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
            ("time", self.time),
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("hashfull", self.hashfull.map(u64::from)),
            ("multipv", self.multipv.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(score) = self.score {
            write!(f, " score {}", score.value)?;
            match score.bound {
                ScoreBound::Exact => {}
                ScoreBound::Lower => f.write_str(" lowerbound")?,
                ScoreBound::Upper => f.write_str(" upperbound")?,
            }
        }
        if let Some(m) = &self.currmove {
            write!(f, " currmove {m}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        if let Some(s) = &self.string {
            write!(f, " string {s}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// helpers

fn missing(key: &str) -> ProtocolErrorKind {
    ProtocolErrorKind::MissingValue {
        key: key.to_string(),
    }
}

fn bad_value(key: &str, value: &str, expected: &'static str) -> ProtocolErrorKind {
    ProtocolErrorKind::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        expected,
    }
}

fn number<T: std::str::FromStr>(key: &str, value: Option<&str>) -> Result<T, ProtocolErrorKind> {
    let v = value.ok_or_else(|| missing(key))?;
    v.parse()
        .map_err(|_| bad_value(key, v, "a non-negative integer"))
}

/// Milliseconds; a negative count (some GUIs send them when a clock runs out) reads as 0.
fn time_value(key: &str, value: Option<&str>) -> Result<u64, ProtocolErrorKind> {
    let v = value.ok_or_else(|| missing(key))?;
    let ms: i64 = v
        .parse()
        .map_err(|_| bad_value(key, v, "an integer number of milliseconds"))?;
    Ok(u64::try_from(ms).unwrap_or(0))
}

/// The text of `line` after its first `n` whitespace-separated tokens, inner spacing kept.
fn rest_after(line: &str, n: usize) -> String {
    let mut rest = line.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest.trim_end().to_string()
}

#[cfg(test)]
mod tests;
