//! A token PDA intersected with a token FSA: a token PDA.
//!
//! The plain product pairs each PDA node with an FSA state: `(n, q)` has an edge for a
//! joint class where `n` has one for the class holding it and `q` a move, with `n`'s push,
//! and pops `s` into `(pops(n)[s], q)` (the FSA does not move along a pop chain, so a token
//! the FSA refuses is gone from every chain node at once). That product accepts exactly
//! the sequences both accept, but a walk of it may reach a configuration from which
//! nothing finishes (a bracket opened with no tokens left to close it); [`super::pda_live`]
//! removes those by splitting nodes by the liveness of the stack under them.

use std::collections::VecDeque;

use super::atoms::{JointClasses, Operand, DEAD};
use super::{Clock, OpsError, OpsErrorKind};
use crate::automaton::StateId;
use crate::fast_hash::FastMap;
use crate::parts::{PdaParts, NO_CLASS};

/// A token PDA over joint classes, as explored; node 0 is the start.
pub(crate) struct PdaGraph {
    pub(crate) accepting: Vec<bool>,
    /// Per node: `(joint class, target, index into the PDA's push sequences)`, sorted.
    pub(crate) edges: Vec<Vec<(u32, StateId, u32)>>,
    /// Per node: `(stack symbol, target)`, sorted by symbol.
    pub(crate) pops: Vec<Vec<(u32, StateId)>>,
}

impl PdaGraph {
    pub(crate) fn len(&self) -> usize {
        self.accepting.len()
    }

    /// Where popping `symbol` at `node` leads, if it may.
    pub(crate) fn pop(&self, node: StateId, symbol: u32) -> Option<StateId> {
        let list = &self.pops[node as usize];
        let i = list.binary_search_by_key(&symbol, |&(s, _)| s).ok()?;
        Some(list[i].1)
    }
}

/// The joint classes inside each of the PDA's classes, ascending.
fn joint_of_pda_classes(pda: &PdaParts, joint: &JointClasses) -> Vec<Vec<u32>> {
    let mut of_class = vec![Vec::new(); pda.num_classes as usize];
    for (t, &c) in pda.class_of_token.iter().enumerate() {
        let j = joint.class_of[t];
        if c != NO_CLASS && j != NO_CLASS {
            of_class[c as usize].push(j);
        }
    }
    for list in &mut of_class {
        list.sort_unstable();
        list.dedup();
    }
    of_class
}

/// The product reachable from `(pda.start, fsa start)`, failing past `state_limit` nodes.
pub(crate) fn product<B: AsRef<[u32]>>(
    pda: &PdaParts,
    fsa: &Operand<'_, B>,
    joint: &JointClasses,
    state_limit: usize,
    clock: Clock,
) -> Result<PdaGraph, OpsError> {
    let of_class = joint_of_pda_classes(pda, joint);
    let mut ids: FastMap<(StateId, StateId), StateId> = FastMap::default();
    let mut pairs: Vec<(StateId, StateId)> = Vec::new();
    let mut queue = VecDeque::new();
    let mut id_of = |pair: (StateId, StateId),
                     pairs: &mut Vec<(StateId, StateId)>,
                     queue: &mut VecDeque<StateId>| {
        if let Some(&id) = ids.get(&pair) {
            return Ok(id);
        }
        if pairs.len() >= state_limit {
            return Err(OpsError::new(
                "intersection",
                OpsErrorKind::TooManyStates { limit: state_limit },
                format!(
                    "the intersection of a token PDA and a token FSA has more than \
                     {state_limit} nodes; raise the state limit"
                ),
            ));
        }
        let id = pairs.len() as StateId;
        ids.insert(pair, id);
        pairs.push(pair);
        queue.push_back(id);
        Ok(id)
    };
    let mut g = PdaGraph {
        accepting: Vec::new(),
        edges: Vec::new(),
        pops: Vec::new(),
    };
    id_of((pda.start, fsa.start()), &mut pairs, &mut queue)?;
    while let Some(id) = queue.pop_front() {
        clock.check()?;
        let (n, q) = pairs[id as usize];
        let mut edges = Vec::new();
        for e in &pda.edges[n as usize] {
            for &j in &of_class[e.class as usize] {
                let next = fsa.step(q, j);
                if next != DEAD {
                    edges.push((j, id_of((e.target, next), &mut pairs, &mut queue)?, e.push));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut pops = Vec::new();
        for &(s, z) in &pda.pops[n as usize] {
            pops.push((s, id_of((z, q), &mut pairs, &mut queue)?));
        }
        // Nodes are explored in id order, so node `id` is pushed at index `id`.
        g.accepting
            .push(pda.accepting[n as usize] && fsa.is_accepting(q));
        g.edges.push(edges);
        g.pops.push(pops);
    }
    Ok(g)
}
