//! A constant-acceleration Kalman filter of a scalar series sampled at integer times (plies):
//! the state is `[x, v, a]`, the process noise enters through the acceleration, the observation
//! is `x` alone. `council-analyze complexity` smooths a game's root and leaf-level scores with it
//! and reads the game's speed off `v` (seed 004, §5.3).
//!
//! The time step is the gap between consecutive samples, so a series of every ply uses `Δt = 1`
//! and one side's moves `Δt = 2`, as the seed says; `v` and `a` are per ply whatever the gap.
//!
//! See: R. E. Kalman, "A New Approach to Linear Filtering and Prediction Problems" (1960); the
//! discrete white-noise acceleration model of Bar-Shalom, Li and Kirubarajan, "Estimation with
//! Applications to Tracking and Navigation" (2001), §6.3.

use nalgebra::{Matrix3, Vector3};
use serde::Serialize;

/// The filter's noise settings: `q`, `r` are variances (cp²); `p0` sets `P_0 = p0·I`, else
/// `P_0 = diag(r, 1e4, 1e4)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KalmanSettings {
    pub q: f64,
    pub r: f64,
    pub p0: Option<f64>,
}

impl Default for KalmanSettings {
    fn default() -> Self {
        KalmanSettings {
            q: 20.0 * 20.0,
            r: 100.0 * 100.0,
            p0: None,
        }
    }
}

impl KalmanSettings {
    /// Whether every variance is positive (the filter's covariances need it).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.q > 0.0 && self.r > 0.0 && self.p0.is_none_or(|p| p > 0.0)
    }
}

/// The filtered state after one sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KalmanStep {
    pub ply: u32,
    pub x: f64,
    pub v: f64,
    pub a: f64,
}

/// Filter `samples` (ply, value), plies increasing: every sample, the first included, is a
/// predict then an update, from `X_0 = [y_0, 0, 0]`. The first step's `Δt` is the second
/// sample's gap (1 for a lone sample).
#[must_use]
pub fn kalman(samples: &[(u32, f64)], k: &KalmanSettings) -> Vec<KalmanStep> {
    let Some(&(_, y0)) = samples.first() else {
        return Vec::new();
    };
    let mut x = Vector3::new(y0, 0.0, 0.0);
    let mut p = match k.p0 {
        Some(p0) => Matrix3::identity() * p0,
        None => Matrix3::from_diagonal(&Vector3::new(k.r, 1e4, 1e4)),
    };
    let first_gap = samples.get(1).map_or(1, |s| s.0 - samples[0].0).max(1);
    let mut out = Vec::with_capacity(samples.len());
    for (i, &(ply, y)) in samples.iter().enumerate() {
        let dt = if i == 0 {
            f64::from(first_gap)
        } else {
            f64::from(ply.saturating_sub(samples[i - 1].0).max(1))
        };
        let f = Matrix3::new(1.0, dt, dt * dt / 2.0, 0.0, 1.0, dt, 0.0, 0.0, 1.0);
        let g = Vector3::new(dt * dt / 2.0, dt, 1.0);
        x = f * x;
        p = f * p * f.transpose() + g * g.transpose() * k.q;
        let s = p[(0, 0)] + k.r;
        let gain = p.column(0) / s;
        x += gain * (y - x[0]);
        p -= gain * p.row(0);
        out.push(KalmanStep {
            ply,
            x: x[0],
            v: x[1],
            a: x[2],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};

    #[test]
    fn kalman_steps_match_the_hand_computed_ones() {
        // q = r = 1, P0 = I, samples 0 then 1 at plies 0 and 1 (worked by hand in sevenths and
        // 28ths: after the second update X = [171, 174, 86] / 199).
        let k = KalmanSettings {
            q: 1.0,
            r: 1.0,
            p0: Some(1.0),
        };
        let s = kalman(&[(0, 0.0), (1, 1.0)], &k);
        assert_eq!((s[0].x, s[0].v, s[0].a), (0.0, 0.0, 0.0));
        for (got, want) in [(s[1].x, 171.0), (s[1].v, 174.0), (s[1].a, 86.0)] {
            assert!((got - want / 199.0).abs() < 1e-12, "{got} vs {want}/199");
        }
    }

    #[test]
    fn the_time_step_is_the_ply_gap() {
        // One side's moves (every other ply) of a score rising 10 cp per ply: the velocity is
        // per ply, so it settles near 10, not 20.
        let samples: Vec<(u32, f64)> = (0..60).map(|i| (2 * i, 20.0 * f64::from(i))).collect();
        let s = kalman(&samples, &KalmanSettings::default());
        let v = s.last().unwrap().v;
        assert!((v - 10.0).abs() < 0.5, "{v}");
        let every: Vec<(u32, f64)> = (0..60).map(|i| (i, 10.0 * f64::from(i))).collect();
        let v1 = kalman(&every, &KalmanSettings::default()).last().unwrap().v;
        assert!((v1 - 10.0).abs() < 0.5, "{v1}");
    }

    #[test]
    fn the_filter_recovers_the_state_of_the_process_it_models() {
        // Draw a path from the filter's own model (X' = F X + g w, w of variance q; y = x + e,
        // e of variance r), seeded: the filtered x must sit closer to the true path than the
        // observations do, and v closer to the true velocity than the observations' differences.
        let k = KalmanSettings {
            q: 0.01,
            r: 400.0,
            p0: None,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        let (w, e) = (
            Normal::new(0.0, k.q.sqrt()).unwrap(),
            Normal::new(0.0, k.r.sqrt()).unwrap(),
        );
        let (mut x, mut v, mut a) = (0.0f64, 0.0f64, 0.0f64);
        let (mut truth, mut samples) = (Vec::new(), Vec::new());
        for t in 0..400u32 {
            let noise = w.sample(&mut rng);
            x += v + a / 2.0 + noise / 2.0;
            v += a + noise;
            a += noise;
            truth.push((x, v));
            samples.push((t, x + e.sample(&mut rng)));
        }
        let steps = kalman(&samples, &k);
        let rms = |d: &mut dyn Iterator<Item = f64>| {
            let v: Vec<f64> = d.collect();
            (v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64).sqrt()
        };
        // Past the first 50 steps, once P has settled.
        let late = 50..400;
        let filtered = rms(&mut late.clone().map(|i| steps[i].x - truth[i].0));
        let observed = rms(&mut late.clone().map(|i| samples[i].1 - truth[i].0));
        let speed = rms(&mut late.clone().map(|i| steps[i].v - truth[i].1));
        let differences = rms(&mut late.map(|i| samples[i].1 - samples[i - 1].1 - truth[i].1));
        // Measured: 0.58 and 0.08 of them (a filter that passed the observations through would
        // score 1 and about 1).
        assert!(filtered < 0.7 * observed, "{filtered} vs {observed}");
        assert!(speed < 0.15 * differences, "{speed} vs {differences}");
    }
}
