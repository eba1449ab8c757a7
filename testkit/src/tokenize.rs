//! For the differential tests that feed token sequences to compiled automata: random tokenizations of a text, and acceptance by walking.

use std::collections::HashMap;

use detok::Vocabulary;
use fst_core::automaton::TokenAutomaton;
use fst_core::sample::SplitMix64;
use fst_core::walker::Walker;
use fst_core::TokenVocabulary;

/// Walks `tokens` from the start; true if all are allowed and the walk ends accepting.
pub fn accepts(automaton: &TokenAutomaton, tokens: &[u32]) -> bool {
    let mut walker = Walker::new(automaton);
    tokens.iter().all(|&t| walker.consume(t).is_ok()) && walker.is_accepting()
}

/// Random tokenizations of byte strings with any text tokens of the vocabulary.
pub struct Segmenter {
    ids: HashMap<Vec<u8>, u32>,
    longest: usize,
}

impl Segmenter {
    pub fn new(vocab: &Vocabulary) -> Segmenter {
        let mut ids = HashMap::new();
        let mut longest = 0;
        for id in 0..vocab.len() as u32 {
            if let Some(bytes) = vocab.token_bytes(id).filter(|b| !b.is_empty()) {
                longest = longest.max(bytes.len());
                ids.entry(bytes.to_vec()).or_insert(id);
            }
        }
        Segmenter { ids, longest }
    }

    /// The (smallest) id of the token whose bytes are exactly `bytes`, if any.
    pub fn token(&self, bytes: &[u8]) -> Option<u32> {
        self.ids.get(bytes).copied()
    }

    /// A random tokenization of `text`, or `None` if the vocabulary cannot spell it.
    pub fn segment(&self, text: &[u8], rng: &mut SplitMix64) -> Option<Vec<u32>> {
        let n = text.len();
        // spellable[i]: text[i..] can be split into tokens.
        let mut spellable = vec![false; n + 1];
        spellable[n] = true;
        for i in (0..n).rev() {
            spellable[i] = (1..=self.longest.min(n - i))
                .any(|len| spellable[i + len] && self.ids.contains_key(&text[i..i + len]));
        }
        if !spellable[0] {
            return None;
        }
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < n {
            let choices: Vec<usize> = (1..=self.longest.min(n - i))
                .filter(|&len| spellable[i + len] && self.ids.contains_key(&text[i..i + len]))
                .collect();
            let len = choices[rng.index(choices.len())];
            tokens.push(self.ids[&text[i..i + len]]);
            i += len;
        }
        Some(tokens)
    }
}
