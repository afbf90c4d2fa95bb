//! The keys of a `[[player]]` table, each declared once in `player_keys!`: its serde field in
//! [`RawPlayer`], the kinds of player it is meaningful for (the validation refuses it on
//! another) and what `[tune]` makes of it (a number it tunes, not a number, or plumbing). The
//! checks of both read [`PLAYER_KEYS`], so a new key cannot be known to one and not the other.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::tune::ParamKey;
use super::usi_engine::OptionValue;
use super::{Fairness, Limits, Method, PlayerKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum RawKind {
    Internal,
    Usi,
    Council,
    Intuition,
}

impl RawKind {
    /// The kind of a validated player.
    pub(super) fn of(kind: &PlayerKind) -> RawKind {
        match kind {
            PlayerKind::Internal(_) => RawKind::Internal,
            PlayerKind::Intuition(_) => RawKind::Intuition,
            PlayerKind::Usi(_) => RawKind::Usi,
            PlayerKind::Council(_) => RawKind::Council,
        }
    }

    /// As written in `kind = "..."`.
    pub(super) fn name(self) -> &'static str {
        match self {
            RawKind::Internal => "internal",
            RawKind::Usi => "usi",
            RawKind::Council => "council",
            RawKind::Intuition => "intuition",
        }
    }
}

/// `candidates = { model = "...", k = K, setting = "d" }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCandidates {
    pub(super) model: PathBuf,
    pub(super) k: i64,
    pub(super) setting: Option<String>,
}

/// One key of a `[[player]]` table as data: the validation refuses it on a kind it does not
/// belong to, and `[tune]` tunes it, or says why not, by this entry.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PlayerKey {
    pub(super) name: &'static str,
    /// The kinds of player it is meaningful for (empty: every kind).
    pub(super) kinds: &'static [RawKind],
    pub(super) tune: TuneAs,
}

/// What `[tune]` makes of a player key.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum TuneAs {
    /// A number it can tune.
    Numeric(ParamKey),
    /// Not a number (text, a flag, a list or a table).
    NotNumeric,
    /// A number, but the plumbing around the play rather than the play.
    Plumbing,
}

/// Whether a key of a raw table was given a value: present, or (a list, a table that defaults
/// to empty) not empty.
trait Given {
    fn given(&self) -> bool;
}

impl<T> Given for Option<T> {
    fn given(&self) -> bool {
        self.is_some()
    }
}

impl<T> Given for Vec<T> {
    fn given(&self) -> bool {
        !self.is_empty()
    }
}

impl<K, V> Given for BTreeMap<K, V> {
    fn given(&self) -> bool {
        !self.is_empty()
    }
}

impl Given for String {
    fn given(&self) -> bool {
        true
    }
}

impl Given for RawKind {
    fn given(&self) -> bool {
        true
    }
}

