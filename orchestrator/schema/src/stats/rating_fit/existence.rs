//! Whether finite maximum-likelihood estimates exist. Ratings are finite only if no group of
//! players scored every point (or no point) against the rest (Ford's condition: the "scored
//! against" graph is strongly connected), and a fitted parameter only if its games went both ways.
//! What fails here is what the prior has to make up for.
//!
//! See: L. R. Ford, "Solution of a ranking problem from binary comparisons", Amer. Math. Monthly
//! 64 (1957).

use super::design::Param;
use super::identify::Identification;
use crate::stats::table::{EVEN, GameTable};

/// Every reason the games alone give no finite estimates (empty when they do): Ford's condition
/// over the fitted games, then each accepted parameter whose favoured side won or lost all.
pub(super) fn separation(table: &GameTable, identified: &Identification) -> Vec<String> {
    let mut separation = ford_violations(table, &identified.excluded_kinds);
    for &p in &identified.layout.params {
        let (points, games) = table
            .cells()
            .filter(|((_, _, h), _)| p.applies_to(*h))
            .fold((0.0, 0u64), |(pts, n), (_, w)| {
                (pts + w.points(), n + w.games())
            });
        if points == 0.0 || points == games as f64 {
            let name = match p {
                Param::FirstMove => "first move".to_owned(),
                Param::Handicap(k) => format!("handicap {:?}", table.handicaps()[k]),
            };
            let side = if points == 0.0 { "lost" } else { "won" };
            separation.push(format!(
                "{name}: the side it favours {side} every one of its {games} games"
            ));
        }
    }
    separation
}

/// Ford's condition: for every split of the players into two groups, each group scored something
/// against the other. Returns a description of each violation (empty when ratings are finite).
fn ford_violations(table: &GameTable, excluded_kinds: &[usize]) -> Vec<String> {
    let n = table.players().len();
    if n < 2 {
        return Vec::new();
    }
    // scored[i] lists j when i scored a point or half against j.
    let mut scored = vec![Vec::new(); n];
    for ((s, g, h), wdl) in table.cells() {
        if s == g || (h != EVEN && excluded_kinds.contains(&h)) {
            continue;
        }
        if wdl.wins + wdl.draws > 0 {
            scored[s].push(g);
        }
        if wdl.losses + wdl.draws > 0 {
            scored[g].push(s);
        }
    }
    let components = strongly_connected_components(&scored);
    if components.iter().max().copied().unwrap_or(0) == 0 {
        return Vec::new();
    }
    let count = components.iter().max().map_or(0, |m| m + 1);
    // A component nobody outside scored against, and one that scored against nobody outside.
    let mut scored_on = vec![false; count];
    let mut scores_out = vec![false; count];
    for (i, targets) in scored.iter().enumerate() {
        for &j in targets {
            if components[i] != components[j] {
                scores_out[components[i]] = true;
                scored_on[components[j]] = true;
            }
        }
    }
    let names = |c: usize| -> String {
        let members: Vec<&str> = (0..n)
            .filter(|&i| components[i] == c)
            .map(|i| table.players()[i].as_str())
            .collect();
        let shown = members
            .iter()
            .take(5)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if members.len() > 5 {
            format!("{shown}, ... ({} players)", members.len())
        } else {
            shown
        }
    };
    let mut out = Vec::new();
    for c in 0..count {
        match (scored_on[c], scores_out[c]) {
            (false, false) => out.push(format!("{} never played the others", names(c))),
            (false, true) => out.push(format!("{} never lost a point to the others", names(c))),
            (true, false) => out.push(format!("{} never scored against the others", names(c))),
            (true, true) => {}
        }
    }
    out
}

/// Tarjan's algorithm (iterative); returns each node's component number.
fn strongly_connected_components(edges: &[Vec<usize>]) -> Vec<usize> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut next_component = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next edge to look at)
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = call.last_mut() {
            if *e < edges[v].len() {
                let w = edges[v][*e];
                *e += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component[w] = next_component;
                        if w == v {
                            break;
                        }
                    }
                    next_component += 1;
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarjan_finds_components() {
        // 0 <-> 1 -> 2 <-> 3
        let edges = vec![vec![1], vec![0, 2], vec![3], vec![2]];
        let c = strongly_connected_components(&edges);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[2], c[3]);
        assert_ne!(c[0], c[2]);
    }
}
