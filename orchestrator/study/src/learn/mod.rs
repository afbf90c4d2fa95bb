//! `council-learn`: what is learned from a corpus of recorded games. `corpus` packs any mix of
//! inputs into the project's corpus file (USI position lines with a provenance header);
//! `candidates` learns seed 003's candidate-move model from the training side of the corpus's
//! seeded split and writes the model file; `similarity` learns seed 002's distance weights by
//! linear programming from FAR pairs of positions of different strategy families; `openings`
//! (the `council-openings` program) builds a balanced opening suite from the positions a corpus
//! reaches at one ply, spread by that distance.
//!
//! A program room like `analyze/`: each subcommand is a module with a `run` from its options
//! to a typed report (or a typed error naming the file at fault); the binary parses flags,
//! calls `run` and prints the report's table. Reading corpora and the split are the vocabulary
//! layer's (`council_schema::corpus`); the model itself is the engine's (`engine::intuition`), so the
//! players that use it need nothing from here.

pub mod candidates;
pub mod corpus;
pub mod openings;
pub mod similarity;

use std::time::{SystemTime, UNIX_EPOCH};

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
#[must_use]
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_text(secs)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar,
/// Howard Hinnant's days-to-civil algorithm).
fn utc_text(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_text_matches_known_dates() {
        assert_eq!(super::utc_text(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century leap year) 12:34:56.
        assert_eq!(super::utc_text(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(super::utc_text(1_798_761_599), "2026-12-31T23:59:59Z");
    }
}
