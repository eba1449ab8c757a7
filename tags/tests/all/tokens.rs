//! `max_tokens` on free text and on tag bodies, against a count made here from the tokens themselves: the
//! tokens that carry at least one byte of the segment. A text is admitted under a limit
//! `n` exactly when that count is at most `n`, checked at `n - 1`, `n` and `n + 1` under
//! the tokenizer's own and random tokenizations (tokens that cross into or out of the
//! segment included), on GPT-2 and, when present, Llama 3 and Qwen 3.

use std::collections::BTreeMap;
use std::sync::Arc;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::lazy::LazyAutomaton;
use fstc_core::matcher::{MatchErrorKind, Matcher};
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::{OwnedWalker, Walker};
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_tags::StructuralTag;
use serde_json::{json, Value};
use testkit::lockstep;
use testkit::tokenize::{accepts, Segmenter};
use testkit::vocabs::{shared_vocab, testdata};

use crate::differential::compiler;

/// A reasoning block of at most `n` tokens, then a JSON answer.
fn think_then_answer(n: u32) -> Value {
    json!({"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "tag", "begin": "<think>", "end": "</think>",
         "content": {"type": "any_text", "max_tokens": n}},
        {"type": "json_schema", "json_schema": {"type": "object",
         "properties": {"answer": {"type": "integer"}}, "required": ["answer"],
         "additionalProperties": false}}]}})
}

/// The same with the limit on the `<think>` tag's body instead of its free text.
fn think_body_then_answer(n: u32) -> Value {
    let mut spec = think_then_answer(n);
    let tag = &mut spec["format"]["elements"][0];
    tag["content"] = json!({"type": "any_text"});
    tag["max_tokens"] = json!(n);
    spec
}

/// Free text in which a call's JSON body is written by at most `n` tokens.
fn call_body(n: u32) -> Value {
    json!({"type": "triggered_tags", "triggers": ["<f="], "tags": [
        {"begin": "<f=add>", "end": "</f>", "max_tokens": n,
         "content": {"type": "json_schema", "json_schema": {"type": "object",
           "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
           "required": ["a", "b"], "additionalProperties": false}}}]})
}

/// Free text of at most `n` tokens at the top level, then `END` (the text may contain
/// `END` too: the segment is whatever comes before the last one).
fn text_then_end(n: u32) -> Value {
    json!({"type": "sequence", "elements": [
        {"type": "any_text", "max_tokens": n}, {"type": "const_string", "value": "END"}]})
}

/// A spec by its limit, a text, and the byte range of the limited segment in it.
type Case = (fn(u32) -> Value, String, std::ops::Range<usize>);

/// How many of `tokens` carry a byte of `text[range]`.
fn tokens_in(vocab: &Vocabulary, tokens: &[u32], range: std::ops::Range<usize>) -> u32 {
    let mut at = 0;
    let mut count = 0;
    for &t in tokens {
        let len = vocab.token_bytes(t).map_or(0, <[u8]>::len);
        // A token carries a byte of the range when their byte spans meet.
        if at.max(range.start) < (at + len).min(range.end) {
            count += 1;
        }
        at += len;
    }
    count
}

/// Whether a token holds the segment's first or last byte together with a byte outside.
fn crosses(vocab: &Vocabulary, tokens: &[u32], range: std::ops::Range<usize>) -> bool {
    let mut at = 0;
    tokens.iter().any(|&t| {
        let len = vocab.token_bytes(t).map_or(0, <[u8]>::len);
        let (start, end) = (at, at + len);
        at = end;
        (start < range.start && end > range.start) || (start < range.end && end > range.end)
    })
}

/// The automaton of `spec` over `trie`, built once per spec.
struct Compiled {
    cache: BTreeMap<String, Arc<TokenAutomaton>>,
}

