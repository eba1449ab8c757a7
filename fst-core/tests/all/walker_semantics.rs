//! What a decoder relies on from the walker: masks, EOS exactly in accepting states,
//! consume/rollback/validate semantics, forced tokens, and random walks that stay inside
//! the language.

use crate::matcher_contract;
use bitvec::prelude::{BitSlice, Lsb0};
use fstc_core::automaton::{AutomatonParts, TokenAutomaton};
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::walker::{WalkErrorKind, Walker};
use testkit::paper::{figure5_parts, EOS, F, FOO, FOOD, FOR, OO};

fn figure5() -> TokenAutomaton {
    TokenAutomaton::from_parts(figure5_parts()).unwrap()
}

fn allowed(w: &Walker<'_>, width: usize) -> Vec<u32> {
    let mut mask = vec![u32::MAX; width];
    w.fill_mask(&mut mask).unwrap();
    BitSlice::<u32, Lsb0>::from_slice(&mask)
        .iter_ones()
        .map(|i| i as u32)
        .collect()
}

#[test]
fn masks_follow_the_language_and_eos_only_when_accepting() {
    let a = figure5();
    let mut w = Walker::new(&a);
    assert_eq!(allowed(&w, 1), [F, FOO, FOOD]);
    assert!(!w.is_accepting() && !w.is_allowed(EOS) && !w.is_allowed(FOR));
    w.consume(F).unwrap();
    assert_eq!(allowed(&w, 1), [OO]);
    w.consume(OO).unwrap();
    assert_eq!(allowed(&w, 1), [F, FOO, FOOD]);
    w.consume(FOOD).unwrap();
    assert!(w.is_accepting());
    assert!(w.only_eos_allowed());
    assert_eq!(allowed(&w, 1), [EOS]);
    assert!(w.is_allowed(EOS) && !w.is_allowed(F));
    assert!(!w.is_finished());
    w.consume(EOS).unwrap();
    assert!(w.is_finished());
    assert!(!w.only_eos_allowed());
    assert_eq!(allowed(&w, 1), [] as [u32; 0], "nothing after EOS");
    assert!(!w.is_allowed(EOS));
    let e = w.consume(EOS).unwrap_err();
    assert_eq!(e.kind(), WalkErrorKind::Finished);
    assert_eq!(w.num_consumed(), 4);
}

#[test]
fn wide_masks_keep_padding_zero_and_narrow_masks_are_rejected() {
    let a = figure5();
    let w = Walker::new(&a);
    let mut mask = [u32::MAX; 3];
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(mask, [(1 << F) | (1 << FOO) | (1 << FOOD), 0, 0]);

    // 40 tokens need two words; one is an error that leaves the mask alone.
    let wide = TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 40,
        vocab_fingerprint: 0,
        eos_ids: vec![39],
        start: 0,
        accepting: vec![true],
        edges: vec![vec![(33, 0), (0, 0), (31, 0), (32, 0)]],
        terminals: Vec::new(),
    })
    .unwrap();
    let w = Walker::new(&wide);
    let mut one = [0xdead_beef];
    let e = w.fill_mask(&mut one).unwrap_err();
    assert_eq!(e.kind(), WalkErrorKind::MaskTooNarrow);
    assert!(e.to_string().contains("40 tokens"), "{e}");
    assert_eq!(one, [0xdead_beef]);
    let mut two = [u32::MAX; 2];
    w.fill_mask(&mut two).unwrap();
    assert_eq!(two, [1 | (1 << 31), 1 | (1 << 1) | (1 << 7)]);
}

#[test]
fn refused_tokens_name_token_and_state_and_change_nothing() {
    let a = figure5();
    let mut w = Walker::new(&a);
    w.consume(F).unwrap();
    for (token, kind, needle) in [
        (
            FOR,
            WalkErrorKind::TokenNotAllowed,
            "token 3 is not allowed in state 1",
        ),
        (
            EOS,
            WalkErrorKind::TokenNotAllowed,
            "EOS token 5 is not allowed in state 1",
        ),
        (
            77,
            WalkErrorKind::OutOfVocabulary,
            "token 77 is outside the vocabulary",
        ),
    ] {
        let e = w.consume(token).unwrap_err();
        assert_eq!(e.kind(), kind);
        assert!(e.to_string().contains(needle), "{e}");
        assert_eq!(w.state(), 1);
        assert_eq!(w.num_consumed(), 1);
        assert!(!w.is_finished());
    }
}

