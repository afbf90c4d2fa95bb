//! The CSA server protocol (version 1.2.1) as text: what the server's lines mean, the
//! `Game_Summary` block as data (its `Time` section as the one clock's [`TimeControl`]), and
//! the lines a client sends. Pure: no
//! I/O, so every rule of the protocol is unit-tested here and the session and the game loop
//! only move lines.
//!
//! Moves are converted with the engine crate's CSA code (`engine::record::csa_move_to_usi`,
//! `engine::record::csa_move`), and the `Position` section of a summary is read by the engine
//! crate's CSA record reader: this module adds no second CSA move parser.

use std::time::Duration;

use engine::clock::TimeControl;
use engine::position::Position;
use engine::record::GameRecord;
use engine::types::{ByColor, Color, Score};

use council_schema::results::{Reason, Winner};

/// A `Game_Summary` the client cannot play: the line (from 1, counted from
/// `BEGIN Game_Summary`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SummaryError {
    #[error("Game_Summary line {line}: `{text}`: {problem}")]
    Line {
        line: usize,
        text: String,
        problem: String,
    },
    #[error("Game_Summary: missing `{key}`")]
    Missing { key: &'static str },
    #[error("Game_Summary Position section: {problem}")]
    Position { problem: String },
}

/// The `Time` section: one side's clock in the server's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRules {
    /// One `Time_Unit` in milliseconds (`1sec` = 1000, `1min` = 60000, `1msec` = 1).
    pub unit_ms: u64,
    /// `Total_Time`, `Byoyomi`, `Increment` and `Least_Time_Per_Move`, in units.
    pub total: u64,
    pub byoyomi: u64,
    pub increment: u64,
    pub least: u64,
}

impl Default for TimeRules {
    fn default() -> Self {
        TimeRules {
            unit_ms: 1000,
            total: 0,
            byoyomi: 0,
            increment: 0,
            least: 0,
        }
    }
}

impl TimeRules {
    /// `units` of the server's `Time_Unit` as a duration (a `,T` time, a `Total_Time`).
    pub fn duration(&self, units: u64) -> Duration {
        Duration::from_millis(units * self.unit_ms)
    }

    /// What each side gets, as the one clock states it; `None` for a game without a clock
    /// (shogi-server plays one when the total, the byoyomi and the increment are all 0).
    pub fn control(&self) -> Option<TimeControl> {
        let control = TimeControl {
            main: self.duration(self.total),
            byoyomi: self.duration(self.byoyomi),
            increment: self.duration(self.increment),
        };
        (!control.is_unlimited()).then_some(control)
    }
}

/// Moves already played (USI), each with the time it was charged, in units.
pub type PlayedMoves = Vec<(String, Option<u64>)>;

/// A `Game_Summary` block as data.
#[derive(Debug, Clone)]
pub struct GameSummary {
    pub game_id: String,
    /// `Name+` and `Name-`.
    pub names: ByColor<String>,
    /// The side this client plays (`Your_Turn`).
    pub you: Color,
    /// The side to move after the moves already played (`To_Move`).
    pub to_move: Color,
    /// `Max_Moves` (0 or absent: none).
    pub max_moves: Option<u32>,
    /// Each side's `Time` section, sente's first: `BEGIN Time` gives both sides the same,
    /// `BEGIN Time+` and `BEGIN Time-` (protocol 1.2.1's per-side form) one side each.
    pub time: ByColor<TimeRules>,
    /// The start position (before the moves already played) as SFEN.
    pub start_sfen: String,
    /// Moves already played from the start.
    pub played: PlayedMoves,
}

