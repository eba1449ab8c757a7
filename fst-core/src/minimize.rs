//! Minimization of token automata, with a canonical state numbering.
//!
//! Token automata have alphabets of 100k+ labels, millions of edges and partial
//! transition functions (a missing edge rejects). Moore-style rounds cost one pass over
//! all edges per round and can need as many rounds as states; this module uses the
//! Valmari–Lehtinen refinement instead ("Efficient minimization of DFAs with partial
//! transition functions", 2008), a Hopcroft variant in O(m log n) that never touches
//! the labels a state lacks. Its two refinable partitions are states (blocks) and edges
//! (cords: edges with one label whose targets lie in one block).
//!
//! The output is numbered canonically: start state 0, then breadth-first, following each
//! state's edges in token order. Two automata with the same language therefore give
//! identical `AutomatonParts`, which is what the tests compare.

use crate::automaton::{AutomatonParts, StateId};

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
pub fn minimize(mut parts: AutomatonParts) -> AutomatonParts {
    for list in &mut parts.edges {
        list.sort_unstable();
    }
    let (accepting, edges) = match useful_states(parts.start, &parts.accepting, &parts.edges) {
        Some(useful) => restrict(
            &useful,
            parts.start,
            std::mem::take(&mut parts.accepting),
            std::mem::take(&mut parts.edges),
        ),
        None => (vec![false], vec![Vec::new()]),
    };
    let block = coarsest_partition(&accepting, &edges);
    let (accepting, edges) = canonical(&block, &accepting, &edges);
    // The vocabulary, EOS ids and terminals carry over.
    AutomatonParts {
        start: 0,
        accepting,
        edges,
        ..parts
    }
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

/// A refinable partition of `0..n`: elements are kept grouped by set in `elems`, and
/// marking moves an element to the front of its set so a split is a cut of a range.
struct Partition {
    sets: usize,
    elems: Vec<u32>,
    loc: Vec<u32>,
    set_of: Vec<u32>,
    first: Vec<u32>,
    past: Vec<u32>,
    marked: Vec<u32>,
    touched: Vec<u32>,
}

impl Partition {
    /// One set holding `0..n` (no set when `n` is 0).
    fn new(n: usize) -> Partition {
        let mut first = vec![0u32; n.max(1)];
        let mut past = vec![0u32; n.max(1)];
        first[0] = 0;
        past[0] = n as u32;
        Partition {
            sets: usize::from(n > 0),
            elems: (0..n as u32).collect(),
            loc: (0..n as u32).collect(),
            set_of: vec![0; n],
            first,
            past,
            marked: vec![0; n.max(1)],
            touched: Vec::new(),
        }
    }

    fn mark(&mut self, e: u32) {
        let s = self.set_of[e as usize] as usize;
        let i = self.loc[e as usize];
        let j = self.first[s] + self.marked[s];
        if i < j {
            return; // already marked
        }
        let other = self.elems[j as usize];
        self.elems[i as usize] = other;
        self.loc[other as usize] = i;
        self.elems[j as usize] = e;
        self.loc[e as usize] = j;
        if self.marked[s] == 0 {
            self.touched.push(s as u32);
        }
        self.marked[s] += 1;
    }

    /// Splits every touched set into its marked and unmarked parts; the smaller part
    /// becomes a new set (the "process the smaller half" rule behind O(m log n)).
    fn split(&mut self) {
        while let Some(s) = self.touched.pop() {
            let s = s as usize;
            let j = self.first[s] + self.marked[s];
            if j == self.past[s] {
                self.marked[s] = 0;
                continue;
            }
            let z = self.sets;
            if self.marked[s] <= self.past[s] - j {
                self.first[z] = self.first[s];
                self.past[z] = j;
                self.first[s] = j;
            } else {
                self.past[z] = self.past[s];
                self.first[z] = j;
                self.past[s] = j;
            }
            for i in self.first[z]..self.past[z] {
                self.set_of[self.elems[i as usize] as usize] = z as u32;
            }
            self.marked[s] = 0;
            self.marked[z] = 0;
            self.sets += 1;
        }
    }

    fn members(&self, set: usize) -> &[u32] {
        &self.elems[self.first[set] as usize..self.past[set] as usize]
    }
}

/// The block of each state in the coarsest partition compatible with acceptance and
/// the (partial) transitions. The automaton must be trimmed.
fn coarsest_partition(accepting: &[bool], edges: &[Vec<(u32, StateId)>]) -> Vec<u32> {
    let n = accepting.len();
    let (tail, class, head, num_classes) = class_transitions(edges);
    let m = tail.len();

    let mut blocks = Partition::new(n);
    for s in (0..n).filter(|&s| accepting[s]) {
        blocks.mark(s as u32);
    }
    blocks.split();

    // Initial cords: transitions grouped by token class (they come grouped).
    let mut cords = Partition::new(m);
    if m > 0 {
        cords.sets = num_classes;
        for t in 0..m {
            cords.set_of[t] = class[t];
            if t == 0 || class[t] != class[t - 1] {
                cords.first[class[t] as usize] = t as u32;
            }
            cords.past[class[t] as usize] = t as u32 + 1;
        }
    }

    // Incoming transitions of each state, as a CSR.
    let mut in_start = vec![0u32; n + 1];
    for &h in &head {
        in_start[h as usize + 1] += 1;
    }
    for i in 0..n {
        in_start[i + 1] += in_start[i];
    }
    let mut fill = in_start.clone();
    let mut incoming = vec![0u32; m];
    for (t, &h) in head.iter().enumerate() {
        incoming[fill[h as usize] as usize] = t as u32;
        fill[h as usize] += 1;
    }

    // Every cord splits blocks by "has a transition in it"; every block but the first
    // splits cords by "goes into it" (the first block is the complement of the rest).
    let mut b = 1usize;
    let mut c = 0usize;
    while c < cords.sets {
        for &t in cords.members(c) {
            blocks.mark(tail[t as usize]);
        }
        blocks.split();
        c += 1;
        while b < blocks.sets {
            for &s in blocks.members(b) {
                let range = in_start[s as usize] as usize..in_start[s as usize + 1] as usize;
                for &t in &incoming[range] {
                    cords.mark(t);
                }
            }
            cords.split();
            b += 1;
        }
    }
    blocks.set_of
}

/// The transitions to refine with, as `(tail, class, head, number of classes)`, grouped
/// by class.
///
/// Tokens whose columns are identical (the same target from every state, the same
/// states without an edge) cannot tell states apart any differently, so only one
/// token per class of such tokens is kept. Token automata have many: every digit token
/// acts alike in `[0-9]+`, every lowercase token of one length in `[a-z]{1,30}`. This
/// shrinks the refinement from all edges to a handful on typical patterns.
fn class_transitions(edges: &[Vec<(u32, StateId)>]) -> (Vec<u32>, Vec<u32>, Vec<u32>, usize) {
    let m: usize = edges.iter().map(Vec::len).sum();
    // All transitions t: tail[t] --label[t]--> head[t], in state order.
    let mut tail = Vec::with_capacity(m);
    let mut label = Vec::with_capacity(m);
    let mut head = Vec::with_capacity(m);
    for (s, list) in edges.iter().enumerate() {
        for &(tok, t) in list {
            tail.push(s as u32);
            label.push(tok);
            head.push(t);
        }
    }
    // Grouped by label, in state order within a label: one column per token.
    let mut order: Vec<u32> = (0..m as u32).collect();
    sort_by_label(&mut order, &label);
    let mut columns: Vec<(u64, u32, u32)> = Vec::new();
    let mut i = 0;
    while i < m {
        let tok = label[order[i] as usize];
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut j = i;
        while j < m && label[order[j] as usize] == tok {
            let t = order[j] as usize;
            for word in [tail[t], head[t]] {
                hash = (hash ^ u64::from(word)).wrapping_mul(0x0000_0100_0000_01b3);
            }
            j += 1;
        }
        columns.push((hash, i as u32, j as u32));
        i = j;
    }
    let same = |a: (u32, u32), b: (u32, u32)| {
        a.1 - a.0 == b.1 - b.0
            && (a.0..a.1).zip(b.0..b.1).all(|(x, y)| {
                let (x, y) = (order[x as usize] as usize, order[y as usize] as usize);
                tail[x] == tail[y] && head[x] == head[y]
            })
    };
    // Equal columns have equal hashes and lengths: compare only within such runs.
    columns.sort_unstable_by_key(|&(hash, lo, hi)| (hash, hi - lo, lo));
    let mut representatives: Vec<(u32, u32)> = Vec::new();
    let mut run_start = 0;
    for (k, &(hash, lo, hi)) in columns.iter().enumerate() {
        let prev = k
            .checked_sub(1)
            .map(|p| (columns[p].0, columns[p].2 - columns[p].1));
        if prev != Some((hash, hi - lo)) {
            run_start = representatives.len();
        }
        if !representatives[run_start..]
            .iter()
            .any(|&rep| same(rep, (lo, hi)))
        {
            representatives.push((lo, hi));
        }
    }
    let kept: usize = representatives
        .iter()
        .map(|&(lo, hi)| (hi - lo) as usize)
        .sum();
    let (mut c_tail, mut c_class, mut c_head) = (
        Vec::with_capacity(kept),
        Vec::with_capacity(kept),
        Vec::with_capacity(kept),
    );
    for (c, &(lo, hi)) in representatives.iter().enumerate() {
        for k in lo..hi {
            let t = order[k as usize] as usize;
            c_tail.push(tail[t]);
            c_class.push(c as u32);
            c_head.push(head[t]);
        }
    }
    (c_tail, c_class, c_head, representatives.len())
}

/// Orders the transition numbers `elems` (`0..len` in order) by `label`, stably. Token labels are dense (below the
/// vocabulary size), so a counting sort beats a comparison sort by far on large inputs.
fn sort_by_label(elems: &mut [u32], label: &[u32]) {
    let max = label.iter().copied().max().unwrap_or(0) as usize;
    if max > 4 * elems.len() + (1 << 20) {
        // Stable, like the counting sort.
        elems.sort_by_key(|&t| label[t as usize]);
        return;
    }
    let mut start = vec![0u32; max + 2];
    for &l in label {
        start[l as usize + 1] += 1;
    }
    for i in 0..=max {
        start[i + 1] += start[i];
    }
    for (t, &l) in label.iter().enumerate() {
        elems[start[l as usize] as usize] = t as u32;
        start[l as usize] += 1;
    }
}

/// The quotient automaton by `block`, numbered breadth-first from the block of state 0
/// with each state's edges in token order.
fn canonical(
    block: &[u32],
    accepting: &[bool],
    edges: &[Vec<(u32, StateId)>],
) -> (Vec<bool>, Vec<Vec<(u32, StateId)>>) {
    let num_blocks = block.iter().map(|&b| b as usize + 1).max().unwrap_or(0);
    // One representative state per block.
    let mut representative = vec![u32::MAX; num_blocks];
    for (s, &b) in block.iter().enumerate() {
        if representative[b as usize] == u32::MAX {
            representative[b as usize] = s as u32;
        }
    }
    let mut number = vec![u32::MAX; num_blocks];
    let mut queue = vec![block[0]];
    number[block[0] as usize] = 0;
    let mut new_accepting = Vec::with_capacity(num_blocks);
    let mut new_edges = Vec::with_capacity(num_blocks);
    let mut head = 0;
    while head < queue.len() {
        let rep = representative[queue[head] as usize] as usize;
        head += 1;
        new_accepting.push(accepting[rep]);
        let list: Vec<(u32, StateId)> = edges[rep]
            .iter()
            .map(|&(tok, t)| {
                let b = block[t as usize] as usize;
                if number[b] == u32::MAX {
                    number[b] = queue.len() as u32;
                    queue.push(b as u32);
                }
                (tok, number[b])
            })
            .collect();
        new_edges.push(list);
    }
    (new_accepting, new_edges)
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
    fn sparse_huge_labels_take_the_comparison_sort() {
        let big = u32::MAX - 1;
        let input = parts(
            0,
            &[false, true, true],
            vec![vec![(big, 1), (3, 2)], vec![], vec![]],
        );
        let out = minimize(input);
        assert_eq!(out.edges, [vec![(3, 1), (big, 1)], vec![]]);
        let mut elems = vec![0, 1, 2];
        sort_by_label(&mut elems, &[big, 3, 7]);
        assert_eq!(elems, [1, 2, 0]);
        sort_by_label(&mut elems, &[9, 3, 7]);
        assert_eq!(elems, [1, 2, 0]);
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
