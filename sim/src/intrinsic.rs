//! Intrinsic rating (models.md sections 5 and 7, after Regan and Haworth): how far a player's
//! moves fall short of a reference engine's best, on a scale that forgives errors in positions
//! already won or lost, and the move-probability model with its two parameters `s` (sensitivity)
//! and `c` (consistency), fitted two ways.
//!
//! Everything here is numbers in, numbers out: an analysed position is the reference's scores of
//! its candidates, best first, and the index of the move played. The analysis itself (which
//! engine, which positions) is `council-analyze`'s business.
//!
//! The fits minimise over `(ln s, ln c)` with a small Nelder-Mead simplex written here (two
//! parameters, smooth objectives; a dependency for 60 lines was not worth it).

use rand::RngExt;
use serde::Serialize;

/// Scaled error of a move scored `vj` where the best scores `v0` (centipawns, mover's view):
/// `sgn(v0) ln(1 + |v0|/u) - sgn(vj) ln(1 + |vj|/u)`, i.e. `∫_{vj/u}^{v0/u} dz / (1 + |z|)`.
#[must_use]
pub fn scaled_error(v0: f64, vj: f64, u: f64) -> f64 {
    let g = |v: f64| v.signum() * (v.abs() / u).ln_1p();
    g(v0) - g(vj)
}

/// One analysed position: the scaled errors `d_i >= 0` of its candidates (best first, so
/// `d_0 = 0`) and the index of the move played.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub errors: Vec<f64>,
    pub played: usize,
}

impl Decision {
    /// From the reference's scores (centipawns, mover's view, best first).
    #[must_use]
    pub fn from_scores(scores: &[f64], played: usize, u: f64) -> Decision {
        let v0 = scores[0];
        Decision {
            errors: scores
                .iter()
                .map(|&v| scaled_error(v0, v, u).max(0.0))
                .collect(),
            played,
        }
    }
}

/// The model's move probabilities for errors `d` under `(s, c)`: `p_i = p_0^{α_i}` with
/// `α_i = exp((d_i / s)^c)` and `p_0` the root of `Σ p_0^{α_i} = 1`.
#[must_use]
pub fn move_probabilities(errors: &[f64], s: f64, c: f64) -> Vec<f64> {
    let alpha: Vec<f64> = errors
        .iter()
        .map(|&d| ((d.max(0.0) / s).powf(c)).exp().min(1e300))
        .collect();
    // Solve f(t) = Σ exp(α_i t) - 1 = 0 for t = ln p_0 in [-ln n, 0] (each term is at most
    // exp(t), so the root is at least -ln n). f increases, so Newton's method safeguarded by
    // bisection (rtsafe) converges; plain Newton crawls when one α is huge and others are not.
    let eval = |t: f64| {
        alpha.iter().fold((-1.0, 0.0), |(f, df), a| {
            let e = (a * t).exp();
            (f + e, df + a * e)
        })
    };
    let (mut lo, mut hi) = (-(errors.len() as f64).ln() - 1e-9, 0.0_f64);
    let mut t = 0.5 * (lo + hi);
    let (mut dx, mut dx_old) = (hi - lo, hi - lo);
    let (mut f, mut df) = eval(t);
    for _ in 0..200 {
        let newton_leaves = ((t - hi) * df - f) * ((t - lo) * df - f) > 0.0;
        if newton_leaves || (2.0 * f).abs() > (dx_old * df).abs() {
            dx_old = dx;
            dx = 0.5 * (hi - lo);
            t = lo + dx;
        } else {
            dx_old = dx;
            dx = f / df;
            t -= dx;
        }
        if dx.abs() < 1e-15 || hi - lo < 1e-15 {
            break;
        }
        (f, df) = eval(t);
        if f < 0.0 {
            lo = t;
        } else {
            hi = t;
        }
    }
    alpha.iter().map(|a| (a * t).exp()).collect()
}

/// What a player's analysed decisions show, and the model's fits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Observed {
    pub positions: usize,
    /// Match rate: the share of decisions where the best move was played.
    pub mm: f64,
    /// Average scaled error of the moves played.
    pub ae: f64,
}

/// Match rate and average error of `decisions`.
#[must_use]
pub fn observed(decisions: &[Decision]) -> Observed {
    let n = decisions.len().max(1) as f64;
    Observed {
        positions: decisions.len(),
        mm: decisions
            .iter()
            .filter(|d| d.errors[d.played] == 0.0)
            .count() as f64
            / n,
        ae: decisions.iter().map(|d| d.errors[d.played]).sum::<f64>() / n,
    }
}

