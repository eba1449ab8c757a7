//! Loads a tokenizer file and prints what detok sees in it, with timings.
//!
//! `cargo run --release -p fstc-detok --example vocab_info -- path/to/tokenizer.json ["text"]`

use std::time::Instant;

use fstc_core::TokenVocabulary;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: vocab_info FILE [TEXT]")?;
    let text = args.next();

    let t = Instant::now();
    let vocab = fstc_detok::Vocabulary::from_file(&path)?;
    let load = t.elapsed();
    let text_tokens = (0..vocab.len() as u32)
        .filter(|&id| vocab.token_bytes(id).is_some())
        .count();
    println!(
        "{path}: {:?}, {} ids, {text_tokens} text tokens",
        vocab.family(),
        vocab.len()
    );
    println!(
        "  loaded in {load:.2?}, fingerprint {:016x}",
        vocab.fingerprint()
    );
    println!(
        "  specials: {}, EOS: {:?}",
        vocab.special_tokens().count(),
        vocab.eos_ids()
    );

    if let Some(text) = text {
        let t = Instant::now();
        let ids = vocab.tokenize(&text)?;
        println!(
            "  tokenize (first call, builds the tokenizer): {:.2?}",
            t.elapsed()
        );
        let t = Instant::now();
        vocab.tokenize(&text)?;
        println!("  tokenize (second call): {:.2?}", t.elapsed());
        println!("  {ids:?}");
    }
    Ok(())
}
