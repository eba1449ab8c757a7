//! The compiled automata against the oracle: the byte DFA on generated and mutated texts,
//! the token automaton on a vocabulary whose tokens straddle every boundary, and walks on
//! real tokenizers (GPT-2 from testdata; Llama 3 and Qwen 3 when ../shared/vocabs is there).
//! The same checks run on the token PDAs of structures with grammar pieces (`grammar.rs`).

use std::collections::BTreeSet;

use fstc_core::any::AnyAutomaton;
use fstc_core::sample::SplitMix64;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_detok::Vocabulary;
use fstc_json::{Config, Whitespace};
use fstc_tags::{StructuralTag, StructuralTagCompiler};
use serde_json::Value;
use testkit::tokenize::Segmenter;
use testkit::vocabs::{shared_vocab, testdata};

use crate::generate::Generator;
use crate::oracle;

/// One spec of `tests/specs/`, with texts that must and must not match.
pub struct Case {
    pub name: String,
    pub spec: Value,
    pub good: Vec<String>,
    pub bad: Vec<String>,
}

/// The regular specs (`tests/specs/*.json`).
pub fn cases() -> Vec<Case> {
    cases_in("tests/specs")
}

/// The specs with grammar pieces (`tests/specs/grammar/*.json`).
pub fn grammar_cases() -> Vec<Case> {
    cases_in("tests/specs/grammar")
}

fn cases_in(dir: &str) -> Vec<Case> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let list = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect()
            };
            Case {
                name: p.file_stem().unwrap().to_string_lossy().into_owned(),
                spec: v["spec"].clone(),
                good: list("good"),
                bad: list("bad"),
            }
        })
        .collect()
}

/// The tests' compiler: compact JSON, the output form the oracle checks.
pub fn compiler() -> StructuralTagCompiler {
    StructuralTagCompiler::new().configure(Config::new().whitespace(Whitespace::Compact))
}

pub fn parse(case: &Case) -> StructuralTag {
    StructuralTag::from_json(&case.spec.to_string()).unwrap()
}

/// The delimiters of a spec (every string in it), as extra pieces for the generator.
fn delimiters(spec: &Value, out: &mut Vec<String>) {
    match spec {
        Value::String(s) if !s.is_empty() => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| delimiters(v, out)),
        Value::Object(m) => m.values().for_each(|v| delimiters(v, out)),
        _ => {}
    }
}

/// Generated members and mutations of each, deduplicated.
pub fn texts(case: &Case, seed: u64, n: usize) -> Vec<String> {
    let mut extra = Vec::new();
    delimiters(&case.spec, &mut extra);
    extra.retain(|s| s.len() < 40);
    let generator = Generator::new(&case.spec, extra);
    let mut rng = SplitMix64::new(seed);
    let mut out: BTreeSet<String> = case.good.iter().chain(&case.bad).cloned().collect();
    for _ in 0..n {
        let member = generator.member(&mut rng);
        let mutated = generator.mutate(&member, &mut rng);
        let twice = generator.mutate(&mutated, &mut rng);
        out.extend([member, mutated, twice]);
    }
    out.into_iter().collect()
}

#[test]
fn the_oracle_and_the_byte_dfa_agree_on_the_known_texts() {
    for case in cases() {
        let (dfa, _) = compiler().byte_dfa(&parse(&case)).unwrap();
        for text in &case.good {
            assert!(
                oracle::accepts(&case.spec, text.as_bytes()),
                "{}: oracle refuses {text:?}",
                case.name
            );
            assert!(
                dfa.is_match(text.as_bytes()),
                "{}: DFA refuses {text:?}",
                case.name
            );
        }
        for text in &case.bad {
            assert!(
                !oracle::accepts(&case.spec, text.as_bytes()),
                "{}: oracle takes {text:?}",
                case.name
            );
            assert!(
                !dfa.is_match(text.as_bytes()),
                "{}: DFA takes {text:?}",
                case.name
            );
        }
    }
}