impl GameSummary {
    /// Read the lines between `BEGIN Game_Summary` and `END Game_Summary`.
    pub fn parse(lines: &[String]) -> Result<GameSummary, SummaryError> {
        let mut game_id = None;
        let mut names = ByColor::<Option<String>>::default();
        let mut you = None;
        let mut to_move = None;
        let mut max_moves = None;
        let mut time = ByColor::<TimeRules>::default();
        let mut position: Option<Vec<&str>> = None;
        let mut position_text = None;
        // The sides the `Time` section being read sets (none: not in one).
        let mut in_time: &[Color] = &[];
        for (i, raw) in lines.iter().enumerate() {
            let line = raw.trim_end_matches(['\r', '\n']);
            let bad = |problem: &str| SummaryError::Line {
                line: i + 2,
                text: line.to_string(),
                problem: problem.to_string(),
            };
            if let Some(pos) = &mut position {
                if line == "END Position" {
                    position_text = Some(pos.join("\n") + "\n");
                    position = None;
                } else {
                    pos.push(line);
                }
                continue;
            }
            match line.trim() {
                "" => continue,
                "BEGIN Time" => in_time = &Color::BOTH,
                "BEGIN Time+" => in_time = &[Color::Sente],
                "BEGIN Time-" => in_time = &[Color::Gote],
                "END Time" | "END Time+" | "END Time-" => in_time = &[],
                "BEGIN Position" => position = Some(Vec::new()),
                _ => {
                    let Some((key, value)) = line.split_once(':') else {
                        return Err(bad("not `Key:Value`"));
                    };
                    let number = || value.trim().parse::<u64>().map_err(|_| bad("not a number"));
                    let turn = || side(value).ok_or_else(|| bad("not `+` or `-`"));
                    if !in_time.is_empty() {
                        let value = match key {
                            "Time_Unit" => Some(time_unit(value).map_err(|p| bad(&p))?),
                            "Total_Time" | "Byoyomi" | "Increment" | "Least_Time_Per_Move" => {
                                Some(number()?)
                            }
                            _ => None,
                        };
                        for &side in in_time {
                            let t = &mut time[side];
                            match (key, value) {
                                ("Time_Unit", Some(v)) => t.unit_ms = v,
                                ("Total_Time", Some(v)) => t.total = v,
                                ("Byoyomi", Some(v)) => t.byoyomi = v,
                                ("Increment", Some(v)) => t.increment = v,
                                ("Least_Time_Per_Move", Some(v)) => t.least = v,
                                // Time_Roundup, Delay and keys of later versions.
                                _ => {}
                            }
                        }
                        continue;
                    }
                    match key {
                        "Game_ID" => game_id = Some(value.to_string()),
                        "Name+" => names.sente = Some(value.to_string()),
                        "Name-" => names.gote = Some(value.to_string()),
                        "Your_Turn" => you = Some(turn()?),
                        "To_Move" => to_move = Some(turn()?),
                        "Max_Moves" => {
                            max_moves =
                                Some(u32::try_from(number()?).map_err(|_| bad("too large"))?)
                        }
                        // Protocol_Version, Format, Declaration, Rematch_On_Draw, Time_Roundup
                        // and keys of later versions: nothing the client needs.
                        _ => {}
                    }
                }
            }
        }
        let missing = |key| SummaryError::Missing { key };
        let (start_sfen, played) =
            read_position(&position_text.ok_or(missing("BEGIN Position ... END Position"))?)?;
        Ok(GameSummary {
            game_id: game_id.ok_or(missing("Game_ID"))?,
            names: ByColor {
                sente: names.sente.ok_or(missing("Name+"))?,
                gote: names.gote.ok_or(missing("Name-"))?,
            },
            you: you.ok_or(missing("Your_Turn"))?,
            to_move: to_move.ok_or(missing("To_Move"))?,
            max_moves: max_moves.filter(|&m| m > 0),
            time,
            start_sfen,
            played,
        })
    }
}

/// The `Position` section read as a CSA record: its start position (SFEN) and its moves.
fn read_position(text: &str) -> Result<(String, PlayedMoves), SummaryError> {
    let record = GameRecord::read_csa(text).map_err(|e| SummaryError::Position {
        problem: e.to_string(),
    })?;
    let played = record
        .moves()
        .iter()
        .map(|m| (m.mv.to_usi(), m.time.map(|t| t.as_secs())))
        .collect();
    Ok((record.start().to_sfen(), played))
}

fn side(text: &str) -> Option<Color> {
    match text.trim() {
        "+" => Some(Color::Sente),
        "-" => Some(Color::Gote),
        _ => None,
    }
}

/// `Time_Unit` in milliseconds: `<n>sec`, `<n>msec`. `<n>min` is refused: shogi-server sends
/// `Time_Unit:1min` for its stop-watch clock (a game name whose byoyomi starts with `0`, e.g.
/// `-600-060`), whose `Total_Time`, `Byoyomi` and `,T` times are still seconds and whose rule
/// (time charged in whole byoyomi periods, no byoyomi after the main time) is not the one clock's.
fn time_unit(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let not_a_unit = || "not a time unit (1sec, 1msec)".to_string();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(not_a_unit)?;
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().map_err(|_| not_a_unit())?;
    match unit {
        "msec" => Ok(n),
        "sec" => Ok(n * 1000),
        "min" => Err(
            "a stop-watch clock (shogi-server's `1min` unit, game names like `-600-060`), which \
             council-csa does not play"
                .to_string(),
        ),
        _ => Err(not_a_unit()),
    }
}

