//! What the compiler needs to know about a vocabulary, and its fingerprint.
//!
//! `fstc-core` does not load tokenizers (that is the `detok` crate's job); it only needs
//! the exact bytes of every text token, the width of the id space and the EOS ids.
//! With feature `compile`, [`VocabTrie`] indexes those bytes as a trie, built once per
//! vocabulary and shared by every composition with it.

#[cfg(feature = "compile")]
mod free_text;
#[cfg(feature = "compile")]
pub(crate) mod level_trie;
#[cfg(feature = "compile")]
pub(crate) mod trie;

#[cfg(feature = "compile")]
pub(crate) use free_text::FreeTextTokens;
#[cfg(feature = "compile")]
pub use free_text::{FreeText, MAX_FREE_TEXT_BYTES};
#[cfg(feature = "compile")]
pub use trie::VocabTrie;

/// Most token ids a vocabulary may have (4,194,304): four times the largest tokenizers in
/// use. Files, parts and loaders refuse more, so a forged header cannot make a walker
/// allocate or scan masks of billions of bits.
pub const MAX_VOCAB_SIZE: u32 = 1 << 22;

/// A vocabulary seen as exact bytes per token id.
///
/// Ids run from `0` to `len() - 1`. Special and added tokens (BOS, EOS, chat markers,
/// image tokens, ...) have no text: `token_bytes` returns `None` for them, so no
/// compiled automaton can ever reach them by matching text.
pub trait TokenVocabulary {
    /// Number of token ids, special tokens included.
    fn len(&self) -> usize;

    /// Whether the vocabulary has no ids at all.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes a text token stands for, or `None` for special tokens and unused ids.
    fn token_bytes(&self, id: u32) -> Option<&[u8]>;

    /// The ids that end generation. A token automaton allows them exactly in its
    /// accepting states.
    fn eos_ids(&self) -> &[u32];
}

/// A 64-bit fingerprint of the vocabulary's id space and token bytes.
///
/// Stored in every token automaton so that a decoder (or `fstc check`) can tell an
/// automaton compiled for another tokenizer. EOS ids are not part of it: they are
/// recorded separately. The hash is FNV-1a over, for each id in order, a presence byte,
/// the length as 4 little-endian bytes and the token bytes; it is stable across
/// platforms and versions of fstc.
pub fn fingerprint<V: TokenVocabulary + ?Sized>(vocab: &V) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(PRIME);
        }
    };
    feed(&(vocab.len() as u64).to_le_bytes());
    for id in 0..vocab.len() as u32 {
        match vocab.token_bytes(id) {
            None => feed(&[0]),
            Some(bytes) => {
                feed(&[1]);
                feed(&(bytes.len() as u32).to_le_bytes());
                feed(bytes);
            }
        }
    }
    hash
}

/// A vocabulary held in memory as a list of optional byte strings.
///
/// Handy for tests, examples and small hand-written vocabularies such as the paper's
/// `f, oo, foo, for, food`; real tokenizers are loaded by `detok`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByteVocabulary {
    tokens: Vec<Option<Vec<u8>>>,
    eos: Vec<u32>,
}

impl ByteVocabulary {
    /// A vocabulary whose token `i` is `tokens[i]` (`None` for a special token).
    pub fn new(tokens: Vec<Option<Vec<u8>>>, eos: Vec<u32>) -> ByteVocabulary {
        ByteVocabulary { tokens, eos }
    }

    /// Text tokens from strings, ids in order, followed by one EOS token with no text.
    pub fn from_strs(tokens: &[&str]) -> ByteVocabulary {
        let mut list: Vec<Option<Vec<u8>>> =
            tokens.iter().map(|t| Some(t.as_bytes().to_vec())).collect();
        let eos = list.len() as u32;
        list.push(None);
        ByteVocabulary::new(list, vec![eos])
    }
}

impl TokenVocabulary for ByteVocabulary {
    fn len(&self) -> usize {
        self.tokens.len()
    }

    fn token_bytes(&self, id: u32) -> Option<&[u8]> {
        self.tokens.get(id as usize)?.as_deref()
    }

    fn eos_ids(&self) -> &[u32] {
        &self.eos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_sees_bytes_ids_and_specials() {
        let a = ByteVocabulary::from_strs(&["f", "oo"]);
        let b = ByteVocabulary::from_strs(&["oo", "f"]);
        let c = ByteVocabulary::new(vec![Some(b"f".to_vec()), Some(b"oo".to_vec())], vec![]);
        assert_ne!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&c));
        assert_eq!(fingerprint(&a), fingerprint(&a.clone()));
        // "ab","c" and "a","bc" spell the same concatenation but are different vocabularies.
        let d = ByteVocabulary::from_strs(&["ab", "c"]);
        let e = ByteVocabulary::from_strs(&["a", "bc"]);
        assert_ne!(fingerprint(&d), fingerprint(&e));
    }
}
