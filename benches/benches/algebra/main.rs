//! Expressions over constraints (issue 25): a grammar under a token bound (the bounded
//! construction and the layout of its token PDA) and regular constraints combined on
//! bytes or on tokens, each compiled by `ExprCompiler::compile_any_with_trie` over a
//! vocabulary trie built once, the fastest of `--compile-runs`. fstc only, absolute: no
//! peer computes these languages (llguidance's `max_tokens` caps a lexeme or rule where a
//! decoder may paint itself into a corner; here every allowed token can still finish).
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench algebra -- [--vocab NAME_OR_PATH ...] [--compile-runs N]`.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use fstc_benches::vocab::{self, LoadedVocab};
use fstc_core::compiled::Compiled;
use fstc_core::vocab::VocabTrie;
use fstc_core::AnyAutomaton;
use fstc_expr::{Expr, ExprCompiler, Level};

const USAGE: &str = "algebra [--vocab NAME_OR_PATH ...] [--compile-runs N]
--vocab         a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json (default: every vocabulary found)
--compile-runs  compiles per expression; the fastest is reported (default 3)";

/// The expressions, with the level of their boolean operations on bytes.
const CASES: &[(&str, Level)] = &[
    (
        r#"intersect(grammar_file("pda/tests/grammars/json.gbnf"), max_tokens(50))"#,
        Level::Bytes,
    ),
    (
        r#"intersect(grammar_file("pda/tests/grammars/json.gbnf"), max_tokens(200))"#,
        Level::Bytes,
    ),
    (
        r#"intersect(grammar_file("pda/tests/grammars/arith.gbnf"), max_tokens(100))"#,
        Level::Bytes,
    ),
    (
        r#"intersect(regex(r"[a-z]+@[a-z]+\.(com|org)"), complement(regex(r"(?s:.)*example(?s:.)*")), max_tokens(5))"#,
        Level::Bytes,
    ),
    (
        r#"intersect(regex(r"[a-z]+@[a-z]+\.(com|org)"), complement(regex(r"(?s:.)*example(?s:.)*")), max_tokens(5))"#,
        Level::Tokens,
    ),
    (
        r#"intersect(json_schema("{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}", whitespace="compact"), max_tokens(40))"#,
        Level::Bytes,
    ),
];

fn main() {
    fstc_benches::main_with(run);
}

fn run() -> Result<()> {
    let options = fstc_benches::args::parse(USAGE, &[])?;
    let vocabs = vocab::chosen(&options.vocabs)?;
    println!(
        "Expressions compiled over a prebuilt vocabulary trie, fastest of {} runs.\n",
        options.compile_runs
    );
    for dir in vocabs {
        let vocab = vocab::load(&dir)?;
        table(&vocab, options.compile_runs)?;
    }
    Ok(())
}

fn table(vocab: &LoadedVocab, runs: usize) -> Result<()> {
    let trie = VocabTrie::new(&vocab.detok);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    println!("### {} ({} tokens)\n", vocab.name, vocab.size());
    println!("| expression | level | compile ms | of it: bound / product ms | of it: layout ms | result | bytes |");
    println!("|---|---|---:|---:|---:|---|---:|");
    for &(text, level) in CASES {
        let expr = Expr::parse(text).map_err(|e| anyhow!("{text}: {e}"))?;
        // Measured, not budgeted: the default 10 s is short on a loaded machine.
        let unbudgeted = fstc_json::Config::new().time_budget(Duration::from_secs(600));
        let compiler = (ExprCompiler::new().configure(unbudgeted))
            .boolean_level(level)
            .base_dir(&root);
        let mut best: Option<(Duration, Compiled<AnyAutomaton>)> = None;
        for _ in 0..runs.max(1) {
            let started = Instant::now();
            let compiled = (compiler.compile_any_with_trie(&expr, &trie))
                .map_err(|e| anyhow!("{text}: {e}"))?;
            let took = started.elapsed();
            if best.as_ref().is_none_or(|(t, _)| took < *t) {
                best = Some((took, compiled));
            }
        }
        let (took, compiled) = best.expect("one run at least");
        let stats = &compiled.stats;
        // The last phases: the token operation's product and the result's layout.
        let phase = |names: &[&str]| {
            (stats.phases().iter().rev())
                .find(|(n, _)| names.contains(n))
                .map_or("-".to_string(), |(_, d)| ms(*d))
        };
        let (result, bytes) = match &compiled.automaton {
            AnyAutomaton::Pda(p) => (
                format!("token PDA, {} nodes", p.num_nodes()),
                p.as_words().len() * 4,
            ),
            AnyAutomaton::Fsa(a) => (
                format!("token FSA, {} states", a.num_states()),
                a.as_words().len() * 4,
            ),
        };
        println!(
            "| `{text}` | {level:?} | {} | {} | {} | {result} | {bytes} |",
            ms(took),
            phase(&["bounded product", "product"]),
            phase(&["layout"]),
        );
    }
    println!();
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}
