//! A USI engine's `options` checked against what the engine declares (its `option name ...`
//! lines before `usiok`), at the pre-flight: a typo such as `Threadz` for Fairy-Stockfish's
//! `Threads` is refused before any game, where the engine alone would answer `No such option`
//! and play on with its default. A `spin` outside the engine's `min..max` is refused too.
//!
//! Invariant: a name is matched exactly (USI names are sent as written); `USI_Hash` and
//! `USI_Ponder`, which the USI protocol lets a GUI send without the engine declaring them, pass.

use engine::usi::protocol::{OptionKind, OptionSpec};

use council_schema::config::OptionValue;

/// Options the USI protocol reserves for the GUI: an engine need not declare them.
const RESERVED: [&str; 2] = ["USI_Hash", "USI_Ponder"];

/// Why a configured option does not fit the engine's declarations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionProblem {
    /// The engine declares no option of that name; `closest` is its nearest declared name.
    #[error("the engine declares no option `{name}`{}", did_you_mean(closest.as_deref()))]
    Unknown {
        name: String,
        closest: Option<String>,
    },
    /// A `spin` set to a value outside its declared bounds.
    #[error("`{name}` = {value} is outside the engine's range {min}..{max}")]
    OutOfRange {
        name: String,
        value: i64,
        min: i64,
        max: i64,
    },
    /// A `spin` set to something that is not a whole number.
    #[error("`{name}` = {value}: the engine declares it a spin, which takes a whole number")]
    NotANumber { name: String, value: String },
}

impl OptionProblem {
    /// The option the problem is about, as the config names it.
    pub fn option(&self) -> &str {
        match self {
            OptionProblem::Unknown { name, .. }
            | OptionProblem::OutOfRange { name, .. }
            | OptionProblem::NotANumber { name, .. } => name,
        }
    }
}

fn did_you_mean(closest: Option<&str>) -> String {
    closest.map_or_else(
        || " (it declares none close to it)".to_string(),
        |c| format!(" (did you mean `{c}`?)"),
    )
}

/// The first of `options` (in the order they are sent) that `declared` does not allow.
pub fn check(
    options: &[(String, OptionValue)],
    declared: &[OptionSpec],
) -> Result<(), OptionProblem> {
    for (name, value) in options {
        if RESERVED.contains(&name.as_str()) {
            continue;
        }
        let Some(spec) = declared.iter().find(|s| s.name == *name) else {
            return Err(OptionProblem::Unknown {
                name: name.clone(),
                closest: council_schema::config::closest(
                    name,
                    declared.iter().map(|s| s.name.as_str()),
                )
                .map(str::to_string),
            });
        };
        let OptionKind::Spin { min, max, .. } = spec.kind else {
            continue;
        };
        let whole = match value {
            OptionValue::Int(v) => Some(*v),
            OptionValue::Text(t) => t.trim().parse::<i64>().ok(),
            OptionValue::Bool(_) => None,
        };
        let Some(v) = whole else {
            return Err(OptionProblem::NotANumber {
                name: name.clone(),
                value: value.to_string(),
            });
        };
        let (lo, hi) = (min.unwrap_or(i64::MIN), max.unwrap_or(i64::MAX));
        if v < lo || v > hi {
            return Err(OptionProblem::OutOfRange {
                name: name.clone(),
                value: v,
                min: lo,
                max: hi,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(name: &str, min: i64, max: i64) -> OptionSpec {
        OptionSpec {
            name: name.into(),
            kind: OptionKind::Spin {
                default: Some(min),
                min: Some(min),
                max: Some(max),
            },
        }
    }

    fn check_box(name: &str) -> OptionSpec {
        OptionSpec {
            name: name.into(),
            kind: OptionKind::Check {
                default: Some(false),
            },
        }
    }

    fn declared() -> Vec<OptionSpec> {
        vec![
            spin("Threads", 1, 512),
            spin("Hash", 1, 33_554_432),
            check_box("Ponder"),
            spin("MultiPV", 1, 500),
        ]
    }

    fn set(options: &[(&str, OptionValue)]) -> Vec<(String, OptionValue)> {
        options
            .iter()
            .map(|(n, v)| ((*n).to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn declared_options_in_range_pass_and_the_reserved_ones_need_no_declaration() {
        let ok = set(&[
            ("Threads", OptionValue::Int(4)),
            ("Ponder", OptionValue::Bool(false)),
            ("Hash", OptionValue::Text("16".into())),
            ("USI_Hash", OptionValue::Int(16)),
        ]);
        assert_eq!(check(&ok, &declared()), Ok(()));
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_closest_declared_one() {
        let e = check(&set(&[("Threadz", OptionValue::Int(1))]), &declared()).expect_err("Threadz");
        assert_eq!(
            e.to_string(),
            "the engine declares no option `Threadz` (did you mean `Threads`?)"
        );
        assert_eq!(e.option(), "Threadz");
        // Case counts in the name sent, not in the suggestion.
        let e = check(&set(&[("multipv", OptionValue::Int(1))]), &declared()).expect_err("multipv");
        assert!(e.to_string().ends_with("(did you mean `MultiPV`?)"), "{e}");
        let e =
            check(&set(&[("Contempt", OptionValue::Int(1))]), &declared()).expect_err("Contempt");
        assert_eq!(
            e.to_string(),
            "the engine declares no option `Contempt` (it declares none close to it)"
        );
    }

    #[test]
    fn a_spin_outside_its_range_or_not_a_number_is_refused() {
        let e =
            check(&set(&[("Threads", OptionValue::Int(1000))]), &declared()).expect_err("too many");
        assert_eq!(
            e.to_string(),
            "`Threads` = 1000 is outside the engine's range 1..512"
        );
        let e = check(&set(&[("Threads", OptionValue::Int(0))]), &declared()).expect_err("too few");
        assert!(
            matches!(e, OptionProblem::OutOfRange { value: 0, .. }),
            "{e}"
        );
        let e = check(&set(&[("Hash", OptionValue::Bool(true))]), &declared()).expect_err("a bool");
        assert_eq!(
            e.to_string(),
            "`Hash` = true: the engine declares it a spin, which takes a whole number"
        );
    }
}
