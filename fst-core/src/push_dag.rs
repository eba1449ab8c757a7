//! The push sequences of one node's edges of one class as a small stack DAG, derived when
//! a nondeterministic token PDA is loaded and laid by the GLR walker over a configuration's
//! top at each step that reads them.
//!
//! A token may push many sequences from one node: each `(` of the token `((((((((` may open
//! its group as either of two rules, so its edges push 768 sequences of 8 symbols. Laid one
//! by one, they make a vertex per distinct beginning (about 1,500) and tops with hundreds
//! of parents, whose pop chains the following steps walk again. Here sequences that end
//! alike share vertices: a top vertex's parents are the vertices of the sequences below
//! it, grouped by symbol and height (a subset construction reading the sequences from the
//! top), so the same stacks take a vertex or two per height. Grouping by height keeps every
//! vertex's depth exact, so the stack limit reads what it read before.

use crate::fast_hash::FastMap;
use crate::parts::StateId;

/// The configuration's top vertex the DAG is laid on.
pub(crate) const ROOT: u32 = u32::MAX;

/// Results of one node and class from which a DAG is derived.
pub(crate) const MIN_RESULTS: usize = 8;

/// Most symbols pushed by one node and class's results, and longest sequence, for which a
/// DAG is derived: its making (recursive per height, at worst quadratic in the symbols)
/// stays small on any file; beyond them the walker lays the sequences one by one.
const MAX_SYMBOLS: usize = 8192;
const MAX_LEN: usize = 64;

/// One node's results for one class with their pushes as a DAG over [`ROOT`].
#[derive(Clone, Debug, Default)]
pub(crate) struct PushDag {
    /// Vertices, each after its parents: symbol and parents (vertex indices or `ROOT`).
    pub vertices: Vec<(u32, Vec<u32>)>,
    /// Per distinct `(target, top symbol)` of the results that push: the parents of the
    /// pushed top symbol.
    pub tops: Vec<(StateId, u32, Vec<u32>)>,
    /// The targets of results that push nothing.
    pub stays: Vec<StateId>,
    /// The longest push sequence, for the stack limit.
    pub max_len: usize,
}

/// Beginnings of sequences as a trie: `(parent or ROOT, symbol, height)` per node.
struct Builder {
    trie: Vec<(u32, u32, u32)>,
    child: FastMap<(u32, u32), u32>,
    /// Vertex indices of sets of beginnings (sorted trie nodes or `ROOT`).
    memo: FastMap<Vec<u32>, Vec<u32>>,
    vertex_of: FastMap<(u32, Vec<u32>), u32>,
    dag: PushDag,
}

impl PushDag {
    /// The DAG of `results` (`(target, push sequence)`), unless they push more than
    /// `MAX_SYMBOLS` symbols or a sequence is longer than `MAX_LEN`.
    pub(crate) fn of(results: &[(StateId, &[u32])]) -> Option<PushDag> {
        let (mut total, mut longest) = (0, 0);
        for (_, seq) in results {
            total += seq.len();
            longest = longest.max(seq.len());
        }
        (total <= MAX_SYMBOLS && longest <= MAX_LEN).then(|| PushDag::new(results.iter().copied()))
    }

    /// The DAG of `results`: `(target, push sequence)`.
    fn new<'s>(results: impl IntoIterator<Item = (StateId, &'s [u32])>) -> PushDag {
        let mut b = Builder {
            trie: Vec::new(),
            child: FastMap::default(),
            memo: FastMap::default(),
            vertex_of: FastMap::default(),
            dag: PushDag::default(),
        };
        // (target, top symbol, the trie node of the sequence without it).
        let mut ends: Vec<(StateId, u32, u32)> = Vec::new();
        for (target, seq) in results {
            b.dag.max_len = b.dag.max_len.max(seq.len());
            match seq.split_last() {
                None => b.dag.stays.push(target),
                Some((&top, rest)) => ends.push((target, top, b.insert(rest))),
            }
        }
        b.dag.stays.sort_unstable();
        b.dag.stays.dedup();
        ends.sort_unstable();
        ends.dedup();
        for group in ends.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let below = group.iter().map(|e| e.2).collect();
            let parents = b.vertices(below);
            b.dag.tops.push((group[0].0, group[0].1, parents));
        }
        b.dag
    }
}

