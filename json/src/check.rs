//! Questions answered on byte DFAs of generated regexes: are two languages disjoint,
//! which of some texts does a language contain.

use std::collections::{HashSet, VecDeque};

use fst_core::regex::ByteDfa;

use crate::error::JsonSchemaError;

fn dfa(regex: &str, limit: usize) -> Result<ByteDfa, JsonSchemaError> {
    ByteDfa::from_regex(regex, limit).map_err(|e| {
        let short: String = e.to_string().chars().take(200).collect();
        JsonSchemaError::other(format!(
            "a sub-schema's automaton could not be built: {short}"
        ))
    })
}

/// Whether no text matches both regexes: a breadth-first search of the product DFA for
/// a pair of accepting states.
pub(crate) fn disjoint(a: &str, b: &str, limit: usize) -> Result<bool, JsonSchemaError> {
    let (a, b) = (dfa(a, limit)?, dfa(b, limit)?);
    let mut seen = HashSet::from([(a.start(), b.start())]);
    let mut queue = VecDeque::from([(a.start(), b.start())]);
    while let Some((s, t)) = queue.pop_front() {
        if a.is_accepting(s) && b.is_accepting(t) {
            return Ok(false);
        }
        for byte in 0..=255u8 {
            if let (Some(s2), Some(t2)) = (a.next(s, byte), b.next(t, byte)) {
                if seen.insert((s2, t2)) {
                    queue.push_back((s2, t2));
                }
            }
        }
    }
    Ok(true)
}

/// The texts that `regex` matches, in order.
pub(crate) fn filter_matching(
    regex: &str,
    texts: Vec<String>,
    limit: usize,
) -> Result<Vec<String>, JsonSchemaError> {
    let dfa = dfa(regex, limit)?;
    Ok(texts
        .into_iter()
        .filter(|t| dfa.is_match(t.as_bytes()))
        .collect())
}