/// A game name as shogi-server reads it from a CSA `LOGIN` password (`<game name>,<password>`,
/// or a bare game name): `NAME-TOTAL-BYOYOMI`, `F` after the byoyomi for a Fischer increment,
/// and `-B` or `-W` after that to ask for sente or gote. Only what the client checks before it
/// logs in is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameName {
    /// The game name without the side (`floodgate-300-10F`).
    pub name: String,
    /// The side asked for (`-B`: sente, `-W`: gote).
    pub side: Option<Color>,
    /// shogi-server's stop-watch clock: the byoyomi written with a leading `0` (`-600-060`).
    pub stop_watch: bool,
}

impl GameName {
    /// The game name in a `LOGIN` password; `None` when it names none (shogi-server then plays
    /// its default game).
    pub fn from_password(password: &str) -> Option<GameName> {
        let whole = GameName::parse(password);
        if whole.is_some() {
            return whole;
        }
        let (name, _) = password.split_once(',')?;
        GameName::parse(name)
    }

    fn parse(text: &str) -> Option<GameName> {
        let (rest, side) = match text.rsplit_once('-') {
            Some((rest, "B" | "b")) => (rest, Some(Color::Sente)),
            Some((rest, "W" | "w")) => (rest, Some(Color::Gote)),
            _ => (text, None),
        };
        let (rest, byoyomi) = rest.rsplit_once('-')?;
        let (head, total) = rest.rsplit_once('-')?;
        let digits = byoyomi.strip_suffix('F').unwrap_or(byoyomi);
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let identifier = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '@' | '-' | '.'))
        };
        if !(all_digits(total) && all_digits(digits) && identifier(head)) {
            return None;
        }
        Some(GameName {
            name: rest.to_string() + "-" + byoyomi,
            side,
            stop_watch: byoyomi.len() > 1
                && byoyomi.starts_with('0')
                && byoyomi.as_bytes()[1].is_ascii_digit(),
        })
    }
}

/// How the server said a game ended (the `#` line before `#WIN`/`#LOSE`/`#DRAW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Resign,
    TimeUp,
    Sennichite,
    OuteSennichite,
    IllegalMove,
    Jishogi,
    MaxMoves,
    Chudan,
}

impl Ending {
    fn from_word(word: &str) -> Option<Ending> {
        Some(match word {
            "#RESIGN" => Ending::Resign,
            "#TIME_UP" => Ending::TimeUp,
            "#SENNICHITE" => Ending::Sennichite,
            "#OUTE_SENNICHITE" => Ending::OuteSennichite,
            "#ILLEGAL_MOVE" => Ending::IllegalMove,
            "#JISHOGI" => Ending::Jishogi,
            "#MAX_MOVES" => Ending::MaxMoves,
            "#CHUDAN" => Ending::Chudan,
            _ => return None,
        })
    }

    /// The protocol's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Ending::Resign => "#RESIGN",
            Ending::TimeUp => "#TIME_UP",
            Ending::Sennichite => "#SENNICHITE",
            Ending::OuteSennichite => "#OUTE_SENNICHITE",
            Ending::IllegalMove => "#ILLEGAL_MOVE",
            Ending::Jishogi => "#JISHOGI",
            Ending::MaxMoves => "#MAX_MOVES",
            Ending::Chudan => "#CHUDAN",
        }
    }
}

/// The result line for this client: `#WIN`, `#LOSE`, `#DRAW`, `#CENSORED` (max moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Lose,
    Draw,
    Censored,
}

/// One line from the server, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerLine {
    /// An empty line (the server's keep-alive): ignored.
    Empty,
    LoginOk,
    LoginIncorrect,
    SummaryBegin,
    SummaryEnd,
    /// `START:<game id>`.
    Start(String),
    /// `REJECT:<game id> by <name>`.
    Reject(String),
    /// A move (`+7776FU,T5`) with its charged time in units.
    Move {
        word: String,
        units: Option<u64>,
    },
    /// `%TORYO`, `%KACHI`, `%CHUDAN` echoed, with a time when given.
    Special {
        word: String,
        units: Option<u64>,
    },
    Ending(Ending),
    Outcome(Outcome),
    LogoutCompleted,
    /// Anything else (summary lines, messages of later versions).
    Other(String),
}

