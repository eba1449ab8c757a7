//! Minimization of deterministic automata with partial transitions over `u32` labels,
//! with a canonical state numbering: the one minimizer, for token automata, byte DFAs,
//! grammar rule DFAs and the class graphs of token PDAs.
//!
//! Token automata have alphabets of 100k+ labels, millions of edges and partial
//! transition functions (a missing edge rejects). Moore-style rounds cost one pass over
//! all edges per round and can need as many rounds as states; this module uses
//! Hopcroft's refinement in Valmari and Lehtinen's variant for partial transition
//! functions ("Efficient minimization of DFAs with partial transition functions", 2008):
//! O(m log n), every initial block a splitter, a splitter's incoming transitions bucketed
//! by label, never touching the labels a state lacks. Labels whose columns agree are
//! first reduced to one ([`Columns`]), which leaves a handful on typical token automata.
//!
//! The output is numbered canonically: start state 0, then breadth-first, following each
//! state's edges in the order given (sorted by label, where this module sorts them). Two
//! automata with the same language therefore give identical `AutomatonParts`, which is
//! what the tests compare.

use std::time::Instant;

use crate::automaton::{AutomatonParts, StateId};
use crate::parts::columns::Columns;

use crate::deadline::{without_deadline, PastDeadline};

/// Splitters refined between two polls of the deadline.
const SPLITTERS_PER_POLL: usize = 256;

/// Per-state edge lists `(label, target)`.
pub type EdgeLists = Vec<Vec<(u32, StateId)>>;

/// The minimal automaton with the language of `parts`, canonically numbered.
///
/// States unreachable from the start or unable to reach acceptance are dropped first
/// (a missing edge and an edge into a dead state mean the same). An empty language
/// gives one non-accepting state without edges. `vocab_size`, the fingerprint and the
/// EOS ids and terminal labels are carried over unchanged.
///
/// `parts` must be deterministic (at most one edge per token in each state) with every
/// target a valid state; `TokenAutomaton::from_parts` checks the same. Edge targets out
/// of range panic.
pub fn minimize(parts: AutomatonParts) -> AutomatonParts {
    without_deadline(minimize_until(parts, None))
}

/// [`minimize`], giving up past `deadline`.
pub(crate) fn minimize_until(
    mut parts: AutomatonParts,
    deadline: Option<Instant>,
) -> Result<AutomatonParts, PastDeadline> {
    let accepting = std::mem::take(&mut parts.accepting);
    let edges = std::mem::take(&mut parts.edges);
    let (accepting, edges) = minimal_dfa_until(parts.start, accepting, edges, deadline)?;
    // The vocabulary, EOS ids and terminals carry over.
    Ok(AutomatonParts {
        start: 0,
        accepting,
        edges,
        ..parts
    })
}

/// The minimal DFA of the deterministic automaton (`start`, `accepting`, `edges`) as
/// `(accepting, edges)` with start 0: useful states only, equivalent ones merged, edges
/// sorted by label, numbered breadth-first. An empty language gives one non-accepting
/// state without edges. Same preconditions as [`minimize`].
pub fn minimal_dfa(
    start: StateId,
    accepting: Vec<bool>,
    edges: EdgeLists,
) -> (Vec<bool>, EdgeLists) {
    without_deadline(minimal_dfa_until(start, accepting, edges, None))
}

/// [`minimal_dfa`], giving up (`None`) once `deadline` passes: for a compile's time budget.
pub fn minimal_dfa_before(
    start: StateId,
    accepting: Vec<bool>,
    edges: EdgeLists,
    deadline: Option<Instant>,
) -> Option<(Vec<bool>, EdgeLists)> {
    minimal_dfa_until(start, accepting, edges, deadline).ok()
}

/// [`minimal_dfa`], giving up past `deadline`.
pub(crate) fn minimal_dfa_until(
    start: StateId,
    accepting: Vec<bool>,
    mut edges: EdgeLists,
    deadline: Option<Instant>,
) -> Result<(Vec<bool>, EdgeLists), PastDeadline> {
    for list in &mut edges {
        list.sort_unstable();
    }
    let (accepting, edges) = match useful_states(start, &accepting, &edges) {
        Some(useful) => restrict(&useful, start, accepting, edges),
        None => return Ok((vec![false], vec![Vec::new()])),
    };
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(PastDeadline);
    }
    let key: Vec<u32> = accepting.iter().map(|&a| u32::from(a)).collect();
    let block = coarsest_partition(&key, &edges, deadline)?;
    let quotient = canonical(0, &block, &edges);
    let accepting = (quotient.representative.iter())
        .map(|&s| accepting[s as usize])
        .collect();
    Ok((accepting, quotient.edges))
}

