//! The worked examples of Koo et al. that concern regular constraints, as snapshots.

use fst_core::compiler::RegexCompiler;
use fst_core::walker::Walker;
use fst_core::{ByteVocabulary, TokenVocabulary};

/// Figure 4's vocabulary: f, oo, foo, for, food (ids 0..5), then EOS (id 5).
fn figure4_vocabulary() -> ByteVocabulary {
    ByteVocabulary::from_strs(&["f", "oo", "foo", "for", "food"])
}

fn accepts(automaton: &fst_core::automaton::TokenAutomaton, tokens: &[u32]) -> bool {
    let mut walker = Walker::new(automaton);
    tokens.iter().all(|&t| walker.consume(t).is_ok()) && walker.is_accepting()
}

/// Figure 5: /(foo)+d/ composed with the Figure 4 detokenizer.
#[test]
fn figure5_foo_plus_d() {
    let vocab = figure4_vocabulary();
    let automaton = RegexCompiler::new().compile("(foo)+d", &vocab).unwrap();
    let text = |id: u32| vocab.token_bytes(id).map(<[u8]>::to_vec);
    insta::assert_snapshot!(
        "figure5_token_automaton",
        fst_core::dot::to_dot(&automaton, &text)
    );

    let [f, oo, foo, _for, food] = [0, 1, 2, 3, 4];
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
