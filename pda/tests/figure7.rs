//! The paper's Figures 6 and 7: a^n b^n as a byte PDA and as a token PDA over the
//! vocabulary a, b, bb, aaab.

mod common;

use common::{figure7_vocab, pda_of, token_pda, ANBN};

#[test]
fn figure6_byte_pda_dot() {
    insta::assert_snapshot!(pda_of(ANBN).to_dot());
}

#[test]
fn figure7_token_pda_dot() {
    let vocab = figure7_vocab();
    insta::assert_snapshot!(token_pda(ANBN, &vocab).to_dot(&vocab));
}

#[test]
fn figure7_walk_crosses_nonterminal_boundaries() {
    let vocab = figure7_vocab();
    let tpda = token_pda(ANBN, &vocab);
    let (mut state, mut stack) = (tpda.start(), tpda.initial_stack());
    // At the start only tokens beginning with `a` fit, and the text cannot end.
    assert_eq!(tpda.allowed_tokens(state, &stack), vec![0, 3]);
    // "aaab" enters S three times and finishes the innermost one: one return address stays.
    state = tpda.step(state, &mut stack, 3).unwrap();
    assert_eq!(stack.len(), 2);
    // Two b's are missing: "b" or "bb" fit, "a" no longer does, EOS not yet.
    assert_eq!(tpda.allowed_tokens(state, &stack), vec![1, 2]);
    // A rejected token leaves the configuration alone.
    let before = (state, stack.clone());
    assert_eq!(tpda.step(state, &mut stack, 0), None);
    assert_eq!((state, stack.clone()), before);
    // "bb" pops the return address and finishes S: only EOS remains.
    state = tpda.step(state, &mut stack, 2).unwrap();
    assert_eq!(stack, tpda.initial_stack());
    assert_eq!(tpda.allowed_tokens(state, &stack), vec![4]);
    assert!(tpda.can_end(state, &stack));
    assert!(!tpda.is_accepting(state, &stack));
    state = tpda.step(state, &mut stack, 4).unwrap();
    assert!(tpda.is_accepting(state, &stack));
    assert!(tpda.allowed_tokens(state, &stack).is_empty());
}

#[test]
fn fill_mask_needs_a_wide_enough_mask() {
    let vocab = figure7_vocab();
    let tpda = token_pda(ANBN, &vocab);
    let mut empty: [u32; 0] = [];
    assert!(!tpda.fill_mask(tpda.start(), &tpda.initial_stack(), &mut empty));
    let mut mask = [u32::MAX; 2];
    assert!(tpda.fill_mask(tpda.start(), &tpda.initial_stack(), &mut mask));
    assert_eq!(mask, [0b1001, 0]);
}

#[test]
fn unknown_states_allow_nothing() {
    let vocab = figure7_vocab();
    let tpda = token_pda(ANBN, &vocab);
    let (bad, mut stack) = (tpda.num_states() as u32 + 3, tpda.initial_stack());
    assert!(tpda.allowed_tokens(bad, &stack).is_empty());
    assert!(!tpda.can_end(bad, &stack) && !tpda.is_accepting(bad, &stack));
    assert_eq!(tpda.step(bad, &mut stack, 0), None);
    assert_eq!(tpda.step(bad, &mut stack, 4), None);
    let mut mask = [u32::MAX];
    assert!(tpda.fill_mask(bad, &stack, &mut mask));
    assert_eq!(mask, [0]);
}
