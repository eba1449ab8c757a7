//! Refusals by name and path; malformed and mutated specs give errors whose path points
//! into the spec, never a panic.

use fstc_core::sample::SplitMix64;
use fstc_tags::{Composition, Format, StructuralTag, StructuralTagCompiler, Tag, TriggeredTags};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::differential::cases;

/// Reads and compiles to a byte DFA; the error, if any.
fn error_of(spec: &Value) -> Option<fstc_tags::TagsError> {
    let tag = match StructuralTag::from_value(spec) {
        Ok(tag) => tag,
        Err(e) => return Some(e),
    };
    StructuralTagCompiler::new().byte_dfa(&tag).err()
}

fn wrap(format: Value) -> Value {
    json!({"type": "structural_tag", "format": format})
}

#[test]
fn what_is_not_enforced_is_refused_by_name_and_path() {
    let int = json!({"type": "json_schema", "json_schema": {"type": "integer"}});
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            wrap(json!({"type": "grammar", "grammar": "root ::= \"(\" root \")\" | \"\""})),
            "/format",
            "is context-free: the structure compiles to a token PDA",
        ),
        (
            wrap(json!({"type": "token", "token": 5})),
            "/format/token",
            "a token is not text",
        ),
        (
            wrap(json!({"type": "any_tokens"})),
            "/format",
            "token-level",
        ),
        (
            wrap(json!({"type": "dispatch", "rules": []})),
            "/format",
            "`dispatch` is refused",
        ),
        (
            wrap(json!({"type": "any_text", "max_tokens": -1})),
            "/format/max_tokens",
            "expected an integer",
        ),
        (
            wrap(json!({"type": "json_schema", "json_schema": {}, "style": "qwen_xml"})),
            "/format/style",
            "style `qwen_xml` is refused",
        ),
        (
            wrap(json!({"type": "json_schema", "json_schema": {}, "any_order": true})),
            "/format/any_order",
            "`any_order: true` is refused",
        ),
        (
            wrap(
                json!({"type": "tag", "begin": {"type": "token", "token": "<|x|>"}, "content": int, "end": "e"}),
            ),
            "/format/begin/token",
            "a token is not text",
        ),
        (
            wrap(
                json!({"type": "sequence", "elements": [int, {"type": "json_schema", "json_schema": {"type": "array", "uniqueItems": true}}]}),
            ),
            "/format/elements/1/json_schema",
            "uniqueItems",
        ),
        (
            wrap(json!({"type": "regex", "pattern": "(a"})),
            "/format/pattern",
            "regex",
        ),
        (
            wrap(json!({"type": "regex", "pattern": "(a)\\1"})),
            "/format/pattern",
            "backreference",
        ),
        (
            wrap(json!({"type": "const_string", "value": "a", "extra": 1})),
            "/format/extra",
            "unknown field `extra`",
        ),
        (
            wrap(json!({"type": "or", "elements": []})),
            "/format/elements",
            "`or` has no elements",
        ),
        (
            wrap(json!({"type": "whatever"})),
            "/format/type",
            "unknown format type `whatever`",
        ),
        (
            wrap(json!({"type": "triggered_tags", "triggers": ["<f"],
                        "tags": [{"begin": "<g>", "content": int, "end": "</g>"}]})),
            "/format/tags/0/begin",
            "starts with none of the triggers",
        ),
        (
            wrap(json!({"type": "triggered_tags", "triggers": ["<f", "<f="],
                        "tags": [{"begin": "<f=a>", "content": int, "end": "</f>"}]})),
            "/format/tags/0/begin",
            "more than one trigger",
        ),
        (
            wrap(
                json!({"type": "triggered_tags", "triggers": [""], "tags": [{"begin": "a", "content": int, "end": "b"}]}),
            ),
            "/format/triggers/0",
            "empty string",
        ),
        (
            wrap(json!({"type": "any_text", "excludes": ["a", ""]})),
            "/format/excludes/1",
            "empty",
        ),
        (
            wrap(json!({"type": "tag", "begin": "a", "content": int, "end": []})),
            "/format/end",
            "empty list",
        ),
        (
            wrap(json!({"type": "repeat", "min": 3, "max": 2, "content": int})),
            "/format/max",
            "below `min`",
        ),
        (
            json!({"structures": [{"begin": "<f>", "schema": {"type": "nope"}, "end": "</f>"}], "triggers": ["<f"]}),
            "/structures/0/schema",
            "JSON Schema",
        ),
        (
            json!({"structures": [{"begin": "<g>", "schema": {}, "end": "</g>"}], "triggers": ["<f"]}),
            "/structures/0/begin",
            "none of the triggers",
        ),
        (
            json!({"structures": [], "triggers": []}),
            "/triggers",
            "`triggers` is empty",
        ),
        (
            wrap(json!({"type": "json_schema", "json_schema": false})),
            "/format/json_schema",
            "admits no JSON",
        ),
    ];
    for (spec, path, words) in cases {
        let e = error_of(&spec).unwrap_or_else(|| panic!("accepted: {spec}"));
        assert_eq!(e.path(), path, "{e}");
        assert!(e.to_string().contains(words), "{e} lacks {words:?}");
        assert!(spec.pointer(path).is_some(), "{path} is not in {spec}");
    }
}

