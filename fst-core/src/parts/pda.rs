//! The pieces of a token push-down automaton as a grammar compiler produces them, and
//! their checks.
//!
//! A token PDA (Koo et al. §3.2, Figure 7) is a token automaton with a stack of return
//! addresses. Its edges are labelled by token class like [`ClassParts`](super::ClassParts)
//! and may push a sequence of stack symbols; a node's *pop edges* say where the walk
//! continues when the top symbol is popped. A token that crosses `k` rule returns is an
//! edge of the node reached by `k` pops, so a token is tested against a *pop chain* of
//! nodes and never against the stack's contents beyond it. The `pda` crate builds these
//! parts from a grammar; `TokenPda` lays them out.

use crate::deadline::{PastDeadline, Poll};

use super::{
    check_class_map, check_state_count, check_token_classes, layout_classes, parts_error,
    CanonicalParts, PartsError, PartsErrorKind, StateId, NO_CLASS,
};

/// A token push-down automaton, as a compiler produces it.
///
/// A configuration is `(node, stack)`, starting at `(start, [])`. The *pop chain* of a
/// configuration is `n0 = node`, `n1 = pops(n0)[stack[len - 1]]`, `n2 =
/// pops(n1)[stack[len - 2]]`, ..., while the pop edge exists and symbols remain. A text
/// token of class `c` is allowed iff some chain node `n_k` has an edge with class `c` (in a
/// deterministic PDA the compiler guarantees one `k` at most for every reachable stack and
/// one edge per class and node; a walker takes the first); consuming it pops `k` symbols,
/// pushes `push_seqs[edge.push]` and goes to `edge.target`. EOS is allowed iff the chain
/// pops every symbol and ends at an accepting node.
///
/// A *nondeterministic* token PDA (`nondeterministic: true`, from a grammar whose conflicts
/// one byte of lookahead does not decide) may give a node several edges of one class and a
/// class edges at several chain nodes; a walker then keeps a set of configurations and
/// follows every edge of the class at every chain node of every configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdaParts {
    /// Number of token ids of the vocabulary (the minimum mask width).
    pub vocab_size: u32,
    /// `fingerprint` of the vocabulary the automaton was compiled for.
    pub vocab_fingerprint: u64,
    /// Ids that end generation, sorted and distinct, below `vocab_size`.
    pub eos_ids: Vec<u32>,
    /// Stack symbols (return addresses) are `0..num_stack_symbols`.
    pub num_stack_symbols: u32,
    /// The start node.
    pub start: StateId,
    /// One flag per node: EOS is allowed where the pop chain empties the stack at an
    /// accepting node.
    pub accepting: Vec<bool>,
    /// Number of token classes `C`.
    pub num_classes: u32,
    /// The class (below `C`) of each token id, `vocab_size` entries; [`NO_CLASS`] for a
    /// token in none. EOS ids are in none.
    pub class_of_token: Vec<u32>,
    /// One list of edges per node: classes strictly increasing or, in a nondeterministic
    /// PDA, `(class, target, push)` strictly increasing (several edges per class).
    pub edges: Vec<Vec<PdaEdge>>,
    /// One list per node of `(stack symbol, node)`: where popping that symbol leads.
    /// Symbols strictly increasing.
    pub pops: Vec<Vec<(u32, StateId)>>,
    /// Sequences of stack symbols that edges push, bottom to top (the last is the new
    /// top). `push_seqs[0]` is empty: an edge that pushes nothing uses index 0.
    pub push_seqs: Vec<Vec<u32>>,
    /// Whether walkers follow every way (see above) rather than the first chain node's one
    /// edge.
    pub nondeterministic: bool,
}

/// An edge of a token PDA node: every token of `class` goes to `target`, pushing
/// `push_seqs[push]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PdaEdge {
    /// The token class read.
    pub class: u32,
    /// The node reached.
    pub target: StateId,
    /// Index into [`PdaParts::push_seqs`] of the symbols pushed.
    pub push: u32,
}

