//! The slowest `consume` steps of the GLR walker along given texts:
//! `cargo run --release -p fstc-pda --example glr_consume -- FILE.gbnf VOCAB ROUNDS TEXT...`.
//!
//! Compiles the grammar for the vocabulary, tokenizes each text with the tokenizer itself
//! and consumes it `ROUNDS` times from a reset walker (as the grammar bench's warm passes
//! do), keeping each step's fastest time; prints each text's four slowest steps with the
//! chain points after them. A measurement to profile one step under `perf`, not a test.

use std::time::Instant;

use fstc_core::glr_walker::GlrWalker;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what}: {e}");
    std::process::exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, vocab_path, rounds, texts @ ..] = args.as_slice() else {
        eprintln!("usage: glr_consume FILE.gbnf VOCAB ROUNDS TEXT...");
        std::process::exit(2);
    };
    let rounds: usize = rounds.parse().unwrap_or_else(|e| fail(rounds, e));
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(path, e));
    let vocab =
        fstc_detok::Vocabulary::from_file(vocab_path).unwrap_or_else(|e| fail(vocab_path, e));
    let trie = VocabTrie::new(&vocab);
    let tpda = fstc_pda::GrammarCompiler::new()
        .compile_with_trie(&text, &trie)
        .unwrap_or_else(|e| fail(path, e))
        .automaton;
    let mut walker = GlrWalker::new(&tpda);
    for sample in texts {
        let tokens = vocab.tokenize(sample).unwrap_or_else(|e| fail(sample, e));
        let mut best = vec![f64::MAX; tokens.len()];
        let mut points = vec![0; tokens.len()];
        for _ in 0..rounds {
            walker.reset();
            for (i, &t) in tokens.iter().enumerate() {
                let start = Instant::now();
                walker.consume(t).unwrap_or_else(|e| fail(sample, e));
                best[i] = best[i].min(start.elapsed().as_secs_f64() * 1e6);
                points[i] = walker.num_chain_points();
            }
        }
        let mut order: Vec<usize> = (0..tokens.len()).collect();
        order.sort_by(|&a, &b| best[b].total_cmp(&best[a]));
        for &i in order.iter().take(4) {
            let piece = String::from_utf8_lossy(vocab.token_bytes(tokens[i]).unwrap_or(b""));
            println!(
                "{sample:?} token {i} {piece:?}: {:.2} us, {} chain points after",
                best[i], points[i]
            );
        }
    }
}
