//! `council-learn`: what is learned from a corpus of recorded games. `corpus` packs any mix of
//! inputs into the project's corpus file (USI position lines with a provenance header);
//! `candidates` learns seed 003's candidate-move model from the training side of the corpus's
//! seeded split and writes the model file; `similarity` learns seed 002's distance weights by
//! linear programming from FAR pairs of positions of different strategy families; `openings`
//! (the `council-openings` program) builds a balanced opening suite from the positions a corpus
//! reaches at one ply, spread by that distance; `export` writes training data (PackedSfenValue,
//! hcpe, plain text) from runs and corpora.
//!
//! A program room like `analyze/`: each subcommand is a module with a `run` from its options
//! to a typed report (or a typed error naming the file at fault); the binary parses flags,
//! calls `run` and prints the report's table. Reading corpora and the split are the vocabulary
//! layer's (`council_schema::corpus`); the model itself is the engine's (`engine::intuition`), so the
//! players that use it need nothing from here.

pub mod candidates;
pub mod corpus;
pub mod export;
pub mod openings;
pub mod similarity;

/// The command line as typed, for provenance headers: the program's file name, then the
/// arguments (those with spaces, or empty, in single quotes).
#[must_use]
pub fn command_line() -> String {
    let mut words: Vec<String> = std::env::args().collect();
    if let Some(first) = words.first_mut()
        && let Some(name) = std::path::Path::new(first.as_str()).file_name()
    {
        *first = name.to_string_lossy().into_owned();
    }
    words
        .iter()
        .map(|w| {
            if w.is_empty() || w.contains(char::is_whitespace) {
                format!("'{w}'")
            } else {
                w.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`, for provenance headers.
pub use council_schema::utc::utc_now;
