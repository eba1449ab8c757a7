//! `Escapes::Any`: a string may be spelled in every way JSON allows, and only its decoded
//! value counts. Against the `jsonschema` crate after `serde_json` parsing: random walks
//! validate; known-valid and known-invalid corpus instances, re-spelled with a random
//! choice per code point (raw, short escape, `\u` in either or mixed case, surrogate
//! pairs), keep their verdict, on the byte DFA and on token automata (own and random
//! tokenizations); texts that are not JSON (lone surrogates, `\x41`, bad hex, raw
//! controls) are refused; escapes decoding to what a keyword forbids are refused.

use crate::support::{beyond_f64, corpus, dfa_walk, serialize, validator};
use crate::tokens::check_vocabulary;
use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_detok::Vocabulary;
use fstc_json::{Escapes, JsonSchemaCompiler, Whitespace};
use serde_json::{json, Value};
use testkit::vocabs::{shared_vocab, testdata_dir};

const STYLE: Whitespace = Whitespace::Compact;

/// One spelling of `c`, chosen at random among those JSON allows.
fn spell(c: char, rng: &mut SplitMix64) -> String {
    let mut options = Vec::new();
    if c >= ' ' && c != '"' && c != '\\' {
        options.push(c.to_string());
    }
    let short = match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '/' => Some("\\/"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        _ => None,
    };
    options.extend(short.map(String::from));
    let mut units = [0u16; 2];
    let hex: String = c
        .encode_utf16(&mut units)
        .iter()
        .map(|u| format!("\\u{u:04x}"))
        .collect();
    let mixed: String = hex
        .chars()
        .map(|h| match (h, rng.below(2)) {
            ('u', _) => h,
            (_, 0) => h.to_ascii_uppercase(),
            _ => h,
        })
        .collect();
    options.push(hex.to_uppercase().replace("\\U", "\\u"));
    options.push(hex);
    options.push(mixed);
    options[rng.index(options.len())].clone()
}

/// The byte offset of the closing quote of a string body (the text after its `"`).
fn closing(body: &str) -> usize {
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return i,
            _ => {}
        }
    }
    panic!("an unterminated string in {body}")
}

/// `text` (JSON) with every string, keys included, spelled at random code point by code
/// point; the same JSON value.
fn respell(text: &str, rng: &mut SplitMix64) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..open]);
        let end = open + 1 + closing(&rest[open + 1..]);
        let decoded: String = serde_json::from_str(&rest[open..=end]).unwrap();
        out.push('"');
        for c in decoded.chars() {
            out.push_str(&spell(c, rng));
        }
        out.push('"');
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Pieces that make any string body they are put in invalid JSON.
const NOT_JSON: &[&str] = &[
    "\\ud83d",
    "\\ude00",
    "\\ud83d\\u0041",
    "\\uD83Dx",
    "\\x41",
    "\\u12G4",
    "\\u-123",
    "\\a",
    "\u{1}",
    "\n",
    "\t",
];

/// `text` with `piece` put inside its first string, at a random offset.
fn spoil(text: &str, piece: &str, rng: &mut SplitMix64) -> Option<String> {
    let open = text.find('"')?;
    let end = open + 1 + closing(&text[open + 1..]);
    // Only between code-point encodings: after a raw character or a whole escape.
    let mut cuts = vec![open + 1];
    let body = &text[open + 1..end];
    let mut i = 0;
    while i < body.len() {
        let step = match body.as_bytes()[i] {
            b'\\' if body.as_bytes()[i + 1] == b'u' => 6,
            b'\\' => 2,
            _ => body[i..].chars().next().unwrap().len_utf8(),
        };
        i += step;
        cuts.push(open + 1 + i);
    }
    let at = cuts[rng.index(cuts.len())];
    Some(format!("{}{piece}{}", &text[..at], &text[at..]))
}

fn any_dfa(schema: &Value) -> ByteDfa {
    JsonSchemaCompiler::new()
        .whitespace(STYLE)
        .escapes(Escapes::Any)
        .value_to_regex(schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
        .dfa(200_000)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
}

/// Whether the oracle calls `text` valid (it must first be JSON).
fn oracle_valid(oracle: &jsonschema::Validator, text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| oracle.is_valid(&v))
}

#[test]
fn corpus_respelled_keeps_its_verdict_and_walks_validate() {
    let mut rng = SplitMix64::new(11);
    for case in corpus() {
        let oracle = validator(&case.schema);
        let dfa = any_dfa(&case.schema);
        for v in &case.valid {
            let text = serialize(v, STYLE);
            for _ in 0..4 {
                let spelled = respell(&text, &mut rng);
                assert_eq!(serde_json::from_str::<Value>(&spelled).unwrap(), *v);
                assert!(
                    dfa.is_match(spelled.as_bytes()),
                    "{}: valid rejected: {spelled}",
                    case.name
                );
                for piece in NOT_JSON {
                    let Some(bad) = spoil(&spelled, piece, &mut rng) else {
                        break;
                    };
                    assert!(serde_json::from_str::<Value>(&bad).is_err(), "{bad}");
                    assert!(!dfa.is_match(bad.as_bytes()), "{}: admits {bad}", case.name);
                }
            }
        }
        for v in &case.invalid {
            let spelled = respell(&serialize(v, STYLE), &mut rng);
            assert!(
                !dfa.is_match(spelled.as_bytes()),
                "{}: invalid accepted: {spelled}",
                case.name
            );
        }
        for _ in 0..40 {
            let text = String::from_utf8(dfa_walk(&dfa, &mut rng, 60)).unwrap();
            if beyond_f64(&text) {
                continue;
            }
            assert!(
                oracle_valid(&oracle, &text),
                "{}: invalid walk: {text}",
                case.name
            );
        }
    }
}

