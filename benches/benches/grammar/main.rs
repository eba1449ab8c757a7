//! Grammars: fstc's token PDAs (GBNF) against llguidance's Lark path, in one process, on
//! the same token bytes and walks that nest at least 10 deep. Prints markdown tables.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench grammar -- [--vocab NAME_OR_PATH ...] [--steps N] [--compile-runs N]`.
//! See benches/README.md ("Grammars") for what is measured.

#[allow(dead_code)]
#[path = "../compare/peers.rs"]
mod peers;
#[allow(dead_code)]
#[path = "../compare/report.rs"]
mod report;
#[allow(dead_code)]
#[path = "../compare/vocab.rs"]
mod vocab;
#[allow(dead_code)]
#[path = "../compare/walk.rs"]
mod walk;

#[cfg(feature = "fstc")]
#[allow(dead_code)]
#[path = "../compare/fstc.rs"]
mod fstc;

#[cfg(feature = "fstc")]
mod engine;
mod samples;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use llguidance::api::TopLevelGrammar;

use crate::peers::{Constraint, Llguidance};
use crate::report::{cross_check, ms, us, EngineResult, Mismatch};
use crate::samples::{nesting_depth, GrammarCase, GRAMMAR_CASES};
use crate::vocab::LoadedVocab;
use crate::walk::{fastest, measure, schedule, Event};

/// Goals of issue 12 for fstc: mask p99 and max in µs, compile in ms.
const GOAL_P99_US: f64 = 5.0;
const GOAL_MAX_US: f64 = 25.0;
const GOAL_COMPILE_MS: f64 = 200.0;

struct Options {
    vocabs: Vec<String>,
    steps: usize,
    compile_runs: usize,
}

fn parse_args() -> Result<Options> {
    let mut options = Options {
        vocabs: Vec::new(),
        steps: 200,
        compile_runs: 3,
    };
    let mut args = std::env::args().skip(1);
    let positive = |v: Option<String>, what: &str| -> Result<usize> {
        match v.map(|v| v.parse::<usize>()) {
            Some(Ok(n)) if n > 0 => Ok(n),
            _ => bail!("{what} needs a positive number"),
        }
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--vocab" => options
                .vocabs
                .push(args.next().context("--vocab needs a name or a path")?),
            "--steps" => options.steps = positive(args.next(), "--steps")?,
            "--compile-runs" => options.compile_runs = positive(args.next(), "--compile-runs")?,
            "--bench" => {}
            "--help" | "-h" => {
                println!(
                    "grammar [--vocab NAME_OR_PATH ...] [--steps N] [--compile-runs N]\n\
                     --vocab         a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json (default: llama3 and qwen3)\n\
                     --steps         masks per walk (default 200)\n\
                     --compile-runs  compiles per engine and grammar; the fastest is reported (default 3)"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?} (try --help)"),
        }
    }
    if options.vocabs.is_empty() {
        options.vocabs = vec!["llama3".into(), "qwen3".into()];
    }
    Ok(options)
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

/// A file of the bench: `rel` from the repository root.
fn repo_file(rel: &str) -> Result<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(rel)).with_context(|| format!("cannot read {rel}"))
}

fn lark_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("inputs/grammar")
}

fn real_main() -> Result<()> {
    let options = parse_args()?;
    println!("# Grammars\n");
    println!(
        "fstc: the GBNF file composed into a token PDA (`GrammarCompiler::compile_with_trie` + \
         `TokenPda::from_parts`), walked through `Matcher` (`AnyAutomaton::matcher`, a \
         `PdaWalker`); llguidance: the same language in its Lark syntax \
         (`TopLevelGrammar::from_lark`). Walks nest at least 10 deep."
    );
    for name in &options.vocabs {
        let dir = vocab::resolve(name)?;
        eprintln!("loading {}", dir.display());
        let vocab = vocab::load(&dir)?;
        bench_vocab(&vocab, &options)?;
    }
    Ok(())
}

/// One engine's result on one grammar, plus what the table needs beside it.
struct Row {
    result: EngineResult,
    note: String,
}

/// What is printed under a vocabulary's table for one grammar.
struct Summary {
    name: &'static str,
    samples: usize,
    tokens: usize,
    masks: usize,
    nesting: usize,
    goals: String,
    mismatches: Vec<Mismatch>,
    probes: Vec<String>,
}

