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
//!
//! Tokens that behave identically from every state form *groups*, and the walks, the
//! trimming and the minimization run on groups (further merged when their columns
//! agree); the compiler lays groups out as token classes, and only tools expand them to
//! token edges. Groups are numbered by their smallest token so that every breadth-first
//! numbering matches the token-level one. Two ways to find them:
//!
//! - by transition function (`functions`), for DFAs of at most `MAX_FUNCTION_STATES`
//!   states: tokens that map every state to the same state are one group, found in one
//!   pass over the vocabulary trie with a memo table; a group's edges are read off its
//!   function, with no walk at all. Gives up (past a budget) when the functions multiply.
//! - by class string (`ClassTrie`): a byte DFA cannot tell apart bytes of one byte class,
//!   so the vocabulary trie is folded into a trie of class strings (typically ten times
//!   smaller), which is then walked from every state.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::automaton::{AutomatonParts, ClassParts, StateId};
use crate::fast_hash::FastMap;
use crate::minimize::minimize;
use crate::vocab::{fingerprint, TokenVocabulary};

mod functions;
mod level_trie;

use functions::FunctionGroups;
use level_trie::{first_unsplit_fold, LevelTrie};

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
    /// The class of each byte, if the automaton has them: bytes of one class must have the
    /// same transition from every state. Composition then walks a trie of class strings,
    /// far smaller than the vocabulary's, and treats tokens with one class string as one
    /// label. `None` (the default) means every byte is its own class.
    fn byte_classes(&self) -> Option<&[u8; 256]> {
        None
    }
    /// How many terminal labels the automaton has: edges that read one whole token from a
    /// precomputed set instead of bytes (Koo et al. §2.5.1). Terminal `k` becomes token
    /// automaton label `vocab_size + k`; a lower `k` has precedence. Default: none.
    fn num_terminals(&self) -> usize {
        0
    }
    /// The state reached from `state` by terminal `terminal` (`0..num_terminals()`), if any.
    /// Only followed at token boundaries, where a whole token is read.
    fn next_terminal(&self, _state: u32, _terminal: usize) -> Option<u32> {
        None
    }
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
    /// The trie again in level order (each level in preorder), for passes where a node
    /// needs only its parent's value.
    levels: LevelTrie,
    /// `levels` folded by each partition of `level_trie::FOLDS`, coarsest first, for
    /// patterns that do not split its classes.
    folded_levels: Vec<LevelTrie>,
    max_depth: usize,
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
            levels: LevelTrie::default(),
            folded_levels: Vec::new(),
            max_depth: 0,
        };
        // `path[d]` is the node at depth d on the path to the previous token.
        let mut path: Vec<u32> = vec![0];
        let mut parent: Vec<u32> = vec![0];
        let mut node_of_token = vec![NONE; vocab_size];
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
                parent.push(*path.last().expect("path holds the root"));
                path.push(node);
            }
            trie.token_ids.push(id);
            node_of_token[id as usize] = *path.last().expect("path holds the root");
            trie.max_depth = trie.max_depth.max(bytes.len());
            previous = bytes;
        }
        while let Some(node) = path.pop() {
            trie.end[node as usize] = trie.byte.len() as u32;
        }
        trie.token_start.push(trie.token_ids.len() as u32);
        trie.set_level_order(&parent, &node_of_token);
        trie
    }

    /// Fills the level-order views from the preorder one: a stable counting sort by depth.
    fn set_level_order(&mut self, parent: &[u32], node_of_token: &[u32]) {
        let nodes = self.byte.len();
        let mut start = vec![0u32; self.max_depth + 2];
        for &d in &self.depth {
            start[d as usize + 1] += 1;
        }
        for d in 0..=self.max_depth {
            start[d + 1] += start[d];
        }
        let mut entry_of_node = vec![0u32; nodes];
        for (node, &d) in self.depth.iter().enumerate() {
            entry_of_node[node] = start[d as usize];
            start[d as usize] += 1;
        }
        let mut level_parent = vec![0; nodes];
        let mut level_byte = vec![0; nodes];
        for node in 1..nodes {
            let i = entry_of_node[node] as usize;
            level_parent[i] = entry_of_node[parent[node] as usize];
            level_byte[i] = self.byte[node];
        }
        let of_token = node_of_token
            .iter()
            .map(|&node| {
                if node == NONE {
                    nodes as u32
                } else {
                    entry_of_node[node as usize]
                }
            })
            .collect();
        self.levels = LevelTrie::new(level_parent, level_byte, of_token);
        self.folded_levels = level_trie::folds(&self.levels);
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

    /// The text tokens, or with `Some(byte)` those whose bytes never contain `byte`, as a
    /// mask of `ceil(vocab_size / 32)` words laid out like a walker mask: how terminal
    /// labels get their token sets. One level-order pass (a node contains the byte when
    /// its parent does or its own byte is it) and one over the token ids.
    pub fn text_token_mask(&self, without: Option<u8>) -> Vec<u32> {
        let levels = &self.levels;
        let entries = levels.len();
        // Entry `entries` stands for the tokens without text: never in the mask.
        let mut excluded = vec![false; entries + 1];
        excluded[entries] = true;
        if let Some(byte) = without {
            for i in 1..entries {
                excluded[i] = excluded[levels.parent[i] as usize] || levels.symbol[i] == byte;
            }
        }
        let mut mask = vec![0u32; self.vocab_size.div_ceil(32)];
        for (t, &entry) in levels.of_token.iter().enumerate() {
            if !excluded[entry as usize] {
                mask[t / 32] |= 1 << (t % 32);
            }
        }
        mask
    }

    /// Number of tokens in the trie (text tokens with at least one byte).
    pub fn num_text_tokens(&self) -> usize {
        self.token_ids.len()
    }
}

