//! The fastchess / Shogitest command line as one more way to write a match config: the flags are
//! turned into the TOML text a user could have written (`[match]` and `[[player]]` tables), and
//! that text goes through the one reader and validation every config goes through
//! ([`Config::parse`]). So a flag run is a TOML run: its run folder, `run.json`, resume, and
//! every program that reads a run work on it, and `--print-config` prints the text.
//!
//! The flags and their defaults are Shogitest's (its README), with fastchess's `-recover`,
//! `-log`, `-output`, `-tournament` and `-report`, and council's `-council`. What the run does
//! beyond the config (concurrency, console format, the pseudo-PGN file) is returned beside it in
//! [`RunFlags`]. Every problem is one line naming the flag (and the closest known one for an
//! unknown flag or key).

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::{Config, ConfigError};

/// Games per pairing when `-rounds` is not given: Shogitest plays on until stopped (or until
/// its SPRT decides); a council run has a schedule, so it plays at most this many rounds.
pub const UNBOUNDED_ROUNDS: u64 = 50_000;

/// The name a flag run's config has (in error lines and `run.json`); relative paths are taken
/// from the current folder, as the flags' paths are.
pub const FLAGS_CONFIG_NAME: &str = "command-line";

/// The flags this module knows (single dash, as fastchess and Shogitest write them).
pub const FLAGS: &[&str] = &[
    "-engine",
    "-each",
    "-council",
    "-concurrency",
    "-rounds",
    "-games",
    "-repeat",
    "-sprt",
    "-variant",
    "-maxmoves",
    "-draw",
    "-resign",
    "-openings",
    "-srand",
    "-ratinginterval",
    "-pgnout",
    "-event",
    "-site",
    "-testEnv",
    "-recover",
    "-log",
    "-output",
    "-tournament",
    "-report",
];

/// Council's own options, accepted beside the flags (double dash).
pub const RUN_OPTIONS: &[&str] = &["--print-config", "--out", "--resume", "--serve", "--quiet"];

const ENGINE_KEYS: &[&str] = &[
    "name",
    "cmd",
    "dir",
    "proto",
    "tc",
    "st",
    "nodes",
    "option.NAME",
    "timemargin",
    "restart",
];
const COUNCIL_KEYS: &[&str] = &[
    "name",
    "members",
    "method",
    "fairness",
    "approval_k",
    "tc",
    "st",
    "nodes",
];
const SPRT_KEYS: &[&str] = &["elo0", "elo1", "alpha", "beta", "model"];
const OPENINGS_KEYS: &[&str] = &["file", "format", "order", "start"];
const RESIGN_KEYS: &[&str] = &["movecount", "score", "twosided"];
const DRAW_KEYS: &[&str] = &["movenumber", "movecount", "score"];
const PGN_KEYS: &[&str] = &[
    "file", "nodes", "seldepth", "nps", "hashfull", "timeleft", "latency",
];
const LOG_KEYS: &[&str] = &["file", "level", "append", "compress", "realtime", "engine"];

/// The console's format (fastchess's `-output format=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Fastchess,
    Cutechess,
}

/// `-pgnout file=F [nodes=..] ...`: Shogitest's pseudo-PGN, with the comments asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnOut {
    pub file: PathBuf,
    pub nodes: bool,
    pub seldepth: bool,
    pub nps: bool,
    pub hashfull: bool,
    pub timeleft: bool,
    pub latency: bool,
}

/// What a flag run asks of the runner and its console, beside the config.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFlags {
    /// `-concurrency` (Shogitest's default 1).
    pub concurrency: usize,
    /// `-ratinginterval` (default 10; 0 and `-testEnv`: never).
    pub rating_interval: u64,
    pub output: OutputFormat,
    /// `-report penta=` (default true): pentanomial statistics in the reports.
    pub penta: bool,
    pub pgnout: Option<PgnOut>,
    /// `-event`, `-site`: the pseudo-PGN's headers (`?` unless given).
    pub event: String,
    pub site: String,
    /// `-log file=F`: every engine line goes there.
    pub log: Option<PathBuf>,
    /// `-rounds` was given (without it the run plays [`UNBOUNDED_ROUNDS`] at most).
    pub rounds_given: bool,
    /// `--print-config`: print the TOML and exit.
    pub print_config: bool,
    /// `--out DIR`, `--resume`, `--serve [ADDR]`, `--quiet`: as for a TOML run.
    pub out: Option<PathBuf>,
    pub resume: bool,
    pub serve: Option<String>,
    pub quiet: bool,
    /// The openings file's name (fastchess's report header names it).
    pub book: Option<String>,
}

/// A flag run: the validated config (its `text` is the TOML the flags make) and the rest.
#[derive(Debug, Clone)]
pub struct FlagRun {
    pub config: Config,
    pub run: RunFlags,
}

