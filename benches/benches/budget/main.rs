//! The cost of the time budget's deadline polls inside compiles (issue 27): each constraint
//! compiled with a deadline (the compiler reads the clock every few thousand steps of
//! grouping, walking the vocabulary and minimizing; a grammar's rule DFAs, analysis, byte
//! PDA, walk and node merging) and without one (no clock read; a grammar's step counters
//! still run), alternately in one process, the fastest of `--compile-runs` each. fstc only:
//! the peers have no such budget.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench budget -- [--vocab NAME_OR_PATH ...] [--compile-runs N]`.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use fstc_benches::vocab::{self, LoadedVocab};
use fstc_core::vocab::VocabTrie;
use fstc_pda::GrammarCompiler;
use fstc_regex::RegexCompiler;

const USAGE: &str = "budget [--vocab NAME_OR_PATH ...] [--compile-runs N]
--vocab         a name under ../shared/vocabs or benches/vocabs, a folder, or a tokenizer.json (default: every vocabulary found)
--compile-runs  compiles per constraint and setting, alternating; the fastest is reported (default 3)";

/// The regexes of the compare bench (issue 3) and a long bounded string, composed eagerly.
const REGEXES: &[(&str, &str)] = &[
    ("identifier", r"[^\W\d]\w*"),
    (
        "IPv4",
        r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
    ),
    (
        "date-time",
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
    ),
    ("bullets", r"Summary:(\n\* [^\n]+){3,5}"),
    ("quoted string", r#""([^"\\]|\\.)*""#),
    ("string of 0-300", r#""[^"\\]{0,300}""#),
];

/// The grammar bench's GBNF files.
const GRAMMARS: &[&str] = &[
    "pda/tests/grammars/json.gbnf",
    "pda/tests/grammars/arith.gbnf",
    "pda/tests/grammars/nondeterministic/ambiguous_expr.gbnf",
    "pda/tests/grammars/nondeterministic/sql_optional.gbnf",
    "pda/tests/grammars/nondeterministic/clike_keywords.gbnf",
];

fn main() {
    fstc_benches::main_with(run);
}

fn run() -> Result<()> {
    let options = fstc_benches::args::parse(USAGE, &[])?;
    let vocabs = vocab::chosen(&options.vocabs)?;
    println!(
        "Compile time with and without a deadline polled inside the compile, fastest of {} \
         runs each, alternating.\n",
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
    println!("### {} ({} tokens)\n", vocab.name, vocab.size());
    println!("| constraint | no deadline ms | deadline ms | difference |");
    println!("|---|---:|---:|---:|");
    for &(name, pattern) in REGEXES {
        let compile = |deadline: Option<Instant>| {
            let config = fstc_regex::Config::new().time_budget(fstc_regex::time_left(deadline));
            let started = Instant::now();
            RegexCompiler::new()
                .configure(config)
                .compile_with_trie(pattern, &trie)
                .map_err(|e| anyhow!("{name}: {e}"))?;
            Ok(started.elapsed())
        };
        row(&format!("regex {name}"), runs, compile)?;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for &rel in GRAMMARS {
        let text = std::fs::read_to_string(root.join(rel)).with_context(|| rel.to_string())?;
        let compile = |deadline: Option<Instant>| {
            // Duration::MAX has no deadline an Instant can hold: nothing reads the clock.
            let budget = match deadline {
                Some(_) => fstc_pda::Config::DEFAULT_TIME_BUDGET,
                None => Duration::MAX,
            };
            let config = fstc_pda::Config::new().time_budget(budget);
            let started = Instant::now();
            GrammarCompiler::new()
                .configure(config)
                .compile_with_trie(&text, &trie)
                .map_err(|e| anyhow!("{rel}: {e}"))?;
            Ok(started.elapsed())
        };
        let name = rel.rsplit('/').next().unwrap_or(rel);
        row(&format!("grammar {name}"), runs, compile)?;
    }
    println!();
    Ok(())
}

/// One row: `compile(None)` and `compile(Some(deadline))` alternately, `runs` times each.
fn row(
    label: &str,
    runs: usize,
    compile: impl Fn(Option<Instant>) -> Result<Duration>,
) -> Result<()> {
    let (mut without, mut with) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs {
        without = without.min(compile(None)?);
        let far = Instant::now() + Duration::from_secs(3600);
        with = with.min(compile(Some(far))?);
    }
    let (a, b) = (without.as_secs_f64() * 1e3, with.as_secs_f64() * 1e3);
    println!(
        "| {label} | {a:.2} | {b:.2} | {:+.1}% |",
        (b - a) / a * 100.0
    );
    Ok(())
}
