//! A small Nelder-Mead simplex for two-parameter fits (the intrinsic-rating model, the
//! resignation model): smooth objectives, two parameters; written here because a dependency for
//! 60 lines was not worth it.

/// Nelder-Mead in two dimensions (standard coefficients), from `x0` with initial step `step`,
/// until the simplex's values differ by less than `tol` or after `iterations`.
pub fn nelder_mead(
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