/// A bad command line: one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    #[error("unknown flag `{flag}`{}", closest(.near))]
    UnknownFlag { flag: String, near: Option<String> },
    #[error("{flag}: unknown key `{key}`{}", closest(.near))]
    UnknownKey {
        flag: String,
        key: String,
        near: Option<String>,
    },
    #[error("{flag}: {problem}")]
    Bad { flag: String, problem: String },
    #[error("{0}")]
    Config(#[from] ConfigError),
}

fn closest(near: &Option<String>) -> String {
    near.as_ref()
        .map_or(String::new(), |n| format!("; did you mean `{n}`?"))
}

fn bad(flag: &str, problem: impl Into<String>) -> FlagError {
    FlagError::Bad {
        flag: flag.to_string(),
        problem: problem.into(),
    }
}

/// Whether a command line is the flag form (a word is one of [`FLAGS`], or the first is another
/// single-dash word that is not a short option), not `council-match CONFIG ...`.
pub fn is_flag_form(args: &[String]) -> bool {
    args.iter().any(|a| FLAGS.contains(&a.as_str()))
        || args
            .first()
            .is_some_and(|a| a.starts_with('-') && !a.starts_with("--") && a.len() > 2)
}

/// One time control, as Shogitest reads `tc=`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tc {
    Fischer { main_ms: u64, inc_ms: u64 },
    Byoyomi { main_ms: u64, byoyomi_ms: u64 },
    MoveTime { ms: u64 },
    Nodes(u64),
}

fn secs_to_ms(s: f64) -> u64 {
    (s * 1000.0).round() as u64
}

/// A leading run of digits and dots as a number of seconds, and the rest.
fn number(s: &str) -> Option<(f64, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

fn strip_seconds(s: &str) -> &str {
    s.strip_prefix('s')
        .or_else(|| s.strip_prefix('秒'))
        .unwrap_or(s)
}

/// `[MIN(:|分|m)][SEC[s|秒]]`: the main time, ms.
fn main_time(s: &str) -> Option<u64> {
    if s.is_empty() {
        return Some(0);
    }
    let (first, rest) = number(s)?;
    let (min, rest) = match rest.chars().next() {
        Some(':' | '分' | 'm') => (first, &rest[rest.chars().next()?.len_utf8()..]),
        _ => {
            let rest = strip_seconds(rest);
            return rest.is_empty().then(|| secs_to_ms(first));
        }
    };
    let sec = if rest.is_empty() {
        0.0
    } else {
        let (sec, tail) = number(rest)?;
        if !strip_seconds(tail).is_empty() {
            return None;
        }
        sec
    };
    Some(secs_to_ms(min * 60.0 + sec))
}

impl Tc {
    /// Shogitest's forms: `MIN:SEC+INC` (Fischer), `MIN:SEC,BYOYOMI`, `movetime=SEC`, `N=NODES`
    /// (with its `分`, `秒`, `未満` spellings).
    fn parse(s: &str) -> Option<Tc> {
        if let Some(n) = s.strip_prefix("N=") {
            return n.parse().ok().map(Tc::Nodes);
        }
        if let Some(t) = s.strip_prefix("movetime=") {
            let (secs, rest) = number(t)?;
            return strip_seconds(rest).is_empty().then(|| Tc::MoveTime {
                ms: secs_to_ms(secs),
            });
        }
        if let Some(t) = s.strip_suffix("秒未満") {
            let (secs, rest) = number(t)?;
            return rest.is_empty().then(|| Tc::MoveTime {
                ms: secs_to_ms(secs),
            });
        }
        if let Some(i) = s.find([',', '、', ';']) {
            let sep = s[i..].chars().next()?.len_utf8();
            let byo = s[i + sep..].strip_suffix("未満").unwrap_or(&s[i + sep..]);
            let (secs, rest) = number(byo)?;
            if !strip_seconds(rest).is_empty() {
                return None;
            }
            return Some(Tc::Byoyomi {
                main_ms: main_time(&s[..i])?,
                byoyomi_ms: secs_to_ms(secs),
            });
        }
        let (main, inc) = match s.split_once('+') {
            Some((m, i)) => {
                let (secs, rest) = number(i)?;
                if !strip_seconds(rest).is_empty() {
                    return None;
                }
                (m, secs_to_ms(secs))
            }
            None => (s, 0),
        };
        if s.is_empty() {
            return None;
        }
        Some(Tc::Fischer {
            main_ms: main_time(main)?,
            inc_ms: inc,
        })
    }

    fn write(self, t: &mut Table) {
        for key in [
            "nodes",
            "movetime_ms",
            "time_ms",
            "byoyomi_ms",
            "increment_ms",
        ] {
            t.remove(key);
        }
        let int = |v: u64| Value::Integer(v as i64);
        match self {
            Tc::Fischer { main_ms, inc_ms } => {
                t.insert("time_ms".into(), int(main_ms));
                if inc_ms > 0 {
                    t.insert("increment_ms".into(), int(inc_ms));
                }
            }
            Tc::Byoyomi {
                main_ms,
                byoyomi_ms,
            } => {
                if main_ms > 0 {
                    t.insert("time_ms".into(), int(main_ms));
                }
                t.insert("byoyomi_ms".into(), int(byoyomi_ms));
            }
            Tc::MoveTime { ms } => {
                t.insert("movetime_ms".into(), int(ms));
            }
            Tc::Nodes(n) => {
                t.insert("nodes".into(), int(n));
            }
        }
    }
}

/// A flag's `key=value` words: they follow it until the next word that starts with `-` or
/// has no `=`.
fn key_values<'a>(
    words: &mut std::iter::Peekable<std::slice::Iter<'a, String>>,
) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    while let Some(w) = words.peek() {
        if w.starts_with('-') {
            break;
        }
        let Some(kv) = w.split_once('=') else { break };
        words.next();
        out.push(kv);
    }
    out
}

