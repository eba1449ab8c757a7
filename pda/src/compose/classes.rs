//! Token classes and node merging, both by fstc-core's one routine for each: labels
//! (tokens, or classes of tokens) whose edges agree at every node — same target, same
//! pushes, or no edge — are one class ([`Columns`]), as in fstc-core's FSA path, so a node
//! has one edge per class and a mask is a few ORs of class masks; nodes that behave the
//! same under every stack are merged by the minimizer ([`merge_equivalent_before`]). Distinct
//! dotted rules and pop nodes of different states often have the same future
//! (`T -> "b" •` and `T -> S "b" •`), and pop graphs may come out cyclic.

use std::borrow::Cow;

use fstc_core::fast_hash::FastMap;
use fstc_core::minimize::{merge_equivalent_before, Quotient};
use fstc_core::parts::columns::Columns;

use crate::budget::Budget;
use crate::error::PdaError;

/// An edge `(label, (target, push))`.
pub(super) type Edge = (u32, (u32, u32));

/// A token PDA over classes: per node its acceptance, edges (sorted by class) and pops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ClassGraph {
    pub start: u32,
    pub accepting: Vec<bool>,
    pub edges: Vec<Vec<Edge>>,
    /// Per node: `(symbol, node)`, sorted by symbol.
    pub pops: Vec<Vec<(u32, u32)>>,
}

/// Each label's class, the number of classes and the edges relabelled by class.
pub(super) type Grouped = (Vec<u32>, u32, Vec<Vec<Edge>>);

/// Groups the `num_labels` labels of `edges` (per node, in any order, at most one edge per
/// label) by their column. Returns each label's class (classes numbered by smallest
/// label, `NO_CLASS` for a label without edges), the number of classes, and the edges
/// relabelled by class, sorted by class within each node. Within `budget`, `place` naming
/// the phase.
pub(super) fn group(
    num_labels: usize,
    edges: &[Vec<Edge>],
    budget: &Budget,
    place: &dyn Fn() -> String,
) -> Result<Grouped, PdaError> {
    let columns = columns_within(num_labels, edges, budget, place)?;
    let relabelled = relabel_within(edges, budget, place, |list| columns.relabel(list))?;
    let num_classes = columns.num_classes() as u32;
    Ok((columns.class_of, num_classes, relabelled))
}

/// [`Columns::group`] under `budget`'s time budget, its label table counted first.
fn columns_within<L: AsRef<[Edge]>>(
    num_labels: usize,
    edges: &[L],
    budget: &Budget,
    place: &dyn Fn() -> String,
) -> Result<Columns, PdaError> {
    budget.check_memory(num_labels.saturating_mul(12), place)?;
    Columns::group_polled(num_labels, edges, |n| budget.poll(n, || 0, place))
}

/// `relabel` of each node's edges, polling `budget` with the bytes relabelled so far, and
/// charging them once done (they are the graph from then on).
fn relabel_within<L>(
    edges: &[L],
    budget: &Budget,
    place: &dyn Fn() -> String,
    mut relabel: impl FnMut(&L) -> Vec<Edge>,
) -> Result<Vec<Vec<Edge>>, PdaError> {
    let mut held = 0usize;
    let mut out = Vec::with_capacity(edges.len());
    for list in edges {
        let new = relabel(list);
        held += std::mem::size_of_val(new.as_slice()) + std::mem::size_of::<Vec<Edge>>();
        budget.poll(new.len() + 1, || held, place)?;
        out.push(new);
    }
    budget.charge(held, place)?;
    Ok(out)
}

/// A result set of several `(target, push)` in [`group_sets`]' columns: `(SET, id)`. No
/// node is numbered `u32::MAX`, so it differs from every single result.
const SET: u32 = u32::MAX;

