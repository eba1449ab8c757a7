//! Times JSON Schema compiles stage by stage on a real vocabulary: the benchmark schemas
//! and the size targets of issue 11 point 5 (a 2,000-character `maxLength`, enums of
//! thousands of values, 40 optional properties, deep nesting), each within the default
//! limits. A measurement without peers (`benches/` compares with them); not a test.
//!
//! Run in release: `cargo run --release -p fstc-json --example json_timing [VOCAB] [REPS]`
//! (default: Llama 3 from `testkit::vocabs::shared_vocabs_dir`, 3 repetitions). Prints per
//! schema the regex length, byte DFA states, the fastest compile split into stages, the
//! token automaton's states and file bytes, and the process's peak resident memory so far
//! (Linux `VmHWM`). `ONLY=name` times one schema (for `perf record`); `WS=compact|pretty`
//! picks the whitespace style (default flexible).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};
use serde_json::{json, Value};

fn fail(message: &str) -> ! {
    eprintln!("json_timing: {message}");
    std::process::exit(2)
}

/// The benchmark schemas (`benches/inputs/json/`) and the size targets.
fn schemas() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/inputs/json");
    for name in ["json-small", "json-medium", "json-large"] {
        let path = dir.join(format!("{name}.schema.json"));
        match std::fs::read_to_string(&path) {
            Ok(text) => out.push((name.to_string(), serde_json::from_str(&text).unwrap())),
            Err(e) => eprintln!("json_timing: skipped {}: {e}", path.display()),
        }
    }
    out.push((
        "maxLength 2000".into(),
        json!({"type": "string", "maxLength": 2000}),
    ));
    out.push((
        "minLength 100 maxLength 2000".into(),
        json!({"type": "string", "minLength": 100, "maxLength": 2000}),
    ));
    for n in [1000, 5000] {
        // Distinct words: a base-26 counter spelled in letters, plus a suffix.
        let values: Vec<Value> = (0..n).map(|i| Value::String(word(i))).collect();
        out.push((format!("enum of {n} strings"), json!({ "enum": values })));
    }
    let properties: serde_json::Map<String, Value> = (0..40)
        .map(|i| (format!("field_{i}"), json!({"type": ["integer", "string"]})))
        .collect();
    out.push((
        "40 optional properties".into(),
        json!({"type": "object", "properties": properties, "additionalProperties": false}),
    ));
    let mut nested = json!({"type": "integer"});
    for i in 0..20 {
        nested = json!({
            "type": "object",
            "properties": {"level": {"const": i}, "child": nested, "note": {"type": "string"}},
            "required": ["child"],
            "additionalProperties": false
        });
    }
    out.push(("objects nested 20 deep".into(), nested));
    for (depth, max_items) in [(6, Some(4)), (12, None), (32, None)] {
        let mut arrays = json!({"type": "number"});
        for _ in 0..depth {
            arrays = match max_items {
                Some(m) => json!({"type": "array", "items": arrays, "maxItems": m}),
                None => json!({"type": "array", "items": arrays}),
            };
        }
        let bound = max_items.map_or("unbounded".to_string(), |m| format!("maxItems {m}"));
        out.push((format!("arrays nested {depth} deep, {bound}"), arrays));
    }
    out
}

/// A pseudo-random lowercase word of 4 to 12 letters ending in `i` spelled in base 26,
/// so distinct for distinct `i` (product names, identifiers: little shared structure).
fn word(i: usize) -> String {
    let mut state = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        state ^= state >> 29;
        state = state.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state >> 33
    };
    let len = 4 + next() % 9;
    let mut s: String = (0..len)
        .map(|_| (b'a' + (next() % 26) as u8) as char)
        .collect();
    let mut n = i;
    loop {
        s.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return s;
        }
    }
}

/// Peak resident memory of this process in MB (Linux), or `NaN`.
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1);
    let vocab_path = args
        .next()
        .map(PathBuf::from)
        .or_else(|| testkit::vocabs::shared_vocab_path("llama3/tokenizer.json"))
        .unwrap_or_else(|| fail("no vocabulary: pass a tokenizer file"));
    let reps: usize = match args.next().map(|r| r.parse()) {
        None => 3,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => fail("REPS must be a positive number"),
    };
    let whitespace = match std::env::var("WS").as_deref() {
        Ok("compact") => Whitespace::Compact,
        Ok("pretty") => Whitespace::Pretty { indent: 2 },
        Ok("flexible") | Err(_) => Whitespace::Flexible { max: 8 },
        Ok(other) => fail(&format!("unknown WS={other}")),
    };
    let only = std::env::var("ONLY").ok();
    let vocab = fstc_detok::Vocabulary::from_file(&vocab_path)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", vocab_path.display())));
    let trie = VocabTrie::new(&vocab);
    // The benchmark's json-large uses `format: uri`, which this crate refuses: lenient.
    let compiler = JsonSchemaCompiler::with_config(Config {
        whitespace,
        lenient: true,
        ..Config::default()
    });
    println!(
        "vocabulary: {} ({} ids), whitespace {whitespace:?}, fastest of {reps}",
        vocab_path.display(),
        vocab.len()
    );
    println!("| schema | regex bytes | byte DFA states | byte DFA ms | compose ms | layout ms | total ms | states | file bytes | warnings | peak RSS MB |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, schema) in schemas() {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let text = schema.to_string();
        let regex_len = compiler.to_regex(&text).map_or(0, |r| r.regex.len());
        let mut best: Option<(Duration, fstc_json::Compiled)> = None;
        for _ in 0..reps {
            let started = Instant::now();
            match compiler.compile_with_trie(&text, &trie) {
                Ok(compiled) => {
                    let took = started.elapsed();
                    if best.as_ref().map_or(true, |(b, _)| took < *b) {
                        best = Some((took, compiled));
                    }
                }
                Err(e) => {
                    println!("| {name} | {regex_len} | error: {e} |");
                    break;
                }
            }
        }
        let Some((total, compiled)) = best else {
            continue;
        };
        let s = &compiled.stats;
        println!(
            "| {name} | {regex_len} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} | {} | {:.0} |",
            s.byte_dfa_states,
            ms(s.byte_dfa_time),
            ms(s.compose_time),
            ms(s.layout_time),
            ms(total),
            compiled.automaton.num_states(),
            compiled.automaton.to_bytes().len(),
            compiled.warnings.len(),
            peak_rss_mb()
        );
    }
}
