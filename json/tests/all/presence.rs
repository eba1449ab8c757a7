//! Constraints on which properties an object has (`dependentRequired`, `dependencies`,
//! `oneOf`/`anyOf`/`not` of `required`, `if` on presence), written as a union of objects:
//! every set of names is tried against the `jsonschema` crate, on hand-written schemas and
//! on random formulas; a recursive object with many such constraints (once refused past
//! the state limit after seconds) compiles per request and its walks validate; closed
//! objects that each require a name the other lacks are exclusive `oneOf` branches.

use serde_json::{json, Map, Value};

use std::sync::Arc;

use crate::support::{compact_dfa, validator, walks_validate};
use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_detok::Vocabulary;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};
use testkit::masks::{mask_of, ones};
use testkit::vocabs::testdata;

const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

/// Every object over `names` (values from `value`), in `names` order.
fn every_key_set(names: &[&str], value: impl Fn(&str) -> Value) -> Vec<Value> {
    (0..1u32 << names.len())
        .map(|set| {
            let mut object = Map::new();
            for (i, name) in names.iter().enumerate() {
                if set & (1 << i) != 0 {
                    object.insert(name.to_string(), value(name));
                }
            }
            Value::Object(object)
        })
        .collect()
}

/// Asserts that the compiled language and the oracle agree on every object over `names`
/// (and on one with an unnamed property), and that random texts validate.
fn agrees_on_key_sets(schema: &Value, names: &[&str], rng: &mut SplitMix64) {
    let dfa = compact_dfa(schema, Config::new()).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let oracle = validator(schema);
    let mut instances = every_key_set(names, |n| json!(n.len()));
    instances.push(json!({"a": 1, "zz": true}));
    for v in &instances {
        let text = v.to_string();
        assert_eq!(
            dfa.is_match(text.as_bytes()),
            oracle.is_valid(v),
            "{schema}\n{text}"
        );
    }
    walks_validate(&dfa, &oracle, rng, 20);
}

fn properties(names: &[&str]) -> Value {
    let map: Map<String, Value> = names
        .iter()
        .map(|n| (n.to_string(), json!({"type": "integer"})))
        .collect();
    Value::Object(map)
}

