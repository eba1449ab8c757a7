//! Compile time, time to first mask and mask times of structural tags with 1, 8, 32 and
//! 128 tools (Qwen-style `<tool_call>` in free text, a realistic schema per tool), eager
//! and lazy, on Llama 3 (../shared/vocabs, else GPT-2 from testdata). Masks are timed
//! along a transcript that goes text → call → text. No peers: benches/ compares those.
//!
//! `cargo run --release -p fstc-tags --example tools_timing` (`TOOLS=8,32` narrows it;
//! eager compiles run up to `EAGER_MAX` tools, default 32: past that they take minutes).
//! The byte DFA state limit is raised to 1,000,000 (the default 100,000 holds ~32 eager
//! tools). A lazy compile (the call network) runs `REPEAT` times (default 5): the median
//! wall time, and the mean CPU time of the thread (Linux's schedstat, so a loaded machine
//! does not inflate it; it is counted in scheduler ticks, hence the mean); `PHASES=1`
//! prints its phases.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fstc_core::matcher::Matcher;
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::Walker;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_json::{Config, Whitespace};
use fstc_tags::{StructuralTag, StructuralTagCompiler};
use serde_json::{json, Value};

/// Tool `i`'s JSON Schema: strings, an enum, bounded integers, a flag, a list, a nested object.
fn tool_schema(i: usize) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert("query".into(), json!({"type": "string", "maxLength": 200}));
    properties.insert(
        format!("mode_{i}"),
        json!({"enum": ["fast", "exact", format!("m{i}")]}),
    );
    properties.insert(
        "limit".into(),
        json!({"type": "integer", "minimum": 1, "maximum": 100 + i}),
    );
    properties.insert("verbose".into(), json!({"type": "boolean"}));
    properties.insert(
        "tags".into(),
        json!({"type": "array", "items": {"type": "string"}, "maxItems": 5}),
    );
    properties.insert(
        "range".into(),
        json!({"type": "object", "properties": {"from": {"type": "string", "format": "date"},
               "to": {"type": "string", "format": "date"}}, "required": ["from"],
               "additionalProperties": false}),
    );
    json!({"type": "object", "properties": properties, "required": ["query", format!("mode_{i}")],
           "additionalProperties": false})
}

fn spec(tools: usize) -> String {
    let tags: Vec<Value> = (0..tools)
        .map(|i| {
            json!({"type": "tag",
                   "begin": format!("<tool_call>\n{{\"name\": \"tool_{i}\", \"arguments\": "),
                   "content": {"type": "json_schema", "json_schema": tool_schema(i)},
                   "end": "}\n</tool_call>"})
        })
        .collect();
    json!({"type": "structural_tag", "format": {"type": "triggered_tags",
           "triggers": ["<tool_call>"], "tags": tags}})
    .to_string()
}

const TRANSCRIPT: &str = "Let me look that up for you. <tool_call>\n{\"name\": \"tool_0\", \"arguments\": \
    {\"query\":\"weather in Paris\",\"mode_0\":\"fast\",\"limit\":3,\"tags\":[\"a\",\"b\"]}}\n</tool_call>\n\
    The call is on its way; I will report back.";

/// Mask times along the transcript's tokens (p50, p99, max).
fn masks(matcher: &mut dyn Matcher, tokens: &[u32]) -> (Duration, Duration, Duration) {
    let mut mask = vec![0u32; (matcher.vocab_size() as usize).div_ceil(32)];
    let mut times = Vec::with_capacity(tokens.len());
    for &t in tokens {
        let started = Instant::now();
        matcher.fill_mask(&mut mask).unwrap();
        times.push(started.elapsed());
        matcher.consume(t).unwrap();
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), *times.last().unwrap())
}

