//! Forged headers (issue 27): a file whose counts claim more than it holds, behind a
//! recomputed checksum, is refused before anything is sized by the claim, or loads and is
//! walked (masks, random walks) at a cost its claims bound.

use fstc_core::automaton::TokenAutomaton;
use fstc_core::sample::{random_matcher_walk, SplitMix64};
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::MAX_VOCAB_SIZE;
use fstc_core::AnyAutomaton;
use proptest::prelude::*;
use testkit::file::forge_checksum;
use testkit::paper::{figure5_parts, figure7_pda_parts};

/// The words of a small FSA file and of a small PDA file.
fn files() -> [Vec<u32>; 2] {
    let fsa = TokenAutomaton::from_parts(figure5_parts()).unwrap();
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    [fsa.as_words().to_vec(), pda.as_words().to_vec()]
}

/// Loads `words` with `edits` applied and the checksum forged; if it loads, fills masks
/// along a few random walks of at most 30 tokens (the mask as wide as the header claims).
fn load_and_walk(mut words: Vec<u32>, edits: &[(usize, u32)]) -> Result<(), String> {
    for &(at, value) in edits {
        if at < words.len() - 2 {
            words[at] = value;
        }
    }
    forge_checksum(&mut words);
    let any = AnyAutomaton::from_words(words).map_err(|e| e.to_string())?;
    let (vocab, eos) = match &any {
        AnyAutomaton::Fsa(a) => (a.vocab_size(), a.eos_ids().to_vec()),
        AnyAutomaton::Pda(p) => (p.vocab_size(), p.eos_ids().to_vec()),
    };
    let mut mask = vec![0u32; (vocab as usize).div_ceil(32)];
    let mut rng = SplitMix64::new(3);
    for _ in 0..3 {
        let mut m = any.matcher();
        let walk = random_matcher_walk(m.as_mut(), &eos, &mut rng, 30);
        assert!(walk.tokens.len() <= 30);
        let m = any.matcher();
        m.fill_mask(&mut mask).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[test]
fn a_header_claiming_2_31_tokens_is_refused() {
    for words in files() {
        let e = load_and_walk(words, &[(6, 1 << 31)]).unwrap_err();
        assert!(e.contains("vocab_size 2147483648 (word 6)"), "{e}");
    }
}

#[test]
fn a_header_at_the_largest_vocabulary_loads_or_is_refused_cleanly() {
    for words in files() {
        if let Err(e) = load_and_walk(words, &[(6, MAX_VOCAB_SIZE)]) {
            assert!(!e.is_empty());
        }
    }
}

/// Values a forger would try: huge, off by one from a power of two, zero.
fn hostile_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(u32::MAX),
        Just(1 << 31),
        Just(MAX_VOCAB_SIZE),
        Just(MAX_VOCAB_SIZE + 1),
        (0u32..32).prop_map(|k| (1u32 << k).wrapping_sub(1)),
        any::<u32>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Header and section-table words forged (checksum recomputed) in either kind of file.
    #[test]
    fn forged_header_words_load_or_fail_cleanly(
        pda in any::<bool>(),
        edits in prop::collection::vec((4usize..40, hostile_word()), 1..4),
    ) {
        let [fsa, pda_words] = files();
        let words = if pda { pda_words } else { fsa };
        if let Err(e) = load_and_walk(words, &edits) {
            prop_assert!(!e.is_empty());
        }
    }
}
