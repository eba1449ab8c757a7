//! Tokens named by a structural tag (`{"type": "token"}`, `token_triggered_tags`): only the
//! named token matches them, never other tokens spelling its name, and no free text holds
//! it. Checked against the oracle on a spec where each named token is a string of its own
//! that nothing else can hold (a control byte first: no JSON text holds one, and every free
//! text excludes it), the texts under random tokenizations with each such string written
//! as the token: eager (one DFA and pieces) and lazy, on the byte-level fixture (Llama 3's
//! special tokens) and, when ../shared/vocabs is there, on Llama 3 and Qwen 3.

use fstc_core::lazy::LazyAutomaton;
use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_tags::{Composition, StructuralTag, TokenRef};
use serde_json::{json, Value};
use testkit::tokenize::Segmenter;

use crate::differential::{accepts, compiler, texts, Case};
use crate::oracle;

/// Llama 3.1's form: `<|python_tag|>` (here another special token of the vocabulary, by
/// name), a call as JSON, then `}`; free text before, nothing after.
fn python_tag(name: &str) -> Value {
    let call = |tool: &str, schema: Value| {
        json!({"type": "sequence", "elements": [
            {"type": "const_string", "value": format!("{{\"name\": \"{tool}\", \"parameters\": ")},
            {"type": "json_schema", "json_schema": schema}]})
    };
    json!({"type": "structural_tag", "format": {"type": "token_triggered_tags",
        "trigger_tokens": [name], "stop_after_first": true,
        "tags": [{"type": "tag", "begin": {"type": "token", "token": name}, "end": "}",
                  "content": {"type": "or", "elements": [
            call("add", json!({"type": "object", "properties": {"a": {"type": "integer"}},
                               "required": ["a"], "additionalProperties": false})),
            call("echo", json!({"type": "object", "properties": {"s": {"type": "string"}},
                                "required": ["s"], "additionalProperties": false}))]}}]}})
}

/// Qwen 3's form: a text token as the opening (`<tool_call>` there), a string end, calls
/// anywhere in free text; a `<think>` block first.
fn one_token_call(open: &str) -> Value {
    json!({"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "tag", "begin": "<think>", "content": {"type": "any_text"}, "end": "</think>"},
        {"type": "token_triggered_tags", "trigger_tokens": [open],
         "tags": [{"type": "tag", "begin": {"type": "token", "token": open},
                   "content": {"type": "json_schema", "json_schema": {"type": "object",
                       "properties": {"q": {"type": "string", "maxLength": 6}},
                       "required": ["q"], "additionalProperties": false}},
                   "end": "</call>"}]}]}})
}

/// The string the oracle reads for token `id`: a control byte first, which no JSON text
/// holds.
fn stand_in(id: u32) -> String {
    format!("\u{1}T{id}\u{1}")
}

/// `spec` with each named token (by name, resolved by `ids`) as its stand-in string and
/// `token_triggered_tags` as `triggered_tags` of those strings; every free text excludes
/// the stand-ins (no free text holds a named token).
fn as_strings(spec: &Value, ids: &dyn Fn(&str) -> u32, all: &[String]) -> Value {
    let token = |v: &Value| match v {
        Value::String(name) => stand_in(ids(name)),
        v => stand_in(v.as_u64().unwrap() as u32),
    };
    match spec {
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| as_strings(v, ids, all)).collect())
        }
        Value::Object(map) if map.get("type") == Some(&json!("token")) => {
            json!({"type": "const_string", "value": token(&map["token"])})
        }
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("begin" | "end", Value::Object(t)) => {
                        out.insert(k.clone(), json!(token(&t["token"])));
                    }
                    ("trigger_tokens", Value::Array(list)) => {
                        out.insert("triggers".into(), list.iter().map(token).collect());
                    }
                    ("type", t) if t == "token_triggered_tags" => {
                        out.insert(k.clone(), json!("triggered_tags"));
                    }
                    _ => {
                        out.insert(k.clone(), as_strings(v, ids, all));
                    }
                }
            }
            if matches!(
                out.get("type").and_then(Value::as_str),
                Some("any_text" | "triggered_tags")
            ) {
                let mut excludes = out.get("excludes").cloned().unwrap_or(json!([]));
                excludes
                    .as_array_mut()
                    .unwrap()
                    .extend(all.iter().map(|s| json!(s)));
                out.insert("excludes".into(), excludes);
            }
            Value::Object(out)
        }
        v => v.clone(),
    }
}

