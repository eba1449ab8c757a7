//! The fast path on real byte-level BPE vocabularies (GPT-2, Llama 3), when the shared
//! vocabularies are present (`testkit::vocabs::shared_vocabs_dir`); skipped otherwise.
//! Prints timings, the best of five runs (run with `--release -- --nocapture`); asserts
//! only correctness.
#![cfg(feature = "compile")]

use std::time::Instant;

use crate::compose_support::TableDfa;
use fstc_core::compose::{compose_trimmed_with_trie, compose_with_trie, ComposeLimits};
use fstc_core::minimize::minimize;
use fstc_core::reference::compose_reference;
use fstc_core::reference::detokenizing_fst;
use fstc_core::vocab::VocabTrie;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_detok::Vocabulary;
use testkit::vocabs::shared_vocab;

fn digits() -> TableDfa {
    TableDfa::new(2, &[1], &[])
        .with_range(0, b'0'..=b'9', 1)
        .with_range(1, b'0'..=b'9', 1)
}

fn lower_and_space() -> TableDfa {
    TableDfa::new(1, &[0], &[]).with_range(0, (b'a'..=b'z').chain([b' ']), 0)
}

fn any_bytes() -> TableDfa {
    TableDfa::new(1, &[0], &[]).with_range(0, 0..=255, 0)
}

/// `[0-9]{4}-[0-9]{2}-[0-9]{2}`.
fn date() -> TableDfa {
    let mut dfa = TableDfa::new(11, &[10], &[(4, b'-', 5), (7, b'-', 8)]);
    for s in [0, 1, 2, 3, 5, 6, 8, 9] {
        dfa = dfa.with_range(s, b'0'..=b'9', s + 1);
    }
    dfa
}

/// `[a-z]{1,30}`: a chain of 31 states, all but the first accepting.
fn bounded_word() -> TableDfa {
    let accepting: Vec<u32> = (1..=30).collect();
    let mut dfa = TableDfa::new(31, &accepting, &[]);
    for s in 0..30 {
        dfa = dfa.with_range(s, b'a'..=b'z', s + 1);
    }
    dfa
}

fn count_tokens(vocab: &Vocabulary, keep: impl Fn(&[u8]) -> bool) -> usize {
    (0..vocab.len() as u32)
        .filter_map(|id| vocab.token_bytes(id))
        .filter(|b| !b.is_empty() && keep(b))
        .count()
}

fn measure(name: &str, vocab: &Vocabulary) {
    let started = Instant::now();
    let trie = VocabTrie::new(vocab);
    println!(
        "{name}: {} ids, {} text tokens, {} trie nodes, trie built in {:.1} ms",
        vocab.len(),
        trie.num_text_tokens(),
        trie.num_nodes(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let limits = ComposeLimits::default();
    let cases = [
        ("[0-9]+", digits()),
        ("[a-z ]*", lower_and_space()),
        ("date", date()),
        ("[a-z]{1,30}", bounded_word()),
        ("(any byte)*", any_bytes()),
    ];
    let best_of_5 = |run: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let started = Instant::now();
                run();
                started.elapsed()
            })
            .min()
            .unwrap()
    };
    for (pattern, dfa) in &cases {
        let mut trimmed = None;
        let walk = best_of_5(&mut || {
            trimmed = Some(compose_trimmed_with_trie(dfa, &trie, &limits).unwrap())
        });
        let trimmed = trimmed.unwrap();
        let mut minimal = None;
        let min_time = best_of_5(&mut || minimal = Some(minimize(trimmed.clone())));
        let mut full = None;
        let total = best_of_5(&mut || full = Some(compose_with_trie(dfa, &trie, &limits).unwrap()));
        let full = full.unwrap();
        assert_eq!(Some(&full), minimal.as_ref());
        println!(
            "  {pattern:12} walk+trim {:7.2} ms, minimize {:7.2} ms, compose_with_trie {:7.2} ms: \
             {} -> {} states, {} edges",
            walk.as_secs_f64() * 1e3,
            min_time.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3,
            trimmed.accepting.len(),
            full.accepting.len(),
            full.edges.iter().map(Vec::len).sum::<usize>(),
        );
    }

    // What the edges must be, counted directly from the token bytes.
    let digit_only = count_tokens(vocab, |b| b.iter().all(u8::is_ascii_digit));
    let parts = compose_with_trie(&digits(), &trie, &limits).unwrap();
    assert_eq!(parts.accepting, [false, true]);
    assert_eq!(parts.edges[0].len(), digit_only);
    assert_eq!(parts.edges[0], parts.edges[1]);
    let lower = count_tokens(vocab, |b| {
        b.iter().all(|&c| c == b' ' || c.is_ascii_lowercase())
    });
    let parts = compose_with_trie(&lower_and_space(), &trie, &limits).unwrap();
    assert_eq!(parts.edges, [parts.edges[0].clone()]);
    assert_eq!(parts.edges[0].len(), lower);
    let parts = compose_with_trie(&any_bytes(), &trie, &limits).unwrap();
    assert_eq!(parts.edges[0].len(), trie.num_text_tokens());
    assert_eq!(parts.eos_ids, vocab.eos_ids());
}