impl Compiled {
    fn get(&mut self, spec: &Value, trie: &VocabTrie) -> Arc<TokenAutomaton> {
        self.cache
            .entry(spec.to_string())
            .or_insert_with(|| {
                let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
                let compiled = compiler().compile_with_trie(&tag, trie).unwrap();
                assert!(compiled.stats.to_string().contains("marked vocabulary"));
                // The file is for the vocabulary itself, not the marked one.
                assert_eq!(compiled.automaton.vocab_fingerprint(), trie.fingerprint());
                Arc::new(compiled.automaton)
            })
            .clone()
    }
}

/// The texts of the limited specs: bodies of free text and calls, each with its spec and
/// the byte range of its limited segment.
fn limit_cases() -> Vec<Case> {
    let bodies = [
        "",
        "Hmm.",
        "The user wants the sum of 17 and 25, which is 42.",
        "naïve café — 3×4=12, so <think> is fine here",
        "\nLet me check: END is allowed inside.\n",
    ];
    let calls = [
        "{\"a\":1,\"b\":2}",
        "{\"a\":-17,\"b\":123456789}",
        "{\"a\":0,\"b\":-3}",
    ];
    let mut cases: Vec<Case> = Vec::new();
    for body in bodies {
        let think = format!("<think>{body}</think>{{\"answer\":42}}");
        cases.push((think_then_answer, think.clone(), 7..7 + body.len()));
        cases.push((think_body_then_answer, think, 7..7 + body.len()));
        cases.push((text_then_end, format!("{body}END"), 0..body.len()));
    }
    for body in calls {
        let text = format!("Sum:<f=add>{body}</f> ok");
        cases.push((call_body, text, 11..11 + body.len()));
    }
    cases
}

/// Every body under several tokenizations, at the limits around its count; returns how
/// many tokenizations had a token crossing the segment's edge.
fn limits_are_exact(vocab: &Vocabulary, label: &str) -> usize {
    let trie = VocabTrie::new(vocab);
    let segmenter = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(41);
    let mut compiled = Compiled {
        cache: BTreeMap::new(),
    };
    let mut crossing = 0;
    for (spec, text, range) in limit_cases() {
        let mut tokenizations = vec![vocab.tokenize(&text).unwrap()];
        for _ in 0..3 {
            tokenizations.extend(segmenter.segment(text.as_bytes(), &mut rng));
        }
        for tokens in tokenizations {
            let count = tokens_in(vocab, &tokens, range.clone());
            crossing += usize::from(crosses(vocab, &tokens, range.clone()));
            for n in count.saturating_sub(1)..=count + 1 {
                let automaton = compiled.get(&spec(n), &trie);
                let expected = count <= n;
                let what = format!("{label}: {text:?} as {tokens:?} ({count} tokens) under {n}");
                assert_eq!(accepts(&automaton, &tokens), expected, "{what}");
            }
        }
    }
    crossing
}

#[test]
fn token_limits_are_exact_on_gpt2() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let crossing = limits_are_exact(&vocab, "gpt2");
    assert!(
        crossing >= 5,
        "only {crossing} tokenizations cross the segment's edge"
    );
}

#[test]
fn token_limits_are_exact_on_llama3_and_qwen3_when_present() {
    for name in ["llama3/tokenizer.json", "qwen3/tokenizer.json"] {
        if let Some(vocab) = shared_vocab(name) {
            limits_are_exact(&vocab, name);
        }
    }
}

