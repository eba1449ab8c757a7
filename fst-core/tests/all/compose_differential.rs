//! The fast path against the paper's rustfst path, a brute-force composition and the
//! byte DFA itself.
#![cfg(feature = "compile")]

use crate::compose_support::{
    all_sequences, brute_force, foo_plus_d, parts_accept, random_dfa, random_vocab, spell,
    text_ids, Rng, TableDfa,
};
use fstc_core::compose::{compose, compose_with_trie, ComposeErrorKind, ComposeLimits};
use fstc_core::reference::compose_reference;
use fstc_core::reference::detokenizing_fst;
use fstc_core::vocab::VocabTrie;
use fstc_core::{ByteVocabulary, TokenVocabulary};

const ABC: &[u8] = b"abc";

/// Hand-made byte DFAs over `abc`.
fn hand_made() -> Vec<(&'static str, TableDfa)> {
    vec![
        // a(b|c)*a
        (
            "a(b|c)*a",
            TableDfa::new(
                3,
                &[2],
                &[(0, b'a', 1), (1, b'b', 1), (1, b'c', 1), (1, b'a', 2)],
            ),
        ),
        // (ab)*: accepts the empty text.
        (
            "(ab)*",
            TableDfa::new(2, &[0], &[(0, b'a', 1), (1, b'b', 0)]),
        ),
        (
            "abc",
            TableDfa::new(4, &[3], &[(0, b'a', 1), (1, b'b', 2), (2, b'c', 3)]),
        ),
        // [abc]*: everything.
        (
            "[abc]*",
            TableDfa::new(1, &[0], &[]).with_range(0, ABC.iter().copied(), 0),
        ),
        // b*c(a|b)?
        (
            "b*c(a|b)?",
            TableDfa::new(
                3,
                &[1, 2],
                &[(0, b'b', 0), (0, b'c', 1), (1, b'a', 2), (1, b'b', 2)],
            ),
        ),
        // Even number of a's, any b's, no c.
        (
            "(b*ab*a)*b*",
            TableDfa::new(
                2,
                &[0],
                &[(0, b'a', 1), (1, b'a', 0), (0, b'b', 0), (1, b'b', 1)],
            ),
        ),
    ]
}

fn vocabularies(rng: &mut Rng) -> Vec<ByteVocabulary> {
    let mut list = vec![
        ByteVocabulary::from_strs(&["a", "b", "c"]),
        ByteVocabulary::from_strs(&["ab", "ba", "c", "abc", "aa"]),
        ByteVocabulary::from_strs(&["a", "ab", "abc", "bca", "cab", "b", "ca"]),
    ];
    list.extend((0..5).map(|_| random_vocab(rng, ABC)));
    list
}

/// T_V for the reference path: detok's, over the tokens that have text. detok gives a
/// zero-byte token (only hand-made vocabularies have one) a root loop writing ε, so T_V ∘ A_R
/// would allow it in every state; the fast path leaves such tokens out on purpose (see
/// `fstc_core::compose`), and `random_vocab` makes some, so they are dropped here.
fn reference_detokenizer(
    vocab: &ByteVocabulary,
) -> rustfst::prelude::VectorFst<rustfst::prelude::TropicalWeight> {
    let text_only = (0..vocab.len() as u32)
        .map(|id| {
            vocab
                .token_bytes(id)
                .filter(|b| !b.is_empty())
                .map(<[u8]>::to_vec)
        })
        .collect();
    detokenizing_fst(&ByteVocabulary::new(text_only, vocab.eos_ids().to_vec()))
}