/// `text` as tokens: each stand-in as its token, the rest a random tokenization; `None`
/// when the vocabulary cannot spell a part.
fn tokens_of(
    text: &str,
    named: &[u32],
    segmenter: &Segmenter,
    rng: &mut SplitMix64,
) -> Option<Vec<u32>> {
    let mut parts = vec![(text.to_string(), None)];
    for &id in named {
        let s = stand_in(id);
        parts = (parts.into_iter())
            .flat_map(|(part, t): (String, Option<u32>)| match t {
                Some(_) => vec![(part, t)],
                None => {
                    let pieces: Vec<&str> = part.split(s.as_str()).collect();
                    let n = pieces.len();
                    (pieces.into_iter().enumerate())
                        .flat_map(|(i, p)| {
                            let mut v = vec![(p.to_string(), None)];
                            if i + 1 < n {
                                v.push((String::new(), Some(id)));
                            }
                            v
                        })
                        .collect()
                }
            })
            .collect();
    }
    let mut out = Vec::new();
    for (part, t) in parts {
        match t {
            Some(id) => out.push(id),
            None => out.extend(segmenter.segment(part.as_bytes(), rng)?),
        }
    }
    Some(out)
}

/// Every compile of `spec` (named tokens resolved in `vocab`) against the oracle on
/// generated and mutated texts; returns how many texts held a named token and were
/// members.
fn check(spec: &Value, vocab: &Vocabulary, seed: u64) -> usize {
    let names: Vec<String> = named(spec);
    let id = |name: &str| vocab.token_id(name).unwrap();
    let ids: Vec<u32> = names.iter().map(|n| id(n)).collect();
    let stand_ins: Vec<String> = ids.iter().map(|&i| stand_in(i)).collect();
    let strings = as_strings(spec, &id, &stand_ins);
    let tag = StructuralTag::from_json(&spec.to_string())
        .unwrap()
        .resolve_token_names(|n| vocab.token_id(n))
        .unwrap();
    let eager = compiler().compile_any(&tag, vocab).unwrap().automaton;
    let pieces = (compiler().composition(Composition::Pieces))
        .compile_any(&tag, vocab)
        .unwrap()
        .automaton;
    let trie = std::sync::Arc::new(fstc_core::vocab::VocabTrie::new(vocab));
    let lazy: LazyAutomaton = compiler().compile_lazy(&tag, trie).unwrap().automaton;
    assert_eq!(
        eager.vocab_fingerprint(),
        fstc_core::vocab::fingerprint(vocab)
    );
    let case = Case {
        name: "named tokens".into(),
        spec: strings.clone(),
        good: Vec::new(),
        bad: Vec::new(),
    };
    let segmenter = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(seed);
    let (mut members, mut checked) = (0, 0);
    for text in texts(&case, seed, 150) {
        // A named text token's own text stays out: in the structure it is read as the token.
        if names.iter().any(|n| text.contains(n.as_str())) {
            continue;
        }
        let expected = oracle::accepts(&strings, text.as_bytes());
        let Some(tokens) = tokens_of(&text, &ids, &segmenter, &mut rng) else {
            continue;
        };
        checked += 1;
        for (how, automaton) in [("eager", &eager), ("pieces", &pieces)] {
            assert_eq!(
                accepts(automaton, &tokens),
                expected,
                "{how}: {text:?} {tokens:?}"
            );
        }
        let mut m = lazy.start_matcher();
        let lazily = tokens.iter().all(|&t| m.consume(t).is_ok()) && m.is_accepting();
        assert_eq!(lazily, expected, "lazy: {text:?} {tokens:?}");
        if stand_ins.iter().any(|s| text.contains(s.as_str())) {
            members += usize::from(expected);
            // The token's name written out by other tokens is text, not the token.
            let mut spelled = text.clone();
            for (s, n) in stand_ins.iter().zip(&names) {
                spelled = spelled.replace(s.as_str(), n);
            }
            let specials = ids.iter().all(|&i| vocab.token_bytes(i).is_none());
            if let Some(t) = tokens_of(&spelled, &[], &segmenter, &mut rng).filter(|_| specials) {
                let by_oracle = oracle::accepts(&strings, spelled.as_bytes());
                assert_eq!(accepts(&eager, &t), by_oracle, "spelled: {spelled:?}");
            }
        }
    }
    assert!(
        checked > 100 && members > 10,
        "{checked} texts, {members} members with a token"
    );
    eprintln!("{checked} texts, {members} members with a token");
    members
}

