//! The command line every bench takes: `--vocab`, `--steps`, `--compile-runs`, plus the
//! bench's own on/off flags.

use anyhow::{bail, Context, Result};

/// A bench's options.
pub struct Options {
    /// `--vocab` arguments in order (a name, a folder or a tokenizer.json); empty when none.
    pub vocabs: Vec<String>,
    /// Masks per walk.
    pub steps: usize,
    /// Compiles per engine and constraint; the fastest is reported.
    pub compile_runs: usize,
    /// The bench's own flags that were given.
    flags: Vec<&'static str>,
}

impl Options {
    /// Whether the bench's own flag `name` (one of those passed to [`parse`]) was given.
    pub fn flag(&self, name: &str) -> bool {
        self.flags.contains(&name)
    }
}

/// The options of `std::env::args()`. `flags` are the bench's own on/off flags (e.g.
/// `--quick`); `--help` prints `usage` and exits.
pub fn parse(usage: &str, flags: &[&'static str]) -> Result<Options> {
    let mut options = Options {
        vocabs: Vec::new(),
        steps: 200,
        compile_runs: 3,
        flags: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--vocab" => options
                .vocabs
                .push(args.next().context("--vocab needs a name or a path")?),
            "--steps" => options.steps = positive(args.next(), "--steps")?,
            "--compile-runs" => options.compile_runs = positive(args.next(), "--compile-runs")?,
            // `cargo bench` passes `--bench` to every bench binary.
            "--bench" => {}
            "--help" | "-h" => {
                println!("{usage}");
                std::process::exit(0);
            }
            other => match flags.iter().find(|f| **f == other) {
                Some(flag) => options.flags.push(flag),
                None => bail!("unknown argument {other:?} (try --help)"),
            },
        }
    }
    Ok(options)
}

fn positive(value: Option<String>, what: &str) -> Result<usize> {
    match value.map(|v| v.parse::<usize>()) {
        Some(Ok(n)) if n > 0 => Ok(n),
        _ => bail!("{what} needs a positive number"),
    }
}
