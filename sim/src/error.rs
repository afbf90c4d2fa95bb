//! The simulator's error type: every way a model's parameters can be unusable, each naming the
//! parameter (as the command line spells it) and what is wrong with it.

use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum SimError {
    /// A parameter outside its domain.
    #[error("{name} must be {expected}, got {value}")]
    Parameter {
        name: &'static str,
        expected: &'static str,
        value: String,
    },
    /// No random-walk step size reproduces the target third central moment.
    #[error(
        "no random-walk step A in [{a_min}, {a_max}] gives the target third central moment \
         {target} (it ranges from {m3_at_max:.6e} at A = {a_max} to {m3_at_min:.6e} at A = {a_min})"
    )]
    ThirdMomentOutOfRange {
        target: f64,
        a_min: f64,
        a_max: f64,
        m3_at_min: f64,
        m3_at_max: f64,
    },
    /// The random-walk part alone is already wider than the target.
    #[error(
        "the target variance {target_variance} is smaller than Var(W) = {walk_variance} of the \
         random walk that matches the third moment (A = {a}), so no S^2 >= 0 fits: the target is \
         too skewed for its spread under this model"
    )]
    VarianceTooSmall {
        target_variance: f64,
        walk_variance: f64,
        a: f64,
    },
    /// An SVG could not be drawn or written.
    #[error("cannot draw {path}: {message}")]
    Plot { path: String, message: String },
}

/// Checks `value` with `ok`, or names the parameter and what it should be.
pub fn check(
    name: &'static str,
    value: f64,
    expected: &'static str,
    ok: impl Fn(f64) -> bool,
) -> Result<f64, SimError> {
    if ok(value) {
        Ok(value)
    } else {
        Err(SimError::Parameter {
            name,
            expected,
            value: value.to_string(),
        })
    }
}

/// `value` finite and `> 0`.
pub fn positive(name: &'static str, value: f64) -> Result<f64, SimError> {
    check(name, value, "a finite number > 0", |v| {
        v.is_finite() && v > 0.0
    })
}
