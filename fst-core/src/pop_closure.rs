//! The pop closure of a token PDA: the first hops of the pop chains as a deterministic
//! automaton over stack symbols whose states carry masks, so the heavy head of a chain
//! costs one mask copy instead of an OR per node.
//!
//! A walker's mask is the OR of the masks of its pop chain `n_0, n_1 = pop(n_0, s_0), ...`
//! (see [`crate::pda_walker`]). The wide masks sit at its head: `n_0` (a dense mask, say)
//! and the first pop nodes (tokens that end a rule: every operator, every closer); deeper
//! pop nodes hold the few tokens that close several rules at once. A closure state stands
//! for a chain head of at most [`DEPTH`] pops: its last node and the set of nodes it
//! visited, and it steps by the next stack symbol exactly as its node's pop edges do. A
//! state whose nodes together cost more than one and a half mask copies to OR (dense
//! masks, many class words) gets their union as one dense mask; the others keep the list
//! of their nodes. The walker ORs the nodes past the head one by one. The closure is
//! derived when a PDA is loaded and bounded (in states, and in mask words relative to the
//! file's size); a chain leaving it is ORed node by node, so the masks are the same
//! either way.

use crate::deadline::{PastDeadline, Poll};
use crate::fast_hash::FastMap;
use crate::parts::StateId;

/// No state: the chain left the closure's bounds.
pub(crate) const NO_STATE: u32 = u32::MAX;

/// Most pops a closure state covers.
const DEPTH: u32 = 3;

/// What a closure state's mask is made of.
#[derive(Clone, Copy, Debug)]
pub(crate) enum StateMask {
    /// Dense mask number `i` (the union of the state's nodes).
    Dense(u32),
    /// The nodes `nodes[begin..end]`, to OR one by one (those with dense masks first).
    Nodes(u32, u32),
}

/// The pop closure (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct PopClosure {
    /// Per node: the state of a chain that starts there.
    start: Vec<u32>,
    /// Per state: its last node.
    node: Vec<StateId>,
    /// Per state: the pops of the shortest chain head it stands for.
    depth: Vec<u32>,
    /// Per state: where its successors start in `next` (one per pop edge of its node, in
    /// the node's pop order).
    next_start: Vec<u32>,
    next: Vec<u32>,
    mask: Vec<StateMask>,
    nodes: Vec<StateId>,
    /// Dense union masks, `words` each.
    dense: Vec<u32>,
    words: usize,
}

/// What the closure needs to know of a PDA's nodes.
pub(crate) trait ClosureSource {
    fn num_nodes(&self) -> u32;
    /// The node's pop edges `(symbol, target)`, symbols increasing.
    fn pop_list(&self, node: StateId) -> Vec<(u32, StateId)>;
    /// The node's dense mask, if it has one.
    fn dense(&self, node: StateId) -> Option<&[u32]>;
    /// Mask words `(word, bits)` the node's classes OR when it has no dense mask.
    fn sparse_pairs(&self, node: StateId) -> usize;
    /// ORs the node's tokens into `mask`.
    fn or_mask(&self, node: StateId, mask: &mut [u32]);
}

impl PopClosure {
    /// The closure of `pda`, whose masks are `words` wide; `budget` bounds the words of
    /// dense union masks (and, divided by a mask, the number of states). Gives up past
    /// `deadline` (a compile laying out the PDA it made).
    pub(crate) fn new(
        pda: &impl ClosureSource,
        words: usize,
        budget: usize,
        deadline: Option<std::time::Instant>,
    ) -> Result<PopClosure, PastDeadline> {
        let n = pda.num_nodes();
        let mut c = PopClosure {
            start: Vec::with_capacity(n as usize),
            words,
            ..PopClosure::default()
        };
        let max_states = 8 * n as usize + 1024;
        let mut poll = Poll::new(deadline);
        // At least one state per node: sized for them at once (growing the map by
        // rehashing was ~6% of a large layout).
        let mut ids: FastMap<Vec<StateId>, u32> =
            FastMap::with_capacity_and_hasher(n as usize, Default::default());
        let mut sets: Vec<Vec<StateId>> = Vec::with_capacity(n as usize);
        for node in 0..n {
            poll.step()?;
            let s = c.state(&mut ids, &mut sets, (node, 0), vec![node], max_states);
            c.start.push(s);
        }
        // States are made breadth-first, so each first at its shortest head; `next` is
        // filled for each in order.
        let mut done = 0;
        while done < c.node.len() {
            poll.step()?;
            let (node, set, depth) = (c.node[done], sets[done].clone(), c.depth[done]);
            c.next_start.push(c.next.len() as u32);
            if depth < DEPTH {
                for (_, target) in pda.pop_list(node) {
                    let mut set = set.clone();
                    if let Err(i) = set.binary_search(&target) {
                        set.insert(i, target);
                    }
                    let s = c.state(&mut ids, &mut sets, (target, depth + 1), set, max_states);
                    c.next.push(s);
                }
            }
            done += 1;
        }
        c.next_start.push(c.next.len() as u32);
        // States of one set (chain heads ending at different nodes) share its mask.
        let mut masks: FastMap<Vec<u32>, u32> = FastMap::default();
        let mut of_set: FastMap<&[StateId], StateMask> =
            FastMap::with_capacity_and_hasher(sets.len(), Default::default());
        for set in &sets {
            poll.step()?;
            let m = match of_set.get(set.as_slice()) {
                Some(&m) => m,
                None => c.state_mask(pda, set, &mut masks, budget),
            };
            of_set.insert(set, m);
            c.mask.push(m);
        }
        Ok(c)
    }

