//! The test grammars composed with real vocabularies (GPT-2, Llama 3, Qwen 3): random walks
//! parse, known documents under the tokenizer's own encoding are accepted and their
//! truncations are not. Skipped, with a message, when the shared vocabularies are absent
//! (`testkit::vocabs::shared_vocab`).

use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_pda::GrammarCompiler;
use testkit::vocabs::shared_vocab;

use crate::common::{run_tokens, Compiled, Walk};
use crate::earley::Earley;
use crate::gbnf_grammars::grammar_text;

const DOCS: &[(&str, &str)] = &[
    (
        "json.gbnf",
        r#"{"a": [1, -20, {"b\n": null}], "c": true, "d": "é ü"}"#,
    ),
    ("arith.gbnf", "((1 + 2) * (3 - f(x, 4)) / 5) % -y1"),
];

#[test]
fn grammars_over_real_vocabularies() {
    for rel in [
        "gpt2/encoder.json",
        "llama3/tokenizer.json",
        "qwen3/tokenizer.json",
    ] {
        let Some(vocab) = shared_vocab(rel) else {
            return;
        };
        let trie = VocabTrie::new(&vocab);
        let mut rng = SplitMix64::new(1);
        for &(file, doc) in DOCS {
            let text = grammar_text(file);
            let earley = Earley::new(&fstc_pda::gbnf::parse(&text).unwrap());
            let parts = Compiled::new(
                GrammarCompiler::new()
                    .compile_with_trie(&text, &trie)
                    .unwrap_or_else(|e| panic!("{file} on {rel}: {e}")),
            );
            let own = vocab.tokenize(doc).unwrap();
            assert!(run_tokens(&parts, 0, &own), "{file} on {rel}: {doc:?}");
            // Cut before its last token: accepted exactly when the cut text still parses.
            let cut = &own[..own.len() - 1];
            let expected = earley.accepts(&vocab.detokenize(cut));
            assert_eq!(run_tokens(&parts, 0, cut), expected, "{file} on {rel}");
            let eos = parts.eos_ids[0];
            let mut finished = 0;
            for _ in 0..30 {
                let mut w = parts.walker();
                let mut text = Vec::new();
                for step in 0..60 {
                    let allowed = w.allowed();
                    assert!(!allowed.is_empty(), "{file} on {rel}: stuck");
                    let t = if allowed.contains(&eos) && (step > 20 || rng.index(4) == 0) {
                        eos
                    } else {
                        allowed[rng.index(allowed.len())]
                    };
                    assert!(w.step(t));
                    if t == eos {
                        assert!(
                            earley.accepts(&text),
                            "{file} on {rel}: {:?}",
                            String::from_utf8_lossy(&text)
                        );
                        finished += 1;
                        break;
                    }
                    text.extend_from_slice(vocab.token_bytes(t).unwrap_or_default());
                }
            }
            assert!(finished > 0, "{file} on {rel}: no walk finished");
        }
    }
}