/// The token names a spec uses (by name).
fn named(spec: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut walk = vec![spec];
    while let Some(v) = walk.pop() {
        match v {
            Value::Object(m) => {
                if m.get("type") == Some(&json!("token")) {
                    out.push(m["token"].as_str().unwrap().to_string());
                }
                if let Some(Value::Array(list)) = m.get("trigger_tokens") {
                    out.extend(list.iter().map(|n| n.as_str().unwrap().to_string()));
                }
                walk.extend(m.values());
            }
            Value::Array(a) => walk.extend(a),
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

fn bytelevel() -> Vocabulary {
    Vocabulary::from_file(testkit::vocabs::testdata("bytelevel/tokenizer.json")).unwrap()
}

#[test]
fn a_special_token_opens_a_call_on_the_fixture() {
    let vocab = bytelevel();
    // A special token (no text) of Llama 3's, as `<|python_tag|>` is in Llama 3.1.
    assert_eq!(vocab.token_bytes(2000), None);
    check(&python_tag("<|begin_of_text|>"), &vocab, 11);
}

#[test]
fn a_one_token_text_opens_a_call_on_the_fixture() {
    let vocab = bytelevel();
    // An added token that is text, as Qwen 3's `<tool_call>`.
    assert_eq!(vocab.token_bytes(2008), Some(&b"<table>"[..]));
    check(&one_token_call("<table>"), &vocab, 12);
    // Its text is read nowhere else: in the `<think>` block the token is refused, the
    // same text in ordinary tokens is free text.
    let tag = StructuralTag::from_json(&one_token_call("<table>").to_string())
        .unwrap()
        .resolve_token_names(|n| vocab.token_id(n))
        .unwrap();
    let automaton = compiler().compile_any(&tag, &vocab).unwrap().automaton;
    let think = vocab.tokenize("<think>").unwrap();
    let close = vocab.tokenize("</think>").unwrap();
    let as_text = [
        think.clone(),
        vocab.tokenize("<").unwrap(),
        vocab.tokenize("table>").unwrap(),
        close.clone(),
    ]
    .concat();
    let as_token = [think, vec![2008], close].concat();
    assert!(accepts(&automaton, &as_text));
    assert!(!accepts(&automaton, &as_token));
}

#[test]
fn named_tokens_are_refused_by_path_when_they_cannot_be_read() {
    let vocab = bytelevel();
    let compile = |spec: Value| {
        let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
        let tag = tag.resolve_token_names(|n| vocab.token_id(n))?;
        compiler().compile_any(&tag, &vocab).map(|_| ())
    };
    let err = |spec: Value| compile(spec).unwrap_err();
    let e = err(python_tag("<|no such token|>"));
    assert_eq!(e.path(), "/format/trigger_tokens/0");
    assert!(e.message().contains("<|no such token|>"), "{e}");
    // EOS ends the output: it is no delimiter.
    let e = err(python_tag("<|eot_id|>"));
    assert!(e.message().contains("EOS"), "{e}");
    let e = err(json!({"type": "token", "token": 5000}));
    assert!(e.message().contains("not in the vocabulary"), "{e}");
    // A begin token that is not a trigger token; a text begin in a token list.
    let mut spec = python_tag("<|begin_of_text|>");
    spec["format"]["trigger_tokens"] = json!([2003]);
    assert_eq!(err(spec).path(), "/format/tags/0/begin/token");
    let mut spec = python_tag("<|begin_of_text|>");
    spec["format"]["tags"][0]["begin"] = json!("x");
    assert_eq!(err(spec).path(), "/format/tags/0/begin");
    // Excluding a text token from free text alone is not enforced: refused.
    let mut spec = python_tag("<|begin_of_text|>");
    spec["format"]["exclude_tokens"] = json!([2008]);
    assert_eq!(err(spec).path(), "/format/exclude_tokens/0");
    let mut spec = python_tag("<|begin_of_text|>");
    spec["format"]["exclude_tokens"] = json!(["<|begin_of_text|>"]);
    compile(spec).unwrap();
    // Unresolved names are refused by the compile, not guessed.
    let tag = StructuralTag::from_json(&python_tag("<|begin_of_text|>").to_string()).unwrap();
    let e = compiler().compile_any(&tag, &vocab).unwrap_err();
    assert!(e.message().contains("resolve"), "{e}");
    // The Rust builder names the same tree.
    let built = fstc_tags::Format::token(TokenRef::Id(2000));
    compiler()
        .compile_any(&StructuralTag::from_format(built), &vocab)
        .unwrap();
}

#[test]
fn special_tokens_open_calls_on_real_vocabularies() {
    if let Some(vocab) = testkit::vocabs::shared_vocab("llama3/tokenizer.json") {
        // Llama 3.0's file: id 128010 is `<|python_tag|>` in 3.1's.
        check(&python_tag("<|reserved_special_token_5|>"), &vocab, 21);
    }
    if let Some(vocab) = testkit::vocabs::shared_vocab("qwen3/tokenizer.json") {
        assert!(vocab
            .token_bytes(vocab.token_id("<tool_call>").unwrap())
            .is_some());
        check(&one_token_call("<tool_call>"), &vocab, 22);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Mutated specs with named tokens resolve and compile on the fixture, or give an
    /// error whose path points into the spec; never a panic.
    #[test]
    fn mutated_token_specs_give_errors_that_point_into_them(
        seed in proptest::prelude::any::<u64>(),
        which in 0usize..2,
    ) {
        let vocab = bytelevel();
        let mut spec = [python_tag("<|begin_of_text|>"), one_token_call("<table>")][which].clone();
        let mut rng = SplitMix64::new(seed);
        let replacements = [
            json!(null), json!(-1), json!(4294967296u64), json!(2002), json!(1999), json!(2008),
            json!("<|eot_id|>"), json!("<table>"), json!("x"), json!(""), json!([]), json!({}),
            json!({"type": "token", "token": 2000}), json!({"type": "token"}),
            json!({"type": "any_text"}), json!(["<|begin_of_text|>", 7]),
        ];
        for _ in 0..1 + rng.below(3) {
            crate::errors::mutate_with(&mut spec, &mut rng, &replacements);
        }
        let compiled = StructuralTag::from_value(&spec)
            .and_then(|t| t.resolve_token_names(|n| vocab.token_id(n)))
            .and_then(|t| compiler().compile_any(&t, &vocab).map(|_| ()));
        if let Err(e) = compiled {
            proptest::prop_assert!(spec.pointer(e.path()).is_some(), "{} not in {}", e, spec);
        }
    }
}
