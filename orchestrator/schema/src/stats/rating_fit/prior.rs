//! The regularising prior: virtual draws of each player against the pool average (and of each
//! optional parameter against 0). Used when asked for, or, when not asked for, only when the games
//! alone give no finite estimates (one draw each, with a note).

use super::RatingsError;
use super::design::{Layout, Row, push_rating, virtual_draws};

/// Virtual draws per player: `asked` if given, else 0 when `separation` is empty, else 1 with a
/// note. An error (with the reasons) when 0 was asked for but no finite estimate exists.
pub(super) fn prior_draws(
    asked: Option<f64>,
    separation: &[String],
    notes: &mut Vec<String>,
) -> Result<f64, RatingsError> {
    match asked {
        Some(prior) if prior == 0.0 && !separation.is_empty() => {
            Err(RatingsError::NoFiniteEstimate(separation.join("; ")))
        }
        Some(prior) => Ok(prior),
        None if separation.is_empty() => Ok(0.0),
        None => {
            notes.push(format!(
                "the games alone give no finite maximum-likelihood ratings ({}); one virtual draw per player against the pool average (and per parameter against 0) was added",
                separation.join("; ")
            ));
            Ok(1.0)
        }
    }
}

/// The virtual games of `prior` draws each (none when `prior` is 0).
pub(super) fn prior_rows(layout: &Layout, prior: f64) -> Vec<Row> {
    let mut rows = Vec::new();
    if prior > 0.0 {
        let n = layout.players;
        // Player i drawing against the pool average: x = e_i - mean of all e_j.
        for i in 0..n {
            let mut x = Vec::new();
            for j in 0..n {
                let w = if i == j { 1.0 } else { 0.0 } - 1.0 / n as f64;
                push_rating(&mut x, layout.rating_col(j), w);
            }
            rows.push(virtual_draws(x, prior));
        }
        for c in layout.rating_params()..layout.dim() {
            rows.push(virtual_draws(vec![(c, 1.0)], prior));
        }
    }
    rows
}
