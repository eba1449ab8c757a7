//! Compares fstc with outlines-core and llguidance on the same regexes and tokenizers, in
//! one process, and prints markdown tables.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench compare -- [--vocab NAME_OR_PATH ...] [--quick] [--steps N]`.
//! See benches/README.md for what is measured.

mod peers;
mod report;
mod samples;
mod vocab;
mod walk;

#[cfg(feature = "fstc")]
mod fstc;
#[cfg(feature = "fstc")]
mod terminals;

use anyhow::{bail, Context, Result};

use crate::peers::{Llguidance, Outlines};
use crate::report::{CaseResult, VocabResult};
use crate::samples::CASES;
use crate::vocab::LoadedVocab;
use crate::walk::{fastest, measure, schedule, Event};

/// Vocabularies above this many tokens skip outlines-core under `--quick`.
const QUICK_OUTLINES_LIMIT: usize = 100_000;

struct Options {
    vocabs: Vec<String>,
    quick: bool,
    steps: usize,
    compile_runs: usize,
}

fn parse_args() -> Result<Options> {
    let mut options = Options {
        vocabs: Vec::new(),
        quick: false,
        steps: 200,
        compile_runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--vocab" => options
                .vocabs
                .push(args.next().context("--vocab needs a name or a path")?),
            "--quick" => options.quick = true,
            "--steps" => {
                options.steps = args
                    .next()
                    .context("--steps needs a number")?
                    .parse()
                    .context("--steps needs a positive number")?;
                if options.steps == 0 {
                    bail!("--steps needs a positive number");
                }
            }
            "--compile-runs" => {
                options.compile_runs = args
                    .next()
                    .context("--compile-runs needs a number")?
                    .parse()
                    .context("--compile-runs needs a positive number")?;
                if options.compile_runs == 0 {
                    bail!("--compile-runs needs a positive number");
                }
            }
            // `cargo bench` passes `--bench` to every bench binary.
            "--bench" => {}
            "--help" | "-h" => {
                println!(
                    "compare [--vocab NAME_OR_PATH ...] [--quick] [--steps N] [--compile-runs N]\n\
                     --vocab   a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json\n\
                     --quick   skip outlines-core on vocabularies over {QUICK_OUTLINES_LIMIT} tokens\n\
                     --steps   masks per walk (default 200)\n\
                     --compile-runs  compiles per engine and regex; the fastest is reported (default 3)"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?} (try --help)"),
        }
    }
    Ok(options)
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    let options = parse_args()?;
    let dirs = if options.vocabs.is_empty() {
        let found = vocab::default_vocabs();
        if found.is_empty() {
            bail!(
                "no vocabulary found under {:?}; run benches/fetch_tokenizers.sh or pass --vocab PATH",
                vocab::search_dirs()
            );
        }
        found
    } else {
        options
            .vocabs
            .iter()
            .map(|v| vocab::resolve(v))
            .collect::<Result<Vec<_>>>()?
    };

    let mut results = Vec::new();
    for dir in &dirs {
        eprintln!("loading {}", dir.display());
        let vocab = vocab::load(dir)?;
        let result = bench_vocab(&vocab, &options)?;
        report::print_vocab(&result);
        #[cfg(feature = "fstc")]
        terminals::print(&terminals::bench(&vocab, options.steps)?, options.steps);
        results.push(result);
    }
    report::print_scaling(&results);
    Ok(())
}

fn bench_vocab(vocab: &LoadedVocab, options: &Options) -> Result<VocabResult> {
    let width = vocab.mask_words();
    let run_outlines = !(options.quick && vocab.len() > QUICK_OUTLINES_LIMIT);

    let started = std::time::Instant::now();
    let outlines_vocab = if run_outlines {
        Some(peers::outlines_vocabulary(vocab)?)
    } else {
        None
    };
    let outlines_vocab_time = started.elapsed();
    let (factory, llg_setup) = peers::llguidance_factory(vocab)?;
    #[cfg(feature = "fstc")]
    let (fstc_trie, fstc_setup) = {
        let started = std::time::Instant::now();
        let trie = fst_core::compose::VocabTrie::new(&vocab.detok);
        (trie, started.elapsed())
    };

    let mut cases = Vec::new();
    #[allow(unused_mut)] // only the fstc feature adds to it
    let mut tokenize_disagreements = Vec::new();
    for case in CASES {
        eprintln!("  {} / {}", vocab.name, case.name);
        let samples = case
            .samples
            .iter()
            .map(|s| vocab.tokenize(s))
            .collect::<Result<Vec<_>>>()?;
        #[cfg(feature = "fstc")]
        for (text, ours) in case.samples.iter().zip(&samples) {
            match vocab.detok.tokenize(text) {
                Ok(ids) if ids == *ours => {}
                Ok(ids) => tokenize_disagreements.push((
                    text.to_string(),
                    format!("{ids:?}"),
                    ours.clone(),
                )),
                Err(e) => tokenize_disagreements.push((
                    text.to_string(),
                    format!("an error ({e})"),
                    ours.clone(),
                )),
            }
        }
        let events = schedule(&samples, options.steps);
        let mut engines = Vec::new();
        #[allow(unused_mut, unused_assignments)] // only the fstc feature sets it
        let mut fstc_stages = None;

        #[cfg(feature = "fstc")]
        {
            let (automaton, compile, stages) = fstc::compile(case.pattern, &fstc_trie)?;
            fstc_stages = Some((
                stages.byte_dfa_time,
                stages.byte_dfa_states,
                stages.compose_time,
                stages.layout_time,
            ));
            let artifact = Some(fstc::artifact_bytes(&automaton));
            let shape = Some((
                automaton.num_states() as usize,
                automaton.num_edges() as usize,
            ));
            let mut engine = fstc::Fstc::new(&automaton);
            let mut result = measure("fstc", &mut engine, compile, artifact, &events, width);
            result.shape = shape;
            result.compile = fastest(compile, options.compile_runs, || {
                fstc::compile(case.pattern, &fstc_trie).map(|(a, time, _)| (a, time))
            })?;
            engines.push(result);
        }

        if let Some(ov) = &outlines_vocab {
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
            result.compile = fastest(compile, options.compile_runs, || {
                Outlines::compile(case.pattern, ov)
            })?;
            engines.push(result);
        }

        let (mut engine, compile) = Llguidance::compile(case.pattern, &factory)?;
        let mut result = measure("llguidance", &mut engine, compile, None, &events, width);
        drop(engine);
        result.compile = fastest(compile, options.compile_runs, || {
            Llguidance::compile(case.pattern, &factory)
        })?;
        engines.push(result);

        let mismatches = report::cross_check(vocab, &engines);
        cases.push(CaseResult {
            name: case.name,
            pattern: case.pattern,
            samples: samples.len(),
            sample_tokens: samples.iter().map(Vec::len).sum(),
            steps: events.iter().filter(|e| **e == Event::Mask).count(),
            fstc_stages,
            engines,
            mismatches,
        });
    }
    Ok(VocabResult {
        name: vocab.name.clone(),
        dir: vocab.dir.display().to_string(),
        size: vocab.len(),
        eos_ids: vocab.eos_ids.clone(),
        reader_disagreements: vocab.reader_disagreements.clone(),
        tokenize_disagreements,
        outlines_skipped: !run_outlines,
        outlines_vocab_time,
        llg_setup,
        #[cfg(feature = "fstc")]
        fstc_setup: Some(fstc_setup),
        #[cfg(not(feature = "fstc"))]
        fstc_setup: None,
        cases,
    })
}
