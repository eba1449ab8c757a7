//! The lazy compile (the call network: the tree as a root machine, each JSON Schema a
//! network of its own that it calls) against the oracle on tokens that straddle every
//! boundary, and against the eager compile (`testkit::lockstep`): along random walks and
//! on the known texts under the tokenizer's own and random tokenizations, masks,
//! acceptance, EOS, forced tokens, validation and rollback agree (GPT-2 from testdata).

use std::collections::HashMap;
use std::sync::Arc;

use fstc_core::lazy::LazyAutomaton;
use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::OwnedWalker;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_tags::StructuralTag;
use testkit::lockstep;
use testkit::tokenize::Segmenter;
use testkit::vocabs::testdata;

use crate::differential::{
    cases, compiler, parse, split, straddling_vocabulary, texts, vocab_len, Case,
};
use crate::oracle;

/// The lazy compile of `tag`, which must have walked the call network (every vocabulary
/// here has each byte as a token), not the one byte DFA.
fn lazy_network(case: &Case, tag: &StructuralTag, trie: &Arc<VocabTrie>) -> LazyAutomaton {
    let lazy = compiler().compile_lazy(tag, trie.clone()).unwrap();
    let phases = lazy.stats.to_string();
    assert!(
        phases.contains("machines") && !phases.contains("byte DFA"),
        "{}: {phases}",
        case.name
    );
    lazy.automaton
}

#[test]
fn the_call_network_is_the_oracles_language_with_tokens_across_boundaries() {
    for case in cases() {
        let mut rng = SplitMix64::new(31);
        let vocab = straddling_vocabulary(&case, &mut rng);
        let ids: HashMap<Vec<u8>, u32> = (0..vocab.len() as u32)
            .filter_map(|id| vocab.token_bytes(id).map(|b| (b.to_vec(), id)))
            .collect();
        let trie = Arc::new(VocabTrie::new(&vocab));
        let lazy = lazy_network(&case, &parse(&case), &trie);
        let (mut crossing, mut members) = (0, 0);
        for text in texts(&case, 13, 120) {
            let expected = oracle::accepts(&case.spec, text.as_bytes());
            members += usize::from(expected);
            for _ in 0..3 {
                let tokens = split(text.as_bytes(), &ids, &mut rng);
                crossing += tokens.iter().filter(|&&t| vocab_len(&vocab, t) > 1).count();
                let mut m = lazy.start_matcher();
                let accepted = tokens.iter().all(|&t| m.consume(t).is_ok()) && m.is_accepting();
                assert_eq!(accepted, expected, "{}: {text:?} as {tokens:?}", case.name);
            }
        }
        assert!(
            crossing > 100 && members >= 20,
            "{}: {crossing} multi-byte tokens, {members} members",
            case.name
        );
    }
}

#[test]
fn lazy_and_eager_agree_step_by_step() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let trie = Arc::new(VocabTrie::new(&vocab));
    let segmenter = Segmenter::new(&vocab);
    let mut rng = SplitMix64::new(29);
    for (i, case) in cases().into_iter().enumerate() {
        let tag = parse(&case);
        let eager = Arc::new(compiler().compile_with_trie(&tag, &trie).unwrap().automaton);
        let lazy = lazy_network(&case, &tag, &trie);
        let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
        let fresh_lazy = || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
        lockstep::random_walks(&fresh_eager, &fresh_lazy, trie.eos_ids(), 3, 40, i as u64);
        let texts = case
            .good
            .iter()
            .map(|t| (t, true))
            .chain(case.bad.iter().map(|t| (t, false)));
        for (text, expected) in texts {
            let mut tokenizations = vec![vocab.tokenize(text).unwrap()];
            tokenizations.extend(segmenter.segment(text.as_bytes(), &mut rng));
            for tokens in tokenizations {
                let accepted = lockstep::same_outcome(fresh_eager(), fresh_lazy(), &tokens, 5);
                assert_eq!(accepted, expected, "{}: {text:?}", case.name);
            }
        }
    }
}

/// Tools share machines: the same schema is one network, and schemas that differ in one
/// property share the machines of the others (hash-consed by fstc-core's NetworkBuilder).
#[test]
fn tools_share_the_machines_of_equal_sub_schemas() {
    let schema = |extra: &str| {
        serde_json::json!({"type": "object", "properties": {
            "city": {"type": "string", "maxLength": 40},
            "when": {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}},
            extra: {"type": "integer", "minimum": 0}}})
    };
    let machines = |schemas: &[serde_json::Value]| {
        let tags: Vec<_> = schemas
            .iter()
            .enumerate()
            .map(|(i, s)| {
                serde_json::json!({"type": "tag", "begin": format!("<f{i}>"),
                                   "content": {"type": "json_schema", "json_schema": s},
                                   "end": "</f>"})
            })
            .collect();
        let spec = serde_json::json!({"type": "structural_tag", "format":
            {"type": "triggered_tags", "triggers": ["<f"], "tags": tags}});
        let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
        compiler()
            .call_network(&tag)
            .unwrap()
            .automaton
            .num_machines()
    };
    let one = machines(&[schema("a")]);
    assert_eq!(machines(&[schema("a"), schema("a"), schema("a")]), one);
    let two = machines(&[schema("a"), schema("b")]);
    assert!(
        one < two && two < 2 * one - 1,
        "{one} machines for one tool, {two} for two"
    );
}

/// Schema networks and root machines are kept for the process by content: a second
/// request with the same tools walks the same language, and one with other JSON options
/// does not get the first one's machines.
#[test]
fn requests_reuse_machines_only_under_the_same_options() {
    use fstc_json::{Config, Whitespace};
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let trie = Arc::new(VocabTrie::new(&vocab));
    let spec = r#"{"type": "structural_tag", "format": {"type": "triggered_tags",
        "triggers": ["<f"], "tags": [{"begin": "<f>", "end": "</f>", "content":
        {"type": "json_schema", "json_schema": {"type": "object",
         "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}]}}"#;
    let tag = StructuralTag::from_json(spec).unwrap();
    let with = |ws| {
        fstc_tags::StructuralTagCompiler::new()
            .configure(Config::new().whitespace(ws))
            .compile_lazy(&tag, trie.clone())
            .unwrap()
            .automaton
    };
    let (first, second) = (with(Whitespace::Compact), with(Whitespace::Compact));
    let fresh_first = || Box::new(first.start_matcher()) as Box<dyn Matcher>;
    let fresh_second = || Box::new(second.start_matcher()) as Box<dyn Matcher>;
    lockstep::random_walks(&fresh_first, &fresh_second, trie.eos_ids(), 4, 40, 3);
    let flexible = with(Whitespace::Flexible { max_whitespace: 2 });
    let spaced = vocab.tokenize("x <f>{\"a\": 1}</f>").unwrap();
    let accepts = |a: &LazyAutomaton| {
        let mut m = a.start_matcher();
        spaced.iter().all(|&t| m.consume(t).is_ok()) && m.is_accepting()
    };
    assert!(accepts(&flexible) && !accepts(&second));
}
