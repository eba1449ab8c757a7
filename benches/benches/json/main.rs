//! JSON Schemas: fstc against llguidance and outlines-core on the peers' three schemas, in
//! one process, on the same token bytes and walks, with XGrammar's published figures as
//! reference rows. Prints markdown tables.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench json -- [--vocab NAME_OR_PATH ...] [--steps N] [--compile-runs N] [--outlines-large]`.
//! See benches/README.md ("JSON Schemas") for what is measured.

mod samples;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::Walker;
use fstc_benches::args::Options;
use fstc_benches::fstc::{self, Fstc};
use fstc_benches::peers::{self, Llguidance, Outlines};
use fstc_benches::report::{
    cross_check, ms, print_mismatch, print_vocab_heading, print_walk_header, print_walk_row, us,
    EngineResult,
};
use fstc_benches::vocab::{self, LoadedVocab};
use fstc_benches::walk::{fastest, measure, schedule, Event};
use llguidance::api::TopLevelGrammar;
use serde_json::Value;

use crate::samples::{JsonCase, JSON_CASES, SIZE_CASES};

const USAGE: &str = "json [--vocab NAME_OR_PATH ...] [--steps N] [--compile-runs N] [--outlines-large] [--sizes]
--vocab           a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json (default: llama3 and qwen3)
--steps           masks per walk (default 200)
--compile-runs    compiles per engine and schema; the fastest is reported (default 3)
--outlines-large  also run outlines-core on json-large (it ran past 300 s in the peers' own run)
--sizes           also run the size cases (a 2,000-character maxLength)";

fn main() {
    fstc_benches::main_with(real_main);
}

fn inputs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/json")
}

fn real_main() -> Result<()> {
    let mut options = fstc_benches::args::parse(USAGE, &["--outlines-large", "--sizes"])?;
    if options.vocabs.is_empty() {
        options.vocabs = vec!["llama3".into(), "qwen3".into()];
    }
    let xgrammar = xgrammar_rows();
    println!("# JSON Schemas\n");
    println!(
        "Output form for every engine: compact (no whitespace), properties in schema order. \
         fstc: `JsonSchemaCompiler` with `Whitespace::Compact`, lenient (a keyword fstc \
         refuses would be left out with a warning, counted in the note column; none is \
         in these schemas); llguidance: \
         `x-guidance: {{\"whitespace_flexible\": false}}`; outlines-core: \
         `regex_from_str(schema, Some(\"\"))` then `Index::new` (both in its compile time)."
    );
    for name in &options.vocabs {
        let vocab = vocab::load_named(name)?;
        bench_vocab(&vocab, &options, &xgrammar)?;
    }
    Ok(())
}

/// One engine's result on one schema, plus what the table needs beside it.
struct Row {
    result: EngineResult,
    note: String,
}

fn bench_vocab(vocab: &LoadedVocab, options: &Options, xgrammar: &[XgrammarRow]) -> Result<()> {
    let width = vocab.mask_words();
    let (outlines_vocab, outlines_setup) = peers::outlines_vocabulary(vocab)?;
    let (factory, llg_setup) = peers::llguidance_factory(vocab)?;
    let (trie, fstc_setup) = fstc::vocab_trie(vocab);
    let trie = Arc::new(trie);
    print_vocab_heading(vocab);
    println!(
        "Per-vocabulary setup, not in the compile times: llguidance token trie + parser factory {} ms; \
         outlines-core `Vocabulary` {} ms; fstc vocabulary trie {} ms.\n",
        ms(llg_setup),
        ms(outlines_setup),
        ms(fstc_setup)
    );
    print_walk_header("schema");
    let mut checks = Vec::new();
    let sizes = if options.flag("--sizes") {
        SIZE_CASES
    } else {
        &[]
    };
    for case in JSON_CASES.iter().chain(sizes) {
        eprintln!("  {} / {}", vocab.name, case.name);
        let schema_text = std::fs::read_to_string(inputs_dir().join(case.file))
            .with_context(|| format!("cannot read {}", case.file))?;
        let samples = vocab.tokenize_all(case.samples)?;
        let events = schedule(&samples, options.steps);
        let mut rows: Vec<Row> = Vec::new();
        rows.push(run_fstc(&schema_text, &trie, &events, width, options)?);
        rows.push(run_fstc_lazy(&schema_text, &trie, &events, width, options)?);
        rows.push(run_llguidance(
            &schema_text,
            &factory,
            &events,
            width,
            options,
        )?);
        if case.name != "json-large" || options.flag("--outlines-large") {
            match run_outlines(&schema_text, &outlines_vocab, &events, width, options) {
                Ok(row) => rows.push(row),
                Err(e) => eprintln!("    outlines-core: {e:#}"),
            }
        }
        for row in &rows {
            print_walk_row(case.name, &row.result, &row.note);
        }
        if case.name == "json-large" && !options.flag("--outlines-large") {
            println!("| {} | outlines-core | not run | | | | | | | | | killed after 300 s compiling in the peers' own run (`--outlines-large` runs it) |", case.name);
        }
        for x in xgrammar
            .iter()
            .filter(|x| x.vocab == vocab.name && x.schema == case.name)
        {
            println!(
                "| {} | XGrammar 0.2.8 (reference, another machine) | {:.1} | {} | {:.1} | | {} | {} | {} | {} | | from peers-results.csv |",
                case.name,
                x.compile_ms,
                us(x.first_mask_us),
                x.compile_ms + x.first_mask_us / 1e3,
                us(x.p50),
                us(x.p99),
                us(x.max),
                x.bytes
            );
        }
        let results: Vec<EngineResult> = rows.into_iter().map(|r| r.result).collect();
        let steps = events.iter().filter(|e| **e == Event::Mask).count();
        checks.push((
            case.name,
            samples.len(),
            samples.iter().map(Vec::len).sum::<usize>(),
            steps,
            goals(&results, xgrammar, vocab, case),
            cross_check(vocab, &results),
        ));
    }
    println!();
    for (name, n, tokens, steps, goals, mismatches) in checks {
        println!("- `{name}`: {n} samples, {tokens} tokens, {steps} masks per walk. {goals}");
        for m in mismatches {
            print_mismatch(&m);
        }
    }
    Ok(())
}

