//! The vocabulary trie in level order, by bytes and by coarse byte classes.
//!
//! Passes where a node needs only its parent's value (the transition-function grouping,
//! the terminal masks) run over the trie in level order: every parent sits on an earlier
//! level, so the pass has no chain of dependent loads from one node to the next.
//!
//! Most patterns cannot tell apart most letters: a quoted string, a number or an IPv4
//! address treats `a` like `z`. The *coarse* trie is the vocabulary trie with every
//! byte replaced by its coarse class (one class for `a-z`, one for `A-Z`, one per other
//! ASCII byte, and UTF-8 bytes by the role they play in a well-formed sequence), built
//! once per vocabulary. A pattern whose byte classes never split a coarse class gets
//! the same answers from it as from the byte trie, from ~25× fewer nodes (GPT-2: 98k
//! byte-trie nodes, 4k coarse ones).

use crate::fast_hash::FastMap;

/// A trie of token strings in level order (breadth-first, each level in the order of
/// its first appearance). Entry 0 is the root.
#[derive(Clone, Debug, Default)]
pub(super) struct LevelTrie {
    /// Each entry's parent entry (the root's is itself).
    pub(super) parent: Vec<u32>,
    /// The symbol on the edge into each entry: a byte, or a coarse class.
    pub(super) symbol: Vec<u8>,
    /// The entry spelling each token id; `parent.len()`, one past the last, for tokens
    /// without text.
    pub(super) of_token: Vec<u32>,
    /// The entries that spell tokens, by their smallest token: numbering labels of
    /// entries in this order numbers them by first token, without a pass over tokens.
    pub(super) by_first_token: Vec<u32>,
    /// Number of tokens spelling each entry.
    pub(super) tokens_at: Vec<u32>,
}

impl LevelTrie {
    /// Number of entries, the root included.
    pub(super) fn len(&self) -> usize {
        self.parent.len()
    }

    /// The trie of `parent` and `symbol` (in level order) and the entry of each token
    /// id (`parent.len()` for tokens without text).
    pub(super) fn new(parent: Vec<u32>, symbol: Vec<u8>, of_token: Vec<u32>) -> LevelTrie {
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

    /// This byte trie with every byte replaced by its coarse class, equal strings merged.
    pub(super) fn coarse(&self) -> LevelTrie {
        let entries = self.len();
        let (mut parent, mut symbol) = (vec![0u32], vec![0u8]);
        let mut coarse_of_entry = vec![0u32; entries];
        let mut child: FastMap<u64, u32> = FastMap::default();
        // Entries arrive level by level, so coarse entries are created level by level too.
        for i in 1..entries {
            let up = coarse_of_entry[self.parent[i] as usize];
            let class = COARSE_CLASS_OF_BYTE[self.symbol[i] as usize];
            let next = parent.len() as u32;
            let entry = *child
                .entry(u64::from(up) << 8 | u64::from(class))
                .or_insert(next);
            if entry == next {
                parent.push(up);
                symbol.push(class);
            }
            coarse_of_entry[i] = entry;
        }
        let no_text = parent.len() as u32;
        let of_token = self
            .of_token
            .iter()
            .map(|&e| coarse_of_entry.get(e as usize).copied().unwrap_or(no_text))
            .collect();
        LevelTrie::new(parent, symbol, of_token)
    }
}

/// Number of coarse byte classes.
pub(super) const NUM_COARSE_CLASSES: usize = 90;

/// The coarse class of each byte: `a-z` one class, `A-Z` another, every other ASCII byte
/// its own; UTF-8 continuation bytes in the three ranges that lead bytes constrain
/// (`80-8F`, `90-9F`, `A0-BF`); lead bytes by the continuation they require (`C2-DF`,
/// `E0`, `E1-EC`, `ED`, `EE-EF`, `F0`, `F1-F3`, `F4`); and bytes that never occur in
/// UTF-8 (`C0`, `C1`, `F5-FF`) one class.
pub(super) const COARSE_CLASS_OF_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut next = 2u8; // 0 is a-z, 1 is A-Z
    let mut b = 0;
    while b < 128 {
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
    assert!(invalid as usize + 1 == NUM_COARSE_CLASSES);
    table
};

/// The class of each coarse class under `class_of_byte`, when that is well defined:
/// when no coarse class holds bytes of two classes. Then the coarse trie groups tokens
/// exactly as the byte trie does.
pub(super) fn classes_of_coarse(class_of_byte: &[u8; 256]) -> Option<[u8; NUM_COARSE_CLASSES]> {
    let mut out = [0u8; NUM_COARSE_CLASSES];
    let mut seen = [false; NUM_COARSE_CLASSES];
    for (b, &class) in class_of_byte.iter().enumerate() {
        let coarse = COARSE_CLASS_OF_BYTE[b] as usize;
        if !seen[coarse] {
            seen[coarse] = true;
            out[coarse] = class;
        } else if out[coarse] != class {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarse_classes_cover_every_byte_as_documented() {
        let class = |b: u8| COARSE_CLASS_OF_BYTE[b as usize];
        assert_eq!(class(b'a'), class(b'z'));
        assert_eq!(class(b'A'), class(b'Z'));
        assert_ne!(class(b'a'), class(b'A'));
        assert_ne!(class(b'0'), class(b'1'));
        assert_ne!(class(b'"'), class(b'\\'));
        assert_eq!(class(0xe1), class(0xec));
        assert_ne!(class(0xe0), class(0xe1));
        assert_eq!(class(0xc0), class(0xff));
        let used: std::collections::BTreeSet<u8> = COARSE_CLASS_OF_BYTE.into_iter().collect();
        assert_eq!(used.len(), NUM_COARSE_CLASSES);
        assert_eq!(*used.last().unwrap() as usize, NUM_COARSE_CLASSES - 1);
    }

    #[test]
    fn classes_of_coarse_refuses_a_split_coarse_class() {
        // Letters apart from digits: well defined.
        let mut classes = [0u8; 256];
        classes[b'0' as usize..=b'9' as usize].fill(1);
        assert!(classes_of_coarse(&classes).is_some());
        // `a-f` apart from the other lowercase letters: not.
        classes[b'a' as usize..=b'f' as usize].fill(2);
        assert!(classes_of_coarse(&classes).is_none());
    }
}
