//! What schema-free JSON (`--any-json`, `true`) costs at a nesting depth, compiled lazily
//! (the call network): compile time, then a walk token by token (a mask before each) of a
//! text nested to that depth, arrays and objects alternating, tokenized by the
//! vocabulary; peak memory of the process after each depth.
//!
//! Run: `cargo run --release -p fstc-json --example any_json_depth [VOCAB] [DEPTH...]`
//! (default: the GPT-2 fixture, depths 2 5 8 16 32 64).

use std::sync::Arc;
use std::time::Instant;

use fstc_core::matcher::Matcher;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, JsonSchemaCompiler};

/// `[{"k":[{"k":…1…}]}]` with `depth` containers.
fn nested(depth: usize) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for level in 0..depth {
        if level % 2 == 0 {
            open.push('[');
            close.insert(0, ']');
        } else {
            open.push_str("{\"k\": ");
            close.insert(0, '}');
        }
    }
    format!("{open}1{close}")
}

/// The process's peak resident memory in MiB (Linux), or 0.
fn peak_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:"));
    let kib = line.and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok());
    kib.unwrap_or(0) / 1024
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| testkit::vocabs::testdata("gpt2/encoder.json"));
    let mut depths: Vec<usize> = args.map(|a| a.parse()).collect::<Result<_, _>>()?;
    if depths.is_empty() {
        depths = vec![2, 5, 8, 16, 32, 64];
    }
    let vocab = fstc_detok::Vocabulary::from_file(&path)?;
    let trie = Arc::new(VocabTrie::new(&vocab));
    println!("vocabulary loaded: {} MiB peak", peak_mib());
    for depth in depths {
        let compiler = JsonSchemaCompiler::new().configure(Config::new().any_json_depth(depth));
        let started = Instant::now();
        let compiled = match compiler.compile_lazy("true", trie.clone()) {
            Ok(c) => c,
            Err(e) => {
                println!("depth {depth}: {e}");
                continue;
            }
        };
        let compile_ms = started.elapsed().as_secs_f64() * 1e3;
        let mut matcher = compiled.automaton.start_matcher();
        let mut mask = vec![0u32; matcher.mask_words()];
        let text = nested(depth);
        let tokens = vocab.tokenize(&text)?;
        let started = Instant::now();
        let mut worst = 0.0f64;
        for &t in &tokens {
            let step = Instant::now();
            matcher.fill_mask(&mut mask)?;
            worst = worst.max(step.elapsed().as_secs_f64() * 1e3);
            matcher.consume(t)?;
        }
        let walk_ms = started.elapsed().as_secs_f64() * 1e3;
        let deeper = compiler.compile_lazy("true", trie.clone())?;
        let mut m = deeper.automaton.start_matcher();
        let too_deep = vocab.tokenize(&nested(depth + 1))?;
        let refused = too_deep.iter().any(|&t| m.consume(t).is_err());
        println!(
            "depth {depth}: compile {compile_ms:.1} ms, walk of {} tokens {walk_ms:.1} ms \
             (slowest mask {worst:.2} ms), accepting {}, depth+1 refused {refused}, peak {} MiB",
            tokens.len(),
            matcher.is_accepting(),
            peak_mib()
        );
    }
    Ok(())
}
