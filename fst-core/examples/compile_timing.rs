//! Times `RegexCompiler::compile_with_trie` stage by stage on real vocabularies, with
//! repetitions, so a compile-time change can be measured without the peers.
//!
//! Run in release: `cargo run --release -p fstc-core --example compile_timing [VOCABS_DIR] [REPS]`
//! (default: `testkit::vocabs::shared_vocabs_dir`, 50 repetitions). Prints the median of
//! each stage per pattern and vocabulary, the fastest total and the first one (what a
//! single compile costs, as the comparison bench measures it), and on stderr the time to
//! build each vocabulary's trie. After the shared patterns come patterns with assertions.
//! `VOCAB=llama3` and `ONLY=string` narrow the run (for profiling);
//! `PATTERN='(\w+ ){2,8}\w+'` times one regex of your own instead.

use std::path::PathBuf;
use std::time::Duration;

use fstc_core::vocab::VocabTrie;
use fstc_regex::RegexCompiler;

#[path = "shared/patterns.rs"]
mod patterns;
use patterns::PATTERNS;

/// Patterns with assertions (compiled by `regex/look.rs`), timed after [`PATTERNS`]:
/// word boundaries, multi-line anchors, look-ahead, look-behind, and assertions inside
/// look-around bodies. Not in the shared list: the peers of the comparison bench refuse
/// most of them.
const ASSERTION_PATTERNS: [(&str, &str); 5] = [
    ("words", r"(?:\b\w+\b[ ,]*){1,8}"),
    ("lines", r"(?m)(?:^[a-z]+: \d+$\n?){1,5}"),
    ("password", r"(?=.*\d)(?=.*[a-z])(?=.*[A-Z])(?!.*\s).{8,16}"),
    ("lookbehind", r"(?:\d|(?<!-)-)+(?<=\d)"),
    ("nested", r"(?=.*\bfoo\b)(?<!^x)[a-z ]{1,20}"),
];

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn fail(message: &str) -> ! {
    eprintln!("compile_timing: {message}");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map(PathBuf::from)
        .or_else(testkit::vocabs::shared_vocabs_dir)
        .unwrap_or_else(|| {
            fail("no vocabularies: pass a directory holding gpt2/ llama2/ llama3/ qwen3/")
        });
    let reps: usize = match args.next().map(|r| r.parse()) {
        None => 50,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => fail("REPS must be a positive number"),
    };
    let only = std::env::var("ONLY").ok();
    // `PATTERN=...` times that regex alone, under the name "custom".
    let custom = std::env::var("PATTERN").ok();
    let patterns: Vec<(&str, &str)> = match &custom {
        Some(pattern) => vec![("custom", pattern.as_str())],
        None => PATTERNS
            .iter()
            .chain(&ASSERTION_PATTERNS)
            .copied()
            .collect(),
    };
    println!("| vocabulary | pattern | byte DFA ms | compose ms | layout ms | total ms | min total ms | first total ms |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let vocab_filter = std::env::var("VOCAB").ok();
    let mut loaded = 0;
    for (name, file) in testkit::vocabs::SHARED_VOCABS {
        if vocab_filter.as_deref().is_some_and(|v| v != name) {
            continue;
        }
        let vocab = match fstc_detok::Vocabulary::from_file(dir.join(file)) {
            Ok(vocab) => vocab,
            Err(e) => {
                eprintln!("compile_timing: skipped {name}: {e}");
                continue;
            }
        };
        loaded += 1;
        let started = std::time::Instant::now();
        let trie = VocabTrie::new(&vocab);
        eprintln!(
            "{name}: vocabulary trie built in {:.1} ms (once per vocabulary)",
            started.elapsed().as_secs_f64() * 1e3
        );
        for &(label, pattern) in &patterns {
            if only.as_deref().is_some_and(|o| o != label) {
                continue;
            }
            let compiler = RegexCompiler::new();
            let (mut dfa, mut compose, mut layout, mut total) = (vec![], vec![], vec![], vec![]);
            for _ in 0..reps {
                let (_, stats) = compiler
                    .compile_with_trie(pattern, &trie)
                    .unwrap_or_else(|e| fail(&format!("{label}: {e}")));
                dfa.push(stats.byte_dfa_time);
                compose.push(stats.compose_time);
                layout.push(stats.layout_time);
                total.push(stats.byte_dfa_time + stats.compose_time + stats.layout_time);
            }
            let first = total[0].as_secs_f64() * 1e3;
            let min = total.iter().min().map_or(0.0, |d| d.as_secs_f64() * 1e3);
            println!(
                "| {name} | {label} | {:.3} | {:.3} | {:.3} | {:.3} | {min:.3} | {first:.3} |",
                median(dfa),
                median(compose),
                median(layout),
                median(total)
            );
        }
    }
    if loaded == 0 {
        fail(&format!(
            "no vocabulary could be read under {}",
            dir.display()
        ));
    }
}