#[test]
fn consume_tokens_is_all_or_nothing() {
    let a = figure5();
    let mut w = Walker::new(&a);
    w.consume(FOO).unwrap();
    let e = w.consume_tokens(&[F, OO, FOR]).unwrap_err();
    assert!(e.to_string().starts_with("tokens[2]: token 3"), "{e}");
    assert_eq!((w.state(), w.num_consumed()), (0, 1));
    let e = w.consume_tokens(&[FOOD, EOS, F]).unwrap_err();
    assert_eq!(e.kind(), WalkErrorKind::Finished);
    assert!(!w.is_finished() && w.num_consumed() == 1);
    w.consume_tokens(&[F, OO, FOOD, EOS]).unwrap();
    assert!(w.is_finished());
    assert_eq!(w.num_consumed(), 5);
}

#[test]
fn validate_tokens_counts_the_accepted_prefix_without_moving() {
    let a = figure5();
    let mut w = Walker::new(&a);
    assert_eq!(w.validate_tokens(&[FOO, F, OO, FOOD, EOS, F]), 5);
    assert_eq!(w.validate_tokens(&[F, F]), 1);
    assert_eq!(w.validate_tokens(&[EOS]), 0);
    assert_eq!(w.validate_tokens(&[]), 0);
    assert_eq!(w.validate_tokens(&[FOO, FOO]), 2);
    assert_eq!((w.state(), w.num_consumed()), (0, 0));
    w.consume_tokens(&[FOOD, EOS]).unwrap();
    assert_eq!(w.validate_tokens(&[F]), 0, "nothing validates after EOS");
}

#[test]
fn rollback_undoes_tokens_and_eos() {
    let a = figure5();
    let mut w = Walker::new(&a);
    w.consume_tokens(&[F, OO, F, OO, FOOD, EOS]).unwrap();
    w.rollback(1).unwrap();
    assert!(!w.is_finished() && w.is_accepting() && w.state() == 2);
    w.rollback(2).unwrap();
    assert_eq!((w.state(), w.num_consumed()), (1, 3));
    assert_eq!(allowed(&w, 1), [OO]);
    let e = w.rollback(4).unwrap_err();
    assert_eq!(e.kind(), WalkErrorKind::RollbackTooFar);
    assert!(e.to_string().contains("only 3 consumed"), "{e}");
    assert_eq!((w.state(), w.num_consumed()), (1, 3));
    w.rollback(0).unwrap();
    w.rollback(3).unwrap();
    assert_eq!((w.state(), w.num_consumed()), (0, 0));
    w.consume(FOO).unwrap();
    w.reset();
    assert_eq!((w.state(), w.num_consumed()), (0, 0));
}

#[test]
fn forced_tokens_follow_single_edges_and_stop_on_cycles() {
    let a = figure5();
    let mut w = Walker::new(&a);
    assert!(w.forced_tokens().is_empty(), "three choices at the start");
    w.consume(F).unwrap();
    assert_eq!(w.forced_tokens(), [OO]);
    assert_eq!(w.num_consumed(), 1, "forced_tokens does not move");

    // `"abc"` as tokens a, b, c: everything is forced up to the accepting state.
    let chain = TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 4,
        vocab_fingerprint: 0,
        eos_ids: vec![3],
        start: 0,
        accepting: vec![false, false, false, true],
        edges: vec![vec![(0, 1)], vec![(1, 2)], vec![(2, 3)], vec![]],
        terminals: Vec::new(),
    })
    .unwrap();
    assert_eq!(Walker::new(&chain).forced_tokens(), [0, 1, 2]);

    // A non-accepting cycle of single edges (an untrimmed automaton) stays finite.
    let cycle = TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 2,
        vocab_fingerprint: 0,
        eos_ids: vec![],
        start: 0,
        accepting: vec![false, false],
        edges: vec![vec![(0, 1)], vec![(1, 0)]],
        terminals: Vec::new(),
    })
    .unwrap();
    assert_eq!(Walker::new(&cycle).forced_tokens(), [0, 1]);
}