fn value<'a>(
    flag: &str,
    words: &mut std::iter::Peekable<std::slice::Iter<'a, String>>,
) -> Result<&'a str, FlagError> {
    words
        .next()
        .map(String::as_str)
        .ok_or_else(|| bad(flag, "needs a value"))
}

fn parse_num<T: std::str::FromStr>(flag: &str, what: &str, v: &str) -> Result<T, FlagError> {
    v.parse()
        .map_err(|_| bad(flag, format!("{what} `{v}` is not a number")))
}

fn parse_bool(flag: &str, key: &str, v: &str) -> Result<bool, FlagError> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "on" => Ok(true),
        "false" | "off" => Ok(false),
        _ => Err(bad(flag, format!("{key}=`{v}`: give true or false"))),
    }
}

fn unknown_key(flag: &str, key: &str, known: &[&str]) -> FlagError {
    FlagError::UnknownKey {
        flag: flag.into(),
        key: key.into(),
        near: super::closest(key, known.iter().copied()).map(str::to_string),
    }
}

/// One `-engine` or `-council` as given: its keys in order (`-each`'s are applied after).
struct Entrant {
    flag: &'static str,
    keys: Vec<(String, String)>,
}

/// A USI option's value as TOML: an integer, a boolean, or the text.
fn option_value(v: &str) -> Value {
    if let Ok(i) = v.parse::<i64>() {
        Value::Integer(i)
    } else if v == "true" || v == "false" {
        Value::Boolean(v == "true")
    } else {
        Value::String(v.to_string())
    }
}

/// Applies one engine key to its `[[player]]` table; `timemargin` goes to `margin`.
fn engine_key(
    flag: &str,
    t: &mut Table,
    margin: &mut Option<u64>,
    key: &str,
    v: &str,
) -> Result<(), FlagError> {
    let s = |v: &str| Value::String(v.to_string());
    match key {
        "name" => {
            t.insert("name".into(), s(v));
        }
        "cmd" => {
            t.insert("command".into(), s(v));
        }
        "dir" => {
            t.insert("dir".into(), s(v));
        }
        "proto" if v == "usi" => {}
        "proto" => return Err(bad(flag, format!("proto=`{v}`: only usi is supported"))),
        "tc" => Tc::parse(v)
            .ok_or_else(|| {
                bad(
                    flag,
                    format!("tc=`{v}`: give MIN:SEC+INC, MIN:SEC,BYOYOMI, movetime=SEC or N=NODES"),
                )
            })?
            .write(t),
        "st" => {
            let secs: f64 = parse_num(flag, "st", v)?;
            Tc::MoveTime {
                ms: secs_to_ms(secs),
            }
            .write(t)
        }
        "nodes" => Tc::Nodes(parse_num(flag, "nodes", v)?).write(t),
        "timemargin" => *margin = Some(parse_num(flag, "timemargin", v)?),
        "restart" => {
            let on = match v {
                "on" => true,
                "off" => false,
                _ => return Err(bad(flag, format!("restart=`{v}`: give on or off"))),
            };
            t.insert("restart".into(), Value::Boolean(on));
        }
        k if k.starts_with("option.") && k.len() > "option.".len() => {
            let options = t
                .entry("options")
                .or_insert_with(|| Value::Table(Table::new()));
            if let Value::Table(o) = options {
                o.insert(k["option.".len()..].to_string(), option_value(v));
            }
        }
        k => return Err(unknown_key(flag, k, ENGINE_KEYS)),
    }
    Ok(())
}

