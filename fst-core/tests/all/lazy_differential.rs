//! The lazy matcher against the eager walker: along random walks and tokenizations, on
//! random DFAs over random small vocabularies (many lack single bytes, so token-level
//! trimming differs from byte-level liveness), on the fixture of every tokenizer family
//! and on the real vocabularies when present, masks, acceptance, EOS, forced tokens,
//! validation, refusals and rollback agree (`testkit::lockstep`). The lazy matcher also
//! keeps the matcher contract, and refuses what it does not implement by name.

use std::sync::Arc;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::compose::{compose, ComposeErrorKind, ComposeLimits};
use fstc_core::lazy::LazyAutomaton;
use fstc_core::matcher::{DynMatcher, Matcher};
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::OwnedWalker;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_detok::Vocabulary;
use fstc_regex::{BuildErrorKind, RegexCompiler};
use testkit::lockstep;
use testkit::tokenize::Segmenter;
use testkit::vocabs::{shared_vocab, testdata_dir};

use crate::compose_support::{random_dfa, random_vocab, Rng};
use crate::matcher_contract;
use testkit::patterns::random_pattern;

/// Patterns over ASCII, UTF-8 and JSON-like text, each with a text it matches.
const PATTERNS: &[(&str, &str)] = &[
    (r"[a-z]+@[a-z]+\.(com|org)", "joe@example.org"),
    (r"\d{1,3}(\.\d{1,3}){3}", "192.168.0.1"),
    (
        r#"\{"name":"[^"\\]{0,12}","age":(0|[1-9][0-9]?)\}"#,
        r#"{"name":"Ada L.","age":36}"#,
    ),
    (r"(foo|bar)+baz", "foobarbaz"),
    (r"[^\n]{0,3}x", "ab x"),
    (r"\w+ \w+", "hello world"),
    (r"(?:é|ü|日本)+\.", "日本é."),
    (r"(yes|no|maybe)", "maybe"),
];

/// The eager automaton and the lazy one of `pattern` over `trie`.
fn both(pattern: &str, trie: &Arc<VocabTrie>) -> (Arc<TokenAutomaton>, LazyAutomaton) {
    let compiler = RegexCompiler::new();
    let (eager, _) = compiler.compile_with_trie(pattern, trie).unwrap();
    let lazy = compiler.compile_lazy(pattern, trie.clone()).unwrap();
    (Arc::new(eager), lazy)
}

/// Random walks in lockstep, then the matching text under the vocabulary's own and
/// random tokenizations, accepted by both.
fn check_vocab(name: &str, vocab: &Vocabulary, walks: usize, seed: u64) {
    let trie = Arc::new(VocabTrie::new(vocab));
    let segmenter = Segmenter::new(vocab);
    let eos = trie.eos_ids().to_vec();
    let mut rng = SplitMix64::new(seed);
    for (i, &(pattern, text)) in PATTERNS.iter().enumerate() {
        let (eager, lazy) = both(pattern, &trie);
        let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
        let fresh_lazy = || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
        let steps =
            lockstep::random_walks(&fresh_eager, &fresh_lazy, &eos, walks, 40, seed + i as u64);
        assert!(steps > walks, "{name}: {pattern}: only {steps} steps");
        let mut tokenizations: Vec<Vec<u32>> = vocab.tokenize(text).into_iter().collect();
        tokenizations.extend((0..3).filter_map(|_| segmenter.segment(text.as_bytes(), &mut rng)));
        assert!(
            !tokenizations.is_empty(),
            "{name}: {text:?} cannot be spelled"
        );
        for tokens in &tokenizations {
            let accepted = lockstep::same_outcome(fresh_eager(), fresh_lazy(), tokens, seed);
            assert!(
                accepted,
                "{name}: {pattern}: {text:?} as {tokens:?} refused"
            );
        }
    }
}

#[test]
fn lazy_agrees_with_eager_on_every_fixture_family() {
    for (seed, rel) in [
        "gpt2/encoder.json",
        "sentencepiece/tokenizer.json",
        "bytelevel/tokenizer.json",
        "tiktoken/small.tiktoken",
    ]
    .iter()
    .enumerate()
    {
        let vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
        check_vocab(rel, &vocab, 6, 10 * seed as u64);
    }
}

/// Real vocabularies, when `../shared/vocabs` is present.
#[test]
fn lazy_agrees_with_eager_on_real_vocabularies() {
    for (seed, rel) in [
        "gpt2/encoder.json",
        "llama2/tokenizer.json",
        "llama3/tokenizer.json",
        "qwen3/tokenizer.json",
    ]
    .iter()
    .enumerate()
    {
        let Some(vocab) = shared_vocab(rel) else {
            continue;
        };
        check_vocab(rel, &vocab, 2, 100 + seed as u64);
    }
}

/// Random patterns over `a`, `b`, `c` on a vocabulary of single bytes and pieces.
#[test]
fn lazy_agrees_with_eager_on_random_patterns() {
    let mut tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).collect();
    for piece in ["ab", "abc", "ca", "bb", "cab", "aaa"] {
        tokens.push(Some(piece.as_bytes().to_vec()));
    }
    tokens.push(None);
    let eos = tokens.len() as u32 - 1;
    let trie = Arc::new(VocabTrie::new(&ByteVocabulary::new(tokens, vec![eos])));
    let mut rng = SplitMix64::new(7);
    let mut compared = 0;
    for case in 0..120 {
        let pattern = random_pattern(&mut rng, 4);
        let compiler = RegexCompiler::new();
        let Ok((eager, _)) = compiler.compile_with_trie(&pattern, &trie) else {
            // The language is empty (or the pattern invalid): the lazy one says so too.
            assert!(
                compiler.compile_lazy(&pattern, trie.clone()).is_err(),
                "{pattern}"
            );
            continue;
        };
        let eager = Arc::new(eager);
        let lazy = compiler.compile_lazy(&pattern, trie.clone()).unwrap();
        let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
        let fresh_lazy = || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
        lockstep::random_walks(&fresh_eager, &fresh_lazy, &[eos], 3, 12, case);
        compared += 1;
    }
    assert!(compared > 60, "only {compared} patterns had a language");
}

