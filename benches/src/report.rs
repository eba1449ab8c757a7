//! One engine's results, the masks cross-check, and the number formats of the tables.

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
    /// The same for the warm passes over the same walk (each step's fastest).
    pub warm: Option<(f64, f64, f64)>,
    /// p50, p99, max in µs of consuming a token, along the warm passes (each step's
    /// fastest), as `warm` for masks.
    pub consume: Option<(f64, f64, f64)>,
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

/// Whether token `t` is set in `mask`.
pub fn bit(mask: &[u32], t: usize) -> bool {
    mask.get(t / 32).is_some_and(|w| w & (1 << (t % 32)) != 0)
}

/// Compares every engine's masks with the first engine's (fstc when it runs), step by
/// step, on text tokens and on "some EOS allowed"; special tokens are checked apart.
pub fn cross_check(vocab: &LoadedVocab, engines: &[EngineResult]) -> Vec<Mismatch> {
    let Some((reference, others)) = engines.split_first() else {
        return Vec::new();
    };
    let text: Vec<usize> = (0..vocab.size())
        .filter(|&i| vocab.tokens[i].is_some())
        .collect();
    let specials: Vec<usize> = (0..vocab.size())
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
pub fn show_bytes(bytes: &[u8]) -> String {
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

/// `a / b` as a ratio cell, `n/a` when `b` is not positive.
pub fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.1}×", a / b)
    } else {
        "n/a".to_string()
    }
}

/// The header of the walk tables (json, grammar); `label` names the first column.
pub fn print_walk_header(label: &str) {
    println!("| {label} | engine | compile ms | 1st mask µs | compile + 1st mask ms | cold max µs | mask p50 µs | mask p99 µs | mask max µs | artifact bytes | errors | note |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
}

/// A row of the walk tables (json, grammar): compile, first mask, compile + first mask,
/// cold max, warm p50 / p99 / max, artifact, errors and a note.
pub fn print_walk_row(label: &str, e: &EngineResult, note: &str) {
    let dash = || "-".to_string();
    let (p50, p99, max) = e
        .warm
        .map_or((dash(), dash(), dash()), |w| (us(w.0), us(w.1), us(w.2)));
    let first = e.first_mask.unwrap_or_default();
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        label,
        e.name,
        ms(e.compile),
        e.first_mask
            .map_or_else(dash, |d| us(d.as_secs_f64() * 1e6)),
        ms(e.compile + first),
        e.cold.map_or_else(dash, |c| us(c.2)),
        p50,
        p99,
        max,
        e.artifact.map_or_else(|| "n/a".into(), |b| b.to_string()),
        e.errors.len(),
        note
    );
}

/// One engine's mask differences from the reference, as a list item under a table.
pub fn print_mismatch(m: &Mismatch) {
    let examples: Vec<String> = m
        .examples
        .iter()
        .map(|(step, id, text, by_ref)| {
            let who = if *by_ref { m.reference } else { m.engine };
            format!("step {step}: {id} {text} only by {who}")
        })
        .collect();
    println!(
        "  - masks of {} vs {}: {} steps compared (where both accepted the walk), {} differ ({} tokens, {} only by {}; EOS differs at {}); special tokens allowed at {} steps{}",
        m.engine,
        m.reference,
        m.steps_compared,
        m.steps_differing,
        m.tokens_differing,
        m.only_reference,
        m.reference,
        m.eos_differing,
        m.special_allowed,
        if examples.is_empty() {
            String::new()
        } else {
            format!(" (e.g. {})", examples.join("; "))
        }
    );
}

/// The heading of a vocabulary's section (json and grammar benches).
pub fn print_vocab_heading(vocab: &LoadedVocab) {
    println!(
        "\n## {} ({} tokens, EOS {:?})\n",
        vocab.name,
        vocab.size(),
        vocab.eos_ids
    );
}
