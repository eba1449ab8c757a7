//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod earley;

use fst_core::sample::SplitMix64;
use fst_core::{ByteVocabulary, TokenVocabulary};
use pda::{compose, ComposeLimits, Grammar, Pda, TokenPda};

/// A random tokenization of `text`: at each position, a random token that fits. Panics
/// when no token fits, so give `vocab` every single byte the texts use.
pub fn random_tokenization(vocab: &ByteVocabulary, text: &[u8], rng: &mut SplitMix64) -> Vec<u32> {
    let mut ids = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let fits: Vec<u32> = (0..vocab.len() as u32)
            .filter(|&id| {
                vocab
                    .token_bytes(id)
                    .is_some_and(|t| !t.is_empty() && text[pos..].starts_with(t))
            })
            .collect();
        assert!(!fits.is_empty(), "no token spells the text at byte {pos}");
        let id = fits[rng.index(fits.len())];
        ids.push(id);
        pos += vocab.token_bytes(id).unwrap().len();
    }
    ids
}

/// The paper's Figure 6 grammar as printed: a^n b^n, n >= 1.
pub const ANBN: &str = r#"S -> "ab" | "a" S "b" ;"#;

/// The paper's Figure 7 vocabulary; `from_strs` adds EOS as id 4.
pub fn figure7_vocab() -> ByteVocabulary {
    ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"])
}

pub fn pda_of(text: &str) -> Pda {
    Pda::from_grammar(&Grammar::parse(text).unwrap()).unwrap()
}

pub fn token_pda(text: &str, vocab: &ByteVocabulary) -> TokenPda {
    compose(&pda_of(text), vocab, &ComposeLimits::default()).unwrap()
}

/// Runs `tokens` then EOS; `true` when the token PDA ends accepting. Also checks, at every
/// step, that `allowed_tokens` says exactly what `step` does (for ids below `vocab_len`) and
/// what `fill_mask` does.
pub fn run_tokens(tpda: &TokenPda, vocab_len: u32, tokens: &[u32]) -> bool {
    let (mut state, mut stack) = (tpda.start(), tpda.initial_stack());
    for &t in tokens.iter().chain(tpda.eos_ids().first()) {
        let allowed = tpda.allowed_tokens(state, &stack);
        let mut mask = vec![u32::MAX; (tpda.vocab_size() as usize).div_ceil(32) + 1];
        assert!(tpda.fill_mask(state, &stack, &mut mask));
        let from_mask: Vec<u32> = (0..mask.len() as u32 * 32)
            .filter(|&t| mask[t as usize / 32] >> (t % 32) & 1 == 1)
            .collect();
        assert_eq!(from_mask, allowed, "fill_mask and allowed_tokens disagree");
        for probe in 0..vocab_len {
            let mut copy = stack.clone();
            assert_eq!(
                tpda.step(state, &mut copy, probe).is_some(),
                allowed.contains(&probe),
                "allowed_tokens and step disagree on token {probe}"
            );
        }
        match tpda.step(state, &mut stack, t) {
            Some(next) => state = next,
            None => return false,
        }
    }
    tpda.is_accepting(state, &stack)
}
