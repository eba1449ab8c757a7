//! Mask CPU time at every step of the corpus's instances, in one process as the corpus
//! bench's worker runs them (schemas in manifest order, so process-wide walks carry over):
//! how many masks pass 2 µs and 50 µs, and which steps are the slowest.
//!
//! Run: `cargo run --release -p fstc-json --example corpus_masks -- VOCAB CORPUS_DIR [N]`
//! where CORPUS_DIR is `benches/corpus` after `extract.py` and `instances.py` (it reads
//! `manifest.json`, `schemas/ID.json`, `instances/ID.json`); N limits the schemas.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fstc_core::matcher::Matcher;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};

#[path = "common/cpu.rs"]
mod cpu;
use cpu::thread_cpu_ns;

/// One timed mask: its CPU time, the schema and the text before it.
struct Step {
    ns: u64,
    schema: String,
    before: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: VOCAB CORPUS_DIR [N]";
    let vocab = fstc_detok::Vocabulary::from_file(PathBuf::from(args.next().ok_or(usage)?))?;
    let dir = PathBuf::from(args.next().ok_or(usage)?);
    let limit: usize = args.next().map_or(Ok(usize::MAX), |n| n.parse())?;
    let trie = Arc::new(VocabTrie::new(&vocab));
    let compiler =
        JsonSchemaCompiler::new().configure(Config::new().whitespace(Whitespace::Compact));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json"))?)?;
    let mut steps = Vec::new();
    let ids = manifest.as_array().ok_or("manifest: not a list")?;
    for id in ids.iter().filter_map(|e| e["id"].as_str()).take(limit) {
        let Some(texts) = instances(&dir, id) else {
            continue;
        };
        let schema = std::fs::read_to_string(dir.join("schemas").join(format!("{id}.json")))?;
        let Ok(compiled) = compiler.compile_lazy(&schema, Arc::clone(&trie)) else {
            continue;
        };
        for text in texts {
            let tokens = vocab.tokenize(&text)?;
            let mut matcher = compiled.automaton.start_matcher();
            let mut mask = vec![0u32; matcher.mask_words()];
            let mut done = Vec::new();
            for &token in tokens.iter().chain(std::iter::once(&u32::MAX)) {
                let before = thread_cpu_ns().unwrap_or(0);
                matcher.fill_mask(&mut mask)?;
                let ns = thread_cpu_ns().unwrap_or(0).saturating_sub(before);
                steps.push(Step {
                    ns,
                    schema: id.to_string(),
                    before: tail(&done, 30),
                });
                if token == u32::MAX || matcher.consume(token).is_err() {
                    break;
                }
                done.extend(vocab.detokenize(&[token]));
            }
        }
    }
    report(&mut steps);
    Ok(())
}

/// The instance texts of schema `id`, if it has any.
fn instances(dir: &Path, id: &str) -> Option<Vec<String>> {
    let path = dir.join("instances").join(format!("{id}.json"));
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let texts: Vec<String> = (list.as_array()?.iter())
        .filter_map(|e| e["text"].as_str().map(String::from))
        .take(3)
        .collect();
    (!texts.is_empty()).then_some(texts)
}

fn report(steps: &mut [Step]) {
    let mut ns: Vec<u64> = steps.iter().map(|s| s.ns).collect();
    ns.sort_unstable();
    let pct = |p: f64| ns[((ns.len() - 1) as f64 * p / 100.0).round() as usize] as f64 / 1e3;
    println!(
        "{} masks: CPU p50 {:.1} µs, p90 {:.1}, p99 {:.1}, p99.9 {:.1}, max {:.1}; over 2 µs {}, over 50 µs {}; total {:.1} ms",
        ns.len(),
        pct(50.0),
        pct(90.0),
        pct(99.0),
        pct(99.9),
        pct(100.0),
        ns.iter().filter(|&&n| n > 2_000).count(),
        ns.iter().filter(|&&n| n > 50_000).count(),
        ns.iter().sum::<u64>() as f64 / 1e6,
    );
    steps.sort_by_key(|s| std::cmp::Reverse(s.ns));
    for s in steps.iter().take(40) {
        println!(
            "{:9.1} µs  {:<40} {:?}",
            s.ns as f64 / 1e3,
            s.schema,
            s.before
        );
    }
}

fn tail(bytes: &[u8], n: usize) -> String {
    String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(n)..]).into_owned()
}
