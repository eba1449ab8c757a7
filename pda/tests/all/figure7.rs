//! The paper's Figures 6 and 7: a^n b^n as a byte PDA and as a token PDA over the
//! vocabulary a, b, bb, aaab.

use crate::common::{figure7_vocab, pda_of, token_pda, RefWalker, Walk, ANBN};

#[test]
fn figure6_byte_pda_dot() {
    insta::assert_snapshot!(pda_of(ANBN).to_dot());
}

#[test]
fn figure7_token_pda_parts() {
    insta::assert_debug_snapshot!(token_pda(ANBN, &figure7_vocab()).parts);
}

#[test]
fn figure7_token_pda_dot() {
    let vocab = figure7_vocab();
    let tpda = token_pda(ANBN, &vocab);
    let text = |t: u32| fstc_core::TokenVocabulary::token_bytes(&vocab, t).map(<[u8]>::to_vec);
    insta::assert_snapshot!(fstc_core::dot::pda_to_dot(&tpda.rt, &text));
}

#[test]
fn figure7_walk_crosses_nonterminal_boundaries() {
    let parts = token_pda(ANBN, &figure7_vocab());
    let mut w = parts.walker();
    // At the start only tokens beginning with `a` fit, and the text cannot end.
    assert_eq!(w.allowed(), vec![0, 3]);
    // "aaab" enters S three times and finishes the innermost one.
    assert!(w.step(3));
    // Two b's are missing: "b" or "bb" fit, "a" no longer does, EOS not yet.
    assert_eq!(w.allowed(), vec![1, 2]);
    // A rejected token leaves the configuration alone.
    assert!(!w.step(0));
    assert_eq!(w.allowed(), vec![1, 2]);
    // "b" then "b": only EOS remains, then nothing.
    assert!(w.step(1));
    assert_eq!(w.allowed(), vec![1]);
    assert!(w.step(1));
    assert_eq!(w.allowed(), vec![4]);
    assert!(w.step(4) && w.finished());
    assert!(w.allowed().is_empty());
}

/// Every configuration reachable in up to `depth` tokens: both parts allow the same
/// tokens (EOS included) after the same tokens.
fn assert_same_behaviour(
    ours: &fstc_core::parts::PdaParts,
    theirs: &fstc_core::parts::PdaParts,
    depth: usize,
) {
    let mut frontier = vec![(
        Vec::<u32>::new(),
        RefWalker::new(ours),
        RefWalker::new(theirs),
    )];
    let mut seen = 0;
    for _ in 0..depth {
        let mut next = Vec::new();
        for (tokens, a, b) in frontier {
            let allowed = a.allowed();
            assert_eq!(allowed, b.allowed(), "after tokens {tokens:?}");
            seen += 1;
            for t in allowed {
                let (mut a, mut b) = (a.clone(), b.clone());
                assert!(a.step(t) && b.step(t));
                let mut tokens = tokens.clone();
                tokens.push(t);
                next.push((tokens, a, b));
            }
        }
        frontier = next;
    }
    assert!(seen > 100, "only {seen} configurations compared");
}

#[test]
fn figure7_behaves_as_the_hand_written_parts_of_testkit() {
    assert_eq!(
        (0..5)
            .map(
                |t| fstc_core::TokenVocabulary::token_bytes(&figure7_vocab(), t)
                    .map(<[u8]>::to_vec)
            )
            .collect::<Vec<_>>(),
        (0..5)
            .map(|t| fstc_core::TokenVocabulary::token_bytes(
                &testkit::paper::figure7_vocabulary(),
                t
            )
            .map(<[u8]>::to_vec))
            .collect::<Vec<_>>(),
    );
    let ours = token_pda(ANBN, &figure7_vocab());
    let theirs = testkit::paper::figure7_pda_parts();
    assert_same_behaviour(&ours, &theirs, 9);
    // Ours is minimal: the hand-written parts' two pop nodes holding only `bb` are one.
    assert_eq!((ours.accepting.len(), theirs.accepting.len()), (5, 6));
}