/// Escapes that decode to what a keyword forbids are refused, and to what it allows
/// admitted: every text is compared with the oracle.
#[test]
fn decoded_values_decide() {
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"type": "string", "pattern": "^[a-c]+$"}),
            &[
                r#""abc""#,
                r#""\u0061b\u0043""#,
                r#""\u0061b\u0063""#,
                r#""a\/""#,
                r#""\u0064""#,
            ],
        ),
        (
            json!({"enum": ["é", "a\"b", "x/y", 1]}),
            &[
                r#""\u00e9""#,
                r#""\u00E9""#,
                r#""\u00e8""#,
                r#""a\u0022b""#,
                r#""a\"b""#,
                r#""x\/y""#,
                r#""x\\y""#,
                r#""\u0031""#,
                "1",
            ],
        ),
        (
            json!({"type": "string", "maxLength": 2}),
            &[
                r#""😀😀""#,
                r#""\ud83d\ude00\uD83D\uDE00""#,
                r#""\ud83d\ude00a\u0062""#,
                r#""\ud83d\ude00\ud83d""#,
                r#""\ude00""#,
                r#""\u0000\n""#,
            ],
        ),
        (
            json!({"type": "string", "minLength": 2, "pattern": "^.😀$"}),
            &[
                r#""a\ud83d\ude00""#,
                r#""a\uD83D\uDE01""#,
                r#""\n\ud83d\ude00""#,
                r#""\t\ud83d\ude00""#,
            ],
        ),
        (
            json!({"type": "object", "properties": {"name": {"type": "integer"}},
                   "additionalProperties": false}),
            &[
                r#"{"name":1}"#,
                r#"{"n\u0061me":1}"#,
                r#"{"\u006E\u0061\u006d\u0065":1}"#,
                r#"{"n\u0061me":"x"}"#,
                r#"{"nam\u0065s":1}"#,
                r#"{"nam":1}"#,
            ],
        ),
        (
            json!({"type": "object", "properties": {"a/b": {"const": true}},
                   "patternProperties": {"^x": {"type": "null"}},
                   "propertyNames": {"maxLength": 3}}),
            &[
                r#"{"a\/b":true}"#,
                r#"{"a/b":false}"#,
                r#"{"\u0078y":null}"#,
                r#"{"\u0078y":1}"#,
                r#"{"xyzw":null}"#,
                r#"{"q\u0072":1}"#,
            ],
        ),
        (
            json!({"type": "string", "not": {"enum": ["é", "ab"]}}),
            &[
                r#""\u00e9""#,
                r#""\u00e8""#,
                r#""a\u0062""#,
                r#""a\u0063""#,
                r#""é""#,
            ],
        ),
        (
            json!({"type": "string", "format": "ipv4"}),
            &[
                r#""1.2.3.4""#,
                r#""1\u002e2.3.4""#,
                r#""1\u002E2.3.4\u0020""#,
                r#""\u0031.2.3.256""#,
            ],
        ),
        (
            json!({"type": "string", "format": "json-pointer"}),
            &[r#""\/a~1b""#, r#""\u002fa\u007e0""#, r#""\/a~2""#, r#""a""#],
        ),
        (
            json!({"type": "string", "format": "email"}),
            &[
                r#""a\u0040b.com""#,
                r#""\"a\\\"b\"@x.org""#,
                r#""\u0022a b\u0022@x.org""#,
                r#""a@@b""#,
            ],
        ),
        (
            json!(true),
            &[
                r#"{"\ud83d\ude00":["\u0000","\/"]}"#,
                r#"["\ud800"]"#,
                r#"{"a\x":1}"#,
            ],
        ),
    ];
    for (schema, texts) in cases {
        let oracle = validator(schema);
        let dfa = any_dfa(schema);
        let mut rng = SplitMix64::new(5);
        for text in texts.iter().map(|t| t.to_string()) {
            let spelled = match serde_json::from_str::<Value>(&text) {
                Ok(_) => vec![text.clone(), respell(&text, &mut rng)],
                Err(_) => vec![text.clone()],
            };
            for t in spelled {
                let expected = oracle_valid(&oracle, &t);
                assert_eq!(dfa.is_match(t.as_bytes()), expected, "{schema} on {t}");
            }
        }
    }
}

/// Few cases: composing an any-escape automaton with a full vocabulary is the slow part.
const TOKEN_CASES: [&str; 2] = ["weather_tool.json", "ecma_patterns.json"];

/// Token automata (`tokens::check_vocabulary`): walks validate; re-spelled valid instances
/// are accepted under the vocabulary's own tokenization and random ones; re-spelled
/// invalid ones are rejected.
fn check_tokens(vocab: &Vocabulary, cases: &[&str], seed: u64) {
    let compiler = JsonSchemaCompiler::new().escapes(Escapes::Any);
    check_vocabulary(vocab, &compiler, STYLE, seed, cases, respell);
}

#[test]
fn fixture_tokens() {
    for (rel, cases, seed) in [
        ("gpt2/encoder.json", &TOKEN_CASES[..1], 1),
        ("sentencepiece/tokenizer.json", &TOKEN_CASES[..], 4),
        ("bytelevel/tokenizer.json", &TOKEN_CASES[..], 5),
    ] {
        let vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
        check_tokens(&vocab, cases, seed);
    }
}

#[test]
fn llama3_tokens_when_present() {
    if let Some(vocab) = shared_vocab("llama3/tokenizer.json") {
        check_tokens(&vocab, &TOKEN_CASES[..1], 2);
    }
}

#[test]
fn qwen3_tokens_when_present() {
    if let Some(vocab) = shared_vocab("qwen3/tokenizer.json") {
        check_tokens(&vocab, &TOKEN_CASES[1..], 3);
    }
}