/// The goals of issue 11 for fstc on one schema, said plainly.
fn goals(
    results: &[EngineResult],
    xgrammar: &[XgrammarRow],
    vocab: &LoadedVocab,
    case: &JsonCase,
) -> String {
    let find = |name: &str| results.iter().find(|e| e.name == name);
    let (Some(f), Some(l)) = (find("fstc"), find("llguidance")) else {
        return String::new();
    };
    let total =
        |e: &EngineResult| (e.compile + e.first_mask.unwrap_or_default()).as_secs_f64() * 1e3;
    let mut out = vec![format!(
        "fstc compile + 1st mask {:.1} ms = {:.2}× llguidance's {:.1} ms (goal ≤ 3×)",
        total(f),
        total(f) / total(l),
        total(l)
    )];
    if let Some(z) = find("fstc (lazy)") {
        let cold = |e: &EngineResult| e.cold.map_or(0.0, |c| c.2 / 1e3);
        out.push(format!(
            "fstc (lazy) compile + 1st mask {:.2} ms = {:.2}× llguidance's, cold max {:.2} ms vs llguidance's {:.2} ms",
            total(z),
            total(z) / total(l),
            cold(z),
            cold(l)
        ));
    }
    if let Some(x) = xgrammar
        .iter()
        .find(|x| x.vocab == vocab.name && x.schema == case.name)
    {
        out.push(format!(
            "compile {:.1} ms vs XGrammar's {:.1} ms (goal: faster)",
            f.compile.as_secs_f64() * 1e3,
            x.compile_ms
        ));
    }
    if let Some((_, p99, max)) = f.warm {
        out.push(format!(
            "mask p99 {} µs (goal < 2), max {} µs (goal < 10)",
            us(p99),
            us(max)
        ));
    }
    out.join("; ") + "."
}

/// fstc's compiler as the table header says: compact, lenient.
fn fstc_compiler() -> fstc_json::JsonSchemaCompiler {
    fstc_json::JsonSchemaCompiler::new()
        .whitespace(fstc_json::Whitespace::Compact)
        .lenient(true)
}

fn run_fstc(
    schema: &str,
    trie: &VocabTrie,
    events: &[Event],
    width: usize,
    options: &Options,
) -> Result<Row> {
    let compiler = fstc_compiler();
    let compile = || -> Result<(fstc_json::Compiled, Duration)> {
        let started = Instant::now();
        let compiled = compiler
            .compile_with_trie(schema, trie)
            .map_err(|e| anyhow!("fstc: {e}"))?;
        Ok((compiled, started.elapsed()))
    };
    let (compiled, first) = compile()?;
    let automaton = &compiled.automaton;
    let mut engine = Fstc(Walker::new(automaton));
    let artifact = Some(fstc::artifact_bytes(automaton));
    let mut result = measure("fstc", &mut engine, first, artifact, events, width);
    result.compile = fastest(first, options.compile_runs, compile)?;
    let s = &compiled.stats;
    let note = format!(
        "{} states; byte DFA {} ms ({} states), compose {} ms, layout {} ms{}",
        automaton.num_states(),
        ms(s.byte_dfa_time),
        s.byte_dfa_states,
        ms(s.compose_time),
        ms(s.layout_time),
        if compiled.warnings.is_empty() {
            String::new()
        } else {
            format!(
                "; {} keyword(s) left out (lenient)",
                compiled.warnings.len()
            )
        }
    );
    Ok(Row { result, note })
}

