//! Times `Walker::fill_mask` on real vocabularies: every state of each automaton, and every
//! step of seeded random walks, into a full-width caller mask. Also reports the file size
//! and how long `from_bytes` (validation included) takes. `VOCAB=llama2` narrows the run.
//!
//! Run in release: `cargo run --release -p fstc-core --example mask_timing [VOCABS_DIR]`
//! (default: `testkit::vocabs::shared_vocabs_dir`); `-- --calibrate` instead times one
//! synthetic state per edge count, the measurement behind the dense mask threshold. Timings are per call, so each one
//! includes an `Instant::now` pair (~20-40 ns); on a busy machine the max also catches
//! preemptions, which is why the max of per-state medians is printed beside it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fstc_core::automaton::{AutomatonParts, TokenAutomaton};
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::walker::Walker;
use fstc_regex::RegexCompiler;

#[path = "shared/patterns.rs"]
mod patterns;
use patterns::PATTERNS;

/// Calls per state when timing every state.
const REPS_PER_STATE: usize = 21;
/// Back-to-back fills per state in the loop-timed pass.
const LOOP_FILLS: usize = 200;
/// Random walks per automaton and their length bound.
const WALKS: usize = 200;
const WALK_LEN: usize = 64;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Times one `fill_mask` call.
fn time_fill<W: AsRef<[u32]>>(w: &Walker<'_, W>, mask: &mut [u32]) -> Duration {
    let t = Instant::now();
    w.fill_mask(mask).expect("mask is wide enough");
    let d = t.elapsed();
    std::hint::black_box(&mask);
    d
}

fn report(label: &str, mut samples: Vec<Duration>, medians_max: Option<Duration>) {
    samples.sort_unstable();
    let extra = medians_max
        .map(|m| format!("  max-of-state-medians {:7.2}", us(m)))
        .unwrap_or_default();
    let over = samples
        .iter()
        .filter(|&&d| d > Duration::from_micros(25))
        .count();
    println!(
        "    {label:<6} n={:<7} p50 {:7.2}  p99 {:7.2}  max {:7.2} us  >25us {over}{extra}",
        samples.len(),
        us(percentile(&samples, 0.5)),
        us(percentile(&samples, 0.99)),
        us(*samples.last().unwrap_or(&Duration::ZERO)),
    );
}

fn measure<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, mask_words: usize) {
    let mut mask = vec![0u32; mask_words];
    // A walker in every reachable state, reached by a shortest path from the start.
    let walkers: Vec<Walker<'_, W>> = (0..a.num_states())
        .filter_map(|s| {
            let mut w = Walker::new(a);
            w.consume_tokens(&a.shortest_path_to(s)?)
                .expect("path follows edges");
            Some(w)
        })
        .collect();
    // Every state.
    let mut samples = Vec::with_capacity(walkers.len() * REPS_PER_STATE);
    let mut medians_max = Duration::ZERO;
    for w in &walkers {
        let mut mine: Vec<Duration> = (0..REPS_PER_STATE)
            .map(|_| time_fill(w, &mut mask))
            .collect();
        mine.sort_unstable();
        medians_max = medians_max.max(mine[mine.len() / 2]);
        samples.extend(mine);
    }
    report("states", samples, Some(medians_max));
    // Every state again, timed over back-to-back fills: no clock read per call, so
    // differences of a few ns (per class, per word) show.
    let mut best = f64::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        for w in &walkers {
            for _ in 0..LOOP_FILLS {
                w.fill_mask(&mut mask).expect("mask is wide enough");
                std::hint::black_box(&mut mask);
            }
        }
        let per_fill = started.elapsed().as_secs_f64() * 1e9 / (walkers.len() * LOOP_FILLS) as f64;
        best = best.min(per_fill);
    }
    println!("    loop   mean over states, {LOOP_FILLS} back-to-back fills each (best of 5): {best:.0} ns");
    // Random walks: fill, then consume the walk's next token, as a decoder does.
    let mut rng = SplitMix64::new(0x5eed);
    let mut samples = Vec::new();
    for _ in 0..WALKS {
        let walk = random_walk(a, &mut rng, WALK_LEN);
        let mut w = Walker::new(a);
        for &t in &walk.tokens {
            samples.push(time_fill(&w, &mut mask));
            w.consume(t).expect("walk follows edges");
        }
        samples.push(time_fill(&w, &mut mask));
    }
    report("walks", samples, None);
}