fn bench_vocab(vocab: &LoadedVocab, options: &Options) -> Result<()> {
    let (factory, llg_setup) = peers::llguidance_factory(vocab)?;
    #[cfg(feature = "fstc")]
    let (trie, fstc_setup) = {
        let started = Instant::now();
        let trie = fst_core::compose::VocabTrie::new(&vocab.detok);
        (trie, started.elapsed())
    };
    println!(
        "\n## {} ({} tokens, EOS {:?})\n",
        vocab.name,
        vocab.len(),
        vocab.eos_ids
    );
    #[allow(unused_mut)]
    let mut setup = format!(
        "Per-vocabulary setup, not in the compile times: llguidance token trie + parser factory {} ms",
        ms(llg_setup)
    );
    #[cfg(feature = "fstc")]
    setup.push_str(&format!("; fstc vocabulary trie {} ms", ms(fstc_setup)));
    println!("{setup}.\n");
    println!("| grammar | engine | compile ms | 1st mask µs | compile + 1st mask ms | cold max µs | mask p50 µs | mask p99 µs | mask max µs | artifact bytes | errors | note |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut summaries = Vec::new();
    for case in GRAMMAR_CASES {
        eprintln!("  {} / {}", vocab.name, case.name);
        let gbnf = repo_file(case.gbnf)?;
        let lark = std::fs::read_to_string(lark_dir().join(case.lark))
            .with_context(|| format!("cannot read {}", case.lark))?;
        let samples = case
            .samples
            .iter()
            .map(|s| vocab.tokenize(s))
            .collect::<Result<Vec<_>>>()?;
        let events = schedule(&samples, options.steps);
        let mut rows: Vec<Row> = Vec::new();
        let mut probes = Vec::new();
        #[cfg(feature = "fstc")]
        {
            let (row, verdicts) = run_fstc(case, &gbnf, &trie, &events, vocab, options)?;
            rows.push(row);
            probes.push(("fstc", verdicts));
        }
        #[cfg(not(feature = "fstc"))]
        let _ = &gbnf;
        let (row, verdicts) = run_llguidance(&lark, &factory, &events, vocab, case, options)?;
        rows.push(row);
        probes.push(("llguidance", verdicts));
        for row in &rows {
            print_row(case, &row.result, &row.note);
        }
        let results: Vec<EngineResult> = rows.into_iter().map(|r| r.result).collect();
        summaries.push(Summary {
            name: case.name,
            samples: samples.len(),
            tokens: samples.iter().map(Vec::len).sum(),
            masks: events.iter().filter(|e| **e == Event::Mask).count(),
            nesting: case.samples.iter().map(|s| nesting_depth(s)).max().unwrap_or(0),
            goals: goals(&results),
            mismatches: cross_check(vocab, &results),
            probes: probe_disagreements(case, &probes),
        });
    }
    println!();
    for s in summaries {
        println!(
            "- `{}`: {} samples nesting up to {} deep, {} tokens, {} masks per walk. {}",
            s.name, s.samples, s.nesting, s.tokens, s.masks, s.goals
        );
        for m in &s.mismatches {
            print_mismatch(m);
        }
        for line in &s.probes {
            println!("  - {line}");
        }
    }
    Ok(())
}

fn print_row(case: &GrammarCase, e: &EngineResult, note: &str) {
    let dash = || "-".to_string();
    let (p50, p99, max) = e
        .warm
        .map_or((dash(), dash(), dash()), |w| (us(w.0), us(w.1), us(w.2)));
    let first = e.first_mask.unwrap_or_default();
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        case.name,
        e.name,
        ms(e.compile),
        e.first_mask
            .map_or_else(dash, |d| us(d.as_secs_f64() * 1e6)),
        ms(e.compile + first),
        e.cold.map_or_else(dash, |c| us(c.2)),
        p50,
        p99,
        max,
        e.artifact.map_or_else(|| "n/a".into(), |b| b.to_string()),
        e.errors.len(),
        note
    );
}

fn print_mismatch(m: &Mismatch) {
    let examples: Vec<String> = m
        .examples
        .iter()
        .map(|(step, id, text, by_ref)| {
            let who = if *by_ref { m.reference } else { m.engine };
            format!("step {step}: {id} {text} only by {who}")
        })
        .collect();
    println!(
        "  - masks of {} vs {}: {} steps compared (where both accepted the walk), {} differ ({} tokens, {} only by {}; EOS differs at {}); special tokens allowed at {} steps{}",
        m.engine,
        m.reference,
        m.steps_compared,
        m.steps_differing,
        m.tokens_differing,
        m.only_reference,
        m.reference,
        m.eos_differing,
        m.special_allowed,
        if examples.is_empty() {
            String::new()
        } else {
            format!(" (e.g. {})", examples.join("; "))
        }
    );
}

/// Whether a figure meets its goal, said plainly.
fn verdict(value: f64, goal: f64) -> &'static str {
    if value < goal {
        "met"
    } else {
        "missed"
    }
}

/// The goals of issue 12 for fstc on one grammar, with llguidance's figures beside them.
fn goals(results: &[EngineResult]) -> String {
    let find = |name: &str| results.iter().find(|e| e.name == name);
    let Some(f) = find("fstc") else {
        return String::new();
    };
    let compile = f.compile.as_secs_f64() * 1e3;
    let mut out = vec![format!(
        "fstc compile {:.1} ms (goal < {GOAL_COMPILE_MS}: {})",
        compile,
        verdict(compile, GOAL_COMPILE_MS)
    )];
    if let Some((_, p99, max)) = f.warm {
        out.push(format!(
            "mask p99 {} µs (goal < {GOAL_P99_US}: {}), max {} µs (goal < {GOAL_MAX_US}: {})",
            us(p99),
            verdict(p99, GOAL_P99_US),
            us(max),
            verdict(max, GOAL_MAX_US)
        ));
    } else {
        out.push("no warm masks (the walk failed): mask goals missed".into());
    }
    if let (Some(l), Some((_, fp99, _))) = (find("llguidance"), f.warm) {
        if let Some((_, lp99, _)) = l.warm {
            out.push(format!(
                "llguidance p99 / fstc p99 = {:.1}×",
                lp99 / fp99.max(1e-3)
            ));
        }
    }
    out.join("; ") + "."
}

