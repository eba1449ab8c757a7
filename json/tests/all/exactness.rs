//! Combinations that need a difference (`oneOf`, `not`, `if`, `maxContains`) or compare
//! listed values (`enum`, `const`) stay exact when a value has several spellings (`1`,
//! `1.0`, `1e0`, `0.5`, `0.50`): differential against the `jsonschema` crate on the
//! byte DFA, over hand-picked texts and random walks.

use crate::support::{beyond_f64, dfa_walk, validator};
use fstc_core::sample::SplitMix64;
use fstc_json::JsonSchemaCompiler;
use serde_json::{json, Value};

/// Texts in every spelling the checks below care about.
const TEXTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "5",
    "7",
    "10",
    "11",
    "-0",
    "1.0",
    "1.00",
    "1e0",
    "1E+0",
    "10e-1",
    "7676.0E32",
    "0.5",
    "0.50",
    "-0.5",
    "1.5",
    "1.50",
    "15e-1",
    "2.5",
    "\"a\"",
    "\"x\"",
    "null",
    "true",
    "[]",
    "[1]",
    "[1.0]",
    "[1,2]",
    "[1.0,2]",
    "[0.5]",
    "[1,0.5]",
    "[\"a\",1]",
    "{}",
];

/// Objects in several member orders: the output form writes one order, so these are only
/// checked for soundness (nothing invalid admitted).
const ORDERS: &[&str] = &[
    "{\"a\":2,\"b\":1}",
    "{\"b\":1,\"a\":2}",
    "{\"a\":1,\"c\":1}",
    "{\"c\":1,\"a\":1}",
    "{\"a\":\"s\",\"c\":1}",
    "{\"c\":1,\"a\":\"s\"}",
    "{\"b\":1}",
];

/// Canonical spellings: the output form must admit each one the oracle accepts.
fn canonical(text: &str) -> bool {
    !text.contains(['e', 'E']) && !text.contains("-0") && !text.contains(".0") && {
        !text
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .any(|n| n.contains('.') && n.ends_with('0'))
    }
}

