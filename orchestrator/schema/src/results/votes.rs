//! The `votes` of a `results.jsonl` line: one [`CouncilVote`] per council decision, each
//! member's part in it as a [`MemberVote`]. Written by councils, read by the summary, the USI
//! server's `info string`s and any script; keys are promises (`docs/reference/files.md`).

use engine::types::Score;
use serde::{Deserialize, Serialize};

/// How a council combines its members' answers (`models.md` section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Majority,
    Optimistic,
    Pessimistic,
    /// Maximum likelihood with the best move's value `A` predicted from the votes.
    Ml,
    /// Each member names its top `k` moves (the council's `approval_k`); the move named most
    /// often wins, then the smaller summed rank, then the strongest member's first move.
    Approval,
}

/// Which rule decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Every member voted for the same move.
    Unanimous,
    /// A member saw the fastest forced mate.
    Mate,
    /// A unique plurality (majority method).
    Plurality,
    /// No unique plurality: the strongest member's move.
    Strongest,
    Optimistic,
    Pessimistic,
    Ml,
    /// Support, then summed rank, decided alone (approval method).
    Approval,
}

impl Method {
    /// The name configs and `results.jsonl` use (`"majority"`, `"ml"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Method::Majority => "majority",
            Method::Optimistic => "optimistic",
            Method::Pessimistic => "pessimistic",
            Method::Ml => "ml",
            Method::Approval => "approval",
        }
    }
}

impl Rule {
    /// The name `results.jsonl` writes (`"plurality"`, `"strongest"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Unanimous => "unanimous",
            Rule::Mate => "mate",
            Rule::Plurality => "plurality",
            Rule::Strongest => "strongest",
            Rule::Optimistic => "optimistic",
            Rule::Pessimistic => "pessimistic",
            Rule::Ml => "ml",
            Rule::Approval => "approval",
        }
    }
}

/// One member's part in one council decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberVote {
    pub name: String,
    /// Its move (`resign`/`win` included), when it answered with one that could be voted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    /// Why it had no vote (crash, timeout, illegal move...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its thinking time, ms.
    pub time_ms: u64,
    /// Nodes it reported searching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Its ranked ballot, best first (approval councils only: the moves of its MultiPV lines,
    /// its own move first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranked: Vec<String>,
    /// Its vote weight in this council (majority and approval); recorded only when not 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub weight: f64,
    /// It had not answered by the council's deadline: it was stopped and its answer, if any
    /// came, left out of the vote (`time_ms` is then its time until it was heard from).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub late: bool,
}

fn one() -> f64 {
    1.0
}

fn is_one(w: &f64) -> bool {
    *w == 1.0
}

/// One council decision: the line stored per council move in `results.jsonl` (`votes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CouncilVote {
    /// Index of the move in the game (0 = the first move).
    pub ply: u32,
    pub council: String,
    pub method: Method,
    pub members: Vec<MemberVote>,
    pub chosen: String,
    pub rule: Rule,
    /// The strongest member (smallest `sigma`, then first listed).
    pub strongest: String,
    /// The strongest member answered and the council played something else.
    pub overrode_strongest: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Reason, Winner};

    fn serde_name<T: Serialize>(x: T) -> String {
        serde_json::to_value(x)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn names_are_the_serialized_names() {
        for m in [
            Method::Majority,
            Method::Optimistic,
            Method::Pessimistic,
            Method::Ml,
            Method::Approval,
        ] {
            assert_eq!(m.name(), serde_name(m));
        }
        for r in [
            Rule::Unanimous,
            Rule::Mate,
            Rule::Plurality,
            Rule::Strongest,
            Rule::Optimistic,
            Rule::Pessimistic,
            Rule::Ml,
            Rule::Approval,
        ] {
            assert_eq!(r.name(), serde_name(r));
        }
        for r in [
            Reason::Resign,
            Reason::Checkmate,
            Reason::Repetition,
            Reason::PerpetualCheck,
            Reason::Impasse,
            Reason::IllegalImpasse,
            Reason::MaxPlies,
            Reason::Adjudication,
            Reason::DrawAdjudication,
            Reason::IllegalMove,
            Reason::MalformedMove,
            Reason::Timeout,
            Reason::Crash,
        ] {
            assert_eq!(r.name(), serde_name(r));
        }
        for w in [Winner::Sente, Winner::Gote, Winner::Draw] {
            assert_eq!(w.name(), serde_name(w));
        }
    }
}