/// Declares [`RawPlayer`] (the `[[player]]` table as serde reads it) and [`PLAYER_KEYS`] (the
/// same keys as data) from one list, so a key is added in one place: its type, the kinds it
/// belongs to, what the tuner makes of it.
macro_rules! player_keys {
    ($(
        $(#[$attr:meta])*
        $key:ident: $ty:ty, [$($kind:ident),*], $tune:expr;
    )*) => {
        /// A `[[player]]` table as written.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(super) struct RawPlayer {
            $($(#[$attr])* pub(super) $key: $ty,)*
        }

        /// Every key of a `[[player]]` table, in the order [`RawPlayer`] declares them.
        pub(super) const PLAYER_KEYS: &[PlayerKey] = &[$(PlayerKey {
            name: stringify!($key),
            kinds: &[$(RawKind::$kind),*],
            tune: $tune,
        }),*];

        impl RawPlayer {
            /// The keys this table gives a value, in the order of [`PLAYER_KEYS`].
            pub(super) fn keys_given(&self) -> Vec<&'static str> {
                let mut given = Vec::new();
                $(if Given::given(&self.$key) {
                    given.push(stringify!($key));
                })*
                given
            }
        }
    };
}

player_keys! {
    name: String, [], TuneAs::NotNumeric;
    kind: RawKind, [], TuneAs::NotNumeric;
    // limits (see `Limits`)
    nodes: Option<u64>, [], TuneAs::Numeric(ParamKey::Nodes);
    depth: Option<u32>, [], TuneAs::Numeric(ParamKey::Depth);
    movetime_ms: Option<u64>, [], TuneAs::Numeric(ParamKey::MovetimeMs);
    time_ms: Option<u64>, [], TuneAs::Numeric(ParamKey::TimeMs);
    byoyomi_ms: Option<u64>, [], TuneAs::Numeric(ParamKey::ByoyomiMs);
    increment_ms: Option<u64>, [], TuneAs::Numeric(ParamKey::IncrementMs);
    move_timeout_ms: Option<u64>, [], TuneAs::Numeric(ParamKey::MoveTimeoutMs);
    win_rate_t: Option<f64>, [], TuneAs::Numeric(ParamKey::WinRateT);
    sigma: Option<f64>, [], TuneAs::Numeric(ParamKey::Sigma);
    // internal
    noise_cp: Option<u32>, [Internal], TuneAs::Numeric(ParamKey::NoiseCp);
    hash_mb: Option<u32>, [Internal], TuneAs::Numeric(ParamKey::HashMb);
    candidates: Option<RawCandidates>, [Internal], TuneAs::NotNumeric;
    // intuition
    model: Option<PathBuf>, [Intuition], TuneAs::NotNumeric;
    setting: Option<String>, [Intuition], TuneAs::NotNumeric;
    temperature: Option<f64>, [Intuition], TuneAs::Numeric(ParamKey::Temperature);
    // usi (`options` also internal: the built-in engine's tunables)
    command: Option<PathBuf>, [Usi], TuneAs::NotNumeric;
    #[serde(default)]
    args: Vec<String>, [Usi], TuneAs::NotNumeric;
    dir: Option<PathBuf>, [Usi], TuneAs::NotNumeric;
    #[serde(default)]
    options: BTreeMap<String, OptionValue>, [Usi, Internal], TuneAs::NotNumeric;
    startup_timeout_ms: Option<u64>, [Usi], TuneAs::Plumbing;
    mate_cp: Option<i32>, [Usi], TuneAs::Plumbing;
    go_nodes: Option<bool>, [Usi], TuneAs::NotNumeric;
    seed_option: Option<String>, [Usi], TuneAs::NotNumeric;
    drop_notation: Option<String>, [Usi], TuneAs::NotNumeric;
    go_byoyomi: Option<bool>, [Usi], TuneAs::NotNumeric;
    position_startpos: Option<bool>, [Usi], TuneAs::NotNumeric;
    restart: Option<bool>, [Usi], TuneAs::NotNumeric;
    // council
    members: Option<Vec<String>>, [Council], TuneAs::NotNumeric;
    method: Option<Method>, [Council], TuneAs::NotNumeric;
    fairness: Option<Fairness>, [Council], TuneAs::NotNumeric;
    ml_d: Option<f64>, [Council], TuneAs::Numeric(ParamKey::MlD);
    approval_k: Option<i64>, [Council], TuneAs::Numeric(ParamKey::ApprovalK);
    weights: Option<BTreeMap<String, f64>>, [Council], TuneAs::NotNumeric;
    equal_resources: Option<bool>, [Council], TuneAs::NotNumeric;
    reserve_ms: Option<u64>, [Council], TuneAs::Plumbing;
    // any kind (USI engines and councils only, when true: checked apart)
    ponder: Option<bool>, [], TuneAs::NotNumeric;
    // USI engines, and councils for their USI members: the engine log
    log: Option<bool>, [Usi, Council], TuneAs::NotNumeric;
}

impl RawPlayer {
    /// The limit keys as one [`Limits`]. They are fields of this table rather than a flattened
    /// struct because serde's `flatten` hides the accepted keys from the unknown-key error, which
    /// lists them (and the docs test reads that list).
    pub(super) fn limits(&self) -> Limits {
        Limits {
            nodes: self.nodes,
            depth: self.depth,
            movetime_ms: self.movetime_ms,
            time_ms: self.time_ms,
            byoyomi_ms: self.byoyomi_ms,
            increment_ms: self.increment_ms,
        }
    }
}