/// Random walks under a limit: text is written while any is allowed, then the tag is
/// closed; each walk keeps the limit, and most fill it.
#[test]
fn walks_stop_the_text_at_the_limit() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let trie = VocabTrie::new(&vocab);
    let mut rng = SplitMix64::new(43);
    let mut mask = vec![0u32; vocab.len().div_ceil(32)];
    let (mut walks, mut full) = (0, 0);
    for n in [1u32, 3, 6] {
        let tag = StructuralTag::from_json(&think_then_answer(n).to_string()).unwrap();
        let automaton = compiler().compile_with_trie(&tag, &trie).unwrap().automaton;
        for _ in 0..20 {
            let mut walker = Walker::new(&automaton);
            let mut tokens = vocab.tokenize("<think>").unwrap();
            tokens.iter().for_each(|&t| walker.consume(t).unwrap());
            // Tokens without '<' (so the text does not end) while any is allowed.
            loop {
                walker.fill_mask(&mut mask).unwrap();
                let text: Vec<u32> = (0..vocab.len() as u32)
                    .filter(|&t| mask[(t / 32) as usize] >> (t % 32) & 1 == 1)
                    .filter(|&t| vocab.token_bytes(t).is_some_and(|b| !b.contains(&b'<')))
                    .collect();
                if text.is_empty() {
                    break;
                }
                let t = text[rng.index(text.len())];
                walker.consume(t).unwrap();
                tokens.push(t);
            }
            let length = vocab.detokenize(&tokens).len();
            let count = tokens_in(&vocab, &tokens, 7..length);
            assert!(count <= n, "{n}: {tokens:?} has {count} tokens");
            walks += 1;
            full += usize::from(count == n);
            let close = vocab.tokenize("</think>{\"answer\":1}").unwrap();
            close.iter().for_each(|&t| walker.consume(t).unwrap());
            assert!(walker.is_accepting(), "{n}: {tokens:?} then {close:?}");
        }
    }
    assert!(
        full * 2 >= walks,
        "only {full} of {walks} walks filled the limit"
    );
}

/// Only a compile for a vocabulary counts tokens: the byte DFA and the call network refuse
/// a limited tag, naming the limit.
#[test]
fn a_token_limit_needs_a_vocabulary() {
    for (spec, at) in [
        (
            think_then_answer(4),
            "/format/elements/0/content/max_tokens",
        ),
        (think_body_then_answer(4), "/format/elements/0/max_tokens"),
    ] {
        let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
        let e = compiler().byte_dfa(&tag).unwrap_err();
        assert_eq!(e.path(), at, "{e}");
        assert!(e.message().contains("eager or lazy"), "{e}");
        assert_eq!(compiler().call_network(&tag).unwrap_err().path(), at);
    }
}

/// A spec by its limit.
type Spec = fn(u32) -> Value;

/// The specs with limits, by name.
const SPECS: [(&str, Spec); 4] = [
    ("think", think_then_answer),
    ("think body", think_body_then_answer),
    ("call body", call_body),
    ("text then END", text_then_end),
];

/// The lazy compile of `spec`, which must have gone through the markings.
fn lazy_counted(spec: &Value, trie: &Arc<VocabTrie>) -> LazyAutomaton {
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    let lazy = compiler().compile_lazy(&tag, trie.clone()).unwrap();
    assert!(
        lazy.stats.to_string().contains("marked vocabulary"),
        "{}",
        lazy.stats
    );
    lazy.automaton
}

/// The lazy compile counts tokens as the eager one does: masks, acceptance, EOS, forced
/// tokens, validation and rollback agree (`testkit::lockstep`) along random walks (which
/// reach the limits: they are small) and on the texts of [`limits_are_exact`] under the
/// tokenizer's own and random tokenizations at `n - 1`, `n` and `n + 1`.
fn lazy_agrees_with_eager(vocab: &Vocabulary, label: &str) {
    let trie = Arc::new(VocabTrie::new(vocab));
    let mut compiled = Compiled {
        cache: BTreeMap::new(),
    };
    let mut lazy: BTreeMap<String, LazyAutomaton> = BTreeMap::new();
    let mut pair = |spec: &Value| {
        let eager = compiled.get(spec, &trie);
        let lazy = lazy
            .entry(spec.to_string())
            .or_insert_with(|| lazy_counted(spec, &trie))
            .clone();
        let fresh_eager = move || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
        let fresh_lazy = move || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
        (fresh_eager, fresh_lazy)
    };
    for (i, (name, spec)) in SPECS.iter().enumerate() {
        for n in [1, 2, 4] {
            let (eager, lazy) = pair(&spec(n));
            let seed = (i * 10) as u64 + u64::from(n);
            let steps = lockstep::random_walks(&eager, &lazy, trie.eos_ids(), 4, 30, seed);
            assert!(steps >= 4, "{label} {name} {n}: {steps} steps");
        }
    }
    let segmenter = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(53);
    let (mut accepted, mut rejected) = (0, 0);
    for (spec, text, range) in limit_cases() {
        let mut tokenizations = vec![vocab.tokenize(&text).unwrap()];
        tokenizations.extend(segmenter.segment(text.as_bytes(), &mut rng));
        for tokens in tokenizations {
            let count = tokens_in(vocab, &tokens, range.clone());
            for n in count.saturating_sub(1)..=count + 1 {
                let (eager, lazy) = pair(&spec(n));
                let ok = lockstep::same_outcome(eager(), lazy(), &tokens, u64::from(n));
                assert_eq!(ok, count <= n, "{label}: {text:?} as {tokens:?} under {n}");
                accepted += usize::from(ok);
                rejected += usize::from(!ok);
            }
        }
    }
    assert!(
        accepted > 50 && rejected > 20,
        "{accepted} accepted, {rejected} rejected"
    );
}

