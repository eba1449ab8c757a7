//! Compiled token automata of the corpus: random token walks validate; known-valid
//! instances are accepted under the tokenizer's own and random tokenizations; known-invalid
//! ones are rejected. On the GPT-2 fixture always, on the shared Llama 3 and Qwen 3
//! vocabularies when they exist.

use crate::support::{
    accepts, corpus, ids_by_bytes, random_tokenization, serialize, token_walk, validator,
};
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_detok::Vocabulary;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};
use testkit::vocabs::{shared_vocab, testdata_dir};

/// Instance texts as serialized.
const SAME: fn(&str, &mut SplitMix64) -> String = |text, _| text.to_string();

/// The corpus files checked at the token level (the others' byte DFAs are checked in
/// `differential.rs`; composing every file with a 128k vocabulary would slow the tests).
const TOKEN_CASES: [&str; 7] = [
    "draft07_tuple.json",
    "order_payload.json",
    "weather_tool.json",
    "if_then_else.json",
    "contains_counts.json",
    "dependencies.json",
    "contact_formats.json",
];

/// Checks `cases` compiled by `compiler` in `style`; `spell` rewrites each instance's text
/// (the identity, or `escapes.rs`'s re-spelling, which keeps the value).
pub fn check_vocabulary(
    vocab: &Vocabulary,
    compiler: &JsonSchemaCompiler,
    style: Whitespace,
    seed: u64,
    cases: &[&str],
    spell: fn(&str, &mut SplitMix64) -> String,
) {
    let trie = VocabTrie::new(vocab);
    let by_bytes = ids_by_bytes(vocab);
    let mut rng = SplitMix64::new(seed);
    for case in corpus()
        .into_iter()
        .filter(|c| cases.contains(&c.name.as_str()))
    {
        let oracle = validator(&case.schema);
        let schema = case.schema.to_string();
        // Some of these compile for seconds in a test build (contact_formats: 32 million
        // token edges); on a loaded machine that passes the default 10 s budget, which now
        // bounds the composition too and is not what these tests are about.
        let config = Config::new()
            .whitespace(style)
            .time_budget(std::time::Duration::from_secs(600));
        let compiled = compiler
            .clone()
            .configure(config)
            .compile_with_trie(&schema, &trie)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let automaton = &compiled.automaton;
        for _ in 0..10 {
            let tokens = token_walk(automaton, &mut rng, 120);
            let text = String::from_utf8(vocab.detokenize(&tokens)).expect("UTF-8");
            let value: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {text}", case.name));
            assert!(
                oracle.is_valid(&value),
                "{}: invalid walk: {text}",
                case.name
            );
        }
        for v in &case.valid {
            let text = spell(&serialize(v, style), &mut rng);
            let own = vocab.tokenize(&text).unwrap();
            assert!(
                accepts(automaton, &own),
                "{}: own tokenization rejected: {text}",
                case.name
            );
            for _ in 0..3 {
                let split = random_tokenization(&by_bytes, text.as_bytes(), &mut rng).unwrap();
                assert!(
                    accepts(automaton, &split),
                    "{}: random tokenization rejected: {text}",
                    case.name
                );
            }
        }
        for v in &case.invalid {
            let text = spell(&serialize(v, style), &mut rng);
            let own = vocab.tokenize(&text).unwrap();
            assert!(
                !accepts(automaton, &own),
                "{}: invalid accepted: {text}",
                case.name
            );
        }
    }
}

#[test]
fn gpt2_fixture() {
    let vocab = Vocabulary::from_file(testdata_dir().join("gpt2/encoder.json")).unwrap();
    let style = Whitespace::Flexible { max_whitespace: 8 };
    check_vocabulary(
        &vocab,
        &JsonSchemaCompiler::new(),
        style,
        1,
        &TOKEN_CASES,
        SAME,
    );
}

#[test]
fn llama3_when_present() {
    if let Some(vocab) = shared_vocab("llama3/tokenizer.json") {
        let style = Whitespace::Pretty { indent: 2 };
        check_vocabulary(
            &vocab,
            &JsonSchemaCompiler::new(),
            style,
            2,
            &TOKEN_CASES[2..],
            SAME,
        );
    }
}

#[test]
fn llama2_when_present() {
    if let Some(vocab) = shared_vocab("llama2/tokenizer.json") {
        let style = Whitespace::Compact;
        check_vocabulary(
            &vocab,
            &JsonSchemaCompiler::new(),
            style,
            3,
            &TOKEN_CASES[2..],
            SAME,
        );
    }
}