fn main() {
    let (vocab, name) = match testkit::vocabs::shared_vocab("llama3/tokenizer.json") {
        Some(v) => (v, "llama3"),
        None => (
            Vocabulary::from_file(testkit::vocabs::testdata("gpt2/encoder.json")).unwrap(),
            "gpt2",
        ),
    };
    let trie = Arc::new(VocabTrie::new(&vocab));
    let tokens = vocab.tokenize(TRANSCRIPT).unwrap();
    let counts: Vec<usize> = std::env::var("TOOLS")
        .map(|s| s.split(',').map(|n| n.parse().unwrap()).collect())
        .unwrap_or(vec![1, 8, 32, 128]);
    let eager_max: usize = std::env::var("EAGER_MAX").map_or(32, |s| s.parse().unwrap());
    let repeat: u32 = std::env::var("REPEAT")
        .map_or(5, |s| s.parse().unwrap())
        .max(1);
    let compiler = StructuralTagCompiler::new().configure(
        Config::new()
            .whitespace(Whitespace::Compact)
            .dfa_state_limit(1_000_000),
    );
    println!(
        "{name}, {} tokens; transcript of {} tokens",
        vocab.len(),
        tokens.len()
    );
    println!(
        "| tools | mode | compile + first mask | its CPU time (lazy: mean) | compile | machines | byte DFA states | mask p50 | p99 | max |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for n in counts {
        let tag = StructuralTag::from_json(&spec(n)).unwrap();
        if n <= eager_max {
            eager_row(&compiler, &tag, &trie, &tokens, n);
        }
        lazy_row(&compiler, &tag, &trie, &tokens, n, repeat);
    }
}

/// One lazy row: compile + first mask `repeat` times (the median wall time, the mean
/// CPU time), then masks along the transcript.
fn lazy_row(
    compiler: &StructuralTagCompiler,
    tag: &StructuralTag,
    trie: &Arc<VocabTrie>,
    tokens: &[u32],
    n: usize,
    repeat: u32,
) {
    let mut mask = vec![0u32; trie.vocab_size().div_ceil(32)];
    let (mut firsts, mut compiles) = (Vec::new(), Vec::new());
    let cpu = thread_cpu();
    let mut last = None;
    for _ in 0..repeat {
        let started = Instant::now();
        let lazy = compiler.compile_lazy(tag, trie.clone()).unwrap();
        compiles.push(started.elapsed());
        let matcher = lazy.automaton.start_matcher();
        matcher.fill_mask(&mut mask).unwrap();
        firsts.push(started.elapsed());
        last = Some((lazy, matcher));
    }
    let cpu = cpu.zip(thread_cpu()).map(|(a, b)| (b - a) / repeat);
    let (lazy, mut matcher) = last.expect("repeat is at least 1");
    let (p50, p99, max) = masks(&mut matcher, tokens);
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let dfa = lazy.automaton.num_dfa_states();
    let machines = lazy.stats.count("machines").unwrap_or(0);
    println!(
        "| {n} | lazy | {:.2?} | {} | {:.2?} | {machines} | {dfa} | {p50:.2?} | {p99:.2?} | {max:.2?} |",
        median(firsts),
        cpu.map_or("?".into(), |d| format!("{d:.2?}")),
        median(compiles),
    );
    if std::env::var("PHASES").is_ok() {
        println!("{}", lazy.stats);
    }
}

/// This thread's CPU time so far (Linux), which the machine's load does not inflate.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// One eager row: compile, first mask, masks along the transcript.
fn eager_row(
    compiler: &StructuralTagCompiler,
    tag: &StructuralTag,
    trie: &VocabTrie,
    tokens: &[u32],
    n: usize,
) {
    let started = Instant::now();
    let eager = compiler.compile_with_trie(tag, trie).unwrap();
    let mut walker = Walker::new(&eager.automaton);
    let mut mask = vec![0u32; trie.vocab_size().div_ceil(32)];
    walker.fill_mask(&mut mask).unwrap();
    let first = started.elapsed();
    let dfa = eager.stats.count("byte DFA states").unwrap_or(0);
    let (p50, p99, max) = masks(&mut walker, tokens);
    println!("| {n} | eager | {first:.2?} | | | | {dfa} | {p50:.2?} | {p99:.2?} | {max:.2?} |");
    if std::env::var("PHASES").is_ok() {
        println!("{}", eager.stats);
    }
}
