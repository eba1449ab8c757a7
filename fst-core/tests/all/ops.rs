//! `fstc_core::ops` against brute force: acceptance of every token sequence up to a
//! length on random small automata (with terminal edges), shortest and distinguishing
//! sequences minimal by enumeration, and exactness on texts (the operation on compiled
//! automata equals compiling the byte-level operation, computed by an independent table
//! product and the brute-force composition).
#![cfg(feature = "compile")]

use crate::compose_support::{all_sequences, brute_force, random_dfa, random_vocab, Rng, TableDfa};
use fstc_core::automaton::{AutomatonParts, Terminal, TokenAutomaton};
use fstc_core::ops::{text_tokens, OpsErrorKind, TokenAlgebra};
use fstc_core::TokenVocabulary;
use testkit::tokenize::accepts;

const VOCAB: u32 = 5;
const EOS: u32 = 5;

/// A random token automaton over ids 0..5 (EOS 5): 1-4 states, random class edges and
/// sometimes a terminal edge whose mask overlaps them.
fn random_automaton(rng: &mut Rng) -> TokenAutomaton {
    let n = 1 + rng.below(4);
    let terminal_mask = (0..VOCAB)
        .filter(|_| rng.chance(50))
        .fold(0u32, |m, t| m | 1 << t);
    let mut edges = Vec::new();
    for _ in 0..n {
        let mut list: Vec<(u32, u32)> = Vec::new();
        for t in 0..VOCAB {
            if rng.chance(45) {
                list.push((t, rng.below(n) as u32));
            }
        }
        if terminal_mask != 0 && rng.chance(30) {
            list.push((VOCAB + 1, rng.below(n) as u32));
        }
        edges.push(list);
    }
    let parts = AutomatonParts {
        vocab_size: VOCAB + 1,
        vocab_fingerprint: 7,
        eos_ids: vec![EOS],
        start: 0,
        accepting: (0..n).map(|_| rng.chance(40)).collect(),
        edges,
        terminals: if terminal_mask != 0 {
            vec![Terminal {
                name: "SOME".into(),
                mask: vec![terminal_mask],
            }]
        } else {
            Vec::new()
        },
    };
    TokenAutomaton::from_parts(parts).unwrap()
}

fn sequences() -> Vec<Vec<u32>> {
    all_sequences(&(0..VOCAB).collect::<Vec<_>>(), 4)
}

#[test]
fn products_agree_with_acceptance_on_every_short_sequence() {
    let algebra = TokenAlgebra::new();
    let all = sequences();
    let mut rng = Rng::new(25);
    for case in 0..300 {
        let (a, b) = (random_automaton(&mut rng), random_automaton(&mut rng));
        let alphabet = (0..VOCAB)
            .filter(|_| rng.chance(70))
            .fold(0u32, |m, t| m | 1 << t);
        let and = algebra.intersect(&a, &b).unwrap().automaton;
        let or = algebra.union(&a, &b).unwrap().automaton;
        let minus = algebra.difference(&a, &b).unwrap().automaton;
        let not = algebra.complement(&a, &[alphabet]).unwrap().automaton;
        for seq in &all {
            let (x, y) = (accepts(&a, seq), accepts(&b, seq));
            let in_alphabet = seq.iter().all(|&t| alphabet & 1 << t != 0);
            assert_eq!(accepts(&and, seq), x && y, "case {case} and {seq:?}");
            assert_eq!(accepts(&or, seq), x || y, "case {case} or {seq:?}");
            assert_eq!(accepts(&minus, seq), x && !y, "case {case} minus {seq:?}");
            assert_eq!(
                accepts(&not, seq),
                in_alphabet && !x,
                "case {case} not {seq:?}"
            );
        }
        // Results are minimal: the same language again gives the same file.
        assert_eq!(algebra.intersect(&and, &and).unwrap().automaton, and);
        // (A ∩ B) ∪ (A \ B) is A, and A ∩ A is A minimized.
        let a_again = algebra.union(&and, &minus).unwrap().automaton;
        assert_eq!(
            a_again,
            algebra.intersect(&a, &a).unwrap().automaton,
            "case {case}"
        );
    }
}