impl Builder {
    /// The trie node of `seq` (`ROOT` for the empty one), made as needed.
    fn insert(&mut self, seq: &[u32]) -> u32 {
        let mut at = ROOT;
        for (height, &symbol) in (1u32..).zip(seq) {
            let (parent, next) = (at, self.trie.len() as u32);
            at = *self.child.entry((parent, symbol)).or_insert(next);
            if at == next {
                self.trie.push((parent, symbol, height));
            }
        }
        at
    }

    /// The vertices standing for the beginnings `set` (trie nodes or `ROOT`, any order):
    /// `ROOT` itself, and per symbol and height a vertex over the vertices of its members'
    /// own beginnings. Sorted.
    fn vertices(&mut self, mut set: Vec<u32>) -> Vec<u32> {
        set.sort_unstable();
        set.dedup();
        if let Some(found) = self.memo.get(&set) {
            return found.clone();
        }
        let mut out = Vec::new();
        let mut groups: Vec<(u32, u32, u32)> = Vec::new();
        for &n in &set {
            match self.trie.get(n as usize) {
                None => out.push(ROOT),
                Some(&(parent, symbol, height)) => groups.push((height, symbol, parent)),
            }
        }
        groups.sort_unstable();
        for group in groups.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let parents = self.vertices(group.iter().map(|g| g.2).collect());
            out.push(self.vertex(group[0].1, parents));
        }
        out.sort_unstable();
        self.memo.insert(set, out.clone());
        out
    }

    /// The vertex `symbol` over `parents`, made once.
    fn vertex(&mut self, symbol: u32, parents: Vec<u32>) -> u32 {
        let next = self.dag.vertices.len() as u32;
        let key = (symbol, parents);
        if let Some(&v) = self.vertex_of.get(&key) {
            return v;
        }
        self.dag.vertices.push(key.clone());
        self.vertex_of.insert(key, next);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The stacks above `ROOT` that vertex `v` stands for, with the height of each.
    fn stacks(dag: &PushDag, v: u32) -> BTreeSet<Vec<u32>> {
        if v == ROOT {
            return [Vec::new()].into();
        }
        let (symbol, parents) = &dag.vertices[v as usize];
        let mut out = BTreeSet::new();
        for &p in parents {
            assert!(p == ROOT || p < v, "a parent comes first");
            for mut s in stacks(dag, p) {
                s.push(*symbol);
                out.insert(s);
            }
        }
        out
    }

    #[test]
    fn independent_choices_take_two_vertices_per_height() {
        // Every sequence of 8 symbols from {0, 1}: 256 results, as a token `((((((((` whose
        // each `(` opens its group one of two ways.
        let seqs: Vec<Vec<u32>> = (0..256u32)
            .map(|bits| (0..8).map(|i| bits >> i & 1).collect())
            .collect();
        let dag = PushDag::new(seqs.iter().map(|s| (5, s.as_slice())));
        assert_eq!(dag.vertices.len(), 14, "heights 1 to 7, two symbols each");
        assert_eq!(dag.tops.len(), 2);
        assert!(dag.tops.iter().all(|t| t.2.len() == 2));
    }

    proptest::proptest! {
        /// The DAG stands for exactly the results given: per target, the same sequences;
        /// every vertex's sequences are of one length (its depth is exact).
        #[test]
        fn a_dag_holds_exactly_its_sequences(
            results in proptest::collection::vec(
                (0u32..3, proptest::collection::vec(0u32..3, 0..5)),
                0..40,
            ),
        ) {
            let dag = PushDag::new(results.iter().map(|(t, s)| (*t, s.as_slice())));
            let expected: BTreeSet<(u32, Vec<u32>)> = results.iter().cloned().collect();
            let mut got = BTreeSet::new();
            for &t in &dag.stays {
                got.insert((t, Vec::new()));
            }
            for (target, symbol, parents) in &dag.tops {
                for &p in parents {
                    for mut s in stacks(&dag, p) {
                        s.push(*symbol);
                        got.insert((*target, s));
                    }
                }
            }
            proptest::prop_assert_eq!(got, expected);
            for v in 0..dag.vertices.len() as u32 {
                let lengths: BTreeSet<usize> = stacks(&dag, v).iter().map(Vec::len).collect();
                proptest::prop_assert_eq!(lengths.len(), 1);
            }
            let longest = results.iter().map(|r| r.1.len()).max().unwrap_or(0);
            proptest::prop_assert_eq!(dag.max_len, longest);
        }
    }
}
