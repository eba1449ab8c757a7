//! What free text and a tool call's JSON strings admit, byte by byte: every Unicode
//! scalar value in free text (NUL, controls and DEL included), as XGrammar's `any_text`
//! (`[\0-\U0010ffff]*`) does; in a JSON string every code point but `"`, `\` and
//! U+0000–U+001F raw (RFC 8259), DEL included, as serde_json and XGrammar read JSON.
//! llguidance refuses a raw DEL inside JSON strings: the one place the benches' mask
//! cross-check differs (GPT-2's and Llama 3's byte token 221 is DEL).

use fstc_core::any::AnyAutomaton;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_tags::StructuralTag;
use serde_json::json;
use testkit::vocabs::testdata;

use crate::differential::compiler;
use crate::oracle;

/// The id of the token spelling exactly `bytes`.
fn id(vocab: &Vocabulary, bytes: &[u8]) -> u32 {
    (0..vocab.len() as u32)
        .find(|&t| vocab.token_bytes(t) == Some(bytes))
        .unwrap()
}

/// Whether `automaton` allows the token of `byte` after the tokens of `before`
/// (spelled one token per byte, each a byte token of the vocabulary).
fn allowed_after(automaton: &AnyAutomaton, vocab: &Vocabulary, before: &[u8], byte: u8) -> bool {
    let mut m = automaton.matcher();
    for &b in before {
        m.consume(id(vocab, &[b])).unwrap();
    }
    m.is_allowed(id(vocab, &[byte]))
}

#[test]
fn free_text_admits_every_scalar_value_and_json_strings_a_raw_del() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    assert_eq!(id(&vocab, &[0x7f]), 221);
    let spec = json!({"type": "structural_tag", "format": {"type": "triggered_tags",
        "triggers": ["<f="], "tags": [{"begin": "<f=q>", "end": "</f>", "content":
        {"type": "json_schema", "json_schema": {"type": "object", "properties":
        {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false}}}]}});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    let automaton = compiler().compile_any(&tag, &vocab).unwrap().automaton;
    let in_text: &[u8] = b"say ";
    let in_string: &[u8] = b"ok <f=q>{\"q\":\"a";
    for byte in [0x7f, 0x00, 0x01, b'\n', b'\t'] {
        assert!(
            allowed_after(&automaton, &vocab, in_text, byte),
            "{byte:#x}"
        );
        // In a string: DEL raw, the controls only escaped.
        let raw = allowed_after(&automaton, &vocab, in_string, byte);
        assert_eq!(raw, byte == 0x7f, "{byte:#x} in a JSON string");
        let mut text = in_string.to_vec();
        text.extend([byte, b'"', b'}', b'<', b'/', b'f', b'>']);
        assert_eq!(
            oracle::accepts(&spec, &text),
            raw,
            "the oracle on {byte:#x}"
        );
        assert_eq!(
            serde_json::from_slice::<String>(&[b'"', byte, b'"']).is_ok(),
            raw
        );
    }
    // Only well-formed UTF-8: a lone continuation byte or 0xFF starts no character.
    for byte in [0x80, 0xbf, 0xff] {
        assert!(
            !allowed_after(&automaton, &vocab, in_text, byte),
            "{byte:#x}"
        );
    }
}

/// Llama 3.1's `<|python_tag|>` is a special token (no text): a trigger spelled so is
/// written by ordinary tokens. Given its text (`with_special_as_text`), the model's own
/// token opens the call too, and texts are admitted exactly as the oracle says. The shared
/// file is Llama 3.0's, where the same id (128010) is `<|reserved_special_token_5|>`: the
/// Llama 3.1 spec is read with that name.
#[test]
fn a_special_token_given_its_text_is_a_trigger() {
    use crate::differential::{cases, parse, texts};
    let Some(vocab) = testkit::vocabs::shared_vocab("llama3/tokenizer.json") else {
        return;
    };
    const TRIGGER: &str = "<|reserved_special_token_5|>";
    let special = vocab.token_id(TRIGGER).unwrap();
    assert_eq!(vocab.token_bytes(special), None);
    let as_text = (vocab.clone())
        .with_special_as_text(&[TRIGGER.to_string()])
        .unwrap();
    assert_eq!(as_text.token_bytes(special), Some(TRIGGER.as_bytes()));
    let mut case = cases()
        .into_iter()
        .find(|c| c.name == "llama31_python_tag")
        .unwrap();
    let renamed = |t: &String| t.replace("<|python_tag|>", TRIGGER);
    case.spec = serde_json::from_str(&renamed(&case.spec.to_string())).unwrap();
    (case.good, case.bad) = (
        case.good.iter().map(renamed).collect(),
        case.bad.iter().map(renamed).collect(),
    );
    let tag = parse(&case);
    let with_text = compiler().compile_any(&tag, &as_text).unwrap().automaton;
    let without = compiler().compile_any(&tag, &vocab).unwrap().automaton;
    // Each text with every trigger written as the special token, the rest by the tokenizer.
    let tokens = |text: &str| -> Vec<u32> {
        let mut out = Vec::new();
        for (i, part) in text.split(TRIGGER).enumerate() {
            if i > 0 {
                out.push(special);
            }
            out.extend(vocab.tokenize(part).unwrap());
        }
        out
    };
    let (mut members, mut with_trigger) = (0, 0);
    for text in texts(&case, 7, 200) {
        let expected = oracle::accepts(&case.spec, text.as_bytes());
        let spelled = tokens(&text);
        assert_eq!(
            crate::differential::accepts(&with_text, &spelled),
            expected,
            "{text:?}"
        );
        if text.contains(TRIGGER) {
            with_trigger += 1;
            members += usize::from(expected);
            assert!(
                !crate::differential::accepts(&without, &spelled),
                "{text:?}"
            );
        }
    }
    assert!(
        members > 5 && with_trigger > 20,
        "{members} of {with_trigger}"
    );
    // EOS stays special; a name that is no token is an error.
    let eos = vocab.special_name(vocab.eos_ids()[0]).unwrap().to_string();
    assert!(vocab.clone().with_special_as_text(&[eos]).is_err());
    assert!(vocab.with_special_as_text(&["<|no such|>".into()]).is_err());
}
