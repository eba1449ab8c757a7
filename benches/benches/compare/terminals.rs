//! fstc alone: one constraint written with a wildcard terminal and with the plain regex that
//! spells the same text, compiled for the same vocabulary and walked along the same tokens.
//!
//! The peers have no terminals, so this is fstc against itself: what terminal labels save
//! in automaton size and mask time (Koo et al. section 2.5).

use anyhow::Result;
use fstc_core::walker::Walker;
use fstc_benches::fstc::{self, Fstc};
use fstc_benches::report::{ms, us, EngineResult};
use fstc_benches::vocab::LoadedVocab;
use fstc_benches::walk::{measure, schedule};

/// One constraint in its two forms.
pub struct TerminalCase {
    pub name: &'static str,
    /// With a terminal: a token-level wildcard.
    pub with_terminal: &'static str,
    /// Without: the byte-level regex it stands for.
    pub plain: &'static str,
    /// Sample texts as segments tokenized one by one, so that each terminal stands at a
    /// token boundary (a terminal reads whole tokens); both forms accept these walks.
    pub samples: &'static [&'static [&'static str]],
}

pub const TERMINAL_CASES: &[TerminalCase] = &[
    TerminalCase {
        name: "bullets",
        with_terminal: r"Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){3,5}",
        plain: r"Summary:(\n\* [^\n]+){3,5}",
        samples: &[
            &[
                "Summary:",
                "\n* ",
                "The build now uses a separate workspace for the peers.",
                "\n* ",
                "Compile time dropped by half on the large vocabularies.",
                "\n* ",
                "Masks are filled in time proportional to the allowed tokens.",
            ],
            &[
                "Summary:",
                "\n* ",
                "Revenue grew 12% year over year, to $4.2M.",
                "\n* ",
                "Churn fell below 3% for the first time.",
                "\n* ",
                "Hiring is paused until Q3.",
                "\n* ",
                "The café opening in Zürich moved to 2025.",
            ],
        ],
    },
    TerminalCase {
        name: "note line",
        with_terminal: r"Note: (?P<PARAGRAPH_TOKEN>)+\n",
        plain: r"Note: [^\n]+\n",
        samples: &[
            &[
                "Note: ",
                "the mask is a copy of a precomputed bitset.",
                "\n",
            ],
            &["Note: ", "naïve café ☕ — 東京", "\n"],
        ],
    },
];

/// One form of one case.
pub struct TerminalRow {
    pub case: &'static str,
    pub form: &'static str,
    pub pattern: &'static str,
    pub states: usize,
    /// Token edges (terminal edges not included).
    pub edges: usize,
    pub terminal_edges: usize,
    pub result: EngineResult,
}

/// Compiles and walks both forms of every case.
pub fn bench(vocab: &LoadedVocab, steps: usize) -> Result<Vec<TerminalRow>> {
    let width = vocab.mask_words();
    let (trie, _) = fstc::vocab_trie(vocab);
    let mut rows = Vec::new();
    for case in TERMINAL_CASES {
        eprintln!("  {} / terminals: {}", vocab.name, case.name);
        let samples = case
            .samples
            .iter()
            .map(|segments| -> Result<Vec<u32>> {
                let mut tokens = Vec::new();
                for s in *segments {
                    tokens.extend(vocab.tokenize(s)?);
                }
                Ok(tokens)
            })
            .collect::<Result<Vec<_>>>()?;
        let events = schedule(&samples, steps);
        for (form, pattern) in [("terminal", case.with_terminal), ("plain", case.plain)] {
            let (automaton, compile, _) = fstc::compile(pattern, &trie)?;
            let artifact = Some(fstc::artifact_bytes(&automaton));
            let terminal_edges = (0..automaton.num_states())
                .map(|s| automaton.terminal_edges(s).count())
                .sum();
            let mut engine = Fstc(Walker::new(&automaton));
            let result = measure("fstc", &mut engine, compile, artifact, &events, width);
            rows.push(TerminalRow {
                case: case.name,
                form,
                pattern,
                states: automaton.num_states() as usize,
                // `num_edges` counts terminal edges too.
                edges: automaton.num_edges() as usize - terminal_edges,
                terminal_edges,
                result,
            });
        }
    }
    Ok(rows)
}

/// One table: size and mask time of both forms, and the plain/terminal ratios.
pub fn print(rows: &[TerminalRow], steps: usize) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "Terminal labels (fstc only; {steps} masks per walk, both forms along the same tokens):"
    );
    println!();
    println!(
        "| constraint | form | pattern | compile ms | states | token edges | terminal edges | bytes | mask p50 µs | mask p99 µs | mask max µs | errors |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let dash = || "-".to_string();
    for r in rows {
        let (p50, p99, max) = r
            .result
            .warm
            .map_or((dash(), dash(), dash()), |w| (us(w.0), us(w.1), us(w.2)));
        println!(
            "| {} | {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.case,
            r.form,
            r.pattern.replace('|', "\\|").replace('\n', "\\n"),
            ms(r.result.compile),
            r.states,
            r.edges,
            r.terminal_edges,
            r.result.artifact.map_or_else(dash, |b| b.to_string()),
            p50,
            p99,
            max,
            r.result.errors.len()
        );
    }
    for pair in rows.chunks(2) {
        let [t, p] = pair else { continue };
        let ratio = |a: f64, b: f64| {
            if b > 0.0 {
                format!("{:.0}×", a / b)
            } else {
                dash()
            }
        };
        println!(
            "- {}: the plain form has {} the bytes and takes {} the compile time of the terminal form",
            t.case,
            ratio(
                p.result.artifact.unwrap_or(0) as f64,
                t.result.artifact.unwrap_or(0) as f64
            ),
            ratio(
                p.result.compile.as_secs_f64(),
                t.result.compile.as_secs_f64()
            ),
        );
    }
}
