//! KIF board diagrams (BOD, the 局面図 Japanese GUIs write and blogs paste): the hands of
//! gote (`後手の持駒：角 金 歩四`, or `上手の持駒` in handicap games), the file numbers, the
//! 9x9 grid between `+----+` borders with `|` at both ends, each square ` ・` (empty), ` 歩`
//! (sente) or `v歩` (gote) followed by the rank kanji, sente's hands, then optionally
//! `手数＝74  △５三飛(54)  まで` and `後手番` (gote to move; sente otherwise).
//!
//! rsshogi (pinned in the workspace) reads and writes these diagrams inside KIF: its reader
//! builds the position, its writer (`export_kif`, `board_to_bod`) draws it. This module adds
//! what that reader leaves out, so that a diagram is never misread in silence:
//! - [`normalize_line`]: the spellings found in pasted diagrams that rsshogi does not take:
//!   file numbers in ASCII (`  9 8 7 6 5 4 3 2 1`), and the `手数＝` line, which rsshogi
//!   would take for the start of the move list (so that a `後手番` under it were lost).
//! - [`check`]: every diagram line is what the format allows, else an error naming the line
//!   and what is wrong with it (rsshogi skips unknown pieces in hand and reads a short grid).
//!
//! The `手数＝N` move count is informational only: the record's moves are numbered from 1.

use super::convert::LineMap;
use super::model::RecordError;

/// The file-number line above the grid, as rsshogi recognises it.
const FILES: &str = "  ９ ８ ７ ６ ５ ４ ３ ２ １";
const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const BOARD_PIECES: &str = "歩香桂銀金角飛玉王と杏圭全馬龍竜";
const HAND_PIECES: &str = "歩香桂銀金角飛";
const NUMBERS: &str = "一二三四五六七八九十";

/// The file-number line, in full-width or ASCII digits, with any spacing.
fn is_files_line(line: &str) -> bool {
    let digits: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    digits == "987654321" || digits == "９８７６５４３２１"
}

/// The line as rsshogi should read it (see the module doc); `None` to keep it as it is.
pub(super) fn normalize_line(line: &str) -> Option<&'static str> {
    let trimmed = line.trim();
    if is_files_line(trimmed) {
        Some(FILES)
    } else if trimmed.starts_with("手数＝") || trimmed.starts_with("手数=") {
        Some("")
    } else {
        None
    }
}

/// The hands a `先手の持駒：` / `後手の持駒：` (or 下手/上手) line holds, if it is one.
fn hand_text(line: &str) -> Option<&str> {
    ["先手の持駒", "後手の持駒", "下手の持駒", "上手の持駒"]
        .iter()
        .find_map(|key| line.strip_prefix(key))
        .map(|rest| rest.trim_start_matches(['：', ':']).trim())
}

/// Checks the diagram lines of a KIF header (everything above the move list; `map.lines` is
/// the prepared text, numbered as the file is).
pub(super) fn check(map: &LineMap<'_>) -> Result<(), RecordError> {
    let lines = &map.lines;
    let mut i = 0;
    let mut grid_seen = false;
    while i < lines.len() {
        let line = lines[i].trim();
        let line_no = i + 1;
        if line.starts_with("手数") || line.starts_with(|c: char| c.is_ascii_digit()) {
            break; // the move list
        }
        if let Some(hands) = hand_text(line) {
            check_hands(hands).map_err(|problem| map.syntax(line_no, problem))?;
        } else if is_files_line(line) {
            i = check_grid(map, i + 1)?;
            grid_seen = true;
            continue;
        } else if !grid_seen && (line.starts_with('|') || line.starts_with("+-")) {
            return Err(map.syntax(
                line_no,
                "a board diagram line without the file numbers `９ ８ ７ ６ ５ ４ ３ ２ １` above \
                 the grid",
            ));
        }
        i += 1;
    }
    Ok(())
}

/// The grid from its top border at index `start`; returns the index after the bottom border.
fn check_grid(map: &LineMap<'_>, start: usize) -> Result<usize, RecordError> {
    let border = |i: usize, which: &str| -> Result<(), RecordError> {
        match map.lines.get(i).map(|l| l.trim()) {
            Some(l) if l.starts_with('+') && l.ends_with('+') && l.contains('-') => Ok(()),
            Some(_) => Err(map.syntax(
                i + 1,
                format!("the {which} border of the board diagram (`+---------------------------+`) expected"),
            )),
            None => Err(map.syntax(
                map.lines.len(),
                format!("the board diagram ends before its {which} border"),
            )),
        }
    };
    border(start, "top")?;
    for (rank, row_index) in (start + 1..start + 10).enumerate() {
        let Some(row) = map.lines.get(row_index) else {
            return Err(map.syntax(
                map.lines.len(),
                format!("the board diagram ends after {rank} of its 9 rows"),
            ));
        };
        check_row(row.trim(), rank).map_err(|problem| map.syntax(row_index + 1, problem))?;
    }
    border(start + 10, "bottom")?;
    Ok(start + 11)
}

/// One grid row (`rank` 0-based): `|` + nine squares of two characters + `|` + rank kanji.
fn check_row(row: &str, rank: usize) -> Result<(), String> {
    let which = format!("board row {} ({})", rank + 1, RANKS[rank]);
    let Some(body) = row.strip_prefix('|') else {
        return Err(format!("{which}: does not start with `|`"));
    };
    let Some((cells, after)) = body.split_once('|') else {
        return Err(format!("{which}: no closing `|`"));
    };
    let after = after.trim();
    if !after.is_empty() && !after.starts_with(RANKS[rank]) {
        return Err(format!(
            "{which}: rank `{after}` after the grid, `{}` expected",
            RANKS[rank]
        ));
    }
    let cells: Vec<char> = cells.chars().collect();
    if cells.len() != 18 {
        return Err(format!(
            "{which}: {} characters between the `|` borders, 18 expected (nine squares, each \
             ` ・`, ` 歩` for sente or `v歩` for gote)",
            cells.len()
        ));
    }
    for (file_index, cell) in cells.chunks_exact(2).enumerate() {
        let square = format!("{}{}", 9 - file_index, RANKS[rank]);
        let (mark, piece) = (cell[0], cell[1]);
        if piece == '・' {
            if mark != ' ' {
                return Err(format!(
                    "{which}: square {square}: `{mark}` before an empty square"
                ));
            }
            continue;
        }
        if !BOARD_PIECES.contains(piece) {
            return Err(format!(
                "{which}: square {square}: `{piece}` is not a piece"
            ));
        }
        if mark != ' ' && mark != 'v' {
            return Err(format!(
                "{which}: square {square}: `{mark}{piece}`: a piece is marked ` ` (sente) or `v` (gote)"
            ));
        }
    }
    Ok(())
}

/// A hands value: `なし`, or pieces (`金`, `歩三`, `歩十八`) separated by spaces.
fn check_hands(text: &str) -> Result<(), String> {
    if text.is_empty() || text == "なし" {
        return Ok(());
    }
    for item in text.split([' ', '　']).filter(|s| !s.is_empty()) {
        let mut chars = item.chars();
        let piece = chars.next().unwrap_or(' ');
        if !HAND_PIECES.contains(piece) {
            return Err(format!(
                "pieces in hand: `{item}`: `{piece}` is not a piece that can be held"
            ));
        }
        let count: String = chars.collect();
        if !count.chars().all(|c| NUMBERS.contains(c)) {
            return Err(format!(
                "pieces in hand: `{item}`: the count `{count}` is not a kanji number (二 .. 十八)"
            ));
        }
    }
    Ok(())
}
