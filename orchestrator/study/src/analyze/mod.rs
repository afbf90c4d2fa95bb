//! `council-analyze`: recorded games held against theory. The reference engine's view of every
//! move (`moves`), intrinsic ratings from it (`ir`, `calibrate_ir`), the random-walk model of
//! game length fitted to a run (`game_length`), seed 004's whole-game indicators (`complexity`)
//! and its models of famous games and resignation (`famous`, `resign`), and the council model
//! held against a run's councils (`council`), and seed 003's candidate model held against the
//! test side of its corpus (`candidates`).
//!
//! Each subcommand is a module with a `run` from its options to a typed report (or a typed error
//! naming the file, line or flag at fault) and the report's [`Output`]: its table, and its JSON.
//! The binary only parses flags, calls `run` and prints. The estimators the fits use are
//! `council_schema::stats`'s and the simulator's (`sim`); what is here is the domain: positions, games,
//! data rules and reports.
//!
//! A program room beside `elo_report/`: it reads what council-match wrote (results lines) and uses the simulator's models (`sim`) for its fits; nothing below it depends on it.

use serde::Serialize;

pub mod analysis;
pub mod calibrate_ir;
pub mod candidates;
pub mod complexity;
pub mod council;
pub mod csv;
pub mod famous;
pub mod game_length;
pub mod game_length_svg;
pub mod ir;
pub mod ir_svg;
pub mod moves;
pub mod resign;
pub mod similarity;

/// What a subcommand prints: its readable table (whole lines, each ending in a newline) and
/// its JSON (`--format json`, one document).
pub trait Output: Serialize {
    fn table(&self) -> String;

    /// Pretty JSON, fields in the report's order.
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }
}

/// The lines under a readable table: what its columns mean and, where the table lacks something,
/// what to run to get it. Each text is one line of the legend (it may be long: terminals wrap).
pub(crate) fn legend(lines: &[&str]) -> String {
    let mut out = String::from("\n");
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Pretty JSON with every object's keys in alphabetical order, at every level: the form
/// `ir`, `complexity`, `resign` and `council` have always printed (scripts compare it).
pub(crate) fn sorted_json<T: Serialize>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::to_value(value)?)
}
