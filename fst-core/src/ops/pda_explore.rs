//! The exploration both dead-end-free PDA constructions share ([`super::pda_live`]'s
//! split by what can still finish, [`super::pda_bound`]'s split by tokens left): nodes
//! and stack symbols carry an interned summary of their stack, are made as they are
//! reached, and each node gets a pop for each symbol that may be on top of its stack.
//! Which edges and pops are kept, and where they lead, is the construction's.

use std::collections::VecDeque;
use std::hash::Hash;

use super::{Clock, OpsError, OpsErrorKind};
use crate::automaton::StateId;
use crate::fast_hash::FastMap;
use crate::parts::PdaEdge;

/// The annotated PDA: per node its acceptance, edges and pops, and the push sequences of
/// annotated symbols.
pub(crate) struct Annotated {
    pub(crate) accepting: Vec<bool>,
    pub(crate) edges: Vec<Vec<PdaEdge>>,
    pub(crate) pops: Vec<Vec<(u32, StateId)>>,
    pub(crate) push_seqs: Vec<Vec<u32>>,
    pub(crate) num_stack_symbols: u32,
}

/// An annotated node: a node of the explored PDA and the id of its stack's summary.
pub(crate) trait Node: Copy + Eq + Hash {
    fn base(self) -> StateId;
    fn stack(self) -> u32;
}

/// What a construction decides about the edges and pops of an annotated node.
pub(crate) trait Construction {
    type Node: Node;

    /// Adds the edges of `node` that are kept, by [`Explorer::edge`].
    fn explore(
        &mut self,
        x: &mut Explorer<'_, Self::Node>,
        node: Self::Node,
    ) -> Result<(), OpsError>;

    /// Where `node` lands popping the annotated symbol `(s, summary under it)`, if that
    /// pop is kept.
    fn pop(&mut self, node: Self::Node, symbol: (u32, u32))
        -> Result<Option<Self::Node>, OpsError>;
}

/// The annotated nodes and symbols made so far, and what is still to explore.
pub(crate) struct Explorer<'a, K> {
    /// Acceptance of the explored PDA's nodes.
    accepting: &'a [bool],
    /// What the state-limit error calls the result.
    what: &'static str,
    nodes: Vec<K>,
    node_ids: FastMap<K, StateId>,
    /// Annotated symbols `(symbol, summary of the stack under it)`.
    symbols: Vec<(u32, u32)>,
    symbol_ids: FastMap<(u32, u32), u32>,
    /// The annotated symbols whose stack summary (with them on top) is the key.
    by_top: FastMap<u32, Vec<u32>>,
    /// The annotated nodes whose stack summary is the key.
    by_stack: FastMap<u32, Vec<StateId>>,
    /// `(node, symbol)` pairs whose pop is still to be decided.
    pending: Vec<(StateId, u32)>,
    /// Push sequences of at most [`SHORT`] symbols by their [`short_key`]: looked up per
    /// edge, a key on the heap cost a cache miss per comparison (16% of a bounded
    /// construction's time).
    short_seq_ids: FastMap<[u32; SHORT + 1], u32>,
    /// Longer push sequences.
    seq_ids: FastMap<Vec<u32>, u32>,
    /// The edges kept of the node being explored.
    edges: Vec<PdaEdge>,
    out: Annotated,
    queue: VecDeque<StateId>,
    state_limit: usize,
    clock: Clock,
}

impl<'a, K: Node> Explorer<'a, K> {
    /// An exploration of the PDA whose nodes accept as `accepting`; `what` names the
    /// result in the error past `state_limit` nodes.
    pub(crate) fn new(
        accepting: &'a [bool],
        what: &'static str,
        state_limit: usize,
        clock: Clock,
    ) -> Self {
        let mut short_seq_ids = FastMap::default();
        short_seq_ids.insert(short_key(&[]), 0);
        Explorer {
            accepting,
            what,
            nodes: Vec::new(),
            node_ids: FastMap::default(),
            symbols: Vec::new(),
            symbol_ids: FastMap::default(),
            by_top: FastMap::default(),
            by_stack: FastMap::default(),
            pending: Vec::new(),
            short_seq_ids,
            seq_ids: FastMap::default(),
            edges: Vec::new(),
            out: Annotated {
                accepting: Vec::new(),
                edges: Vec::new(),
                pops: Vec::new(),
                push_seqs: vec![Vec::new()],
                num_stack_symbols: 0,
            },
            queue: VecDeque::new(),
            state_limit,
            clock,
        }
    }