#[test]
fn the_builder_makes_the_tree_the_json_spelling_gives() {
    let weather = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let spec = wrap(json!({"type": "sequence", "elements": [
        {"type": "tag", "begin": "<think>", "content": {"type": "any_text"}, "end": "</think>"},
        {"type": "triggered_tags", "triggers": ["<function="], "tags": [
            {"type": "tag", "begin": "<function=w>", "content": {"type": "json_schema", "json_schema": weather}, "end": "</function>"}]}]}));
    let built = Format::sequence([
        Format::tag("<think>", Format::any_text(), "</think>"),
        TriggeredTags::new(
            ["<function="],
            [Tag::new(
                "<function=w>",
                Format::json_schema(weather),
                "</function>",
            )],
        )
        .into_format(),
    ]);
    assert_eq!(StructuralTag::from_value(&spec).unwrap().format, built);
    let (dfa, _) = StructuralTagCompiler::new()
        .byte_dfa(&StructuralTag::from_format(built))
        .unwrap();
    assert!(dfa.is_match(b"<think>hm</think>ok <function=w>{\"city\": \"Oslo\"}</function>"));
}

#[test]
fn not_json_and_wrong_shapes_are_errors() {
    assert!(StructuralTag::from_json("{")
        .unwrap_err()
        .to_string()
        .contains("not valid JSON"));
    for spec in [
        json!(1),
        json!([]),
        json!({"type": "structural_tag"}),
        json!({"format": {}}),
        json!({"type": "structural_tag", "structures": [], "triggers": ["<tool_call>"]}),
        // The triggers are excluded from the text too, but an index names `excludes` alone.
        json!({"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["@"],
            "excludes": [""], "tags": [{"begin": "@x(", "content": {"type": "const_string", "value": "1"}, "end": ")"}]}}),
    ] {
        let e = error_of(&spec).unwrap();
        assert!(spec.pointer(e.path()).is_some(), "{e}");
    }
}

/// `v` with one random node replaced, removed or retyped.
fn mutate(v: &mut Value, rng: &mut SplitMix64) {
    let replacements = [
        json!(null),
        json!(-1),
        json!(4294967296u64),
        json!("x"),
        json!(""),
        json!([]),
        json!({}),
        json!(true),
        json!({"type": "any_text"}),
        json!({"type": "tag"}),
        json!(["<f", ""]),
        json!({"type": "star", "content": {"type": "star", "content": {"type": "any_text"}}}),
    ];
    mutate_with(v, rng, &replacements);
}

/// `v` with one random node replaced by one of `replacements`, or removed.
pub(crate) fn mutate_with(v: &mut Value, rng: &mut SplitMix64, replacements: &[Value]) {
    let mut node = v;
    loop {
        let children = match node {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if children == 0 || rng.below(3) == 0 {
            break;
        }
        let k = rng.index(children);
        if rng.below(4) == 0 {
            match node {
                Value::Object(m) => {
                    let key = m.keys().nth(k).unwrap().clone();
                    m.shift_remove(&key);
                }
                Value::Array(a) => {
                    a.remove(k);
                }
                _ => {}
            }
            return;
        }
        node = match node {
            Value::Object(m) => m.values_mut().nth(k).unwrap(),
            Value::Array(a) => &mut a[k],
            _ => unreachable!(),
        };
    }
    *node = replacements[rng.index(replacements.len())].clone();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Mutated specs compile or give an error whose path points into the spec.
    #[test]
    fn mutated_specs_give_errors_that_point_into_them(seed in any::<u64>(), which in 0usize..64) {
        let all = cases();
        let mut spec = all[which % all.len()].spec.clone();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..1 + rng.below(3) {
            mutate(&mut spec, &mut rng);
        }
        if let Some(e) = error_of(&spec) {
            prop_assert!(spec.pointer(e.path()).is_some(), "{} not in {}", e, spec);
            prop_assert!(!e.message().is_empty());
        }
    }
}

#[test]
fn huge_counts_are_limit_errors() {
    let text = json!({"type": "const_string", "value": "ab"});
    for spec in [
        wrap(json!({"type": "repeat", "min": 0, "max": 4294967295u64, "content": text})),
        wrap(json!({"type": "repeat", "min": 4000000000u64, "max": -1, "content": text})),
        wrap(json!({"type": "any_text", "max_chars": 4294967295u64})),
    ] {
        let e = error_of(&spec).unwrap_or_else(|| panic!("accepted: {spec}"));
        assert!(spec.pointer(e.path()).is_some(), "{e}");
    }
}

/// Tools whose long strings make thousands of states, each with most of the vocabulary.
fn exploding_tools() -> StructuralTag {
    let tags: Vec<Value> = (0..8)
        .map(|i| {
            json!({"begin": format!("<f{i}>"), "end": "</f>", "content": {"type": "json_schema",
                   "json_schema": {"type": "string", "maxLength": 600 + i}}})
        })
        .collect();
    let spec = json!({"type": "triggered_tags", "triggers": ["<f"], "tags": tags});
    StructuralTag::from_json(&spec.to_string()).unwrap()
}

#[test]
fn the_eager_compile_ends_at_its_budgets_naming_the_option() {
    use fstc_json::Config;
    let vocab =
        fstc_detok::Vocabulary::from_file(testkit::vocabs::testdata("gpt2/encoder.json")).unwrap();
    let tag = exploding_tools();
    let quick = Config::new().time_budget(std::time::Duration::ZERO);
    let small = Config::new().memory_budget(1 << 20);
    for (name, compiler) in [
        (
            "pieces",
            StructuralTagCompiler::new().composition(Composition::Pieces),
        ),
        (
            "one DFA",
            StructuralTagCompiler::new().composition(Composition::Whole),
        ),
    ] {
        let e = compiler
            .clone()
            .configure(quick.clone())
            .compile(&tag, &vocab)
            .unwrap_err();
        assert!(
            e.message().contains("time budget") && e.message().contains("`--time-budget`"),
            "{name}: {e}"
        );
        let e = compiler
            .configure(small.clone())
            .compile(&tag, &vocab)
            .unwrap_err();
        assert!(
            e.message().contains("memory budget of 1048576 bytes")
                && e.message().contains("`--memory-budget`"),
            "{name}: {e}"
        );
    }
}
