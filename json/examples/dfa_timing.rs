//! Times the byte-DFA side alone (no vocabulary): patterns through the regex front end
//! (the subset construction, with and without look-around) and the JSON Schemas of
//! `json/tests/schemas` translated and built flat (the algebra's operations and the
//! subset construction of the whole schema). For before/after figures of the determinizer.
//!
//! Run: `cargo run --release -p fstc-json --example dfa_timing [REPS]` (default 30).
//! Prints the median time of each input in milliseconds and the sum of the medians.

use std::time::{Duration, Instant};

use fstc_json::JsonSchemaCompiler;
use fstc_regex::RegexBuilder;

/// Patterns for the plain subset construction and for the look-around one.
const PATTERNS: [(&str, &str); 12] = [
    ("ident", r"[^\W\d]\w*"),
    (
        "datetime",
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
    ),
    ("string", r#""([^"\\]|\\.)*""#),
    ("words5", r"\w{0,5}"),
    ("nth-from-end", r"(a|b)*a(a|b){11}"),
    ("email", r"[a-z0-9._%+-]{1,20}@[a-z0-9.-]{1,20}\.[a-z]{2,6}"),
    ("look-words", r"(?:\b\w+\b[ ,]*){1,8}"),
    ("look-lines", r"(?m)(?:^[a-z]+: \d+$\n?){1,5}"),
    (
        "look-password",
        r"(?=.*\d)(?=.*[a-z])(?=.*[A-Z])(?!.*\s).{8,16}",
    ),
    ("look-behind", r"(?:\d|(?<!-)-)+(?<=\d)"),
    ("look-nested", r"(?=.*\bfoo\b)(?<!^x)[a-z ]{1,20}"),
    ("look-wide", r"(?=[a-z]*\d)(?!.*--)[a-z0-9-]{4,24}"),
];

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 30,
    };
    let mut total = 0.0;
    let build = |pattern| RegexBuilder::new().state_limit(100_000).build(pattern);
    for (name, pattern) in PATTERNS {
        let states = match build(pattern) {
            Ok(dfa) => dfa.num_states(),
            Err(e) => {
                println!("regex  {name:<16} error: {e}");
                continue;
            }
        };
        let ms = time(reps, || {
            build(pattern).expect("built above");
        });
        total += ms;
        println!("regex  {name:<16} {states:>6} states {ms:>9.3} ms");
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas");
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    let compiler = JsonSchemaCompiler::new();
    for path in paths {
        // A test file holds the schema and its instances: `{"schema": …, "valid": …}`.
        let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let text = file.get("schema").unwrap_or(&file).to_string();
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        let build = || -> Result<_, Box<dyn std::error::Error>> {
            Ok(compiler.to_regex(&text)?.dfa(10_000)?)
        };
        let states = match build() {
            Ok(dfa) => dfa.num_states(),
            Err(e) => {
                println!("schema {name:<28} error: {e}");
                continue;
            }
        };
        let ms = time(reps, || {
            build().expect("built above");
        });
        total += ms;
        println!("schema {name:<28} {states:>6} states {ms:>9.3} ms");
    }
    println!("sum of medians {total:.3} ms");
    Ok(())
}