/// An automaton with its equivalent states merged (see [`merge_equivalent`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quotient {
    /// Per new state, the smallest old state of its block.
    pub representative: Vec<StateId>,
    /// Per new state, its representative's edges with targets renumbered.
    pub edges: EdgeLists,
}

/// Merges the states that no sequence of labels tells apart, starting from the
/// partition by `key` (states with different keys never merge: acceptance, or whatever
/// else the caller's states carry), and numbers the blocks reachable from `start`
/// breadth-first from 0, following each representative's edges in their given order.
/// Nothing is trimmed: a state without edges differs from one with an edge into it.
///
/// `edges` must be deterministic (at most one edge per label in each state) with every
/// target a valid state; out-of-range targets panic.
pub fn merge_equivalent(start: StateId, key: &[u32], edges: &[Vec<(u32, StateId)>]) -> Quotient {
    let block = without_deadline(coarsest_partition(key, edges, None));
    canonical(start, &block, edges)
}

/// [`merge_equivalent`], giving up (`None`) once `deadline` passes: for a compile's time
/// budget.
pub fn merge_equivalent_before(
    start: StateId,
    key: &[u32],
    edges: &[Vec<(u32, StateId)>],
    deadline: Option<Instant>,
) -> Option<Quotient> {
    let block = coarsest_partition(key, edges, deadline).ok()?;
    Some(canonical(start, &block, edges))
}

/// Which states are both reachable from `start` and co-reachable to acceptance, or
/// `None` when `start` is not such a state (empty language or no states at all).
fn useful_states(
    start: StateId,
    accepting: &[bool],
    edges: &[Vec<(u32, StateId)>],
) -> Option<Vec<bool>> {
    let n = accepting.len();
    if start as usize >= n {
        return None;
    }
    let mut reached = vec![false; n];
    reached[start as usize] = true;
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        for &(_, t) in &edges[s as usize] {
            if !reached[t as usize] {
                reached[t as usize] = true;
                stack.push(t);
            }
        }
    }
    let seeds = (0..n).map(|s| reached[s] && accepting[s]).collect();
    let useful = coreachable(seeds, edges, |s| reached[s]);
    useful[start as usize].then_some(useful)
}

/// `seeds` widened by every state with an edge path into a seed, following only the
/// edges of states `from` allows (backward reachability over a CSR of edge sources):
/// the co-reachability pass of minimization and the composition's trim.
pub(crate) fn coreachable(
    seeds: Vec<bool>,
    edges: &[Vec<(u32, StateId)>],
    from: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let edges = || {
        (0..seeds.len())
            .filter(|&s| from(s))
            .flat_map(|s| edges[s].iter().map(move |&(_, t)| (s as u32, t, ())))
    };
    let (in_start, sources, _) = edge_sources(seeds.len(), edges);
    backward(seeds, &in_start, &sources, |_| true)
}

/// The edges `(source, target, tag)` of an automaton of `n` states by target, as a CSR:
/// the sources of the edges into `t` are `sources[in_start[t]..in_start[t + 1]]`, and
/// `tags` holds each one's tag at the same index. `edges` is called twice (count, fill).
pub(crate) fn edge_sources<T, I>(n: usize, edges: impl Fn() -> I) -> (Vec<u32>, Vec<u32>, Vec<T>)
where
    T: Copy + Default,
    I: Iterator<Item = (u32, u32, T)>,
{
    let mut in_start = vec![0u32; n + 1];
    for (_, t, _) in edges() {
        in_start[t as usize + 1] += 1;
    }
    for i in 0..n {
        in_start[i + 1] += in_start[i];
    }
    let mut fill = in_start.clone();
    let mut sources = vec![0u32; in_start[n] as usize];
    let mut tags = vec![T::default(); sources.len()];
    for (s, t, tag) in edges() {
        let i = fill[t as usize] as usize;
        (sources[i], tags[i]) = (s, tag);
        fill[t as usize] += 1;
    }
    (in_start, sources, tags)
}

