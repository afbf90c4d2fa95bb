//! Game records: each finished game as CSA (with `'** <score> <pv>` comments) and KIF, written
//! through the engine crate's `engine::record` (this module only maps our results onto it).
//! The `.kif` file is in Shift_JIS (CP932), as Japanese tools read `.kif`; a game whose names
//! Shift_JIS cannot encode gets a UTF-8 `.kifu` instead, as those tools read `.kifu`.
//!
//! Invariant: a record is built by replaying the game's moves on its start position, so it
//! holds exactly the moves of the results line; a PV that stops being legal is cut there.

use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::clock::TimeControl;
use engine::position::{Replay, replay};
use engine::record::{EndReason, EngineComment, GameEnd, GameRecord, RecordError};
use engine::strategy::{Family, OPENING_PLIES};
use engine::types::{ByColor, Color};

use crate::game::sheet::PlayedGame;
use council_schema::config::Config;
use council_schema::results::family::family_after_opening;
use council_schema::results::{GameResult, Reason, Winner};
use council_schema::written_by::WrittenBy;

/// File names of a game's records: `<id>-<sente>-vs-<gote>.{csa,kif}` (names made file-safe).
pub fn record_paths(dir: &Path, g: &GameResult) -> (PathBuf, PathBuf) {
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let stem = format!("{:04}-{}-vs-{}", g.id, safe(&g.sente), safe(&g.gote));
    (
        dir.join(format!("{stem}.csa")),
        dir.join(format!("{stem}.kif")),
    )
}

fn end_reason(r: Reason) -> EndReason {
    match r {
        Reason::Resign | Reason::Adjudication => EndReason::Resign,
        Reason::Checkmate => EndReason::Checkmate,
        Reason::Repetition => EndReason::Repetition,
        Reason::PerpetualCheck => EndReason::PerpetualCheck,
        Reason::Impasse => EndReason::Impasse,
        // The records' draw the arbiter declares (a draw adjudication is one too).
        Reason::MaxPlies | Reason::DrawAdjudication => EndReason::MaxPlies,
        Reason::Timeout => EndReason::Timeout,
        Reason::Crash => EndReason::Crash,
        Reason::Aborted => EndReason::Abort,
        // An illegal or malformed move, or a failed impasse declaration.
        _ => EndReason::IllegalMove,
    }
}

/// A played game whose record cannot be built (its line does not replay: a bug).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameRecordError {
    #[error("start position: {problem}")]
    Start { problem: String },
    /// Move `number` (from 1) of the game.
    #[error("move {number}: {problem}")]
    Move { number: usize, problem: String },
}

