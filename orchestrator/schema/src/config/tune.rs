//! The `[tune]` section as validated: what `council-tune` tunes (a player's numeric keys), over
//! how many SPSA iterations, against whom, and the bowl `--simulate` plays instead of games. Plain
//! types that know nothing of the rest of the configuration; `tune_check` reads and checks the
//! section (beside `validate`), and the play crate's `tune` writes the values into players when it plays.
//!
//! A parameter's `path` names a key of the tuned player (`nodes`, `noise_cp`, `ml_d`, ...), a key
//! of one of its council's members (`members.NAME.KEY`), a member's vote weight in the council
//! (`weights.NAME`, majority and approval councils), or an integer USI option the config sets
//! for the player (`options.NAME`); [`ParamTarget`] is the player and key it resolved to.

/// The validated `[tune]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneConfig {
    /// The player whose keys are tuned.
    pub player: String,
    /// SPSA iterations K (one θ update each).
    pub iterations: u64,
    /// Game pairs (colours swapped) per iteration: θ+ against θ−, or each against `opponent`.
    pub pairs: u64,
    /// `None`: θ+ plays θ− (fishtest's way, the default: one pair measures the gradient
    /// directly). Some player: θ+ and θ− each play it.
    pub opponent: Option<String>,
    pub seed: u64,
    pub params: Vec<TuneParam>,
    pub simulate: SimulateBowl,
}

/// One tuned parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneParam {
    /// As written (`noise_cp`, `members.a.nodes`, `options.Threads`).
    pub path: String,
    pub target: ParamTarget,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation at the last iteration (fishtest's `c_end`).
    pub c_end: f64,
    /// The step at the last iteration relative to `c_end²` (fishtest's `r_end`).
    pub r_end: f64,
    /// Rounded to the nearest integer when played.
    pub integer: bool,
}

/// `--simulate`'s known Elo function: `Elo(θ) = −Σ elo_i · ((θ_i − optimum_i) / (max_i − min_i))²`.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulateBowl {
    /// Per parameter, in the order of `params`.
    pub optimum: Vec<f64>,
    /// Per parameter: the Elo lost a whole range away from the optimum.
    pub elo: Vec<f64>,
    /// Probability of a draw between equals (it falls with the Elo gap).
    pub draw_ratio: f64,
}

/// Which key of which player a parameter sets.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamTarget {
    /// The player that holds the key (the tuned player or one of its members).
    pub player: String,
    pub key: ParamKey,
}

/// The numeric keys a tune can set.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamKey {
    Nodes,
    Depth,
    MovetimeMs,
    TimeMs,
    ByoyomiMs,
    IncrementMs,
    MoveTimeoutMs,
    WinRateT,
    Sigma,
    NoiseCp,
    HashMb,
    Temperature,
    MlD,
    ApprovalK,
    /// An integer option (`options.NAME`): a USI engine's `spin`, or a tunable of the built-in
    /// engine (`engine::search::options`) for an internal player.
    UsiOption(String),
    /// A council member's vote weight (`weights.NAME`): the positions in `members` where that
    /// member is listed.
    Weight(Vec<usize>),
}

impl ParamKey {
    /// Whether the key holds whole numbers only.
    pub(super) fn integer_only(&self) -> bool {
        !matches!(
            self,
            ParamKey::WinRateT
                | ParamKey::Sigma
                | ParamKey::Temperature
                | ParamKey::MlD
                | ParamKey::Weight(_)
        )
    }

    /// The smallest value the key takes.
    pub(super) fn floor(&self) -> f64 {
        match self {
            ParamKey::Nodes
            | ParamKey::Depth
            | ParamKey::MovetimeMs
            | ParamKey::MoveTimeoutMs
            | ParamKey::ApprovalK
            | ParamKey::HashMb => 1.0,
            ParamKey::UsiOption(_) => f64::NEG_INFINITY,
            _ => 0.0,
        }
    }
}
