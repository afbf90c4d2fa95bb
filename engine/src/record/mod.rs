//! Game records: one game (start position, players, moves with optional time, comment and
//! engine score, and how it ended), read from and written to CSA and KIF.
//!
//! Invariants: the start position is a valid position and every move is legal in turn (a
//! `GameRecord` can only be built by playing legal moves on a `Position`, or by reading a file
//! whose moves we replayed). Text work (CSA V2.2, KIF) is rsshogi's `records` feature, but for
//! the KIF writer's move lines (`kif_write`: rsshogi's bytes from one position walked move by
//! move, where its `export_kif` keeps a position per ply); this module adds what the council
//! needs on top: checked legality with our rules, errors that name the line, and one
//! end-of-game vocabulary (`EndReason`) shared with `results.jsonl`.
//!
//! Engine scores are kept from the mover's point of view; both file formats write them from
//! sente's point of view (floodgate's `'** <score> <pv>` and KIF's `**評価値=`), with a mate
//! in n plies written as ±(32000 − n) as YaneuraOu does.

mod bod;
mod convert;
mod csa;
mod kif;
mod kif_moves;
mod kif_write;
mod model;
mod shift_jis;

pub use model::{
    Annotations, EndReason, EngineComment, Format, GameEnd, GameRecord, RecordError, RecordedMove,
};

use std::borrow::Cow;
use std::path::Path;

impl GameRecord {
    /// Reads a CSA record (V2.x; main line only).
    ///
    /// # Errors
    /// [`RecordError`] naming the line and what is wrong with it.
    pub fn read_csa(text: &str) -> Result<Self, RecordError> {
        csa::read(text)
    }

    /// Writes the record as CSA V2.2.
    ///
    /// # Errors
    /// [`RecordError::Unwritable`] when the end contradicts its winner (e.g. a resignation won
    /// by the side that resigned) in a way CSA cannot express.
    pub fn to_csa(&self) -> Result<String, RecordError> {
        csa::write(self)
    }

    /// Reads a KIF record (main line only; variations are skipped).
    ///
    /// # Errors
    /// [`RecordError`] naming the line and what is wrong with it.
    pub fn read_kif(text: &str) -> Result<Self, RecordError> {
        kif::read(text)
    }

    /// Reads a KIF record from a file's bytes: UTF-8 (with or without a byte-order mark, as
    /// `.kifu` files are), else Shift_JIS / CP932 (as `.kif` files from Japanese GUIs are).
    ///
    /// # Errors
    /// [`RecordError::Encoding`] naming the line and byte offset of bytes that are neither,
    /// else as [`Self::read_kif`].
    pub fn from_kif_bytes(bytes: &[u8]) -> Result<Self, RecordError> {
        kif::read(&decode(bytes, Format::Kif)?)
    }

    /// Reads a CSA record from a file's bytes, decoded as [`Self::from_kif_bytes`] does.
    ///
    /// # Errors
    /// As [`Self::from_kif_bytes`].
    pub fn from_csa_bytes(bytes: &[u8]) -> Result<Self, RecordError> {
        csa::read(&decode(bytes, Format::Csa)?)
    }

    /// Reads a record file: `.csa` as CSA, `.kif` and `.kifu` as KIF (case-insensitive), in
    /// either encoding (see [`Self::from_kif_bytes`]).
    ///
    /// # Errors
    /// [`RecordError::Io`] if it cannot be read or has another extension;
    /// [`RecordError::InFile`] (naming the file) around any problem in its content.
    pub fn read_file(path: impl AsRef<Path>) -> Result<Self, RecordError> {
        let path = path.as_ref();
        let io = |problem: String| RecordError::Io {
            path: path.to_path_buf(),
            problem,
        };
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let read: fn(&[u8]) -> Result<Self, RecordError> = match ext.as_deref() {
            Some("csa") => Self::from_csa_bytes,
            Some("kif" | "kifu") => Self::from_kif_bytes,
            _ => return Err(io("not a record file (.csa, .kif or .kifu)".into())),
        };
        let bytes = std::fs::read(path).map_err(|e| io(e.to_string()))?;
        read(&bytes).map_err(|error| RecordError::InFile {
            path: path.to_path_buf(),
            error: Box::new(error),
        })
    }

    /// Writes the record as KIF (UTF-8, the default; handicap games with `上手`/`下手` labels).
    ///
    /// # Errors
    /// As [`Self::to_csa`].
    pub fn to_kif(&self) -> Result<String, RecordError> {
        kif::write(self)
    }

