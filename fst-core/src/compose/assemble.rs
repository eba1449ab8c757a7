//! Assembly: the token automaton over groups, discovered breadth-first from the byte
//! automaton's start at token boundaries, then trimmed.

use std::time::Instant;

use super::class_trie::DenseClasses;
use super::error::{deadline_error, edge_limit_error, memory_limit_error};
use super::error::{out_of_range, state_limit_error};
use super::error::{try_with_capacity, ComposeError, ComposeErrorKind};
use super::grouping::{transition_table, GroupBy, Grouping, Stops, MAX_TABLE_ENTRIES};
use super::groups::{EdgeLists, TokenGroups, NONE};
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
    /// When to give up (a compile's time budget), polled while the tokens are grouped, as
    /// the token automaton's states are walked out and while it is minimized. `None`: never.
    pub deadline: Option<Instant>,
    /// Most bytes the token automaton's tables may take while built (the transition
    /// table, the edge lists, the state index), checked as they grow; a compile's memory
    /// budget. `usize::MAX` by default.
    pub memory_limit: usize,
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
            deadline: None,
            memory_limit: usize::MAX,
        }
    }
}

/// The trimmed composition with edges labelled by token group, and the groups.
pub(super) fn compose_groups<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
    group_by: GroupBy,
) -> Result<(TokenGroups, AutomatonParts), ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let vocab_size = check_inputs(dfa, trie, limits)?;
    let identity: [u8; 256] = std::array::from_fn(|b| b as u8);
    let dense = DenseClasses::new(dfa.byte_classes().unwrap_or(&identity));
    let table = transition_table(dfa, &dense, MAX_TABLE_ENTRIES)?;
    let stops = (limits.deadline, limits.memory_limit);
    let table = table.as_deref();
    let grouping = Grouping::new(trie, dense, table, dfa.num_states(), group_by, stops)?;
    let (order, edges) = discover(dfa, &grouping, table, limits)?;
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
pub(super) fn check_inputs<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<u32, ComposeError>
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
/// Checks the limits after each breadth-first level (and the walks poll them within one).
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
    // Bytes of the tables: the transition table, `index`, then per state made its place
    // in `order` and its edge list.
    let mut bytes = 4 * (table.map_or(0, <[u32]>::len) + num_dfa_states);
    if bytes > limits.memory_limit {
        return Err(memory_limit_error(limits.memory_limit, bytes));
    }
    // Token-level state of each DFA state, or NONE while undiscovered.
    let mut index = try_with_capacity(num_dfa_states, "the index of DFA states")?;
    index.resize(num_dfa_states, NONE);
    let mut order: Vec<u32> = vec![dfa_start];
    index[dfa_start as usize] = 0;
    let mut edges: EdgeLists = Vec::new();
    let stops = Stops::new(limits.token_edge_limit, limits.deadline);
    let mut group_order = GroupOrder::new(num_groups as usize);

    let mut frontier_start = 0;
    while frontier_start < order.len() {
        let frontier: Vec<u32> = order[frontier_start..].to_vec();
        frontier_start = order.len();
        let (walked, items_per_state) = grouping.frontier_edges(dfa, table, &frontier, &stops);
        if stops.over_limit() {
            return Err(edge_limit_error(limits.token_edge_limit));
        }
        if stops.late() {
            return Err(deadline_error(
                "walking the vocabulary from each state",
                order.len(),
            ));
        }
        for (&dfa_state, per_state) in frontier.iter().zip(walked.chunks(items_per_state)) {
            let mut list = group_order.of(per_state);
            // Terminal edges read a whole token, so they leave only from token boundaries,
            // i.e. from here; labelled after every group.
            for k in 0..num_terminals {
                if let Some(t) = dfa.next_terminal(dfa_state, k) {
                    list.push((num_groups + k as u32, t));
                }
            }
            for edge in &mut list {
                edge.1 = number(edge.1, &mut index, &mut order, limits.state_limit)?;
            }
            bytes += 4 + std::mem::size_of::<Vec<(u32, StateId)>>() + 8 * list.len();
            edges.push(list);
        }
        if bytes > limits.memory_limit {
            return Err(memory_limit_error(limits.memory_limit, bytes));
        }
    }
    Ok((order, edges))
}

/// The token-level state of DFA state `target`, numbered next in `order` when new.
fn number(
    target: u32,
    index: &mut [u32],
    order: &mut Vec<u32>,
    state_limit: usize,
) -> Result<StateId, ComposeError> {
    let Some(slot) = index.get_mut(target as usize) else {
        return Err(out_of_range("transition target", target, index.len()));
    };
    if *slot == NONE {
        if order.len() >= state_limit {
            return Err(state_limit_error(state_limit));
        }
        *slot = order.len() as u32;
        order.push(target);
    }
    Ok(*slot)
}

/// Puts one state's group edges, found in pieces, in group order, i.e. in order of first
/// tokens: breadth-first discovery then follows token order. A group occurs at most once
/// per state (it is one class-trie node), so a state reaching many groups is bucketed
/// (each group's target, and a bit per group read a word at a time, so that the groups
/// a state does not reach cost a bit each and no mispredicted branch), not sorted.
pub(super) struct GroupOrder {
    target: Vec<u32>,
    reached: Vec<u64>,
}

impl GroupOrder {
    pub(super) fn new(num_groups: usize) -> GroupOrder {
        GroupOrder {
            target: vec![NONE; num_groups],
            reached: vec![0; num_groups.div_ceil(64)],
        }
    }

    pub(super) fn of(&mut self, per_state: &[Vec<(u32, u32)>]) -> Vec<(u32, StateId)> {
        let found: usize = per_state.iter().map(Vec::len).sum();
        let mut list: Vec<(u32, StateId)> = Vec::with_capacity(found);
        if found.saturating_mul(64) < self.target.len() {
            list.extend(per_state.iter().flatten());
            list.sort_unstable();
            return list;
        }
        for &(g, t) in per_state.iter().flatten() {
            self.target[g as usize] = t;
            self.reached[g as usize / 64] |= 1 << (g % 64);
        }
        for (w, word) in self.reached.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let g = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                list.push((g as u32, self.target[g]));
            }
        }
        list
    }
}
