//! `$ref` by URI: `$id` bases, anchors per resource, URNs, draft-4 `id`, and documents read
//! from the reference folder, each schema compared with the `jsonschema` crate (given the
//! same folder through its retriever) on written instances and on random texts of fstc's
//! automaton; errors for what cannot be resolved; random `$ref` texts never read outside
//! the folder.

use std::path::{Path, PathBuf};

use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_json::{Config, JsonSchemaCompiler};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::support::{compact_dfa, walks_validate};

/// The documents of the reference folder, by path under it.
fn documents() -> Vec<(&'static str, Value)> {
    vec![
        (
            "common.json",
            json!({
                "$defs": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 8},
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                    "tag": {"$anchor": "tag", "enum": ["a", "b"]}
                }
            }),
        ),
        (
            "schemas/address.json",
            json!({
                "$id": "https://example.com/schemas/address.json",
                "type": "object",
                "properties": {
                    "city": {"$ref": "../common.json#/$defs/name"},
                    "zip": {"$ref": "#/$defs/zip"}
                },
                "required": ["city"],
                "additionalProperties": false,
                "$defs": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}
            }),
        ),
        ("inside.json", json!({"type": "string"})),
    ]
}

/// A fresh reference folder (under a parent that holds `outside.json`, which a `$ref` must
/// never reach: it is not JSON, so reading it would be an error saying so).
fn folder(name: &str) -> PathBuf {
    let parent = std::env::temp_dir().join(format!("fstc-refs-{}-{name}", std::process::id()));
    let dir = parent.join("docs");
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::write(parent.join("outside.json"), "not JSON").unwrap();
    for (path, value) in documents() {
        std::fs::write(dir.join(path), value.to_string()).unwrap();
    }
    dir
}

/// Serves the folder's documents to the oracle by the same mapping (the URI's path).
struct FolderRetriever(PathBuf);

impl jsonschema::Retrieve for FolderRetriever {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let path = uri.path().as_str().trim_start_matches('/');
        let text = std::fs::read_to_string(self.0.join(path))?;
        Ok(serde_json::from_str(&text)?)
    }
}

fn compile(schema: &Value, dir: &Path) -> Result<ByteDfa, String> {
    compact_dfa(schema, Config::new().ref_dir(dir))
}

/// Schemas as users write them with `$id`s and references, with instances.
fn cases() -> Vec<(Value, Vec<Value>)> {
    vec![
        // A local `#/...` inside a nested resource is read in that resource, not the root.
        (
            json!({
                "$id": "http://x.test/root.json",
                "$defs": {
                    "b": {"type": "string"},
                    "a": {"$id": "http://x.test/a.json", "$defs": {"b": {"type": "integer"}}, "$ref": "#/$defs/b"}
                },
                "$ref": "#/$defs/a"
            }),
            vec![json!(5), json!("s"), json!(null)],
        ),
        // Relative `$id`s nest; references by full URI, by relative URI and by anchor.
        (
            json!({
                "$id": "https://api.test/v1/order.json",
                "type": "object",
                "properties": {
                    "id": {"$ref": "https://api.test/v1/defs/ids.json#/$defs/id"},
                    "item": {"$ref": "defs/ids.json#sku"},
                    "qty": {"$ref": "#qty"}
                },
                "required": ["id", "qty"],
                "additionalProperties": false,
                "$defs": {
                    "ids": {
                        "$id": "defs/ids.json",
                        "$defs": {
                            "id": {"type": "integer", "minimum": 1},
                            "sku": {"$anchor": "sku", "type": "string", "pattern": "^[A-Z]{2}[0-9]$"}
                        }
                    },
                    "qty": {"$anchor": "qty", "type": "integer", "minimum": 0, "maximum": 9}
                }
            }),
            vec![
                json!({"id": 3, "qty": 2}),
                json!({"id": 3, "item": "AB1", "qty": 2}),
                json!({"id": 0, "qty": 2}),
                json!({"id": 3, "item": "ab1", "qty": 2}),
                json!({"id": 3, "qty": 12}),
                json!({"qty": 1}),
            ],
        ),
        // URN identifiers.
        (
            json!({
                "$id": "urn:uuid:deadbeef-1234-0000-0000-4321feebdaed",
                "properties": {"level": {"$ref": "urn:uuid:deadbeef-1234-0000-0000-4321feebdaed#/$defs/level"}},
                "$defs": {"level": {"enum": ["low", "high"]}}
            }),
            vec![json!({"level": "low"}), json!({"level": "mid"}), json!({})],
        ),
        // Documents of the reference folder, one referring to another relatively.
        (
            json!({
                "type": "object",
                "properties": {
                    "name": {"$ref": "common.json#/$defs/name"},
                    "port": {"$ref": "http://anywhere.test/common.json#/$defs/port"},
                    "tag": {"$ref": "common.json#tag"},
                    "home": {"$ref": "https://example.com/schemas/address.json"},
                    "any": {"$ref": "inside.json"}
                },
                "additionalProperties": false
            }),
            vec![
                json!({"name": "ann", "port": 80, "tag": "a"}),
                json!({"name": "", "port": 80}),
                json!({"port": 0}),
                json!({"tag": "c"}),
                json!({"home": {"city": "Oslo", "zip": "01234"}}),
                json!({"home": {"city": "Oslo", "zip": "1234"}}),
                json!({"home": {"zip": "01234"}}),
                json!({"home": {"city": "averylongname"}}),
                json!({"any": "x"}),
                json!({"any": null}),
            ],
        ),
    ]
}

