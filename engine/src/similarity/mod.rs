//! Position similarity (seed 002, Satoh, Matsubara, Shinohara, Kayama; models.md section 11):
//! a position as per-piece counts ([`attributes`]) over the board's regions ([`regions`]), the
//! weighted distance between two such vectors, and the nearest neighbour under it.
//!
//! Pure: learning the weights (a linear program over FAR pairs) belongs to the orchestrator's
//! learner; this module gives the vectors and the distance both the learner and the openings
//! builder measure with.

pub mod attributes;
pub mod regions;

pub use attributes::{Grouping, UnknownGrouping, attributes, describe, group, raw, swapped_index};

/// The seed's distance `Σ_i W_i (A_i − B_i)²` between two attribute vectors.
///
/// # Panics
/// If the three slices differ in length.
#[must_use]
pub fn distance(weights: &[f64], a: &[u32], b: &[u32]) -> f64 {
    assert!(
        weights.len() == a.len() && a.len() == b.len(),
        "distance: {} weights for vectors of {} and {}",
        weights.len(),
        a.len(),
        b.len()
    );
    weights
        .iter()
        .zip(a.iter().zip(b))
        .map(|(w, (&x, &y))| {
            let d = f64::from(x) - f64::from(y);
            w * d * d
        })
        .sum()
}

/// The index of the vector of `others` nearest to `query` (ties to the lowest index), `None`
/// when `others` is empty. Leave-one-out evaluation passes the others without the query.
#[must_use]
pub fn nearest<'a>(
    weights: &[f64],
    query: &[u32],
    others: impl IntoIterator<Item = &'a [u32]>,
) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, other) in others.into_iter().enumerate() {
        let d = distance(weights, query, other);
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((i, d));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_the_weighted_sum_of_squares_and_nearest_takes_the_first_of_ties() {
        let w = [1.0, 0.5, 0.0];
        assert_eq!(distance(&w, &[1, 2, 3], &[3, 0, 100]), 4.0 + 2.0);
        let q: &[u32] = &[0, 0, 0];
        let others: Vec<&[u32]> = vec![&[2, 0, 0], &[0, 2, 9], &[1, 2, 0], &[0, 2, 0]];
        // Distances 4, 2, 3, 2: the first of the two at 2.
        assert_eq!(nearest(&w, q, others.iter().copied()), Some(1));
        assert_eq!(nearest(&w, q, std::iter::empty()), None);
    }
}
