//! Which optional parameters the games identify. A parameter whose design column lies in the span
//! of the ratings' (and of the parameters accepted before it) cannot be told apart from them: it is
//! not estimated, and a handicap type's games are then left out of the ratings altogether.

use nalgebra::DMatrix;

use super::design::{Layout, Param, add_outer};
use crate::stats::table::GameTable;

/// What the games identify: the layout of the fit and why the others are left out.
pub(super) struct Identification {
    /// Ratings and the accepted parameters.
    pub(super) layout: Layout,
    /// Handicap types whose games are left out of the fit.
    pub(super) excluded_kinds: Vec<usize>,
    rejected: Vec<(Param, String)>,
    first_move_note: Option<String>,
}

impl Identification {
    /// Why `p` is not estimated (`None` when it is, or was not asked for).
    pub(super) fn why_not(&self, p: Param) -> Option<String> {
        self.rejected
            .iter()
            .find(|(r, _)| *r == p)
            .map(|(_, why)| why.clone())
            .or_else(|| self.first_move_note.clone())
    }
}

/// Tests the candidates (the first move if asked for and there are even games, then each handicap
/// type) one by one against the ratings and those accepted before. A note per handicap type left
/// out goes to `notes`.
pub(super) fn identify(
    table: &GameTable,
    first_move: bool,
    even_games: u64,
    handicap_games: &[u64],
    notes: &mut Vec<String>,
) -> Identification {
    let players = table.players().len();
    // Candidate optional parameters, in order: first move, then handicap types.
    let mut candidates = Vec::new();
    let mut first_move_note = None;
    if first_move {
        if even_games > 0 {
            candidates.push(Param::FirstMove);
        } else {
            first_move_note = Some("not identified: no even games".to_owned());
        }
    }
    candidates.extend((0..table.handicaps().len()).map(Param::Handicap));

    // Is each candidate's design column independent of the ratings' and of the candidates
    // accepted before it? (Schur complement of the Gram matrix with a tiny ridge on the ratings,
    // so that disconnected pools do not make the check itself singular.)
    let mut accepted: Vec<Param> = Vec::new();
    let mut rejected: Vec<(Param, String)> = Vec::new();
    for &cand in &candidates {
        let trial = Layout {
            players,
            params: accepted.iter().copied().chain([cand]).collect(),
        };
        let dim = trial.dim();
        let mut gram = DMatrix::<f64>::zeros(dim, dim);
        for ((s, g, h), wdl) in table.cells() {
            add_outer(&mut gram, &trial.design(s, g, h), wdl.games() as f64);
        }
        let scale = (0..dim).map(|i| gram[(i, i)]).fold(0.0, f64::max).max(1.0);
        for i in 0..trial.rating_params() {
            gram[(i, i)] += 1e-9 * scale;
        }
        let last = dim - 1;
        let residual = schur_residual(&gram, last);
        if residual > 1e-6 * gram[(last, last)] {
            accepted.push(cand);
        } else {
            let why = match cand {
                Param::FirstMove => {
                    "not identified: in the even games, who moved first cannot be told apart from who played"
                        .to_owned()
                }
                Param::Handicap(_) => {
                    "not identified: its games cannot be told apart from the players' ratings (the players involved need games between them without this handicap)"
                        .to_owned()
                }
            };
            rejected.push((cand, why));
        }
    }
    let excluded_kinds: Vec<usize> = rejected
        .iter()
        .filter_map(|(p, _)| match p {
            Param::Handicap(k) => Some(*k),
            Param::FirstMove => None,
        })
        .collect();
    for &k in &excluded_kinds {
        notes.push(format!(
            "handicap {:?}: {} games left out of the ratings because its value is not identified",
            table.handicaps()[k],
            handicap_games[k]
        ));
    }
    Identification {
        layout: Layout {
            players,
            params: accepted,
        },
        excluded_kinds,
        rejected,
        first_move_note,
    }
}

/// Squared norm of the last column's residual after projecting on the others, from the Gram
/// matrix: `G_ll - G_lS G_SS^-1 G_Sl`.
fn schur_residual(gram: &DMatrix<f64>, last: usize) -> f64 {
    if last == 0 {
        return gram[(0, 0)];
    }
    let g_ss = gram.view((0, 0), (last, last)).into_owned();
    let g_sl = gram.view((0, last), (last, 1)).into_owned();
    match g_ss.cholesky() {
        Some(ch) => {
            let solved = ch.solve(&g_sl);
            gram[(last, last)] - (g_sl.transpose() * solved)[(0, 0)]
        }
        None => 0.0,
    }
}