/// Each schema's language equals the oracle's on the written instances and on random texts
/// of fstc's automaton.
#[test]
fn references_by_uri_agree_with_the_oracle() {
    let dir = folder("agree");
    let mut rng = SplitMix64::new(7);
    for (schema, instances) in cases() {
        let dfa = compile(&schema, &dir).unwrap_or_else(|e| panic!("{schema}: {e}"));
        let oracle = jsonschema::options()
            .with_retriever(FolderRetriever(dir.clone()))
            .build(&schema)
            .unwrap();
        for instance in &instances {
            let text = instance.to_string();
            let want = oracle.is_valid(instance);
            assert_eq!(dfa.is_match(text.as_bytes()), want, "{schema}\n{text}");
        }
        let walked = walks_validate(&dfa, &oracle, &mut rng, 200);
        assert!(walked > 100, "{schema}: {walked} walks compared");
    }
}

/// What cannot be resolved is an error naming the `$ref`, its pointer and why.
#[test]
fn unresolved_references_are_named() {
    let dir = folder("errors");
    let cases = [
        (
            json!({"$ref": "missing.json"}),
            "`$ref` at the schema root (#): `missing.json` names `file:///missing.json`",
        ),
        (
            json!({"properties": {"a": {"$ref": "common.json#nope"}}}),
            "`$ref` at #/properties/a: `common.json#nope` names no anchor `nope`",
        ),
        (
            json!({"$ref": "common.json#/$defs/none"}),
            "`common.json#/$defs/none` points at nothing",
        ),
        (
            json!({"$ref": "../outside.json"}),
            "`../outside.json` names `file:///outside.json`",
        ),
        (
            json!({"$ref": "%2e%2e/outside.json"}),
            "names no file in a folder",
        ),
        (
            json!({"$ref": "urn:example:x"}),
            "names no file in a folder",
        ),
    ];
    for (schema, expected) in cases {
        let message = compile(&schema, &dir).err().unwrap_or_default();
        assert!(message.contains(expected), "{schema}: {message}");
    }
    let no_folder = JsonSchemaCompiler::new().to_regex(r#"{"$ref": "common.json"}"#);
    let message = no_folder.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("give the folder of referenced documents (option ref_dir, --ref-dir)"),
        "{message}"
    );
}

/// Draft 4's `id` sets the base there; a `$id` inside `enum` or an unknown keyword is data.
#[test]
fn ids_are_read_where_they_are_identifiers() {
    let dir = folder("ids");
    let draft4 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "http://d4.test/root.json",
        "definitions": {"n": {"id": "n.json", "type": "integer"}},
        "properties": {"n": {"$ref": "n.json"}}
    });
    let dfa = compile(&draft4, &dir).unwrap();
    assert!(dfa.is_match(br#"{"n":1}"#) && !dfa.is_match(br#"{"n":"1"}"#));
    let data_id = json!({
        "$defs": {"x": {"enum": [{"$id": "http://data.test/x.json"}]}, "y": {"type": "boolean"}},
        "properties": {"y": {"$ref": "#/$defs/y"}},
        "x-notes": {"$id": "http://data.test/", "$defs": {"y": {"type": "null"}}}
    });
    let dfa = compile(&data_id, &dir).unwrap();
    assert!(dfa.is_match(br#"{"y":true}"#) && !dfa.is_match(br#"{"y":null}"#));
}

/// Random `$ref` texts made of path pieces, dot segments and escapes: the compile ends in an
/// automaton or a `$ref` error, and never reads the file outside the folder.
fn reference() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just(".."),
        Just("."),
        Just("%2e%2e"),
        Just("%2E."),
        Just("/"),
        Just("%2f"),
        Just("docs"),
        Just("inside.json"),
        Just("outside.json"),
        Just("common.json"),
        Just("#"),
        Just("#/$defs/name"),
        Just("file:"),
        Just("//h"),
        Just("\\"),
        Just("%00"),
    ];
    prop::collection::vec(piece, 1..7).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_references_stay_in_the_folder(target in reference()) {
        let dir = folder("random");
        let schema = json!({"properties": {"v": {"$ref": target}}});
        if let Err(message) = compile(&schema, &dir) {
            prop_assert!(message.contains("`$ref` at #/properties/v"), "{target}: {message}");
            prop_assert!(!message.contains("is not JSON"), "{target}: {message}");
        }
    }
}
