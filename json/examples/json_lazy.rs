//! A JSON Schema compiled for lazy matching, next to the eager compile: what a server
//! compiling one schema per request would do. Walks a valid instance token by token,
//! printing when each state was first composed (cold) and a warm mask afterwards.
//!
//! Run: `cargo run --release -p fstc-json --example json_lazy [VOCAB]` (default: the GPT-2
//! fixture in `testdata/`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use fstc_core::matcher::Matcher;
use fstc_core::vocab::VocabTrie;
use fstc_json::{JsonSchemaCompiler, Whitespace};

const SCHEMA: &str = r#"{"type": "object",
 "properties": {"location": {"type": "string", "minLength": 1, "maxLength": 40},
                "unit": {"enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 14}},
 "required": ["location"], "additionalProperties": false}"#;

const INSTANCE: &str = r#"{"location":"Oslo","unit":"celsius","days":3}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| testkit::vocabs::testdata("gpt2/encoder.json"));
    let vocab = fstc_detok::Vocabulary::from_file(&path)?;
    let trie = Arc::new(VocabTrie::new(&vocab));
    let compiler = JsonSchemaCompiler::new().whitespace(Whitespace::Compact);

    let started = Instant::now();
    let eager = compiler.compile_with_trie(SCHEMA, &trie)?;
    let eager_time = started.elapsed();
    let started = Instant::now();
    let lazy = compiler.compile_lazy(SCHEMA, trie.clone())?;
    let lazy_time = started.elapsed();
    println!(
        "eager compile: {:.2} ms ({} states); lazy compile: {:.2} ms (byte DFA of {} states, none composed)",
        eager_time.as_secs_f64() * 1e3,
        eager.automaton.num_states(),
        lazy_time.as_secs_f64() * 1e3,
        lazy.byte_dfa_states
    );

    let mut matcher = lazy.automaton.start_matcher();
    let mut mask = vec![0u32; matcher.mask_words()];
    let tokens = vocab.tokenize(INSTANCE)?;
    let mut cold_max = 0.0f64;
    for (i, &t) in tokens.iter().enumerate() {
        let started = Instant::now();
        matcher.fill_mask(&mut mask)?;
        let us = started.elapsed().as_secs_f64() * 1e6;
        cold_max = cold_max.max(us);
        if i == 0 {
            println!("first mask: {us:.1} µs");
        }
        matcher.consume(t)?;
    }
    assert!(matcher.is_accepting());
    println!(
        "walked {} tokens of {INSTANCE}: {} states composed, slowest (cold) mask {cold_max:.1} µs",
        tokens.len(),
        lazy.automaton.num_cached_states()
    );
    matcher.reset();
    let started = Instant::now();
    matcher.fill_mask(&mut mask)?;
    println!(
        "warm mask at the start: {:.2} µs",
        started.elapsed().as_secs_f64() * 1e6
    );
    Ok(())
}
