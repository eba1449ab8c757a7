//! For the differential tests that feed token sequences to compiled automata: random tokenizations of a text, and acceptance by walking.

use std::collections::HashMap;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::sample::{RandomWalk, SplitMix64};
use fstc_core::walker::Walker;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;

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

/// A random walk that picks a token edge or any allowed token of the mask (terminal
/// tokens included), and stops with probability 1/4 where the state accepts: wildcard
/// states allow ~|V| tokens, so `random_walk`'s one EOS choice among them would almost
/// never end a walk.
pub fn walk_to_eos(automaton: &TokenAutomaton, rng: &mut SplitMix64, max: usize) -> RandomWalk {
    let mut walker = Walker::new(automaton);
    let mut mask = vec![0u32; (automaton.vocab_size() as usize).div_ceil(32)];
    let mut tokens = Vec::new();
    while tokens.len() < max {
        if walker.is_accepting() && rng.below(4) == 0 {
            return RandomWalk {
                tokens,
                complete: true,
            };
        }
        // Half the time, a token of a random class edge (leaving a wildcard, e.g. the
        // newline after a paragraph, whose class is small); otherwise any allowed token.
        let classes: Vec<u32> = automaton.class_edges(walker.state()).map(|e| e.0).collect();
        if !classes.is_empty() && rng.below(2) == 0 {
            let class = classes[rng.index(classes.len())];
            let pick = rng.index(automaton.class_size(class));
            let t = automaton.class_tokens(class).nth(pick).unwrap();
            walker.consume(t).unwrap();
            tokens.push(t);
            continue;
        }
        walker.fill_mask(&mut mask).unwrap();
        let allowed: Vec<u32> = (0..automaton.vocab_size())
            .filter(|&t| mask[(t / 32) as usize] & (1 << (t % 32)) != 0 && !automaton.is_eos(t))
            .collect();
        if allowed.is_empty() {
            break;
        }
        let t = allowed[rng.index(allowed.len())];
        walker.consume(t).unwrap();
        tokens.push(t);
    }
    RandomWalk {
        tokens,
        complete: walker.is_accepting(),
    }
}
