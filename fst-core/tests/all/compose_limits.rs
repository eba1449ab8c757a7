//! Trimming, empty languages, limits and inconsistent inputs of the fast path.
#![cfg(feature = "compile")]

use std::time::{Duration, Instant};

use crate::compose_support::{Rng, TableDfa};
use fstc_core::bytes::ByteAutomaton;
use fstc_core::compose::{compose, compose_trimmed_with_trie, ComposeErrorKind, ComposeLimits};
use fstc_core::reference::compose_reference;
use fstc_core::reference::detokenizing_fst;
use fstc_core::vocab::VocabTrie;
use fstc_core::ByteVocabulary;

/// `ab|cd`.
fn ab_or_cd() -> TableDfa {
    TableDfa::new(
        4,
        &[3],
        &[(0, b'a', 1), (1, b'b', 3), (0, b'c', 2), (2, b'd', 3)],
    )
}

#[test]
fn states_live_over_bytes_but_dead_over_the_vocabulary_are_trimmed() {
    // Without a token containing "d", the branch after "c" can never finish.
    let vocab = ByteVocabulary::from_strs(&["a", "b", "c"]);
    let trie = VocabTrie::new(&vocab);
    let trimmed = compose_trimmed_with_trie(&ab_or_cd(), &trie, &ComposeLimits::default()).unwrap();
    assert_eq!(trimmed.accepting, [false, false, true]);
    assert_eq!(trimmed.edges, [vec![(0, 1)], vec![(1, 2)], vec![]]);
    let minimal = compose(&ab_or_cd(), &vocab, &ComposeLimits::default()).unwrap();
    assert_eq!(minimal, trimmed);
}

#[test]
fn unspellable_language_is_an_empty_language_error() {
    let vocab = ByteVocabulary::from_strs(&["a", "c", "bd"]);
    let dfa = TableDfa::new(3, &[2], &[(0, b'a', 1), (1, b'b', 2)]);
    let err = compose(&dfa, &vocab, &ComposeLimits::default()).unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::EmptyLanguage);
    assert!(err.to_string().contains("cannot spell"), "{err}");
    let reference =
        compose_reference(&dfa.to_fst(), &detokenizing_fst(&vocab), &vocab).unwrap_err();
    assert_eq!(reference.kind(), ComposeErrorKind::EmptyLanguage);
}

#[test]
fn only_special_tokens_cannot_spell_anything() {
    let vocab = ByteVocabulary::new(vec![None, Some(Vec::new()), None], vec![2]);
    let dfa = TableDfa::new(2, &[1], &[(0, b'a', 1)]);
    let err = compose(&dfa, &vocab, &ComposeLimits::default()).unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::EmptyLanguage);
}

#[test]
fn empty_text_match_needs_no_tokens() {
    // The pattern matches only "": one accepting state, no edges (only EOS allowed).
    let vocab = ByteVocabulary::from_strs(&["a"]);
    let dfa = TableDfa::new(1, &[0], &[]);
    let parts = compose(&dfa, &vocab, &ComposeLimits::default()).unwrap();
    assert_eq!(parts.accepting, [true]);
    assert_eq!(parts.edges, [Vec::<(u32, u32)>::new()]);
}

#[test]
fn empty_tokens_never_become_edges() {
    // An empty token would loop on every state without writing text.
    let vocab = ByteVocabulary::new(vec![Some(Vec::new()), Some(b"a".to_vec())], vec![]);
    let dfa = TableDfa::new(1, &[0], &[(0, b'a', 0)]);
    let parts = compose(&dfa, &vocab, &ComposeLimits::default()).unwrap();
    assert_eq!(parts.edges, [vec![(1, 0)]]);
}

#[test]
fn a_dfa_without_states_is_empty() {
    let dfa = TableDfa::new(0, &[], &[]);
    let err = compose(
        &dfa,
        &ByteVocabulary::from_strs(&["a"]),
        &ComposeLimits::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::EmptyLanguage);
}

#[test]
fn token_edge_limit_stops_the_build_and_says_how_to_raise_it() {
    let words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let vocab = ByteVocabulary::from_strs(&refs);
    // Anything goes: every token is an edge of the single state.
    let dfa = TableDfa::new(1, &[0], &[]).with_range(0, 0..=255, 0);
    let limits = ComposeLimits {
        token_edge_limit: 99,
        ..ComposeLimits::default()
    };
    let err = compose(&dfa, &vocab, &limits).unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::TokenEdgeLimit);
    let message = err.to_string();
    assert!(
        message.contains("99") && message.contains("raise"),
        "{message}"
    );
    let exact = ComposeLimits {
        token_edge_limit: 100,
        ..ComposeLimits::default()
    };
    assert_eq!(compose(&dfa, &vocab, &exact).unwrap().edges[0].len(), 100);
}

#[test]
fn state_limit_stops_the_build() {
    // a{10}: eleven token-level states with the token "a".
    let transitions: Vec<(u32, u8, u32)> = (0..10).map(|i| (i, b'a', i + 1)).collect();
    let dfa = TableDfa::new(11, &[10], &transitions);
    let vocab = ByteVocabulary::from_strs(&["a"]);
    let limits = ComposeLimits {
        state_limit: 5,
        ..ComposeLimits::default()
    };
    let err = compose(&dfa, &vocab, &limits).unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::StateLimit);
    assert!(err.to_string().contains('5'), "{err}");
    let enough = ComposeLimits {
        state_limit: 11,
        ..ComposeLimits::default()
    };
    assert_eq!(compose(&dfa, &vocab, &enough).unwrap().accepting.len(), 11);
}