/// Median `fill_mask` time, warm and cold cache, at the start state of a one-state
/// automaton over `vocab` tokens whose start state has `edges` random edges (no EOS).
fn single_state_fill(vocab: u32, edges: usize, rng: &mut SplitMix64) -> (bool, Duration, Duration) {
    let mut tokens: Vec<u32> = (0..vocab).collect();
    for i in 0..edges {
        let j = i + rng.below((tokens.len() - i) as u64) as usize;
        tokens.swap(i, j);
    }
    let a = TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: vocab,
        vocab_fingerprint: 0,
        eos_ids: vec![],
        start: 0,
        accepting: vec![false],
        edges: vec![tokens[..edges].iter().map(|&t| (t, 0)).collect()],
        terminals: Vec::new(),
    })
    .expect("valid parts");
    let w = Walker::new(&a);
    let mut mask = vec![0u32; (vocab as usize).div_ceil(32)];
    let mut times: Vec<Duration> = (0..501).map(|_| time_fill(&w, &mut mask)).collect();
    times.sort_unstable();
    // Cold: a decoder's forward pass runs between two fills and evicts the caches.
    let mut evict = vec![0u8; 64 << 20];
    let mut cold: Vec<Duration> = (0..31u8)
        .map(|i| {
            evict
                .iter_mut()
                .step_by(64)
                .for_each(|b| *b = b.wrapping_add(i));
            std::hint::black_box(&evict);
            time_fill(&w, &mut mask)
        })
        .collect();
    cold.sort_unstable();
    (
        a.dense_mask(0).is_some(),
        times[times.len() / 2],
        cold[cold.len() / 2],
    )
}

/// How the sparse path's cost grows with edges and what the dense copy costs, at the
/// Llama 3 width: the data behind `format::DENSE_WORDS_PER_TOKEN`.
fn calibrate() {
    let vocab = 128_256;
    let mut rng = SplitMix64::new(1);
    println!("calibration at vocab_size {vocab} (median of 501 warm, 31 cold calls):");
    for edges in [0, 64, 128, 256, 400, 500, 501, 1000, 4000, 50_000, 120_000] {
        let (dense, warm, cold) = single_state_fill(vocab, edges, &mut rng);
        println!(
            "    {edges:>6} edges: {} warm {:6.3} us  cold {:6.3} us",
            if dense { "dense " } else { "sparse" },
            us(warm),
            us(cold)
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--calibrate") {
        calibrate();
        return Ok(());
    }
    let Some(dir) = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .or_else(testkit::vocabs::shared_vocabs_dir)
    else {
        println!("no vocabularies: pass a folder, set $FSTC_VOCABS or add ../shared/vocabs");
        return Ok(());
    };
    let only = std::env::var("VOCAB").ok();
    for (family, file) in testkit::vocabs::SHARED_VOCABS {
        if only.as_deref().is_some_and(|v| v != family) {
            continue;
        }
        let path = dir.join(file);
        if !path.exists() {
            println!("skipping {family}: {} not found", path.display());
            continue;
        }
        let vocab = fstc_detok::Vocabulary::from_file(&path)?;
        let vocab_size = fstc_core::TokenVocabulary::len(&vocab);
        // A decoder's logits row is often wider than the tokenizer (Qwen 3: 151,936):
        // round up to a multiple of 128 tokens so the zeroed tail is exercised.
        let mask_words = vocab_size.div_ceil(128) * 4;
        println!("{family}: {vocab_size} tokens, mask of {mask_words} words");
        for (name, pattern) in PATTERNS {
            let compiled = RegexCompiler::new().compile(pattern, &vocab)?;
            let bytes = compiled.to_bytes();
            let max_out = (0..compiled.num_states())
                .map(|s| compiled.num_token_edges(s))
                .max()
                .unwrap_or(0);
            // Load time: best of a few, zero-copy from an aligned buffer.
            let words: Vec<u32> = compiled.as_words().to_vec();
            let aligned: &[u8] = bytemuck::cast_slice(&words);
            let mut load = Duration::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                let loaded = TokenAutomaton::from_bytes(aligned)?;
                load = load.min(t.elapsed());
                std::hint::black_box(&loaded);
            }
            let loaded = TokenAutomaton::from_bytes(aligned)?;
            let dense_states = (0..compiled.num_states())
                .filter(|&s| compiled.dense_mask(s).is_some())
                .count();
            println!(
                "  {name:<8} states {:>3} edges {:>7} max-out {:>6}  file {:>9} bytes  from_bytes {:7.3} ms  dense states {dense_states} masks {}",
                compiled.num_states(),
                compiled.num_edges(),
                max_out,
                bytes.len(),
                load.as_secs_f64() * 1e3,
                compiled.num_dense_masks(),
            );
            measure(&loaded, mask_words);
        }
    }
    Ok(())
}
