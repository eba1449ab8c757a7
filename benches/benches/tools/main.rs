//! Tool calls: structural tags with 1, 8, 32 and 128 tools (Qwen's `<tool_call>` format,
//! realistic function schemas written here, every tool's body different), compiled
//! eagerly by fstc in pieces (each tool body composed on its own), by fstc as one DFA of
//! the whole text (the previous way), lazily by fstc, and by llguidance (the same
//! language in its Lark syntax, each tool's arguments a `%json` schema), in one process.
//! Masks along walks that go text → call → text. Prints markdown tables.
//!
//! Run: `[TOOLS=1,8,32,128] [WHOLE_MAX=32] cargo bench --manifest-path benches/Cargo.toml
//! --bench tools -- [--vocab NAME ...] [--steps N] [--compile-runs N]`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use fstc_benches::fstc::{self, Fstc};
use fstc_benches::peers::{self, Llguidance};
use fstc_benches::report::{
    cross_check, ms, print_mismatch, print_vocab_heading, print_walk_header, print_walk_row,
};
use fstc_benches::vocab::{self, LoadedVocab};
use fstc_benches::walk::{measure, schedule, Constraint, Event};
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::Walker;
use fstc_json::{Config, Whitespace};
use fstc_tags::{Composition, StructuralTag, StructuralTagCompiler};
use llguidance::api::TopLevelGrammar;
use serde_json::{json, Value};

const USAGE: &str = "[TOOLS=LIST] [WHOLE_MAX=N] tools [--vocab NAME_OR_PATH ...] [--steps N] [--compile-runs N]
--vocab         a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json (default: llama3)
--steps         masks per walk (default 200)
--compile-runs  eager compiles per engine; the fastest is reported (default 3)
TOOLS           tool counts, comma-separated (default 1,8,32,128)
WHOLE_MAX       the most tools also compiled as one DFA, the previous way (default 32: it grows faster than the tools)
THINK=1         a reasoning model's form: a `<think>` block, then the text with tool calls (a nested list)
LAZY_ONLY=1     only the per-request engines (fstc lazy, llguidance): no eager compile";

