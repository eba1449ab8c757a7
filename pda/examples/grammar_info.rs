//! Compiles a grammar file and prints what it became, or the error:
//! `cargo run --release -p fstc-pda --example grammar_info -- FILE.gbnf [VOCAB ...]`.
//!
//! With tokenizers, also composes the token PDA for each and prints its size, the compile
//! time (best of three) and `fill_mask` times through fstc-core's `PdaWalker` (the
//! `Matcher`) along 20 walks of 200 tokens that first nest at least 10 deep (tokens of
//! opening brackets taken until the stack holds 10 return addresses): a measurement
//! for a person, not a test.

use std::time::{Duration, Instant};

use fstc_core::matcher::Matcher;
use fstc_core::pda_walker::PdaWalker;
use fstc_core::sample::SplitMix64;
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what}: {e}");
    std::process::exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: grammar_info FILE.gbnf [VOCAB ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(path, e));
    let start = Instant::now();
    let pda = fstc_pda::Pda::from_gbnf(&text).unwrap_or_else(|e| fail(path, e));
    println!(
        "{path}: byte PDA with {} states, {} edges, {} stack symbols ({:.2} ms)",
        pda.num_states(),
        pda.num_edges(),
        pda.num_stack_symbols(),
        start.elapsed().as_secs_f64() * 1e3
    );
    for vocab_path in &args[1..] {
        let vocab =
            fstc_detok::Vocabulary::from_file(vocab_path).unwrap_or_else(|e| fail(vocab_path, e));
        let trie = VocabTrie::new(&vocab);
        let compiler = fstc_pda::GrammarCompiler::new();
        let mut best = Duration::MAX;
        let mut parts = None;
        for _ in 0..3 {
            let start = Instant::now();
            parts = Some(
                compiler
                    .compile_with_trie(&text, &trie)
                    .unwrap_or_else(|e| fail(vocab_path, e)),
            );
            best = best.min(start.elapsed());
        }
        let parts = parts.expect("compiled three times");
        let (nodes, edges, pops, classes) = (
            parts.accepting.len(),
            parts.edges.iter().map(Vec::len).sum::<usize>(),
            parts.pops.iter().map(Vec::len).sum::<usize>(),
            parts.num_classes,
        );
        let tpda = TokenPda::from_parts(parts).unwrap_or_else(|e| fail(vocab_path, e));
        println!(
            "{vocab_path}: {} ids; compile {:.1} ms (grammar text to parts, best of 3); {nodes} nodes, {edges} class edges, {pops} pop edges, {classes} classes; file {} bytes",
            vocab.len(),
            best.as_secs_f64() * 1e3,
            tpda.to_bytes().len()
        );
        let (states, unions) = tpda.pop_closure_size();
        println!("  pop closure: {states} states, {unions} dense union masks");
        mask_times(&tpda, &vocab);
    }
}

/// Whether a token's text is opening brackets and spaces only (to steer walks deep).
fn opens(vocab: &fstc_detok::Vocabulary, t: u32) -> bool {
    vocab.token_bytes(t).is_some_and(|b| {
        b.iter().any(|c| b"([{".contains(c)) && b.iter().all(|c| b"([{ \n".contains(c))
    })
}

/// `fill_mask` times along 20 walks of 200 tokens, each nesting at least 10 deep first.
fn mask_times(tpda: &TokenPda, vocab: &fstc_detok::Vocabulary) {
    let mut rng = SplitMix64::new(7);
    let mut times: Vec<Duration> = Vec::new();
    let (mut chains, mut denses, mut classes) = (Vec::new(), Vec::new(), Vec::new());
    let (mut deepest, mut deep_walks) = (0, 0);
    let mut w = PdaWalker::new(tpda);
    let mut mask = vec![0u32; w.mask_words()];
    for _ in 0..20 {
        w.reset();
        let mut walk_depth = 0;
        for _ in 0..200 {
            let start = Instant::now();
            w.fill_mask(&mut mask).expect("wide enough");
            times.push(start.elapsed());
            let (c, d, k) = chain_cost(tpda, &w);
            chains.push(c);
            denses.push(d);
            classes.push(k);
            let allowed: Vec<u32> = (0..tpda.vocab_size())
                .filter(|&t| mask[t as usize / 32] >> (t % 32) & 1 == 1 && !tpda.is_eos(t))
                .collect();
            if allowed.is_empty() {
                break;
            }
            let openers: Vec<u32> = allowed
                .iter()
                .copied()
                .filter(|&t| opens(vocab, t))
                .collect();
            let t = if walk_depth < 10 && !openers.is_empty() {
                openers[rng.index(openers.len())]
            } else {
                allowed[rng.index(allowed.len())]
            };
            w.consume(t).expect("allowed");
            walk_depth = walk_depth.max(w.stack().len());
        }
        deepest = deepest.max(walk_depth);
        deep_walks += usize::from(walk_depth >= 10);
    }
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
    println!(
        "  fill_mask over {} steps: p50 {:.2} us, p99 {:.2} us, max {:.2} us; {deep_walks} of 20 walks reached stack depth 10 (deepest {deepest})",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
    for (what, mut v) in [
        ("chain nodes", chains),
        ("dense masks", denses),
        ("sparse mask words", classes),
    ] {
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q) as usize];
        println!(
            "  {what} per step: p50 {}, p99 {}, max {}",
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
}

/// The pop chain of the walker's configuration (read through the public interface): its
/// length, how many of its nodes have a dense mask, and how many class edges the others
/// have, which is what `fill_mask` ORs.
fn chain_cost(tpda: &TokenPda, w: &PdaWalker<'_>) -> (usize, usize, usize) {
    let mut node = w.node();
    let mut stack = w.stack();
    let (mut len, mut dense, mut sparse) = (0, 0, 0);
    loop {
        len += 1;
        match tpda.dense_node_mask(node) {
            Some(_) => dense += 1,
            None => {
                sparse += tpda
                    .edges(node)
                    .map(|(c, _, _)| tpda.class_mask_words(c).len() / 2)
                    .sum::<usize>()
            }
        }
        let Some(next) = stack.pop().and_then(|s| tpda.pop_target(node, s)) else {
            break;
        };
        node = next;
    }
    (len, dense, sparse)
}