    /// Everything reachable from `start` (node 0), until neither an edge nor a pop makes
    /// anything new.
    pub(crate) fn run<C: Construction<Node = K>>(
        mut self,
        c: &mut C,
        start: K,
    ) -> Result<Annotated, OpsError> {
        self.node(start)?;
        loop {
            if let Some(id) = self.queue.pop_front() {
                self.clock.check()?;
                let node = self.nodes[id as usize];
                c.explore(&mut self, node)?;
                let mut edges = std::mem::take(&mut self.edges);
                edges.sort_unstable();
                self.out.edges[id as usize] = edges;
            } else if let Some((id, sym)) = self.pending.pop() {
                let node = self.nodes[id as usize];
                if let Some(target) = c.pop(node, self.symbols[sym as usize])? {
                    let target = self.node(target)?;
                    self.out.pops[id as usize].push((sym, target));
                }
            } else {
                break;
            }
        }
        for list in &mut self.out.pops {
            list.sort_unstable();
        }
        self.out.num_stack_symbols = self.symbols.len() as u32;
        Ok(self.out)
    }

    fn node(&mut self, key: K) -> Result<StateId, OpsError> {
        if let Some(&id) = self.node_ids.get(&key) {
            return Ok(id);
        }
        if self.nodes.len() >= self.state_limit {
            return Err(OpsError::new(
                "intersection",
                OpsErrorKind::TooManyStates {
                    limit: self.state_limit,
                },
                format!(
                    "{} has more than {} nodes; raise the state limit",
                    self.what, self.state_limit
                ),
            ));
        }
        let id = self.nodes.len() as StateId;
        self.nodes.push(key);
        self.node_ids.insert(key, id);
        self.out.accepting.push(self.accepting[key.base() as usize]);
        self.out.edges.push(Vec::new());
        self.out.pops.push(Vec::new());
        self.queue.push_back(id);
        let tops = self
            .by_top
            .get(&key.stack())
            .map_or(&[][..], |l| l.as_slice());
        self.pending.extend(tops.iter().map(|&sym| (id, sym)));
        self.by_stack.entry(key.stack()).or_default().push(id);
        Ok(id)
    }

    /// The annotated symbol `s` over a stack summarized by `under`; `top` summarizes the
    /// stack with it on top.
    pub(crate) fn symbol(&mut self, s: u32, under: u32, top: u32) -> u32 {
        let next = self.symbols.len() as u32;
        let id = *self.symbol_ids.entry((s, under)).or_insert(next);
        if id == next {
            self.symbols.push((s, under));
            self.by_top.entry(top).or_default().push(id);
            let nodes = self.by_stack.get(&top).map_or(&[][..], |l| l.as_slice());
            self.pending.extend(nodes.iter().map(|&n| (n, id)));
        }
        id
    }

    /// Keeps an edge of the node being explored: `class` to `target`, pushing the
    /// annotated symbols `pushed`.
    pub(crate) fn edge(&mut self, class: u32, pushed: &[u32], target: K) -> Result<(), OpsError> {
        let next = self.out.push_seqs.len() as u32;
        let push = if pushed.len() <= SHORT {
            *self.short_seq_ids.entry(short_key(pushed)).or_insert(next)
        } else {
            match self.seq_ids.get(pushed) {
                Some(&push) => push,
                None => *self.seq_ids.entry(pushed.to_vec()).or_insert(next),
            }
        };
        if push == next {
            self.out.push_seqs.push(pushed.to_vec());
        }
        let target = self.node(target)?;
        self.edges.push(PdaEdge {
            class,
            target,
            push,
        });
        Ok(())
    }
}

/// Most symbols of a push sequence interned by [`short_key`].
const SHORT: usize = 3;

/// A push sequence of at most [`SHORT`] symbols as a key: its length, then its symbols.
fn short_key(seq: &[u32]) -> [u32; SHORT + 1] {
    let mut key = [0; SHORT + 1];
    key[0] = seq.len() as u32;
    key[1..=seq.len()].copy_from_slice(seq);
    key
}

impl Node for (StateId, u32) {
    fn base(self) -> StateId {
        self.0
    }
    fn stack(self) -> u32 {
        self.1
    }
}

impl Node for (StateId, u32, u16) {
    fn base(self) -> StateId {
        self.0
    }
    fn stack(self) -> u32 {
        self.1
    }
}

pub(crate) fn memory_error(bytes: u64, limit: usize, what: &str) -> OpsError {
    OpsError::new(
        "intersection",
        OpsErrorKind::Memory { limit },
        format!(
            "the intersection of a token PDA and a token FSA needs {bytes} bytes for {what}, \
             past its memory limit of {limit} bytes"
        ),
    )
}
