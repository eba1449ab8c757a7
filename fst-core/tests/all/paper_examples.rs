//! The worked examples of Koo et al. that concern regular constraints, as snapshots.

use fstc_core::TokenVocabulary;
use fstc_regex::RegexCompiler;
use testkit::paper::{figure4_vocabulary, F, FIGURE5_PATTERN, FOO, FOOD, FOR, OO};
use testkit::tokenize::accepts;

/// Figure 5: /(foo)+d/ composed with the Figure 4 detokenizer.
#[test]
fn figure5_foo_plus_d() {
    let vocab = figure4_vocabulary();
    let automaton = RegexCompiler::new()
        .compile(FIGURE5_PATTERN, &vocab)
        .unwrap();
    let text = |id: u32| vocab.token_bytes(id).map(<[u8]>::to_vec);
    insta::assert_snapshot!(
        "figure5_token_automaton",
        fstc_core::dot::to_dot(&automaton, &text)
    );

    let [f, oo, foo, _for, food] = [F, OO, FOO, FOR, FOOD];
    // Every tokenization of "foofood" is accepted, including "food" crossing the
    // boundary between the last repetition of (foo) and d.
    for tokens in [
        vec![foo, food],
        vec![f, oo, food],
        vec![foo, f, oo, food],
        vec![f, oo, f, oo, food],
    ] {
        assert!(accepts(&automaton, &tokens), "{tokens:?}");
    }
    assert!(accepts(&automaton, &[food]));
    // No "d" token exists, so "food" is the only way to finish.
    assert!(!accepts(&automaton, &[foo]));
    assert!(!accepts(&automaton, &[foo, foo]));
    assert!(!accepts(&automaton, &[_for]));
    // The states after "" and after "foo" have the same future: minimization merges them.
    assert_eq!(automaton.num_states(), 3);
}
