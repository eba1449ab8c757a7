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