/// Splits the preorder node range `1..end.len()` into runs of whole subtrees of root
/// children, each of at least `MIN_CHUNK_NODES` nodes where possible.
fn make_chunks(nodes: usize, end: impl Fn(usize) -> u32) -> Vec<(u32, u32)> {
    let target = MIN_CHUNK_NODES.max(nodes.div_ceil(MAX_CHUNKS));
    let mut chunks = Vec::new();
    let mut lo = 1usize;
    let mut child = 1usize;
    while child < nodes {
        child = end(child) as usize;
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

/// Marks an absent node, group or state in the flat tables below.
const NONE: u32 = u32::MAX;

/// The vocabulary seen through one byte automaton's byte classes.
///
/// Two tokens whose bytes have the same class sequence drive the automaton identically
/// from every state, so they form one *group* and become one label until the very end.
/// A 128k-token vocabulary has a trie of ~400k nodes but, for a typical pattern with a
/// few dozen classes, a class trie of a few thousand nodes and a few thousand groups:
/// the walks and the minimization shrink by that factor. Groups are numbered by their
/// smallest token, so ordering edges by group orders them as their first tokens; that
/// keeps breadth-first numberings identical to the token-level ones.
struct ClassTrie {
    /// The nodes in preorder, like `VocabTrie`'s, packed for locality.
    nodes: Vec<ClassNode>,
    /// One byte of each (dense) class, to drive the automaton with.
    representative: Vec<u8>,
    max_depth: usize,
    chunks: Vec<(u32, u32)>,
    groups: Labels,
}

/// A partition of the text tokens into labels numbered by their smallest token.
struct Labels {
    /// The label of each token id, or `NONE` for tokens without text.
    of_token: Vec<u32>,
    /// Tokens per label.
    size: Vec<u32>,
}

impl Labels {
    /// The labels of `of_token` (ids `0..count`, numbered by first token).
    fn new(of_token: Vec<u32>, count: usize) -> Labels {
        let mut size = vec![0u32; count];
        for &l in of_token.iter().filter(|&&l| l != NONE) {
            size[l as usize] += 1;
        }
        Labels { of_token, size }
    }

    fn len(&self) -> usize {
        self.size.len()
    }

    fn size(&self, label: u32) -> usize {
        self.size[label as usize] as usize
    }

    /// Each label's tokens, ascending, as a CSR `(start, tokens)`: label `l` has
    /// `tokens[start[l]..start[l + 1]]`. Built on demand; the class layout never needs it.
    fn token_lists(&self) -> (Vec<u32>, Vec<u32>) {
        let mut start = Vec::with_capacity(self.len() + 1);
        start.push(0u32);
        for (l, &n) in self.size.iter().enumerate() {
            start.push(start[l] + n);
        }
        let mut fill = start.clone();
        let mut tokens = vec![0u32; start[self.len()] as usize];
        for (t, &l) in self.of_token.iter().enumerate() {
            if l != NONE {
                tokens[fill[l as usize] as usize] = t as u32;
                fill[l as usize] += 1;
            }
        }
        (start, tokens)
    }

    /// Token edges of label edge lists, each sorted by token. Labels from `len()` up are
    /// terminal labels: label `len() + k` becomes `vocab_size + k`, after the tokens.
    fn expand(&self, edges: &[Vec<(u32, StateId)>]) -> Vec<Vec<(u32, StateId)>> {
        let vocab = self.of_token.len();
        let groups = self.len() as u32;
        let (start, tokens) = self.token_lists();
        let tokens_of =
            |l: u32| &tokens[start[l as usize] as usize..start[l as usize + 1] as usize];
        let terminal = |l: u32| vocab as u32 + (l - groups);
        edges
            .par_iter()
            .map_init(
                || vec![NONE; self.len()],
                |target_of, list| {
                    let split = list.partition_point(|&(l, _)| l < groups);
                    let (list, terminals) = list.split_at(split);
                    let size: usize = list.iter().map(|&(l, _)| self.size(l)).sum();
                    let mut out = Vec::with_capacity(size + terminals.len());
                    if size.saturating_mul(16) >= vocab {
                        // Dense: one sweep over the token ids comes out sorted.
                        for &(l, t) in list {
                            target_of[l as usize] = t;
                        }
                        for (token, &l) in self.of_token.iter().enumerate() {
                            if l != NONE && target_of[l as usize] != NONE {
                                out.push((token as u32, target_of[l as usize]));
                            }
                        }
                        for &(l, _) in list {
                            target_of[l as usize] = NONE;
                        }
                    } else {
                        for &(l, t) in list {
                            out.extend(tokens_of(l).iter().map(|&token| (token, t)));
                        }
                        out.sort_unstable();
                    }
                    out.extend(terminals.iter().map(|&(l, t)| (terminal(l), t)));
                    out
                },
            )
            .collect()
    }
}

/// A class-trie node.
#[derive(Clone, Copy, Debug)]
struct ClassNode {
    depth: u32,
    /// The dense class on the edge into the node (unused for the root).
    class: u32,
    /// One past the last node of the subtree.
    end: u32,
    /// The group of the tokens spelling the node, or `NONE`.
    group: u32,
}

/// An open-addressing map from (class-trie parent, class) to class-trie node: the one
/// hash-consing table of `ClassTrie::new`, without per-entry allocation.
struct ChildTable {
    keys: Vec<u64>,
    values: Vec<u32>,
    len: usize,
}

impl ChildTable {
    const EMPTY: u64 = u64::MAX;

    fn with_capacity(n: usize) -> ChildTable {
        let size = (2 * n).next_power_of_two().max(64);
        ChildTable {
            keys: vec![ChildTable::EMPTY; size],
            values: vec![0; size],
            len: 0,
        }
    }

    fn slot(&self, key: u64) -> usize {
        // Fibonacci hashing: the multiply mixes the parent into the top bits.
        let bits = self.keys.len().trailing_zeros();
        let mut i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
        let mask = self.keys.len() - 1;
        while self.keys[i] != ChildTable::EMPTY && self.keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    /// The node for `key`, inserting `fresh` when absent; returns (node, inserted).
    fn get_or_insert(&mut self, key: u64, fresh: u32) -> (u32, bool) {
        let i = self.slot(key);
        if self.keys[i] == key {
            return (self.values[i], false);
        }
        self.keys[i] = key;
        self.values[i] = fresh;
        self.len += 1;
        if 2 * self.len > self.keys.len() {
            self.grow();
        }
        (fresh, true)
    }

    fn grow(&mut self) {
        let keys = std::mem::take(&mut self.keys);
        let values = std::mem::take(&mut self.values);
        self.keys = vec![ChildTable::EMPTY; 2 * keys.len()];
        self.values = vec![0; 2 * keys.len()];
        for (key, value) in keys.into_iter().zip(values) {
            if key != ChildTable::EMPTY {
                let i = self.slot(key);
                self.keys[i] = key;
                self.values[i] = value;
            }
        }
    }
}

/// A DFA's byte classes renumbered densely in order of first byte, with one
/// representative byte per class to drive the DFA with.
struct DenseClasses {
    class_of_byte: [u8; 256],
    representative: Vec<u8>,
}

impl DenseClasses {
    fn new(classes: &[u8; 256]) -> DenseClasses {
        let mut representative: Vec<u8> = Vec::new();
        let mut dense: [Option<u8>; 256] = [None; 256];
        let mut class_of_byte = [0u8; 256];
        for b in 0..=255u8 {
            let c = classes[b as usize] as usize;
            // At most 256 classes, so the dense id fits a byte.
            let id = *dense[c].get_or_insert_with(|| {
                representative.push(b);
                (representative.len() - 1) as u8
            });
            class_of_byte[b as usize] = id;
        }
        DenseClasses {
            class_of_byte,
            representative,
        }
    }
}

impl ClassTrie {
    /// Maps `trie` onto class strings under `dense` (one pass over the live part of the
    /// vocabulary trie, one over the token ids, one over the class trie). Subtrees
    /// entered by a class in `dead` (no state has a transition on it) are skipped: their
    /// tokens can never be an edge and join no group.
    fn new(trie: &VocabTrie, dense: DenseClasses, dead: &[bool]) -> ClassTrie {
        let DenseClasses {
            class_of_byte,
            representative,
        } = dense;

        // Hash-cons every vocabulary node to (class parent, class); class nodes are
        // numbered in creation order, so a parent's number is below its children's.
        let nodes = trie.num_nodes();
        let mut parent: Vec<u32> = vec![NONE];
        let mut class: Vec<u8> = vec![0];
        // Sized for a typical class trie (an eighth of the vocabulary trie), so that it
        // rarely grows.
        let mut table = ChildTable::with_capacity(nodes / 8);
        let mut group_of_token = vec![NONE; trie.vocab_size];
        let mut path = vec![0u32; trie.max_depth + 1];
        let mut node = 1;
        while node < nodes {
            let depth = trie.depth[node] as usize;
            let p = path[depth - 1];
            let c = class_of_byte[trie.byte[node] as usize];
            if dead[c as usize] {
                node = trie.end[node] as usize;
                continue;
            }
            let key = u64::from(p) << 8 | u64::from(c);
            let (cnode, inserted) = table.get_or_insert(key, parent.len() as u32);
            if inserted {
                parent.push(p);
                class.push(c);
            }
            path[depth] = cnode;
            let tokens = trie.token_start[node] as usize..trie.token_start[node + 1] as usize;
            for &t in &trie.token_ids[tokens] {
                group_of_token[t as usize] = cnode;
            }
            node += 1;
        }
        let num_cnodes = parent.len();

        // Groups numbered by first token.
        let mut group_of_cnode = vec![NONE; num_cnodes];
        let mut num_groups = 0u32;
        for slot in group_of_token.iter_mut().filter(|g| **g != NONE) {
            let g = &mut group_of_cnode[*slot as usize];
            if *g == NONE {
                *g = num_groups;
                num_groups += 1;
            }
            *slot = *g;
        }
        let groups = Labels::new(group_of_token, num_groups as usize);

        // Lay the class trie out in preorder, like `VocabTrie`.
        let mut child_start = vec![0u32; num_cnodes + 1];
        for &p in &parent[1..] {
            child_start[p as usize + 1] += 1;
        }
        for i in 0..num_cnodes {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; num_cnodes.saturating_sub(1)];
        for (cnode, &p) in parent.iter().enumerate().skip(1) {
            children[fill[p as usize] as usize] = cnode as u32;
            fill[p as usize] += 1;
        }
        let mut out = ClassTrie {
            nodes: Vec::with_capacity(num_cnodes),
            representative,
            max_depth: trie.max_depth,
            chunks: Vec::new(),
            groups,
        };
        // Stack of (class node, its preorder position, depth, next child index).
        let mut stack: Vec<(u32, u32, u32, u32)> = vec![(0, 0, 0, child_start[0])];
        out.nodes.push(ClassNode {
            depth: 0,
            class: 0,
            end: 0,
            group: NONE,
        });
        while let Some(top) = stack.last_mut() {
            let (cnode, position, depth, next) = *top;
            if next == child_start[cnode as usize + 1] {
                out.nodes[position as usize].end = out.nodes.len() as u32;
                stack.pop();
                continue;
            }
            top.3 += 1;
            let child = children[next as usize];
            let position = out.nodes.len() as u32;
            out.nodes.push(ClassNode {
                depth: depth + 1,
                class: u32::from(class[child as usize]),
                end: 0,
                group: group_of_cnode[child as usize],
            });
            stack.push((child, position, depth + 1, child_start[child as usize]));
        }
        out.chunks = make_chunks(out.nodes.len(), |i| out.nodes[i].end);
        out
    }

    fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    fn num_classes(&self) -> usize {
        self.representative.len()
    }

    /// Appends to `out` the edges `(group, target)` of the DFA state `state` found in the
    /// node range `lo..hi` (whole subtrees of root children) and returns how many token
    /// edges they stand for. `step(state, class)` is the automaton's transition on a
    /// dense class. `stack` has room for `max_depth + 1` states.
    fn walk(
        &self,
        step: &impl Fn(u32, u32) -> Option<u32>,
        state: u32,
        (lo, hi): (u32, u32),
        stack: &mut [u32],
        out: &mut Vec<(u32, u32)>,
    ) -> usize {
        stack[0] = state;
        let mut node = lo as usize;
        let hi = hi as usize;
        let mut token_edges = 0;
        while node < hi {
            let ClassNode {
                depth,
                class,
                end,
                group,
            } = self.nodes[node];
            let depth = depth as usize;
            match step(stack[depth - 1], class) {
                None => node = end as usize,
                Some(target) => {
                    stack[depth] = target;
                    if group != NONE {
                        out.push((group, target));
                        token_edges += self.groups.size(group);
                    }
                    node += 1;
                }
            }
        }
        token_edges
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
///
/// Minimization runs on token groups (see `byte_classes` on [`ByteAutomaton`]): the
/// groups partition the text tokens the same way from every state, so the group-level
/// minimal automaton, expanded, is the token-level minimal one.
pub fn compose_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (labels, minimal) = compose_minimal_groups(dfa, trie, limits)?;
    Ok(AutomatonParts {
        edges: labels.expand(&minimal.edges),
        ..minimal
    })
}

/// The same automaton as [`compose_with_trie`], with edges labelled by token class
/// instead of expanded to tokens: what the compiler lays out, since a wildcard state
/// then costs a few class edges instead of ~|V| token edges. `terminals` is left empty.
pub fn compose_classes_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<ClassParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (labels, minimal) = compose_minimal_groups(dfa, trie, limits)?;
    Ok(ClassParts {
        vocab_size: minimal.vocab_size,
        vocab_fingerprint: minimal.vocab_fingerprint,
        eos_ids: minimal.eos_ids,
        start: minimal.start,
        accepting: minimal.accepting,
        num_classes: labels.len() as u32,
        class_of_token: labels.of_token,
        edges: minimal.edges,
        terminals: Vec::new(),
    })
}

/// The minimal automaton over token groups (merged where their columns agree) and the
/// groups; terminal labels follow the groups.
fn compose_minimal_groups<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<(Labels, AutomatonParts), ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (groups, grouped) = compose_groups(dfa, trie, limits, GroupBy::Auto)?;
    Ok(minimal_from_groups(groups, grouped))
}

/// Merges the labels whose columns agree, then minimizes.
fn minimal_from_groups(groups: Labels, mut grouped: AutomatonParts) -> (Labels, AutomatonParts) {
    let labels = match merge_columns(&groups, &grouped.edges) {
        Some((labels, edges)) => {
            grouped.edges = edges;
            labels
        }
        None => groups,
    };
    (labels, minimize(grouped))
}

/// The token automaton of `dfa` over the vocabulary of `trie`, trimmed but not minimized.
///
/// States are the byte-DFA states reachable at token boundaries that can still reach
/// acceptance, numbered breadth-first from the start (0), following each state's edges
/// in token order; edges are sorted by token. For callers that minimize later or want
/// to see what minimization merges.
pub fn compose_trimmed_with_trie<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
) -> Result<AutomatonParts, ComposeError>
where
    A: ByteAutomaton + Sync + ?Sized,
{
    let (groups, grouped) = compose_groups(dfa, trie, limits, GroupBy::Auto)?;
    Ok(AutomatonParts {
        edges: groups.expand(&grouped.edges),
        ..grouped
    })
}

/// The trimmed composition with edges labelled by token group, and the groups.
fn compose_groups<A>(
    dfa: &A,
    trie: &VocabTrie,
    limits: &ComposeLimits,
    group_by: GroupBy,
) -> Result<(Labels, AutomatonParts), ComposeError>
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
    let identity: [u8; 256] = std::array::from_fn(|b| b as u8);
    let dense = DenseClasses::new(dfa.byte_classes().unwrap_or(&identity));
    let k = dense.representative.len();

    // The automaton as a dense table over classes, when that is small: the walks then
    // take one load per node.
    let table = if num_dfa_states.saturating_mul(k) <= MAX_TABLE_ENTRIES {
        let mut table = Vec::with_capacity(num_dfa_states * k);
        for s in 0..num_dfa_states as u32 {
            for &b in &dense.representative {
                match dfa.next(s, b) {
                    Some(t) if t as usize >= num_dfa_states => {
                        return Err(out_of_range("transition target", t, num_dfa_states))
                    }
                    Some(t) => table.push(t),
                    None => table.push(NONE),
                }
            }
        }
        Some(table)
    } else {
        None
    };
    // Small DFAs group tokens by transition function (no walks); larger ones, or when
    // the functions multiply, by class string.
    // (whether to try functions, their budget)
    let (try_functions, budget) = match group_by {
        GroupBy::Auto => (num_dfa_states <= MAX_FUNCTION_STATES, MAX_FUNCTION_ENTRIES),
        GroupBy::Functions | GroupBy::ByteFunctions => (true, usize::MAX),
        GroupBy::ClassStrings => (false, 0),
    };
    let by_function = match &table {
        Some(table) if try_functions => {
            // The first folded trie (far smaller) whose partition the pattern does not split.
            let folded = match group_by {
                GroupBy::ByteFunctions => None,
                _ => first_unsplit_fold(&dense.class_of_byte),
            };
            let (levels, class_of_symbol): (&LevelTrie, &[u8]) = match &folded {
                Some((i, classes)) => (&trie.folded_levels[*i], classes),
                None => (&trie.levels, &dense.class_of_byte),
            };
            FunctionGroups::new(levels, class_of_symbol, table, k, num_dfa_states, budget)
        }
        _ => None,
    };
    let grouping = match by_function {
        Some(functions) => Grouping::Functions(functions),
        None => {
            // Classes no state has a transition on: tokens containing them never fit.
            // Known only from the table (without it, nothing is pruned up front).
            let mut dead = vec![table.is_some(); k];
            if let Some(table) = &table {
                for row in table.chunks(k) {
                    for (c, &t) in row.iter().enumerate() {
                        if t != NONE {
                            dead[c] = false;
                        }
                    }
                }
            }
            Grouping::Trie(ClassTrie::new(trie, dense, &dead))
        }
    };
    let num_groups = grouping.groups().len() as u32;

    // Token-level state of each DFA state, or NONE while undiscovered.
    let mut index = vec![NONE; num_dfa_states];
    let mut order: Vec<u32> = vec![dfa_start];
    index[dfa_start as usize] = 0;
    let mut edges: Vec<Vec<(u32, StateId)>> = Vec::new();
    let edge_count = AtomicUsize::new(0);
    let over_limit = AtomicBool::new(false);
    let mut by_group = vec![NONE; num_groups as usize];

    let mut frontier_start = 0;
    while frontier_start < order.len() {
        let frontier: Vec<u32> = order[frontier_start..].to_vec();
        frontier_start = order.len();
        let counter = (&edge_count, &over_limit, limits.token_edge_limit);
        let (walked, items_per_state) = match &grouping {
            Grouping::Functions(functions) => {
                let walked = frontier
                    .iter()
                    .map(|&s| {
                        let (list, found) = functions.edges(s);
                        let total = edge_count.fetch_add(found, Ordering::Relaxed) + found;
                        if total > limits.token_edge_limit {
                            over_limit.store(true, Ordering::Relaxed);
                        }
                        list
                    })
                    .collect();
                (walked, 1)
            }
            Grouping::Trie(classes) => {
                let whole = [(1u32, classes.num_nodes() as u32)];
                // A small frontier is split by trie chunks so that every thread has work.
                let chunks: &[(u32, u32)] = if frontier.len() >= 4 * rayon::current_num_threads() {
                    &whole
                } else {
                    &classes.chunks
                };
                let items: Vec<(u32, (u32, u32))> = frontier
                    .iter()
                    .flat_map(|&s| chunks.iter().map(move |&c| (s, c)))
                    .collect();
                // Threads pay off only when there are many class-trie nodes to walk.
                let parallel =
                    items.len() > 1 && frontier.len() * classes.num_nodes() >= PARALLEL_WALK_NODES;
                let walked = match &table {
                    Some(table) => {
                        let k = classes.num_classes();
                        let step = |s: u32, c: u32| {
                            let t = table[s as usize * k + c as usize];
                            (t != NONE).then_some(t)
                        };
                        walk_items(classes, &step, &items, parallel, counter)
                    }
                    None => {
                        let step = |s: u32, c: u32| {
                            if (s as usize) < num_dfa_states {
                                dfa.next(s, classes.representative[c as usize])
                            } else {
                                None
                            }
                        };
                        walk_items(classes, &step, &items, parallel, counter)
                    }
                };
                (walked, chunks.len())
            }
        };
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
        for (&dfa_state, per_state) in frontier.iter().zip(walked.chunks(items_per_state)) {
            // In group order, i.e. in order of first tokens: breadth-first discovery
            // then follows token order. A group occurs at most once per state (it is one
            // class-trie node), so a state reaching many groups is bucketed, not sorted.
            let found: usize = per_state.iter().map(Vec::len).sum();
            let mut list: Vec<(u32, StateId)> = Vec::with_capacity(found);
            if found.saturating_mul(8) >= num_groups as usize {
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

/// How to group the tokens: by transition function when the DFA is small (tests force
/// it without a budget, over a folded trie where the classes allow or always over the
/// byte trie), or by class string. All give the same automaton; tests compare them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupBy {
    Auto,
    #[cfg_attr(not(test), allow(dead_code))]
    Functions,
    #[cfg_attr(not(test), allow(dead_code))]
    ByteFunctions,
    #[cfg_attr(not(test), allow(dead_code))]
    ClassStrings,
}

/// How the tokens were grouped for one compile.
enum Grouping {
    Functions(FunctionGroups),
    Trie(ClassTrie),
}

impl Grouping {
    fn groups(&self) -> &Labels {
        match self {
            Grouping::Functions(functions) => &functions.groups,
            Grouping::Trie(classes) => &classes.groups,
        }
    }

    fn into_groups(self) -> Labels {
        match self {
            Grouping::Functions(functions) => functions.groups,
            Grouping::Trie(classes) => classes.groups,
        }
    }
}

/// Byte DFAs with at most this many states try grouping by transition function (the
/// five regexes of the benchmarks have 11 to 484). With sparse functions it wins up to
/// ~1,500 states (three date-times, 1,453 states: 2.8 vs 4.4 ms of composition on Llama 3)
/// and breaks even near 3,000 (`(\w+ ){2,8}\w+`, 2,853 states).
const MAX_FUNCTION_STATES: usize = 2048;
/// Live `(state, target)` pairs, summed over the distinct functions, past which grouping
/// by function gives up for the class trie (2 MB).
const MAX_FUNCTION_ENTRIES: usize = 1 << 18;

/// Class-trie nodes (summed over a frontier's states) below which one thread walks.
const PARALLEL_WALK_NODES: usize = 1 << 16;
/// Largest (states x classes) transition table built for the walks (16 MB).
const MAX_TABLE_ENTRIES: usize = 1 << 22;

/// Counters shared by the walks: token edges so far, whether the limit was passed, the limit.
type EdgeCounter<'a> = (&'a AtomicUsize, &'a AtomicBool, usize);

/// The group edges of every `(state, node range)` item, on threads when `parallel`.
/// Stops early (returning empty lists) once the token edges pass the limit.
fn walk_items<F>(
    classes: &ClassTrie,
    step: &F,
    items: &[(u32, (u32, u32))],
    parallel: bool,
    (edge_count, over_limit, limit): EdgeCounter<'_>,
) -> Vec<Vec<(u32, u32)>>
where
    F: Fn(u32, u32) -> Option<u32> + Sync,
{
    let walk = |stack: &mut Vec<u32>, &(state, range): &(u32, (u32, u32))| {
        let mut out = Vec::new();
        if over_limit.load(Ordering::Relaxed) {
            return out;
        }
        let found = classes.walk(step, state, range, stack, &mut out);
        let total = edge_count.fetch_add(found, Ordering::Relaxed) + found;
        if total > limit {
            over_limit.store(true, Ordering::Relaxed);
            out = Vec::new();
        }
        out
    };
    let new_stack = || vec![0u32; classes.max_depth + 1];
    if parallel {
        items.par_iter().map_init(new_stack, walk).collect()
    } else {
        let mut stack = new_stack();
        items.iter().map(|item| walk(&mut stack, item)).collect()
    }
}

/// Per-state edge lists `(label, target)`.
type EdgeLists = Vec<Vec<(u32, StateId)>>;

/// Merges the labels whose columns are identical (the same target from every state,
/// absent from the same states): they cannot tell states apart, so minimizing over one
/// label per column gives the same automaton, on far fewer edges (`[^\n]+` leaves
/// thousands of groups that all go to one state). `None` when nothing merges. Labels from
/// `labels.len()` up (terminals) are never merged; they keep their order after the groups.
///
/// Columns are matched by hash, then checked exactly while the merged lists are built;
/// a collision (which the check catches) also gives `None`.
fn merge_columns(labels: &Labels, edges: &[Vec<(u32, StateId)>]) -> Option<(Labels, EdgeLists)> {
    let n = labels.len();
    let mut hash = vec![0u64; n];
    let mut count = vec![0u32; n];
    for (s, list) in edges.iter().enumerate() {
        for &(l, t) in list.iter().take_while(|&&(l, _)| (l as usize) < n) {
            let h = &mut hash[l as usize];
            *h = (h.rotate_left(5) ^ ((s as u64) << 32 | u64::from(t)))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
            count[l as usize] += 1;
        }
    }
    // Merged labels numbered by first member, hence by first token.
    let mut ids: FastMap<(u64, u32), u32> = FastMap::default();
    let mut merged_of = vec![0u32; n];
    let mut size: Vec<u32> = Vec::new();
    for l in 0..n {
        let fresh = size.len() as u32;
        let id = *ids.entry((hash[l], count[l])).or_insert(fresh);
        if id == fresh {
            size.push(0);
        }
        size[id as usize] += 1;
        merged_of[l] = id;
    }
    if size.len() == n {
        return None;
    }
    // Each label occurs at most once per state. A merged label is sound when, in every
    // state where one member occurs, all occur with one target.
    let mut target = vec![NONE; size.len()];
    let mut seen = vec![0u32; size.len()];
    let mut merged_edges = Vec::with_capacity(edges.len());
    let merged = size.len() as u32;
    for list in edges {
        let mut out: Vec<(u32, StateId)> = Vec::new();
        let split = list.partition_point(|&(l, _)| (l as usize) < n);
        for &(l, t) in &list[..split] {
            let m = merged_of[l as usize] as usize;
            if target[m] == NONE {
                target[m] = t;
                out.push((m as u32, t));
            } else if target[m] != t {
                return None;
            }
            seen[m] += 1;
        }
        for &(m, _) in &out {
            if seen[m as usize] != size[m as usize] {
                return None;
            }
            target[m as usize] = NONE;
            seen[m as usize] = 0;
        }
        // Members come in label order, so each merged label first appears at its
        // first member: `out` is already sorted. Terminal labels follow, renumbered.
        out.extend(
            list[split..]
                .iter()
                .map(|&(l, t)| (merged + (l - n as u32), t)),
        );
        merged_edges.push(out);
    }
    let of_token = labels
        .of_token
        .iter()
        .map(|&l| {
            if l == NONE {
                NONE
            } else {
                merged_of[l as usize]
            }
        })
        .collect();
    let mut merged_size = vec![0u32; size.len()];
    for (l, &m) in merged_of.iter().enumerate() {
        merged_size[m as usize] += labels.size[l];
    }
    Some((
        Labels {
            of_token,
            size: merged_size,
        },
        merged_edges,
    ))
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
    use super::level_trie::FOLDS;
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
        assert_eq!(make_chunks(trie.end.len(), |i| trie.end[i]), [(1, 8)]);
    }

    /// A vocabulary of every single byte plus random strings over quotes, backslashes,
    /// newlines, ASCII and pieces of multi-byte UTF-8 characters.
    fn mixed_vocab(seed: u64, extra: usize) -> ByteVocabulary {
        let alphabet: Vec<&[u8]> = vec![
            b"\"",
            b"\\",
            b"\n",
            b"a",
            b"q",
            b"Z",
            b"M",
            b"_",
            b"7",
            b"9",
            b"0",
            b"-",
            b":",
            b".",
            b" ",
            b"*",
            "é".as_bytes(),
            "中".as_bytes(),
            "😀".as_bytes(),
            &[0xe4],
            &[0xb8, 0xad],
            &[0x80],
            &[0xa0, 0x9f],
            &[0xed],
            &[0xf4, 0x8f],
            &[0xff],
        ];
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let mut tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).collect();
        for _ in 0..extra {
            let len = 1 + next() % 4;
            let token: Vec<u8> = (0..len)
                .flat_map(|_| alphabet[next() % alphabet.len()].iter().copied())
                .collect();
            tokens.push(Some(token));
        }
        tokens.push(None);
        let eos = tokens.len() as u32 - 1;
        ByteVocabulary::new(tokens, vec![eos])
    }

    #[test]
    fn grouping_by_function_equals_grouping_by_class_string() {
        let patterns = [
            r#""([^"\\]|\\.)*""#,
            r"Summary:(\n\* [^\n]+){3,5}",
            r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
            r"[^\W\d]\w*",
            r"(é|中)+[a-z]*",
            r"[0-9]{2,4}-?",
            r".{0,6}",
        ];
        // How many patterns each folded trie served (by `FOLDS` index), and the byte trie.
        let mut served = [0; FOLDS.len() + 1];
        for seed in 1..4 {
            let trie = VocabTrie::new(&mixed_vocab(seed, 2000));
            for pattern in patterns {
                let dfa = crate::regex::ByteDfa::from_regex(pattern, 10_000).unwrap();
                let dense = DenseClasses::new(dfa.byte_classes());
                let fold = first_unsplit_fold(&dense.class_of_byte).map(|(i, _)| i);
                served[fold.unwrap_or(FOLDS.len())] += 1;
                let limits = ComposeLimits::default();
                let run = |group_by| {
                    let (groups, trimmed) = compose_groups(&dfa, &trie, &limits, group_by).unwrap();
                    let trimmed_edges = groups.expand(&trimmed.edges);
                    let (labels, minimal) = minimal_from_groups(groups, trimmed.clone());
                    (
                        trimmed.accepting,
                        trimmed_edges,
                        minimal.accepting,
                        labels.expand(&minimal.edges),
                    )
                };
                let by_function = run(GroupBy::Functions);
                let by_byte_function = run(GroupBy::ByteFunctions);
                let by_string = run(GroupBy::ClassStrings);
                assert!(!by_function.1.is_empty(), "{pattern}");
                assert_eq!(by_function, by_string, "seed {seed}, pattern {pattern}");
                assert_eq!(
                    by_byte_function, by_string,
                    "seed {seed}, pattern {pattern}"
                );
            }
        }
        // COARSE: the quoted string, `[0-9]{2,4}-?`, `.{0,6}`; LETTERS: IPv4 (its Unicode `\d`
        // splits the continuation bytes), the identifier, `(é|中)+[a-z]*`; bytes: Summary.
        assert_eq!(served, [3 * 3, 3 * 3, 3]);
    }

    #[test]
    fn text_token_masks_match_the_token_bytes() {
        let vocab = mixed_vocab(7, 500);
        let trie = VocabTrie::new(&vocab);
        for without in [None, Some(b'\n'), Some(b'"'), Some(0xe4)] {
            let mask = trie.text_token_mask(without);
            for t in 0..vocab.len() {
                let bytes = vocab.token_bytes(t as u32).unwrap_or(&[]);
                let want = !bytes.is_empty() && without.map_or(true, |b| !bytes.contains(&b));
                assert_eq!(
                    mask[t / 32] >> (t % 32) & 1 == 1,
                    want,
                    "{without:?} token {t}"
                );
            }
        }
    }

    #[test]
    fn chunks_cover_all_nodes_in_whole_subtrees() {
        let words: Vec<String> = (0..20_000u32).map(|i| format!("{i:x}q{}", i % 7)).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let trie = VocabTrie::new(&ByteVocabulary::from_strs(&refs));
        let chunks = make_chunks(trie.end.len(), |i| trie.end[i]);
        assert!(chunks.len() > 1);
        assert_eq!(chunks[0].0, 1);
        assert_eq!(chunks.last().unwrap().1 as usize, trie.num_nodes());
        for w in chunks.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        for &(lo, _) in &chunks {
            assert_eq!(trie.depth[lo as usize], 1, "a chunk starts at a root child");
        }
    }
}