/// fstc's lazy matcher: the compile builds the byte DFA only; each state's tokens are
/// composed when the walk first reaches it, so the cold pass pays for them (cold max)
/// and the warm passes read the cache.
fn run_fstc_lazy(
    schema: &str,
    trie: &Arc<VocabTrie>,
    events: &[Event],
    width: usize,
    options: &Options,
) -> Result<Row> {
    let compiler = fstc_compiler();
    let compile = || -> Result<(fstc_json::LazyCompiled, Duration)> {
        let started = Instant::now();
        let compiled = compiler
            .compile_lazy(schema, trie.clone())
            .map_err(|e| anyhow!("fstc (lazy): {e}"))?;
        Ok((compiled, started.elapsed()))
    };
    let (compiled, first) = compile()?;
    let automaton = &compiled.automaton;
    let mut engine = Fstc(automaton.start_matcher());
    let mut result = measure("fstc (lazy)", &mut engine, first, None, events, width);
    let note = format!(
        "byte DFA {} ms ({} states); {} states composed along the walk; no file",
        ms(compiled.byte_dfa_time),
        compiled.byte_dfa_states,
        automaton.num_cached_states()
    );
    drop(engine);
    result.compile = fastest(first, options.compile_runs, compile)?;
    Ok(Row { result, note })
}

fn run_llguidance(
    schema: &str,
    factory: &llguidance::ParserFactory,
    events: &[Event],
    width: usize,
    options: &Options,
) -> Result<Row> {
    let mut value: Value = serde_json::from_str(schema)?;
    value
        .as_object_mut()
        .context("schema is not an object")?
        .insert(
            "x-guidance".into(),
            serde_json::json!({"whitespace_flexible": false}),
        );
    let compile = || {
        Llguidance::compile_grammar(
            TopLevelGrammar::from_json_schema(value.clone()),
            "schema",
            factory,
        )
    };
    let (mut engine, first) = compile()?;
    let mut result = measure("llguidance", &mut engine, first, None, events, width);
    drop(engine);
    result.compile = fastest(first, options.compile_runs, compile)?;
    Ok(Row {
        result,
        note: "compiles lazily: the rest is in the masks".into(),
    })
}

fn run_outlines(
    schema: &str,
    vocabulary: &outlines_core::prelude::Vocabulary,
    events: &[Event],
    width: usize,
    options: &Options,
) -> Result<Row> {
    let compile = || -> Result<(Outlines, Duration)> {
        let started = Instant::now();
        let regex = outlines_core::json_schema::regex_from_str(schema, Some(""), None)
            .map_err(|e| anyhow!("outlines-core cannot translate the schema: {e}"))?;
        let (engine, _) = Outlines::compile(&regex, vocabulary)?;
        Ok((engine, started.elapsed()))
    };
    let (mut engine, first) = compile()?;
    let artifact = Some(engine.artifact_bytes()?);
    let (states, edges) = engine.shape();
    let mut result = measure("outlines-core", &mut engine, first, artifact, events, width);
    drop(engine);
    result.compile = fastest(first, options.compile_runs, compile)?;
    Ok(Row {
        result,
        note: format!("{states} states, {edges} transitions"),
    })
}

/// XGrammar's walk figures from `../shared/bench/peers-results.csv` (measured elsewhere).
struct XgrammarRow {
    vocab: String,
    schema: String,
    compile_ms: f64,
    first_mask_us: f64,
    p50: f64,
    p99: f64,
    max: f64,
    bytes: String,
}

fn xgrammar_rows() -> Vec<XgrammarRow> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/peers-results.csv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("no XGrammar reference rows: {} is absent", path.display());
        return Vec::new();
    };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let cols = [
        "peer",
        "vocab",
        "constraint",
        "path",
        "status",
        "compile_ms",
        "first_mask_us",
        "mask_us_p50",
        "mask_us_p99",
        "mask_us_max",
        "index_bytes",
    ]
    .map(col);
    let Some(cols) = cols.into_iter().collect::<Option<Vec<usize>>>() else {
        eprintln!(
            "no XGrammar reference rows: unexpected header in {}",
            path.display()
        );
        return Vec::new();
    };
    lines
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let get = |i: usize| f.get(cols[i]).copied().unwrap_or_default();
            let num = |i: usize| get(i).parse::<f64>().ok();
            (get(0) == "xgrammar" && get(3) == "walk" && get(4) == "ok").then(|| {
                Some(XgrammarRow {
                    vocab: get(1).to_string(),
                    schema: get(2).to_string(),
                    compile_ms: num(5)?,
                    first_mask_us: num(6)?,
                    p50: num(7)?,
                    p99: num(8)?,
                    max: num(9)?,
                    bytes: get(10).to_string(),
                })
            })?
        })
        .collect()
}
