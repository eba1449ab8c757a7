//! The paper's Figure 5: `(foo)+d` over the vocabulary `f, oo, foo, for, food`.
#![cfg(feature = "compile")]

use crate::compose_support::{all_sequences, foo_plus_d, parts_accept, spell};
use fstc_core::compose::{compose, compose_trimmed_with_trie, ComposeLimits};
use fstc_core::fingerprint;
use fstc_core::reference::compose_reference;
use fstc_core::reference::detokenizing_fst;
use fstc_core::vocab::VocabTrie;
use testkit::paper::{figure4_vocabulary as vocab, EOS, F, FOO, FOOD, FOR, OO};

#[test]
fn figure_5_token_automaton_before_minimization() {
    let vocab = vocab();
    let trie = VocabTrie::new(&vocab);
    let parts = compose_trimmed_with_trie(&foo_plus_d(), &trie, &ComposeLimits::default()).unwrap();
    // Byte-DFA states 0 (start), 1 (after f), 3 (after foo), 4 (after d). State 2 (after
    // "fo") is never at a token boundary: there is no token "fo", nor "o" to follow "f".
    assert_eq!(parts.accepting, [false, false, false, true]);
    assert_eq!(
        parts.edges,
        [
            vec![(F, 1), (FOO, 2), (FOOD, 3)],
            vec![(OO, 2)],
            vec![(F, 1), (FOO, 2), (FOOD, 3)],
            vec![],
        ]
    );
    // "for" never fits: its "r" kills the DFA.
    assert!(parts.edges.iter().flatten().all(|&(t, _)| t != FOR));
}

#[test]
fn figure_5_minimal_token_automaton() {
    let vocab = vocab();
    let parts = compose(&foo_plus_d(), &vocab, &ComposeLimits::default()).unwrap();
    // The start and "after foo" accept the same token continuations, so they merge:
    // `food` from the start is the single repetition followed by `d`.
    assert_eq!(parts.start, 0);
    assert_eq!(parts.accepting, [false, false, true]);
    assert_eq!(
        parts.edges,
        [vec![(F, 1), (FOO, 0), (FOOD, 2)], vec![(OO, 0)], vec![]]
    );
    assert_eq!(parts.vocab_size, 6);
    assert_eq!(parts.vocab_fingerprint, fingerprint(&vocab));
    assert_eq!(parts.eos_ids, [EOS]);
}

#[test]
fn food_crosses_the_repetition_boundary() {
    let parts = compose(&foo_plus_d(), &vocab(), &ComposeLimits::default()).unwrap();
    assert!(parts_accept(&parts, &[FOOD]));
    assert!(parts_accept(&parts, &[FOO, FOOD]));
    assert!(parts_accept(&parts, &[F, OO, FOO, FOOD]));
    assert!(!parts_accept(&parts, &[FOO]));
    assert!(!parts_accept(&parts, &[FOOD, FOOD]));
    assert!(!parts_accept(&parts, &[]));
}

#[test]
fn every_tokenization_of_foofood_is_accepted() {
    let vocab = vocab();
    let parts = compose(&foo_plus_d(), &vocab, &ComposeLimits::default()).unwrap();
    let ids = [F, OO, FOO, FOR, FOOD];
    let spelling: Vec<Vec<u32>> = all_sequences(&ids, 7)
        .into_iter()
        .filter(|seq| spell(&vocab, seq) == b"foofood")
        .collect();
    assert_eq!(spelling, [vec![FOO, FOOD], vec![F, OO, FOOD]]);
    for seq in &spelling {
        assert!(parts_accept(&parts, seq), "{seq:?} rejected");
    }
}

#[test]
fn figure_5_reference_path_agrees() {
    let vocab = vocab();
    let dfa = foo_plus_d();
    let fast = compose(&dfa, &vocab, &ComposeLimits::default()).unwrap();
    let reference = compose_reference(&dfa.to_fst(), &detokenizing_fst(&vocab), &vocab).unwrap();
    assert_eq!(fast, reference);
}