    /// Writes the record as KIF in Shift_JIS (CP932), as `.kif` files for Japanese GUIs are.
    ///
    /// # Errors
    /// As [`Self::to_kif`], and [`RecordError::Unwritable`] naming the first character (in a
    /// name or comment) that Shift_JIS cannot encode.
    pub fn to_kif_shift_jis(&self) -> Result<Vec<u8>, RecordError> {
        shift_jis::encode(&self.to_kif()?).map_err(|c| RecordError::Unwritable {
            format: Format::Kif,
            problem: format!("`{c}` (U+{:04X}) has no Shift_JIS code", u32::from(c)),
        })
    }
}

/// `pos` as a KIF board diagram (BOD: gote's hands, the grid, sente's hands, and `後手番`
/// when gote is to move), drawn by rsshogi's `board_to_bod` in the layout cshogi and the GUIs
/// use. [`GameRecord::read_kif`] reads such a diagram back, bare or at the head of a KIF.
#[must_use]
pub fn board_diagram(pos: &crate::position::Position) -> String {
    rsshogi::records::formats::kif::board_to_bod(pos.raw())
}

/// One CSA move word (`+7776FU`, `-0055KA`, `+8822UM`) as USI move text (`7g7f`, `B*5e`,
/// `8b2b+`) in `pos`: a promoted piece code on an unpromoted piece is a promotion. `None` when
/// the word is not a CSA move, its sign is not the side to move, or its piece code does not
/// name the piece on its origin square (or that piece promoted). Legality is not checked here:
/// the caller judges the USI move (`Position::parse_usi_move`), as the arbiter does.
#[must_use]
pub fn csa_move_to_usi(pos: &crate::position::Position, word: &str) -> Option<String> {
    csa::move_to_usi(pos, word)
}

/// A legal move of `pos` as a CSA move word (`+7776FU`); `None` when it is not legal there.
#[must_use]
pub fn csa_move(pos: &crate::position::Position, mv: crate::types::Move) -> Option<String> {
    Some(convert::csa_moves(pos, &[mv])).filter(|w| !w.is_empty())
}

/// Floodgate's comment on a move as a client sends it after the move and a comma
/// (`+7776FU,'* 30 -3334FU +2726FU`): `'* <score> <pv>`, where `after` is the position after
/// the move, `mover` the side that played it, `score` its score from the mover's view and `pv`
/// the line expected after it. The score is written as this crate's CSA records write `'**`
/// lines (sente's view, a mate in n plies as ±(32000 − n)), so a server's record of the comment
/// reads back as ours; the pv as far as it is legal from `after`.
#[must_use]
pub fn floodgate_comment(
    after: &crate::position::Position,
    mover: crate::types::Color,
    score: crate::types::Score,
    pv: &[crate::types::Move],
) -> String {
    let value = convert::score_value(score);
    let value = if mover == crate::types::Color::Gote {
        -value
    } else {
        value
    };
    let moves = convert::csa_moves(after, pv);
    if moves.is_empty() {
        format!("'* {value}")
    } else {
        format!("'* {value} {moves}")
    }
}

/// A legal move of `pos` in KIF notation, as our records' `**読み筋=` lines and Kifu for
/// Windows write it: `７六歩(77)`, `同　銀(31)` (on the square of `pos`'s last move),
/// `２二角成(88)`, `２三銀不成(34)` (a declined promotion, which the KIF writer's move lines
/// leave bare), `４五角打`; without the side's mark (▲/△). `None` when no piece of `pos`
/// stands on its origin (a legal move always has one).
#[must_use]
pub fn kif_move(pos: &crate::position::Position, mv: crate::types::Move) -> Option<String> {
    kif_moves::move_text(pos, mv)
}

/// A record file's text: UTF-8 (a leading byte-order mark dropped), else Shift_JIS (CP932,
/// as WHATWG's Shift_JIS decoder reads it).
fn decode(bytes: &[u8], format: Format) -> Result<Cow<'_, str>, RecordError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(Cow::Borrowed(text));
    }
    let mut decoder = encoding_rs::SHIFT_JIS.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(bytes.len() * 3 / 2 + 16);
    let mut done = 0;
    loop {
        let (result, read) =
            decoder.decode_to_string_without_replacement(&bytes[done..], &mut out, true);
        done += read;
        match result {
            encoding_rs::DecoderResult::InputEmpty => return Ok(Cow::Owned(out)),
            encoding_rs::DecoderResult::OutputFull => out.reserve(bytes.len() - done + 16),
            encoding_rs::DecoderResult::Malformed(bad, extra) => {
                let offset = done.saturating_sub(usize::from(bad) + usize::from(extra));
                let end = (offset + usize::from(bad).max(1)).min(bytes.len());
                let line = 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count();
                let bytes = bytes[offset..end]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                return Err(RecordError::Encoding {
                    format,
                    line,
                    offset,
                    bytes,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
