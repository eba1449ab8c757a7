//! The corpus against the `jsonschema` crate: known-valid instances (properties in schema
//! order, each whitespace style) are accepted, known-invalid ones rejected, and random
//! texts of every compiled schema validate.

use crate::support::{corpus, dfa_walk, serialize, validator, STYLES};
use fstc_core::sample::SplitMix64;
use fstc_json::{Config, JsonSchemaCompiler};

#[test]
fn corpus_instances_agree_with_the_validator() {
    for case in corpus() {
        let oracle = validator(&case.schema);
        for v in &case.valid {
            assert!(
                oracle.is_valid(v),
                "{}: corpus instance should be valid: {v}",
                case.name
            );
        }
        for v in &case.invalid {
            assert!(
                !oracle.is_valid(v),
                "{}: corpus instance should be invalid: {v}",
                case.name
            );
        }
        for style in STYLES {
            let dfa = JsonSchemaCompiler::new()
                .configure(Config::new().whitespace(style))
                .value_to_regex(&case.schema)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name))
                .dfa(100_000)
                .unwrap();
            for v in &case.valid {
                let text = serialize(v, style);
                assert!(
                    dfa.is_match(text.as_bytes()),
                    "{} {style:?}: valid rejected:\n{text}",
                    case.name
                );
            }
            for v in &case.invalid {
                let text = serialize(v, style);
                assert!(
                    !dfa.is_match(text.as_bytes()),
                    "{} {style:?}: invalid accepted:\n{text}",
                    case.name
                );
            }
        }
    }
}

#[test]
fn random_texts_of_every_schema_validate() {
    let mut rng = SplitMix64::new(11);
    for case in corpus() {
        let oracle = validator(&case.schema);
        for style in STYLES {
            let dfa = JsonSchemaCompiler::new()
                .configure(Config::new().whitespace(style))
                .value_to_regex(&case.schema)
                .unwrap()
                .dfa(100_000)
                .unwrap();
            for _ in 0..40 {
                let text = dfa_walk(&dfa, &mut rng, 300);
                let text = String::from_utf8(text).expect("walks are UTF-8");
                let value: serde_json::Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{} {style:?}: not JSON ({e}):\n{text}", case.name));
                assert!(
                    oracle.is_valid(&value),
                    "{} {style:?}: invalid text:\n{text}",
                    case.name
                );
            }
        }
    }
}