/// [`group`] for a nondeterministic graph, where a node may have several edges per label:
/// labels are grouped by the set of `(target, push)` results they have at each node, and
/// the relabelled edges list every result, sorted. A single result stands for itself and
/// only sets of several are numbered, so a node whose labels have one edge each is grouped
/// as it is.
pub(super) fn group_sets(
    num_labels: usize,
    edges: &[Vec<Edge>],
    budget: &Budget,
    place: &dyn Fn() -> String,
) -> Result<Grouped, PdaError> {
    let mut sets = ResultSets::default();
    let mut layout = Layout {
        stamp: vec![0; num_labels],
        now: 0,
    };
    // The copies of lists numbered by set, and the sets, counted as they grow.
    let mut held = 0usize;
    let mut by_set: Vec<Cow<[Edge]>> = Vec::with_capacity(edges.len());
    for list in edges {
        let numbered = match layout.of(list) {
            (true, false) => Cow::Borrowed(list.as_slice()),
            // The walk records a token's edges together: sorting each run is enough then.
            (true, true) => Cow::Owned(sets.number(list)),
            (false, _) => {
                let mut copy = list.clone();
                copy.sort_unstable();
                Cow::Owned(sets.number(&copy))
            }
        };
        if let Cow::Owned(copy) = &numbered {
            held += std::mem::size_of_val(copy.as_slice());
        }
        budget.poll(list.len() + 1, || held + sets.bytes, place)?;
        by_set.push(numbered);
    }
    let columns = columns_within(num_labels, &by_set, budget, place)?;
    let relabelled = relabel_within(&by_set, budget, place, |list| {
        let mut out: Vec<Edge> = Vec::new();
        for (class, result) in columns.relabel(list) {
            match result {
                (SET, id) => out.extend(sets.sets[id as usize].iter().map(|&r| (class, r))),
                single => out.push((class, single)),
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    })?;
    let num_classes = columns.num_classes() as u32;
    Ok((columns.class_of, num_classes, relabelled))
}

/// The sets of several results met so far, numbered.
#[derive(Default)]
struct ResultSets {
    ids: FastMap<Vec<(u32, u32)>, u32>,
    sets: Vec<Vec<(u32, u32)>>,
    /// About the bytes they hold (each set twice: as a key and in `sets`).
    bytes: usize,
}

impl ResultSets {
    /// `list` (each label's edges adjacent) with one edge per label: its result, or
    /// `(SET, id)` for several.
    fn number(&mut self, list: &[Edge]) -> Vec<Edge> {
        let mut out = Vec::with_capacity(list.len());
        let mut set = Vec::new();
        for run in list.chunk_by(|a, b| a.0 == b.0) {
            set.clear();
            set.extend(run.iter().map(|e| e.1));
            set.sort_unstable();
            set.dedup();
            if let [single] = set[..] {
                out.push((run[0].0, single));
                continue;
            }
            let id = match self.ids.get(set.as_slice()) {
                Some(&id) => id,
                None => {
                    let id = self.sets.len() as u32;
                    self.ids.insert(set.clone(), id);
                    self.sets.push(set.clone());
                    self.bytes += 2 * (std::mem::size_of_val(set.as_slice()) + 40);
                    id
                }
            };
            out.push((run[0].0, (SET, id)));
        }
        out
    }
}

/// How a node's edge list is laid out, by a stamp per label (the check that last met it).
struct Layout {
    stamp: Vec<u32>,
    now: u32,
}

impl Layout {
    /// Whether each label's edges are adjacent (every label in range), and then whether
    /// some label has several.
    fn of(&mut self, list: &[Edge]) -> (bool, bool) {
        self.now += 1;
        let mut several = false;
        for run in list.chunk_by(|a, b| a.0 == b.0) {
            several |= run.len() > 1;
            match self.stamp.get_mut(run[0].0 as usize) {
                Some(s) if *s != self.now => *s = self.now,
                _ => return (false, several),
            }
        }
        (true, several)
    }
}

/// What a minimizer label stands for: an edge's `(class, push)` (with its rank among the
/// node's edges of that class and push, 0 but in a nondeterministic PDA) or a pop's symbol.
/// Edges order before pops, so the minimizer's numbering follows a node's edges by class,
/// then its pops by symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Move {
    Edge { class: u32, push: u32, rank: u32 },
    Pop { symbol: u32 },
}

/// Each edge of `list` (sorted by class) as a minimizer move: `(class, push)` with its rank
/// among the earlier edges of that class and push. Linear: a nondeterministic node may
/// have thousands of edges per class (ambiguous alternatives).
fn edge_moves(list: &[Edge], out: &mut Vec<(Move, u32)>, seen: &mut FastMap<u32, u32>) {
    for run in list.chunk_by(|a, b| a.0 == b.0) {
        if let [(class, (t, push))] = *run {
            out.push((
                Move::Edge {
                    class,
                    push,
                    rank: 0,
                },
                t,
            ));
            continue;
        }
        seen.clear();
        for &(class, (t, push)) in run {
            let rank = seen.entry(push).or_insert(0);
            out.push((
                Move::Edge {
                    class,
                    push,
                    rank: *rank,
                },
                t,
            ));
            *rank += 1;
        }
    }
}

/// Bytes per edge `merge_nodes` and the minimizer hold at once: the moves and labelled
/// edges, the minimizer's transitions, incoming lists and quotient.
const MERGE_BYTES_PER_EDGE: usize = 80;

/// The minimal equivalent graph: nodes merged when they have the same acceptance, the
/// same classes with the same pushes into equivalent nodes and the same pop symbols into
/// equivalent nodes; numbered breadth-first from the start (edges in class order, then
/// pops in symbol order), so equal automata give equal graphs. Several edges of one class
/// and push (a nondeterministic PDA, edges sorted) are told apart by their rank, which
/// merges only nodes that are equivalent, if not always all of them. Within `budget`: its
/// tables are counted before they are built, the moves are listed under the time budget
/// and the minimizer stops at its deadline.
pub(super) fn merge_nodes(g: &ClassGraph, budget: &Budget) -> Result<ClassGraph, PdaError> {
    let place = || "merging equivalent nodes (after walking the vocabulary)".to_string();
    let num_moves: usize =
        (g.edges.iter().map(Vec::len)).sum::<usize>() + g.pops.iter().map(Vec::len).sum::<usize>();
    let tables = (num_moves.saturating_add(g.accepting.len())).saturating_mul(MERGE_BYTES_PER_EDGE);
    budget.check_memory(tables, place)?;
    // Per node its moves and their targets, edges by class then pops by symbol.
    let (mut moves_of, mut starts) = (Vec::with_capacity(num_moves), vec![0]);
    let mut seen = FastMap::default();
    for (list, pops) in g.edges.iter().zip(&g.pops) {
        budget.poll(list.len() + pops.len(), || 0, place)?;
        edge_moves(list, &mut moves_of, &mut seen);
        moves_of.extend(pops.iter().map(|&(symbol, t)| (Move::Pop { symbol }, t)));
        starts.push(moves_of.len());
    }
    // Labels numbered densely in move order.
    let mut moves: Vec<Move> = moves_of.iter().map(|&(m, _)| m).collect();
    moves.sort_unstable();
    moves.dedup();
    let label = |m: Move| moves.partition_point(|&x| x < m) as u32;
    let edges: Vec<Vec<(u32, u32)>> = (starts.windows(2))
        .map(|w| {
            budget.poll(w[1] - w[0], || 0, place)?;
            let mut list: Vec<(u32, u32)> = moves_of[w[0]..w[1]]
                .iter()
                .map(|&(m, t)| (label(m), t))
                .collect();
            list.sort_unstable();
            Ok(list)
        })
        .collect::<Result<_, PdaError>>()?;
    drop(moves_of);
    let key: Vec<u32> = g.accepting.iter().map(|&a| u32::from(a)).collect();
    let quotient = merge_equivalent_before(g.start, &key, &edges, budget.deadline())
        .ok_or_else(|| budget.out_of_time(&place()))?;
    Ok(quotient_graph(g, &moves, &quotient))
}

/// The graph of `quotient` (of `g`'s nodes), its labels read back as `moves`.
fn quotient_graph(g: &ClassGraph, moves: &[Move], quotient: &Quotient) -> ClassGraph {
    let mut out = ClassGraph::default();
    for (rep, list) in quotient.representative.iter().zip(&quotient.edges) {
        out.accepting.push(g.accepting[*rep as usize]);
        let (mut node_edges, mut node_pops) = (Vec::new(), Vec::new());
        for &(l, t) in list {
            match moves[l as usize] {
                Move::Edge { class, push, .. } => node_edges.push((class, (t, push))),
                Move::Pop { symbol } => node_pops.push((symbol, t)),
            }
        }
        // Ranked edges into nodes now merged may have become equal.
        node_edges.sort_unstable();
        node_edges.dedup();
        out.edges.push(node_edges);
        out.pops.push(node_pops);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;

    use super::*;
    use crate::config::Config;
    use crate::error::PdaErrorKind;

    /// A budget whose time is already up.
    fn no_time() -> Budget {
        Config::new().time_budget(Duration::ZERO).budget()
    }

    /// `nodes` nodes, each with `per` edges of class 0 (distinct pushes) into the next.
    fn ambiguous(nodes: u32, per: u32) -> ClassGraph {
        ClassGraph {
            start: 0,
            accepting: (0..nodes).map(|n| n + 1 == nodes).collect(),
            edges: (0..nodes)
                .map(|n| match n + 1 < nodes {
                    true => (0..per).map(|p| (0, (n + 1, p))).collect(),
                    false => Vec::new(),
                })
                .collect(),
            pops: vec![Vec::new(); nodes as usize],
        }
    }

    /// The ranks as merge_nodes first counted them: each edge's earlier edges of its
    /// class and push, scanning back (quadratic per class, the oracle here).
    fn naive_moves(list: &[Edge]) -> Vec<(Move, u32)> {
        (list.iter().enumerate())
            .map(|(i, &(class, (t, push)))| {
                let rank = list[..i]
                    .iter()
                    .rev()
                    .take_while(|e| e.0 == class)
                    .filter(|e| e.1 .1 == push)
                    .count() as u32;
                (Move::Edge { class, push, rank }, t)
            })
            .collect()
    }

    proptest! {
        /// Ranks counted in one pass are the ranks scanned back.
        #[test]
        fn ranks_are_counted_in_one_pass(
            mut list in prop::collection::vec((0u32..4, (0u32..3, 0u32..3)), 0..60),
        ) {
            list.sort_unstable();
            let (mut out, mut seen) = (Vec::new(), FastMap::default());
            edge_moves(&list, &mut out, &mut seen);
            prop_assert_eq!(out, naive_moves(&list));
        }
    }

    /// With no time left, merging stops at its first poll, naming the phase.
    #[test]
    fn merging_stops_at_the_time_budget() {
        let e = merge_nodes(&ambiguous(3, 5000), &no_time()).unwrap_err();
        assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{e}");
        assert!(
            e.to_string().contains("while merging equivalent nodes"),
            "{e}"
        );
        let merged = merge_nodes(&ambiguous(3, 5000), &Budget::unlimited()).unwrap();
        assert_eq!(merged.edges[0].len(), 5000);
    }

    /// The merge's tables are counted before they are built.
    #[test]
    fn merging_is_counted_against_the_memory_budget() {
        let budget = Config::new().memory_budget(100_000).budget();
        let e = merge_nodes(&ambiguous(3, 5000), &budget).unwrap_err();
        assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{e}");
        assert!(
            e.to_string().contains("while merging equivalent nodes"),
            "{e}"
        );
    }

    /// Grouping, deterministic or by sets, stops at the time budget and counts what it
    /// builds against the memory budget.
    #[test]
    fn grouping_stops_at_the_budgets() {
        let place = || "grouping the tokens into classes".to_string();
        // 5,000 tokens with an edge each at every node, and several results for token 0.
        let mut g = ambiguous(3, 1);
        for list in g.edges.iter_mut().take(2) {
            let target = list[0].1 .0;
            *list = (0..5000).map(|l| (l, (target, l % 7))).collect();
            list.push((0, (target, 99)));
            list.sort_unstable();
        }
        type Grouping =
            fn(usize, &[Vec<Edge>], &Budget, &dyn Fn() -> String) -> Result<Grouped, PdaError>;
        // `group` takes one edge per token: the extra result of token 0 left out.
        let single: Vec<Vec<Edge>> = (g.edges.iter())
            .map(|l| l.iter().skip(1).copied().collect())
            .collect();
        for (grouping, edges) in [(group as Grouping, single), (group_sets, g.edges.clone())] {
            let e = grouping(5000, &edges, &no_time(), &place).unwrap_err();
            assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{e}");
            assert!(e.to_string().contains("while grouping the tokens"), "{e}");
            let small = Config::new().memory_budget(20_000).budget();
            let e = grouping(5000, &edges, &small, &place).unwrap_err();
            assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{e}");
            let (_, classes, _) = grouping(5000, &edges, &Budget::unlimited(), &place).unwrap();
            assert!(classes >= 7, "{classes}");
        }
    }
}
