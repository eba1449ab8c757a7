//! Token-level liveness of a whole DFA's states, decided where it is needed. Two
//! byte-level bounds settle most states at build time: a lower bound (backward over the
//! byte paths spelled by tokens of one or two bytes, each such path a token path) and an
//! upper bound (backward over all byte edges). A state between them is settled the first
//! time a walk needs it, by a depth-first search over its token edges to a live state.
//! For a vocabulary with every byte a token the bounds agree almost everywhere; where a
//! byte is missing (a marked vocabulary, whose tokens all end with a marker byte), the
//! states left open are the few near a token limit, not the whole automaton.
//!
//! A search walks the trie once per state it visits; its work (trie nodes stepped) is
//! bounded by the state work limit, past which the mask fails with
//! `MatchErrorKind::ComposeLimit` and the state stays open.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::bound::DEFAULT_STATE_WORK_LIMIT;
use super::state::NO_STATE;
use super::Table;
use crate::matcher::{MatchError, MatchErrorKind};
use crate::minimize::{backward, edge_sources};

const OPEN: u8 = 0;
const LIVE: u8 = 1;
const DEAD: u8 = 2;

/// What is known of each state's token-level liveness.
#[derive(Debug, Default)]
pub(super) struct Liveness {
    known: Vec<AtomicU8>,
    /// Most trie nodes one search may step.
    limit: AtomicU64,
}

impl Liveness {
    /// The bounds of `table`'s states.
    pub(super) fn new(table: &Table) -> Liveness {
        let (lower, upper) = bounds(table);
        let known = (lower.iter().zip(&upper))
            .map(|(&low, &up)| match (low, up) {
                (true, _) => LIVE,
                (false, false) => DEAD,
                (false, true) => OPEN,
            })
            .map(AtomicU8::new)
            .collect();
        Liveness {
            known,
            limit: AtomicU64::new(DEFAULT_STATE_WORK_LIMIT),
        }
    }

    pub(super) fn set_limit(&self, steps: u64) {
        self.limit.store(steps, Ordering::Relaxed);
    }

    fn get(&self, s: u32) -> u8 {
        self.known[s as usize].load(Ordering::Relaxed)
    }

    fn set(&self, s: u32, value: u8) {
        self.known[s as usize].store(value, Ordering::Relaxed);
    }

    /// Whether some token sequence leads from `s` to acceptance.
    pub(super) fn is_live(&self, s: u32, table: &Table) -> Result<bool, MatchError> {
        match self.get(s) {
            LIVE => Ok(true),
            DEAD => Ok(false),
            _ => self.search(s, table),
        }
    }

    /// A depth-first search over token edges from the open state `s`: reaching a live
    /// state makes the path to it live; exhausting the states reachable without one makes
    /// them all dead (each reaches only what `s` reaches).
    fn search(&self, s: u32, table: &Table) -> Result<bool, MatchError> {
        let limit = self.limit.load(Ordering::Relaxed);
        let mut parent: HashMap<u32, u32> = HashMap::from([(s, NO_STATE)]);
        let mut stack = vec![s];
        let mut steps = 0u64;
        let mut targets = Vec::new();
        while let Some(q) = stack.pop() {
            targets.clear();
            table.walk_counting(q, &mut steps, |t| targets.push(t));
            if steps > limit {
                return Err(self.error(s, limit));
            }
            targets.sort_unstable();
            targets.dedup();
            for &t in &targets {
                match self.get(t) {
                    LIVE => {
                        let mut at = q;
                        while at != NO_STATE {
                            self.set(at, LIVE);
                            at = parent[&at];
                        }
                        return Ok(true);
                    }
                    DEAD => {}
                    _ => {
                        if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(t) {
                            e.insert(q);
                            stack.push(t);
                        }
                    }
                }
            }
        }
        parent.keys().for_each(|&q| self.set(q, DEAD));
        Ok(false)
    }

    fn error(&self, s: u32, limit: u64) -> MatchError {
        MatchError::new(
            MatchErrorKind::ComposeLimit,
            format!(
                "deciding whether lazy DFA state {s} can still reach acceptance stepped more \
                 than {limit} trie nodes (the lazy automaton's state work limit): its tokens \
                 are too few or too short to end the text near there in few steps; compile \
                 it eagerly or raise the limit (LazyAutomaton::set_state_work_limit)"
            ),
        )
    }
}

/// The lower and upper byte-level bounds of token-level liveness (see the module docs).
fn bounds(table: &Table) -> (Vec<bool>, Vec<bool>) {
    let k = table.num_classes;
    let n = table.accepting.len();
    let all = || {
        table
            .table
            .chunks_exact(k)
            .enumerate()
            .flat_map(|(s, row)| {
                let to = row.iter().filter(|&&t| t != NO_STATE);
                to.map(move |&t| (s as u32, t, ()))
            })
    };
    let (in_start, sources, _) = edge_sources(n, all);
    let upper = backward(table.accepting.clone(), &in_start, &sources, |_| true);
    let (singles, pairs) = short_token_classes(table);
    let lower = by_short_tokens(table, &singles, &[]);
    if lower == upper {
        return (lower, upper);
    }
    (by_short_tokens(table, &singles, &pairs), upper)
}

/// The states with a path to acceptance over the byte paths of tokens of classes
/// `singles` (one byte) and `pairs` (two bytes).
fn by_short_tokens(table: &Table, singles: &[u8], pairs: &[(u8, u8)]) -> Vec<bool> {
    let (k, n) = (table.num_classes, table.accepting.len());
    let step = |s: u32, c: u8| match s {
        NO_STATE => NO_STATE,
        s => table.table[s as usize * k + c as usize],
    };
    let short = || {
        (0..n as u32).flat_map(move |s| {
            let one = singles.iter().map(move |&c| step(s, c));
            let two = pairs.iter().map(move |&(a, b)| step(step(s, a), b));
            one.chain(two)
                .filter(|&t| t != NO_STATE)
                .map(move |t| (s, t, ()))
        })
    };
    let (in_start, sources, _) = edge_sources(n, short);
    backward(table.accepting.clone(), &in_start, &sources, |_| true)
}

/// The byte classes of the one-byte tokens, and the distinct class pairs of the two-byte
/// ones.
fn short_token_classes(table: &Table) -> (Vec<u8>, Vec<(u8, u8)>) {
    let trie = &table.trie;
    let class = |node: usize| table.class_of_byte[trie.node_byte(node) as usize];
    let (mut singles, mut pairs) = (Vec::new(), Vec::new());
    let mut first = 1;
    while first < trie.num_nodes() {
        if !trie.node_tokens(first).is_empty() {
            singles.push(class(first));
        }
        let mut second = first + 1;
        while second < trie.subtree_end(first) {
            if !trie.node_tokens(second).is_empty() {
                pairs.push((class(first), class(second)));
            }
            second = trie.subtree_end(second);
        }
        first = trie.subtree_end(first);
    }
    singles.sort_unstable();
    singles.dedup();
    pairs.sort_unstable();
    pairs.dedup();
    (singles, pairs)
}
