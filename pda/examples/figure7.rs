//! Prints the paper's Figure 6 (byte PDA of a^n b^n) and Figure 7 (its token PDA over the
//! vocabulary a, b, bb, aaab) as Graphviz DOT: `cargo run -p pda --example figure7 | dot -Tsvg`.

fn main() -> Result<(), pda::PdaError> {
    // The grammar as the paper prints it.
    let byte_pda = pda::Pda::from_gbnf(r#"S → "ab" | "a" S "b""#)?;
    println!("{}", byte_pda.to_dot());
    let vocab = fst_core::ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
    let token_pda = pda::compose(&byte_pda, &vocab, &pda::ComposeLimits::default())?;
    println!("{}", token_pda.to_dot(&vocab));
    Ok(())
}