    /// The state `(node, set)`, made when new and within `max_states`. `ids` is keyed by
    /// the set with the node after it.
    fn state(
        &mut self,
        ids: &mut FastMap<Vec<StateId>, u32>,
        sets: &mut Vec<Vec<StateId>>,
        (node, depth): (StateId, u32),
        mut set: Vec<StateId>,
        max_states: usize,
    ) -> u32 {
        set.push(node);
        if let Some(&s) = ids.get(set.as_slice()) {
            return s;
        }
        if self.node.len() >= max_states {
            return NO_STATE;
        }
        let s = self.node.len() as u32;
        self.node.push(node);
        self.depth.push(depth);
        sets.push(set[..set.len() - 1].to_vec());
        ids.insert(set, s);
        s
    }

    /// A state's mask: the union as a dense mask when ORing its nodes would cost more than
    /// one and a half copies and the budget allows, else its node list.
    fn state_mask(
        &mut self,
        pda: &impl ClosureSource,
        set: &[StateId],
        masks: &mut FastMap<Vec<u32>, u32>,
        budget: usize,
    ) -> StateMask {
        let words = self.words;
        let cost: usize = set
            .iter()
            .map(|&v| pda.dense(v).map_or(2 * pda.sparse_pairs(v), |_| words))
            .sum::<usize>()
            + if set.iter().any(|&v| pda.dense(v).is_some()) {
                0
            } else {
                words
            };
        if set.len() > 1 && 2 * cost > 3 * words && self.dense.len() + words <= budget {
            let mut union = vec![0u32; words];
            for &v in set {
                pda.or_mask(v, &mut union);
            }
            let next = masks.len() as u32;
            let id = *masks.entry(union).or_insert_with_key(|union| {
                self.dense.extend_from_slice(union);
                next
            });
            return StateMask::Dense(id);
        }
        let begin = self.nodes.len() as u32;
        let (dense, sparse): (Vec<StateId>, Vec<StateId>) =
            set.iter().partition(|&&v| pda.dense(v).is_some());
        self.nodes.extend(dense.into_iter().chain(sparse));
        StateMask::Nodes(begin, self.nodes.len() as u32)
    }

    /// The state of a chain starting at `node` (`NO_STATE` if out of range).
    #[inline]
    pub(crate) fn start(&self, node: StateId) -> u32 {
        self.start.get(node as usize).copied().unwrap_or(NO_STATE)
    }

    /// The state after `state` pops through its node's pop edge number `pop`
    /// (`NO_STATE` past the closure's depth).
    #[inline]
    pub(crate) fn next(&self, state: u32, pop: usize) -> u32 {
        let s = state as usize;
        match self.next_start.get(s..s + 2) {
            Some(&[begin, end]) if (begin as usize + pop) < end as usize => {
                self.next[begin as usize + pop]
            }
            _ => NO_STATE,
        }
    }

    /// Writes the mask of `state` (its nodes' tokens in `pda`) over all of `mask`, which
    /// is `words` wide. `false` (mask untouched) if there is no such state.
    #[inline]
    pub(crate) fn write_mask(
        &self,
        pda: &impl ClosureSource,
        state: u32,
        mask: &mut [u32],
    ) -> bool {
        match self.mask.get(state as usize) {
            Some(&StateMask::Dense(id)) => {
                let at = id as usize * self.words;
                copy_into(mask, self.dense.get(at..at + self.words).unwrap_or(&[]));
            }
            Some(&StateMask::Nodes(begin, end)) => {
                let nodes = &self.nodes[begin as usize..end as usize];
                let rest = match nodes.first().and_then(|&v| pda.dense(v)) {
                    Some(first) => {
                        copy_into(mask, first);
                        &nodes[1..]
                    }
                    None => {
                        mask.fill(0);
                        nodes
                    }
                };
                for &v in rest {
                    pda.or_mask(v, mask);
                }
            }
            None => return false,
        }
        true
    }

    /// Number of states and of dense union masks (for tools).
    pub(crate) fn size(&self) -> (usize, usize) {
        (self.node.len(), self.dense.len() / self.words.max(1))
    }
}

/// Copies `src` into `mask`, zero past its end.
#[inline]
fn copy_into(mask: &mut [u32], src: &[u32]) {
    let n = src.len().min(mask.len());
    mask[..n].copy_from_slice(&src[..n]);
    mask[n..].fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `n` nodes, each popping symbol 0 to the next, each holding one token.
    struct Chain(u32);

    impl ClosureSource for Chain {
        fn num_nodes(&self) -> u32 {
            self.0
        }
        fn pop_list(&self, node: StateId) -> Vec<(u32, StateId)> {
            if node + 1 < self.0 {
                vec![(0, node + 1)]
            } else {
                Vec::new()
            }
        }
        fn dense(&self, _: StateId) -> Option<&[u32]> {
            None
        }
        fn sparse_pairs(&self, _: StateId) -> usize {
            1
        }
        fn or_mask(&self, node: StateId, mask: &mut [u32]) {
            mask[0] |= 1 << (node % 32);
        }
    }

    #[test]
    fn the_closure_gives_up_past_its_deadline() {
        let chain = Chain(5000);
        let past = Some(std::time::Instant::now());
        assert_eq!(
            PopClosure::new(&chain, 1, 1 << 20, past).err(),
            Some(PastDeadline)
        );
        let closure = PopClosure::new(&chain, 1, 1 << 20, None).unwrap();
        // Every node starts a chain head; heads of up to DEPTH pops follow it.
        assert_eq!(closure.size().0, 5000 * (DEPTH as usize + 1) - 6);
        let mut mask = [0u32];
        let s = closure.next(closure.start(7), 0);
        assert!(closure.write_mask(&chain, s, &mut mask));
        assert_eq!(mask[0], 1 << 7 | 1 << 8);
    }
}