/// The model's expectations under `(s, c)`: `MM_e = mean p_0`, `AE_e = mean Σ d_i p_i`.
#[must_use]
pub fn expected(decisions: &[Decision], s: f64, c: f64) -> (f64, f64) {
    let n = decisions.len().max(1) as f64;
    let (mut mm, mut ae) = (0.0, 0.0);
    for d in decisions {
        let p = move_probabilities(&d.errors, s, c);
        mm += d
            .errors
            .iter()
            .zip(&p)
            .filter(|(e, _)| **e == 0.0)
            .map(|(_, p)| p)
            .sum::<f64>();
        ae += d.errors.iter().zip(&p).map(|(e, p)| e * p).sum::<f64>();
    }
    (mm / n, ae / n)
}

/// Negative log-likelihood of the moves played under `(s, c)`.
#[must_use]
pub fn neg_log_likelihood(decisions: &[Decision], s: f64, c: f64) -> f64 {
    decisions
        .iter()
        .map(|d| {
            let p = move_probabilities(&d.errors, s, c);
            -p[d.played].max(1e-300).ln()
        })
        .sum()
}

/// The percentile method's objective: `Σ_q (R_q - q)^2` over `q = 0.01 .. 0.99`, where `R_q`
/// is the mean share of the played move's cumulative-probability interval `[a_k, b_k]` (in the
/// reference's order) that lies below `q`.
#[must_use]
pub fn percentile_misfit(decisions: &[Decision], s: f64, c: f64) -> f64 {
    let intervals: Vec<(f64, f64)> = decisions
        .iter()
        .map(|d| {
            let p = move_probabilities(&d.errors, s, c);
            let a: f64 = p[..d.played].iter().sum();
            (a, a + p[d.played])
        })
        .collect();
    let n = intervals.len().max(1) as f64;
    (1..100)
        .map(|i| {
            let q = f64::from(i) / 100.0;
            let r = intervals
                .iter()
                .map(|&(a, b)| {
                    if b <= q {
                        1.0
                    } else if a < q && b > a {
                        (q - a) / (b - a)
                    } else {
                        0.0
                    }
                })
                .sum::<f64>()
                / n;
            (r - q).powi(2)
        })
        .sum()
}

/// Fitted `(s, c)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fit {
    pub s: f64,
    pub c: f64,
}

/// `(s, c)` by maximum likelihood.
#[must_use]
pub fn fit_max_likelihood(decisions: &[Decision]) -> Fit {
    fit_by(|s, c| neg_log_likelihood(decisions, s, c))
}

/// `(s, c)` by the percentile method.
#[must_use]
pub fn fit_percentile(decisions: &[Decision]) -> Fit {
    fit_by(|s, c| percentile_misfit(decisions, s, c))
}

/// Minimise `f(s, c)` over `ln s in [-7, 3]`, `ln c in [-3, 2]`, from a coarse grid's best point.
fn fit_by(f: impl Fn(f64, f64) -> f64) -> Fit {
    let g = |x: [f64; 2]| {
        let (ls, lc) = (x[0].clamp(-7.0, 3.0), x[1].clamp(-3.0, 2.0));
        let v = f(ls.exp(), lc.exp());
        if v.is_finite() { v } else { f64::MAX }
    };
    let mut best = ([0.0, 0.0], f64::MAX);
    for i in 0..=10 {
        for j in 0..=5 {
            let x = [-7.0 + f64::from(i), -3.0 + f64::from(j)];
            let v = g(x);
            if v < best.1 {
                best = (x, v);
            }
        }
    }
    let x = nelder_mead(g, best.0, 0.5, 1e-10, 400);
    Fit {
        s: x[0].clamp(-7.0, 3.0).exp(),
        c: x[1].clamp(-3.0, 2.0).exp(),
    }
}

