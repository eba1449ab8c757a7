//! Assembly: the token automaton over groups, discovered breadth-first from the byte
//! automaton's start at token boundaries, then trimmed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::class_trie::DenseClasses;
use super::error::{edge_limit_error, out_of_range, state_limit_error};
use super::error::{ComposeError, ComposeErrorKind};
use super::grouping::{transition_table, GroupBy, Grouping, MAX_TABLE_ENTRIES};
use super::labels::{EdgeLists, Labels, NONE};
use super::trim::trim;
use crate::automaton::{AutomatonParts, StateId};
use crate::bytes::ByteAutomaton;
use crate::vocab::VocabTrie;

/// Bounds on the size of the token automaton, so that a pattern that blows up against a
/// large vocabulary fails with an error instead of exhausting memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposeLimits {
    /// Most token edges the composition may create (counted before trimming).
    pub token_edge_limit: usize,
    /// Most token-level states the composition may create (counted before trimming).
    pub state_limit: usize,
}

impl ComposeLimits {
    /// Default for `token_edge_limit`: about 400 MB of edges while building.
    pub const DEFAULT_TOKEN_EDGE_LIMIT: usize = 50_000_000;
    /// Default for `state_limit`.
    pub const DEFAULT_STATE_LIMIT: usize = 1_000_000;
}

impl Default for ComposeLimits {
    fn default() -> ComposeLimits {
        ComposeLimits {
            token_edge_limit: ComposeLimits::DEFAULT_TOKEN_EDGE_LIMIT,
            state_limit: ComposeLimits::DEFAULT_STATE_LIMIT,
        }
    }
}

/// The trimmed composition with edges labelled by token group, and the groups.
pub(super) fn compose_groups<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
    group_by: GroupBy,
) -> Result<(Labels, AutomatonParts), ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let vocab_size = check_inputs(dfa, trie, limits)?;
    let identity: [u8; 256] = std::array::from_fn(|b| b as u8);
    let dense = DenseClasses::new(dfa.byte_classes().unwrap_or(&identity));
    let table = transition_table(dfa, &dense, MAX_TABLE_ENTRIES)?;
    let grouping = Grouping::new(trie, dense, table.as_deref(), dfa.num_states(), group_by);
    let (order, edges) = discover(dfa, &grouping, table.as_deref(), limits)?;
    let accepting: Vec<bool> = order.iter().map(|&s| dfa.is_accepting(s)).collect();
    let (accepting, edges) = trim(accepting, edges)?;
    Ok((
        grouping.into_groups(),
        AutomatonParts {
            vocab_size,
            vocab_fingerprint: trie.fingerprint,
            eos_ids: trie.eos_ids.clone(),
            start: 0,
            accepting,
            edges,
            terminals: Vec::new(),
        },
    ))
}

/// The vocabulary size as a token id bound, once the inputs are known to be consistent.
fn check_inputs<A>(dfa: &A, trie: &VocabTrie, limits: &ComposeLimits) -> Result<u32, ComposeError>
where
    A: ByteAutomaton + ?Sized,
{
    let vocab_size = u32::try_from(trie.vocab_size).map_err(|_| {
        ComposeError::new(
            ComposeErrorKind::InvalidInput,
            format!(
                "the vocabulary has {} ids, more than token ids (u32) can number",
                trie.vocab_size
            ),
        )
    })?;
    let num_dfa_states = dfa.num_states();
    if num_dfa_states == 0 {
        return Err(ComposeError::empty_language());
    }
    let num_terminals = dfa.num_terminals();
    if u64::from(vocab_size) + num_terminals as u64 > u64::from(u32::MAX) {
        return Err(ComposeError::new(
            ComposeErrorKind::InvalidInput,
            format!("{num_terminals} terminal labels do not fit after {vocab_size} token ids"),
        ));
    }
    let dfa_start = dfa.start();
    if dfa_start as usize >= num_dfa_states {
        return Err(out_of_range("start state", dfa_start, num_dfa_states));
    }
    if limits.state_limit == 0 {
        return Err(state_limit_error(limits.state_limit));
    }
    Ok(vocab_size)
}

/// The byte-DFA states reachable at token boundaries, breadth-first from the start
/// (`order`, the token-level numbering), and each one's edges over groups then terminals.
fn discover<A>(
    dfa: &A,
    grouping: &Grouping,
    table: Option<&[u32]>,
    limits: &ComposeLimits,
) -> Result<(Vec<u32>, EdgeLists), ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let num_dfa_states = dfa.num_states();
    let num_groups = grouping.groups().len() as u32;
    let dfa_start = dfa.start();
    let num_terminals = dfa.num_terminals();
    // Token-level state of each DFA state, or NONE while undiscovered.
    let mut index = vec![NONE; num_dfa_states];
    let mut order: Vec<u32> = vec![dfa_start];
    index[dfa_start as usize] = 0;
    let mut edges: EdgeLists = Vec::new();
    let edge_count = AtomicUsize::new(0);
    let over_limit = AtomicBool::new(false);
    let mut by_group = vec![NONE; num_groups as usize];

    let mut frontier_start = 0;
    while frontier_start < order.len() {
        let frontier: Vec<u32> = order[frontier_start..].to_vec();
        frontier_start = order.len();
        let counter = (&edge_count, &over_limit, limits.token_edge_limit);
        let (walked, items_per_state) = grouping.frontier_edges(dfa, table, &frontier, counter);
        if over_limit.load(Ordering::Relaxed) {
            return Err(edge_limit_error(limits.token_edge_limit));
        }
        for (&dfa_state, per_state) in frontier.iter().zip(walked.chunks(items_per_state)) {
            let mut list = in_group_order(per_state, &mut by_group);
            // Terminal edges read a whole token, so they leave only from token boundaries,
            // i.e. from here; labelled after every group.
            for k in 0..num_terminals {
                if let Some(t) = dfa.next_terminal(dfa_state, k) {
                    list.push((num_groups + k as u32, t));
                }
            }
            for edge in &mut list {
                let target = edge.1;
                if target as usize >= num_dfa_states {
                    return Err(out_of_range("transition target", target, num_dfa_states));
                }
                let slot = &mut index[target as usize];
                if *slot == NONE {
                    if order.len() >= limits.state_limit {
                        return Err(state_limit_error(limits.state_limit));
                    }
                    *slot = order.len() as u32;
                    order.push(target);
                }
                edge.1 = *slot;
            }
            edges.push(list);
        }
    }
    Ok((order, edges))
}

/// One state's group edges, found in pieces, in group order, i.e. in order of first
/// tokens: breadth-first discovery then follows token order. A group occurs at most
/// once per state (it is one class-trie node), so a state reaching many groups is
/// bucketed (through `by_group`, all `NONE` before and after), not sorted.
fn in_group_order(per_state: &[Vec<(u32, u32)>], by_group: &mut [u32]) -> Vec<(u32, StateId)> {
    let found: usize = per_state.iter().map(Vec::len).sum();
    let mut list: Vec<(u32, StateId)> = Vec::with_capacity(found);
    if found.saturating_mul(8) >= by_group.len() {
        for &(g, t) in per_state.iter().flatten() {
            by_group[g as usize] = t;
        }
        for (g, t) in by_group.iter_mut().enumerate() {
            if *t != NONE {
                list.push((g as u32, *t));
                *t = NONE;
            }
        }
    } else {
        list.extend(per_state.iter().flatten());
        list.sort_unstable();
    }
    list
}