/// Random DFAs over random vocabularies of a few multi-byte tokens: single bytes are
/// often missing, so a state can be live over bytes yet dead over tokens, which the
/// eager composition trims and the lazy matcher must refuse too.
#[test]
fn lazy_trims_like_eager_on_random_dfas_and_vocabularies() {
    let mut rng = Rng::new(11);
    let mut compared = 0;
    for case in 0..400 {
        let dfa = random_dfa(&mut rng, b"abc");
        let vocab = random_vocab(&mut rng, b"abc");
        let trie = Arc::new(VocabTrie::new(&vocab));
        let eos = vocab.eos_ids().to_vec();
        let lazy = LazyAutomaton::new(&dfa, trie.clone());
        let parts = match compose(&dfa, &vocab, &ComposeLimits::default()) {
            Ok(parts) => parts,
            Err(e) => {
                assert_eq!(e.kind(), ComposeErrorKind::EmptyLanguage, "{e}");
                let e = lazy.unwrap_err();
                assert_eq!(e.kind(), ComposeErrorKind::EmptyLanguage, "{e}");
                continue;
            }
        };
        let eager = Arc::new(TokenAutomaton::from_parts(parts).unwrap());
        let lazy = lazy.unwrap();
        let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
        let fresh_lazy = || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
        lockstep::random_walks(&fresh_eager, &fresh_lazy, &eos, 3, 10, case);
        compared += 1;
    }
    assert!(compared > 100, "only {compared} cases had a language");
}

/// `ax` is a token but `z` is not: the state after `ax` is live over bytes, dead over
/// tokens, so `ax` must not be allowed at the start.
#[test]
fn a_token_into_a_token_dead_state_is_refused() {
    let vocab = ByteVocabulary::from_strs(&["ax", "a", "y"]);
    let trie = Arc::new(VocabTrie::new(&vocab));
    let m = RegexCompiler::new()
        .compile_lazy("axz|ay", trie)
        .unwrap()
        .start_matcher();
    assert!(m.is_allowed(1), "a");
    assert!(
        !m.is_allowed(0),
        "ax leads where no token sequence completes"
    );
}

/// The contract every matcher keeps, on patterns with dense and sparse states and a
/// forced prefix.
#[test]
fn lazy_matcher_keeps_the_matcher_contract() {
    let (vocab, eos) = crate::walker_semantics::small_vocab();
    let trie = Arc::new(VocabTrie::new(&vocab));
    for (seed, pattern) in [r"[^\n]{0,3}x", r"food(ab|c)+", r"Note: [a-z ]+\n"]
        .iter()
        .enumerate()
    {
        let lazy = RegexCompiler::new()
            .compile_lazy(pattern, trie.clone())
            .unwrap();
        matcher_contract::check_contract(|| lazy.start_matcher(), &[eos], 300 + seed as u64);
    }
}

/// Forks share one cache, across threads: a state computed by one matcher is not
/// computed again, and a boxed fork is a `DynMatcher`.
#[test]
fn forks_share_the_cache_across_threads() {
    let vocab = ByteVocabulary::from_strs(&["a", "b", "ab", "c"]);
    let trie = Arc::new(VocabTrie::new(&vocab));
    let lazy = RegexCompiler::new().compile_lazy("(ab)+c", trie).unwrap();
    assert_eq!(lazy.num_cached_states(), 0, "nothing is composed up front");
    let mut m: Box<dyn DynMatcher> = Box::new(lazy.start_matcher());
    m.consume(2).unwrap();
    let fork = m.fork();
    let handle = std::thread::spawn(move || {
        let mut mask = vec![0u32; fork.mask_words()];
        fork.fill_mask(&mut mask).unwrap();
        mask[0]
    });
    let mask = handle.join().unwrap();
    assert_eq!(mask, 1 | 1 << 2 | 1 << 3, "a, ab or c after ab");
    let cached = lazy.num_cached_states();
    assert!(cached >= 2, "the thread's state is in the shared cache");
    let mut again = vec![0u32; 1];
    m.fill_mask(&mut again).unwrap();
    assert_eq!(again[0], mask);
    assert_eq!(lazy.num_cached_states(), cached);
}

#[test]
fn terminal_labels_and_empty_languages_are_refused_by_name() {
    let vocab = ByteVocabulary::from_strs(&["a", "b"]);
    let trie = Arc::new(VocabTrie::new(&vocab));
    let e = RegexCompiler::new()
        .compile_lazy("a(?P<TEXT_TOKEN>)", trie.clone())
        .unwrap_err();
    assert!(e.to_string().contains("terminal labels"), "{e}");
    let e = RegexCompiler::new().compile_lazy("c", trie).unwrap_err();
    match e.kind() {
        BuildErrorKind::Compose { error, .. } => {
            assert_eq!(error.kind(), ComposeErrorKind::EmptyLanguage, "{e}")
        }
        _ => panic!("{e}"),
    }
}