/// `seeds` widened backward over a CSR of edge sources (the sources of the edges into
/// `t` are `sources[in_start[t]..in_start[t + 1]]`), following the edges whose index in
/// `sources` `keep` allows: the one backward search (see [`edge_sources`]), also run by
/// the lazy automaton's liveness.
pub(crate) fn backward(
    seeds: Vec<bool>,
    in_start: &[u32],
    sources: &[u32],
    keep: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let n = seeds.len();
    let mut live = seeds;
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| live[s as usize]).collect();
    while let Some(s) = stack.pop() {
        let (from, to) = (
            in_start[s as usize] as usize,
            in_start[s as usize + 1] as usize,
        );
        for (i, &p) in sources[from..to].iter().enumerate() {
            if keep(from + i) && !live[p as usize] {
                live[p as usize] = true;
                stack.push(p);
            }
        }
    }
    live
}

/// The automaton on the useful states only, with the start state renumbered to 0 and
/// the others in their old order.
pub(crate) fn restrict(
    useful: &[bool],
    start: StateId,
    accepting: Vec<bool>,
    edges: Vec<Vec<(u32, StateId)>>,
) -> (Vec<bool>, Vec<Vec<(u32, StateId)>>) {
    let n = accepting.len();
    // The start goes first; the others keep their relative order.
    let mut renumber = vec![u32::MAX; n];
    renumber[start as usize] = 0;
    let mut next = 1u32;
    for s in 0..n {
        if useful[s] && s != start as usize {
            renumber[s] = next;
            next += 1;
        }
    }
    let mut new_accepting = vec![false; next as usize];
    let mut new_edges = vec![Vec::new(); next as usize];
    for (s, list) in edges.into_iter().enumerate() {
        if renumber[s] == u32::MAX {
            continue;
        }
        let r = renumber[s] as usize;
        new_accepting[r] = accepting[s];
        new_edges[r] = list
            .into_iter()
            .filter(|&(_, t)| useful[t as usize])
            .map(|(tok, t)| (tok, renumber[t as usize]))
            .collect();
    }
    (new_accepting, new_edges)
}

/// A block of the partition: the range `start..end` of `Partition::elems`, its marked
/// elements at the front.
struct Block {
    start: usize,
    end: usize,
    marked: usize,
}

/// The partition of the states being refined, with its splitter worklist.
struct Partition {
    elems: Vec<u32>,
    /// The position of each state in `elems`.
    loc: Vec<usize>,
    blocks: Vec<Block>,
    /// The block of each state.
    blk: Vec<u32>,
    work: Vec<u32>,
    in_work: Vec<bool>,
}

impl Partition {
    /// One block per distinct key, each a splitter: without a complete transition
    /// function no block is the complement of what the others split.
    fn by_key(key: &[u32]) -> Partition {
        let n = key.len();
        let mut elems: Vec<u32> = (0..n as u32).collect();
        if !key.windows(2).all(|w| w[0] <= w[1]) {
            elems.sort_by_key(|&e| key[e as usize]);
        }
        let mut p = Partition {
            loc: vec![0; n],
            blocks: Vec::new(),
            blk: vec![0; n],
            work: Vec::new(),
            in_work: Vec::new(),
            elems,
        };
        for i in 0..n {
            let e = p.elems[i] as usize;
            p.loc[e] = i;
            if i == 0 || key[e] != key[p.elems[i - 1] as usize] {
                p.work.push(p.blocks.len() as u32);
                p.in_work.push(true);
                p.blocks.push(Block {
                    start: i,
                    end: i,
                    marked: 0,
                });
            }
            p.blocks.last_mut().expect("pushed above").end = i + 1;
            p.blk[e] = p.blocks.len() as u32 - 1;
        }
        p
    }