#[test]
fn shortest_and_distinguishing_sequences_are_minimal() {
    let algebra = TokenAlgebra::new();
    let all = sequences();
    let mut rng = Rng::new(26);
    for case in 0..300 {
        let (a, b) = (random_automaton(&mut rng), random_automaton(&mut rng));
        // `all` is shortest first, then in token-id order: the first hit is the answer.
        let first_accepted = all.iter().find(|s| accepts(&a, s));
        match (algebra.shortest(&a).unwrap(), first_accepted) {
            (Some(found), Some(expected)) => assert_eq!(&found, expected, "case {case}"),
            (Some(found), None) => {
                assert!(
                    found.len() > 4 && accepts(&a, &found),
                    "case {case}: {found:?}"
                )
            }
            (None, expected) => assert_eq!(expected, None, "case {case}"),
        }
        let first_difference = all.iter().find(|s| accepts(&a, s) != accepts(&b, s));
        match (algebra.equivalent(&a, &b).unwrap(), first_difference) {
            (Some(d), Some(expected)) => {
                assert_eq!(&d.tokens, expected, "case {case}");
                assert_eq!(d.accepted_by_first, accepts(&a, expected), "case {case}");
            }
            (Some(d), None) => {
                assert!(d.tokens.len() > 4, "case {case}: {d:?}");
                assert_ne!(
                    accepts(&a, &d.tokens),
                    accepts(&b, &d.tokens),
                    "case {case}"
                );
            }
            (None, expected) => assert_eq!(expected, None, "case {case}"),
        }
        assert_eq!(algebra.equivalent(&a, &a).unwrap(), None);
    }
}

/// How a pair's acceptance follows from its components'.
type Accepts = fn(bool, bool) -> bool;

/// The byte-level operation on two table DFAs, written out: pairs with a dead component.
fn table_product(a: &TableDfa, b: &TableDfa, op: impl Fn(bool, bool) -> bool) -> TableDfa {
    const DEAD: u32 = u32::MAX;
    let (na, nb) = (a.accepting.len() as u32, b.accepting.len() as u32);
    // State (x, y) with x in 0..=na (na dead) is x * (nb + 1) + y.
    let id = |x: u32, y: u32| x * (nb + 1) + y;
    let n = ((na + 1) * (nb + 1)) as usize;
    let mut out = TableDfa::new(n, &[], &[]);
    for x in 0..=na {
        for y in 0..=nb {
            let s = id(x, y) as usize;
            let acc = |d: &TableDfa, s: u32, n: u32| s < n && d.accepting[s as usize];
            out.accepting[s] = op(acc(a, x, na), acc(b, y, nb));
            for byte in 0..=255u8 {
                let step = |d: &TableDfa, s: u32, n: u32| {
                    if s >= n {
                        return n;
                    }
                    let t = d.next[s as usize][byte as usize];
                    if t == DEAD {
                        n
                    } else {
                        t
                    }
                };
                out.next[s][byte as usize] = id(step(a, x, na), step(b, y, nb));
            }
        }
    }
    out.start = id(a.start, b.start);
    out
}

