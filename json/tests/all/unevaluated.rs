//! `unevaluatedProperties` and `unevaluatedItems` as users write them (a base object
//! extended through `allOf`/`$ref` and closed; variants chosen by `oneOf`/`anyOf`/`if`;
//! tuples extended by `prefixItems`; `contains`), each schema compared with the `jsonschema`
//! crate on written instances and on random texts of fstc's automaton; what is not known
//! from the shape is refused by name.

use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_json::{Config, JsonSchemaCompiler};
use serde_json::{json, Value};

use crate::support::{compact_dfa, walks_validate};

fn compile(schema: &Value) -> Result<ByteDfa, String> {
    compact_dfa(schema, Config::new())
}

fn cases() -> Vec<(Value, Vec<Value>)> {
    let base = json!({"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}, "required": ["id"]});
    vec![
        // A base object extended and closed.
        (
            json!({
                "$defs": {"base": base},
                "allOf": [{"$ref": "#/$defs/base"}],
                "properties": {"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
                "unevaluatedProperties": false
            }),
            vec![
                json!({"id": 1}),
                json!({"id": 1, "name": "a", "tags": ["x"]}),
                json!({"id": 1, "extra": true}),
                json!({"name": "a"}),
            ],
        ),
        // Schemas grouped inside `$defs` (where the walk of schema keywords does not reach).
        (
            json!({
                "$defs": {"plugins": {
                    "generic": {"type": "object", "properties": {"name": {"type": "string"}, "pip_url": {"type": "string"}}},
                    "loader": {"$ref": "#/$defs/plugins/generic", "properties": {"dialect": {"type": "string"}}, "unevaluatedProperties": false}
                }},
                "type": "object",
                "properties": {"loaders": {"type": "array", "items": {"$ref": "#/$defs/plugins/loader"}, "maxItems": 2}}
            }),
            vec![
                // Members in the output form's order: the object's own, then its `$ref`'s.
                json!({"loaders": [{"dialect": "pg", "name": "a"}]}),
                json!({"loaders": [{"name": "a", "extra": 1}]}),
                json!({"loaders": [{"pip_url": "u"}, {"dialect": 2}]}),
            ],
        ),
        // Variants by `oneOf` with a discriminator; unevaluated values must be numbers.
        (
            json!({
                "type": "object",
                "properties": {"kind": {"enum": ["circle", "square"]}},
                "required": ["kind"],
                "oneOf": [
                    {"properties": {"kind": {"const": "circle"}, "r": {"type": "integer"}}, "required": ["r"]},
                    {"properties": {"kind": {"const": "square"}, "side": {"type": "integer"}}, "required": ["side"]}
                ],
                "unevaluatedProperties": {"type": "number"}
            }),
            vec![
                json!({"kind": "circle", "r": 2}),
                json!({"kind": "circle", "r": 2, "side": 3}),
                json!({"kind": "circle", "r": 2, "side": "3"}),
                json!({"kind": "square", "side": 1, "r": "x"}),
                json!({"kind": "square", "r": 1}),
            ],
        ),
        // `anyOf` branches that may both hold.
        (
            json!({
                "type": "object",
                "anyOf": [
                    {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "integer"}}, "required": ["b"]}
                ],
                "unevaluatedProperties": false
            }),
            vec![
                json!({"a": 1}),
                json!({"a": 1, "b": 2}),
                json!({"b": 2}),
                json!({"a": 1, "b": "x"}),
                json!({"a": 1, "c": 2}),
            ],
        ),
        // `if`/`then`/`else` and `dependentSchemas`.
        (
            json!({
                "type": "object",
                "properties": {"mode": {"enum": ["file", "url"]}},
                "if": {"properties": {"mode": {"const": "file"}}},
                "then": {"properties": {"path": {"type": "string"}}},
                "else": {"properties": {"url": {"type": "string"}}},
                "dependentSchemas": {"retries": {"properties": {"delay": {"type": "integer"}}}},
                "patternProperties": {"^x-": true},
                "unevaluatedProperties": false
            }),
            vec![
                json!({"mode": "file", "path": "/a"}),
                json!({"mode": "file", "url": "u"}),
                json!({"mode": "url", "url": "u", "x-y": 1}),
                json!({"mode": "url", "path": "/a"}),
                json!({"mode": "url", "retries": 2, "delay": 1}),
                json!({"mode": "url", "delay": 1}),
            ],
        ),
        // Tuples extended by `allOf`, with `contains` evaluating the items it matches.
        (
            json!({
                "type": "array",
                "prefixItems": [{"type": "string"}],
                "allOf": [{"prefixItems": [true, {"type": "integer"}]}],
                "contains": {"type": "boolean"},
                "maxItems": 4,
                "unevaluatedItems": false
            }),
            vec![
                json!(["a", 1, true]),
                json!(["a", true]),
                json!(["a", 1, true, false]),
                json!(["a", 1, true, null]),
                json!(["a", 1]),
            ],
        ),
    ]
}

/// `value` written with its members in every order (the output form writes them in the
/// order the schema mentions them; an instance is valid when one order is accepted).
fn member_orders(value: &Value) -> Vec<String> {
    let Value::Object(map) = value else {
        return vec![value.to_string()];
    };
    let mut orders: Vec<Vec<(&String, &Value)>> = vec![Vec::new()];
    for _ in 0..map.len() {
        orders = orders
            .into_iter()
            .flat_map(|o| {
                map.iter()
                    .filter(|m| !o.iter().any(|x| x.0 == m.0))
                    .map(|m| o.iter().copied().chain([m]).collect())
                    .collect::<Vec<Vec<_>>>()
            })
            .collect();
    }
    orders
        .iter()
        .map(|o| {
            let members: Vec<String> = o
                .iter()
                .map(|(k, v)| format!("{}:{v}", Value::String((*k).clone())))
                .collect();
            format!("{{{}}}", members.join(","))
        })
        .collect()
}

#[test]
fn unevaluated_keywords_agree_with_the_oracle() {
    let mut rng = SplitMix64::new(11);
    for (schema, instances) in cases() {
        let dfa = compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        let oracle = jsonschema::options().build(&schema).unwrap();
        for instance in &instances {
            let want = oracle.is_valid(instance);
            let texts = member_orders(instance);
            let have = texts.iter().any(|t| dfa.is_match(t.as_bytes()));
            assert_eq!(have, want, "{schema}\n{instance}");
        }
        let walked = walks_validate(&dfa, &oracle, &mut rng, 300);
        assert!(walked > 200, "{schema}: {walked} walks compared");
    }
}

/// An evaluated set that depends on nested conditions, or on more than four, is refused
/// naming the keyword and its pointer; lenient mode leaves the keyword out with a warning.
#[test]
fn unknown_evaluated_sets_are_refused_by_name() {
    let nested = json!({"properties": {"p": {
        "anyOf": [{"anyOf": [{"properties": {"a": true}}, {"properties": {"b": true}}]}, true],
        "unevaluatedProperties": false
    }}});
    let message = compile(&nested).err().unwrap_or_default();
    assert!(
        message.starts_with("`unevaluatedProperties` at #/properties/p: a conditional applicator inside another's branch"),
        "{message}"
    );
    let branches: Vec<Value> = (0..5)
        .map(|i| json!({"properties": {format!("p{i}"): true}}))
        .collect();
    let many = json!({"anyOf": branches, "unevaluatedProperties": false});
    let message = compile(&many).err().unwrap_or_default();
    assert!(message.contains("depends on 5 applicators"), "{message}");
    let lenient = JsonSchemaCompiler::new().configure(Config::new().lenient(true));
    let regex = lenient.to_regex(&many.to_string()).unwrap();
    assert_eq!(regex.warnings.len(), 1, "{:?}", regex.warnings);
}