impl PdaParts {
    /// Checks the parts against the rules of their fields; the error names the node,
    /// edge, token or sequence at fault.
    pub fn check(&self) -> Result<(), PartsError> {
        let num_nodes = check_state_count(self.accepting.len(), self.edges.len(), self.start)?;
        if self.pops.len() != self.edges.len() {
            return Err(parts_error(
                PartsErrorKind::Counts,
                format!(
                    "{} pop lists but {} edge lists; both need one entry per node",
                    self.pops.len(),
                    self.edges.len()
                ),
            ));
        }
        self.check_eos_ids()?;
        check_class_map(
            self.vocab_size,
            self.num_classes,
            0,
            &self.eos_ids,
            &self.class_of_token,
        )?;
        check_token_classes(self.num_classes, &self.class_of_token)?;
        self.check_push_seqs()?;
        for (node, list) in self.edges.iter().enumerate() {
            self.check_node_edges(node, list, num_nodes)?;
        }
        for (node, list) in self.pops.iter().enumerate() {
            self.check_node_pops(node, list, num_nodes)?;
        }
        Ok(())
    }

    /// EOS ids: sorted, distinct and in the vocabulary (of a supported size).
    fn check_eos_ids(&self) -> Result<(), PartsError> {
        super::check_vocab_size(self.vocab_size)?;
        if let Some(w) = self.eos_ids.windows(2).find(|w| w[0] >= w[1]) {
            return Err(parts_error(
                PartsErrorKind::EosIds,
                format!(
                    "EOS ids must be sorted and distinct, but {} comes before {}",
                    w[0], w[1]
                ),
            ));
        }
        match self.eos_ids.last() {
            Some(&bad) if bad >= self.vocab_size => Err(parts_error(
                PartsErrorKind::EosIds,
                format!("EOS id {bad} is not below vocab_size {}", self.vocab_size),
            )),
            _ => Ok(()),
        }
    }

    /// Push sequences: the first empty, every symbol below `num_stack_symbols`, the total
    /// length addressable by `u32`.
    fn check_push_seqs(&self) -> Result<(), PartsError> {
        match self.push_seqs.first() {
            None => {
                return Err(parts_error(
                    PartsErrorKind::PushSequences,
                    "push_seqs is empty; push_seqs[0] must be the empty sequence".into(),
                ))
            }
            Some(first) if !first.is_empty() => {
                return Err(parts_error(
                    PartsErrorKind::PushSequences,
                    format!(
                        "push_seqs[0] has {} symbols; it must be the empty sequence",
                        first.len()
                    ),
                ))
            }
            Some(_) => {}
        }
        let total: u64 = self.push_seqs.iter().map(|s| s.len() as u64).sum();
        if total >= u64::from(u32::MAX) || self.push_seqs.len() >= u32::MAX as usize {
            return Err(parts_error(
                PartsErrorKind::Counts,
                format!(
                    "{} push sequences of {total} symbols in all do not fit in u32 offsets",
                    self.push_seqs.len()
                ),
            ));
        }
        for (i, seq) in self.push_seqs.iter().enumerate() {
            if let Some(&s) = seq.iter().find(|&&s| s >= self.num_stack_symbols) {
                return Err(parts_error(
                    PartsErrorKind::StackSymbol,
                    format!(
                        "push_seqs[{i}] pushes symbol {s}, but there are {} stack symbols",
                        self.num_stack_symbols
                    ),
                ));
            }
        }
        Ok(())
    }