#[test]
fn hand_written_presence_constraints_agree_on_every_key_set() {
    let props = properties(&NAMES);
    let schemas = [
        json!({"type": "object", "properties": props, "dependentRequired": {"a": ["b", "c"], "d": ["a"]}}),
        json!({"type": "object", "properties": props, "dependencies": {"a": ["b"], "b": {"not": {"required": ["c"]}}}}),
        json!({"type": "object", "properties": props, "additionalProperties": false,
               "oneOf": [{"type": "object", "properties": {"a": true}, "required": ["a"]},
                         {"required": ["b", "c"]}, {"required": ["d"]}]}),
        json!({"type": "object", "properties": props, "required": ["e"],
               "anyOf": [{"required": ["a"]}, {"not": {"required": ["b"]}}],
               "not": {"required": ["c", "d"]}}),
        json!({"type": "object", "properties": props,
               "if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"not": {"required": ["c"]}}}),
        json!({"type": "object", "properties": props,
               "dependencies": {"a": {"oneOf": [{"required": ["b"]}, {"required": ["c"]}]},
                                "b": {"allOf": [{"not": {"required": ["d"]}}, {"not": {"required": ["e"]}}]}},
               "allOf": [{"required": ["a"]}, {"anyOf": [{"required": ["d"]}, {"required": ["e"]}, {"required": ["b"]}]}]}),
    ];
    let mut rng = SplitMix64::new(26);
    for schema in &schemas {
        agrees_on_key_sets(schema, &NAMES, &mut rng);
    }
}

/// A random formula over `names` as a schema on objects.
fn random_formula(rng: &mut SplitMix64, names: &[&str], depth: usize) -> Value {
    let pick = |rng: &mut SplitMix64| names[rng.below(names.len() as u64) as usize];
    let leaf = |rng: &mut SplitMix64| {
        let n = 1 + rng.below(2) as usize;
        let required: Vec<&str> = (0..n).map(|_| pick(rng)).collect();
        let mut required = required;
        required.dedup();
        json!({"required": required})
    };
    if depth == 0 || rng.below(3) == 0 {
        return leaf(rng);
    }
    let keyword = ["not", "anyOf", "oneOf", "allOf"][rng.below(4) as usize];
    if keyword == "not" {
        return json!({"not": random_formula(rng, names, depth - 1)});
    }
    let n = 1 + rng.below(3) as usize;
    let branches: Vec<Value> = (0..n)
        .map(|_| random_formula(rng, names, depth - 1))
        .collect();
    json!({ keyword: branches })
}

#[test]
fn random_presence_formulas_agree_on_every_key_set() {
    let names = &NAMES[..4];
    let mut rng = SplitMix64::new(2026);
    for _ in 0..60 {
        let mut schema = json!({"type": "object", "properties": properties(names)});
        let map = schema.as_object_mut().unwrap();
        if rng.below(3) == 0 {
            map.insert("additionalProperties".into(), json!(false));
        }
        let formula = random_formula(&mut rng, names, 2);
        let name = names[rng.below(4) as usize];
        match rng.below(4) {
            0 => map.insert("dependencies".into(), json!({ name: formula })),
            1 => map.insert("allOf".into(), json!([formula])),
            2 => {
                map.insert("if".into(), formula);
                map.insert("then".into(), random_formula(&mut rng, names, 1))
            }
            _ => map.insert(
                "dependentRequired".into(),
                json!({ name: [names[0], names[3]] }),
            ),
        };
        agrees_on_key_sets(&schema, names, &mut rng);
    }
}

/// A grammar rule that nests rules, with a dozen optional keys tied by dependencies: the
/// shape of editors' grammar files. Intersected with the whole object at each level of
/// the recursion, its automaton doubled per level and passed the state limit after
/// seconds; as a union of objects it compiles.
#[test]
fn a_recursive_object_with_many_dependencies_compiles() {
    let schema = json!({
        "$defs": {
            "flag": {"oneOf": [{"type": "boolean"}, {"enum": [0, 1]}]},
            "rule": {
                "type": "object",
                "properties": {
                    "note": {"type": "string"}, "scope": {"type": "string"},
                    "off": {"$ref": "#/$defs/flag"}, "use": {"type": "string"},
                    "find": {"type": "string"}, "open": {"type": "string"},
                    "close": {"type": "string"}, "until": {"type": "string"},
                    "late": {"$ref": "#/$defs/flag"},
                    "groups": {"type": "object", "additionalProperties": {"$ref": "#/$defs/rule"}},
                    "openGroups": {"type": "object", "additionalProperties": {"$ref": "#/$defs/rule"}},
                    "closeGroups": {"type": "object", "additionalProperties": {"$ref": "#/$defs/rule"}},
                    "inner": {"type": "array", "items": {"$ref": "#/$defs/rule"}}
                },
                "additionalProperties": false,
                "dependencies": {
                    "use": {"allOf": [{"not": {"required": ["find"]}}, {"not": {"required": ["open"]}}]},
                    "find": {"not": {"required": ["open"]}},
                    "open": {"oneOf": [{"required": ["close"]}, {"required": ["until"]}]},
                    "close": ["open"], "until": ["open"], "late": ["open"],
                    "groups": {"oneOf": [{"required": ["find"]}, {"required": ["open"]}]},
                    "openGroups": ["open"], "closeGroups": ["close"]
                }
            }
        },
        "type": "object",
        "properties": {"inner": {"type": "array", "items": {"$ref": "#/$defs/rule"}}},
        "required": ["inner"]
    });
    // The per-request path: the rule is one machine of the call network, called at every
    // level (the flat regex copies each of the rule's alternatives into each recursive
    // member, so its size multiplies per `recursion_depth` level).
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let compiler =
        JsonSchemaCompiler::new().configure(Config::new().whitespace(Whitespace::Compact));
    let trie = Arc::new(VocabTrie::new(&vocab));
    let compiled = compiler
        .compile_lazy(&schema.to_string(), trie.clone())
        .unwrap();
    assert!(
        compiled.stats.to_string().contains("machines"),
        "{}",
        compiled.stats
    );
    let automaton = compiled.automaton;
    let oracle = validator(&schema);
    let ends_accepted = |text: &str| {
        let mut matcher = automaton.start_matcher();
        matcher
            .consume_tokens(&vocab.tokenize(text).unwrap())
            .is_ok()
            && matcher.is_accepting()
    };
    let valid = [
        json!({"inner": [{"find": "x", "groups": {"1": {"scope": "s"}}}]}),
        json!({"inner": [{"open": "(", "close": ")", "late": 1, "inner": [{"use": "#a"}]}]}),
        json!({"inner": [{"open": "(", "until": "x", "openGroups": {"0": {"find": "y"}}}]}),
    ];
    let invalid = [
        json!({"inner": [{"use": "#a", "find": "x"}]}),
        json!({"inner": [{"open": "(", "close": ")", "until": "x"}]}),
        json!({"inner": [{"open": "(", "close": ")", "inner": [{"close": ")"}]}]}),
        json!({"inner": [{"find": "x", "open": "(", "close": ")"}]}),
    ];
    for v in &valid {
        assert!(oracle.is_valid(v) && ends_accepted(&v.to_string()), "{v}");
    }
    for v in &invalid {
        assert!(!oracle.is_valid(v) && !ends_accepted(&v.to_string()), "{v}");
    }
    let mut rng = SplitMix64::new(7);
    let eos = trie.eos_ids();
    let mut compared = 0;
    for _ in 0..30 {
        let mut matcher = automaton.start_matcher();
        let mut tokens = Vec::new();
        while !matcher.only_eos_allowed() && tokens.len() < 400 {
            let allowed: Vec<u32> = ones(&mask_of(&matcher))
                .into_iter()
                .filter(|t| !eos.contains(t))
                .collect();
            // Close as soon as allowed once long, so walks end.
            if matcher.is_accepting() && (tokens.len() > 60 || rng.below(4) == 0) {
                break;
            }
            let t = allowed[rng.index(allowed.len())];
            matcher.consume(t).unwrap();
            tokens.push(t);
        }
        if !matcher.is_accepting() {
            continue;
        }
        let text = String::from_utf8(vocab.detokenize(&tokens)).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(oracle.is_valid(&value), "{text}");
        compared += 1;
    }
    assert!(compared >= 10, "{compared} walks ended");
}

/// `oneOf` of two closed objects, each requiring a name the other does not list: no value
/// satisfies both, so the union is exact although each branch has nested objects (in one
/// member order), where the difference of overlapping branches is refused.
#[test]
fn closed_objects_requiring_names_the_other_lacks_are_exclusive() {
    let job = |required: &str, other: &str| {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                required: {"type": "string"},
                other: {"type": "object", "properties": {"x": {"type": "integer"}}}
            },
            "required": [required],
            "additionalProperties": false
        })
    };
    let mut run = job("runs", "env");
    let call = job("call", "with");
    let schema = json!({"type": "object", "additionalProperties": {"oneOf": [run.clone(), call]}});
    let dfa = compact_dfa(&schema, Config::new()).unwrap();
    let oracle = validator(&schema);
    for v in [
        json!({"j": {"name": "n", "runs": "x", "env": {"x": 1}}}),
        json!({"j": {"call": "y", "with": {"x": 2}}, "k": {"runs": "z"}}),
        json!({"j": {"runs": "x", "call": "y"}}),
        json!({"j": {"name": "n"}}),
    ] {
        let text = v.to_string();
        assert_eq!(dfa.is_match(text.as_bytes()), oracle.is_valid(&v), "{text}");
    }
    // Open objects may have both names: the overlap is still refused by name.
    let mut call = job("call", "with");
    run["additionalProperties"] = json!(true);
    call["additionalProperties"] = json!(true);
    let open = json!({"oneOf": [run, call]});
    let error = compact_dfa(&open, Config::new()).unwrap_err();
    assert!(error.contains("the branches overlap"), "{error}");
}
