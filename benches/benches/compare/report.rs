//! The comparison's tables: one per vocabulary, its ratios and cross-check, and the scaling
//! table.

use std::time::Duration;

use fstc_regex::CompileStats;
use fstc_benches::report::{ms, ratio, show_bytes, us, EngineResult, Mismatch};
use fstc_benches::vocab::Disagreement;

pub struct CaseResult {
    pub name: &'static str,
    pub pattern: &'static str,
    pub samples: usize,
    pub sample_tokens: usize,
    pub steps: usize,
    /// fstc's compile stages (first run).
    pub fstc_stages: CompileStats,
    pub engines: Vec<EngineResult>,
    pub mismatches: Vec<Mismatch>,
}

pub struct VocabResult {
    pub name: String,
    pub dir: String,
    pub size: usize,
    pub eos_ids: Vec<u32>,
    pub reader_disagreements: Result<Vec<Disagreement>, String>,
    /// Samples detok tokenizes differently from the `tokenizers` crate: (text, detok's
    /// tokens or error, the crate's tokens).
    pub tokenize_disagreements: Vec<(String, String, Vec<u32>)>,
    pub outlines_skipped: bool,
    pub outlines_vocab_time: Duration,
    pub llg_setup: Duration,
    pub fstc_setup: Duration,
    pub cases: Vec<CaseResult>,
}