#[test]
fn gpt2_vocabulary() {
    let Some(vocab) = shared_vocab("gpt2/encoder.json") else {
        return;
    };
    assert_eq!(vocab.len(), 50257);
    assert_eq!(vocab.token_bytes(220), Some(&b" "[..]));
    assert_eq!(vocab.eos_ids(), [50256]);
    measure("gpt2", &vocab);
}

#[test]
fn llama3_vocabulary() {
    let Some(vocab) = shared_vocab("llama3/tokenizer.json") else {
        return;
    };
    assert_eq!(vocab.len(), 128256);
    assert_eq!(vocab.eos_ids(), [128001]);
    measure("llama3", &vocab);
}

#[test]
fn gpt2_subset_agrees_with_reference() {
    let Some(full) = shared_vocab("gpt2/encoder.json") else {
        return;
    };
    // The first 700 ids: every single byte and the earliest merges (" t", "he", "in", ...).
    let tokens = (0..700)
        .map(|id| full.token_bytes(id).map(<[u8]>::to_vec))
        .collect();
    let vocab = ByteVocabulary::new(tokens, vec![]);
    let tv = detokenizing_fst(&vocab);
    let limits = ComposeLimits::default();
    for (name, dfa) in [
        ("[0-9]+", digits()),
        ("[a-z ]*", lower_and_space()),
        ("date", date()),
        ("[a-z]{1,30}", bounded_word()),
    ] {
        let started = Instant::now();
        let reference = compose_reference(&dfa.to_fst(), &tv, &vocab).unwrap();
        let reference_time = started.elapsed();
        let fast = fstc_core::compose::compose(&dfa, &vocab, &limits).unwrap();
        assert_eq!(fast, reference, "{name}");
        println!(
            "gpt2[..700] {name}: reference path {:.1} ms, {} states",
            reference_time.as_secs_f64() * 1e3,
            fast.accepting.len()
        );
    }
}

#[test]
fn full_gpt2_agrees_with_reference() {
    let Some(vocab) = shared_vocab("gpt2/encoder.json") else {
        return;
    };
    let tv = detokenizing_fst(&vocab);
    for (name, dfa) in [
        ("[0-9]+", digits()),
        ("date", date()),
        ("[a-z ]*", lower_and_space()),
    ] {
        let started = Instant::now();
        let reference = compose_reference(&dfa.to_fst(), &tv, &vocab).unwrap();
        let reference_time = started.elapsed();
        let fast = fstc_core::compose::compose(&dfa, &vocab, &ComposeLimits::default()).unwrap();
        assert_eq!(fast, reference, "{name}");
        println!(
            "gpt2 {name}: reference path {:.1} ms",
            reference_time.as_secs_f64() * 1e3
        );
    }
}
