//! Refusals name the keyword and its JSON pointer; lenient mode lists them as warnings;
//! malformed and mutated schemas give a clean error or a correct automaton.

use crate::support::{beyond_f64, corpus, dfa_walk, validator};
use fstc_core::sample::SplitMix64;
use fstc_json::{Config, Escapes, JsonSchemaCompiler};
use proptest::prelude::*;
use serde_json::{json, Value};

fn error(schema: &str) -> String {
    JsonSchemaCompiler::new()
        .to_regex(schema)
        .unwrap_err()
        .to_string()
}

#[test]
fn refusals_name_the_keyword_and_pointer() {
    let cases = [
        (
            r##"{"properties": {"a": {"not": {"properties": {"b": {"properties": {"c": true}}}}}}}"##,
            "`not` at #/properties/a",
        ),
        (
            r##"{"if": {"format": "hostname"}, "then": {"maxLength": 3}}"##,
            "`if` at the schema root",
        ),
        (
            r##"{"anyOf": [{"anyOf": [{"properties": {"a": true}}, true]}, true], "unevaluatedProperties": false}"##,
            "`unevaluatedProperties` at the schema root",
        ),
        (
            r##"{"type": "array", "uniqueItems": true}"##,
            "`uniqueItems` at the schema root",
        ),
        (
            r##"{"type": "integer", "multipleOf": 1e-20}"##,
            "`multipleOf` at the schema root",
        ),
        (
            r##"{"type": "string", "pattern": "(a)\\1"}"##,
            "`pattern` at the schema root",
        ),
        (r##"{"type": "string", "format": "regex"}"##, "`format`"),
        (r##"{"type": "number", "minimum": 1e40}"##, "`minimum`"),
        (
            r##"{"oneOf": [{"type": "number"}, {"type": "string", "format": "hostname"}, {"type": "string"}]}"##,
            "`oneOf`",
        ),
        (
            r##"{"$ref": "https://example.com/s.json"}"##,
            "`$ref` at the schema root (#): `https://example.com/s.json` names another document: give the folder of referenced documents (option ref_dir, --ref-dir)",
        ),
        (r##"{"$ref": "#/$defs/missing"}"##, "points at nothing"),
        (r##"{"type": "strin"}"##, "`type` at the schema root"),
        (r##"{"minLength": -1, "type": "string"}"##, "`minLength`"),
        (
            r##"{"dependentRequired": {"a": [1]}}"##,
            "`dependentRequired` at the schema root (#): must be an object of arrays of property names; #/dependentRequired/a/0 is the number 1",
        ),
    ];
    for (schema, expected) in cases {
        let message = error(schema);
        assert!(message.contains(expected), "{schema}: {message}");
    }
}

#[test]
fn invalid_json_reports_the_position() {
    let message = error("{\"type\": \"string\",\n  \"maxLength\": }");
    assert!(
        message.contains("not valid JSON") && message.contains("line 2"),
        "{message}"
    );
}

#[test]
fn lenient_mode_lists_what_it_leaves_out() {
    let schema = r##"{"type": "object", "properties": {"n": {"type": "array", "uniqueItems": true}}, "required": ["n"]}"##;
    let out = JsonSchemaCompiler::new()
        .configure(Config::new().lenient(true))
        .to_regex(schema)
        .unwrap();
    assert_eq!(out.warnings.len(), 1);
    assert_eq!(out.warnings[0].pointer, "/properties/n");
    assert_eq!(out.warnings[0].keyword, "uniqueItems");
    let strict = JsonSchemaCompiler::new().to_regex(schema);
    assert!(strict.is_err());
}

#[test]
fn recursion_is_cut_at_the_configured_depth() {
    let schema = json!({"$defs": {"list": {"type": "object", "properties": {"next": {"$ref": "#/$defs/list"}},
        "additionalProperties": false}}, "$ref": "#/$defs/list"});
    let dfa = JsonSchemaCompiler::new()
        .configure(
            Config::new()
                .recursion_depth(2)
                .whitespace(fstc_json::Whitespace::Compact),
        )
        .value_to_regex(&schema)
        .unwrap()
        .dfa(10_000)
        .unwrap();
    assert!(dfa.is_match(br##"{"next":{}}"##));
    assert!(!dfa.is_match(br##"{"next":{"next":{}}}"##));
    let required = json!({"$defs": {"list": {"type": "object", "properties": {"next": {"$ref": "#/$defs/list"}},
        "required": ["next"]}}, "$ref": "#/$defs/list"});
    let message = JsonSchemaCompiler::new()
        .value_to_regex(&required)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("recursion") && message.contains("#/$defs/list"),
        "{message}"
    );
}

/// Replaces one random sub-value of `value` by one of a few troublesome values.
fn mutate(value: &mut Value, rng: &mut SplitMix64) {
    let replacements = [
        json!(null),
        json!(-1),
        json!(1.5),
        json!("x"),
        json!([]),
        json!({}),
        json!(true),
        json!(false),
        json!({"type": "nope"}),
        json!("#/nowhere"),
        json!(["a", 1]),
        json!(1e40),
    ];
    let descend = rng.below(3) != 0;
    match value {
        Value::Object(m) if descend && !m.is_empty() => {
            let k = rng.index(m.len());
            mutate(m.values_mut().nth(k).expect("k < len"), rng);
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let k = rng.index(a.len());
            mutate(&mut a[k], rng);
        }
        _ => *value = replacements[rng.index(replacements.len())].clone(),
    }
}

/// Whether some sub-schema has `additionalItems` beside an `items` that is not an array
/// (ignored by draft-07 §6.4.2; the `jsonschema` crate applies it).
fn ignored_additional_items(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => {
            (m.contains_key("additionalItems") && !m.get("items").is_some_and(Value::is_array))
                || m.values().any(ignored_additional_items)
        }
        Value::Array(a) => a.iter().any(ignored_additional_items),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 12,
        ..ProptestConfig::default()
    })]

    /// A mutated corpus schema compiles to an automaton whose texts validate, or fails
    /// cleanly, in either escape mode.
    #[test]
    fn mutated_schemas_fail_cleanly_or_stay_correct(seed in any::<u64>()) {
        let cases = corpus();
        let mut rng = SplitMix64::new(seed);
        let case = &cases[rng.index(cases.len())];
        let mut schema = case.schema.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut schema, &mut rng);
        }
        // Both escape modes: `Any` re-spells patterns, formats, names and literals.
        let escapes = if seed % 2 == 0 { Escapes::Canonical } else { Escapes::Any };
        let compiler = JsonSchemaCompiler::new().configure(Config::new().dfa_state_limit(5_000).escapes(escapes));
        if let Ok(out) = compiler.value_to_regex(&schema) {
            // The oracle must accept the mutated schema for the comparison to mean anything,
            // and handle it right (see `additional_items_is_ignored_beside_a_schema_items`).
            if ignored_additional_items(&schema) {
                return Ok(());
            }
            let Ok(oracle) = jsonschema::options().should_validate_formats(true).build(&schema) else {
                return Ok(());
            };
            let Ok(dfa) = out.dfa(5_000) else { return Ok(()) };
            for _ in 0..10 {
                let text = String::from_utf8(dfa_walk(&dfa, &mut rng, 200)).unwrap();
                if beyond_f64(&text) {
                    continue;
                }
                let value: Value = serde_json::from_str(&text).unwrap();
                prop_assert!(oracle.is_valid(&value), "{schema}\n{text}");
            }
        }
    }

    /// Arbitrary text as a schema: an error or a regex, never a panic.
    #[test]
    fn arbitrary_text_never_panics(text in ".{0,64}") {
        let _ = JsonSchemaCompiler::new().to_regex(&text);
    }
}

#[test]
fn corpus_oracle_builds() {
    for case in corpus() {
        let _ = validator(&case.schema);
    }
}

/// Every keyword with a typed value, each with a wrong-typed value (several where a value
/// may be wrong inside: an item, a member, a negative or fractional count).
const WRONG_TYPED: &[(&str, &str)] = &[
    ("$schema", "1"),
    ("$id", "true"),
    ("$ref", "{}"),
    ("$anchor", "1"),
    ("$dynamicRef", "1"),
    ("$dynamicAnchor", "[]"),
    ("$recursiveRef", "1"),
    ("$recursiveAnchor", "\"yes\""),
    ("$vocabulary", "{\"https://x\": 1}"),
    ("$comment", "{}"),
    ("$defs", "[]"),
    ("$defs", "{\"a\": 1}"),
    ("definitions", "1"),
    ("allOf", "{}"),
    ("allOf", "[true, 2]"),
    ("anyOf", "true"),
    ("oneOf", "\"a\""),
    ("not", "1"),
    ("if", "[]"),
    ("then", "\"x\""),
    ("else", "null"),
    ("dependentSchemas", "[]"),
    ("dependentSchemas", "{\"a\": [\"b\"]}"),
    ("prefixItems", "{\"const\": 2}"),
    ("items", "1"),
    ("items", "[{}, 1]"),
    ("additionalItems", "[]"),
    ("contains", "2"),
    ("properties", "[]"),
    ("properties", "{\"a\": 1}"),
    ("patternProperties", "{\"^a\": \"b\"}"),
    ("additionalProperties", "1"),
    ("propertyNames", "\"x\""),
    ("unevaluatedItems", "1"),
    ("unevaluatedProperties", "\"no\""),
    ("type", "1"),
    ("type", "[\"string\", 1]"),
    ("enum", "{}"),
    ("multipleOf", "\"2\""),
    ("maximum", "\"1\""),
    ("exclusiveMaximum", "true"),
    ("minimum", "[]"),
    ("exclusiveMinimum", "{}"),
    ("maxLength", "\"3\""),
    ("minLength", "-1"),
    ("pattern", "1"),
    ("maxItems", "1.5"),
    ("minItems", "null"),
    ("uniqueItems", "\"yes\""),
    ("maxContains", "\"1\""),
    ("minContains", "-2"),
    ("maxProperties", "true"),
    ("minProperties", "[]"),
    ("required", "\"a\""),
    ("required", "[\"a\", 1]"),
    ("dependentRequired", "[]"),
    ("dependentRequired", "{\"a\": \"b\"}"),
    ("dependencies", "{\"a\": 1}"),
    ("format", "1"),
    ("contentEncoding", "1"),
    ("contentMediaType", "[]"),
    ("contentSchema", "1"),
    ("title", "1"),
    ("description", "[]"),
    ("deprecated", "\"no\""),
    ("readOnly", "1"),
    ("writeOnly", "null"),
    ("examples", "{}"),
];

/// A wrong-typed keyword value is refused, naming the keyword and the pointer of its
/// schema, wherever it is: in a property, under `$defs` nothing references, in `then`
/// without `if`, and in lenient mode too (an invalid schema is no limitation). The
/// `jsonschema` crate, which checks schemas against the meta-schema, refuses them too
/// (except for the keywords draft 2020-12's meta-schema does not name).
#[test]
fn wrong_typed_keyword_values_are_refused_by_name() {
    let mut crate_builds = Vec::new();
    for &(keyword, value) in WRONG_TYPED {
        let key = serde_json::to_string(keyword).unwrap();
        let places = [
            (
                format!(r#"{{"properties": {{"p": {{{key}: {value}}}}}}}"#),
                "#/properties/p",
            ),
            (
                format!(r#"{{"$defs": {{"d": {{"items": {{{key}: {value}}}}}}}}}"#),
                "#/$defs/d/items",
            ),
            (format!(r#"{{"then": {{{key}: {value}}}}}"#), "#/then"),
            (
                format!(r#"{{{key}: {value}, "x-unknown": 1}}"#),
                "the schema root",
            ),
        ];
        for (schema, at) in &places {
            for lenient in [false, true] {
                let err = JsonSchemaCompiler::new()
                    .configure(Config::new().lenient(lenient))
                    .to_regex(schema)
                    .map(|_| ())
                    .expect_err(schema)
                    .to_string();
                let named = format!("`{keyword}` at {at}");
                assert!(
                    err.starts_with(&named) && err.contains("must be"),
                    "{schema}: {err}"
                );
            }
        }
        let value: Value = serde_json::from_str(&places[0].0).unwrap();
        if jsonschema::options().build(&value).is_ok() {
            crate_builds.push(keyword);
        }
    }
    assert_eq!(crate_builds, ["$recursiveAnchor", "additionalItems"]);
}

/// The table names every keyword whose value has a type.
#[test]
fn wrong_typed_table_covers_every_keyword() {
    let schema = json!({
        "$schema": "s", "$id": "i", "$anchor": "a", "$dynamicAnchor": "d", "$comment": "c",
        "$defs": {}, "definitions": {}, "title": "t", "description": "d", "deprecated": true,
        "readOnly": false, "writeOnly": false, "examples": [], "contentEncoding": "base64",
        "contentMediaType": "text/plain", "contentSchema": {}, "$vocabulary": {},
        "$recursiveAnchor": false
    });
    assert!(JsonSchemaCompiler::new().value_to_regex(&schema).is_ok());
    let named: std::collections::HashSet<&str> = WRONG_TYPED.iter().map(|w| w.0).collect();
    for keyword in [
        "type",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "items",
        "prefixItems",
        "additionalItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "dependentRequired",
        "dependencies",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
    ]
    .iter()
    .chain(
        schema
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .iter(),
    ) {
        assert!(named.contains(keyword), "{keyword} has no wrong-typed case");
    }
}