/// Applies one `-council` key to its `[[player]]` table.
fn council_key(t: &mut Table, key: &str, v: &str) -> Result<(), FlagError> {
    let flag = "-council";
    let s = |v: &str| Value::String(v.to_string());
    match key {
        "name" => {
            t.insert("name".into(), s(v));
        }
        "members" => {
            let members: Vec<Value> = v.split(',').filter(|m| !m.is_empty()).map(s).collect();
            t.insert("members".into(), Value::Array(members));
        }
        "method" => {
            t.insert("method".into(), s(v));
        }
        "fairness" => {
            t.insert("fairness".into(), s(v));
        }
        "approval_k" => {
            t.insert(
                "approval_k".into(),
                Value::Integer(parse_num(flag, "approval_k", v)?),
            );
        }
        "tc" | "st" | "nodes" => {
            let mut margin = None;
            engine_key(flag, t, &mut margin, key, v)?;
        }
        k => return Err(unknown_key(flag, k, COUNCIL_KEYS)),
    }
    Ok(())
}

/// The default name of an engine without `name=`: its command's file name without extension.
fn default_name(t: &Table) -> Option<String> {
    let cmd = t.get("command")?.as_str()?;
    Path::new(cmd)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
}

fn has_limit(t: &Table) -> bool {
    [
        "nodes",
        "depth",
        "movetime_ms",
        "time_ms",
        "byoyomi_ms",
        "increment_ms",
    ]
    .iter()
    .any(|k| t.contains_key(*k))
}

