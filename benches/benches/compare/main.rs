//! Compares fstc with outlines-core and llguidance on the same regexes and tokenizers, in
//! one process, and prints markdown tables.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench compare -- [--vocab NAME_OR_PATH ...] [--quick] [--steps N] [--compile-runs N]`.
//! See benches/README.md for what is measured.

mod report;
mod samples;
mod terminals;

use anyhow::{bail, Result};
use fstc_core::walker::Walker;
use fstc_benches::args::Options;
use fstc_benches::fstc::{self, Fstc};
use fstc_benches::peers::{self, Llguidance, Outlines};
use fstc_benches::report::cross_check;
use fstc_benches::vocab::{self, LoadedVocab};
use fstc_benches::walk::{fastest, measure, schedule, Event};

use crate::report::{CaseResult, VocabResult};
use crate::samples::CASES;

/// Vocabularies above this many tokens skip outlines-core under `--quick`.
const QUICK_OUTLINES_LIMIT: usize = 100_000;

const USAGE: &str = "compare [--vocab NAME_OR_PATH ...] [--quick] [--steps N] [--compile-runs N]
--vocab   a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json
--quick   skip outlines-core on vocabularies over 100000 tokens
--steps   masks per walk (default 200)
--compile-runs  compiles per engine and regex; the fastest is reported (default 3)";

fn main() {
    fstc_benches::main_with(real_main);
}

fn real_main() -> Result<()> {
    let options = fstc_benches::args::parse(USAGE, &["--quick"])?;
    let dirs = vocab::chosen(&options.vocabs)?;
    if dirs.is_empty() {
        bail!(
            "no vocabulary found under {:?}; run benches/fetch_tokenizers.sh or pass --vocab PATH",
            vocab::search_dirs()
        );
    }

    let mut results = Vec::new();
    for dir in &dirs {
        eprintln!("loading {}", dir.display());
        let vocab = vocab::load(dir)?;
        let result = bench_vocab(&vocab, &options)?;
        report::print_vocab(&result);
        terminals::print(&terminals::bench(&vocab, options.steps)?, options.steps);
        results.push(result);
    }
    report::print_scaling(&results);
    Ok(())
}

/// What a vocabulary's cases share: the peers' and fstc's per-vocabulary setup.
struct Setup {
    outlines: Option<outlines_core::prelude::Vocabulary>,
    llguidance: llguidance::ParserFactory,
    trie: fstc_core::vocab::VocabTrie,
}

fn bench_vocab(vocab: &LoadedVocab, options: &Options) -> Result<VocabResult> {
    let run_outlines = !(options.flag("--quick") && vocab.size() > QUICK_OUTLINES_LIMIT);
    let (outlines, outlines_vocab_time) = if run_outlines {
        let (v, time) = peers::outlines_vocabulary(vocab)?;
        (Some(v), time)
    } else {
        (None, Default::default())
    };
    let (llguidance, llg_setup) = peers::llguidance_factory(vocab)?;
    let (trie, fstc_setup) = fstc::vocab_trie(vocab);
    let setup = Setup {
        outlines,
        llguidance,
        trie,
    };

    let mut cases = Vec::new();
    let mut tokenize_disagreements = Vec::new();
    for case in CASES {
        eprintln!("  {} / {}", vocab.name, case.name);
        let samples = case
            .samples
            .iter()
            .map(|s| vocab.tokenize(s))
            .collect::<Result<Vec<_>>>()?;
        tokenize_disagreements.extend(detok_disagreements(vocab, case.samples, &samples));
        cases.push(bench_case(vocab, case, samples, &setup, options)?);
    }
    Ok(VocabResult {
        name: vocab.name.clone(),
        dir: vocab.dir.display().to_string(),
        size: vocab.size(),
        eos_ids: vocab.eos_ids.clone(),
        reader_disagreements: vocab.reader_disagreements.clone(),
        tokenize_disagreements,
        outlines_skipped: !run_outlines,
        outlines_vocab_time,
        llg_setup,
        fstc_setup,
        cases,
    })
}

/// The samples detok tokenizes otherwise than the `tokenizers` crate did (`ids`): (text,
/// detok's tokens or error, the crate's tokens).
fn detok_disagreements(
    vocab: &LoadedVocab,
    texts: &[&str],
    ids: &[Vec<u32>],
) -> Vec<(String, String, Vec<u32>)> {
    texts
        .iter()
        .zip(ids)
        .filter_map(|(text, ours)| {
            let detok = match vocab.detok.tokenize(text) {
                Ok(ids) if ids == *ours => return None,
                Ok(ids) => format!("{ids:?}"),
                Err(e) => format!("an error ({e})"),
            };
            Some((text.to_string(), detok, ours.clone()))
        })
        .collect()
}

/// Every engine on one regex, along the walk of its samples.
fn bench_case(
    vocab: &LoadedVocab,
    case: &samples::Case,
    samples: Vec<Vec<u32>>,
    setup: &Setup,
    options: &Options,
) -> Result<CaseResult> {
    let width = vocab.mask_words();
    let runs = options.compile_runs;
    let events = schedule(&samples, options.steps);
    let mut engines = Vec::new();

    let (automaton, compile, fstc_stages) = fstc::compile(case.pattern, &setup.trie)?;
    let mut engine = Fstc(Walker::new(&automaton));
    let artifact = Some(fstc::artifact_bytes(&automaton));
    let mut result = measure("fstc", &mut engine, compile, artifact, &events, width);
    result.shape = Some((
        automaton.num_states() as usize,
        automaton.num_edges() as usize,
    ));
    result.compile = fastest(compile, runs, || {
        fstc::compile(case.pattern, &setup.trie).map(|(a, time, _)| (a, time))
    })?;
    engines.push(result);

    if let Some(ov) = &setup.outlines {
        let (mut engine, compile) = Outlines::compile(case.pattern, ov)?;
        let artifact = Some(engine.artifact_bytes()?);
        let shape = Some(engine.shape());
        let mut result = measure(
            "outlines-core",
            &mut engine,
            compile,
            artifact,
            &events,
            width,
        );
        result.shape = shape;
        result.compile = fastest(compile, runs, || Outlines::compile(case.pattern, ov))?;
        engines.push(result);
    }

    let factory = &setup.llguidance;
    let (mut engine, compile) = Llguidance::compile(case.pattern, factory)?;
    let mut result = measure("llguidance", &mut engine, compile, None, &events, width);
    drop(engine);
    result.compile = fastest(compile, runs, || Llguidance::compile(case.pattern, factory))?;
    engines.push(result);

    Ok(CaseResult {
        name: case.name,
        pattern: case.pattern,
        samples: samples.len(),
        sample_tokens: samples.iter().map(Vec::len).sum(),
        steps: events.iter().filter(|e| **e == Event::Mask).count(),
        fstc_stages,
        mismatches: cross_check(vocab, &engines),
        engines,
    })
}
