//! The worked examples of Koo et al. ("Automata-based constraints for language model
//! decoding"): the regular constraints of Figures 4 and 5 and the token PDA of Figure 7.

use fstc_core::automaton::AutomatonParts;
use fstc_core::parts::{PdaEdge, PdaParts, NO_CLASS};
use fstc_core::ByteVocabulary;

/// Figure 4's tokens, in id order.
pub const FIGURE4_TOKENS: [&str; 5] = ["f", "oo", "foo", "for", "food"];

/// Token ids of Figure 4's vocabulary.
pub const F: u32 = 0;
pub const OO: u32 = 1;
pub const FOO: u32 = 2;
pub const FOR: u32 = 3;
pub const FOOD: u32 = 4;
/// The EOS id `ByteVocabulary::from_strs` appends after the tokens.
pub const EOS: u32 = 5;

/// Figure 5's constraint, composed with Figure 4's detokenizer in the paper.
pub const FIGURE5_PATTERN: &str = "(foo)+d";

/// Figure 4's vocabulary: f, oo, foo, for, food (ids 0..5), then EOS (id 5).
pub fn figure4_vocabulary() -> ByteVocabulary {
    ByteVocabulary::from_strs(&FIGURE4_TOKENS)
}

/// Figure 5's token automaton, minimized: [`FIGURE5_PATTERN`] over
/// [`figure4_vocabulary`]. States: 0 expects a "foo" (start), 1 is after "f", 2 after "d"
/// (accepting). The fingerprint is 0; tests that need a vocabulary's set it.
pub fn figure5_parts() -> AutomatonParts {
    AutomatonParts {
        vocab_size: 6,
        vocab_fingerprint: 0,
        eos_ids: vec![EOS],
        start: 0,
        accepting: vec![false, false, true],
        edges: vec![vec![(F, 1), (FOO, 0), (FOOD, 2)], vec![(OO, 0)], vec![]],
        terminals: Vec::new(),
    }
}

/// Figure 7's tokens, in id order; its EOS is id 4.
pub const FIGURE7_TOKENS: [&str; 4] = ["a", "b", "bb", "aaab"];

/// Token ids of Figure 7's vocabulary.
pub const FIG7_A: u32 = 0;
pub const FIG7_B: u32 = 1;
pub const FIG7_BB: u32 = 2;
pub const FIG7_AAAB: u32 = 3;
/// The EOS id `ByteVocabulary::from_strs` appends after the tokens.
pub const FIG7_EOS: u32 = 4;

/// Figure 7's vocabulary: a, b, bb, aaab (ids 0..4), then EOS (id 4).
pub fn figure7_vocabulary() -> ByteVocabulary {
    ByteVocabulary::from_strs(&FIGURE7_TOKENS)
}

/// Figure 7's token PDA, written by hand: Figure 6's grammar `S -> ab | aSb` (the
/// language `a^n b^n`, `n >= 1`) composed with [`figure7_vocabulary`].
///
/// One class per token. Stack symbol 0 is the return address "after the inner `S` of
/// `aSb`". Nodes: 0 is the start (`S` expects `a`); 1 is after the `a` of either rule
/// (`a` enters a nested `S`, pushing the return address); 2 is after a nested `S`
/// returned (expects the closing `b`); 3 is the end of `S` (accepting when the stack is
/// empty). Nodes 4 and 5 are nodes 1 and 2 with the return to node 2 known, reached by
/// popping: they hold `bb`, the token that crosses that return (`b` ends `S`, the
/// second `b` closes the caller). The fingerprint is 0; tests that need a vocabulary's
/// set it.
pub fn figure7_pda_parts() -> PdaParts {
    let edge = |class, target, push| PdaEdge {
        class,
        target,
        push,
    };
    let (a, b, bb, aaab) = (FIG7_A, FIG7_B, FIG7_BB, FIG7_AAAB);
    PdaParts {
        vocab_size: 5,
        vocab_fingerprint: 0,
        eos_ids: vec![FIG7_EOS],
        num_stack_symbols: 1,
        start: 0,
        accepting: vec![false, false, false, true, false, false],
        num_classes: 4,
        class_of_token: vec![a, b, bb, aaab, NO_CLASS],
        edges: vec![
            vec![edge(a, 1, 0), edge(aaab, 3, 2)],
            vec![edge(a, 1, 1), edge(b, 3, 0), edge(aaab, 3, 3)],
            vec![edge(b, 3, 0)],
            vec![],
            vec![edge(bb, 3, 0)],
            vec![edge(bb, 3, 0)],
        ],
        pops: vec![
            vec![],
            vec![(0, 4)],
            vec![(0, 5)],
            vec![(0, 2)],
            vec![],
            vec![],
        ],
        push_seqs: vec![vec![], vec![0], vec![0, 0], vec![0, 0, 0]],
        nondeterministic: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fstc_core::{fingerprint, TokenVocabulary};
    use fstc_regex::RegexCompiler;

    #[test]
    fn ids_name_the_tokens() {
        let vocab = figure4_vocabulary();
        for (id, text) in [
            (F, "f"),
            (OO, "oo"),
            (FOO, "foo"),
            (FOR, "for"),
            (FOOD, "food"),
        ] {
            assert_eq!(vocab.token_bytes(id), Some(text.as_bytes()));
        }
        assert_eq!(vocab.eos_ids(), [EOS]);
        assert_eq!(vocab.token_bytes(EOS), None);
    }

    #[test]
    fn figure7_parts_are_valid_and_name_the_tokens() {
        figure7_pda_parts().check().unwrap();
        let vocab = figure7_vocabulary();
        assert_eq!(vocab.eos_ids(), [FIG7_EOS]);
        for (id, text) in FIGURE7_TOKENS.iter().enumerate() {
            assert_eq!(vocab.token_bytes(id as u32), Some(text.as_bytes()));
        }
    }

    #[test]
    fn figure5_parts_are_what_the_compiler_builds() {
        let vocab = figure4_vocabulary();
        let compiled = RegexCompiler::new()
            .compile(FIGURE5_PATTERN, &vocab)
            .unwrap()
            .automaton;
        let want = AutomatonParts {
            vocab_fingerprint: fingerprint(&vocab),
            ..figure5_parts()
        };
        assert_eq!(compiled.to_parts(), want);
    }
}
