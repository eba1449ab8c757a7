//! Compiles a GBNF file and prints what it became, or the error:
//! `cargo run -p pda --example grammar_info -- FILE.gbnf [tokenizer.json]`.
//!
//! With a tokenizer, also composes the token PDA and prints its size, the compose time and
//! `fill_mask` times along random walks (a measurement for a person, not a test).

use std::time::Instant;

use fst_core::sample::SplitMix64;
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
    let start = Instant::now();
    let tpda = match pda::compose(&pda, &vocab, &pda::ComposeLimits::default()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{vocab_path}: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "token PDA over {} tokens: {} states, {} edges ({:.1} ms)",
        vocab.len(),
        tpda.num_states(),
        tpda.num_edges(),
        start.elapsed().as_secs_f64() * 1e3
    );
    mask_times(&tpda, &vocab);
}

/// `fill_mask` times (ns) along 20 random walks of up to 200 tokens.
fn mask_times(tpda: &pda::TokenPda, vocab: &detok::Vocabulary) {
    let mut rng = SplitMix64::new(1);
    let mut mask = vec![0u32; (tpda.vocab_size() as usize).div_ceil(32)];
    let mut times = Vec::new();
    let mut depth = 0;
    for _ in 0..20 {
        let (mut state, mut stack) = (tpda.start(), tpda.initial_stack());
        for _ in 0..200 {
            let t0 = Instant::now();
            tpda.fill_mask(state, &stack, &mut mask);
            times.push(t0.elapsed().as_nanos() as u64);
            let allowed: Vec<u32> = (0..vocab.len() as u32)
                .filter(|&t| {
                    mask[t as usize / 32] >> (t % 32) & 1 == 1 && !tpda.eos_ids().contains(&t)
                })
                .collect();
            if allowed.is_empty() {
                break;
            }
            state = tpda
                .step(state, &mut stack, allowed[rng.index(allowed.len())])
                .unwrap();
            depth = depth.max(stack.len());
        }
    }
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize] as f64 / 1e3;
    println!(
        "fill_mask over {} steps (max stack depth {depth}): p50 {:.2} us, p99 {:.2} us, max {:.2} us",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
