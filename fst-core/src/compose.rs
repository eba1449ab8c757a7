//! Composition of a byte automaton with a vocabulary: the fast path.
//!
//! The paper builds the token automaton as A_R ∘ T_V with general FST composition,
//! epsilon removal and determinization. Because A_R is deterministic, the same automaton
//! can be built directly: from every byte-DFA state reachable at a token boundary, walk
//! a trie of the vocabulary's token bytes while driving the DFA, pruning a subtree as
//! soon as the DFA dies. Every token that ends at a live trie node is an edge. The result
//! is deterministic over tokens by construction, so no subset construction is needed;
//! it is then trimmed (states that no token sequence leads to acceptance from are
//! dropped) and minimized (`crate::minimize`).
//!
//! The vocabulary trie (`VocabTrie`) is built once per vocabulary and reused for every
//! pattern compiled against it.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::automaton::{AutomatonParts, StateId};
use crate::minimize::minimize;
use crate::vocab::{fingerprint, TokenVocabulary};

/// A deterministic automaton over bytes, as the composition consumes it.
///
/// Missing transitions go to an implicit dead state. Implemented by
/// `crate::regex::ByteDfa`; tests may implement it by hand.
pub trait ByteAutomaton {
    /// Number of states; states are `0..num_states()`.
    fn num_states(&self) -> usize;
    /// The start state.
    fn start(&self) -> u32;
    /// Whether `state` accepts.
    fn is_accepting(&self, state: u32) -> bool;
    /// The state reached from `state` by `byte`, or `None` when the text can no longer match.
    fn next(&self, state: u32, byte: u8) -> Option<u32>;
}

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

/// What went wrong in a composition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ComposeErrorKind {
    /// No sequence of the vocabulary's text tokens spells a matching text.
    EmptyLanguage,
    /// The token automaton would need more edges than `ComposeLimits::token_edge_limit`.
    TokenEdgeLimit,
    /// The token automaton would need more states than `ComposeLimits::state_limit`.
    StateLimit,
    /// The inputs are inconsistent (a byte automaton pointing past its states, a
    /// detokenizer with labels outside the vocabulary, a vocabulary too large for `u32` ids).
    InvalidInput,
    /// A rustfst algorithm failed on the reference path.
    Reference,
}

/// An error from composing a byte automaton with a vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComposeError {
    kind: ComposeErrorKind,
    message: String,
}