    /// One node's edges: classes (in a nondeterministic PDA `(class, target, push)`)
    /// strictly increasing and below `C`, targets nodes, push indices sequences.
    fn check_node_edges(
        &self,
        node: usize,
        list: &[PdaEdge],
        num_nodes: u32,
    ) -> Result<(), PartsError> {
        for (i, e) in list.iter().enumerate() {
            let at = || format!("node {node}, edge {i} (class {})", e.class);
            if e.class >= self.num_classes {
                return Err(parts_error(
                    PartsErrorKind::EdgeLabel,
                    format!("{}: there are {} classes", at(), self.num_classes),
                ));
            }
            if i > 0 && self.nondeterministic && list[i - 1] >= *e {
                return Err(parts_error(
                    PartsErrorKind::EdgeLabel,
                    format!(
                        "{}: (class, target, push) must be strictly increasing within a \
                         node, but the previous edge is (class {}, target {}, push {})",
                        at(),
                        list[i - 1].class,
                        list[i - 1].target,
                        list[i - 1].push
                    ),
                ));
            }
            if i > 0 && !self.nondeterministic && list[i - 1].class >= e.class {
                return Err(parts_error(
                    PartsErrorKind::EdgeLabel,
                    format!(
                        "{}: classes must be strictly increasing within a node of a \
                         deterministic PDA, but the previous edge has class {}",
                        at(),
                        list[i - 1].class
                    ),
                ));
            }
            if e.target >= num_nodes {
                return Err(parts_error(
                    PartsErrorKind::EdgeTarget,
                    format!(
                        "{}: goes to node {}, but there are only {num_nodes} nodes",
                        at(),
                        e.target
                    ),
                ));
            }
            if e.push as usize >= self.push_seqs.len() {
                return Err(parts_error(
                    PartsErrorKind::PushSequences,
                    format!(
                        "{}: pushes sequence {}, but there are {} push sequences",
                        at(),
                        e.push,
                        self.push_seqs.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// One node's pop edges: symbols strictly increasing and below the symbol count,
    /// targets nodes.
    fn check_node_pops(
        &self,
        node: usize,
        list: &[(u32, StateId)],
        num_nodes: u32,
    ) -> Result<(), PartsError> {
        for (i, &(symbol, target)) in list.iter().enumerate() {
            if symbol >= self.num_stack_symbols {
                return Err(parts_error(
                    PartsErrorKind::StackSymbol,
                    format!(
                        "node {node}, pop edge {i}: pops symbol {symbol}, but there are {} \
                         stack symbols",
                        self.num_stack_symbols
                    ),
                ));
            }
            if i > 0 && list[i - 1].0 >= symbol {
                return Err(parts_error(
                    PartsErrorKind::StackSymbol,
                    format!(
                        "node {node}, pop edge {i}: symbols must be strictly increasing, but \
                         symbol {symbol} follows symbol {}",
                        list[i - 1].0
                    ),
                ));
            }
            if target >= num_nodes {
                return Err(parts_error(
                    PartsErrorKind::EdgeTarget,
                    format!(
                        "node {node}, pop edge {i} (symbol {symbol}): goes to node {target}, \
                         but there are only {num_nodes} nodes"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The node reached from `node` by popping `symbol`, if it has that pop edge.
    pub fn pop_target(&self, node: StateId, symbol: u32) -> Option<StateId> {
        let list = &self.pops[node as usize];
        list.binary_search_by_key(&symbol, |&(s, _)| s)
            .ok()
            .map(|i| list[i].1)
    }

    /// Whether a walker follows one configuration (see [`PdaParts::nondeterministic`]).
    pub fn is_deterministic(&self) -> bool {
        !self.nondeterministic
    }

    /// The class of `token`, if it is a text token in a class.
    pub fn class_of(&self, token: u32) -> Option<u32> {
        self.class_of_token
            .get(token as usize)
            .copied()
            .filter(|&c| c != NO_CLASS)
    }
}

/// The stack half of checked, canonical PDA parts, beside the finite control's
/// [`CanonicalParts`]: what the writer lays out in the PDA sections.
/// Flat tables (one allocation each, not one per node: freeing those was ~12% of a
/// large layout).
pub(crate) struct PdaStack {
    pub(crate) num_stack_symbols: u32,
    /// The push sequence index of each class edge, in the order of the control's edges
    /// (node by node).
    pub(crate) edge_pushes: Vec<u32>,
    /// Per class edge: the further `(target, push)` results of its class, increasing and
    /// after the edge's own, as offsets (one per edge, then the end) into the flat
    /// `(target, push)` words; `None` for a deterministic PDA.
    pub(crate) alternatives: Option<(Vec<u32>, Vec<u32>)>,
    pub(crate) pops: Vec<Vec<(u32, StateId)>>,
    pub(crate) push_seqs: Vec<Vec<u32>>,
}

/// Checks PDA parts and brings their classes to canonical form (classes with the same
/// `(node, target, push)` edges everywhere merged, unused ones dropped, numbered by
/// smallest token); nodes, pop edges and push sequences stay as given. Polls `poll`
/// between its passes and as it goes through the nodes.
pub(crate) fn canonical_pda(
    parts: PdaParts,
    mut poll: Poll,
) -> Result<Result<(CanonicalParts, PdaStack), PastDeadline>, PartsError> {
    parts.check()?;
    if poll.check().is_err() {
        return Ok(Err(PastDeadline));
    }
    let PdaParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        num_stack_symbols,
        start,
        accepting,
        num_classes: given_classes,
        class_of_token,
        edges,
        pops,
        push_seqs,
        nondeterministic,
    } = parts;
    let columns: Vec<Vec<(u32, (StateId, u32))>> = (edges.iter())
        .map(|list| list.iter().map(|e| (e.class, (e.target, e.push))).collect())
        .collect();
    let classes =
        layout_classes(given_classes, &class_of_token, &columns, None)?.expect("no deadline");
    if poll.check().is_err() {
        return Ok(Err(PastDeadline));
    }
    let mut class_edges = Vec::with_capacity(edges.len());
    let mut edge_pushes = Vec::new();
    let (mut alt_offsets, mut alt_pairs) = (Vec::new(), Vec::new());
    for list in &columns {
        if poll.step().is_err() {
            return Ok(Err(PastDeadline));
        }
        let mut out: Vec<(u32, (StateId, u32))> = (list.iter())
            .filter_map(|&(c, to)| {
                let c = classes.final_of_class[c as usize];
                (c != NO_CLASS).then_some((c, to))
            })
            .collect();
        // Merged classes have the same targets and pushes in every node: one edge each
        // (the first), the rest of a class its alternatives.
        out.sort_unstable();
        out.dedup();
        let mut node_edges = Vec::new();
        for (i, &(c, (t, p))) in out.iter().enumerate() {
            if i > 0 && out[i - 1].0 == c {
                alt_pairs.extend([t, p]);
            } else {
                node_edges.push((c, t));
                edge_pushes.push(p);
                alt_offsets.push((alt_pairs.len() / 2) as u32);
            }
        }
        class_edges.push(node_edges);
    }
    alt_offsets.push((alt_pairs.len() / 2) as u32);
    let canonical = CanonicalParts {
        vocab_size,
        vocab_fingerprint,
        eos_ids,
        start,
        accepting,
        class_word_offsets: classes.word_offsets,
        class_words: classes.words,
        class_sizes: classes.sizes,
        class_of_token,
        final_of_class: classes.final_of_class,
        uniform: classes.uniform,
        edges: class_edges,
        terminals: Vec::new(),
    };
    let stack = PdaStack {
        num_stack_symbols,
        edge_pushes,
        alternatives: nondeterministic.then_some((alt_offsets, alt_pairs)),
        pops,
        push_seqs,
    };
    Ok(Ok((canonical, stack)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Balanced `(`/`)` with tokens `(`=0, `)`=1, `()`=2, EOS=3: node 0 between groups;
    /// `(` pushes symbol 0, and popping it leads to node 1, where `)` closes the group.
    fn brackets() -> PdaParts {
        let e = |class, target, push| PdaEdge {
            class,
            target,
            push,
        };
        PdaParts {
            vocab_size: 4,
            vocab_fingerprint: 0,
            eos_ids: vec![3],
            num_stack_symbols: 1,
            start: 0,
            accepting: vec![true, false],
            num_classes: 3,
            class_of_token: vec![0, 1, 2, NO_CLASS],
            edges: vec![vec![e(0, 0, 1), e(2, 0, 0)], vec![e(1, 0, 0)]],
            pops: vec![vec![(0, 1)], vec![]],
            push_seqs: vec![vec![], vec![0]],
            nondeterministic: false,
        }
    }

    fn fails(parts: PdaParts, kind: PartsErrorKind, needle: &str) {
        let err = parts.check().expect_err(needle);
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.to_string().contains(needle), "{err}");
    }

    #[test]
    fn valid_parts_pass() {
        brackets().check().unwrap();
        assert_eq!(brackets().pop_target(0, 0), Some(1));
        assert_eq!(brackets().pop_target(1, 0), None);
        assert_eq!(brackets().class_of(3), None);
    }

    #[test]
    fn each_fault_is_named() {
        let mut p = brackets();
        p.pops.pop();
        fails(p, PartsErrorKind::Counts, "1 pop lists but 2 edge lists");
        let mut p = brackets();
        p.start = 2;
        fails(p, PartsErrorKind::StartState, "start state 2");
        let mut p = brackets();
        p.eos_ids = vec![3, 3];
        fails(p, PartsErrorKind::EosIds, "sorted and distinct");
        let mut p = brackets();
        p.eos_ids = vec![4];
        fails(p, PartsErrorKind::EosIds, "EOS id 4");
        let mut p = brackets();
        p.class_of_token[3] = 0;
        fails(p, PartsErrorKind::EdgeLabel, "EOS id 3 is in class 0");
        let mut p = brackets();
        p.class_of_token[1] = 7;
        fails(p, PartsErrorKind::EdgeLabel, "token 1 is given class 7");
        let mut p = brackets();
        p.class_of_token.pop();
        fails(p, PartsErrorKind::Counts, "class_of_token has 3 entries");
        let mut p = brackets();
        p.push_seqs[0] = vec![0];
        fails(
            p,
            PartsErrorKind::PushSequences,
            "push_seqs[0] has 1 symbols",
        );
        let mut p = brackets();
        p.push_seqs.clear();
        fails(p, PartsErrorKind::PushSequences, "push_seqs is empty");
        let mut p = brackets();
        p.push_seqs[1] = vec![1];
        fails(
            p,
            PartsErrorKind::StackSymbol,
            "push_seqs[1] pushes symbol 1",
        );
        let mut p = brackets();
        p.edges[0][1].class = 3;
        fails(p, PartsErrorKind::EdgeLabel, "node 0, edge 1 (class 3)");
        let mut p = brackets();
        p.edges[0].swap(0, 1);
        fails(p, PartsErrorKind::EdgeLabel, "strictly increasing");
        let mut p = brackets();
        p.edges[0][0].target = 5;
        fails(p, PartsErrorKind::EdgeTarget, "goes to node 5");
        let mut p = brackets();
        p.edges[0][0].push = 2;
        fails(p, PartsErrorKind::PushSequences, "pushes sequence 2");
        let mut p = brackets();
        p.pops[0][0].0 = 1;
        fails(p, PartsErrorKind::StackSymbol, "pops symbol 1");
        let mut p = brackets();
        p.num_stack_symbols = 2;
        p.pops[0] = vec![(1, 1), (0, 1)];
        fails(p, PartsErrorKind::StackSymbol, "symbol 0 follows symbol 1");
        let mut p = brackets();
        p.pops[0][0].1 = 9;
        fails(
            p,
            PartsErrorKind::EdgeTarget,
            "pop edge 0 (symbol 0): goes to node 9",
        );
    }
}