/// One vocabulary's table, its ratios and its cross-check.
pub fn print_vocab(v: &VocabResult) {
    println!("\n## {} ({} tokens, EOS {:?})\n", v.name, v.size, v.eos_ids);
    println!("Read from `{}`.", v.dir);
    let mut setup = format!(
        "Per-vocabulary setup, not in the compile times: llguidance token trie + parser factory {} ms",
        ms(v.llg_setup)
    );
    if !v.outlines_skipped {
        setup += &format!(
            "; outlines-core `Vocabulary` from token bytes {} ms",
            ms(v.outlines_vocab_time)
        );
    }
    setup += &format!(
        "; fstc vocabulary trie {} ms (built once, shared by every compile)",
        ms(v.fstc_setup)
    );
    println!("{setup}.");
    let reader = match &v.reader_disagreements {
        Ok(list) => list.as_slice(),
        Err(e) => {
            println!("llguidance's tokenizer.json reader cannot read it ({e}); every engine is given detok's bytes.");
            &[]
        }
    };
    if !reader.is_empty() {
        let show = |b: &Option<Vec<u8>>| b.as_deref().map_or("(special)".to_string(), show_bytes);
        let examples: Vec<String> = reader
            .iter()
            .take(3)
            .map(|(id, ours, theirs)| format!("{id}: detok {} vs {}", show(ours), show(theirs)))
            .collect();
        println!(
            "llguidance's tokenizer.json reader decodes {} token(s) differently from detok ({}); \
             every engine is given detok's bytes.",
            reader.len(),
            examples.join("; ")
        );
    }
    for (text, detok, ours) in v.tokenize_disagreements.iter().take(3) {
        println!(
            "detok tokenizes {text:?} as {detok}, the tokenizers crate as {ours:?} (the walk uses the latter)."
        );
    }
    if v.outlines_skipped {
        println!("outlines-core skipped (`--quick` on a vocabulary over 100k tokens).");
    }
    println!();
    println!(
        "| regex | engine | compile ms | 1st mask µs | cold p99 µs | cold max µs | mask p50 µs | mask p99 µs | mask max µs | artifact bytes | errors |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let dash = || "-".to_string();
    for case in &v.cases {
        for e in &case.engines {
            let (c99, cmax) = e.cold.map_or((dash(), dash()), |c| (us(c.1), us(c.2)));
            let (p50, p99, max) = e
                .warm
                .map_or((dash(), dash(), dash()), |w| (us(w.0), us(w.1), us(w.2)));
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                case.name,
                e.name,
                ms(e.compile),
                e.first_mask
                    .map_or_else(dash, |d| us(d.as_secs_f64() * 1e6)),
                c99,
                cmax,
                p50,
                p99,
                max,
                e.artifact.map_or_else(|| "n/a".into(), |b| b.to_string()),
                e.errors.len()
            );
        }
    }

    println!();
    println!(
        "Walks: {} masks per regex; ",
        v.cases.first().map_or(0, |c| c.steps)
    );
    for case in &v.cases {
        let shapes: Vec<String> = case
            .engines
            .iter()
            .filter_map(|e| {
                e.shape
                    .map(|(s, t)| format!("{} {s} states / {t} edges", e.name))
            })
            .collect();
        println!(
            "- `{}` `{}`: {} samples, {} tokens{}",
            case.name,
            case.pattern,
            case.samples,
            case.sample_tokens,
            if shapes.is_empty() {
                String::new()
            } else {
                format!("; {}", shapes.join(", "))
            }
        );
        let stages = &case.fstc_stages;
        println!(
            "  - fstc compile stages (first run): byte DFA {} ms ({} states), \
             compose + minimize {} ms, layout {} ms",
            ms(stages.byte_dfa_time),
            stages.byte_dfa_states,
            ms(stages.compose_time),
            ms(stages.layout_time)
        );
    }

    println!();
    println!(
        "| regex | outlines compile / fstc compile | slowest-peer p99 / fstc p99 | fastest-peer p99 / fstc p99 |"
    );
    println!("|---|---:|---:|---:|");
    for case in &v.cases {
        let get = |n: &str| case.engines.iter().find(|e| e.name == n);
        let Some(f) = get("fstc") else { continue };
        let fp99 = f.warm.map_or(0.0, |c| c.1);
        let compile = get("outlines-core")
            .map(|o| ratio(o.compile.as_secs_f64(), f.compile.as_secs_f64()))
            .unwrap_or_else(|| "n/a".into());
        let peer_p99: Vec<f64> = case
            .engines
            .iter()
            .filter(|e| e.name != "fstc")
            .filter_map(|e| e.warm.map(|c| c.1))
            .collect();
        let slow = peer_p99.iter().copied().fold(f64::NAN, f64::max);
        let fast = peer_p99.iter().copied().fold(f64::NAN, f64::min);
        println!(
            "| {} | {} | {} | {} |",
            case.name,
            compile,
            if slow.is_nan() {
                "n/a".into()
            } else {
                ratio(slow, fp99)
            },
            if fast.is_nan() {
                "n/a".into()
            } else {
                ratio(fast, fp99)
            },
        );
    }

    println!();
    println!("Cross-check of the masks (first pass, text tokens and \"EOS allowed\"):\n");
    for case in &v.cases {
        for m in &case.mismatches {
            println!(
                "- {} — {} vs {}: {} of {} steps differ ({} token bits, {} allowed only by {}; {} EOS){}",
                case.name,
                m.engine,
                m.reference,
                m.steps_differing,
                m.steps_compared,
                m.tokens_differing,
                m.only_reference,
                m.reference,
                m.eos_differing,
                if m.special_allowed > 0 {
                    format!("; {} steps allow a special token", m.special_allowed)
                } else {
                    String::new()
                }
            );
            for (step, id, bytes, by_ref) in &m.examples {
                println!(
                    "  - step {step}: token {id} {bytes} allowed only by {}",
                    if *by_ref { m.reference } else { m.engine }
                );
            }
        }
        for e in &case.engines {
            for (step, msg) in e.errors.iter().take(3) {
                println!("- {} — {} error at step {step}: {msg}", case.name, e.name);
            }
        }
    }
}

/// fstc's mask p99 per vocabulary size.
pub fn print_scaling(results: &[VocabResult]) {
    let mut rows: Vec<&VocabResult> = results.iter().collect();
    rows.sort_by_key(|v| v.size);
    let Some(first) = rows.first() else { return };
    let names: Vec<&str> = first.cases.iter().map(|c| c.name).collect();
    println!("\n## Scaling: mask p99 µs per vocabulary size\n");
    println!("| vocabulary | tokens | engine | {} |", names.join(" | "));
    println!("|---|---:|---|{}", "---:|".repeat(names.len()));
    for v in rows {
        let engines: Vec<&'static str> = v
            .cases
            .first()
            .map(|c| c.engines.iter().map(|e| e.name).collect())
            .unwrap_or_default();
        for engine in engines {
            let cells: Vec<String> = names
                .iter()
                .map(|n| {
                    v.cases
                        .iter()
                        .find(|c| c.name == *n)
                        .and_then(|c| c.engines.iter().find(|e| e.name == engine))
                        .and_then(|e| e.warm)
                        .map(|c| us(c.1))
                        .unwrap_or_else(|| "-".into())
                })
                .collect();
            println!(
                "| {} | {} | {} | {} |",
                v.name,
                v.size,
                engine,
                cells.join(" | ")
            );
        }
    }
}