/// Checks fast == reference == brute force, and acceptance == the DFA's on every token
/// sequence up to length 4. Returns whether the language was non-empty.
fn check(name: &str, dfa: &TableDfa, vocab: &ByteVocabulary) -> bool {
    let limits = ComposeLimits::default();
    let fast = compose(dfa, vocab, &limits);
    let reference = compose_reference(&dfa.to_fst(), &reference_detokenizer(vocab), vocab);
    let brute = brute_force(dfa, vocab);
    let ids = text_ids(vocab);
    match (&fast, &reference, &brute) {
        (Ok(f), Ok(r), Some(b)) => {
            assert_eq!(f, r, "{name} over {vocab:?}: fast != reference");
            assert_eq!(f, b, "{name} over {vocab:?}: fast != brute force");
            for seq in all_sequences(&ids, 4) {
                assert_eq!(
                    parts_accept(f, &seq),
                    dfa.accepts(&spell(vocab, &seq)),
                    "{name} over {vocab:?}: tokens {seq:?}"
                );
            }
            true
        }
        (Err(f), Err(r), None) => {
            assert_eq!(f.kind(), ComposeErrorKind::EmptyLanguage, "{name}: {f}");
            assert_eq!(r.kind(), ComposeErrorKind::EmptyLanguage, "{name}: {r}");
            for seq in all_sequences(&ids, 4) {
                assert!(!dfa.accepts(&spell(vocab, &seq)), "{name}: {seq:?} matches");
            }
            false
        }
        _ => {
            panic!("{name} over {vocab:?}: fast {fast:?}, reference {reference:?}, brute {brute:?}")
        }
    }
}

#[test]
fn hand_made_dfas_agree_with_reference_and_bytes() {
    let mut rng = Rng::new(1);
    let vocabs = vocabularies(&mut rng);
    let mut non_empty = 0;
    for (name, dfa) in hand_made() {
        for vocab in &vocabs {
            non_empty += usize::from(check(name, &dfa, vocab));
        }
    }
    assert!(
        non_empty > 20,
        "too few non-empty cases ({non_empty}) to mean much"
    );
}

#[test]
fn random_dfas_and_vocabularies_agree_with_reference_and_bytes() {
    let mut rng = Rng::new(0x5eed);
    let mut non_empty = 0;
    for case in 0..300 {
        let dfa = random_dfa(&mut rng, ABC);
        let vocab = random_vocab(&mut rng, ABC);
        non_empty += usize::from(check(&format!("random case {case}"), &dfa, &vocab));
    }
    assert!(
        non_empty > 100,
        "too few non-empty cases ({non_empty}) to mean much"
    );
}

#[test]
fn paper_vocabulary_with_duplicates_and_specials() {
    // Ids 2 and 5 spell the same bytes; both must get the same edges. Id 6 is special.
    let vocab = ByteVocabulary::new(
        ["f", "oo", "foo", "for", "food", "foo"]
            .iter()
            .map(|s| Some(s.as_bytes().to_vec()))
            .chain([None, None])
            .collect(),
        vec![7],
    );
    assert!(check("(foo)+d", &foo_plus_d(), &vocab));
    let parts = compose(&foo_plus_d(), &vocab, &ComposeLimits::default()).unwrap();
    assert_eq!(parts.edges[0], [(0, 1), (2, 0), (4, 2), (5, 0)]);
}

/// A vocabulary large enough that one state's walk is split across threads.
fn big_vocab(rng: &mut Rng, count: usize) -> ByteVocabulary {
    let alphabet = b"abcdefgh";
    let tokens = (0..count)
        .map(|_| {
            let len = 1 + rng.below(7);
            Some(
                (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect(),
            )
        })
        .chain([None])
        .collect();
    ByteVocabulary::new(tokens, vec![count as u32])
}

#[test]
fn large_vocabulary_matches_brute_force_and_is_deterministic() {
    let mut rng = Rng::new(42);
    let vocab = big_vocab(&mut rng, 30_000);
    let trie = VocabTrie::new(&vocab);
    assert_eq!(trie.vocab_size(), vocab.len());
    let limits = ComposeLimits::default();
    let mut checked = 0;
    for _ in 0..12 {
        let dfa = random_dfa(&mut rng, b"abcdefgh");
        let fast = compose_with_trie(&dfa, &trie, &limits);
        let again = compose_with_trie(&dfa, &trie, &limits);
        assert_eq!(fast, again, "composition must not depend on thread timing");
        match (fast, brute_force(&dfa, &vocab)) {
            (Ok(f), Some(b)) => {
                assert_eq!(f, b);
                checked += 1;
            }
            (Err(e), None) => assert_eq!(e.kind(), ComposeErrorKind::EmptyLanguage),
            (f, b) => panic!("fast {f:?} vs brute force {b:?}"),
        }
    }
    assert!(checked >= 4, "only {checked} non-empty cases");
}
