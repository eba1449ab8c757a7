//! The composition walk: from every byte-PDA state reached at a token boundary, one pass
//! over fstc-core's `VocabTrie` runs every token with a symbolic stack (see `steps`) and
//! records where it ends as an edge of the node its pops lead to.
//!
//! The nodes of one state form a trie of pop sequences: the state's own node (tokens
//! that pop nothing), and below it a pop node per sequence of symbols popped from below
//! (tokens that pop exactly those). Only sequences some token (or the end of the text)
//! ends with are made, and each branches only over the symbols that can be there, so no
//! impossible pop sequence is enumerated. Equivalent nodes are merged later.

use std::collections::VecDeque;

use fstc_core::fast_hash::FastMap;

use fstc_core::vocab::VocabTrie;

use super::steps::{Run, Steps};
use crate::config::Config;
use crate::error::{PdaError, PdaErrorKind};

/// Not a node yet.
const NONE: u32 = u32::MAX;

/// The token PDA before token classes: edges per token.
#[derive(Default)]
pub(super) struct Graph {
    pub accepting: Vec<bool>,
    /// Per node: `(symbol, node)`, in creation order.
    pub pops: Vec<Vec<(u32, u32)>>,
    /// Per node: `(token, (target node, push sequence))`, at most one per token.
    pub edges: Vec<Vec<(u32, (u32, u32))>>,
    pub push_seqs: Vec<Vec<u32>>,
    push_index: FastMap<Vec<u32>, u32>,
    /// Per byte-PDA state: its node, once reached at a token boundary.
    node_of_state: Vec<u32>,
    queue: VecDeque<(u32, u32)>,
    num_edges: usize,
}

impl Graph {
    fn new_node(
        &mut self,
        config: &Config,
        steps: &Steps<'_>,
        state: u32,
    ) -> Result<u32, PdaError> {
        if self.accepting.len() >= config.get_node_limit() {
            return Err(PdaError::new(
                PdaErrorKind::TokenPdaLimit,
                format!(
                    "the token PDA needs more than {} nodes (limit `node_limit`, reached while composing `{}`); raise it or simplify the grammar",
                    config.get_node_limit(),
                    steps.name(state)
                ),
            ));
        }
        self.accepting.push(false);
        self.pops.push(Vec::new());
        self.edges.push(Vec::new());
        Ok(self.accepting.len() as u32 - 1)
    }

    /// The node of a byte state at a token boundary, queued for its walk when new.
    fn boundary(
        &mut self,
        config: &Config,
        steps: &Steps<'_>,
        state: u32,
    ) -> Result<u32, PdaError> {
        let node = self.node_of_state[state as usize];
        if node != NONE {
            return Ok(node);
        }
        let node = self.new_node(config, steps, state)?;
        self.node_of_state[state as usize] = node;
        self.queue.push_back((node, state));
        Ok(node)
    }

    /// The pop node reached from `root` by popping `pops`, made when missing.
    fn pop_node(
        &mut self,
        config: &Config,
        steps: &Steps<'_>,
        (root, state): (u32, u32),
        pops: &[u32],
    ) -> Result<u32, PdaError> {
        if pops.len() > config.get_pop_limit() {
            return Err(PdaError::new(
                PdaErrorKind::TokenPdaLimit,
                format!(
                    "a token pops {} stack symbols at `{}`, more than the limit `pop_limit` ({}); raise it or simplify the grammar",
                    pops.len(),
                    steps.name(state),
                    config.get_pop_limit()
                ),
            ));
        }
        let mut node = root;
        for &s in pops {
            node = match self.pops[node as usize].iter().find(|p| p.0 == s) {
                Some(&(_, next)) => next,
                None => {
                    let next = self.new_node(config, steps, state)?;
                    self.pops[node as usize].push((s, next));
                    next
                }
            };
        }
        Ok(node)
    }

    fn push_seq(&mut self, own: &[u32]) -> u32 {
        if own.is_empty() {
            return 0;
        }
        if let Some(&i) = self.push_index.get(own) {
            return i;
        }
        self.push_seqs.push(own.to_vec());
        let i = self.push_seqs.len() as u32 - 1;
        self.push_index.insert(own.to_vec(), i);
        i
    }

    /// Records that `token` ends `run` started at `root`.
    fn record(
        &mut self,
        config: &Config,
        steps: &Steps<'_>,
        root: (u32, u32),
        token: u32,
        run: &Run,
    ) -> Result<(), PdaError> {
        self.num_edges += 1;
        if self.num_edges > config.get_token_edge_limit() {
            return Err(PdaError::new(
                PdaErrorKind::TokenPdaLimit,
                format!(
                    "the token PDA needs more than {} token edges before grouping (limit `token_edge_limit`, reached while composing `{}`); raise it or simplify the grammar",
                    config.get_token_edge_limit(),
                    steps.name(root.1)
                ),
            ));
        }
        let target = self.boundary(config, steps, run.state)?;
        let node = self.pop_node(config, steps, root, &run.pops)?;
        let push = self.push_seq(&run.own);
        self.edges[node as usize].push((token, (target, push)));
        Ok(())
    }
}

/// Walks the trie from every boundary state, starting with `start`; node 0 is `start`'s.
pub(super) fn walk(
    steps: &Steps<'_>,
    trie: &VocabTrie,
    start: u32,
    num_states: usize,
    config: &Config,
) -> Result<Graph, PdaError> {
    let mut g = Graph {
        push_seqs: vec![Vec::new()],
        node_of_state: vec![NONE; num_states],
        ..Graph::default()
    };
    g.boundary(config, steps, start)?;
    let eos = trie.eos_ids();
    let mut levels: Vec<Vec<Run>> = vec![Vec::new(); trie.max_depth() + 1];
    while let Some(root) = g.queue.pop_front() {
        levels[0] = vec![Run {
            state: root.1,
            ..Run::default()
        }];
        let mut node = 1;
        while node < trie.num_nodes() {
            let d = trie.node_depth(node);
            let (before, after) = levels.split_at_mut(d);
            let out = &mut after[0];
            out.clear();
            for run in &before[d - 1] {
                steps.advance(run, trie.node_byte(node), out)?;
            }
            if out.is_empty() {
                node = trie.subtree_end(node);
                continue;
            }
            if steps.is_nondeterministic() {
                // Ways that met again are one run.
                out.sort_unstable();
                out.dedup();
            }
            for &token in trie.node_tokens(node) {
                if eos.binary_search(&token).is_err() {
                    for run in out.iter() {
                        g.record(config, steps, root, token, run)?;
                    }
                }
            }
            node += 1;
        }
        for pops in steps.finishes(root.1)? {
            let n = g.pop_node(config, steps, root, &pops)?;
            g.accepting[n as usize] = true;
        }
    }
    Ok(g)
}