/// Parse a fastchess / Shogitest command line (without the program's name) into the TOML text
/// of its config, and the run's other settings. Nothing is validated beyond the flags
/// themselves: [`parse`] validates the text.
pub fn to_toml(args: &[String]) -> Result<(String, RunFlags), FlagError> {
    let mut run = RunFlags {
        concurrency: 1,
        rating_interval: 10,
        output: OutputFormat::Fastchess,
        penta: true,
        pgnout: None,
        event: "?".into(),
        site: "?".into(),
        log: None,
        rounds_given: false,
        print_config: false,
        out: None,
        resume: false,
        serve: None,
        quiet: false,
        book: None,
    };
    let mut entrants: Vec<Entrant> = Vec::new();
    let mut each: Vec<(String, String)> = Vec::new();
    let mut m = Table::new();
    let mut rounds: Option<u64> = None;
    let mut games_per_round: u64 = 2;
    let mut gauntlet = false;
    let mut max_moves: u64 = 512;
    let mut sprt: Option<Table> = None;
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        let flag = word.as_str();
        match flag {
            "-engine" | "-council" => {
                let keys = key_values(&mut words)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                entrants.push(Entrant {
                    flag: if flag == "-engine" {
                        "-engine"
                    } else {
                        "-council"
                    },
                    keys,
                });
            }
            "-each" => each.extend(
                key_values(&mut words)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string())),
            ),
            "-concurrency" => {
                let n: usize = parse_num(flag, "concurrency", value(flag, &mut words)?)?;
                if n == 0 {
                    return Err(bad(flag, "must be at least 1"));
                }
                run.concurrency = n;
            }
            "-rounds" => {
                let n: u64 = parse_num(flag, "rounds", value(flag, &mut words)?)?;
                if n == 0 {
                    return Err(bad(flag, "must be at least 1"));
                }
                rounds = Some(n);
            }
            "-games" => {
                let n: u64 = parse_num(flag, "games", value(flag, &mut words)?)?;
                if n == 0 || !n.is_multiple_of(2) {
                    return Err(bad(
                        flag,
                        format!("{n}: give a multiple of 2 (games are colour-swapped pairs)"),
                    ));
                }
                games_per_round = n;
            }
            "-repeat" => games_per_round = 2,
            "-sprt" => {
                let mut t = Table::new();
                t.insert("model".into(), Value::String("normalized".into()));
                for (k, v) in key_values(&mut words) {
                    match k {
                        "elo0" | "elo1" | "alpha" | "beta" => {
                            t.insert(k.into(), Value::Float(parse_num(flag, k, v)?));
                        }
                        "model" => {
                            t.insert(k.into(), Value::String(v.into()));
                        }
                        _ => return Err(unknown_key(flag, k, SPRT_KEYS)),
                    }
                }
                for k in ["elo0", "elo1"] {
                    if !t.contains_key(k) {
                        return Err(bad(flag, format!("needs {k}=")));
                    }
                }
                sprt = Some(t);
            }
            "-variant" => {
                let v = value(flag, &mut words)?;
                if v != "standard" {
                    return Err(bad(flag, format!("`{v}`: only standard is supported")));
                }
            }
            "-maxmoves" => {
                let v = value(flag, &mut words)?;
                max_moves = match v.to_ascii_lowercase().as_str() {
                    "inf" | "infinite" => u32::MAX as u64,
                    _ => {
                        let n: u64 = parse_num(flag, "maxmoves", v)?;
                        if n == 0 {
                            return Err(bad(flag, "must be at least 1 (or inf)"));
                        }
                        n.min(u32::MAX as u64)
                    }
                };
            }
            "-draw" => {
                // Shogitest's defaults; movenumber and movecount are plies, as council's rule.
                let (mut after, mut count, mut score) = (0u64, 1u64, 0i64);
                for (k, v) in key_values(&mut words) {
                    match k {
                        "movenumber" => after = parse_num(flag, k, v)?,
                        "movecount" => count = parse_num(flag, k, v)?,
                        "score" => score = parse_num(flag, k, v)?,
                        _ => return Err(unknown_key(flag, k, DRAW_KEYS)),
                    }
                }
                if count == 0 || score < 0 {
                    return Err(bad(
                        flag,
                        "movecount must be at least 1 and score at least 0",
                    ));
                }
                let mut d = Table::new();
                d.insert(
                    "after_plies".into(),
                    Value::Integer(after.min(u32::MAX as u64) as i64),
                );
                d.insert(
                    "plies".into(),
                    Value::Integer(count.min(u32::MAX as u64) as i64),
                );
                d.insert(
                    "score_cp".into(),
                    Value::Integer(score.min(i32::MAX as i64)),
                );
                m.insert("draw".into(), Value::Table(d));
            }
            "-resign" => {
                let (mut count, mut score, mut two_sided) = (1u64, 0i64, false);
                for (k, v) in key_values(&mut words) {
                    match k {
                        "movecount" => count = parse_num(flag, k, v)?,
                        "score" => score = parse_num(flag, k, v)?,
                        "twosided" => two_sided = parse_bool(flag, k, v)?,
                        _ => return Err(unknown_key(flag, k, RESIGN_KEYS)),
                    }
                }
                if count == 0 || score < 0 {
                    return Err(bad(
                        flag,
                        "movecount must be at least 1 and score at least 0",
                    ));
                }
                let mut r = Table::new();
                if two_sided {
                    // Shogitest counts plies of both sides; council's rule counts each side's
                    // moves: N plies are N/2 moves each (rounded up).
                    r.insert("score_cp".into(), Value::Integer(score.max(1)));
                    r.insert("moves".into(), Value::Integer(count.div_ceil(2) as i64));
                } else {
                    // One side's own score at or below -score for N of its moves in a row: the
                    // model rule with mu = score resigns exactly then (p_r >= 1/2 iff v <= -mu).
                    r.insert("model".into(), Value::String("shueso".into()));
                    r.insert("mu".into(), Value::Float(score as f64));
                    r.insert("sigma".into(), Value::Float(1.0));
                    r.insert("moves".into(), Value::Integer(count as i64));
                }
                m.insert("resign".into(), Value::Table(r));
            }
            "-openings" => {
                for (k, v) in key_values(&mut words) {
                    match k {
                        "file" => {
                            run.book = Some(v.to_string());
                            m.insert("openings".into(), Value::String(v.into()));
                        }
                        "format" if v == "epd" => {}
                        "format" => {
                            return Err(bad(flag, format!("format=`{v}`: only epd is supported")));
                        }
                        "order" => match v {
                            "sequential" | "random" => {
                                m.insert("openings_order".into(), Value::String(v.into()));
                            }
                            _ => {
                                return Err(bad(
                                    flag,
                                    format!("order=`{v}`: give sequential or random"),
                                ));
                            }
                        },
                        "start" => {
                            let n: i64 = parse_num(flag, k, v)?;
                            if n < 1 {
                                return Err(bad(flag, "start= is 1-based: at least 1"));
                            }
                            m.insert("openings_start".into(), Value::Integer(n));
                        }
                        _ => return Err(unknown_key(flag, k, OPENINGS_KEYS)),
                    }
                }
                if !m.contains_key("openings") {
                    return Err(bad(flag, "needs file="));
                }
            }
            "-srand" => {
                let seed: u64 = parse_num(flag, "seed", value(flag, &mut words)?)?;
                m.insert("seed".into(), Value::Integer(seed as i64));
            }
            "-ratinginterval" => {
                run.rating_interval = parse_num(flag, "interval", value(flag, &mut words)?)?
            }
            "-testEnv" => run.rating_interval = 0,
            "-recover" => {}
            "-pgnout" => {
                let mut p = PgnOut {
                    file: PathBuf::new(),
                    nodes: true,
                    seldepth: true,
                    nps: false,
                    hashfull: false,
                    timeleft: false,
                    latency: false,
                };
                for (k, v) in key_values(&mut words) {
                    match k {
                        "file" => p.file = PathBuf::from(v),
                        "nodes" => p.nodes = parse_bool(flag, k, v)?,
                        "seldepth" => p.seldepth = parse_bool(flag, k, v)?,
                        "nps" => p.nps = parse_bool(flag, k, v)?,
                        "hashfull" => p.hashfull = parse_bool(flag, k, v)?,
                        "timeleft" => p.timeleft = parse_bool(flag, k, v)?,
                        "latency" => p.latency = parse_bool(flag, k, v)?,
                        _ => return Err(unknown_key(flag, k, PGN_KEYS)),
                    }
                }
                if p.file.as_os_str().is_empty() {
                    return Err(bad(flag, "needs file="));
                }
                run.pgnout = Some(p);
            }
            "-event" => run.event = value(flag, &mut words)?.to_string(),
            "-site" => run.site = value(flag, &mut words)?.to_string(),
            "-log" => {
                for (k, v) in key_values(&mut words) {
                    match k {
                        "file" => run.log = Some(PathBuf::from(v)),
                        k if LOG_KEYS.contains(&k) => {}
                        _ => return Err(unknown_key(flag, k, LOG_KEYS)),
                    }
                }
                if run.log.is_none() {
                    return Err(bad(flag, "needs file="));
                }
            }
            "-output" => {
                for (k, v) in key_values(&mut words) {
                    match (k, v) {
                        ("format", "fastchess") => run.output = OutputFormat::Fastchess,
                        ("format", "cutechess") => run.output = OutputFormat::Cutechess,
                        ("format", _) => {
                            return Err(bad(
                                flag,
                                format!("format=`{v}`: give fastchess or cutechess"),
                            ));
                        }
                        _ => return Err(unknown_key(flag, k, &["format"])),
                    }
                }
            }
            "-tournament" => match value(flag, &mut words)? {
                "roundrobin" => gauntlet = false,
                "gauntlet" => gauntlet = true,
                v => return Err(bad(flag, format!("`{v}`: give roundrobin or gauntlet"))),
            },
            "-report" => {
                for (k, v) in key_values(&mut words) {
                    match k {
                        "penta" => run.penta = parse_bool(flag, k, v)?,
                        _ => return Err(unknown_key(flag, k, &["penta"])),
                    }
                }
            }
            "--print-config" => run.print_config = true,
            "--resume" => run.resume = true,
            "--quiet" | "-q" => run.quiet = true,
            "--out" => run.out = Some(PathBuf::from(value(flag, &mut words)?)),
            "--serve" => {
                let addr = match words.peek() {
                    Some(a) if !a.starts_with('-') => words.next().cloned().unwrap_or_default(),
                    _ => "127.0.0.1:8700".to_string(),
                };
                run.serve = Some(addr);
            }
            _ if !flag.starts_with('-') => {
                return Err(bad(
                    flag,
                    "not a flag: a config file and fastchess / Shogitest flags do not mix \
                     (give the config its --options, or the flags alone; \
                     --print-config turns flags into a config)",
                ));
            }
            _ => {
                let mut known: Vec<&str> = FLAGS.to_vec();
                known.extend_from_slice(RUN_OPTIONS);
                return Err(FlagError::UnknownFlag {
                    flag: flag.to_string(),
                    near: super::closest(flag, known.iter().copied()).map(str::to_string),
                });
            }
        }
    }

    // The players: each -engine, then -each's keys (Shogitest applies them last); a council's
    // members play only inside it.
    let mut players: Vec<Table> = Vec::new();
    let mut margin: Option<u64> = None;
    let mut member_names: Vec<String> = Vec::new();
    for e in &entrants {
        let mut t = Table::new();
        if e.flag == "-council" {
            t.insert("kind".into(), Value::String("council".into()));
            for (k, v) in &e.keys {
                council_key(&mut t, k, v)?;
            }
            let name = t.get("name").and_then(Value::as_str);
            if name.is_none() {
                return Err(bad("-council", "needs name="));
            }
            match t.get("members").and_then(Value::as_array) {
                Some(ms) if !ms.is_empty() => {
                    member_names.extend(ms.iter().filter_map(|m| m.as_str().map(str::to_string)))
                }
                _ => return Err(bad("-council", "needs members=A,B,..")),
            }
        } else {
            t.insert("kind".into(), Value::String("usi".into()));
            let mut own = None;
            for (k, v) in &e.keys {
                engine_key("-engine", &mut t, &mut own, k, v)?;
            }
            if !t.contains_key("command") {
                return Err(bad("-engine", "needs cmd="));
            }
            if !t.contains_key("name")
                && let Some(n) = default_name(&t)
            {
                t.insert("name".into(), Value::String(n));
            }
            if let Some(own) = own {
                margin = Some(margin.map_or(own, |m: u64| m.max(own)));
            }
        }
        players.push(t);
    }
    for (k, v) in &each {
        // `-each` is every engine's; its time control is every participant's (a council's
        // members take their council's budget unless their own -engine gave them one).
        for t in players.iter_mut() {
            let is_council = t.get("kind").and_then(Value::as_str) == Some("council");
            let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
            let is_member = member_names.iter().any(|m| m == name);
            let is_limit = matches!(k.as_str(), "tc" | "st" | "nodes");
            if is_council {
                if is_limit {
                    council_key(t, k, v)?;
                }
                continue;
            }
            if is_member && is_limit {
                continue;
            }
            let mut own = None;
            engine_key("-each", t, &mut own, k, v)?;
            if let Some(own) = own {
                margin = Some(margin.map_or(own, |m: u64| m.max(own)));
            }
        }
    }
    let mut names: Vec<String> = Vec::new();
    let mut playing: Vec<Value> = Vec::new();
    for t in &players {
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if names.contains(&name) {
            return Err(bad(
                "-engine",
                format!("two players are named `{name}`: give each a distinct name="),
            ));
        }
        names.push(name.clone());
        let is_member = member_names.contains(&name);
        if !is_member {
            playing.push(Value::String(name));
        }
        if !is_member && !has_limit(t) {
            return Err(bad(
                "-engine",
                format!(
                    "`{}` has no time control: give tc=, st= or nodes= (or -each tc=...)",
                    t.get("name").and_then(Value::as_str).unwrap_or_default()
                ),
            ));
        }
    }
    if playing.len() < 2 {
        return Err(bad(
            "-engine",
            "give at least two participants (-engine or -council)",
        ));
    }
    if sprt.is_some() && playing.len() != 2 {
        return Err(bad("-sprt", "needs exactly two participants"));
    }
    let format = match (playing.len(), gauntlet) {
        (2, _) => "head-to-head",
        (_, true) => "gauntlet",
        _ => "round-robin",
    };
    run.rounds_given = rounds.is_some();
    let rounds = rounds.unwrap_or(UNBOUNDED_ROUNDS);
    m.insert("format".into(), Value::String(format.into()));
    m.insert("players".into(), Value::Array(playing));
    m.insert(
        "games".into(),
        Value::Integer(rounds.saturating_mul(games_per_round).min(i64::MAX as u64) as i64),
    );
    m.insert("max_plies".into(), Value::Integer(max_moves as i64));
    if let Some(margin) = margin {
        m.insert("timeout_margin_ms".into(), Value::Integer(margin as i64));
    }
    if let Some(s) = sprt {
        m.insert("sprt".into(), Value::Table(s));
    }
    let mut doc = Table::new();
    doc.insert("match".into(), Value::Table(m));
    doc.insert(
        "player".into(),
        Value::Array(players.into_iter().map(Value::Table).collect()),
    );
    let text = toml::to_string(&doc).map_err(|e| bad("flags", e.to_string()))?;
    let text = format!(
        "# council-match's config for the command line:\n#   {}\n\n{text}",
        args.iter()
            .filter(|a| a.as_str() != "--print-config")
            .map(|a| shell_word(a))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok((text, run))
}

