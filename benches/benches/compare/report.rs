//! Results, the masks cross-check, and the markdown tables.

use std::time::Duration;

use crate::vocab::LoadedVocab;

/// One engine on one (vocabulary, regex).
pub struct EngineResult {
    pub name: &'static str,
    pub compile: Duration,
    pub artifact: Option<usize>,
    /// States and token edges of the compiled automaton, when the engine has one.
    pub shape: Option<(usize, usize)>,
    pub first_mask: Option<Duration>,
    /// p50, p99, max in µs of the first pass (right after compiling).
    pub cold: Option<(f64, f64, f64)>,
    /// The same for the second pass over the same walk.
    pub warm: Option<(f64, f64, f64)>,
    /// Errors of the first pass: (step, message).
    pub errors: Vec<(usize, String)>,
    /// Masks of the first pass, per step.
    pub masks: Vec<Option<Vec<u32>>>,
}

/// How one engine's masks differ from the reference engine's.
pub struct Mismatch {
    pub engine: &'static str,
    pub reference: &'static str,
    pub steps_compared: usize,
    pub steps_differing: usize,
    /// Text tokens allowed by exactly one of the two, summed over steps.
    pub tokens_differing: usize,
    /// Of those, the ones only the reference allows.
    pub only_reference: usize,
    /// Steps where one allows EOS and the other does not.
    pub eos_differing: usize,
    /// Steps where the engine allowed a special token other than EOS.
    pub special_allowed: usize,
    /// A few differing tokens: (step, id, bytes, allowed by the reference).
    pub examples: Vec<(usize, u32, String, bool)>,
}

pub struct CaseResult {
    pub name: &'static str,
    pub pattern: &'static str,
    pub samples: usize,
    pub sample_tokens: usize,
    pub steps: usize,
    /// fstc's compile stages: trie, byte DFA, its states, compose + minimize, layout.
    pub fstc_stages: Option<(Duration, usize, Duration, Duration)>,
    pub engines: Vec<EngineResult>,
    pub mismatches: Vec<Mismatch>,
}

pub struct VocabResult {
    pub name: String,
    pub dir: String,
    pub size: usize,
    pub eos_ids: Vec<u32>,
    pub reader_disagreements: Result<Vec<crate::vocab::Disagreement>, String>,
    /// Samples detok tokenizes differently from the `tokenizers` crate: (text, detok's
    /// tokens or error, the crate's tokens).
    pub tokenize_disagreements: Vec<(String, String, Vec<u32>)>,
    pub outlines_skipped: bool,
    pub outlines_vocab_time: Duration,
    pub llg_setup: Duration,
    pub fstc_setup: Option<Duration>,
    pub cases: Vec<CaseResult>,
}

fn bit(mask: &[u32], t: usize) -> bool {
    mask.get(t / 32).is_some_and(|w| w & (1 << (t % 32)) != 0)
}

/// Compares every engine's masks with the first engine's (fstc when it runs), step by
/// step, on text tokens and on "some EOS allowed"; special tokens are checked apart.
pub fn cross_check(vocab: &LoadedVocab, engines: &[EngineResult]) -> Vec<Mismatch> {
    let Some((reference, others)) = engines.split_first() else {
        return Vec::new();
    };
    let text: Vec<usize> = (0..vocab.len())
        .filter(|&i| vocab.tokens[i].is_some())
        .collect();
    let specials: Vec<usize> = (0..vocab.len())
        .filter(|&i| vocab.tokens[i].is_none() && !vocab.eos_ids.contains(&(i as u32)))
        .collect();
    let eos_allowed = |mask: &[u32]| vocab.eos_ids.iter().any(|&e| bit(mask, e as usize));
    let mut out = Vec::new();
    for other in others {
        let mut m = Mismatch {
            engine: other.name,
            reference: reference.name,
            steps_compared: 0,
            steps_differing: 0,
            tokens_differing: 0,
            only_reference: 0,
            eos_differing: 0,
            special_allowed: 0,
            examples: Vec::new(),
        };
        for (step, (a, b)) in reference.masks.iter().zip(&other.masks).enumerate() {
            let (Some(a), Some(b)) = (a, b) else { continue };
            m.steps_compared += 1;
            let mut differs = false;
            for (wa, wb) in a.iter().zip(b.iter()) {
                if wa != wb {
                    differs = true;
                    break;
                }
            }
            if specials.iter().any(|&t| bit(b, t)) {
                m.special_allowed += 1;
            }
            if !differs {
                continue;
            }
            let mut token_diffs = 0;
            // The longest differing token of the step says more than a lone byte.
            let mut example: Option<(usize, usize)> = None;
            for &t in &text {
                if bit(a, t) != bit(b, t) {
                    token_diffs += 1;
                    m.only_reference += usize::from(bit(a, t));
                    let len = vocab.tokens[t].as_ref().map_or(0, Vec::len);
                    if example.is_none_or(|(_, l)| len > l) {
                        example = Some((t, len));
                    }
                }
            }
            if let (Some((t, _)), true) = (example, m.examples.len() < 3) {
                let bytes = vocab.tokens[t].as_deref().unwrap_or_default();
                m.examples
                    .push((step, t as u32, show_bytes(bytes), bit(a, t)));
            }
            let eos_diff = eos_allowed(a) != eos_allowed(b);
            if token_diffs > 0 || eos_diff {
                m.steps_differing += 1;
                m.tokens_differing += token_diffs;
                m.eos_differing += usize::from(eos_diff);
            }
        }
        out.push(m);
    }
    out
}

/// A token's bytes for the report: valid UTF-8 as a quoted string, else hex escapes.
fn show_bytes(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => format!("{s:?}"),
        Err(_) => {
            let mut out = String::from("b\"");
            for &b in bytes {
                if b.is_ascii_graphic() || b == b' ' {
                    out.push(b as char);
                } else {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            }
            out.push('"');
            out
        }
    }
}

pub fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1e3;
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

pub fn us(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.1}×", a / b)
    } else {
        "n/a".to_string()
    }
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
    if let Some(t) = v.fstc_setup {
        setup += &format!(
            "; fstc vocabulary trie {} ms (built once, shared by every compile)",
            ms(t)
        );
    }
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
        if let Some((dfa, dfa_states, compose, layout)) = case.fstc_stages {
            println!(
                "  - fstc compile stages (first run): byte DFA {} ms ({dfa_states} states), \
                 compose + minimize {} ms, layout {} ms",
                ms(dfa),
                ms(compose),
                ms(layout)
            );
        }
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
