//! Free text as a wildcard: a state of the automaton that reads free text gets its tokens
//! from precomputed sets (`vocab::FreeText`) instead of a walk of the whole trie.
//!
//! The caller names the free texts the language holds (a structural tag's, by their
//! excluded strings); nothing about where they are is assumed. The first time a state
//! whose tokens would need a full walk is composed, each text is tried: the text's
//! automaton is run beside the automaton's own transitions from that state, breadth first
//! over every byte class both tell apart, giving each text state `a` the automaton state
//! `σ(a)` first reached with it, and the attempt fails as soon as a byte the text reads
//! leads elsewhere than `σ` says (or nowhere). When it succeeds, every token the text
//! leads from `a` back to its clean state without completing a string leads the
//! automaton from `σ(a)` to `σ(clean)` — by induction over its bytes — so `σ(a)`'s
//! tokens are those *kept* tokens (a copy of a bitset computed once per process) plus
//! those of the short list of the others that the automaton reads (a walk of that list
//! alone). Every state of `σ` is remembered, so the states inside a trigger begun by a
//! token are found without trying again. A token that ends the text and begins a tag is
//! never a kept token (it completes a string, or ends inside one), so it is read by the
//! automaton's own transitions, exactly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::fast_hash::FastMap;
use crate::vocab::{FreeText, FreeTextTokens, VocabTrie};

use super::state::StateInfo;

/// The free texts of one lazy automaton and the states found to read them.
#[derive(Debug, Default)]
pub(super) struct Wildcards {
    texts: Vec<Arc<FreeText>>,
    /// Automaton state → (text, text state) for every state of every `σ` found.
    known: FastMap<u32, (u32, u32)>,
    /// States whose tokens came from a text's sets.
    used: usize,
}

/// Most text states a check follows (past it the state is composed by a walk).
const MAX_CHECK_STATES: usize = 4096;

impl Wildcards {
    pub(super) fn new(texts: Vec<FreeText>) -> Wildcards {
        Wildcards {
            texts: texts.into_iter().map(Arc::new).collect(),
            ..Wildcards::default()
        }
    }

    /// Number of states whose tokens came from a free text's sets.
    pub(super) fn num_used(&self) -> usize {
        self.used
    }

    /// The tokens of `state` when it reads one of the free texts (see the module docs),
    /// else `None`. `step(state, byte)` is the automaton's transition and `class_of_byte`
    /// its byte classes.
    pub(super) fn tokens(
        &mut self,
        state: u32,
        trie: &VocabTrie,
        vocab_size: u32,
        class_of_byte: &[u8; 256],
        mut step: impl FnMut(u32, u8) -> Option<u32>,
    ) -> Option<StateInfo> {
        let (k, a) = match self.known.get(&state) {
            Some(&found) => found,
            None => self.find(state, class_of_byte, &mut step)?,
        };
        let sets = shared_tokens(&self.texts[k as usize], a, trie);
        let mut words = sets.kept.clone();
        sets.rest.walk(state, step, |_, ids| {
            for &t in ids {
                words[(t / 32) as usize] |= 1 << (t % 32);
            }
        });
        self.used += 1;
        Some(StateInfo::from_words(words, vocab_size))
    }

    /// Tries each text from its clean state at `state`; on success remembers its `σ`.
    fn find(
        &mut self,
        state: u32,
        class_of_byte: &[u8; 256],
        step: &mut impl FnMut(u32, u8) -> Option<u32>,
    ) -> Option<(u32, u32)> {
        for (k, text) in self.texts.iter().enumerate() {
            if let Some(sigma) = simulate(text, state, class_of_byte, step) {
                for (a, s) in sigma {
                    self.known.entry(s).or_insert((k as u32, a));
                }
                return Some((k as u32, FreeText::CLEAN));
            }
        }
        None
    }
}

/// `σ` as (text state, automaton state) pairs when the automaton from `state` follows
/// `text` from its clean state on every byte the text reads; `None` otherwise.
fn simulate(
    text: &FreeText,
    state: u32,
    class_of_byte: &[u8; 256],
    step: &mut impl FnMut(u32, u8) -> Option<u32>,
) -> Option<Vec<(u32, u32)>> {
    let representatives = joint_representatives(text, class_of_byte);
    let mut sigma: FastMap<u32, u32> = FastMap::default();
    sigma.insert(FreeText::CLEAN, state);
    let mut order = vec![(FreeText::CLEAN, state)];
    let mut i = 0;
    while let Some(&(a, s)) = order.get(i) {
        i += 1;
        for &b in &representatives {
            let Some(a2) = text.next(a, b) else {
                continue;
            };
            let s2 = step(s, b)?;
            match sigma.get(&a2) {
                Some(&known) if known != s2 => return None,
                Some(_) => {}
                None if order.len() >= MAX_CHECK_STATES => return None,
                None => {
                    sigma.insert(a2, s2);
                    order.push((a2, s2));
                }
            }
        }
    }
    Some(order)
}

/// One byte of each class of bytes that both the text and the automaton treat alike.
fn joint_representatives(text: &FreeText, class_of_byte: &[u8; 256]) -> Vec<u8> {
    let classes = text.byte_classes();
    let mut seen = std::collections::HashSet::new();
    (0..=255u8)
        .filter(|&b| seen.insert((classes[b as usize], class_of_byte[b as usize])))
        .collect()
}

/// Most token splits kept for the process (each a bitset of the vocabulary and a short
/// list: for Llama 3 about 20 KB); past it the table starts again.
const MAX_SPLITS: usize = 64;

/// (vocabulary fingerprint, size, excluded strings, text state) → the split.
type Splits = HashMap<(u64, usize, Vec<Box<[u8]>>, u32), Arc<FreeTextTokens>>;

/// The split of `trie`'s tokens for text state `a`, made once per process: the same
/// triggers come back in request after request.
fn shared_tokens(text: &FreeText, a: u32, trie: &VocabTrie) -> Arc<FreeTextTokens> {
    static SPLITS: OnceLock<Mutex<Splits>> = OnceLock::new();
    let table = SPLITS.get_or_init(Mutex::default);
    let key = (
        trie.fingerprint(),
        trie.vocab_size(),
        text.strings().to_vec(),
        a,
    );
    // A poisoned lock only means another thread panicked mid-insert; entries are whole.
    if let Some(found) = table.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Arc::clone(found);
    }
    let split = Arc::new(text.tokens(a, trie));
    let mut splits = table.lock().unwrap_or_else(|e| e.into_inner());
    if splits.len() >= MAX_SPLITS {
        splits.clear();
    }
    splits.insert(key, Arc::clone(&split));
    split
}