#[test]
fn the_byte_dfa_is_the_oracles_language_on_generated_and_mutated_texts() {
    for case in cases() {
        let (dfa, _) = compiler().byte_dfa(&parse(&case)).unwrap();
        let (mut members, mut others) = (0, 0);
        for text in texts(&case, 7, 400) {
            let expected = oracle::accepts(&case.spec, text.as_bytes());
            assert_eq!(
                dfa.is_match(text.as_bytes()),
                expected,
                "{}: {text:?}",
                case.name
            );
            if expected {
                members += 1;
            } else {
                others += 1;
            }
        }
        assert!(
            members >= 40 && others >= 40,
            "{}: {members} members, {others} others",
            case.name
        );
    }
}

/// Every byte as a token, plus pieces of member texts cut at random places, so that
/// tokens run from free text into delimiters, JSON and back.
pub fn straddling_vocabulary(case: &Case, rng: &mut SplitMix64) -> ByteVocabulary {
    let mut tokens: BTreeSet<Vec<u8>> = (0u8..=255).map(|b| vec![b]).collect();
    for text in texts(case, 11, 40).iter().chain(&case.good) {
        let bytes = text.as_bytes();
        for _ in 0..8 {
            if bytes.len() < 2 {
                break;
            }
            let a = rng.index(bytes.len() - 1);
            let len = 2 + rng.index(7.min(bytes.len() - a - 1));
            tokens.insert(bytes[a..a + len].to_vec());
        }
    }
    let mut list: Vec<Option<Vec<u8>>> = tokens.into_iter().map(Some).collect();
    list.push(None); // EOS
    let eos = list.len() as u32 - 1;
    ByteVocabulary::new(list, vec![eos])
}

/// A random split of `text` into tokens of `vocab` (every byte is one, so always some).
pub fn split(
    text: &[u8],
    ids: &std::collections::HashMap<Vec<u8>, u32>,
    rng: &mut SplitMix64,
) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let choices: Vec<usize> = (1..=9.min(text.len() - i))
            .filter(|&l| ids.contains_key(&text[i..i + l]))
            .collect();
        let len = choices[rng.index(choices.len())];
        out.push(ids[&text[i..i + len]]);
        i += len;
    }
    out
}

pub fn accepts(automaton: &AnyAutomaton, tokens: &[u32]) -> bool {
    let mut m = automaton.matcher();
    tokens.iter().all(|&t| m.consume(t).is_ok()) && m.is_accepting()
}

#[test]
fn tokens_across_boundaries_are_allowed_exactly_when_the_text_matches() {
    for case in cases() {
        check_straddling(&case, 120);
    }
}

/// Generated and mutated texts under random splits into tokens that cross boundaries:
/// accepted exactly when the oracle takes the text.
pub fn check_straddling(case: &Case, n: usize) {
    {
        let mut rng = SplitMix64::new(3);
        let vocab = straddling_vocabulary(case, &mut rng);
        let ids: std::collections::HashMap<Vec<u8>, u32> = (0..vocab.len() as u32)
            .filter_map(|id| vocab.token_bytes(id).map(|b| (b.to_vec(), id)))
            .collect();
        let automaton = compiler()
            .compile_any(&parse(case), &vocab)
            .unwrap()
            .automaton;
        let mut crossing = 0;
        for text in texts(case, 5, n) {
            let expected = oracle::accepts(&case.spec, text.as_bytes());
            for _ in 0..3 {
                let tokens = split(text.as_bytes(), &ids, &mut rng);
                crossing += tokens.iter().filter(|&&t| vocab_len(&vocab, t) > 1).count();
                assert_eq!(
                    accepts(&automaton, &tokens),
                    expected,
                    "{}: {text:?} as {tokens:?}",
                    case.name
                );
            }
        }
        assert!(
            crossing > 100,
            "{}: only {crossing} multi-byte tokens used",
            case.name
        );
    }
}

pub fn vocab_len(vocab: &ByteVocabulary, t: u32) -> usize {
    vocab.token_bytes(t).map_or(0, <[u8]>::len)
}