/// A game's `$EVENT` in a run of `config`: the config's file name (not its path: a record
/// travels, the machine's folders do not), the game's id and its seed.
fn run_event(config: &Config, g: &GameResult) -> String {
    let name = config.file.file_name().map_or_else(
        || config.file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("{name} game {} (seed {})", g.id, g.seed)
}

/// The clocks of a game of a run of `config`: each side's, from its player's limits.
fn run_clocks(config: &Config, g: &GameResult) -> ByColor<Option<TimeControl>> {
    let clock = |name: &str| {
        config
            .players
            .get(name)
            .and_then(|p| p.limits.time_control())
    };
    ByColor {
        sente: clock(&g.sente),
        gote: clock(&g.gote),
    }
}

/// When a game started, as CSA's `$START_TIME` and KIF's `開始日時` write it (UTC).
fn start_time(g: &GameResult) -> Option<String> {
    let secs = g.started_unix_ms? / 1000;
    let text = council_schema::utc::utc_text(secs);
    Some(
        text.trim_end_matches('Z')
            .replace('-', "/")
            .replace('T', " "),
    )
}

/// Build the record of a played game, its `$EVENT` being `event`: each move read and judged
/// once, as the record plays it; and the game's opening family, read on the way (the run's
/// summary counts it without replaying the game).
fn event_record(
    event: String,
    clocks: ByColor<Option<TimeControl>>,
    game: &PlayedGame,
) -> Result<(GameRecord, Option<Family>), GameRecordError> {
    let g = &game.result;
    let start = replay::<&str>(&g.start, &[])
        .map_err(|e| GameRecordError::Start {
            problem: e.to_string(),
        })?
        .into_position();
    let mut record = GameRecord::from_start(start);
    record.sente = Some(g.sente.clone());
    record.gote = Some(g.gote.clone());
    record.event = Some(event);
    record.start_time = start_time(g);
    record.clocks = clocks;
    let opening = g.moves.len().min(OPENING_PLIES);
    let mut family = None;
    if opening == 0 {
        family = family_after_opening(g, record.position());
    }
    for (i, text) in g.moves.iter().enumerate() {
        let at_move = |problem: String| GameRecordError::Move {
            number: i + 1,
            problem,
        };
        record.push_usi(text).map_err(|e| at_move(e.to_string()))?;
        if i + 1 == opening {
            family = family_after_opening(g, record.position());
        }
        // Moves after the opening were played by the players: they have times and scores.
        let Some(played) = i.checked_sub(game.opening_plies) else {
            continue;
        };
        let time = g.times_ms.get(played).map(|&ms| Duration::from_millis(ms));
        let engine = match g.scores.get(played) {
            Some(Some(eval)) => {
                let pv_text = game.pvs.get(played).map(Vec::as_slice).unwrap_or(&[]);
                let pv_text = match pv_text.first() {
                    Some(first) if first == text => &pv_text[1..],
                    _ => pv_text,
                };
                // The pv as far as it is legal after the move.
                let pv = if pv_text.is_empty() {
                    Vec::new()
                } else {
                    Replay::new(record.position().clone(), pv_text).play_while_legal()
                };
                Some(EngineComment { score: *eval, pv })
            }
            _ => None,
        };
        if let Some(note) = record.annotate(i) {
            *note.time = time;
            *note.engine = engine;
        }
    }
    record.end = Some(GameEnd {
        reason: end_reason(g.reason),
        winner: match g.result {
            Winner::Sente => Some(Color::Sente),
            Winner::Gote => Some(Color::Gote),
            Winner::Draw => None,
        },
    });
    Ok((record, family))
}

/// Write `records/<id>-<sente>-vs-<gote>.csa` and `.kif` (Shift_JIS), or, when a name or the
/// event (the config's file name) has a character Shift_JIS cannot encode, `.kifu` (UTF-8) in
/// place of `.kif`. Their headers carry the start time, each side's clock and the program
/// that wrote them (`by`: a CSA `'` comment line, a KIF `#` line). Returns the game's opening
/// family (as `council_schema::results::family::family` finds it), read while the moves were
/// judged for the records.
pub fn write_records(
    dir: &Path,
    config: &Config,
    game: &PlayedGame,
    by: &WrittenBy,
) -> std::io::Result<Option<Family>> {
    let clocks = run_clocks(config, &game.result);
    write_game_records(dir, run_event(config, &game.result), clocks, game, by)
}

/// As [`write_records`], the records' `$EVENT` being `event` (a CSA server's `Game_ID`).
pub fn write_event_records(
    dir: &Path,
    event: &str,
    game: &PlayedGame,
    by: &WrittenBy,
) -> std::io::Result<()> {
    write_game_records(dir, event.to_string(), ByColor::default(), game, by).map(|_| ())
}

fn write_game_records(
    dir: &Path,
    event: String,
    clocks: ByColor<Option<TimeControl>>,
    game: &PlayedGame,
    by: &WrittenBy,
) -> std::io::Result<Option<Family>> {
    let (mut record, family) = event_record(event, clocks, game).map_err(std::io::Error::other)?;
    record.written_by = Some(by.to_string());
    let (csa, kif) = record_paths(dir, &game.result);
    let csa_text = match record.to_csa() {
        Ok(text) => text,
        Err(_) => {
            // An adjudicated loss of the side not to move has no CSA/KIF ending of its own: the
            // results line keeps the verdict, the record says the game was stopped.
            record.end = Some(GameEnd {
                reason: EndReason::Abort,
                winner: None,
            });
            record.to_csa().map_err(std::io::Error::other)?
        }
    };
    write_naming(&csa, csa_text)?;
    match record.to_kif_shift_jis() {
        Ok(bytes) => write_naming(&kif, bytes)?,
        Err(RecordError::Unwritable { .. }) => {
            let text = record.to_kif().map_err(std::io::Error::other)?;
            write_naming(&kif.with_extension("kifu"), text)?;
        }
        Err(e) => return Err(std::io::Error::other(e)),
    }
    Ok(family)
}

/// `std::fs::write`, its error naming the file (its kind kept).
fn write_naming(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    std::fs::write(path, contents)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// `-pgnout`'s settings: the file, the comments asked for, and the headers' event and site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnSettings {
    pub out: council_schema::config::flags::PgnOut,
    pub event: String,
    pub site: String,
}

/// A player's time control as Shogitest's pseudo-PGN headers write it (`10s+0.1s`,
/// `1m0s,10s`, `movetime=1s`, `N=5000`).
fn pgn_time_control(limits: &council_schema::config::Limits) -> String {
    let secs = |ms: u64| ms as f64 / 1000.0;
    let clock = |ms: u64| {
        let s = secs(ms);
        let minutes = (s / 60.0).floor();
        if minutes > 0.0 {
            format!("{minutes}m{}s", s - minutes * 60.0)
        } else {
            format!("{s}s")
        }
    };
    if let Some(b) = limits.byoyomi_ms {
        format!("{},{}s", clock(limits.time_ms.unwrap_or(0)), secs(b))
    } else if limits.time_ms.is_some() || limits.increment_ms.is_some() {
        let inc = limits.increment_ms.unwrap_or(0);
        let main = limits.time_ms.unwrap_or(0);
        let mut text = if main > 0 || inc == 0 {
            clock(main)
        } else {
            String::new()
        };
        if inc > 0 {
            text.push_str(&format!("+{}s", secs(inc)));
        }
        text
    } else if let Some(t) = limits.movetime_ms {
        format!("movetime={}s", secs(t))
    } else if let Some(n) = limits.nodes {
        format!("N={n}")
    } else {
        "infinite".into()
    }
}

/// One game in Shogitest's pseudo-PGN (`-pgnout`): the headers (the start position after the
/// opening as `FEN` when it is not the initial one), then each move the players made in USI
/// with its comment `{score t=SECONDSs}` (the last one also naming the ending), then the result.
/// council does not record depth, nodes, nps, hash use or the clock per move, so the comments
/// hold the score and the time only; `nodes=`, `seldepth=`, `nps=`, `hashfull=`, `timeleft=`,
/// `latency=` add nothing.
pub fn pseudo_pgn(config: &Config, game: &PlayedGame, settings: &PgnSettings) -> String {
    use engine::types::Score;
    let g = &game.result;
    let result = match (g.reason, g.result) {
        (Reason::Aborted, _) => "*",
        (_, Winner::Sente) => "1-0",
        (_, Winner::Gote) => "0-1",
        (_, Winner::Draw) => "1/2-1/2",
    };
    let opening = game.opening_plies.min(g.moves.len());
    let after_opening = replay(&g.start, &g.moves[..opening]).map(|mut r| {
        while let Some(Ok(_)) = r.step() {}
        r.position().to_sfen()
    });
    let initial = engine::position::Position::startpos().to_sfen();
    let started = g
        .started_unix_ms
        .map(|ms| council_schema::utc::utc_text(ms / 1000));
    let mut out = String::new();
    let mut header = |key: &str, value: &str| {
        out.push_str(&format!("[{key} {value:?}]\n"));
    };
    header("Event", &settings.event);
    header("Site", &settings.site);
    header(
        "Date",
        &started
            .as_deref()
            .map_or("????.??.??".to_string(), |t| t[..10].to_string()),
    );
    header("Round", &g.id.to_string());
    header("Black", &g.sente);
    header("Sente", &g.sente);
    header("White", &g.gote);
    header("Gote", &g.gote);
    header("Result", result);
    if let Ok(sfen) = &after_opening
        && *sfen != initial
    {
        header("FEN", sfen);
        header("SetUp", "1");
    }
    let played = &g.moves[opening..];
    header("PlyCount", &played.len().to_string());
    let termination = match g.reason {
        Reason::Timeout => "time forfeit",
        Reason::Crash => "abandoned",
        Reason::MaxPlies | Reason::Adjudication | Reason::DrawAdjudication => "adjudication",
        Reason::IllegalMove | Reason::MalformedMove | Reason::PerpetualCheck => "illegal move",
        Reason::Aborted => "unterminated",
        _ => "normal",
    };
    header("Termination", termination);
    if let Some(t) = &started {
        header("GameStartTime", t);
    }
    for (key, name) in [
        ("BlackTimeControl", &g.sente),
        ("WhiteTimeControl", &g.gote),
    ] {
        header(key, &pgn_time_control(&config.player(name).limits));
    }
    out.push('\n');
    let ending = crate::runner::report::ending_words(g);
    for (i, mv) in played.iter().enumerate() {
        let score = match g.scores.get(i).copied().flatten() {
            None => "none".to_string(),
            Some(Score::Cp(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
            Some(Score::Mate(n)) => format!("{}M{}", if n > 0 { "+" } else { "-" }, n.abs()),
        };
        let mut comment = score;
        if let Some(ms) = g.times_ms.get(i) {
            comment.push_str(&format!(" t={}s", *ms as f64 / 1000.0));
        }
        if i + 1 == played.len() {
            comment.push_str(&format!(", {ending}"));
        }
        out.push_str(&format!("{mv} {{{comment}}}\n"));
    }
    out.push_str(result);
    out.push_str("\n\n");
    out
}

/// Append a game to the `-pgnout` file.
pub fn append_pgn(
    config: &Config,
    game: &PlayedGame,
    settings: &PgnSettings,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&settings.out.file)?;
    file.write_all(pseudo_pgn(config, game, settings).as_bytes())
}
