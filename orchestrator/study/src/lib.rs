//! Programs that study finished games: council-elo's rating report, council-analyze's analyses
//! of recorded games against theory, and council-learn's corpora and the candidate-move model
//! learned from them. They read run folders and corpora through the vocabulary
//! (`council-schema`) and run engines only as players (`council-players`).

pub mod analyze;
pub mod elo_report;
pub mod learn;