impl ComposeError {
    pub(crate) fn new(kind: ComposeErrorKind, message: impl Into<String>) -> ComposeError {
        ComposeError {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn empty_language() -> ComposeError {
        ComposeError::new(
            ComposeErrorKind::EmptyLanguage,
            "the vocabulary cannot spell any matching text: no sequence of its text tokens \
             leads from the start to a match (special tokens have no text and never count)",
        )
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ComposeErrorKind {
        self.kind
    }
}

impl fmt::Display for ComposeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ComposeError {}

/// A byte trie of a vocabulary's text tokens, laid out flat for fast repeated walks.
///
/// Nodes are numbered in preorder with children in byte order, so a node's subtree is
/// the contiguous range `node..end[node]`: pruning a dead subtree is one jump, and the
/// walk needs no recursion and no allocation. Tokens with no bytes (special tokens and
/// empty strings) are left out: an empty token would be a self-loop on every state that
/// lets a decoder emit tokens forever without writing text.
#[derive(Clone, Debug)]
pub struct VocabTrie {
    vocab_size: usize,
    fingerprint: u64,
    eos_ids: Vec<u32>,
    /// The byte on the edge into each node (unused for the root, node 0).
    byte: Vec<u8>,
    /// Depth of each node; the root has depth 0.
    depth: Vec<u32>,
    /// One past the last node of each node's subtree.
    end: Vec<u32>,
    /// `token_ids[token_start[i]..token_start[i + 1]]` are the tokens spelling node `i`.
    token_start: Vec<u32>,
    token_ids: Vec<u32>,
    max_depth: usize,
    /// Node ranges, each a run of whole subtrees of root children, covering `1..len`;
    /// used to split one state's walk across threads.
    chunks: Vec<(u32, u32)>,
}

/// Nodes per work item below which splitting a walk costs more than it gains.
const MIN_CHUNK_NODES: usize = 4096;
/// Most pieces one state's walk is split into.
const MAX_CHUNKS: usize = 64;

impl VocabTrie {
    /// Builds the trie of `vocab`'s text tokens and records its size, fingerprint and EOS ids.
    pub fn new<V: TokenVocabulary + ?Sized>(vocab: &V) -> VocabTrie {
        let vocab_size = vocab.len();
        // Ids past u32 cannot exist; `compose_with_trie` reports such a vocabulary.
        let mut tokens: Vec<(&[u8], u32)> = (0..vocab_size)
            .map_while(|id| u32::try_from(id).ok())
            .filter_map(|id| {
                vocab
                    .token_bytes(id)
                    .filter(|b| !b.is_empty())
                    .map(|b| (b, id))
            })
            .collect();
        tokens.par_sort_unstable();

        let mut trie = VocabTrie {
            vocab_size,
            fingerprint: fingerprint(vocab),
            eos_ids: {
                let mut eos = vocab.eos_ids().to_vec();
                eos.sort_unstable();
                eos.dedup();
                eos
            },
            byte: vec![0],
            depth: vec![0],
            end: vec![0],
            token_start: vec![0],
            token_ids: Vec::with_capacity(tokens.len()),
            max_depth: 0,
            chunks: Vec::new(),
        };
        // `path[d]` is the node at depth d on the path to the previous token.
        let mut path: Vec<u32> = vec![0];
        let mut previous: &[u8] = &[];
        for &(bytes, id) in &tokens {
            let common = previous
                .iter()
                .zip(bytes)
                .take_while(|(a, b)| a == b)
                .count();
            // Close the subtrees that this token leaves.
            while path.len() > common + 1 {
                let node = path.pop().expect("path holds the root");
                trie.end[node as usize] = trie.byte.len() as u32;
            }
            for &b in &bytes[common..] {
                let node = trie.byte.len() as u32;
                trie.byte.push(b);
                trie.depth.push(path.len() as u32);
                trie.end.push(0);
                trie.token_start.push(trie.token_ids.len() as u32);
                path.push(node);
            }
            trie.token_ids.push(id);
            trie.max_depth = trie.max_depth.max(bytes.len());
            previous = bytes;
        }
        while let Some(node) = path.pop() {
            trie.end[node as usize] = trie.byte.len() as u32;
        }
        trie.token_start.push(trie.token_ids.len() as u32);
        trie.chunks = trie.make_chunks();
        trie
    }

    fn make_chunks(&self) -> Vec<(u32, u32)> {
        let nodes = self.byte.len();
        let target = MIN_CHUNK_NODES.max(nodes.div_ceil(MAX_CHUNKS));
        let mut chunks = Vec::new();
        let mut lo = 1usize;
        let mut child = 1usize;
        while child < nodes {
            child = self.end[child] as usize;
            if child - lo >= target || child >= nodes {
                chunks.push((lo as u32, child as u32));
                lo = child;
            }
        }
        if chunks.is_empty() {
            // No text tokens: one empty range keeps every state's walk a single item.
            chunks.push((1, 1));
        }
        chunks
    }

    /// Number of token ids of the vocabulary, special tokens included.
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// The vocabulary's `fingerprint`.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The vocabulary's EOS ids, sorted and without duplicates.
    pub fn eos_ids(&self) -> &[u32] {
        &self.eos_ids
    }

    /// Number of trie nodes, the root included.
    pub fn num_nodes(&self) -> usize {
        self.byte.len()
    }

    /// Number of tokens in the trie (text tokens with at least one byte).
    pub fn num_text_tokens(&self) -> usize {
        self.token_ids.len()
    }

    /// Appends to `out` the edges `(token, target)` of the DFA state `state` found in the
    /// node range `lo..hi` (whole subtrees of root children). `stack` has room for
    /// `max_depth + 1` states.
    fn walk<A: ByteAutomaton + ?Sized>(
        &self,
        dfa: &A,
        state: u32,
        (lo, hi): (u32, u32),
        stack: &mut [u32],
        out: &mut Vec<(u32, u32)>,
    ) {
        stack[0] = state;
        let mut node = lo as usize;
        let hi = hi as usize;
        while node < hi {
            let depth = self.depth[node] as usize;
            match dfa.next(stack[depth - 1], self.byte[node]) {
                None => node = self.end[node] as usize,
                Some(target) => {
                    stack[depth] = target;
                    let tokens =
                        self.token_start[node] as usize..self.token_start[node + 1] as usize;
                    out.extend(self.token_ids[tokens].iter().map(|&t| (t, target)));
                    node += 1;
                }
            }
        }
    }
}

/// The token automaton of `dfa` over `vocab`: trimmed, minimized, canonically numbered.
///
/// Builds a `VocabTrie` first; compile many patterns against one vocabulary with
/// `compose_with_trie` to build it once.
pub fn compose<A, V>(
    dfa: &A,
    vocab: &V,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
    V: TokenVocabulary + ?Sized,
{
    compose_with_trie(dfa, &VocabTrie::new(vocab), limits)
}

/// The token automaton of `dfa` over the vocabulary of `trie`: trimmed, minimized and
/// canonically numbered (start 0, breadth-first, edges in token order), so equal
/// languages give identical parts.
pub fn compose_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    compose_trimmed_with_trie(dfa, trie, limits).map(minimize)
}

/// The token automaton of `dfa` over the vocabulary of `trie`, trimmed but not minimized.
///
/// States are the byte-DFA states reachable at token boundaries that can still reach
/// acceptance, numbered in breadth-first discovery order (start 0); edges are sorted by
/// token. For callers that minimize later or want to see what minimization merges.
pub fn compose_trimmed_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
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
    let dfa_start = dfa.start();
    if dfa_start as usize >= num_dfa_states {
        return Err(out_of_range("start state", dfa_start, num_dfa_states));
    }

    // Token-level state of each DFA state, or NONE while undiscovered.
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; num_dfa_states];
    let mut order: Vec<u32> = vec![dfa_start];
    index[dfa_start as usize] = 0;
    if limits.state_limit == 0 {
        return Err(state_limit_error(limits.state_limit));
    }
    let mut edges: Vec<Vec<(u32, StateId)>> = Vec::new();
    let edge_count = AtomicUsize::new(0);
    let over_limit = AtomicBool::new(false);
    let whole = [(1u32, trie.num_nodes() as u32)];

    let mut frontier_start = 0;
    while frontier_start < order.len() {
        let frontier: Vec<u32> = order[frontier_start..].to_vec();
        frontier_start = order.len();
        // A small frontier is split by trie chunks so that every thread has work.
        let chunks: &[(u32, u32)] = if frontier.len() >= 4 * rayon::current_num_threads() {
            &whole
        } else {
            &trie.chunks
        };
        let items: Vec<(u32, (u32, u32))> = frontier
            .iter()
            .flat_map(|&s| chunks.iter().map(move |&c| (s, c)))
            .collect();
        let walked: Vec<Vec<(u32, u32)>> = items
            .par_iter()
            .map_init(
                || vec![0u32; trie.max_depth + 1],
                |stack, &(state, range)| {
                    let mut out = Vec::new();
                    if over_limit.load(Ordering::Relaxed) {
                        return out;
                    }
                    trie.walk(dfa, state, range, stack, &mut out);
                    let total = edge_count.fetch_add(out.len(), Ordering::Relaxed) + out.len();
                    if total > limits.token_edge_limit {
                        over_limit.store(true, Ordering::Relaxed);
                        out = Vec::new();
                    }
                    out
                },
            )
            .collect();
        if over_limit.load(Ordering::Relaxed) {
            return Err(ComposeError::new(
                ComposeErrorKind::TokenEdgeLimit,
                format!(
                    "the token automaton needs more than {} edges (the token edge limit); \
                     raise the limit or constrain the pattern more tightly",
                    limits.token_edge_limit
                ),
            ));
        }
        for per_state in walked.chunks(chunks.len()) {
            let mut list: Vec<(u32, StateId)> =
                Vec::with_capacity(per_state.iter().map(Vec::len).sum());
            for &(token, target) in per_state.iter().flatten() {
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
                list.push((token, *slot));
            }
            list.sort_unstable();
            edges.push(list);
        }
    }

    let accepting: Vec<bool> = order.iter().map(|&s| dfa.is_accepting(s)).collect();
    trim(accepting, edges).map(|(accepting, edges)| AutomatonParts {
        vocab_size,
        vocab_fingerprint: trie.fingerprint,
        eos_ids: trie.eos_ids.clone(),
        start: 0,
        accepting,
        edges,
    })
}

fn out_of_range(what: &str, state: u32, num_states: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::InvalidInput,
        format!(
            "the byte automaton's {what} is state {state}, but it has only {num_states} states"
        ),
    )
}

