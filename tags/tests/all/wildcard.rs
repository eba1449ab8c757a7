//! Free text as a wildcard in the lazy compile (`fstc_core::vocab::FreeText`): the states
//! that read free text take their tokens from precomputed sets, and the language must not
//! change. Checked against the oracle on the fixtures of four tokenizer families (GPT-2's
//! and Llama 3's byte-level BPE, Llama 2's SentencePiece BPE, Mistral's tekken): known
//! and generated texts with their mutations under the tokenizer's own and random
//! tokenizations, random walks (their texts must be members), the eager automaton step
//! by step, and wrong free texts handed to the lazy automaton (which its check must
//! refuse or use exactly).

use std::sync::Arc;

use fstc_core::lazy::LazyAutomaton;
use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::{FreeText, VocabTrie};
use fstc_core::walker::OwnedWalker;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use serde_json::Value;
use testkit::lockstep;
use testkit::tokenize::Segmenter;
use testkit::vocabs::testdata;

use crate::differential::{cases, compiler, parse, texts, Case};
use crate::generate::Generator;
use crate::oracle;

const FIXTURES: [&str; 4] = [
    "gpt2/encoder.json",
    "bytelevel/tokenizer.json",
    "sentencepiece/tokenizer.json",
    "tekken/tekken.json",
];

fn lazy(case: &Case, trie: &Arc<VocabTrie>) -> LazyAutomaton {
    compiler()
        .compile_lazy(&parse(case), trie.clone())
        .unwrap()
        .automaton
}

fn accepts(matcher: &mut dyn Matcher, tokens: &[u32]) -> bool {
    tokens.iter().all(|&t| matcher.consume(t).is_ok()) && matcher.is_accepting()
}

/// Generated and mutated texts (and the known ones) under the tokenizer's own and two
/// random tokenizations: the lazy automaton accepts exactly the oracle's members.
/// Returns the number of members.
fn texts_agree(case: &Case, vocab: &Vocabulary, a: &LazyAutomaton, rng: &mut SplitMix64) -> usize {
    let segmenter = Segmenter::new(vocab);
    let mut members = 0;
    for text in texts(case, rng.next_u64(), 12) {
        let expected = oracle::accepts(&case.spec, text.as_bytes());
        members += usize::from(expected);
        // SentencePiece cannot spell a text holding its space marker `▁` as written.
        let mut tokenizations: Vec<Vec<u32>> = vocab.tokenize(&text).ok().into_iter().collect();
        tokenizations.extend((0..2).filter_map(|_| segmenter.segment(text.as_bytes(), rng)));
        for tokens in tokenizations {
            let got = accepts(&mut a.start_matcher(), &tokens);
            assert_eq!(got, expected, "{}: {text:?} as {tokens:?}", case.name);
        }
    }
    members
}

/// Random walks from a random prefix of a member's random tokenization; a walk that ends
/// (EOS taken where allowed) must spell a member. Returns the number that ended.
fn walks_are_members(case: &Case, vocab: &Vocabulary, a: &LazyAutomaton, seed: u64) -> usize {
    let segmenter = Segmenter::new(vocab);
    let generator = Generator::new(&case.spec, Vec::new());
    let mut rng = SplitMix64::new(seed);
    let mut mask = vec![0u32; vocab.len().div_ceil(32)];
    let mut ended = 0;
    for _ in 0..12 {
        let member = generator.member(&mut rng);
        let Some(tokens) = segmenter.segment(member.as_bytes(), &mut rng) else {
            continue;
        };
        let mut m = a.start_matcher();
        let mut walked = tokens[..rng.index(tokens.len() + 1)].to_vec();
        if !oracle::accepts(&case.spec, member.as_bytes()) || !accepts_prefix(&mut m, &walked) {
            continue;
        }
        for _ in 0..60 {
            m.fill_mask(&mut mask).unwrap();
            let allowed: Vec<u32> = (0..vocab.len() as u32)
                .filter(|&t| mask[(t / 32) as usize] & (1 << (t % 32)) != 0)
                .collect();
            let eos = vocab.eos_ids().iter().find(|e| allowed.contains(e));
            let t = match eos {
                Some(&e) if rng.below(3) == 0 || allowed.len() == 1 => e,
                _ => match allowed
                    .iter()
                    .filter(|t| !vocab.eos_ids().contains(t))
                    .count()
                {
                    0 => break,
                    n => *allowed
                        .iter()
                        .filter(|t| !vocab.eos_ids().contains(t))
                        .nth(rng.index(n))
                        .unwrap(),
                },
            };
            m.consume(t).unwrap();
            if m.is_finished() {
                let text: Vec<u8> = walked
                    .iter()
                    .flat_map(|&t| vocab.token_bytes(t).unwrap().to_vec())
                    .collect();
                let shown = String::from_utf8_lossy(&text);
                assert!(
                    oracle::accepts(&case.spec, &text),
                    "{}: walk spelled {shown:?}",
                    case.name
                );
                ended += 1;
                break;
            }
            walked.push(t);
        }
    }
    ended
}

