//! `pattern` and `patternProperties`: an ECMA-262 regex searched (unanchored) in the
//! decoded string, turned into the language of the string's JSON encodings.
//!
//! fstc-core reads the pattern in [`Dialect::EcmaScript`] (ECMA's `\d`, `\w`, `\s`, `\b`,
//! `.`, `\uHHHH`, look-around, `^`/`$` anywhere) as a search, `[\s\S]*(?:P)[\s\S]*`, over
//! the decoded text; [`Algebra::substitute_chars`] then replaces each code point by its
//! encodings (`strings::encodings`: canonical, or every spelling under
//! [`Escapes::Any`]), so an escaped `\"`, `\n` or `\u00e9` in the JSON text counts as the
//! one character it encodes. `format` grammars, written over the canonical body, are
//! respelled the same way under `Any` ([`any_spelling`]).

use fstc_core::bytes::{Algebra, ByteDfa};

use fstc_regex::{Dialect, RegexBuilder};

use crate::check::Automata;
use crate::config::Escapes;
use crate::error::JsonSchemaError;
use crate::strings;

/// The regex (between the quotes) of the encoded strings in which `pattern` finds a
/// match, as an automaton spliced into `automata`.
pub(crate) fn body(
    pattern: &str,
    escapes: Escapes,
    automata: &mut Automata,
) -> Result<String, String> {
    let key = format!("pattern {escapes:?} {pattern}");
    automata.body(key, |automata| build_body(pattern, escapes, automata))
}

/// The error of `keyword` at `pointer` that could not be built (`why`): the budget's own
/// when the compile passed its time budget (the builds below stop at its deadline).
pub(crate) fn refused(
    automata: &Automata,
    pointer: &str,
    keyword: &str,
    why: String,
) -> JsonSchemaError {
    match automata.budget.check_time() {
        Err(out_of_time) => out_of_time,
        Ok(()) => JsonSchemaError::at(pointer, keyword, why),
    }
}

fn build_body(pattern: &str, escapes: Escapes, automata: &mut Automata) -> Result<String, String> {
    let search = format!("[\\s\\S]*(?:{pattern})[\\s\\S]*");
    let deadline = automata.budget.deadline();
    let decoded = RegexBuilder::new()
        .dialect(Dialect::EcmaScript)
        .state_limit(automata.limit())
        .deadline(deadline)
        .build(&search)
        .map_err(|e| {
            // The wrapper shifts offsets by its 13 bytes; name the pattern itself.
            let short: String = e.to_string().chars().take(300).collect();
            format!("{pattern:?} (searched as `[\\s\\S]*(?:…)[\\s\\S]*`): {short}")
        })?;
    let encoded = encode(&decoded, escapes, automata.limit(), deadline)
        .map_err(|e| format!("{pattern:?}: {e}"))?;
    // Both DFAs were held at once; counted when the next sub-schema is entered.
    automata
        .budget
        .hold(dfa_bytes(&decoded) + dfa_bytes(&encoded));
    Ok(automata
        .splice(encoded)
        .unwrap_or_else(|| NOTHING.to_string()))
}

/// About the bytes `dfa` holds: its table and its states' flags.
fn dfa_bytes(dfa: &ByteDfa) -> usize {
    dfa.transitions().len() * 4 + dfa.num_states()
}

/// The encodings of the decoded texts of `decoded`, until `deadline`.
fn encode(
    decoded: &ByteDfa,
    escapes: Escapes,
    limit: usize,
    deadline: Option<std::time::Instant>,
) -> Result<ByteDfa, String> {
    let mut algebra = Algebra::new();
    algebra.state_limit(limit).deadline(deadline);
    algebra
        .substitute_chars(decoded, strings::code(escapes))
        .map_err(|e| e.to_string())
}