#[test]
fn the_lazy_compile_counts_tokens_as_the_eager_one_on_gpt2() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    lazy_agrees_with_eager(&vocab, "gpt2");
}

#[test]
fn the_lazy_compile_counts_tokens_as_the_eager_one_on_llama3_when_present() {
    if let Some(vocab) = shared_vocab("llama3/tokenizer.json") {
        lazy_agrees_with_eager(&vocab, "llama3");
    }
}

/// Whether a JSON body of at most 3 tokens can follow `<f=add>` is not settled by short
/// tokens (`{"a":1,"b":2}` is 13 bytes): the lazy automaton searches its tokens, within
/// the state work limit; past it, the mask fails with a clear error. Within the default
/// limit the same walk has the eager compile's masks.
#[test]
fn the_lazy_search_ends_at_the_state_work_limit() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let trie = Arc::new(VocabTrie::new(&vocab));
    let lazy = lazy_counted(&call_body(3), &trie);
    lazy.set_state_work_limit(10);
    let mut m = lazy.start_matcher();
    let mut mask = vec![0u32; vocab.len().div_ceil(32)];
    let opening = vocab.tokenize("Sum:<f=add>").unwrap();
    let mut step = |t: Option<u32>| {
        m.fill_mask(&mut mask)?;
        t.map_or(Ok(()), |t| m.consume(t))
    };
    let e = (opening.iter().map(|&t| Some(t)).chain([None]))
        .find_map(|t| step(t).err())
        .expect("a search past the limit");
    assert_eq!(e.kind(), MatchErrorKind::ComposeLimit, "{e}");
    assert!(e.to_string().contains("state work limit"), "{e}");
    // Within the default limit the same walk goes on, with the eager compile's masks.
    lazy.set_state_work_limit(fstc_core::lazy::DEFAULT_STATE_WORK_LIMIT);
    let eager = Compiled {
        cache: BTreeMap::new(),
    }
    .get(&call_body(3), &trie);
    let (mut m, mut w) = (lazy.start_matcher(), Walker::new(&eager));
    let mut expected = mask.clone();
    for &t in &opening {
        m.fill_mask(&mut mask).unwrap();
        w.fill_mask(&mut expected).unwrap();
        assert_eq!(mask, expected);
        let (a, b) = (m.consume(t), w.consume(t));
        assert_eq!(a.is_ok(), b.is_ok(), "{t}: {a:?} {b:?}");
        if a.is_err() {
            break;
        }
    }
}
/// A limit inside a limited tag body is refused at the inner limit, naming the outer.
#[test]
fn nested_token_limits_are_refused_by_path() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let mut spec = think_then_answer(3);
    spec["format"]["elements"][0]["max_tokens"] = json!(5);
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    let e = compiler().compile(&tag, &vocab).unwrap_err();
    assert_eq!(e.path(), "/format/elements/0/content/max_tokens", "{e}");
    assert!(e.message().contains("/format/elements/0/max_tokens"), "{e}");
}