/// Walks that follow a member's tokens for a while, then pick allowed tokens at random
/// until the automaton accepts: each finished walk's text must be a member.
fn walks_are_members(
    case: &Case,
    vocab: &Vocabulary,
    automaton: &AnyAutomaton,
    seed: u64,
) -> usize {
    let segmenter = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(seed);
    let mut extra = Vec::new();
    delimiters(&case.spec, &mut extra);
    let generator = Generator::new(&case.spec, extra);
    let mut mask = vec![0u32; vocab.len().div_ceil(32)];
    let mut finished = 0;
    for _ in 0..40 {
        let member = generator.member(&mut rng);
        if !oracle::accepts(&case.spec, member.as_bytes()) {
            continue;
        }
        let Some(tokens) = segmenter.segment(member.as_bytes(), &mut rng) else {
            continue;
        };
        let mut walker = automaton.matcher();
        let keep = rng.index(tokens.len() + 1);
        let mut walked: Vec<u32> = tokens[..keep].to_vec();
        // A token FSA's state, followed for the hint below.
        let mut state = match automaton {
            AnyAutomaton::Fsa(a) => Some((a, a.start())),
            AnyAutomaton::Pda(_) => None,
        };
        let eos = automaton.eos_ids();
        for &t in &walked {
            walker.consume(t).unwrap();
            state = state.map(|(a, s)| (a, a.next_state(s, t).unwrap()));
        }
        for _ in 0..80 {
            if walker.is_accepting() && rng.below(3) == 0 {
                break;
            }
            // Half the time a token of an FSA state's smallest class (leaves free text
            // and strings sooner), else any allowed token.
            let hint = state.filter(|_| rng.below(2) == 0).and_then(|(a, s)| {
                let c = a
                    .class_edges(s)
                    .map(|e| e.0)
                    .min_by_key(|&c| a.class_size(c))?;
                a.class_tokens(c).nth(rng.index(a.class_size(c)))
            });
            let t = match hint {
                Some(t) => t,
                None => {
                    walker.fill_mask(&mut mask).unwrap();
                    let allowed: Vec<u32> = (0..vocab.len() as u32)
                        .filter(|&t| {
                            mask[(t / 32) as usize] & (1 << (t % 32)) != 0 && !eos.contains(&t)
                        })
                        .collect();
                    if allowed.is_empty() {
                        break;
                    }
                    allowed[rng.index(allowed.len())]
                }
            };
            walker.consume(t).unwrap();
            state = state.map(|(a, s)| (a, a.next_state(s, t).unwrap()));
            walked.push(t);
        }
        if walker.is_accepting() {
            let text = vocab.detokenize(&walked);
            assert!(
                oracle::accepts(&case.spec, &text),
                "{}: walk gave {:?}",
                case.name,
                String::from_utf8_lossy(&text)
            );
            finished += 1;
        }
    }
    finished
}

/// Known-good texts under the tokenizer's own tokenization and random ones, and walks;
/// the number of finished walks.
pub fn check_real_vocabulary(vocab: &Vocabulary, label: &str, cases: Vec<Case>) -> usize {
    let segmenter = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(17);
    let mut finished = 0;
    for case in cases {
        let automaton = compiler()
            .compile_any(&parse(&case), vocab)
            .unwrap()
            .automaton;
        for text in &case.good {
            let own = vocab.tokenize(text).unwrap();
            assert!(
                accepts(&automaton, &own),
                "{label} {}: own tokens of {text:?}",
                case.name
            );
            for _ in 0..5 {
                let tokens = segmenter.segment(text.as_bytes(), &mut rng).unwrap();
                assert!(
                    accepts(&automaton, &tokens),
                    "{label} {}: {text:?} as {tokens:?}",
                    case.name
                );
            }
        }
        for text in &case.bad {
            let own = vocab.tokenize(text).unwrap();
            assert!(
                !accepts(&automaton, &own),
                "{label} {}: own tokens of {text:?}",
                case.name
            );
        }
        finished += walks_are_members(&case, vocab, &automaton, 23);
    }
    finished
}

#[test]
fn gpt2_known_texts_and_walks() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let finished = check_real_vocabulary(&vocab, "gpt2", cases());
    assert!(finished >= 60, "gpt2: only {finished} walks finished");
}

#[test]
fn llama3_and_qwen3_known_texts_and_walks() {
    for name in ["llama3/tokenizer.json", "qwen3/tokenizer.json"] {
        if let Some(vocab) = shared_vocab(name) {
            let finished = check_real_vocabulary(&vocab, name, cases());
            assert!(finished >= 60, "{name}: only {finished} walks finished");
        }
    }
}