/// Classify one line the server sent.
pub fn parse_server_line(line: &str) -> ServerLine {
    let line = line.trim_end_matches(['\r', '\n']);
    let (word, units) = match line.split_once(",T") {
        Some((w, t)) => (
            w,
            t.split(',')
                .next()
                .and_then(|t| t.trim().parse::<u64>().ok()),
        ),
        None => (line, None),
    };
    match line {
        "" => return ServerLine::Empty,
        "BEGIN Game_Summary" => return ServerLine::SummaryBegin,
        "END Game_Summary" => return ServerLine::SummaryEnd,
        "#WIN" => return ServerLine::Outcome(Outcome::Win),
        "#LOSE" => return ServerLine::Outcome(Outcome::Lose),
        "#DRAW" => return ServerLine::Outcome(Outcome::Draw),
        "#CENSORED" => return ServerLine::Outcome(Outcome::Censored),
        "LOGOUT:completed" => return ServerLine::LogoutCompleted,
        "LOGIN:incorrect" => return ServerLine::LoginIncorrect,
        _ => {}
    }
    if let Some(e) = Ending::from_word(line) {
        return ServerLine::Ending(e);
    }
    if line.starts_with("LOGIN:") && line.ends_with(" OK") {
        return ServerLine::LoginOk;
    }
    if let Some(id) = line.strip_prefix("START:") {
        return ServerLine::Start(id.to_string());
    }
    if let Some(rest) = line.strip_prefix("REJECT:") {
        return ServerLine::Reject(rest.to_string());
    }
    let b = word.as_bytes();
    if b.len() == 7 && matches!(b[0], b'+' | b'-') && b[1..5].iter().all(u8::is_ascii_digit) {
        return ServerLine::Move {
            word: word.to_string(),
            units,
        };
    }
    if word.starts_with('%') {
        return ServerLine::Special {
            word: word.to_string(),
            units,
        };
    }
    ServerLine::Other(line.to_string())
}

/// `LOGIN <id> <password>`.
pub fn login_line(id: &str, password: &str) -> String {
    format!("LOGIN {id} {password}")
}

/// A line as the protocol log writes it: the password of a `LOGIN` masked.
pub fn masked(line: &str) -> String {
    match line.strip_prefix("LOGIN ") {
        Some(rest) => match rest.split_once(' ') {
            Some((id, _)) => format!("LOGIN {id} ********"),
            None => line.to_string(),
        },
        None => line.to_string(),
    }
}