fn state_limit_error(limit: usize) -> ComposeError {
    ComposeError::new(
        ComposeErrorKind::StateLimit,
        format!(
            "the token automaton needs more than {limit} states (the state limit); \
             raise the limit or simplify the pattern"
        ),
    )
}

/// Accepting flags and edge lists of a trimmed automaton.
type Trimmed = (Vec<bool>, Vec<Vec<(u32, StateId)>>);

/// Keeps the states (all reachable from state 0) that can reach an accepting state,
/// renumbered in their old order; fails when state 0 cannot.
fn trim(accepting: Vec<bool>, edges: Vec<Vec<(u32, StateId)>>) -> Result<Trimmed, ComposeError> {
    let n = accepting.len();
    // Incoming edges of each state, as a CSR of source states.
    let mut in_start = vec![0u32; n + 1];
    for list in &edges {
        for &(_, t) in list {
            in_start[t as usize + 1] += 1;
        }
    }
    for i in 0..n {
        in_start[i + 1] += in_start[i];
    }
    let mut fill = in_start.clone();
    let mut sources = vec![0u32; in_start[n] as usize];
    for (s, list) in edges.iter().enumerate() {
        for &(_, t) in list {
            sources[fill[t as usize] as usize] = s as u32;
            fill[t as usize] += 1;
        }
    }
    let mut live = accepting.clone();
    let mut queue: Vec<u32> = (0..n as u32).filter(|&s| live[s as usize]).collect();
    while let Some(s) = queue.pop() {
        for &p in &sources[in_start[s as usize] as usize..in_start[s as usize + 1] as usize] {
            if !live[p as usize] {
                live[p as usize] = true;
                queue.push(p);
            }
        }
    }
    if !live[0] {
        return Err(ComposeError::empty_language());
    }
    let mut renumber = vec![u32::MAX; n];
    let mut next = 0u32;
    for s in 0..n {
        if live[s] {
            renumber[s] = next;
            next += 1;
        }
    }
    let mut kept_accepting = Vec::with_capacity(next as usize);
    let mut kept_edges = Vec::with_capacity(next as usize);
    for (s, list) in edges.into_iter().enumerate() {
        if live[s] {
            kept_accepting.push(accepting[s]);
            kept_edges.push(
                list.into_iter()
                    .filter(|&(_, t)| live[t as usize])
                    .map(|(tok, t)| (tok, renumber[t as usize]))
                    .collect(),
            );
        }
    }
    Ok((kept_accepting, kept_edges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ByteVocabulary;

    #[test]
    fn trie_is_preorder_with_subtree_ranges() {
        let vocab = ByteVocabulary::from_strs(&["f", "oo", "foo", "for", "food", "foo", ""]);
        let trie = VocabTrie::new(&vocab);
        // Nodes: root, f, fo, foo, food, for, o, oo.
        assert_eq!(trie.num_nodes(), 8);
        assert_eq!(trie.byte[1..], *b"foodroo");
        assert_eq!(trie.depth, [0, 1, 2, 3, 4, 3, 1, 2]);
        assert_eq!(trie.end, [8, 6, 6, 5, 5, 6, 8, 8]);
        // The duplicate "foo" (ids 2 and 5) sits on one node; the empty token is left out.
        assert_eq!(trie.num_text_tokens(), 6);
        let foo = 3;
        let ids =
            &trie.token_ids[trie.token_start[foo] as usize..trie.token_start[foo + 1] as usize];
        assert_eq!(ids, [2, 5]);
        assert_eq!(trie.eos_ids(), [7]);
        assert_eq!(trie.chunks, [(1, 8)]);
    }

    #[test]
    fn chunks_cover_all_nodes_in_whole_subtrees() {
        let words: Vec<String> = (0..20_000u32).map(|i| format!("{i:x}q{}", i % 7)).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let trie = VocabTrie::new(&ByteVocabulary::from_strs(&refs));
        assert!(trie.chunks.len() > 1);
        assert_eq!(trie.chunks[0].0, 1);
        assert_eq!(trie.chunks.last().unwrap().1 as usize, trie.num_nodes());
        for w in trie.chunks.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        for &(lo, _) in &trie.chunks {
            assert_eq!(trie.depth[lo as usize], 1, "a chunk starts at a root child");
        }
    }
}
