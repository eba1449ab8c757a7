//! Prints the paper's Figure 6 (byte PDA of a^n b^n) as Graphviz DOT and Figure 7 (its
//! token PDA over the vocabulary a, b, bb, aaab) as parts:
//! `cargo run -p fstc-pda --example figure7`.

use fstc_core::vocab::VocabTrie;

fn main() -> Result<(), fstc_pda::PdaError> {
    // The grammar as the paper prints it.
    let byte_pda = fstc_pda::Pda::from_gbnf(r#"S → "ab" | "a" S "b""#)?;
    println!("{}", byte_pda.to_dot());
    let vocab = fstc_core::ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
    let parts = fstc_pda::GrammarCompiler::new().compose(&byte_pda, &VocabTrie::new(&vocab))?;
    println!("{parts:#?}");
    Ok(())
}