/// The verdict of a finished game from this client's side (`you`): who won by the board, why,
/// and a sentence. `last_special` is the `%` word the game ended on (`%KACHI` turns an
/// `#ILLEGAL_MOVE` into a failed declaration), `mated` whether the side to move had no legal
/// move when the game ended (a `#RESIGN` then is a checkmate).
pub fn verdict(
    you: Color,
    ending: Option<Ending>,
    outcome: Option<Outcome>,
    last_special: Option<&str>,
    mated: bool,
) -> (Winner, Reason, String) {
    let by_board = |c: Color| match c {
        Color::Sente => Winner::Sente,
        Color::Gote => Winner::Gote,
    };
    let winner = match outcome {
        Some(Outcome::Win) => by_board(you),
        Some(Outcome::Lose) => by_board(you.opposite()),
        Some(Outcome::Draw) | Some(Outcome::Censored) | None => Winner::Draw,
    };
    let reason = match (ending, outcome) {
        (Some(Ending::Chudan), _) | (_, None) => Reason::Aborted,
        (Some(Ending::Resign), _) if mated => Reason::Checkmate,
        (Some(Ending::Resign), _) => Reason::Resign,
        (Some(Ending::TimeUp), _) => Reason::Timeout,
        (Some(Ending::Sennichite), _) => Reason::Repetition,
        (Some(Ending::OuteSennichite), _) => Reason::PerpetualCheck,
        (Some(Ending::IllegalMove), _) if last_special == Some("%KACHI") => Reason::IllegalImpasse,
        (Some(Ending::IllegalMove), _) => Reason::IllegalMove,
        (Some(Ending::Jishogi), _) => Reason::Impasse,
        (Some(Ending::MaxMoves), _) | (None, Some(Outcome::Censored)) => Reason::MaxPlies,
        (None, Some(_)) => Reason::Resign,
    };
    let winner = if reason == Reason::Aborted {
        Winner::Draw
    } else {
        winner
    };
    let said = [
        ending.map(Ending::word),
        outcome.map(|o| match o {
            Outcome::Win => "#WIN",
            Outcome::Lose => "#LOSE",
            Outcome::Draw => "#DRAW",
            Outcome::Censored => "#CENSORED",
        }),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let detail = if said.is_empty() {
        "the server ended the game without a result".to_string()
    } else {
        format!("the server said {said}")
    };
    (winner, reason, detail)
}

/// The move text a player's USI move is sent as: the CSA word, when the move is legal; with
/// `comment` (the player's score from the mover's view and its expected line, first move the
/// one played or not) floodgate's comment follows after a comma (`+7776FU,'* 30 -3334FU`, see
/// [`engine::record::floodgate_comment`]).
pub fn move_line(pos: &Position, usi: &str, comment: Option<(Score, &[String])>) -> Option<String> {
    let mv = pos.parse_usi_move(usi).ok()?;
    let word = engine::record::csa_move(pos, mv)?;
    let Some((score, pv)) = comment else {
        return Some(word);
    };
    let mut after = pos.clone();
    after.play(mv);
    let pv = match pv.first() {
        Some(first) if first == usi => &pv[1..],
        _ => pv,
    };
    let line = engine::position::Replay::new(after.clone(), pv).play_while_legal();
    let comment = engine::record::floodgate_comment(&after, pos.side_to_move(), score, &line);
    Some(format!("{word},{comment}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    const SUMMARY: &str = "Protocol_Version:1.2
Protocol_Mode:Server
Format:Shogi 1.0
Declaration:Jishogi 1.1
Game_ID:20150505-CSA25-3-5-7
Name+:TANUKI
Name-:KITSUNE
Your_Turn:-
Rematch_On_Draw:NO
To_Move:+
Max_Moves:256
BEGIN Time
Time_Unit:1sec
Total_Time:600
Byoyomi:10
Least_Time_Per_Move:1
Increment:0
END Time
BEGIN Position
P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA * 
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI * 
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
P+
P-
+
+2726FU,T12
-3334FU,T6
END Position";

    #[test]
    fn a_summary_reads_with_its_clock_and_the_moves_already_played() {
        let s = GameSummary::parse(&lines(SUMMARY)).expect("summary");
        assert_eq!(s.game_id, "20150505-CSA25-3-5-7");
        assert_eq!(
            (s.names.sente.as_str(), s.names.gote.as_str()),
            ("TANUKI", "KITSUNE")
        );
        assert_eq!((s.you, s.to_move), (Color::Gote, Color::Sente));
        assert_eq!(s.max_moves, Some(256));
        let both = TimeRules {
            unit_ms: 1000,
            total: 600,
            byoyomi: 10,
            increment: 0,
            least: 1,
        };
        assert_eq!(s.time, ByColor::new_with(|_| both));
        assert_eq!(
            s.start_sfen,
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
        );
        assert_eq!(
            s.played,
            vec![
                ("2g2f".to_string(), Some(12)),
                ("3c3d".to_string(), Some(6))
            ]
        );
    }

    #[test]
    fn a_handicap_start_with_hands_and_gote_to_move_reads() {
        let text = "Game_ID:g1\nName+:a\nName-:b\nYour_Turn:+\nTo_Move:-\nBEGIN Time\nTime_Unit:1msec\nTotal_Time:0\nByoyomi:500\nIncrement:100\nEND Time\nBEGIN Position\nPI82HI22KA\nP+00HI\nP-00KA\n-\nEND Position";
        let s = GameSummary::parse(&lines(text)).expect("summary");
        assert_eq!(
            s.start_sfen,
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w Rb 1"
        );
        assert!(s.played.is_empty());
        assert_eq!(
            (
                s.time.gote.unit_ms,
                s.time.gote.byoyomi,
                s.time.gote.increment
            ),
            (1, 500, 100)
        );
        assert_eq!(s.max_moves, None);
    }

    #[test]
    fn a_bad_summary_names_its_line_or_key() {
        let text = SUMMARY.replace("Your_Turn:-", "Your_Turn:x");
        let e = GameSummary::parse(&lines(&text)).expect_err("bad turn");
        assert!(
            e.to_string().contains("line 9") && e.to_string().contains("Your_Turn:x"),
            "{e}"
        );
        let text = SUMMARY.replace("Game_ID:20150505-CSA25-3-5-7\n", "");
        let e = GameSummary::parse(&lines(&text)).expect_err("no id");
        assert_eq!(e, SummaryError::Missing { key: "Game_ID" });
        let text = SUMMARY.replace("+2726FU,T12", "+2725FU,T12");
        assert!(matches!(
            GameSummary::parse(&lines(&text)),
            Err(SummaryError::Position { .. })
        ));
    }

    #[test]
    fn server_lines_are_classified() {
        use ServerLine as L;
        assert_eq!(parse_server_line(""), L::Empty);
        assert_eq!(parse_server_line("LOGIN:bot OK"), L::LoginOk);
        assert_eq!(parse_server_line("LOGIN:incorrect"), L::LoginIncorrect);
        assert_eq!(parse_server_line("START:g-1"), L::Start("g-1".into()));
        assert_eq!(
            parse_server_line("REJECT:g-1 by bot"),
            L::Reject("g-1 by bot".into())
        );
        assert_eq!(
            parse_server_line("+7776FU,T5"),
            L::Move {
                word: "+7776FU".into(),
                units: Some(5)
            }
        );
        assert_eq!(
            parse_server_line("-3334FU,T0,'* 30 +2726FU"),
            L::Move {
                word: "-3334FU".into(),
                units: Some(0)
            }
        );
        assert_eq!(
            parse_server_line("%TORYO,T3"),
            L::Special {
                word: "%TORYO".into(),
                units: Some(3)
            }
        );
        assert_eq!(parse_server_line("#TIME_UP"), L::Ending(Ending::TimeUp));
        assert_eq!(
            parse_server_line("#OUTE_SENNICHITE"),
            L::Ending(Ending::OuteSennichite)
        );
        assert_eq!(
            parse_server_line("#CENSORED"),
            L::Outcome(Outcome::Censored)
        );
        assert_eq!(parse_server_line("#LOSE"), L::Outcome(Outcome::Lose));
        assert_eq!(parse_server_line("LOGOUT:completed"), L::LogoutCompleted);
    }

    #[test]
    fn the_password_is_masked_in_the_log() {
        assert_eq!(login_line("bot", "s3cret"), "LOGIN bot s3cret");
        assert_eq!(masked("LOGIN bot s3cret"), "LOGIN bot ********");
        assert_eq!(masked("+7776FU"), "+7776FU");
    }

    #[test]
    fn every_ending_has_its_verdict() {
        let v = |e, o, special, mated| {
            let (w, r, _) = verdict(Color::Sente, e, o, special, mated);
            (w, r)
        };
        use Ending as E;
        use Outcome as O;
        assert_eq!(
            v(Some(E::Resign), Some(O::Win), Some("%TORYO"), false),
            (Winner::Sente, Reason::Resign)
        );
        assert_eq!(
            v(Some(E::Resign), Some(O::Win), Some("%TORYO"), true),
            (Winner::Sente, Reason::Checkmate)
        );
        assert_eq!(
            v(Some(E::TimeUp), Some(O::Lose), None, false),
            (Winner::Gote, Reason::Timeout)
        );
        assert_eq!(
            v(Some(E::Sennichite), Some(O::Draw), None, false),
            (Winner::Draw, Reason::Repetition)
        );
        assert_eq!(
            v(Some(E::OuteSennichite), Some(O::Lose), None, false),
            (Winner::Gote, Reason::PerpetualCheck)
        );
        assert_eq!(
            v(Some(E::IllegalMove), Some(O::Win), None, false),
            (Winner::Sente, Reason::IllegalMove)
        );
        assert_eq!(
            v(Some(E::IllegalMove), Some(O::Lose), Some("%KACHI"), false),
            (Winner::Gote, Reason::IllegalImpasse)
        );
        assert_eq!(
            v(Some(E::Jishogi), Some(O::Win), Some("%KACHI"), false),
            (Winner::Sente, Reason::Impasse)
        );
        assert_eq!(
            v(Some(E::MaxMoves), Some(O::Censored), None, false),
            (Winner::Draw, Reason::MaxPlies)
        );
        assert_eq!(
            v(Some(E::Chudan), None, None, false),
            (Winner::Draw, Reason::Aborted)
        );
        // A dropped connection: no ending, no outcome.
        assert_eq!(v(None, None, None, false), (Winner::Draw, Reason::Aborted));
    }

    #[test]
    fn per_side_time_sections_give_each_side_its_own_clock() {
        let text = SUMMARY.replace(
            "BEGIN Time\nTime_Unit:1sec\nTotal_Time:600\nByoyomi:10\nLeast_Time_Per_Move:1\nIncrement:0\nEND Time",
            "BEGIN Time+\nTime_Unit:1sec\nTotal_Time:900\nIncrement:5\nEND Time+\nBEGIN Time-\nTime_Unit:1msec\nTotal_Time:300000\nByoyomi:10000\nEND Time-",
        );
        let s = GameSummary::parse(&lines(&text)).expect("summary");
        assert_eq!(
            s.time.map(|t| t.control()),
            ByColor {
                sente: Some(TimeControl {
                    main: Duration::from_secs(900),
                    byoyomi: Duration::ZERO,
                    increment: Duration::from_secs(5),
                }),
                gote: Some(TimeControl {
                    main: Duration::from_secs(300),
                    byoyomi: Duration::from_secs(10),
                    increment: Duration::ZERO,
                }),
            }
        );
        // Each side's `,T` times are in its own unit.
        assert_eq!(s.time.gote.duration(1500), Duration::from_millis(1500));
    }

    #[test]
    fn a_stop_watch_summary_is_refused_with_its_line() {
        let text = SUMMARY.replace("Time_Unit:1sec", "Time_Unit:1min");
        let e = GameSummary::parse(&lines(&text)).expect_err("stop watch");
        let e = e.to_string();
        assert!(
            e.contains("Time_Unit:1min") && e.contains("stop-watch") && e.contains("line 14"),
            "{e}"
        );
    }

    #[test]
    fn game_names_are_read_from_the_password_as_shogi_server_reads_them() {
        let name = |p: &str| GameName::from_password(p);
        assert_eq!(
            name("floodgate-300-10F,secret"),
            Some(GameName {
                name: "floodgate-300-10F".into(),
                side: None,
                stop_watch: false,
            })
        );
        assert_eq!(
            name("wcsc-900-0F-B,pw").map(|g| (g.name, g.side)),
            Some(("wcsc-900-0F".into(), Some(Color::Sente)))
        );
        assert_eq!(
            name("test-600-10-w").map(|g| (g.name, g.side)),
            Some(("test-600-10".into(), Some(Color::Gote)))
        );
        assert_eq!(name("sw-600-060,pw").map(|g| g.stop_watch), Some(true));
        // A bare game name is the whole password; no game name: the server's default game.
        assert_eq!(name("game-60-2").map(|g| g.name), Some("game-60-2".into()));
        assert_eq!(name("test,pw"), None);
        assert_eq!(name("secret"), None);
        assert_eq!(name("bad name-60-2,pw"), None);
    }

    #[test]
    fn a_move_line_carries_floodgates_comment_with_the_line_after_the_move() {
        let pos = Position::startpos();
        let pv: Vec<String> = ["7g7f", "3c3d", "2g2f"].map(String::from).to_vec();
        assert_eq!(
            move_line(&pos, "7g7f", Some((Score::Cp(30), &pv))).as_deref(),
            Some("+7776FU,'* 30 -3334FU +2726FU")
        );
        // A pv without the move played is the line after it; no comment: the move alone.
        assert_eq!(
            move_line(&pos, "7g7f", Some((Score::Cp(-5), &pv[1..2]))).as_deref(),
            Some("+7776FU,'* -5 -3334FU")
        );
        assert_eq!(move_line(&pos, "7g7f", None).as_deref(), Some("+7776FU"));
        assert_eq!(move_line(&pos, "7g7e", None), None);
    }

    #[test]
    fn the_time_section_is_the_one_clocks_control_in_server_units() {
        let time = TimeRules {
            unit_ms: 1000,
            total: 10,
            byoyomi: 3,
            increment: 0,
            least: 1,
        };
        assert_eq!(time.duration(4), Duration::from_secs(4));
        assert_eq!(
            time.control(),
            Some(TimeControl {
                main: Duration::from_secs(10),
                byoyomi: Duration::from_secs(3),
                increment: Duration::ZERO,
            })
        );
        let unlimited = TimeRules {
            total: 0,
            byoyomi: 0,
            ..time
        };
        assert_eq!(unlimited.control(), None);
    }
}