/// A word as a shell reads it back: quoted when it needs it.
pub fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// Parse and validate a fastchess / Shogitest command line: the config its TOML describes (read
/// as if from [`FLAGS_CONFIG_NAME`] in the current folder) and the run's other settings.
pub fn parse(args: &[String]) -> Result<FlagRun, FlagError> {
    let (text, run) = to_toml(args)?;
    let config = Config::parse(Path::new(FLAGS_CONFIG_NAME), &text)?;
    Ok(FlagRun { config, run })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn time_controls_in_shogitest_forms() {
        let f = |main_ms, inc_ms| Some(Tc::Fischer { main_ms, inc_ms });
        assert_eq!(Tc::parse("10+0.1"), f(10_000, 100));
        assert_eq!(Tc::parse("1:30+2"), f(90_000, 2_000));
        assert_eq!(Tc::parse("5m+1s"), f(300_000, 1_000));
        assert_eq!(Tc::parse("60"), f(60_000, 0));
        assert_eq!(
            Tc::parse("1:00,10"),
            Some(Tc::Byoyomi {
                main_ms: 60_000,
                byoyomi_ms: 10_000
            })
        );
        assert_eq!(
            Tc::parse("10分、30秒"),
            Some(Tc::Byoyomi {
                main_ms: 600_000,
                byoyomi_ms: 30_000
            })
        );
        assert_eq!(Tc::parse("movetime=0.5"), Some(Tc::MoveTime { ms: 500 }));
        assert_eq!(Tc::parse("3秒未満"), Some(Tc::MoveTime { ms: 3000 }));
        assert_eq!(Tc::parse("N=5000"), Some(Tc::Nodes(5000)));
        for bad in ["", "fast", "10+x", "N=", "40/60"] {
            assert_eq!(Tc::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn shogitest_defaults_and_mapping() {
        let (text, run) = to_toml(&words(
            "-engine cmd=./dev name=dev -engine cmd=/bin/base option.USI_Hash=64 option.Style=fast \
             -each tc=10+0.1 timemargin=50 -openings file=book.epd order=random -srand 7 \
             -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -resign movecount=3 score=600 \
             -draw movenumber=40 movecount=8 score=10",
        ))
        .expect("valid flags");
        let doc: Table = toml::from_str(&text).expect("TOML");
        let m = doc["match"].as_table().expect("match");
        assert_eq!(m["format"].as_str(), Some("head-to-head"));
        assert_eq!(m["games"].as_integer(), Some(2 * UNBOUNDED_ROUNDS as i64));
        assert_eq!(m["max_plies"].as_integer(), Some(512));
        assert_eq!(m["seed"].as_integer(), Some(7));
        assert_eq!(m["timeout_margin_ms"].as_integer(), Some(50));
        assert_eq!(m["openings_order"].as_str(), Some("random"));
        assert_eq!(m["sprt"]["model"].as_str(), Some("normalized"));
        assert_eq!(m["resign"]["mu"].as_float(), Some(600.0));
        let d = &m["draw"];
        assert_eq!(
            [&d["after_plies"], &d["plies"], &d["score_cp"]].map(|v| v.as_integer()),
            [Some(40), Some(8), Some(10)]
        );
        let p = doc["player"].as_array().expect("players");
        assert_eq!(p[1]["name"].as_str(), Some("base"));
        assert_eq!(p[1]["time_ms"].as_integer(), Some(10_000));
        assert_eq!(p[1]["increment_ms"].as_integer(), Some(100));
        assert_eq!(p[1]["options"]["USI_Hash"].as_integer(), Some(64));
        assert_eq!(p[1]["options"]["Style"].as_str(), Some("fast"));
        assert_eq!(
            (run.concurrency, run.rating_interval, run.rounds_given),
            (1, 10, false)
        );
    }

    #[test]
    fn a_council_of_engines_is_one_participant() {
        let (text, _) = to_toml(&words(
            "-engine name=a cmd=x -engine name=b cmd=x -engine name=c cmd=x \
             -council name=C members=a,b method=optimistic fairness=shared -rounds 3 -each nodes=100",
        ))
        .expect("valid flags");
        let doc: Table = toml::from_str(&text).expect("TOML");
        let m = doc["match"].as_table().expect("match");
        let playing: Vec<&str> = m["players"]
            .as_array()
            .expect("players")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(playing, ["c", "C"]);
        assert_eq!(m["games"].as_integer(), Some(6));
        let p = doc["player"].as_array().expect("players");
        assert!(!p[0].as_table().expect("a").contains_key("nodes"));
        assert_eq!(p[3]["nodes"].as_integer(), Some(100));
        assert_eq!(p[3]["method"].as_str(), Some("optimistic"));
    }

    #[test]
    fn a_config_file_among_flags_is_named_not_taken_for_a_flag() {
        let e = to_toml(&words("configs/3vs1.toml -pgnout file=x.pgn")).expect_err("mixed");
        assert!(
            e.to_string()
                .starts_with("configs/3vs1.toml: not a flag: a config file and fastchess"),
            "{e}"
        );
    }

    #[test]
    fn unknown_flags_and_keys_name_the_closest() {
        let e = to_toml(&words("-engine cmd=x -enigne cmd=y")).expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "unknown flag `-enigne`; did you mean `-engine`?"
        );
        let e = to_toml(&words("-engine cmd=x tc=1+0 nodez=5")).expect_err("unknown key");
        assert_eq!(
            e.to_string(),
            "-engine: unknown key `nodez`; did you mean `nodes`?"
        );
        let e = to_toml(&words("-engine cmd=x -concurrency 0")).expect_err("zero");
        assert_eq!(e.to_string(), "-concurrency: must be at least 1");
    }

    #[test]
    fn first_word_decides_the_form() {
        assert!(is_flag_form(&words("-engine cmd=x")));
        assert!(!is_flag_form(&words("configs/3vs1.toml -q")));
        assert!(!is_flag_form(&words("--games 4 c.toml")));
        assert!(!is_flag_form(&words("-q c.toml")));
    }
}
