//! The fastest of several compiles of one grammar for one vocabulary, the vocabulary's
//! trie built once (as the grammar bench times them):
//! `cargo run --release -p fstc-pda --example grammar_compile -- FILE.gbnf VOCAB ROUNDS`.
//! A measurement to profile the compile under `perf`, not a test. Prints the file's size
//! and an FNV-1a hash of its bytes, to compare the output of two builds.

use std::time::Instant;

use fstc_core::vocab::VocabTrie;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what}: {e}");
    std::process::exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, vocab_path, rounds] = args.as_slice() else {
        eprintln!("usage: grammar_compile FILE.gbnf VOCAB ROUNDS");
        std::process::exit(2);
    };
    let rounds: usize = rounds.parse().unwrap_or_else(|e| fail(rounds, e));
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(path, e));
    let vocab =
        fstc_detok::Vocabulary::from_file(vocab_path).unwrap_or_else(|e| fail(vocab_path, e));
    let trie = VocabTrie::new(&vocab);
    let mut best = f64::MAX;
    let mut edges = 0;
    let mut file = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        let tpda = fstc_pda::GrammarCompiler::new()
            .compile_with_trie(&text, &trie)
            .unwrap_or_else(|e| fail(path, e))
            .automaton;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        edges = tpda.num_nodes();
        file = tpda.to_bytes();
    }
    let hash = (file.iter()).fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    println!(
        "{path}: fastest of {rounds} compiles {best:.1} ms ({edges} nodes, {} bytes, FNV-1a {hash:016x})",
        file.len()
    );
}