fn differential(schema: &Value) {
    let oracle = validator(schema);
    let dfa = JsonSchemaCompiler::new()
        .value_to_regex(schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
        .dfa(100_000)
        .unwrap();
    for text in TEXTS {
        let value: Value = serde_json::from_str(text).unwrap();
        let (ours, theirs) = (dfa.is_match(text.as_bytes()), oracle.is_valid(&value));
        assert!(!ours || theirs, "{schema}: admits the invalid {text}");
        assert!(
            ours || !theirs || !canonical(text),
            "{schema}: rejects the valid canonical {text}"
        );
    }
    for text in ORDERS {
        let value: Value = serde_json::from_str(text).unwrap();
        let admitted = dfa.is_match(text.as_bytes());
        assert!(
            !admitted || oracle.is_valid(&value),
            "{schema}: admits the invalid {text}"
        );
    }
    let mut rng = SplitMix64::new(3);
    for _ in 0..200 {
        let text = String::from_utf8(dfa_walk(&dfa, &mut rng, 60)).unwrap();
        if beyond_f64(&text) {
            continue;
        }
        let value: Value = serde_json::from_str(&text).unwrap();
        assert!(oracle.is_valid(&value), "{schema}: walk gave {text}");
    }
}

#[test]
fn one_of_with_overlapping_branches_and_other_spellings() {
    // Found by the mutated-schema proptest: `7676.0E32` is an integer matching two branches.
    differential(
        &json!({"oneOf":[{"type":"integer","minimum":0},{"type":"integer","maximum":10},true]}),
    );
    differential(&json!({"oneOf":[{"type":"integer"},{"type":"number","minimum":0}]}));
    differential(&json!({"oneOf":[{"const":1.0},{"type":"integer"}]}));
    differential(&json!({"oneOf":[{"enum":[1.5,"a"]},{"type":"number","minimum":1}]}));
    differential(&json!({"oneOf":[{"type":"number","multipleOf":0.5},{"type":"integer"}]}));
    differential(
        &json!({"oneOf":[{"type":"array","items":{"type":"integer"}},{"type":"array","maxItems":1}]}),
    );
}

#[test]
fn one_of_with_a_branch_that_admits_everything() {
    // The schema-free branch writes members in any order; the other in the shared one: a
    // difference left `{"b":1,"a":2}`, which satisfies both.
    let object = json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a"]});
    differential(&json!({"oneOf":[object, {}]}));
    differential(&json!({"oneOf":[true, object, {"type":"string"}]}));
    differential(
        &json!({"oneOf":[{"$ref":"#/$defs/any"}, object], "$defs": {"any": {"title": "anything"}}}),
    );
    // A schema-free branch inside another combination: refused (lenient: anyOf), never
    // a difference that keeps `{"b":1,"a":2}`.
    let nested = json!({"oneOf":[object, {"anyOf":[{}, {"type":"string"}]}]});
    let err = JsonSchemaCompiler::new()
        .value_to_regex(&nested)
        .unwrap_err();
    assert!(err.to_string().contains("every member order"), "{err}");
    // Every value satisfies two branches: nothing is left.
    let none = JsonSchemaCompiler::new().value_to_regex(&json!({"oneOf":[{}, true, object]}));
    assert!(none
        .unwrap_err()
        .to_string()
        .contains("admits no JSON text"));
}

#[test]
fn disjoint_looking_branches_are_checked_against_what_they_satisfy() {
    // The languages `"1.0"` and the integers are disjoint, but 1.0 is an integer.
    differential(&json!({"oneOf":[{"enum":[1.0]},{"type":"integer"}]}));
    differential(&json!({"oneOf":[{"type":"string","format":"date"},{"type":"null"}]}));
    // An incomplete branch (hostname is a subset of its grammar) overlapping by type is refused.
    let schema = json!({"oneOf":[{"type":"string","pattern":"^(a\\.){5}a$"},{"type":"string","format":"hostname"}]});
    let err = JsonSchemaCompiler::new()
        .value_to_regex(&schema)
        .unwrap_err();
    assert!(err.to_string().contains("`oneOf`"), "{err}");
}

#[test]
fn not_if_and_contains_with_other_spellings() {
    differential(&json!({"not":{"const":1.0}}));
    differential(&json!({"not":{"enum":[1.5, 2]}}));
    differential(&json!({"not":{"type":"integer"}}));
    differential(&json!({"if":{"type":"integer"},"then":{"minimum":5},"else":{"type":"string"}}));
    differential(&json!({"type":"array","contains":{"type":"integer"},"maxContains":1}));
    differential(&json!({"type":"array","contains":{"const":1},"minContains":0,"maxContains":0}));
    differential(&json!({"dependentSchemas":{"a":{"not":{"const":1.0}}}}));
}

#[test]
fn enum_and_const_compare_numbers_by_value() {
    differential(&json!({"enum":[1.0, 2.5],"type":"integer"}));
    differential(&json!({"const":1.0}));
    differential(&json!({"enum":[[1.0], 0.50, 1e-7]}));
    let regex = JsonSchemaCompiler::new()
        .value_to_regex(&json!({"const":1e-7}))
        .unwrap()
        .dfa(1000)
        .unwrap();
    assert!(regex.is_match(b"0.0000001"));
}

#[test]
fn additional_items_is_ignored_beside_a_schema_items() {
    // Draft-07 §6.4.2: unless `items` is an array, `additionalItems` MUST be ignored, so `[]`
    // is valid here. The `jsonschema` crate (0.30) rejects it (found by the mutated-schema
    // proptest, which therefore does not compare such schemas).
    let schema = json!({"type":"array","items":false,"additionalItems":{"type":"boolean"}});
    let dfa = JsonSchemaCompiler::new()
        .value_to_regex(&schema)
        .unwrap()
        .dfa(1000)
        .unwrap();
    assert!(dfa.is_match(b"[]") && !dfa.is_match(b"[true]"));
    assert!(
        !validator(&schema).is_valid(&json!([])),
        "the crate was fixed: compare again"
    );
}

/// A complement is taken within values as deep as the universe's: an operand that admits
/// everything leaves nothing, however deep (found by the mutation proptest: `not: true`
/// admitted `[[[]]]`, the values just past the operand's depth cut).
#[test]
fn complements_of_everything_are_empty_at_every_depth() {
    for schema in [
        json!({"not": true}),
        json!({"not": {}}),
        json!({"type": ["array", "null"], "not": true, "items": {"not": {"type": "string"}}}),
        json!({"if": {"type": "array"}, "then": false, "else": {"type": "array"}}),
    ] {
        let out = JsonSchemaCompiler::new().value_to_regex(&schema);
        assert!(out.is_err(), "{schema} admits a text");
    }
    for schema in [
        json!({"if": true, "then": {"type": "array"}, "else": false}),
        json!({"type": "array", "not": {"not": true}}),
    ] {
        let dfa = JsonSchemaCompiler::new()
            .value_to_regex(&schema)
            .unwrap()
            .dfa(100_000);
        let dfa = dfa.unwrap();
        assert!(dfa.is_match(b"[]"), "{schema}");
        differential(&schema);
    }
}

/// Whether `schema` (JSON text, read at the decimal values it writes) admits `text`.
fn admits(schema: &str, text: &str) -> bool {
    JsonSchemaCompiler::new()
        .to_regex(schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
        .dfa(100_000)
        .unwrap()
        .is_match(text.as_bytes())
}

/// Listed values and bounds keep the decimal value the schema writes, beyond what a
/// double holds (found by a randomized campaign). The `jsonschema` crate reads numbers as
/// doubles, so these are checked against exact arithmetic, by hand.
#[test]
fn numbers_keep_the_decimal_value_written() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            r#"{"enum": [123456789012345678901234567890]}"#,
            &["123456789012345678901234567890"],
            &[
                "123456789012345680000000000000",
                "123456789012345678901234567891",
            ],
        ),
        (
            r#"{"const": 235.85714285714286}"#,
            &["235.85714285714286"],
            &["235.8571428571429", "235.857142857142860001"],
        ),
        // The output form's spelling: no trailing zeros, no exponent, integers without fraction.
        (
            r#"{"const": 2.3585714285714286000e2}"#,
            &["235.85714285714286"],
            &["2.3585714285714286e2"],
        ),
        (
            r#"{"enum": [1e2, 0.10]}"#,
            &["100", "0.1"],
            &["100.0", "1e2", "0.10"],
        ),
        // Equal doubles, different decimals: `const` keeps only the equal listed value.
        (
            r#"{"enum": [1.0000000000000000001, 1, 2], "const": 1.0}"#,
            &["1"],
            &["1.0000000000000000001", "2"],
        ),
        // Bounds: 2^64 - 1 is no double; nor is the fraction.
        (
            r#"{"type": "integer", "maximum": 18446744073709551615}"#,
            &["18446744073709551615", "-5"],
            &["18446744073709551616"],
        ),
        (
            r#"{"type": "integer", "exclusiveMinimum": -18446744073709551615}"#,
            &["-18446744073709551614"],
            &["-18446744073709551615", "-18446744073709551616"],
        ),
        (
            r#"{"type": "number", "maximum": 235.85714285714286}"#,
            &["235.85714285714286", "235.8571428571428", "-1"],
            &["235.8571428571429", "235.857142857142861"],
        ),
        (
            r#"{"type": "number", "minimum": 0.1000000000000000000001}"#,
            &["0.1000000000000000000001", "0.2"],
            &["0.1", "0.1000000000000000000000999"],
        ),
        (
            r#"{"multipleOf": 0.1000000000000}"#,
            &["0.3", "7"],
            &["0.35"],
        ),
    ];
    for (schema, valid, invalid) in cases {
        for text in *valid {
            assert!(admits(schema, text), "{schema} rejects {text}");
        }
        for text in *invalid {
            assert!(!admits(schema, text), "{schema} admits {text}");
        }
    }
    // A parsed `Value` has only serde_json's doubles: the documented fallback.
    let value: Value = serde_json::from_str(r#"{"const": 235.85714285714286}"#).unwrap();
    let dfa = JsonSchemaCompiler::new()
        .value_to_regex(&value)
        .unwrap()
        .dfa(1000)
        .unwrap();
    assert!(dfa.is_match(b"235.8571428571429"));
}
