//! The worked examples of Koo et al. ("Automata-based constraints for language model
//! decoding") that concern regular constraints.

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

#[cfg(test)]
mod tests {
    use super::*;
    use fst_core::TokenVocabulary;

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
}