/// A byte automaton that points past its own states.
struct Broken;

impl ByteAutomaton for Broken {
    fn num_states(&self) -> usize {
        2
    }
    fn start(&self) -> u32 {
        0
    }
    fn is_accepting(&self, state: u32) -> bool {
        state == 1
    }
    fn next(&self, _: u32, byte: u8) -> Option<u32> {
        (byte == b'x').then_some(7)
    }
}

#[test]
fn out_of_range_targets_are_reported_not_panicked_on() {
    let err = compose(
        &Broken,
        &ByteVocabulary::from_strs(&["x"]),
        &ComposeLimits::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::InvalidInput);
    assert!(err.to_string().contains("state 7"), "{err}");
}

#[test]
fn a_trie_serves_many_patterns() {
    let vocab = ByteVocabulary::from_strs(&["a", "b", "c", "d", "ab", "cd"]);
    let trie = VocabTrie::new(&vocab);
    assert_eq!(trie.num_text_tokens(), 6);
    assert_eq!(trie.eos_ids(), [6]);
    let limits = ComposeLimits::default();
    let first = fstc_core::compose::compose_with_trie(&ab_or_cd(), &trie, &limits).unwrap();
    assert_eq!(first, compose(&ab_or_cd(), &vocab, &limits).unwrap());
    let dfa = TableDfa::new(2, &[1], &[(0, b'a', 1), (0, b'b', 1)]);
    let second = fstc_core::compose::compose_with_trie(&dfa, &trie, &limits).unwrap();
    assert_eq!(second.edges, [vec![(0, 1), (1, 1)], vec![]]);
    // Trait objects work too.
    let dyn_dfa: &(dyn ByteAutomaton + Sync) = &dfa;
    let dyn_vocab: &dyn fstc_core::TokenVocabulary = &vocab;
    assert_eq!(compose(dyn_dfa, dyn_vocab, &limits).unwrap(), second);
}

/// `n` states over `a-z`, each byte leading somewhere else in a scrambled way, every
/// third state accepting: no two tokens act alike, so every state walks the whole
/// vocabulary (the slow path of the composition).
fn scrambled(n: usize) -> TableDfa {
    let accepting: Vec<u32> = (0..n as u32).step_by(3).collect();
    let mut transitions = Vec::new();
    for s in 0..n {
        for b in b'a'..=b'z' {
            transitions.push((s as u32, b, ((s * 7 + b as usize * 13 + 1) % n) as u32));
        }
    }
    TableDfa::new(n, &accepting, &transitions)
}

/// 2,000 tokens of 1 to 6 letters.
fn words() -> ByteVocabulary {
    let mut rng = Rng::new(27);
    let words: Vec<String> = (0..2000)
        .map(|_| {
            let len = 1 + rng.below(6);
            (0..len)
                .map(|_| (b'a' + rng.below(26) as u8) as char)
                .collect()
        })
        .collect();
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    ByteVocabulary::from_strs(&refs)
}

#[test]
fn a_deadline_stops_the_composition_with_an_error_naming_the_phase() {
    let (dfa, vocab) = (scrambled(300), words());
    let trie = VocabTrie::new(&vocab);
    let whole = fstc_core::compose::compose_with_trie(&dfa, &trie, &ComposeLimits::default());
    assert!(whole.is_ok(), "{:?}", whole.err());
    // Already past, and one millisecond away from a composition of 600,000 token edges
    // (65 ms in an idle test build): both stop inside, with the phase named.
    for budget in [Duration::ZERO, Duration::from_millis(1)] {
        let limits = ComposeLimits {
            deadline: Some(Instant::now() + budget),
            ..ComposeLimits::default()
        };
        let err = fstc_core::compose::compose_with_trie(&dfa, &trie, &limits).unwrap_err();
        assert_eq!(err.kind(), ComposeErrorKind::Deadline, "{err}");
        let message = err.to_string();
        assert!(
            message.contains("deadline (time budget) while"),
            "{message}"
        );
    }
    // A deadline far away changes nothing.
    let limits = ComposeLimits {
        deadline: Some(Instant::now() + Duration::from_secs(3600)),
        ..ComposeLimits::default()
    };
    let late = fstc_core::compose::compose_with_trie(&dfa, &trie, &limits);
    assert_eq!(late.ok(), whole.ok());
}

#[test]
fn a_memory_limit_stops_the_composition_as_its_tables_grow() {
    let (dfa, vocab) = (scrambled(300), words());
    // 300 states of ~2,000 group edges each: megabytes of edge lists, well past 256 KiB
    // once a few dozen states are walked (the transition table itself is 31 KiB).
    let limits = ComposeLimits {
        memory_limit: 256 << 10,
        ..ComposeLimits::default()
    };
    let err = compose(&dfa, &vocab, &limits).unwrap_err();
    assert_eq!(err.kind(), ComposeErrorKind::MemoryLimit, "{err}");
    assert!(err.to_string().contains("262144 bytes"), "{err}");
}
