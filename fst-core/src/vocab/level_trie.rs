//! The vocabulary trie in level order, by bytes and folded by byte partitions.
//!
//! Passes where a node needs only its parent's value (the transition-function grouping,
//! the terminal masks) run over the trie in level order: every parent sits on an earlier
//! level, so the pass has no chain of dependent loads from one node to the next.
//!
//! Most patterns cannot tell apart most letters: a quoted string, an identifier, an IPv4
//! address treat `a` like `z`. A *folded* trie is the vocabulary trie with every byte
//! replaced by its class in a fixed partition of the bytes, equal strings merged, built
//! once per vocabulary. A pattern whose byte classes never split a class of the partition
//! gets the same answers from it as from the byte trie, from far fewer nodes. Two
//! partitions, coarsest first ([`FOLDS`]): [`COARSE`] (one class for `a-z`, one for `A-Z`,
//! one per other ASCII byte, and UTF-8 bytes by the role they play in a well-formed
//! sequence; GPT-2: 98k byte-trie nodes, 4k folded) serves patterns over ASCII and whole
//! characters such as a quoted string; [`LETTERS`] (`a-z` and `A-Z` folded, every other
//! byte its own class; Llama 3: 275k nodes, 70k folded) serves patterns with Unicode
//! classes such as `\w`, which split the UTF-8 continuation bytes.

use crate::fast_hash::FastMap;

/// A trie of token strings in level order (breadth-first, each level in the order of
/// its first appearance). Entry 0 is the root.
#[derive(Clone, Debug, Default)]
pub(crate) struct LevelTrie {
    /// Each entry's parent entry (the root's is itself).
    pub(crate) parent: Vec<u32>,
    /// The symbol on the edge into each entry: a byte, or a class of the folding partition.
    pub(crate) symbol: Vec<u8>,
    /// The entry spelling each token id; `parent.len()`, one past the last, for tokens
    /// without text.
    pub(crate) of_token: Vec<u32>,
    /// The entries that spell tokens, by their smallest token: numbering labels of
    /// entries in this order numbers them by first token, without a pass over tokens.
    pub(crate) by_first_token: Vec<u32>,
    /// Number of tokens spelling each entry.
    pub(crate) tokens_at: Vec<u32>,
}

impl LevelTrie {
    /// Number of entries, the root included.
    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    /// The trie of `parent` and `symbol` (in level order) and the entry of each token
    /// id (`parent.len()` for tokens without text).
    pub(crate) fn new(parent: Vec<u32>, symbol: Vec<u8>, of_token: Vec<u32>) -> LevelTrie {
        let entries = parent.len();
        let mut tokens_at = vec![0u32; entries + 1];
        let mut by_first_token = Vec::new();
        for &e in &of_token {
            if tokens_at[e as usize] == 0 && (e as usize) < entries {
                by_first_token.push(e);
            }
            tokens_at[e as usize] += 1;
        }
        tokens_at.truncate(entries);
        LevelTrie {
            parent,
            symbol,
            of_token,
            by_first_token,
            tokens_at,
        }
    }

    /// This trie with every symbol `x` replaced by `class_of_symbol[x]`, equal strings
    /// merged, and the folded entry of each of this trie's entries.
    fn folded(&self, class_of_symbol: &[u8; 256]) -> (LevelTrie, Vec<u32>) {
        let entries = self.len();
        let (mut parent, mut symbol) = (vec![0u32], vec![0u8]);
        let mut folded_of_entry = vec![0u32; entries];
        let mut child: FastMap<u64, u32> = FastMap::default();
        // Entries arrive level by level, so folded entries are created level by level too.
        for i in 1..entries {
            let up = folded_of_entry[self.parent[i] as usize];
            let class = class_of_symbol[self.symbol[i] as usize];
            let next = parent.len() as u32;
            let entry = *child
                .entry(u64::from(up) << 8 | u64::from(class))
                .or_insert(next);
            if entry == next {
                parent.push(up);
                symbol.push(class);
            }
            folded_of_entry[i] = entry;
        }
        let no_text = parent.len() as u32;
        let of_token = self
            .of_token
            .iter()
            .map(|&e| folded_of_entry.get(e as usize).copied().unwrap_or(no_text))
            .collect();
        (LevelTrie::new(parent, symbol, of_token), folded_of_entry)
    }
}