/// Nelder-Mead in two dimensions (standard coefficients), from `x0` with initial step `step`,
/// until the simplex's values differ by less than `tol` or after `iterations`.
fn nelder_mead(
    f: impl Fn([f64; 2]) -> f64,
    x0: [f64; 2],
    step: f64,
    tol: f64,
    iterations: usize,
) -> [f64; 2] {
    let mut pts = [x0, [x0[0] + step, x0[1]], [x0[0], x0[1] + step]];
    let mut vals = pts.map(&f);
    let lerp =
        |a: [f64; 2], b: [f64; 2], t: f64| [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
    for _ in 0..iterations {
        let mut order = [0, 1, 2];
        order.sort_by(|&a, &b| vals[a].total_cmp(&vals[b]));
        pts = order.map(|i| pts[i]);
        vals = order.map(|i| vals[i]);
        if (vals[2] - vals[0]).abs() <= tol * (1.0 + vals[0].abs()) {
            break;
        }
        let centroid = lerp(pts[0], pts[1], 0.5);
        let reflected = lerp(centroid, pts[2], -1.0);
        let fr = f(reflected);
        if fr < vals[0] {
            let expanded = lerp(centroid, pts[2], -2.0);
            let fe = f(expanded);
            (pts[2], vals[2]) = if fe < fr {
                (expanded, fe)
            } else {
                (reflected, fr)
            };
        } else if fr < vals[1] {
            (pts[2], vals[2]) = (reflected, fr);
        } else {
            let contracted = if fr < vals[2] {
                lerp(centroid, reflected, 0.5)
            } else {
                lerp(centroid, pts[2], 0.5)
            };
            let fc = f(contracted);
            if fc < vals[2].min(fr) {
                (pts[2], vals[2]) = (contracted, fc);
            } else {
                for i in 1..3 {
                    pts[i] = lerp(pts[0], pts[i], 0.5);
                    vals[i] = f(pts[i]);
                }
            }
        }
    }
    let best = (0..3)
        .min_by(|&a, &b| vals[a].total_cmp(&vals[b]))
        .unwrap_or(0);
    pts[best]
}

/// A decision drawn from the model: the given errors, the played move chosen with the model's
/// probabilities under `(s, c)` (for tests and for checking a fit on synthetic data).
pub fn draw_decision(rng: &mut impl RngExt, errors: Vec<f64>, s: f64, c: f64) -> Decision {
    let p = move_probabilities(&errors, s, c);
    let mut x: f64 = rng.random::<f64>() * p.iter().sum::<f64>();
    let mut played = p.len() - 1;
    for (i, pi) in p.iter().enumerate() {
        if x < *pi {
            played = i;
            break;
        }
        x -= pi;
    }
    Decision { errors, played }
}

/// Least-squares line `y = a - b x` with its R², and each point's leave-one-out prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    pub a: f64,
    pub b: f64,
    pub r2: f64,
    /// `a - b x_i` from the line fitted without point `i` (`NaN` with fewer than 3 points).
    pub loo: Vec<f64>,
}

