//! The size corpus (`tests/sizes/`): deep nesting, recursion unrolled 4-5 deep, a
//! 3,000-value enum, 60 optional properties, a 2,000-character text. Each compiles
//! within the default limits; random walks validate, valid instances are accepted,
//! invalid ones rejected, and instances deeper than the unrolled recursion (`cut`) are
//! rejected although the schema allows them. Past the limits, the error names the
//! sub-schema where the states multiply and the option to raise.

use crate::support::{beyond_f64, dfa_walk, json_files, serialize, validator};
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};
use serde_json::{json, Value};
use testkit::vocabs::testdata_dir;

fn cases() -> Vec<(String, Value)> {
    let cases = json_files("tests/sizes");
    assert_eq!(cases.len(), 8, "the size corpus");
    cases
}

#[test]
fn size_corpus_compiles_within_the_default_limits_and_validates() {
    let mut rng = SplitMix64::new(41);
    let style = Whitespace::Flexible { max_whitespace: 8 };
    for (name, file) in cases() {
        let schema = &file["schema"];
        let depth = file["recursion_depth"].as_u64().unwrap_or(3) as usize;
        let compiler = JsonSchemaCompiler::new().configure(Config::new().recursion_depth(depth));
        let limit = compiler.get_config().get_dfa_state_limit();
        let regex = compiler
            .value_to_regex(schema)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let dfa = regex.dfa(limit).unwrap_or_else(|e| panic!("{name}: {e}"));
        let oracle = validator(schema);
        for _ in 0..12 {
            let text = String::from_utf8(dfa_walk(&dfa, &mut rng, 300)).unwrap();
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {text}"));
            assert!(
                oracle.is_valid(&value) || beyond_f64(&text),
                "{name}: invalid walk {text}"
            );
        }
        let list = |key: &str| file[key].as_array().cloned().unwrap_or_default();
        for (key, admitted, valid) in [("valid", true, true), ("invalid", false, false)]
            .into_iter()
            .chain([("cut", false, true)])
        {
            for v in list(key) {
                let text = serialize(&v, style);
                assert_eq!(oracle.is_valid(&v), valid, "{name} {key}: oracle on {text}");
                assert_eq!(
                    dfa.is_match(text.as_bytes()),
                    admitted,
                    "{name} {key}: {text}"
                );
            }
        }
    }
}

/// Arrays nested `depth` deep, each with `maxItems` when given.
fn nested_arrays(depth: usize, max_items: Option<u64>) -> Value {
    let mut arrays = json!({"type": "number"});
    for _ in 0..depth {
        arrays = match max_items {
            Some(m) => json!({"type": "array", "items": arrays, "maxItems": m}),
            None => json!({"type": "array", "items": arrays}),
        };
    }
    arrays
}

#[test]
fn past_the_limits_the_error_names_the_sub_schema_and_the_option() {
    let vocab =
        fstc_detok::Vocabulary::from_file(testdata_dir().join("gpt2/encoder.json")).unwrap();
    let trie = VocabTrie::new(&vocab);
    let grid = nested_arrays(6, Some(4));
    let wrapped =
        json!({"type": "object", "properties": {"name": {"type": "string"}, "grid": grid}});
    let deeper = nested_arrays(32, None);
    let states = "more than 100000 states (the DFA state limit)";
    // 32 levels pass regex-syntax's 250 nested groups; the culprit is the deepest part
    // that passes it alone: 31 levels (its 30-level item fits).
    let expect = [
        (
            &grid,
            "`maxItems` at the schema root (#)",
            states,
            "--dfa-state-limit",
        ),
        (
            &wrapped,
            "`maxItems` at #/properties/grid:",
            states,
            "--dfa-state-limit",
        ),
        (
            &deeper,
            "`items` at #/items:",
            "nests more than 250 groups",
            "grammar",
        ),
    ];
    for (schema, at, what, remedy) in expect {
        let err = JsonSchemaCompiler::new()
            .compile_with_trie(&schema.to_string(), &trie)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(at) && err.contains(what), "{err}");
        assert!(err.contains(remedy), "{err}");
    }
    // Unbounded lists nest linearly (one looping copy of the item per level): 24 levels
    // compile within the default limits, and the depth is exact.
    let deep = JsonSchemaCompiler::new()
        .value_to_regex(&nested_arrays(24, None))
        .unwrap()
        .dfa(100_000)
        .unwrap();
    let nest = |d: usize| format!("{}1{}", "[".repeat(d), "]".repeat(d));
    assert!(deep.is_match(nest(24).as_bytes()));
    let empty = format!("{}{}", "[".repeat(24), "]".repeat(24));
    let wide = format!("[{},[],{}]", nest(23), nest(23).replace('1', "2.5,-3"));
    assert!(deep.is_match(empty.as_bytes()) && deep.is_match(wide.as_bytes()));
    assert!(!deep.is_match(nest(23).as_bytes()) && !deep.is_match(nest(25).as_bytes()));
    // The option named is the one that lifts it.
    let dfa = JsonSchemaCompiler::new()
        .configure(Config::new().dfa_state_limit(200_000))
        .value_to_regex(&grid)
        .unwrap()
        .dfa(200_000)
        .unwrap();
    assert!(dfa.num_states() > 100_000 && dfa.is_match(b"[[[[[[1,2,3,4]]]]]]"));
}

/// A schema built to cost: ten properties, each an `allOf` of two bounded-length string
/// patterns whose intersection is a product automaton, and a `oneOf` over two of them.
fn costly_schema() -> Value {
    let mut properties = serde_json::Map::new();
    for i in 0..10 {
        properties.insert(
            format!("p{i}"),
            json!({"allOf": [
                {"type": "string", "pattern": format!("^[a-z]{{3,40}}{i}$")},
                {"type": "string", "pattern": "^[a-m0-9]{2,30}$", "maxLength": 25}
            ]}),
        );
    }
    json!({"type": "object", "properties": properties, "required": ["p0"]})
}

/// Past the time or memory budget, every path (eager, per request) ends in an error that
/// names the sub-schema being built and the option that raises the budget; within the
/// default budgets the same schema compiles.
#[test]
fn budgets_end_a_compile_naming_the_sub_schema_and_the_option() {
    let vocab =
        fstc_detok::Vocabulary::from_file(testdata_dir().join("gpt2/encoder.json")).unwrap();
    let trie = std::sync::Arc::new(VocabTrie::new(&vocab));
    let schema = costly_schema().to_string();
    let tight = [
        // Above the parsed document's ~11 KB (a smaller budget ends while reading it).
        (
            Config::new().memory_budget(16384),
            "memory budget of 16384 bytes",
            "memory_budget",
        ),
        (
            Config::new().time_budget(std::time::Duration::from_micros(300)),
            "time budget of 300µs",
            "time_budget",
        ),
    ];
    for (config, what, option) in tight {
        let compiler = JsonSchemaCompiler::new().configure(config);
        let errors = [
            compiler
                .compile_with_trie(&schema, &trie)
                .unwrap_err()
                .to_string(),
            compiler
                .compile_lazy(&schema, trie.clone())
                .unwrap_err()
                .to_string(),
        ];
        for err in errors {
            assert!(err.contains(what) && err.contains(option), "{err}");
            let at_sub_schema = err.contains("while building the sub-schema at #");
            let at_whole = err.contains("while building the schema's automaton");
            assert!(at_sub_schema || at_whole, "{err}");
        }
    }
    let compiler = JsonSchemaCompiler::new();
    assert!(compiler.compile_lazy(&schema, trie.clone()).is_ok());
    assert!(compiler.compile_with_trie(&schema, &trie).is_ok());
}
