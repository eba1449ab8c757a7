//! One state's tokens: the pruned trie walk that finds them, and how they are kept.

use crate::vocab::VocabTrie;

/// No transition in the dense table (the value `compose::transition_table` writes).
pub(super) const NO_STATE: u32 = u32::MAX;

/// The token edges of one DFA state (EOS ids aside: the matcher adds them where
/// accepting), as the eager layout keeps them: a bitset of the vocabulary's width when
/// the state allows at least max(64, words) tokens (a mask is then one copy), else the
/// sorted token ids.
#[derive(Clone, Debug)]
pub(super) enum StateInfo {
    Dense { words: Box<[u32]>, count: u32 },
    Sparse(Box<[u32]>),
}

impl StateInfo {
    /// Whether `token` is an edge.
    pub(super) fn contains(&self, token: u32) -> bool {
        match self {
            StateInfo::Dense { words, .. } => words
                .get((token / 32) as usize)
                .is_some_and(|w| w & (1 << (token % 32)) != 0),
            StateInfo::Sparse(tokens) => tokens.binary_search(&token).is_ok(),
        }
    }

    /// Number of token edges.
    pub(super) fn count(&self) -> usize {
        match self {
            StateInfo::Dense { count, .. } => *count as usize,
            StateInfo::Sparse(tokens) => tokens.len(),
        }
    }

    /// The only token edge, if there is exactly one.
    pub(super) fn single(&self) -> Option<u32> {
        match self {
            StateInfo::Sparse(tokens) if tokens.len() == 1 => Some(tokens[0]),
            _ => None,
        }
    }

    /// Writes the edges into `head` (exactly the vocabulary's words), overwriting it.
    pub(super) fn write(&self, head: &mut [u32]) {
        match self {
            StateInfo::Dense { words, .. } => head.copy_from_slice(words),
            StateInfo::Sparse(tokens) => {
                head.fill(0);
                for &t in tokens.iter() {
                    head[(t / 32) as usize] |= 1 << (t % 32);
                }
            }
        }
    }
}

impl StateInfo {
    /// These edges and `more` (any order, possibly repeating these).
    pub(super) fn with(&self, mut more: Vec<u32>, vocab_size: u32) -> StateInfo {
        match self {
            StateInfo::Dense { words, .. } => {
                let mut words = words.clone();
                for t in more {
                    words[(t / 32) as usize] |= 1 << (t % 32);
                }
                let count = words.iter().map(|w| w.count_ones()).sum();
                StateInfo::Dense { words, count }
            }
            StateInfo::Sparse(tokens) => {
                more.extend_from_slice(tokens);
                more.sort_unstable();
                more.dedup();
                StateInfo::from_tokens(more, vocab_size)
            }
        }
    }

    /// These edges and `other`'s.
    pub(super) fn union(&self, other: &StateInfo, vocab_size: u32) -> StateInfo {
        match (self, other) {
            (StateInfo::Dense { words: a, .. }, StateInfo::Dense { words: b, .. }) => {
                let words: Box<[u32]> = a.iter().zip(b.iter()).map(|(x, y)| x | y).collect();
                let count = words.iter().map(|w| w.count_ones()).sum();
                StateInfo::Dense { words, count }
            }
            (dense @ StateInfo::Dense { .. }, StateInfo::Sparse(tokens))
            | (StateInfo::Sparse(tokens), dense) => dense.with(tokens.to_vec(), vocab_size),
        }
    }

    /// The edges set in `words` (a mask of the vocabulary's width), kept as the eager
    /// layout would.
    pub(super) fn from_words(words: Box<[u32]>, vocab_size: u32) -> StateInfo {
        let count: u32 = words.iter().map(|w| w.count_ones()).sum();
        if count as usize >= words.len().max(64) {
            return StateInfo::Dense { words, count };
        }
        let mut tokens = Vec::with_capacity(count as usize);
        for (i, &w) in words.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                tokens.push(i as u32 * 32 + w.trailing_zeros());
                w &= w - 1;
            }
        }
        StateInfo::from_tokens(tokens, vocab_size)
    }

    /// The edges `tokens` (any order, each once), kept as the eager layout would.
    pub(super) fn from_tokens(mut tokens: Vec<u32>, vocab_size: u32) -> StateInfo {
        let words = (vocab_size as usize).div_ceil(32);
        if tokens.len() >= words.max(64) {
            let mut bits = vec![0u32; words];
            for &t in &tokens {
                bits[(t / 32) as usize] |= 1 << (t % 32);
            }
            StateInfo::Dense {
                words: bits.into_boxed_slice(),
                count: tokens.len() as u32,
            }
        } else {
            tokens.sort_unstable();
            StateInfo::Sparse(tokens.into_boxed_slice())
        }
    }
}

/// Calls `visit(target, tokens)` for every trie node spelling tokens that the automaton
/// reads from `from` without dying, `target` being the state reached: a depth-first walk
/// in the trie's preorder, keeping one state per depth and jumping past the subtree of a
/// byte `step(state, class)` rejects (`NO_STATE`).
pub(super) fn walk(
    trie: &VocabTrie,
    class_of_byte: &[u8; 256],
    from: u32,
    step: impl FnMut(u32, usize) -> u32,
    visit: impl FnMut(u32, &[u32]),
) {
    walk_below(trie, 0, class_of_byte, from, step, visit);
}

/// [`walk`] over the nodes below trie node `root` only, `from` being the state at `root`
/// (node 0 is the trie's root).
pub(super) fn walk_below(
    trie: &VocabTrie,
    root: usize,
    class_of_byte: &[u8; 256],
    from: u32,
    mut step: impl FnMut(u32, usize) -> u32,
    mut visit: impl FnMut(u32, &[u32]),
) {
    let mut at = vec![NO_STATE; trie.max_depth() + 1];
    at[if root == 0 { 0 } else { trie.node_depth(root) }] = from;
    let end = if root == 0 {
        trie.num_nodes()
    } else {
        trie.subtree_end(root)
    };
    let mut node = root + 1;
    while node < end {
        let depth = trie.node_depth(node);
        let class = class_of_byte[trie.node_byte(node) as usize] as usize;
        let next = step(at[depth - 1], class);
        if next == NO_STATE {
            node = trie.subtree_end(node);
            continue;
        }
        at[depth] = next;
        let ids = trie.node_tokens(node);
        if !ids.is_empty() {
            visit(next, ids);
        }
        node += 1;
    }
}
