//! The LMQL rows of docs/structural-tags.md: each format admits exactly the texts the
//! table says, against the oracle and the byte DFA.

use fstc_tags::StructuralTag;
use serde_json::{json, Value};

use crate::differential::compiler;
use crate::oracle;

/// `spec` admits each of `good` and none of `bad`, by the byte DFA and by the oracle.
fn admits(spec: Value, good: &[&str], bad: &[&str]) {
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    let (dfa, _) = compiler().byte_dfa(&tag).unwrap();
    for (texts, expected) in [(good, true), (bad, false)] {
        for text in texts {
            assert_eq!(dfa.is_match(text.as_bytes()), expected, "{spec}: {text:?}");
            assert_eq!(
                oracle::accepts(&spec, text.as_bytes()),
                expected,
                "oracle {spec}: {text:?}"
            );
        }
    }
}

#[test]
fn the_lmql_rows_admit_what_the_table_says() {
    let stops_at =
        json!({"type": "tag", "begin": "", "content": {"type": "any_text"}, "end": "\n"});
    admits(stops_at, &["a b\n", "\n"], &["a b", "a\nb\n", "a\n\n"]);
    let either =
        json!({"type": "tag", "begin": "", "content": {"type": "any_text"}, "end": ["\n", "."]});
    admits(either, &["ok.", "ok\n"], &["a.b.", "ok"]);
    let stops_before = json!({"type": "sequence", "elements": [
        {"type": "any_text", "excludes": ["\n"]}, {"type": "const_string", "value": "\n"}]});
    admits(stops_before, &["a b\n", "\n"], &["a\nb\n", "a b"]);
    let choice = json!({"type": "or", "elements": [{"type": "const_string", "value": "yes"},
        {"type": "const_string", "value": "no"}]});
    admits(choice, &["yes", "no"], &["", "yes no", "maybe"]);
    admits(
        json!({"type": "regex", "pattern": "[0-9]+"}),
        &["0", "0042"],
        &["", "-1", "1.5"],
    );
    admits(
        json!({"type": "any_text", "max_chars": 3}),
        &["", "abc", "éàü"],
        &["abcd"],
    );
}