/// `canonical` (regex text of string bodies in the canonical encoding, as `format`
/// grammars are written) respelled in every encoding of [`Escapes::Any`]: its DFA is
/// decoded (each canonical escape read as the one byte it stands for, which is exact
/// since the canonical encoding is one spelling per code point) and re-encoded.
pub(crate) fn any_spelling(canonical: &str, automata: &mut Automata) -> Result<String, String> {
    let key = format!("any spelling {canonical}");
    automata.body(key, |automata| build_any_spelling(canonical, automata))
}

fn build_any_spelling(canonical: &str, automata: &mut Automata) -> Result<String, String> {
    let dfa = automata.dfa(canonical).map_err(|e| e.to_string())?;
    let mut edges = Vec::new();
    for s in 0..dfa.num_states() as u32 {
        for b in 0..=255u8 {
            // Bytes from 0x80 read as Latin-1 characters, all raw: they stay themselves.
            let c = b as char;
            let target = if !strings::is_raw(c) {
                let bytes = strings::encode_char(c).into_bytes();
                bytes.iter().try_fold(s, |at, &x| dfa.next(at, x))
            } else {
                dfa.next(s, b)
            };
            if let Some(t) = target {
                edges.push((s, b, b, t));
            }
        }
    }
    let accepting: Vec<bool> = (0..dfa.num_states() as u32)
        .map(|s| dfa.is_accepting(s))
        .collect();
    let deadline = automata.budget.deadline();
    let mut algebra = Algebra::new();
    algebra.state_limit(automata.limit()).deadline(deadline);
    let decoded = algebra
        .from_edges(&edges, &accepting)
        .map_err(|e| e.to_string())?;
    let encoded = encode(&decoded, Escapes::Any, automata.limit(), deadline)?;
    Ok(automata
        .splice(encoded)
        .unwrap_or_else(|| NOTHING.to_string()))
}

/// The regex of no text.
pub(crate) const NOTHING: &str = "[^\\x{0}-\\x{10FFFF}]";

#[cfg(test)]
mod tests {
    use super::*;

    fn search(pattern: &str, encoded: &str) -> bool {
        let mut automata = Automata::new(10_000);
        let body = body(pattern, Escapes::Canonical, &mut automata).unwrap();
        automata.dfa(&body).unwrap().is_match(encoded.as_bytes())
    }

    #[test]
    fn patterns_search_the_decoded_string() {
        assert!(search("a+", "xxaay"));
        assert!(!search("^a+$", "xxaay"));
        assert!(search("^\\d{3}$", "123"));
        assert!(!search("^\\d{3}$", "١٢٣"), "ECMA \\d is ASCII");
        assert!(
            search("^a.b$", "a\\\"b"),
            "an escaped quote is one character"
        );
        assert!(!search("^a.b$", "a\\nb"), "ECMA . excludes newline");
        assert!(search("^a\\sb$", "a\\nb"));
        assert!(search("\"", "x\\\"y"));
        assert!(!search("^[^\"]*$", "x\\\"y"));
        assert!(search("^\\w+@\\w+\\.com$", "ab_1@x.com"));
        assert!(search("\\bcat\\b", "a cat!"));
        assert!(!search("\\bcat\\b", "concatenate"));
        assert!(search("^(?=.*\\d)(?=.*[a-z]).{4,}$", "ab12"));
        assert!(!search("^(?=.*\\d)(?=.*[a-z]).{4,}$", "abcd"));
        assert!(search("^\\u00e9$", "é"));
        assert!(search("^\\u0001$", "\\u0001"));
        assert!(!search("^\\u0001$", "\u{1}"), "raw controls are not JSON");
        assert!(search("^[^]$", "\\\\"));
    }

    #[test]
    fn what_ecmascript_lacks_is_refused_by_name() {
        let mut automata = Automata::new(10_000);
        for (pattern, name) in [
            ("(a)\\1", "backreference"),
            ("(?i)x", "(?i"),
            ("\\p{L", "\\p{L"),
            ("x{,3}", "x{,3}"),
        ] {
            let err = body(pattern, Escapes::Canonical, &mut automata).unwrap_err();
            assert!(err.contains(name), "{pattern}: {err}");
        }
    }
}