    /// Splits blocks until no splitter is left. A splitter's sources are bucketed by label
    /// class (a counting sort: no comparison sort) and each class splits the blocks it
    /// marks. `incoming(t)` gives the `(class, source)` pairs of the transitions into `t`.
    /// Polls `deadline` every few splitters.
    fn refine<'a>(
        &mut self,
        incoming: impl Fn(u32) -> &'a [(u32, u32)],
        num_classes: usize,
        deadline: Option<Instant>,
    ) -> Result<(), PastDeadline> {
        let mut sources: Vec<Vec<u32>> = vec![Vec::new(); num_classes];
        let mut classes: Vec<u32> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        let mut popped = 0usize;
        while let Some(a) = self.work.pop() {
            popped += 1;
            if popped % SPLITTERS_PER_POLL == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(PastDeadline);
            }
            self.in_work[a as usize] = false;
            let ab = &self.blocks[a as usize];
            for &t in &self.elems[ab.start..ab.end] {
                for &(c, s) in incoming(t) {
                    let bucket = &mut sources[c as usize];
                    if bucket.is_empty() {
                        classes.push(c);
                    }
                    bucket.push(s);
                }
            }
            for c in classes.drain(..) {
                let mut bucket = std::mem::take(&mut sources[c as usize]);
                touched.clear();
                self.mark(&bucket, &mut touched);
                bucket.clear();
                sources[c as usize] = bucket;
                for &b in &touched {
                    self.split(b);
                }
            }
        }
        Ok(())
    }

    /// Moves each state of `states` to the marked front of its block; `touched` gets the
    /// blocks that had none marked before.
    fn mark(&mut self, states: &[u32], touched: &mut Vec<u32>) {
        for &s in states {
            let b = self.blk[s as usize] as usize;
            let block = &mut self.blocks[b];
            let m = block.start + block.marked;
            let p = self.loc[s as usize];
            if p < m {
                continue;
            }
            let other = self.elems[m];
            self.elems.swap(p, m);
            self.loc[other as usize] = p;
            self.loc[s as usize] = m;
            block.marked += 1;
            if block.marked == 1 {
                touched.push(b as u32);
            }
        }
    }

    /// Splits block `b`'s marked front into a new block (unless all of it is marked) and
    /// queues a splitter: the new block if `b` is queued, else the smaller half (the
    /// "process the smaller half" rule behind O(m log n)).
    fn split(&mut self, b: u32) {
        let (start, end, marked) = {
            let block = &mut self.blocks[b as usize];
            let r = (block.start, block.end, block.marked);
            block.marked = 0;
            r
        };
        if marked == end - start {
            return;
        }
        let nb = self.blocks.len() as u32;
        self.blocks.push(Block {
            start,
            end: start + marked,
            marked: 0,
        });
        self.blocks[b as usize].start = start + marked;
        for &s in &self.elems[start..start + marked] {
            self.blk[s as usize] = nb;
        }
        self.in_work.push(false);
        let queued = if self.in_work[b as usize] || marked <= end - start - marked {
            nb
        } else {
            b
        };
        self.work.push(queued);
        self.in_work[queued as usize] = true;
    }
}

/// The block of each state in the coarsest partition that refines `key` and is
/// compatible with the (partial) transitions: Hopcroft's refinement in Valmari and
/// Lehtinen's variant for partial transition functions, over one label per column.
fn coarsest_partition(
    key: &[u32],
    edges: &[Vec<(u32, StateId)>],
    deadline: Option<Instant>,
) -> Result<Vec<u32>, PastDeadline> {
    let n = key.len();
    let (tail, class, head, num_classes) = class_transitions(edges, deadline)?;
    let transitions = || (0..tail.len()).map(|t| (tail[t], head[t], class[t]));
    let (in_start, sources, classes) = edge_sources(n, transitions);
    let incoming: Vec<(u32, u32)> = classes.into_iter().zip(sources).collect();
    let mut partition = Partition::by_key(key);
    partition.refine(
        |t| &incoming[in_start[t as usize] as usize..in_start[t as usize + 1] as usize],
        num_classes,
        deadline,
    )?;
    Ok(partition.blk)
}

/// Transitions by class: `(tail, class, head, number of classes)`.
type ClassTransitions = (Vec<u32>, Vec<u32>, Vec<u32>, usize);

