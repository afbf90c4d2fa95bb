//! The KIF writer's moves: rsshogi's `export_kif` writes the header (names, event, date, clocks,
//! `手合割` or the start's board, the moves' heading) from the record without its moves, and this
//! module the numbered move lines with their times, the score and comment lines, the end and the
//! closing summary, in rsshogi's own bytes, walking one position move by move.
//!
//! Why not `export_kif` for the whole game: it keeps a copy of the position for every ply (for
//! variations, which our records never have), each with its own state chunks of 20 KB or more,
//! so writing one 150-ply game took 3 to 5 MB; and rsshogi exposes no part of its move-line
//! writer (move text, times, end words) to call instead. Its output stays the reference: the
//! tests compare this writer's text with `export_kif`'s on every kind of move and end.

use std::fmt::Write as _;

use super::convert;
use super::kif_moves;
use super::model::{Format, GameRecord, RecordError};
use crate::position::Handicap;
use crate::types::{ByColor, Color};
use rsshogi::records::formats::kif as rs_kif;
use rsshogi::records::{SpecialMove, SpecialMoveEntry};

/// The record as KIF text (before the handicap labels and the writer's line).
pub(super) fn write(rec: &GameRecord) -> Result<String, RecordError> {
    let unwritable = |problem: String| RecordError::Unwritable {
        format: Format::Kif,
        problem,
    };
    let (head, end) = convert::head(rec, Format::Kif)?;
    let mut out = rs_kif::export_kif(&head).map_err(|e| unwritable(e.to_string()))?;
    let mut pos = rec.start().clone();
    let mut totals = ByColor::<u32>::default();
    let mut last_to = None;
    for (index, m) in rec.moves().iter().enumerate() {
        let mover = pos.side_to_move();
        let text = kif_moves::record_move_text(&pos, m.mv, last_to == Some(m.mv.to()))
            .ok_or_else(|| unwritable(format!("move {}: no piece on its origin", index + 1)))?;
        let elapsed = convert::elapsed_ms(m).unwrap_or(0);
        totals[mover] = totals[mover].saturating_add(elapsed);
        move_line(&mut out, index + 1, &text, elapsed, totals[mover]);
        pos.play(m.mv);
        last_to = Some(m.mv.to());
        if let Some(engine) = &m.engine {
            // The mover's score, written from sente's view.
            let value = convert::score_value(engine.score);
            let sente = if mover == Color::Gote { -value } else { value };
            let _ = writeln!(out, "**評価値={sente}");
        }
        if let Some(comment) = convert::kif_comment(m, &pos, Format::Kif) {
            for line in comment.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let _ = writeln!(out, "*{line}");
            }
        }
    }
    if let Some((entry, _)) = end {
        let side = pos.side_to_move();
        let plies = rec.moves().len();
        let handicap = rec.handicap().is_some_and(|h| h != Handicap::Even);
        let (word, summary) = end_lines(&entry, side, plies, handicap)
            .ok_or_else(|| unwritable(format!("no KIF words for the end {:?}", entry.kind())))?;
        // rsshogi sets the end off by an empty line.
        out.push('\n');
        move_line(&mut out, plies + 1, word, 0, totals[side]);
        out.push_str(&summary);
        out.push('\n');
    }
    Ok(out)
}

/// `   7 ７六歩(77)   ( 0:03/00:00:05)`: the number, the move padded to 12 columns (a wide
/// character counts two), its time and its side's total.
fn move_line(out: &mut String, number: usize, text: &str, elapsed_ms: u32, total_ms: u32) {
    let width: usize = text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
    let pad = 12usize.saturating_sub(width);
    let (s, t) = (elapsed_ms / 1000, total_ms / 1000);
    let _ = writeln!(
        out,
        "{number:>4} {text}{:pad$} ({:>2}:{:02}/{:02}:{:02}:{:02})",
        "",
        s / 60,
        s % 60,
        t / 3600,
        t % 3600 / 60,
        t % 60
    );
}

/// The end's word on its numbered line and the closing line (`まで77手で先手の勝ち`), `side`
/// being the side to move after `plies`, as rsshogi writes them; `None` for an end
/// `convert::head` never makes.
fn end_lines(
    end: &SpecialMoveEntry,
    side: Color,
    plies: usize,
    handicap: bool,
) -> Option<(&'static str, String)> {
    let name = |c: Color| match (c, handicap) {
        (Color::Sente, false) => "先手",
        (Color::Gote, false) => "後手",
        (Color::Sente, true) => "下手",
        (Color::Gote, true) => "上手",
    };
    let winner = end.result().winner_color().map(Color::from_rs);
    let (next, last) = (name(side), name(side.opposite()));
    let winner_or = |fallback| winner.map_or(fallback, name);
    Some(match end.kind() {
        SpecialMove::Resign => ("投了", format!("まで{plies}手で{}の勝ち", winner_or(last))),
        SpecialMove::Interrupt => ("中断", format!("まで{plies}手で中断")),
        SpecialMove::MaxMoves => ("最大手数", format!("まで{plies}手で最大手数")),
        SpecialMove::RepetitionDraw => ("千日手", format!("まで{plies}手で千日手")),
        SpecialMove::Mate => ("詰み", format!("まで{plies}手で詰み")),
        SpecialMove::Timeout => (
            "切れ負け",
            format!("まで{plies}手で時間切れにより{}の勝ち", winner_or(last)),
        ),
        SpecialMove::WinByDeclaration => (
            "入玉勝ち",
            format!("まで{plies}手で{}の入玉勝ち", winner_or(next)),
        ),
        SpecialMove::WinByIllegalMove => (
            if winner == Some(side.opposite()) {
                "反則負け"
            } else {
                "反則勝ち"
            },
            format!("まで{plies}手で{}の反則勝ち", winner_or(next)),
        ),
        SpecialMove::LoseByIllegalMove => (
            if winner == Some(side) {
                "反則勝ち"
            } else {
                "反則負け"
            },
            format!(
                "まで{plies}手で{}の反則負け",
                winner.map_or(next, |w| name(w.opposite()))
            ),
        ),
        _ => return None,
    })
}