#[test]
fn masks_agree_with_is_allowed_on_random_automata() {
    for seed in 0..30u64 {
        let mut rng = SplitMix64::new(seed);
        let vocab = 1 + rng.below(200) as u32;
        let states = 1 + rng.below(30) as u32;
        let eos: Vec<u32> = (0..rng.below(3))
            .map(|_| rng.below(u64::from(vocab)) as u32)
            .collect();
        let edges = (0..states)
            .map(|_| {
                let mut list: Vec<(u32, u32)> = Vec::new();
                for _ in 0..rng.below(u64::from(vocab)) {
                    let t = rng.below(u64::from(vocab)) as u32;
                    if !eos.contains(&t) && list.iter().all(|&(u, _)| u != t) {
                        list.push((t, rng.below(u64::from(states)) as u32));
                    }
                }
                list
            })
            .collect();
        let a = TokenAutomaton::from_parts(AutomatonParts {
            vocab_size: vocab,
            vocab_fingerprint: seed,
            eos_ids: eos,
            start: 0,
            accepting: (0..states).map(|_| rng.below(2) == 0).collect(),
            edges,
            terminals: Vec::new(),
        })
        .unwrap();
        let width = (vocab as usize).div_ceil(32) + 1;
        let mut w = Walker::new(&a);
        for _ in 0..20 {
            let got = allowed(&w, width);
            let want: Vec<u32> = (0..width as u32 * 32)
                .filter(|&t| w.is_allowed(t))
                .collect();
            assert_eq!(got, want, "seed {seed} state {}", w.state());
            let tokens = a.token_edges(w.state());
            assert_eq!(
                got.len(),
                tokens.len()
                    + if w.is_accepting() {
                        a.eos_ids().len()
                    } else {
                        0
                    }
            );
            if tokens.is_empty() {
                break;
            }
            w.consume(tokens[rng.below(tokens.len() as u64) as usize].0)
                .unwrap();
        }
    }
}

#[test]
fn random_walks_stay_in_the_language_and_are_reproducible() {
    let a = figure5();
    let mut rng = SplitMix64::new(3);
    let mut complete = 0;
    for _ in 0..200 {
        let walk = random_walk(&a, &mut rng, 12);
        let mut w = Walker::new(&a);
        w.consume_tokens(&walk.tokens).unwrap();
        if walk.complete {
            complete += 1;
            assert!(w.is_accepting());
            assert_eq!(*walk.tokens.last().unwrap(), FOOD);
            w.consume(EOS).unwrap();
        } else {
            assert_eq!(walk.tokens.len(), 12);
        }
    }
    assert!(complete > 50, "{complete} of 200 walks complete");
    let again = |seed| random_walk(&a, &mut SplitMix64::new(seed), 30);
    assert_eq!(again(11), again(11));
    assert_eq!(
        random_walk(&a, &mut SplitMix64::new(1), 0).tokens,
        [] as [u32; 0]
    );
}

/// A small vocabulary: every byte, some words, and the two-byte pieces of "Note: " and of
/// the words, with EOS last.
pub(crate) fn small_vocab() -> (fstc_core::ByteVocabulary, u32) {
    let mut tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).collect();
    for piece in [
        "No", "te", ": ", "Note: ", "ab", "abc", "a\n", " x", "foo", "food",
    ] {
        tokens.push(Some(piece.as_bytes().to_vec()));
    }
    let eos = tokens.len() as u32;
    tokens.push(None);
    (fstc_core::ByteVocabulary::new(tokens, vec![eos]), eos)
}

/// The automata the contract runs on: Figure 5, a terminal pattern, a pattern whose wide
/// states carry dense masks, and one with a forced prefix.
fn contract_automata() -> Vec<(TokenAutomaton, Vec<u32>)> {
    let (vocab, eos) = small_vocab();
    let compiler = fstc_regex::RegexCompiler::new();
    let mut out = vec![(figure5(), vec![EOS])];
    for pattern in [
        r"Note: (?P<PARAGRAPH_TOKEN>)+\n",
        r"[^\n]{0,3}x",
        r"food(ab|c)+",
    ] {
        let a = compiler.compile(pattern, &vocab).unwrap();
        out.push((a, vec![eos]));
    }
    assert!(out[2].0.num_dense_masks() > 0, "a dense mask is exercised");
    assert!(out[1].0.num_terminals() > 0, "a terminal is exercised");
    out
}

#[test]
fn borrowing_walker_keeps_the_matcher_contract() {
    for (seed, (a, eos)) in contract_automata().iter().enumerate() {
        matcher_contract::check_contract(|| Walker::new(a), eos, seed as u64);
    }
}

#[test]
fn owning_walker_keeps_the_matcher_contract() {
    for (seed, (a, eos)) in contract_automata().into_iter().enumerate() {
        let a = std::sync::Arc::new(a);
        matcher_contract::check_contract(
            || fstc_core::walker::OwnedWalker::new(a.clone()),
            &eos,
            100 + seed as u64,
        );
    }
}
