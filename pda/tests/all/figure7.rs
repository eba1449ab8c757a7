//! The paper's Figures 6 and 7: a^n b^n as a byte PDA and as a token PDA over the
//! vocabulary a, b, bb, aaab.

use crate::common::{figure7_vocab, pda_of, token_pda, RefWalker, Walk, ANBN};

#[test]
fn figure6_byte_pda_dot() {
    insta::assert_snapshot!(pda_of(ANBN).to_dot());
}

#[test]
fn figure7_token_pda_parts() {
    insta::assert_debug_snapshot!(token_pda(ANBN, &figure7_vocab()));
}

#[test]
fn figure7_walk_crosses_nonterminal_boundaries() {
    let parts = token_pda(ANBN, &figure7_vocab());
    let mut w = RefWalker::new(&parts);
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
