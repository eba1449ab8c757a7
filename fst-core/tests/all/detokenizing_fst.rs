//! T_V: the paper's Figure 4 drawn as DOT (snapshot), its shape, and that it maps token
//! sequences to their concatenated bytes (composition of a linear token FSA with T_V).

use fstc_core::labels::{label_byte, token_label};
use fstc_core::reference::{detokenizer_dot, detokenizing_fst};
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_detok::Vocabulary;
use rustfst::algorithms::compose::compose;
use rustfst::fst_properties::FstProperties;
use rustfst::prelude::*;
use testkit::vocabs::testdata;

fn figure4() -> ByteVocabulary {
    ByteVocabulary::from_strs(&["f", "oo", "foo", "for", "food"])
}

#[test]
fn figure4_dot_snapshot() {
    let vocab = figure4();
    let fst = detokenizing_fst(&vocab);
    insta::assert_snapshot!(detokenizer_dot(&fst, &vocab));
}

#[test]
fn figure4_shape() {
    let fst = detokenizing_fst(&figure4());
    // Root plus the trie nodes "f", "fo", "foo" and "o".
    assert_eq!(fst.num_states(), 5);
    assert_eq!(fst.start(), Some(0));
    let finals: Vec<StateId> = fst
        .states_iter()
        .filter(|&s| fst.is_final(s).unwrap())
        .collect();
    assert_eq!(finals, [0]);
    // One token edge per token (the EOS token has none) and 4 ε-input edges.
    let trs: Vec<Tr<TropicalWeight>> = fst
        .states_iter()
        .flat_map(|s| fst.get_trs(s).unwrap().trs().to_vec())
        .collect();
    assert_eq!(trs.iter().filter(|t| t.ilabel != 0).count(), 5);
    assert_eq!(trs.iter().filter(|t| t.ilabel == 0).count(), 4);
    // Every token edge goes back to the root, every ε edge away from it.
    assert!(trs.iter().all(|t| (t.ilabel != 0) == (t.nextstate == 0)));
    assert!(trs.iter().all(|t| t.olabel != 0));
    assert!(fst.properties().contains(FstProperties::I_LABEL_SORTED));
}

/// The output of T_V on `tokens`: compose the linear acceptor of `tokens` with T_V, trim,
/// and read the one path.
fn transduce(t_v: &VectorFst<TropicalWeight>, tokens: &[u32]) -> Vec<u8> {
    let mut input = VectorFst::<TropicalWeight>::new();
    let mut s = input.add_state();
    input.set_start(s).unwrap();
    for &t in tokens {
        let next = input.add_state();
        input
            .add_tr(
                s,
                Tr::new(token_label(t), token_label(t), TropicalWeight::one(), next),
            )
            .unwrap();
        s = next;
    }
    input.set_final(s, TropicalWeight::one()).unwrap();
    let mut out: VectorFst<TropicalWeight> = compose(input, t_v.clone()).unwrap();
    connect(&mut out).unwrap();
    let paths: Vec<FstPath<TropicalWeight>> = out.paths_iter().collect();
    assert_eq!(
        paths.len(),
        1,
        "T_V is functional: one output for {tokens:?}"
    );
    assert_eq!(
        paths[0].ilabels,
        tokens.iter().map(|&t| token_label(t)).collect::<Vec<_>>()
    );
    paths[0]
        .olabels
        .iter()
        .map(|&l| label_byte(l).unwrap())
        .collect()
}

#[test]
fn figure4_maps_tokens_to_their_bytes() {
    let vocab = figure4();
    let t_v = detokenizing_fst(&vocab);
    // f=0, oo=1, foo=2, for=3, food=4
    for (tokens, text) in [
        (&[][..], ""),
        (&[0, 1][..], "foo"),
        (&[2][..], "foo"),
        (&[4, 3, 0][..], "foodforf"),
        (&[1, 1, 2, 4][..], "oooofoofood"),
        (&[3, 3][..], "forfor"),
    ] {
        assert_eq!(transduce(&t_v, tokens), text.as_bytes(), "{tokens:?}");
    }
    // The EOS token has no text and no edge: no output at all.
    let mut input = VectorFst::<TropicalWeight>::new();
    let (a, b) = (input.add_state(), input.add_state());
    input.set_start(a).unwrap();
    input.set_final(b, TropicalWeight::one()).unwrap();
    input
        .add_tr(
            a,
            Tr::new(token_label(5), token_label(5), TropicalWeight::one(), b),
        )
        .unwrap();
    let mut out: VectorFst<TropicalWeight> = compose(input, t_v).unwrap();
    connect(&mut out).unwrap();
    assert_eq!(out.paths_iter().count(), 0);
}

#[test]
fn fixture_t_v_maps_random_sequences_to_their_bytes() {
    let vocab = Vocabulary::from_file(testdata("bytelevel/tokenizer.json")).unwrap();
    let t_v = detokenizing_fst(&vocab);
    // States: the root and one per distinct proper prefix of a token.
    let mut prefixes = std::collections::HashSet::new();
    for id in 0..vocab.len() as u32 {
        if let Some(b) = vocab.token_bytes(id) {
            for n in 1..b.len() {
                prefixes.insert(&b[..n]);
            }
        }
    }
    assert_eq!(t_v.num_states(), 1 + prefixes.len());
    let text_ids: Vec<u32> = (0..vocab.len() as u32)
        .filter(|&i| vocab.token_bytes(i).is_some())
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..50 {
        let len = (seed % 6) as usize;
        let mut tokens = Vec::new();
        for _ in 0..len {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            tokens.push(text_ids[(seed >> 33) as usize % text_ids.len()]);
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        assert_eq!(
            transduce(&t_v, &tokens),
            tokens
                .iter()
                .flat_map(|&id| vocab.token_bytes(id).unwrap().to_vec())
                .collect::<Vec<u8>>(),
            "{tokens:?}"
        );
    }
}

#[test]
fn duplicate_spellings_share_their_path() {
    // Two ids with the same bytes (like Llama 2's "<0x41>" and "A") are two edges from the
    // same trie node; an empty token is a root loop writing nothing.
    let vocab = ByteVocabulary::new(
        vec![
            Some(b"ab".to_vec()),
            Some(b"ab".to_vec()),
            Some(Vec::new()),
            None,
        ],
        vec![3],
    );
    let t_v = detokenizing_fst(&vocab);
    assert_eq!(t_v.num_states(), 2);
    assert_eq!(transduce(&t_v, &[0, 1]), b"abab");
    assert_eq!(transduce(&t_v, &[2, 0, 2]), b"ab");
}
