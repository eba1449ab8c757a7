//! The worked examples of Koo et al. ("Automata-based constraints for language model
//! decoding") that concern regular constraints.

use fst_core::automaton::AutomatonParts;
use fst_core::ByteVocabulary;

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

#[cfg(test)]
mod tests {
    use super::*;
    use fst_core::compiler::RegexCompiler;
    use fst_core::{fingerprint, TokenVocabulary};

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
    fn figure5_parts_are_what_the_compiler_builds() {
        let vocab = figure4_vocabulary();
        let compiled = RegexCompiler::new()
            .compile(FIGURE5_PATTERN, &vocab)
            .unwrap();
        let want = AutomatonParts {
            vocab_fingerprint: fingerprint(&vocab),
            ..figure5_parts()
        };
        assert_eq!(compiled.to_parts(), want);
    }
}
