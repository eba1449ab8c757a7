//! `fill_mask` and `consume` times of the GLR walker on a nondeterministic grammar:
//! `cargo run --release -p fstc-pda --example glr_masks -- FILE.gbnf VOCAB [WALKS]`.
//!
//! Compiles the grammar for the vocabulary (time: best of three), then takes `WALKS`
//! (default 20) random walks of 200 tokens, each steered to nest at least 10 brackets deep
//! first, and replays each walk five times, timing every step's `fill_mask` and `consume`
//! (each step's fastest pass, as the bench does). Prints p50/p99/max and the live
//! configurations per step: a measurement for a person, not a test.

use std::time::{Duration, Instant};

use fstc_core::glr_walker::GlrWalker;
use fstc_core::matcher::Matcher;
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
    let (Some(path), Some(vocab_path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: glr_masks FILE.gbnf VOCAB [WALKS]");
        std::process::exit(2);
    };
    let walks: usize = args.get(2).map_or(20, |w| w.parse().unwrap_or(20));
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(path, e));
    let vocab =
        fstc_detok::Vocabulary::from_file(vocab_path).unwrap_or_else(|e| fail(vocab_path, e));
    let trie = VocabTrie::new(&vocab);
    let compiler = fstc_pda::GrammarCompiler::new();
    let mut best = Duration::MAX;
    let mut tpda = None;
    for _ in 0..3 {
        let start = Instant::now();
        let compiled = compiler
            .compile_with_trie(&text, &trie)
            .unwrap_or_else(|e| fail(path, e));
        best = best.min(start.elapsed());
        tpda = Some(compiled.automaton);
    }
    let tpda = tpda.expect("compiled three times");
    println!(
        "{path} on {vocab_path}: compile best of 3 {:.1} ms; {} nodes, {} edges, deterministic: {}",
        best.as_secs_f64() * 1e3,
        tpda.num_nodes(),
        tpda.num_edges(),
        tpda.is_deterministic()
    );
    let mut rng = SplitMix64::new(7);
    let (mut masks, mut consumes) = (Vec::new(), Vec::new());
    let (mut configs, mut points) = (Vec::new(), Vec::new());
    let mut deep = 0;
    for _ in 0..walks {
        let (tokens, depth) = random_walk(&tpda, &vocab, &mut rng);
        deep += usize::from(depth >= 10);
        let (m, c, k, p) = replay(&tpda, &tokens);
        points.extend(p);
        masks.extend(m);
        consumes.extend(c);
        configs.extend(k);
    }
    report("fill_mask us", masks.iter().map(|d| d.as_secs_f64() * 1e6));
    report("consume us", consumes.iter().map(|d| d.as_secs_f64() * 1e6));
    report("configurations", configs.iter().map(|&c| c as f64));
    report("chain points", points.iter().map(|&c| c as f64));
    println!("  {deep} of {walks} walks nested 10 brackets deep");
}

fn report(what: &str, values: impl Iterator<Item = f64>) {
    let mut v: Vec<f64> = values.collect();
    if v.is_empty() {
        return;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q) as usize];
    println!(
        "  {what} over {} steps: p50 {:.2}, p99 {:.2}, max {:.2}",
        v.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

/// Whether a token's bytes are opening brackets and spaces only, with one bracket at least.
fn opens(vocab: &fstc_detok::Vocabulary, t: u32) -> bool {
    vocab.token_bytes(t).is_some_and(|b| {
        b.iter().any(|c| b"([{".contains(c)) && b.iter().all(|c| b"([{ \n".contains(c))
    })
}

/// A random walk of up to 200 text tokens, opening brackets first until 10 are open; the
/// tokens and the deepest bracket nesting.
fn random_walk(
    tpda: &TokenPda,
    vocab: &fstc_detok::Vocabulary,
    rng: &mut SplitMix64,
) -> (Vec<u32>, usize) {
    let mut w = GlrWalker::new(tpda);
    let mut mask = vec![0u32; w.mask_words()];
    let (mut tokens, mut depth, mut deepest) = (Vec::new(), 0usize, 0usize);
    for _ in 0..200 {
        w.fill_mask(&mut mask).expect("wide enough");
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
        let t = if deepest < 10 && !openers.is_empty() {
            openers[rng.index(openers.len())]
        } else {
            allowed[rng.index(allowed.len())]
        };
        if w.consume(t).is_err() {
            break;
        }
        for &b in vocab.token_bytes(t).unwrap_or(&[]) {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        deepest = deepest.max(depth);
        tokens.push(t);
    }
    (tokens, deepest)
}

/// What [`replay`] measured per step.
type Replayed = (Vec<Duration>, Vec<Duration>, Vec<usize>, Vec<usize>);

/// Each step's fastest `fill_mask` and `consume` over five replays of `tokens`, and the live
/// configurations and chain points before each step.
fn replay(tpda: &TokenPda, tokens: &[u32]) -> Replayed {
    let mut masks = vec![Duration::MAX; tokens.len()];
    let mut consumes = vec![Duration::MAX; tokens.len()];
    let mut configs = vec![0; tokens.len()];
    let mut points = vec![0; tokens.len()];
    let mut w = GlrWalker::new(tpda);
    let mut mask = vec![0u32; w.mask_words()];
    for _ in 0..5 {
        w.reset();
        for (i, &t) in tokens.iter().enumerate() {
            configs[i] = w.num_configurations();
            points[i] = w.num_chain_points();
            let start = Instant::now();
            w.fill_mask(&mut mask).expect("wide enough");
            masks[i] = masks[i].min(start.elapsed());
            let start = Instant::now();
            w.consume(t).expect("replayed");
            consumes[i] = consumes[i].min(start.elapsed());
        }
    }
    (masks, consumes, configs, points)
}