#[test]
fn operations_on_compiled_automata_are_the_compiled_byte_operations() {
    let algebra = TokenAlgebra::new();
    let mut rng = Rng::new(27);
    let mut checked = 0;
    for case in 0..400 {
        let vocab = random_vocab(&mut rng, b"ab");
        let (da, db) = (random_dfa(&mut rng, b"ab"), random_dfa(&mut rng, b"ab"));
        let compile = |dfa: &TableDfa| {
            brute_force(dfa, &vocab).map(|p| TokenAutomaton::from_parts(p).unwrap())
        };
        let (Some(a), Some(b)) = (compile(&da), compile(&db)) else {
            continue;
        };
        let empty = |r: &TokenAutomaton| r.num_accepting() == 0;
        let ops: [(&str, Accepts); 3] = [
            ("and", |x, y| x && y),
            ("or", |x, y| x || y),
            ("minus", |x, y| x && !y),
        ];
        for (name, op) in ops {
            let result = match name {
                "and" => algebra.intersect(&a, &b),
                "or" => algebra.union(&a, &b),
                _ => algebra.difference(&a, &b),
            }
            .unwrap()
            .automaton;
            match compile(&table_product(&da, &db, op)) {
                Some(expected) => assert_eq!(result, expected, "case {case} {name}"),
                None => assert!(empty(&result), "case {case} {name}"),
            }
            checked += 1;
        }
        let everything = TableDfa::new(1, &[0], &[]).with_range(0, 0..=255, 0);
        let not = algebra
            .complement(&a, &text_tokens(&vocab))
            .unwrap()
            .automaton;
        match compile(&table_product(&everything, &da, |x, y| x && !y)) {
            Some(expected) => assert_eq!(not, expected, "case {case} complement"),
            None => assert!(empty(&not), "case {case} complement"),
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn operands_of_other_vocabularies_are_refused() {
    let mut rng = Rng::new(28);
    let a = random_automaton(&mut rng);
    let mut parts = random_automaton(&mut rng).to_parts();
    parts.vocab_fingerprint = 8;
    let b = TokenAutomaton::from_parts(parts.clone()).unwrap();
    let err = TokenAlgebra::new().intersect(&a, &b).unwrap_err();
    assert!(matches!(err.kind(), OpsErrorKind::Vocabulary));
    assert!(err.to_string().contains("different vocabularies"), "{err}");
    parts.vocab_fingerprint = 7;
    parts.eos_ids = vec![4];
    parts
        .edges
        .iter_mut()
        .for_each(|l| l.retain(|&(t, _)| t != 4));
    parts
        .terminals
        .iter_mut()
        .for_each(|t| t.mask[0] &= !(1 << 4));
    let c = TokenAutomaton::from_parts(parts).unwrap();
    let err = TokenAlgebra::new().union(&a, &c).unwrap_err();
    assert!(err.to_string().contains("different EOS ids"), "{err}");
    assert!(TokenAlgebra::new().complement(&a, &[0, 0]).is_err());
}

#[test]
fn the_state_limit_stops_a_large_product() {
    // (ids mod 5) counters: a product of two 5-cycles on different tokens has 25 states.
    let cycle = |token: u32| {
        let n = 5u32;
        TokenAutomaton::from_parts(AutomatonParts {
            vocab_size: 3,
            vocab_fingerprint: 1,
            eos_ids: vec![2],
            start: 0,
            accepting: (0..n).map(|s| s == 0).collect(),
            edges: (0..n)
                .map(|s| {
                    let mut l = vec![(token, (s + 1) % n), (1 - token, s)];
                    l.sort_unstable();
                    l
                })
                .collect(),
            terminals: Vec::new(),
        })
        .unwrap()
    };
    let (a, b) = (cycle(0), cycle(1));
    let ok = TokenAlgebra::new()
        .state_limit(25)
        .intersect(&a, &b)
        .unwrap();
    assert_eq!(ok.stats.count("product states"), Some(25));
    assert_eq!(ok.automaton.num_states(), 25);
    let err = TokenAlgebra::new()
        .state_limit(24)
        .intersect(&a, &b)
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        OpsErrorKind::TooManyStates { limit: 24 }
    ));
    assert!(
        err.to_string().contains("more than 24 product states"),
        "{err}"
    );
    let stats = ok.stats.to_string();
    assert!(
        stats.contains("joint classes") && stats.contains("25 states"),
        "{stats}"
    );
}

#[test]
fn complement_ranges_over_text_tokens_only() {
    let vocab = fstc_core::ByteVocabulary::new(
        vec![
            Some(b"a".to_vec()),
            None,
            Some(Vec::new()),
            Some(b"b".to_vec()),
            None,
        ],
        vec![4],
    );
    assert_eq!(text_tokens(&vocab), [0b1001]);
    assert_eq!(vocab.len(), 5);
}

/// A random automaton over the ids of `vocab` but its EOS id (the last), which need not
/// accept every tokenization of its texts: projection then takes the subset construction.
fn random_over(rng: &mut Rng, vocab: &fstc_core::ByteVocabulary) -> TokenAutomaton {
    let eos = vocab.len() as u32 - 1;
    let n = 1 + rng.below(4);
    let mut edges = Vec::new();
    for _ in 0..n {
        let mut list = Vec::new();
        for t in 0..eos {
            if rng.chance(40) {
                list.push((t, rng.below(n) as u32));
            }
        }
        edges.push(list);
    }
    TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: vocab.len() as u32,
        vocab_fingerprint: fstc_core::fingerprint(vocab),
        eos_ids: vec![eos],
        start: 0,
        accepting: (0..n).map(|_| rng.chance(40)).collect(),
        edges,
        terminals: Vec::new(),
    })
    .unwrap()
}

