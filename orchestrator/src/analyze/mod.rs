//! `council-analyze`: recorded games held against theory. The reference engine's view of every
//! move (`moves`), intrinsic ratings from it (`ir`, `calibrate-ir`), and the random-walk model of
//! game length fitted to a run (`game-length`), and the council model held against a run's
//! councils (`council`).
//!
//! A program room beside `runner/` and `elo_report/`: it reads what council-match wrote (results
//! lines) and uses the simulator's models (`sim`) for its fits; nothing below it depends on it.

pub mod analysis;
pub mod complexity;
pub mod council;
pub mod game_length;
pub mod ir;
pub mod ir_svg;
pub mod moves;
pub mod verdicts;
