//! Mask time at every step of texts walked through a schema's lazy automaton: where a
//! request's cold masks go (each step's first mask is a cold state's composition).
//!
//! Run: `cargo run --release -p fstc-json --example lazy_steps -- VOCAB SCHEMA TEXT...`
//! (a TEXT starting with `@` is read from that file, one text per line). Each step prints
//! its wall time and its thread's CPU time (what counts on a loaded machine).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use fstc_core::matcher::Matcher;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};

#[path = "common/cpu.rs"]
mod cpu;
use cpu::thread_cpu_ns;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: VOCAB SCHEMA TEXT...";
    let vocab = fstc_detok::Vocabulary::from_file(PathBuf::from(args.next().ok_or(usage)?))?;
    let schema = std::fs::read_to_string(args.next().ok_or(usage)?)?;
    let trie = Arc::new(VocabTrie::new(&vocab));
    let compiler =
        JsonSchemaCompiler::new().configure(Config::new().whitespace(Whitespace::Compact));
    let started = Instant::now();
    let compiled = compiler.compile_lazy(&schema, trie)?;
    println!("compile: {:.2} ms", started.elapsed().as_secs_f64() * 1e3);
    let mut texts = Vec::new();
    for arg in args {
        match arg.strip_prefix('@') {
            Some(path) => texts.extend(std::fs::read_to_string(path)?.lines().map(String::from)),
            None => texts.push(arg),
        }
    }
    for text in texts {
        let tokens = vocab.tokenize(&text)?;
        let mut matcher = compiled.automaton.start_matcher();
        let mut mask = vec![0u32; matcher.mask_words()];
        let mut done = Vec::new();
        for (i, &token) in tokens.iter().enumerate() {
            let (t, cpu) = (Instant::now(), thread_cpu_ns());
            matcher.fill_mask(&mut mask)?;
            let us = t.elapsed().as_secs_f64() * 1e6;
            let cpu_us = thread_cpu_ns().zip(cpu).map(|(b, a)| (b - a) as f64 / 1e3);
            let cpu_us = cpu_us.map_or("-".to_string(), |c| format!("{c:.0}"));
            println!("{us:10.1} us {cpu_us:>8} cpu  {:?}", tail(&done, 40));
            if let Err(e) = matcher.consume(token) {
                println!("rejected at token {i}: {e}");
                break;
            }
            done.extend(vocab.detokenize(&[token]));
        }
    }
    Ok(())
}

fn tail(bytes: &[u8], n: usize) -> String {
    String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(n)..]).into_owned()
}
