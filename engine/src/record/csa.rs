//! CSA records (V2.2, as floodgate and shogi-server write them), through rsshogi, with errors
//! that name the line.
//!
//! End markers written: %TORYO (resignation, and checkmate: the mated side resigns, as on
//! floodgate), %SENNICHITE, %KACHI, %JISHOGI (maximum plies), %ILLEGAL_MOVE, %TIME_UP,
//! %CHUDAN, and %+ILLEGAL_ACTION / %-ILLEGAL_ACTION naming the loser of a perpetual check or a
//! crash (with a `'*reason: <name>` comment so the reason survives a round trip).

use super::convert::{self, LineMap};
use super::model::{Format, GameRecord, RecordError};
use crate::notation::UsiMove;
use crate::types::{PieceKind, Square};
use rsshogi::records::Record;
use rsshogi::records::formats::csa::{self as rs_csa, CsaError};

pub(super) fn write(rec: &GameRecord) -> Result<String, RecordError> {
    let out = convert::to_rs(rec, Format::Csa)?;
    let text = rs_csa::export_csa(&out).map_err(|e| RecordError::Unwritable {
        format: Format::Csa,
        problem: e.to_string(),
    })?;
    // The writer after the version line, which readers look for first: a plain `'` comment,
    // which readers skip (a `'*` one would be read as the game's comment).
    Ok(
        match (convert::written_by_line(rec), text.split_once('\n')) {
            (Some(by), Some((version, rest))) => format!("{version}\n'{by}\n{rest}"),
            _ => text,
        },
    )
}

pub(super) fn read(text: &str) -> Result<GameRecord, RecordError> {
    let map = line_map(text);
    match rs_csa::parse_csa_str(text) {
        Ok(source) => convert::from_rs(&source, &map),
        Err(error) => Err(explain(&error, &map)),
    }
}

fn is_move(statement: &str) -> bool {
    let b = statement.as_bytes();
    b.len() == 7
        && matches!(b[0], b'+' | b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_uppercase)
}

fn line_map(text: &str) -> LineMap<'_> {
    let mut map = LineMap::new(Format::Csa, text);
    for (i, line) in map.lines.clone().iter().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        if trimmed == "/" {
            break; // only the first game of a multi-game file is read
        }
        if trimmed.starts_with('\'') {
            continue;
        }
        if map.start_line == 0 && trimmed.starts_with('P') {
            map.start_line = line_no;
        }
        for statement in trimmed.split(',').map(str::trim) {
            if is_move(statement) {
                map.move_lines.push(line_no);
            } else if statement.starts_with('%') && map.end_line.is_none() {
                map.end_line = Some(line_no);
            }
        }
    }
    map
}

/// Turns rsshogi's complaint into one that names the line (and, for an illegal move, why).
fn explain(error: &CsaError, map: &LineMap<'_>) -> RecordError {
    match error {
        CsaError::Sfen(e) => map.syntax(map.start_line.max(1), format!("start position: {e}")),
        CsaError::InvalidLine(t) => map.syntax(map.line_of(t), "not a CSA line"),
        CsaError::InvalidBoard(t) => {
            map.syntax(map.line_of(t), "not a CSA board line (P1..P9, PI, P+, P-)")
        }
        CsaError::InvalidMove(t) => map.syntax(map.line_of(t), "not a CSA move (e.g. +7776FU)"),
        CsaError::MoveSideMismatch(t) => {
            map.syntax(map.line_of(t), "the sign does not match the side to move")
        }
        CsaError::IllegalMove { index } => illegal_move(*index, map),
        CsaError::MissingEndMarker => map.syntax(map.lines.len(), "missing end marker"),
    }
}

/// Replays the moves before the illegal one to say which rule it breaks.
fn illegal_move(index: usize, map: &LineMap<'_>) -> RecordError {
    convert::explain_illegal_move(index, map, read_with_map, |text, pos| {
        let word = text.split(',').map(str::trim).find(|s| is_move(s))?;
        usi_of(word, |sq| pos.piece_at(sq).map(|p| p.kind))
    })
}

/// `text` as a record with its line map, if it reads.
fn read_with_map(text: &str) -> Option<(Record, LineMap<'_>)> {
    Some((rs_csa::parse_csa_str(text).ok()?, line_map(text)))
}

/// What a CSA move word (`+7776FU`, `+0045KA`, `+8822UM`) means in USI terms, given what stands
/// on its origin square.
fn usi_of(word: &str, piece_on: impl Fn(Square) -> Option<PieceKind>) -> Option<UsiMove> {
    let b = word.as_bytes();
    let digit = |i: usize| b[i] - b'0';
    let to = Square::new(digit(3), digit(4))?;
    let kind = csa_kind(&word[5..7])?;
    if digit(1) == 0 && digit(2) == 0 {
        return Some(UsiMove::Drop { kind, to });
    }
    let from = Square::new(digit(1), digit(2))?;
    let promote = kind.is_promoted() && piece_on(from).is_some_and(|k| !k.is_promoted());
    Some(UsiMove::Normal { from, to, promote })
}

/// A CSA move word as USI move text in `pos` (syntax and piece codes only, see
/// [`super::csa_move_to_usi`]).
pub(super) fn move_to_usi(pos: &crate::position::Position, word: &str) -> Option<String> {
    let sign = match pos.side_to_move() {
        crate::types::Color::Sente => b'+',
        crate::types::Color::Gote => b'-',
    };
    if !is_move(word) || word.as_bytes()[0] != sign {
        return None;
    }
    let usi = usi_of(word, |sq| pos.piece_at(sq).map(|p| p.kind))?;
    if let UsiMove::Normal { from, promote, .. } = usi {
        // The code names the piece after the move: the mover's piece, or its promotion.
        let piece = pos
            .piece_at(from)
            .filter(|p| p.color == pos.side_to_move())?;
        let after = if promote {
            piece.kind.promoted()?
        } else {
            piece.kind
        };
        if Some(after) != csa_kind(&word[5..7]) {
            return None;
        }
    }
    Some(usi.to_string())
}

fn csa_kind(code: &str) -> Option<PieceKind> {
    Some(match code {
        "FU" => PieceKind::Pawn,
        "KY" => PieceKind::Lance,
        "KE" => PieceKind::Knight,
        "GI" => PieceKind::Silver,
        "KI" => PieceKind::Gold,
        "KA" => PieceKind::Bishop,
        "HI" => PieceKind::Rook,
        "OU" => PieceKind::King,
        "TO" => PieceKind::ProPawn,
        "NY" => PieceKind::ProLance,
        "NK" => PieceKind::ProKnight,
        "NG" => PieceKind::ProSilver,
        "UM" => PieceKind::Horse,
        "RY" => PieceKind::Dragon,
        _ => return None,
    })
}
