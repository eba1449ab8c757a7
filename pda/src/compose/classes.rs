//! Token classes and node merging, both by fstc-core's one routine for each: labels
//! (tokens, or classes of tokens) whose edges agree at every node — same target, same
//! pushes, or no edge — are one class ([`Columns`]), as in fstc-core's FSA path, so a node
//! has one edge per class and a mask is a few ORs of class masks; nodes that behave the
//! same under every stack are merged by the minimizer ([`merge_equivalent`]). Distinct
//! dotted rules and pop nodes of different states often have the same future
//! (`T -> "b" •` and `T -> S "b" •`), and pop graphs may come out cyclic.

use std::borrow::Cow;

use fstc_core::fast_hash::FastMap;
use fstc_core::minimize::merge_equivalent;
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

/// Groups the `num_labels` labels of `edges` (per node, in any order, at most one edge per
/// label) by their column. Returns each label's class (classes numbered by smallest
/// label, `NO_CLASS` for a label without edges), the number of classes, and the edges
/// relabelled by class, sorted by class within each node.
pub(super) fn group(num_labels: usize, edges: &[Vec<Edge>]) -> (Vec<u32>, u32, Vec<Vec<Edge>>) {
    let columns = Columns::group(num_labels, edges);
    let relabelled = edges.iter().map(|list| columns.relabel(list)).collect();
    let num_classes = columns.num_classes() as u32;
    (columns.class_of, num_classes, relabelled)
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
) -> (Vec<u32>, u32, Vec<Vec<Edge>>) {
    let mut sets = ResultSets::default();
    let mut layout = Layout {
        stamp: vec![0; num_labels],
        now: 0,
    };
    let by_set: Vec<Cow<[Edge]>> = edges
        .iter()
        .map(|list| match layout.of(list) {
            (true, false) => Cow::Borrowed(list.as_slice()),
            // The walk records a token's edges together: sorting each run is enough then.
            (true, true) => Cow::Owned(sets.number(list)),
            (false, _) => {
                let mut copy = list.clone();
                copy.sort_unstable();
                Cow::Owned(sets.number(&copy))
            }
        })
        .collect();
    let columns = Columns::group(num_labels, &by_set);
    let relabelled = by_set
        .iter()
        .map(|list| {
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
        })
        .collect();
    let num_classes = columns.num_classes() as u32;
    (columns.class_of, num_classes, relabelled)
}

/// The sets of several results met so far, numbered.
#[derive(Default)]
struct ResultSets {
    ids: FastMap<Vec<(u32, u32)>, u32>,
    sets: Vec<Vec<(u32, u32)>>,
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
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Move {
    Edge { class: u32, push: u32, rank: u32 },
    Pop { symbol: u32 },
}

/// The minimal equivalent graph: nodes merged when they have the same acceptance, the
/// same classes with the same pushes into equivalent nodes and the same pop symbols into
/// equivalent nodes; numbered breadth-first from the start (edges in class order, then
/// pops in symbol order), so equal automata give equal graphs. Several edges of one class
/// and push (a nondeterministic PDA, edges sorted) are told apart by their rank, which
/// merges only nodes that are equivalent, if not always all of them. Within `budget`
/// (polled per node as its moves are listed).
pub(super) fn merge_nodes(g: &ClassGraph, budget: &Budget) -> Result<ClassGraph, PdaError> {
    let place = || "merging equivalent nodes (after walking the vocabulary)".to_string();
    let moves_of = |n: usize| {
        let list = &g.edges[n];
        let edges = list
            .iter()
            .enumerate()
            .map(move |(i, &(class, (t, push)))| {
                let rank = list[..i]
                    .iter()
                    .rev()
                    .take_while(|e| e.0 == class)
                    .filter(|e| e.1 .1 == push)
                    .count() as u32;
                let edge = Move::Edge { class, push, rank };
                (edge, t)
            });
        let pops = g.pops[n]
            .iter()
            .map(|&(symbol, t)| (Move::Pop { symbol }, t));
        edges.chain(pops)
    };
    // Labels numbered densely in move order.
    let mut moves: Vec<Move> = Vec::new();
    for n in 0..g.accepting.len() {
        budget.poll(g.edges[n].len(), || 0, place)?;
        moves.extend(moves_of(n).map(|(m, _)| m));
    }
    moves.sort_unstable();
    moves.dedup();
    let label = |m: Move| moves.partition_point(|&x| x < m) as u32;
    let edges: Vec<Vec<(u32, u32)>> = (0..g.accepting.len())
        .map(|n| {
            budget.poll(g.edges[n].len(), || 0, place)?;
            let mut list: Vec<(u32, u32)> = moves_of(n).map(|(m, t)| (label(m), t)).collect();
            list.sort_unstable();
            Ok(list)
        })
        .collect::<Result<_, PdaError>>()?;
    let key: Vec<u32> = g.accepting.iter().map(|&a| u32::from(a)).collect();
    let quotient = merge_equivalent(g.start, &key, &edges);
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
    Ok(out)
}
