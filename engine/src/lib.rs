//! The council's own shogi engine: rules (a small facade over rsshogi, so the rest of the
//! workspace never sees rsshogi types), records, search, evaluation and the USI front end; and
//! the position knowledge learned or read from records: candidate moves (`intuition`, seed
//! 003), position similarity (`similarity`, seed 002) and strategy labels (`strategy`); and the
//! data the field exchanges: YaneuraOu opening books (`book`) and training records (`training`).

pub mod book;
pub mod clock;
pub mod eval;
pub mod intuition;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod search;
pub mod similarity;
pub mod strategy;
pub mod training;
pub mod types;
pub mod usi;