/// The byte trie `levels` folded by each partition of [`FOLDS`], in that order, and the
/// entry of the coarsest fold each entry of `levels` merges into (the lazy walks'
/// projections start from it). Each fold is made from the next finer one (a partition's
/// classes are unions of the next one's), so only the finest reads the whole byte trie.
pub(crate) fn folds(levels: &LevelTrie) -> (Vec<LevelTrie>, Vec<u32>) {
    let mut folded: Vec<LevelTrie> = Vec::with_capacity(FOLDS.len());
    let mut coarsest_of_entry: Vec<u32> = (0..levels.len() as u32).collect();
    // The class of each byte in the trie folded last (bytes themselves at first).
    let mut source_class: [u8; 256] = std::array::from_fn(|b| b as u8);
    for partition in FOLDS.iter().rev() {
        let mut class_of_symbol = [0u8; 256];
        for (b, &class) in partition.class_of_byte.iter().enumerate() {
            class_of_symbol[source_class[b] as usize] = class;
        }
        let (next, of_entry) = folded.last().unwrap_or(levels).folded(&class_of_symbol);
        coarsest_of_entry
            .iter_mut()
            .for_each(|e| *e = of_entry[*e as usize]);
        folded.push(next);
        source_class = partition.class_of_byte;
    }
    folded.reverse();
    (folded, coarsest_of_entry)
}

/// A fixed partition of the bytes into classes `0..num_classes`.
pub(crate) struct BytePartition {
    pub(crate) class_of_byte: [u8; 256],
    pub(crate) num_classes: usize,
}

impl BytePartition {
    /// The class a pattern's `class_of_byte` gives each class of this partition, when
    /// that is well defined: when no class of the partition holds bytes of two of the
    /// pattern's classes. Then the folded trie groups tokens exactly as the byte trie.
    pub(crate) fn classes_of(&self, class_of_byte: &[u8; 256]) -> Option<Vec<u8>> {
        let mut out: Vec<Option<u8>> = vec![None; self.num_classes];
        for (b, &class) in class_of_byte.iter().enumerate() {
            if *out[self.class_of_byte[b] as usize].get_or_insert(class) != class {
                return None;
            }
        }
        // Every class of a partition holds some byte, so none is left `None`.
        Some(out.into_iter().map(|c| c.unwrap_or(0)).collect())
    }
}

/// The first partition of [`FOLDS`] that a pattern with byte classes `class_of_byte`
/// does not split: its index and the pattern's class of each of its classes.
pub(crate) fn first_unsplit_fold(class_of_byte: &[u8; 256]) -> Option<(usize, Vec<u8>)> {
    (FOLDS.iter().enumerate()).find_map(|(i, p)| Some((i, p.classes_of(class_of_byte)?)))
}

/// The partitions the vocabulary trie is folded by, coarsest first: the first one a
/// pattern does not split is used.
pub(crate) const FOLDS: [&BytePartition; 2] = [&COARSE, &LETTERS];