/// How an engine took one probe text under the tokenizer's own encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// Every token taken and EOS allowed after the last.
    Accepted,
    /// Every token taken, EOS not allowed: a prefix of the language.
    Prefix,
    /// The token at this index refused.
    RefusedAt(usize),
    /// The text does not tokenize to exactly its bytes.
    Untokenizable(String),
}

/// The engine's verdict on each of `probes`, from a restart each.
fn verdicts(engine: &mut dyn Constraint, vocab: &LoadedVocab, probes: &[&str]) -> Vec<Verdict> {
    let mut mask = vec![0u32; vocab.mask_words()];
    probes
        .iter()
        .map(|text| {
            let ids = match vocab.tokenize(text) {
                Ok(ids) => ids,
                Err(e) => return Verdict::Untokenizable(format!("{e:#}")),
            };
            if engine.restart().is_err() {
                return Verdict::RefusedAt(0);
            }
            for (i, &t) in ids.iter().enumerate() {
                if engine.consume(t).is_err() {
                    // llguidance's matcher stays in its error state: the next restart
                    // recovers it from its pristine copy.
                    return Verdict::RefusedAt(i);
                }
            }
            let eos = engine.fill_mask(&mut mask).is_ok()
                && vocab
                    .eos_ids
                    .iter()
                    .any(|&e| mask[e as usize / 32] & (1 << (e % 32)) != 0);
            if eos {
                Verdict::Accepted
            } else {
                Verdict::Prefix
            }
        })
        .collect()
}

/// Probe texts the engines judge differently (by where they stop), one line each; one line
/// saying they agree otherwise.
fn probe_disagreements(
    case: &GrammarCase,
    per_engine: &[(&'static str, Vec<Verdict>)],
) -> Vec<String> {
    let Some(((ref_name, reference), others)) = per_engine.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, theirs) in others {
        let mut differing = 0;
        for ((text, a), b) in case.probes.iter().zip(reference).zip(theirs) {
            if a != b {
                differing += 1;
                out.push(format!(
                    "probe {text:?}: {ref_name} {a:?}, {name} {b:?} (tokenizer's own encoding)"
                ));
            }
        }
        let accepted = reference.iter().filter(|v| **v == Verdict::Accepted).count();
        out.push(format!(
            "probes: {} texts ({accepted} in the language by {ref_name}), {name} and {ref_name} \
             agree on {} (accepted, prefix, or refused at the same token)",
            case.probes.len(),
            case.probes.len() - differing
        ));
    }
    out
}

#[cfg(feature = "fstc")]
fn run_fstc(
    case: &GrammarCase,
    gbnf: &str,
    trie: &fst_core::compose::VocabTrie,
    events: &[Event],
    vocab: &LoadedVocab,
    options: &Options,
) -> Result<(Row, Vec<Verdict>)> {
    let compiled = engine::compile(gbnf, trie)?;
    let mut walker = engine::FstcMatcher::new(&compiled.automaton);
    let mut result = measure(
        "fstc",
        &mut walker,
        compiled.time,
        Some(compiled.bytes),
        events,
        vocab.mask_words(),
    );
    let verdicts = verdicts(&mut walker, vocab, case.probes);
    drop(walker);
    result.compile = fastest(compiled.time, options.compile_runs, || {
        engine::compile(gbnf, trie).map(|c| ((), c.time))
    })?;
    let note = format!(
        "{}; stack up to {} symbols along the walk",
        compiled.shape,
        engine::max_stack_depth(&compiled.automaton, events)
    );
    Ok((Row { result, note }, verdicts))
}

fn run_llguidance(
    lark: &str,
    factory: &llguidance::ParserFactory,
    events: &[Event],
    vocab: &LoadedVocab,
    case: &GrammarCase,
    options: &Options,
) -> Result<(Row, Vec<Verdict>)> {
    let compile = || {
        Llguidance::compile_grammar(
            TopLevelGrammar::from_lark(lark.to_string()),
            case.lark,
            factory,
        )
    };
    let (mut engine, first) = compile()?;
    let mut result = measure(
        "llguidance",
        &mut engine,
        first,
        None,
        events,
        vocab.mask_words(),
    );
    let verdicts = verdicts(&mut engine, vocab, case.probes);
    drop(engine);
    result.compile = fastest(first, options.compile_runs, compile)?;
    Ok((
        Row {
            result,
            note: "Lark; compiles lazily: the rest is in the masks".into(),
        },
        verdicts,
    ))
}