fn accepts_prefix(m: &mut dyn Matcher, tokens: &[u32]) -> bool {
    tokens.iter().all(|&t| m.consume(t).is_ok())
}

#[test]
fn free_text_from_sets_is_the_oracles_language_on_four_tokenizer_families() {
    for (f, name) in FIXTURES.iter().enumerate() {
        let vocab = Vocabulary::from_file(testdata(name)).unwrap();
        let trie = Arc::new(VocabTrie::new(&vocab));
        let mut rng = SplitMix64::new(41 + f as u64);
        let (mut used, mut members, mut ended) = (0, 0, 0);
        for case in cases() {
            let a = lazy(&case, &trie);
            members += texts_agree(&case, &vocab, &a, &mut rng);
            ended += walks_are_members(&case, &vocab, &a, rng.next_u64());
            used += a.num_free_text_states();
        }
        assert!(
            used >= 20 && members >= 100 && ended >= 20,
            "{name}: {used} states from free-text sets, {members} members, {ended} walks ended"
        );
    }
}

/// Every observable of the lazy automaton with free-text sets equals the eager
/// automaton's at every step of random walks and of the known texts' tokenizations.
#[test]
fn free_text_from_sets_agrees_with_the_eager_automaton_step_by_step() {
    for (f, name) in FIXTURES.iter().enumerate().skip(1) {
        let vocab = Vocabulary::from_file(testdata(name)).unwrap();
        let trie = Arc::new(VocabTrie::new(&vocab));
        let segmenter = Segmenter::new(&vocab);
        let mut rng = SplitMix64::new(7 + f as u64);
        for (i, case) in cases().into_iter().enumerate() {
            let eager = compiler().compile_with_trie(&parse(&case), &trie).unwrap();
            let eager = Arc::new(eager.automaton);
            let a = lazy(&case, &trie);
            let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
            let fresh_lazy = || Box::new(a.start_matcher()) as Box<dyn Matcher>;
            lockstep::random_walks(&fresh_eager, &fresh_lazy, trie.eos_ids(), 3, 40, i as u64);
            for text in case.good.iter().chain(&case.bad) {
                let mut tokenizations: Vec<Vec<u32>> =
                    vocab.tokenize(text).ok().into_iter().collect();
                tokenizations.extend(segmenter.segment(text.as_bytes(), &mut rng));
                for tokens in tokenizations {
                    lockstep::same_outcome(fresh_eager(), fresh_lazy(), &tokens, 3);
                }
            }
        }
    }
}

/// The excluded strings of a spec's free texts are not trusted: handed free texts that
/// exclude fewer strings, more, or others, the lazy automaton still walks the network's
/// language (against the one without free texts, step by step), using a wrong text only
/// where the check shows its sets are exact there.
#[test]
fn wrong_free_texts_do_not_change_the_language() {
    let vocab = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    let trie = Arc::new(VocabTrie::new(&vocab));
    let mut used = 0;
    for (i, case) in cases().into_iter().enumerate() {
        let network = Arc::new(compiler().call_network(&parse(&case)).unwrap().automaton);
        let strings = spec_strings(&case.spec);
        let wrong: Vec<Vec<String>> = vec![
            strings.iter().skip(1).cloned().collect(),
            strings.iter().cloned().chain(["e".to_string()]).collect(),
            vec!["<".to_string(), "\"".to_string()],
            vec![],
        ];
        for texts in wrong {
            let free = FreeText::new(&texts).into_iter().collect();
            let with = LazyAutomaton::with_calls_and_free_text(network.clone(), trie.clone(), free)
                .unwrap();
            let without = LazyAutomaton::with_calls(network.clone(), trie.clone()).unwrap();
            let fresh_with = || Box::new(with.start_matcher()) as Box<dyn Matcher>;
            let fresh_without = || Box::new(without.start_matcher()) as Box<dyn Matcher>;
            lockstep::random_walks(&fresh_without, &fresh_with, trie.eos_ids(), 3, 30, i as u64);
            used += with.num_free_text_states();
        }
    }
    assert!(used > 0, "no wrong free text was ever exact where tried");
}

/// The strings of a spec's triggers, excludes and ends.
fn spec_strings(spec: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![spec];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("triggers" | "excludes", Value::Array(a)) => {
                            out.extend(a.iter().filter_map(|s| s.as_str().map(String::from)))
                        }
                        ("end", Value::String(s)) if !s.is_empty() => out.push(s.clone()),
                        _ => stack.push(x),
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}
