//! The vocabulary trie: every text token's bytes in one flat preorder trie, built once
//! per vocabulary and walked for every pattern compiled against it.

use rayon::prelude::*;

use super::level_trie::{self, LevelTrie};
use super::{fingerprint, TokenVocabulary};

/// No trie node (a token without text).
pub(crate) const NONE: u32 = u32::MAX;

/// A byte trie of a vocabulary's text tokens, laid out flat for fast repeated walks.
///
/// Nodes are numbered in preorder with children in byte order, so a node's subtree is
/// the contiguous range `node..end[node]`: pruning a dead subtree is one jump, and the
/// walk needs no recursion and no allocation. Tokens with no bytes (special tokens and
/// empty strings) are left out: an empty token would be a self-loop on every state that
/// lets a decoder emit tokens forever without writing text.
///
/// Other automata compose over it through [`node_byte`](VocabTrie::node_byte),
/// [`node_depth`](VocabTrie::node_depth), [`subtree_end`](VocabTrie::subtree_end) and
/// [`node_tokens`](VocabTrie::node_tokens): a walk keeps one automaton state per depth
/// and jumps past the subtree of a byte its automaton rejects. The tokens that contain
/// no `b'x'`:
///
/// ```
/// use fstc_core::vocab::VocabTrie;
/// use fstc_core::vocab::ByteVocabulary;
///
/// let trie = VocabTrie::new(&ByteVocabulary::from_strs(&["a", "ab", "axb", "b", "xa"]));
/// let mut found = Vec::new();
/// let mut node = 1;
/// while node < trie.num_nodes() {
///     if trie.node_byte(node) == b'x' {
///         node = trie.subtree_end(node); // every token below spells an `x`
///         continue;
///     }
///     found.extend_from_slice(trie.node_tokens(node));
///     node += 1;
/// }
/// found.sort_unstable();
/// assert_eq!(found, [0, 1, 3]);
/// ```
#[derive(Clone, Debug)]
pub struct VocabTrie {
    pub(crate) vocab_size: usize,
    pub(crate) fingerprint: u64,
    pub(crate) eos_ids: Vec<u32>,
    /// The byte on the edge into each node (unused for the root, node 0).
    pub(crate) byte: Vec<u8>,
    /// Depth of each node; the root has depth 0.
    pub(crate) depth: Vec<u32>,
    /// One past the last node of each node's subtree.
    pub(crate) end: Vec<u32>,
    /// How much deeper than each node its subtree goes (at most 255).
    pub(crate) height: Vec<u8>,
    /// `token_ids[token_start[i]..token_start[i + 1]]` are the tokens spelling node `i`.
    pub(crate) token_start: Vec<u32>,
    pub(crate) token_ids: Vec<u32>,
    /// The trie again in level order (each level in preorder), for passes where a node
    /// needs only its parent's value.
    pub(crate) levels: LevelTrie,
    /// `levels` folded by each partition of `level_trie::FOLDS`, coarsest first, for
    /// patterns that do not split its classes.
    pub(crate) folded_levels: Vec<LevelTrie>,
    /// The entry of `folded_levels[0]` each node folds into (the lazy walks project the
    /// trie from it).
    pub(crate) coarse_of_node: Vec<u32>,
    pub(crate) max_depth: usize,
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
            height: Vec::new(),
            token_start: vec![0],
            token_ids: Vec::with_capacity(tokens.len()),
            levels: LevelTrie::default(),
            folded_levels: Vec::new(),
            coarse_of_node: Vec::new(),
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
        trie.height = vec![0u8; trie.byte.len()];
        for node in (1..trie.byte.len()).rev() {
            let p = parent[node] as usize;
            trie.height[p] = trie.height[p].max(trie.height[node].saturating_add(1));
        }
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
        let (folded, coarsest_of_entry) = level_trie::folds(&self.levels);
        self.folded_levels = folded;
        self.coarse_of_node = (entry_of_node.iter())
            .map(|&i| coarsest_of_entry[i as usize])
            .collect();
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
    #[inline]
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

    /// The byte on the edge into `node` (0 for the root). Nodes `1..num_nodes()` are in
    /// preorder, children in byte order, so walking them in order visits every token's
    /// bytes as a depth-first walk would.
    #[inline]
    pub fn node_byte(&self, node: usize) -> u8 {
        self.byte[node]
    }

    /// The depth of `node`: the length of the byte string it spells (the root: 0). The
    /// node's parent is the nearest earlier node of depth one less.
    #[inline]
    pub fn node_depth(&self, node: usize) -> usize {
        self.depth[node] as usize
    }

    /// One past the last node of `node`'s subtree: `node..subtree_end(node)` are the
    /// node and its descendants, so skipping a dead subtree is one jump.
    #[inline]
    pub fn subtree_end(&self, node: usize) -> usize {
        self.end[node] as usize
    }

    /// How much deeper than `node` its deepest descendant is (0 for a leaf; saturates at
    /// 255): a walk below `node` reads at most this many more bytes.
    pub fn subtree_height(&self, node: usize) -> usize {
        usize::from(self.height[node])
    }

    /// The token ids whose bytes spell exactly `node`, ascending (several ids may share
    /// bytes; special tokens and empty tokens are in no node).
    #[inline]
    pub fn node_tokens(&self, node: usize) -> &[u32] {
        &self.token_ids[self.token_start[node] as usize..self.token_start[node + 1] as usize]
    }

    /// Writes the bytes of `token` into `out` (cleared first) by climbing the level-order
    /// trie from its node; `false`, with `out` empty, for a token without text or past the
    /// vocabulary. What the lazy matcher drives its DFA with when a token is consumed.
    pub fn spell_token(&self, token: u32, out: &mut Vec<u8>) -> bool {
        out.clear();
        let levels = &self.levels;
        let Some(&entry) = levels.of_token.get(token as usize) else {
            return false;
        };
        let mut e = entry as usize;
        if e >= levels.len() {
            return false;
        }
        while e != 0 {
            out.push(levels.symbol[e]);
            e = levels.parent[e] as usize;
        }
        out.reverse();
        true
    }

    /// The longest token's length in bytes: the deepest node's depth, so a walk keeping
    /// one value per depth needs `max_depth() + 1` slots.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }
}

/// Splits the preorder node range `1..end.len()` into runs of whole subtrees of root
/// children, each of at least `MIN_CHUNK_NODES` nodes where possible.
pub(crate) fn make_chunks(nodes: usize, end: impl Fn(usize) -> u32) -> Vec<(u32, u32)> {
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