#[test]
fn projection_is_the_set_of_spelled_texts() {
    use std::collections::HashSet;
    let algebra = TokenAlgebra::new();
    let mut rng = Rng::new(29);
    let mut cases = 0;
    while cases < 150 {
        let vocab = random_vocab(&mut rng, b"ab");
        let ids: Vec<u32> = (0..vocab.len() as u32 - 1).collect();
        if ids.iter().any(|&t| vocab.token_bytes(t) == Some(&[][..])) {
            continue; // empty tokens spell nothing: no length bound on their sequences
        }
        cases += 1;
        let a = random_over(&mut rng, &vocab);
        let dfa = algebra.project(&a, &vocab).unwrap();
        // Texts of accepted sequences of up to 4 tokens (those with a special token spell
        // nothing readable); every text of up to 4 bytes needs at most 4 tokens.
        let mut spelled = HashSet::new();
        for seq in all_sequences(&ids, 4) {
            let bytes: Option<Vec<u8>> = seq
                .iter()
                .map(|&t| vocab.token_bytes(t).map(<[u8]>::to_vec))
                .collect::<Option<Vec<_>>>()
                .map(|parts| parts.concat());
            if let Some(text) = bytes.filter(|_| accepts(&a, &seq)) {
                assert!(dfa.is_match(&text), "case {cases}: {text:?} of {seq:?}");
                spelled.insert(text);
            }
        }
        for text in testkit::patterns::all_texts(&[b"a", b"b"], 4) {
            assert_eq!(
                dfa.is_match(&text),
                spelled.contains(&text),
                "case {cases}: {text:?}"
            );
        }
    }
}

#[test]
fn a_token_bound_accepts_exactly_the_short_sequences_of_text_tokens() {
    let vocab = fstc_core::ByteVocabulary::new(
        vec![Some(b"a".to_vec()), None, Some(b"bc".to_vec()), None],
        vec![3],
    );
    let bound = fstc_core::ops::at_most_tokens(&vocab, 2).unwrap();
    for seq in all_sequences(&[0, 1, 2], 4) {
        let expected = seq.len() <= 2 && !seq.contains(&1);
        assert_eq!(accepts(&bound, &seq), expected, "{seq:?}");
    }
    let too_long = fstc_core::ops::at_most_tokens(&vocab, fstc_core::ops::DEFAULT_STATE_LIMIT);
    assert!(matches!(
        too_long.unwrap_err().kind(),
        OpsErrorKind::TooManyStates { .. }
    ));
}

/// The token bound within an algebra's limits: its N + 1 states against the state limit,
/// 8 bytes a token id and 64 a state against the memory limit, and the deadline.
#[test]
fn a_token_bound_stops_at_the_state_limit_and_the_budgets() {
    let vocab = fstc_core::ByteVocabulary::new(
        vec![Some(b"a".to_vec()), None, Some(b"bc".to_vec()), None],
        vec![3],
    );
    let trie = fstc_core::vocab::VocabTrie::new(&vocab);
    let n = 9;
    let expected = fstc_core::ops::at_most_tokens(&vocab, n).unwrap();
    let within = |algebra: TokenAlgebra| algebra.at_most_tokens(&trie, n);
    assert_eq!(
        within(TokenAlgebra::new().state_limit(n + 1)).unwrap(),
        expected
    );
    let err = within(TokenAlgebra::new().state_limit(n)).unwrap_err();
    assert!(
        matches!(err.kind(), OpsErrorKind::TooManyStates { limit: 9 }),
        "{err}"
    );
    let held = 4 * 8 + (n + 1) * 64;
    assert_eq!(
        within(TokenAlgebra::new().memory_limit(held)).unwrap(),
        expected
    );
    let err = within(TokenAlgebra::new().memory_limit(held - 1)).unwrap_err();
    assert!(matches!(err.kind(), OpsErrorKind::Memory { .. }), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("needs at least {held} bytes")),
        "{err}"
    );
    let past = std::time::Instant::now().checked_sub(std::time::Duration::from_millis(1));
    let err = within(TokenAlgebra::new().deadline(past)).unwrap_err();
    assert!(matches!(err.kind(), OpsErrorKind::Deadline), "{err}");
}
