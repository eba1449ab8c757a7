//! [`Layout`]: where everything is inside a validated file's words, what the reader
//! returns and the automaton keeps.

use super::container::Header;

/// Where everything is inside the word array, parsed and validated once by
/// the reader. All offsets are word indices into the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The header's counts, validated (`num_edges` counts token plus terminal edges).
    pub(crate) header: Header,
    /// Start of the EOS id section and its length.
    pub(crate) eos: (usize, usize),
    /// Start of the CSR state offsets (`num_states + 1` words, indices of class edges).
    pub(crate) state_offsets: usize,
    /// Start of the state flags (a bit per state: `ceil(num_states / 32)` words).
    pub(crate) state_flags: usize,
    /// Labels and targets fit in 16 bits: one packed word per edge (`label << 16 |
    /// target`) at `edge_labels`, and class numbers packed two to a word.
    pub(crate) narrow: bool,
    /// Start of the edge labels (or of the packed edges when `narrow`).
    pub(crate) edge_labels: usize,
    /// Start of the edge targets (unused when `narrow`).
    pub(crate) edge_targets: usize,
    /// Number of token classes.
    pub(crate) num_classes: u32,
    /// Start of the token classes (`u16` pairs when `narrow`, `0xffff` or `u32::MAX` for
    /// none): of every token id, or of each token index entry when there is an index.
    pub(crate) token_classes: usize,
    /// Start of the token index (the tokens with a class, ascending), if there is one.
    pub(crate) token_index: usize,
    /// Entries of the token index, `None` when the file has no index.
    pub(crate) num_indexed: Option<usize>,
    /// Start of the CSR class word offsets (`num_classes + 1` words, counting pairs).
    pub(crate) class_word_offsets: usize,
    /// Start of the class words: `(word index, bits)` pairs.
    pub(crate) class_words: usize,
    /// Words of one mask: `ceil(vocab_size / 32)`.
    pub(crate) mask_words: usize,
    /// Start of the dense mask table (`num_masks * mask_words` words).
    pub(crate) dense_masks: usize,
    /// Number of dense masks; 0 when the file has no dense mask sections.
    pub(crate) num_masks: u32,
    /// Start of the per-state mask index (`num_states` words), if `num_masks > 0`.
    pub(crate) state_mask_index: usize,
    /// Start of the terminal masks (`num_terminals * mask_words` words).
    pub(crate) terminal_masks: usize,
    /// Start and length of the terminal names section.
    pub(crate) terminal_names: (usize, usize),
}

impl Layout {
    /// Class edge `e` of a validated file as `(label, target)`; `(0, 0)` out of range.
    #[inline]
    pub(crate) fn edge(&self, words: &[u32], e: usize) -> (u32, u32) {
        if self.narrow {
            let w = words.get(self.edge_labels + e).copied().unwrap_or(0);
            (w >> 16, w & 0xffff)
        } else {
            (
                words.get(self.edge_labels + e).copied().unwrap_or(0),
                words.get(self.edge_targets + e).copied().unwrap_or(0),
            )
        }
    }
}