/// Tool `i`'s function: a name and its argument schema, from eight kinds of real-world
/// functions, each with a bound or a value of its own so that no two bodies are equal.
/// `bounded`: every free-form string has a `maxLength` of 200, as many real schemas have
/// (each bounded string is hundreds of automaton states).
fn tool(i: usize, bounded: bool) -> (String, Value) {
    let s = |extra: Value| {
        let mut v = json!({"type": "string"});
        if bounded && extra.as_object().unwrap().is_empty() {
            v["maxLength"] = json!(200);
        }
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    let (name, properties, required) = match i % 8 {
        0 => (
            "get_weather",
            json!({"location": s(json!({})), "unit": {"enum": ["celsius", "fahrenheit", format!("kelvin_{i}")]}}),
            json!(["location"]),
        ),
        1 => (
            "search_web",
            json!({"query": s(json!({})), "max_results": {"type": "integer", "minimum": 1, "maximum": 10 + i}, "safe_search": {"type": "boolean"}}),
            json!(["query"]),
        ),
        2 => (
            "send_email",
            json!({"to": s(json!({})), "subject": s(json!({})), "body": s(json!({})), "cc": {"type": "array", "items": s(json!({})), "maxItems": 3 + i % 5}, "priority": {"enum": ["low", "normal", "high", format!("p{i}")]}}),
            json!(["to", "subject", "body"]),
        ),
        3 => (
            "create_event",
            json!({"title": s(json!({})), "start": s(json!({"format": "date-time"})), "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480 + i}, "attendees": {"type": "array", "items": s(json!({}))}}),
            json!(["title", "start"]),
        ),
        4 => (
            "convert_currency",
            json!({"amount": {"type": "number"}, "from": s(json!({"pattern": "^[A-Z]{3}$"})), "to": s(json!({"pattern": "^[A-Z]{3}$"})), "round_to": {"type": "integer", "minimum": 0, "maximum": i % 7 + 2}}),
            json!(["amount", "from", "to"]),
        ),
        5 => (
            "get_stock_price",
            json!({"symbol": s(json!({"pattern": "^[A-Z]{1,5}$"})), "exchange": {"enum": ["NYSE", "NASDAQ", "LSE", format!("X{i}")]}}),
            json!(["symbol"]),
        ),
        6 => (
            "translate",
            json!({"text": s(json!({})), "source_lang": s(json!({"minLength": 2, "maxLength": 5})), "target_lang": {"enum": ["en", "fr", "de", "es", "ja", format!("l{i}")]}}),
            json!(["text", "target_lang"]),
        ),
        _ => (
            "set_reminder",
            json!({"message": s(json!({})), "date": s(json!({"format": "date"})), "repeat": {"enum": ["none", "daily", "weekly", format!("every_{i}_days")]}}),
            json!(["message", "date"]),
        ),
    };
    let schema = json!({"type": "object", "properties": properties, "required": required,
                        "additionalProperties": false});
    (format!("{name}_{i}"), schema)
}

const BEGIN: &str = "<tool_call>\n{\"name\": \"";
const END: &str = "}\n</tool_call>";

/// The structural tag of `n` tools.
fn spec(n: usize, bounded: bool) -> String {
    let tags: Vec<Value> = (0..n)
        .map(|i| {
            let (name, schema) = tool(i, bounded);
            json!({"begin": format!("{BEGIN}{name}\", \"arguments\": "),
                   "content": {"type": "json_schema", "json_schema": schema}, "end": END})
        })
        .collect();
    let calls = json!({"type": "triggered_tags", "triggers": ["<tool_call>"], "tags": tags});
    let format = match think() {
        false => calls,
        true => json!({"type": "sequence", "elements": [{"type": "tag", "begin": THINK_BEGIN,
            "content": {"type": "any_text"}, "end": THINK_END}, calls]}),
    };
    json!({"type": "structural_tag", "format": format}).to_string()
}

const THINK_BEGIN: &str = "<think>";
const THINK_END: &str = "</think>";

/// Whether the structure starts with a `<think>` block (`THINK=1`).
fn think() -> bool {
    std::env::var("THINK").is_ok_and(|v| v == "1")
}

/// The same language in llguidance's Lark syntax: the text before a call is one lazy
/// lexeme ending at the first `<tool_call>`; the text after the last call has none.
/// Arguments in the compact form fstc's compiler is configured for.
fn lark(n: usize, bounded: bool) -> String {
    // The block ends at its first end string (a lazy lexeme), as `any_text` in a tag does.
    let (thinking, think) = match think() {
        true => (
            "thinking ",
            format!("thinking: {THINK_BEGIN:?} think\nthink[lazy]: /(.|\\n)*<\\/think>/\n"),
        ),
        false => ("", String::new()),
    };
    let mut out = format!(
        "%llguidance {{}}\nstart: {thinking}(pre call)* TAIL?\n{think}pre[lazy]: /(.|\\n)*<tool_call>/\n\
         TAIL: /(.|\\n)+/ & ~/(.|\\n)*<tool_call>(.|\\n)*/\ncall: ",
    );
    let alternatives: Vec<String> = (0..n)
        .map(|i| {
            let (name, _) = tool(i, bounded);
            let begin = format!("\n{{\"name\": \"{name}\", \"arguments\": ");
            format!(
                "{} args_{i} {}",
                serde_json::to_string(&begin).unwrap(),
                serde_json::to_string(END).unwrap()
            )
        })
        .collect();
    out.push_str(&alternatives.join(" | "));
    out.push('\n');
    for i in 0..n {
        let (_, mut schema) = tool(i, bounded);
        schema.as_object_mut().unwrap().insert(
            "x-guidance".into(),
            json!({"whitespace_flexible": false, "item_separator": ",", "key_separator": ":"}),
        );
        out.push_str(&format!("args_{i}: %json {schema}\n"));
    }
    out
}

/// Walks through free text, a call of the first tool and of the last one, and text.
fn samples(n: usize) -> Vec<String> {
    let (first, _) = tool(0, false);
    let (last, _) = tool(n - 1, false);
    vec![
        format!("Let me check the weather first. <tool_call>\n{{\"name\": \"{first}\", \"arguments\": {{\"location\":\"Paris, France\",\"unit\":\"celsius\"}}}}\n</tool_call>\nI asked for it; the answer comes next."),
        format!("Sure.<tool_call>\n{{\"name\": \"{last}\", \"arguments\": {}}}\n</tool_call> Done, anything else?", example_arguments(n - 1)),
        "No tool is needed: 2 < 3 and <b>bold</b> is just text.".to_string(),
    ]
    .into_iter()
    .map(|text| match think() {
        true => format!("{THINK_BEGIN}Which tool fits, if any? <tool_call> is how I call one.{THINK_END}\n\n{text}"),
        false => text,
    })
    .collect()
}

/// Arguments tool `i` accepts (its required properties, in schema order).
fn example_arguments(i: usize) -> String {
    match i % 8 {
        0 => r#"{"location":"Oslo"}"#.into(),
        1 => r#"{"query":"rust automata","max_results":3}"#.into(),
        2 => r#"{"to":"ann@example.com","subject":"Hi","body":"See you at 5."}"#.into(),
        3 => r#"{"title":"Review","start":"2026-11-27T15:00:00Z","duration_minutes":30}"#.into(),
        4 => r#"{"amount":12.5,"from":"EUR","to":"USD"}"#.into(),
        5 => r#"{"symbol":"ACME","exchange":"NYSE"}"#.into(),
        6 => r#"{"text":"Bonjour","target_lang":"en"}"#.into(),
        _ => r#"{"message":"Call Bob","date":"2026-12-01","repeat":"weekly"}"#.into(),
    }
}

fn main() {
    fstc_benches::main_with(real_main);
}

fn real_main() -> Result<()> {
    let mut options = fstc_benches::args::parse(USAGE, &[])?;
    let tools = list_env("TOOLS")?.unwrap_or(vec![1, 8, 32, 128]);
    let whole_max = list_env("WHOLE_MAX")?
        .and_then(|v| v.first().copied())
        .unwrap_or(32);
    if options.vocabs.is_empty() {
        options.vocabs = vec!["llama3".into()];
    }
    println!("# Tool calls\n");
    println!(
        "fstc: `StructuralTagCompiler::compile_with_trie` (compact JSON): as it chooses \
         (`Composition::Auto`), in pieces (each tool body composed alone, joined at token \
         level), as one DFA of the whole text (the previous way; up to {whole_max} tools); \
         lazy (`compile_lazy`); \
         llguidance: the same language in Lark with a `%json` schema per tool. Compile + first \
         mask is what a request waits for."
    );
    for name in &options.vocabs {
        let vocab = vocab::load_named(name)?;
        bench_vocab(&vocab, &options, &tools, whole_max)?;
    }
    Ok(())
}

/// The numbers of environment variable `name` (`a,b,c`), if it is set.
fn list_env(name: &str) -> Result<Option<Vec<usize>>> {
    let Ok(value) = std::env::var(name) else {
        return Ok(None);
    };
    let numbers: Option<Vec<usize>> = value.split(',').map(|n| n.trim().parse().ok()).collect();
    numbers
        .map(Some)
        .ok_or_else(|| anyhow!("{name}={value:?}: expected numbers separated by commas"))
}

fn bench_vocab(
    vocab: &LoadedVocab,
    options: &fstc_benches::args::Options,
    tools: &[usize],
    whole_max: usize,
) -> Result<()> {
    let (factory, llg_setup) = peers::llguidance_factory(vocab)?;
    let (trie, fstc_setup) = fstc::vocab_trie(vocab);
    let trie = Arc::new(trie);
    print_vocab_heading(vocab);
    println!(
        "Per-vocabulary setup, not in the compile times: llguidance {} ms; fstc vocabulary trie {} ms.\n",
        ms(llg_setup),
        ms(fstc_setup)
    );
    print_walk_header("tools");
    let compiler =
        StructuralTagCompiler::new().configure(Config::new().whitespace(Whitespace::Compact));
    let width = vocab.mask_words();
    let mut mismatches = Vec::new();
    let mut requests = Vec::new();
    // Bounded strings make each tool ~10 times larger: one DFA of all of them only up to
    // a quarter of `whole_max` tools.
    let kinds = [(false, whole_max), (true, whole_max / 4)];
    for (&n, (bounded, whole_max)) in kinds
        .iter()
        .flat_map(|k| tools.iter().map(move |n| (n, *k)))
    {
        eprintln!("  {} / {n} tools", vocab.name);
        let tag = StructuralTag::from_json(&spec(n, bounded)).map_err(|e| anyhow!("{e}"))?;
        let texts = samples(n);
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let events = schedule(&vocab.tokenize_all(&texts)?, options.steps);
        let label = format!("{n}{}", if bounded { " bounded" } else { "" });
        let mut results = Vec::new();
        if !lazy_only() {
            let sizes = (label.as_str(), n, whole_max);
            results.extend(eager_rows(
                &compiler,
                &tag,
                &trie,
                (&events, width, options),
                sizes,
            ));
        }
        let lazy_request = || -> Result<Box<dyn Constraint>> {
            let lazy = compiler
                .compile_lazy(&tag, trie.clone())
                .map_err(|e| anyhow!("fstc lazy: {e}"))?;
            Ok(Box::new(Fstc(lazy.automaton.start_matcher())))
        };
        let lark = lark(n, bounded);
        let llg_request = || -> Result<Box<dyn Constraint>> {
            let grammar = TopLevelGrammar::from_lark(lark.clone());
            Ok(Box::new(
                Llguidance::compile_grammar(grammar, "the tools", &factory)?.0,
            ))
        };
        let times = [&lazy_request as &dyn Fn() -> _, &llg_request]
            .map(|r| [request(r, width, 1), request(r, width, AGAIN)]);
        requests.push((label.clone(), times));
        let started = Instant::now();
        let lazy = compiler
            .compile_lazy(&tag, trie.clone())
            .map_err(|e| anyhow!("fstc lazy: {e}"))?;
        let compile = started.elapsed();
        let mut matcher = Fstc(lazy.automaton.start_matcher());
        let result = measure("fstc lazy", &mut matcher, compile, None, &events, width);
        let note = format!("states made on first use; {}", lazy.stats).replace('\n', "; ");
        print_walk_row(&label, &result, &note);
        results.push(result);
        let (mut llg, compile) =
            Llguidance::compile_grammar(TopLevelGrammar::from_lark(lark), "the tools", &factory)?;
        let result = measure("llguidance", &mut llg, compile, None, &events, width);
        print_walk_row(&label, &result, "");
        results.push(result);
        mismatches.extend(cross_check(vocab, &results));
    }
    println!();
    print_requests(&requests)?;
    for m in &mismatches {
        print_mismatch(m);
    }
    Ok(())
}

/// The eager engines' rows (as it chooses, in pieces, as one DFA up to `whole_max`
/// tools); the pieces' result for the cross-check.
fn eager_rows(
    compiler: &StructuralTagCompiler,
    tag: &StructuralTag,
    trie: &VocabTrie,
    (events, width, options): (&[Event], usize, &fstc_benches::args::Options),
    (label, n, whole_max): (&str, usize, usize),
) -> Option<fstc_benches::report::EngineResult> {
    let runs = options.compile_runs;
    let label = label.to_string();
    let mut results = Vec::new();
    match eager(compiler, tag, trie, (events, width, runs), "fstc") {
        Ok((result, note)) => print_walk_row(&label, &result, &note),
        Err(e) => println!("| {label} | fstc | {e} |"),
    }
    let pieces = compiler.clone().composition(Composition::Pieces);
    match eager(&pieces, tag, trie, (events, width, runs), "fstc pieces") {
        Ok((pieces, note)) => {
            print_walk_row(&label, &pieces, &note);
            results.push(pieces);
        }
        Err(e) => println!("| {label} | fstc pieces | {e} |"),
    }
    if n <= whole_max {
        let whole = compiler.clone().composition(Composition::Whole);
        match eager(&whole, tag, trie, (events, width, runs), "fstc one DFA") {
            Ok((result, note)) => print_walk_row(&label, &result, &note),
            Err(e) => println!("| {label} | fstc one DFA | {e} |"),
        }
    }
    results.pop()
}

/// Whether only the per-request engines run (`LAZY_ONLY=1`).
fn lazy_only() -> bool {
    std::env::var("LAZY_ONLY").is_ok_and(|v| v == "1")
}

/// Compile + first mask of a request: wall time and this thread's CPU time (means).
type Request = Result<(Duration, Option<Duration>)>;

/// Requests after the first, averaged: the CPU clock below counts in scheduler ticks.
const AGAIN: u32 = 10;

/// `times` requests in a row, each a compile and its first mask; the mean times.
fn request(compile: &dyn Fn() -> Result<Box<dyn Constraint>>, width: usize, times: u32) -> Request {
    let (wall, cpu) = (Instant::now(), thread_cpu());
    for _ in 0..times {
        let mut engine = compile()?;
        engine.fill_mask(&mut vec![0u32; width])?;
    }
    let cpu = thread_cpu()
        .zip(cpu)
        .map(|(b, a)| b.saturating_sub(a) / times);
    Ok((wall.elapsed() / times, cpu))
}

/// This thread's time on a CPU so far (`/proc/thread-self/schedstat`, Linux), which
/// leaves out the time the other builds on a loaded machine take; it advances in
/// scheduler ticks on some kernels (4 ms here), so one short request reads coarse.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The request table: per tool count, each engine's first and second request.
fn print_requests(requests: &[(String, [[Request; 2]; 2])]) -> Result<()> {
    println!(
        "Per request (compile + first mask, ms; CPU = this thread's time on a CPU), \
              each engine's first request, then the mean of {AGAIN} more with the same tools:\n"
    );
    println!("| tools | fstc lazy 1st wall / CPU | next wall / CPU | llguidance 1st wall / CPU | next wall / CPU | CPU ratio 1st / next |");
    println!("|---|---:|---:|---:|---:|---:|");
    let cell = |r: &Request| match r {
        Ok((wall, cpu)) => format!("{} / {}", ms(*wall), cpu.map_or("-".into(), ms)),
        Err(e) => format!("{e}"),
    };
    let cpu = |r: &Request| {
        r.as_ref()
            .ok()
            .and_then(|(_, c)| *c)
            .map(|c| c.as_secs_f64())
    };
    for (label, [fstc, llg]) in requests {
        let ratio = |i: usize| match (cpu(&fstc[i]), cpu(&llg[i])) {
            (Some(f), Some(l)) if l > 0.0 => format!("{:.2}", f / l),
            _ => "-".into(),
        };
        println!(
            "| {label} | {} | {} | {} | {} | {} / {} |",
            cell(&fstc[0]),
            cell(&fstc[1]),
            cell(&llg[0]),
            cell(&llg[1]),
            ratio(0),
            ratio(1)
        );
    }
    println!();
    Ok(())
}

/// One eager compile (the fastest of `--compile-runs`) and its walk; the note gives the
/// stages of the last compile.
fn eager(
    compiler: &StructuralTagCompiler,
    tag: &StructuralTag,
    trie: &VocabTrie,
    (events, width, runs): (&[Event], usize, usize),
    name: &'static str,
) -> Result<(fstc_benches::report::EngineResult, String)> {
    let compile = || -> Result<_> {
        let started = Instant::now();
        let compiled = compiler
            .compile_with_trie(tag, trie)
            .map_err(|e| anyhow!("{name}: {e}"))?;
        Ok((compiled, started.elapsed()))
    };
    let (compiled, first) = compile()?;
    let mut best: Duration = first;
    let automaton = compiled.automaton;
    let note = format!("{}", compiled.stats).replace('\n', "; ");
    let mut walker = Fstc(Walker::new(&automaton));
    let result = measure(
        name,
        &mut walker,
        best,
        Some(fstc::artifact_bytes(&automaton)),
        events,
        width,
    );
    for _ in 1..runs {
        best = best.min(compile()?.1);
    }
    Ok((
        fstc_benches::report::EngineResult {
            compile: best,
            ..result
        },
        note,
    ))
}