/// `a-z` one class, `A-Z` another, every other ASCII byte its own; UTF-8 continuation
/// bytes in the three ranges that lead bytes constrain (`80-8F`, `90-9F`, `A0-BF`); lead
/// bytes by the continuation they require (`C2-DF`, `E0`, `E1-EC`, `ED`, `EE-EF`, `F0`,
/// `F1-F3`, `F4`); and bytes that never occur in UTF-8 (`C0`, `C1`, `F5-FF`) one class.
pub(crate) const COARSE: BytePartition = {
    let mut table = letters_folded();
    let mut next = 78u8; // after the ASCII classes of `letters_folded`
                         // Ranges of non-ASCII bytes, by first byte; the invalid bytes come last.
    let starts: [u8; 11] = [
        0x80, 0x90, 0xa0, 0xc2, 0xe0, 0xe1, 0xed, 0xee, 0xf0, 0xf1, 0xf4,
    ];
    let ends: [u8; 11] = [
        0x8f, 0x9f, 0xbf, 0xdf, 0xe0, 0xec, 0xed, 0xef, 0xf0, 0xf3, 0xf4,
    ];
    let invalid = next + starts.len() as u8;
    let mut b = 128;
    while b < 256 {
        table[b] = invalid;
        b += 1;
    }
    let mut r = 0;
    while r < starts.len() {
        let mut b = starts[r] as usize;
        while b <= ends[r] as usize {
            table[b] = next;
            b += 1;
        }
        next += 1;
        r += 1;
    }
    BytePartition {
        class_of_byte: table,
        num_classes: invalid as usize + 1,
    }
};

/// `a-z` one class, `A-Z` another, every other byte its own class.
pub(crate) const LETTERS: BytePartition = BytePartition {
    class_of_byte: letters_folded(),
    num_classes: 78 + 128,
};

/// Classes 0 (`a-z`), 1 (`A-Z`), then one per other ASCII byte (2..=77) and one per
/// non-ASCII byte (78..=205).
const fn letters_folded() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut next = 2u8;
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            b'a'..=b'z' => 0,
            b'A'..=b'Z' => 1,
            _ => {
                next += 1;
                next - 1
            }
        };
        b += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_as_documented() {
        let coarse = |b: u8| COARSE.class_of_byte[b as usize];
        assert_eq!(coarse(b'a'), coarse(b'z'));
        assert_eq!(coarse(b'A'), coarse(b'Z'));
        assert_ne!(coarse(b'a'), coarse(b'A'));
        assert_ne!(coarse(b'0'), coarse(b'1'));
        assert_ne!(coarse(b'"'), coarse(b'\\'));
        assert_eq!(coarse(0xe1), coarse(0xec));
        assert_ne!(coarse(0xe0), coarse(0xe1));
        assert_eq!(coarse(0xc0), coarse(0xff));
        let letters = |b: u8| LETTERS.class_of_byte[b as usize];
        assert_eq!(letters(b'q'), letters(b'z'));
        assert_ne!(letters(0x80), letters(0x81));
        for partition in FOLDS {
            // Classes are exactly 0..num_classes.
            let used: std::collections::BTreeSet<u8> =
                partition.class_of_byte.into_iter().collect();
            assert_eq!(used.len(), partition.num_classes);
            assert_eq!(*used.last().unwrap() as usize, partition.num_classes - 1);
        }
        // Coarsest first (the lazy projections take `FOLDS[0]` for COARSE): every class
        // of LETTERS lies inside one class of COARSE.
        assert_eq!(FOLDS[0].class_of_byte, COARSE.class_of_byte);
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                if letters(a) == letters(b) {
                    assert_eq!(coarse(a), coarse(b));
                }
            }
        }
    }

    #[test]
    fn classes_of_refuses_a_split_class() {
        // Letters apart from digits: well defined for both.
        let mut classes = [0u8; 256];
        classes[b'0' as usize..=b'9' as usize].fill(1);
        assert!(COARSE.classes_of(&classes).is_some());
        // Continuation bytes split at 0xA5: not for COARSE, fine for LETTERS.
        classes[0xa5..=0xbf].fill(2);
        assert!(COARSE.classes_of(&classes).is_none());
        assert_eq!(
            LETTERS.classes_of(&classes).unwrap()[LETTERS.class_of_byte[0xa5] as usize],
            2
        );
        // `a-f` apart from the other lowercase letters: neither.
        classes[b'a' as usize..=b'f' as usize].fill(3);
        assert!(COARSE.classes_of(&classes).is_none());
        assert!(LETTERS.classes_of(&classes).is_none());
    }
}