/// The transitions to refine with, as `(tail, class, head, number of classes)`, grouped
/// by class.
///
/// Labels whose columns are identical (the same target from every state, the same
/// states without an edge) cannot tell states apart any differently, so only one
/// label per class of such labels is kept ([`Columns`]). Token automata have many: every
/// digit token acts alike in `[0-9]+`, every lowercase token of one length in
/// `[a-z]{1,30}`. This shrinks the refinement from all edges to a handful on typical
/// patterns.
fn class_transitions(
    edges: &[Vec<(u32, StateId)>],
    deadline: Option<Instant>,
) -> Result<ClassTransitions, PastDeadline> {
    let dense = dense_labels(edges);
    let edges = dense.as_deref().unwrap_or(edges);
    let num_labels = (edges.iter().flatten())
        .map(|&(l, _)| l as usize + 1)
        .max()
        .unwrap_or(0);
    let columns = Columns::group_before(num_labels, edges, deadline).ok_or(PastDeadline)?;
    // The edges of each class's smallest label, counted then placed by class.
    let num_classes = columns.num_classes();
    let mut start = vec![0u32; num_classes + 1];
    for list in edges {
        for (c, _) in kept_edges(&columns, list) {
            start[c as usize + 1] += 1;
        }
    }
    for c in 0..num_classes {
        start[c + 1] += start[c];
    }
    let m = start[num_classes] as usize;
    let (mut tail, mut class, mut head) = (vec![0u32; m], vec![0u32; m], vec![0u32; m]);
    for (s, list) in edges.iter().enumerate() {
        for (c, t) in kept_edges(&columns, list) {
            let i = start[c as usize] as usize;
            (tail[i], class[i], head[i]) = (s as u32, c, t);
            start[c as usize] += 1;
        }
    }
    Ok((tail, class, head, num_classes))
}

/// The edges of `list` whose label is its class's smallest, as `(class, target)`.
fn kept_edges<'a>(
    columns: &'a Columns,
    list: &'a [(u32, StateId)],
) -> impl Iterator<Item = (u32, StateId)> + 'a {
    list.iter().filter_map(|&(l, t)| {
        let c = columns.class_of[l as usize];
        (columns.first[c as usize] == l).then_some((c, t))
    })
}

/// The edges with their labels numbered densely in label order, when the labels are
/// too sparse to index a table by (`None` when they are not).
fn dense_labels(edges: &[Vec<(u32, StateId)>]) -> Option<EdgeLists> {
    let m: usize = edges.iter().map(Vec::len).sum();
    let max = edges.iter().flatten().map(|&(l, _)| l).max().unwrap_or(0);
    if max as usize <= 4 * m + (1 << 20) {
        return None;
    }
    let mut labels: Vec<u32> = edges.iter().flatten().map(|&(l, _)| l).collect();
    labels.sort_unstable();
    labels.dedup();
    let dense = |l: u32| labels.partition_point(|&x| x < l) as u32;
    Some(
        (edges.iter())
            .map(|list| list.iter().map(|&(l, t)| (dense(l), t)).collect())
            .collect(),
    )
}