/// Fit `y = a - b x` by least squares (at least two points with different `x`).
#[must_use]
pub fn calibrate(x: &[f64], y: &[f64]) -> Option<Calibration> {
    let line = |xs: &[f64], ys: &[f64]| -> Option<(f64, f64)> {
        let n = xs.len() as f64;
        let mx = xs.iter().sum::<f64>() / n;
        let my = ys.iter().sum::<f64>() / n;
        let sxx: f64 = xs.iter().map(|v| (v - mx).powi(2)).sum();
        let sxy: f64 = xs.iter().zip(ys).map(|(a, b)| (a - mx) * (b - my)).sum();
        (sxx > 0.0).then(|| {
            let slope = sxy / sxx;
            (my - slope * mx, -slope)
        })
    };
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (a, b) = line(x, y)?;
    let my = y.iter().sum::<f64>() / y.len() as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - my).powi(2)).sum();
    let ss_res: f64 = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| (yi - (a - b * xi)).powi(2))
        .sum();
    let loo = (0..x.len())
        .map(|i| {
            let xs: Vec<f64> = x
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, v)| *v)
                .collect();
            let ys: Vec<f64> = y
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, v)| *v)
                .collect();
            match line(&xs, &ys) {
                Some((a, b)) if xs.len() >= 2 => a - b * x[i],
                _ => f64::NAN,
            }
        })
        .collect();
    Some(Calibration {
        a,
        b,
        r2: if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else {
            1.0
        },
        loo,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus as ChaCha8Rng;

    /// Simpson's rule for `∫_lo^hi dz / (1 + |z|)`, split at 0 where the integrand has a kink.
    fn integral(lo: f64, hi: f64) -> f64 {
        let simpson = |a: f64, b: f64| {
            let n = 2000;
            let h = (b - a) / f64::from(n);
            let f = |z: f64| 1.0 / (1.0 + z.abs());
            (0..=n)
                .map(|i| {
                    let w = if i == 0 || i == n {
                        1.0
                    } else if i % 2 == 1 {
                        4.0
                    } else {
                        2.0
                    };
                    w * f(a + h * f64::from(i))
                })
                .sum::<f64>()
                * h
                / 3.0
        };
        if (lo < 0.0 && hi > 0.0) || (hi < 0.0 && lo > 0.0) {
            simpson(lo, 0.0) + simpson(0.0, hi)
        } else {
            simpson(lo, hi)
        }
    }

    #[test]
    fn scaled_error_is_the_integral_form() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let v0 = rng.random_range(-3000.0..3000.0);
            let vj = rng.random_range(-3000.0..3000.0);
            let u = rng.random_range(30.0..300.0);
            let d = scaled_error(v0, vj, u);
            let i = integral(vj / u, v0 / u);
            assert!(
                (d - i).abs() < 1e-6 * (1.0 + i.abs()),
                "{v0} {vj} {u}: {d} vs {i}"
            );
        }
        assert_eq!(scaled_error(250.0, 250.0, 100.0), 0.0);
        assert!(scaled_error(100.0, -100.0, 100.0) > scaled_error(2100.0, 1900.0, 100.0));
    }

    #[test]
    fn probabilities_sum_to_one_and_fall_with_the_error() {
        let p = move_probabilities(&[0.0, 0.05, 0.3, 1.5], 0.1, 0.7);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p.windows(2).all(|w| w[0] > w[1]), "{p:?}");
        let tie = move_probabilities(&[0.0, 0.0], 0.1, 0.7);
        assert!((tie[0] - 0.5).abs() < 1e-12);
        // Extreme parameters (one α astronomically large, the others near 1) still give a
        // distribution: the unlikely move gets nothing, the rest share the mass.
        let q = move_probabilities(&[0.0, 0.01, 0.012, 5.0], 0.0185, 7.39);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{q:?}");
        assert!(q[3] < 1e-12 && q[0] > 0.3, "{q:?}");
        // A sharper player (smaller s) puts more weight on the best move.
        assert!(move_probabilities(&[0.0, 0.1, 0.2], 0.05, 0.7)[0] > p[0]);
    }

    fn synthetic(n: usize, s: f64, c: f64, seed: u64) -> Vec<Decision> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let k = rng.random_range(2..30);
                let mut d = 0.0;
                let errors = (0..k)
                    .map(|i| {
                        if i > 0 {
                            d += -0.08 * (1.0 - rng.random::<f64>()).ln();
                        }
                        d
                    })
                    .collect();
                draw_decision(&mut rng, errors, s, c)
            })
            .collect()
    }

    #[test]
    fn both_fits_recover_the_parameters_the_moves_were_drawn_with() {
        for (s, c) in [(0.08, 0.6), (0.2, 1.2)] {
            let data = synthetic(4000, s, c, 11);
            for (name, fit) in [
                ("ml", fit_max_likelihood(&data)),
                ("percentile", fit_percentile(&data)),
            ] {
                assert!(
                    (fit.s / s - 1.0).abs() < 0.15 && (fit.c / c - 1.0).abs() < 0.15,
                    "{name}: drew s={s} c={c}, fitted {fit:?}"
                );
            }
            // The model's expectations match what the drawn moves show.
            let (mm_e, ae_e) = expected(&data, s, c);
            let o = observed(&data);
            assert!((mm_e - o.mm).abs() < 0.03, "{mm_e} {o:?}");
            assert!((ae_e - o.ae).abs() < 0.1 * o.ae.max(0.01), "{ae_e} {o:?}");
        }
    }

    #[test]
    fn calibration_line_and_leave_one_out() {
        let x = [0.1, 0.2, 0.3, 0.4];
        let y = [2000.0, 1800.0, 1600.0, 1400.0];
        let c = calibrate(&x, &y).unwrap();
        assert!((c.a - 2200.0).abs() < 1e-9 && (c.b - 2000.0).abs() < 1e-9);
        assert!((c.r2 - 1.0).abs() < 1e-12);
        for (p, y) in c.loo.iter().zip(y) {
            assert!((p - y).abs() < 1e-9);
        }
        assert!(calibrate(&[0.1, 0.1], &[1.0, 2.0]).is_none());
    }
}
