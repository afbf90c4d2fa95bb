//! How well a yes/no prediction did: precision, recall and their harmonic mean F, as seed 004
//! judges its famous-game and resignation models (leave-one-out, at 50%).

/// Precision and recall of `(predicted, truth)` pairs; each is 0 when its denominator is.
#[must_use]
pub fn precision_recall(predicted: impl Iterator<Item = (bool, bool)>) -> (f64, f64) {
    let (mut tp, mut fp, mut positives) = (0.0, 0.0, 0.0);
    for (said, truth) in predicted {
        if truth {
            positives += 1.0;
        }
        if said {
            if truth {
                tp += 1.0;
            } else {
                fp += 1.0;
            }
        }
    }
    let div = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    (div(tp, tp + fp), div(tp, positives))
}

/// `F = 2PR / (P + R)`, 0 when both are.
#[must_use]
pub fn f_measure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_hits_false_alarms_and_misses() {
        // 3 said yes (2 right), 4 true in all.
        let pairs = [
            (true, true),
            (true, true),
            (true, false),
            (false, true),
            (false, true),
            (false, false),
        ];
        let (p, r) = precision_recall(pairs.into_iter());
        assert!((p - 2.0 / 3.0).abs() < 1e-15 && (r - 0.5).abs() < 1e-15);
        assert_eq!(precision_recall(std::iter::empty()), (0.0, 0.0));
        assert_eq!(f_measure(0.0, 0.0), 0.0);
    }

    #[test]
    fn table_4_1_f_follows_from_its_precision_and_recall() {
        // Seed 004, Table 4.1: (P, R, F) for players F and M, v only and v with b*.
        for (p, r, f) in [
            (98.2, 77.1, 86.4),
            (95.7, 67.5, 79.2),
            (97.5, 81.3, 88.6),
            (94.8, 69.6, 80.2),
        ] {
            // P and R are printed to 0.1, so F is known to within what their rounding allows.
            let (lo, hi) = (f_measure(p - 0.05, r - 0.05), f_measure(p + 0.05, r + 0.05));
            assert!(lo - 0.05 <= f && f <= hi + 0.05, "{p} {r} {f}: {lo}..{hi}");
        }
    }
}
