//! The lazy matcher of compiled schemas against the eager walker (`testkit::lockstep`):
//! along random walks, and on the corpus's valid and invalid instances under the
//! tokenizer's own and random tokenizations, masks, acceptance, EOS, forced tokens,
//! validation, refusals and rollback agree. Every corpus schema on the fixtures of three
//! tokenizer families; the benchmark schemas on the real vocabularies when present.

use std::sync::Arc;

use crate::support::{corpus, ids_by_bytes, random_tokenization, serialize};
use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::OwnedWalker;
use fstc_detok::Vocabulary;
use fstc_json::{Config, JsonSchemaCompiler, Whitespace};
use testkit::lockstep;
use testkit::vocabs::{shared_vocab, testdata_dir};

/// Compiles `schema` both ways and compares them on random walks and on `valid` (must
/// be accepted) and `invalid` (must be refused) texts.
fn compare(
    name: &str,
    compiler: &JsonSchemaCompiler,
    schema: &str,
    trie: &Arc<VocabTrie>,
    vocab: &Vocabulary,
    texts: (&[String], &[String]),
    seed: u64,
) {
    let eager = Arc::new(
        compiler
            .compile_with_trie(schema, trie)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .automaton,
    );
    let lazy = compiler
        .compile_lazy(schema, trie.clone())
        .unwrap_or_else(|e| panic!("{name}: lazy: {e}"));
    // The per-request path: a call network of sub-schema machines, never the inlined DFA
    // (every vocabulary here has each byte as a token of its own).
    let phases = lazy.stats.to_string();
    assert!(
        phases.contains("machines") && !phases.contains("byte DFA"),
        "{name}: {phases}"
    );
    let lazy = lazy.automaton;
    let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
    let fresh_lazy = || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
    lockstep::random_walks(&fresh_eager, &fresh_lazy, trie.eos_ids(), 3, 60, seed);
    let by_bytes = ids_by_bytes(vocab);
    let mut rng = SplitMix64::new(seed);
    let (valid, invalid) = texts;
    for (text, expect) in valid
        .iter()
        .map(|t| (t, true))
        .chain(invalid.iter().map(|t| (t, false)))
    {
        let mut tokenizations = vec![vocab.tokenize(text).unwrap()];
        tokenizations.extend(random_tokenization(&by_bytes, text.as_bytes(), &mut rng));
        for tokens in tokenizations {
            let accepted = lockstep::same_outcome(fresh_eager(), fresh_lazy(), &tokens, seed);
            assert_eq!(accepted, expect, "{name}: {text}");
        }
    }
}

/// Every corpus schema on one fixture vocabulary.
fn corpus_on(rel: &str, style: Whitespace, seed: u64) {
    let vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
    let trie = Arc::new(VocabTrie::new(&vocab));
    let compiler = JsonSchemaCompiler::new().configure(Config::new().whitespace(style));
    for (i, case) in corpus().into_iter().enumerate() {
        let valid: Vec<String> = case.valid.iter().map(|v| serialize(v, style)).collect();
        let invalid: Vec<String> = case.invalid.iter().map(|v| serialize(v, style)).collect();
        let name = format!("{rel}: {}", case.name);
        let schema = case.schema.to_string();
        compare(
            &name,
            &compiler,
            &schema,
            &trie,
            &vocab,
            (&valid, &invalid),
            seed + i as u64,
        );
    }
}

#[test]
fn lazy_agrees_with_eager_on_the_corpus_gpt2_fixture() {
    corpus_on("gpt2/encoder.json", Whitespace::Compact, 1);
}

#[test]
fn lazy_agrees_with_eager_on_the_corpus_sentencepiece_fixture() {
    corpus_on(
        "sentencepiece/tokenizer.json",
        Whitespace::Flexible { max_whitespace: 4 },
        2,
    );
}

#[test]
fn lazy_agrees_with_eager_on_the_corpus_bytelevel_fixture() {
    corpus_on(
        "bytelevel/tokenizer.json",
        Whitespace::Pretty { indent: 2 },
        3,
    );
}

/// The benchmark schemas (compact, lenient as in the bench) on the real vocabularies.
#[test]
fn lazy_agrees_with_eager_on_the_bench_schemas_when_present() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/inputs/json");
    let compiler = JsonSchemaCompiler::new()
        .configure(Config::new().whitespace(Whitespace::Compact).lenient(true));
    for (v, rel) in ["llama3/tokenizer.json", "qwen3/tokenizer.json"]
        .iter()
        .enumerate()
    {
        let Some(vocab) = shared_vocab(rel) else {
            continue;
        };
        let trie = Arc::new(VocabTrie::new(&vocab));
        for (i, file) in ["json-small", "json-medium"].iter().enumerate() {
            let schema = std::fs::read_to_string(dir.join(format!("{file}.schema.json"))).unwrap();
            let name = format!("{rel}: {file}");
            let seed = 10 * v as u64 + i as u64;
            compare(&name, &compiler, &schema, &trie, &vocab, (&[], &[]), seed);
        }
    }
}