/// The quotient automaton by `block`, numbered breadth-first from the block of `start`
/// with each representative's edges in their order.
fn canonical(start: StateId, block: &[u32], edges: &[Vec<(u32, StateId)>]) -> Quotient {
    let num_blocks = block.iter().map(|&b| b as usize + 1).max().unwrap_or(0);
    // One representative state per block: its smallest.
    let mut first_of_block = vec![u32::MAX; num_blocks];
    for (s, &b) in block.iter().enumerate() {
        if first_of_block[b as usize] == u32::MAX {
            first_of_block[b as usize] = s as u32;
        }
    }
    let mut number = vec![u32::MAX; num_blocks];
    let mut queue = vec![block[start as usize]];
    number[queue[0] as usize] = 0;
    let mut representative = Vec::with_capacity(num_blocks);
    let mut new_edges = Vec::with_capacity(num_blocks);
    let mut head = 0;
    while head < queue.len() {
        let rep = first_of_block[queue[head] as usize];
        head += 1;
        representative.push(rep);
        let list: Vec<(u32, StateId)> = edges[rep as usize]
            .iter()
            .map(|&(label, t)| {
                let b = block[t as usize] as usize;
                if number[b] == u32::MAX {
                    number[b] = queue.len() as u32;
                    queue.push(b as u32);
                }
                (label, number[b])
            })
            .collect();
        new_edges.push(list);
    }
    Quotient {
        representative,
        edges: new_edges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(start: u32, accepting: &[bool], edges: Vec<Vec<(u32, u32)>>) -> AutomatonParts {
        AutomatonParts {
            vocab_size: 10,
            vocab_fingerprint: 7,
            eos_ids: vec![9],
            start,
            accepting: accepting.to_vec(),
            edges,
            terminals: Vec::new(),
        }
    }

    #[test]
    fn merges_equivalent_states_and_renumbers_from_start() {
        // Start is state 2; states 0 and 1 both accept after token 5 and nothing else.
        let input = parts(
            2,
            &[false, false, false, true],
            vec![vec![(5, 3)], vec![(5, 3)], vec![(1, 1), (0, 0)], vec![]],
        );
        let out = minimize(input);
        assert_eq!(out.start, 0);
        assert_eq!(out.accepting, [false, false, true]);
        assert_eq!(out.edges, [vec![(0, 1), (1, 1)], vec![(5, 2)], vec![]]);
        assert_eq!((out.vocab_size, out.vocab_fingerprint), (10, 7));
        assert_eq!(out.eos_ids, [9]);
    }

    #[test]
    fn missing_edge_differs_from_present_edge() {
        // 1 and 2 accept; only 1 continues with token 3, so they must stay apart.
        let input = parts(
            0,
            &[false, true, true],
            vec![vec![(0, 1), (1, 2)], vec![(3, 2)], vec![]],
        );
        let out = minimize(input.clone());
        assert_eq!(out.edges.len(), 3);
        assert_eq!(minimize(out.clone()), out);
    }

    #[test]
    fn empty_language_gives_one_rejecting_state() {
        let out = minimize(parts(0, &[false, false], vec![vec![(1, 1)], vec![]]));
        assert_eq!(out.accepting, [false]);
        assert_eq!(out.edges, [Vec::<(u32, u32)>::new()]);
        let none = minimize(parts(0, &[], vec![]));
        assert_eq!(none.accepting, [false]);
    }

    #[test]
    fn sparse_huge_labels_are_numbered_densely() {
        let big = u32::MAX - 1;
        let input = parts(
            0,
            &[false, true, true],
            vec![vec![(big, 1), (3, 2)], vec![], vec![]],
        );
        let out = minimize(input);
        assert_eq!(out.edges, [vec![(3, 1), (big, 1)], vec![]]);
        let dense = dense_labels(&[vec![(big, 1), (3, 2)], vec![(7, 0)]]);
        assert_eq!(dense, Some(vec![vec![(2, 1), (0, 2)], vec![(1, 0)]]));
        assert_eq!(dense_labels(&[vec![(9, 0)]]), None);
    }

    #[test]
    fn keys_keep_states_apart_and_nothing_is_trimmed() {
        // 1, 2 and 3 have no edges; 1 and 3 share a key, 2 has another.
        let edges = vec![vec![(0, 1), (1, 2), (2, 3)], vec![], vec![], vec![]];
        let q = merge_equivalent(0, &[0, 5, 7, 5], &edges);
        assert_eq!(q.representative, [0, 1, 2]);
        assert_eq!(q.edges, [vec![(0, 1), (1, 2), (2, 1)], vec![], vec![]]);
        // A dead state is kept, apart from a state with an edge into it.
        let q = merge_equivalent(1, &[0, 0, 9], &[vec![], vec![(4, 0)], vec![(4, 1)]]);
        assert_eq!(q.representative, [1, 0]);
        assert_eq!(q.edges, [vec![(4, 1)], vec![]]);
    }

    #[test]
    fn a_deadline_stops_the_refinement() {
        // a{2000}: every state differs from every other by its distance to the end, so
        // the refinement takes one splitter per state.
        let n = 2000u32;
        let accepting: Vec<bool> = (0..=n).map(|s| s == n).collect();
        let edges = (0..=n).map(|s| if s < n { vec![(0, s + 1)] } else { vec![] });
        let input = parts(0, &accepting, edges.collect());
        let past = Some(std::time::Instant::now());
        assert_eq!(minimize_until(input.clone(), past), Err(PastDeadline));
        assert_eq!(
            minimize_until(input.clone(), None),
            Ok(minimize(input.clone()))
        );
        // The same for merging equivalent states (a token PDA's class graph).
        let key: Vec<u32> = accepting.iter().map(|&a| u32::from(a)).collect();
        assert_eq!(merge_equivalent_before(0, &key, &input.edges, past), None);
        let whole = merge_equivalent(0, &key, &input.edges);
        assert_eq!(
            merge_equivalent_before(0, &key, &input.edges, None),
            Some(whole)
        );
    }

    #[test]
    fn drops_dead_and_unreachable_states() {
        // 1 is dead (no way to accept), 3 is unreachable.
        let out = minimize(parts(
            0,
            &[false, false, true, true],
            vec![vec![(0, 1), (1, 2)], vec![(0, 1)], vec![], vec![(0, 2)]],
        ));
        assert_eq!(out.accepting, [false, true]);
        assert_eq!(out.edges, [vec![(1, 1)], vec![]]);
    }
}
