//! Every state's token edges, keyed by the byte automaton's own state ids: for callers
//! that join byte automata at token level (fstc-tags composes each tool of a structural
//! tag on its own), where a state may be entered by a token that started in another
//! automaton and so is not reached from this one's start.

use super::assemble::{check_inputs, GroupOrder};
use super::class_trie::DenseClasses;
use super::error::{deadline_error, edge_limit_error, memory_limit_error};
use super::error::{ComposeError, ComposeErrorKind};
use super::functions::POLL_EVERY;
use super::grouping::{transition_table, Grouping, Stops, MAX_TABLE_ENTRIES};
use super::{ComposeLimits, GroupBy};
use crate::bytes::ByteAutomaton;
use crate::vocab::VocabTrie;

/// The token groups of one byte automaton and each state's edges over them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateGroupEdges {
    /// The group of each token id ([`crate::parts::NO_CLASS`] for tokens without text):
    /// tokens of one group go to the same state from every state.
    pub group_of_token: Vec<u32>,
    /// Number of groups.
    pub num_groups: u32,
    /// Per state of the byte automaton (by its id), `(group, target state)` sorted by
    /// group: the tokens the state reads whole. Untrimmed: a target may be dead.
    pub edges: Vec<Vec<(u32, u32)>>,
}

/// The token edges of every state of `dfa` (reachable or not) over the vocabulary of
/// `trie`, within `limits` (the token edge limit, the deadline, the memory limit; the
/// state limit bounds the byte automaton's states). Terminal labels are refused.
pub fn every_state_edges_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<StateGroupEdges, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    check_inputs(dfa, trie, limits)?;
    if dfa.num_terminals() > 0 {
        return Err(ComposeError::new(
            ComposeErrorKind::InvalidInput,
            "every state's edges are found for automata without terminal labels".to_string(),
        ));
    }
    let n = dfa.num_states();
    if n > limits.state_limit {
        return Err(super::error::state_limit_error(limits.state_limit));
    }
    let identity: [u8; 256] = std::array::from_fn(|b| b as u8);
    let dense = DenseClasses::new(dfa.byte_classes().unwrap_or(&identity));
    let table = transition_table(dfa, &dense, MAX_TABLE_ENTRIES)?;
    let mut bytes = 4 * table.as_ref().map_or(0, Vec::len);
    if bytes > limits.memory_limit {
        return Err(memory_limit_error(limits.memory_limit, bytes));
    }
    let table = table.as_deref();
    let stops = (limits.deadline, limits.memory_limit);
    let grouping = Grouping::new(trie, dense, table, n, GroupBy::Auto, stops)?;
    let mut group_order = GroupOrder::new(grouping.groups().len());
    let stops = Stops::new(limits.token_edge_limit, limits.deadline);
    let states: Vec<u32> = (0..n as u32).collect();
    let mut edges = Vec::with_capacity(n);
    for frontier in states.chunks(POLL_EVERY) {
        let (walked, items_per_state) = grouping.frontier_edges(dfa, table, frontier, &stops);
        if stops.over_limit() {
            return Err(edge_limit_error(limits.token_edge_limit));
        }
        if stops.late() {
            return Err(deadline_error(
                "walking the vocabulary from each state",
                edges.len(),
            ));
        }
        for per_state in walked.chunks(items_per_state) {
            let list = group_order.of(per_state);
            bytes += std::mem::size_of::<Vec<(u32, u32)>>() + 8 * list.len();
            edges.push(list);
        }
        if bytes > limits.memory_limit {
            return Err(memory_limit_error(limits.memory_limit, bytes));
        }
    }
    let groups = grouping.into_groups();
    Ok(StateGroupEdges {
        num_groups: groups.len() as u32,
        group_of_token: groups.of_token,
        edges,
    })
}
