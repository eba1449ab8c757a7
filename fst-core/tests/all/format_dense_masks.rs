//! Dense masks: states with many edges store their allowed set as a bitset that
//! `fill_mask` copies. What a decoder relies on: the copied mask is exactly the
//! edge-derived one (EOS included when accepting, padding and any wider tail zero), masks
//! survive a round trip, and a file whose masks disagree with its edges never loads.

use fstc_core::automaton::{AutomatonParts, TokenAutomaton};
use fstc_core::format::{
    dense_mask_wanted, FormatErrorKind, NO_DENSE_MASK, SECTION_DENSE_MASKS,
    SECTION_STATE_MASK_INDEX,
};
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::walker::Walker;
use testkit::file::{forge_checksum, section};
use testkit::paper::figure5_parts;

/// A random automaton over a large vocabulary whose states have very different fan-outs:
/// empty, a handful of edges, just under and over the dense threshold, and wildcard-like
/// (most of the vocabulary). Some states repeat an earlier state's token set with other
/// targets, so masks are shared.
fn random_parts(seed: u64) -> AutomatonParts {
    let mut rng = SplitMix64::new(seed);
    let vocab = 3000 + rng.below(20_000) as u32;
    let width = (vocab as usize).div_ceil(32);
    let threshold = (width / 8).max(64);
    let states = 4 + rng.below(20) as u32;
    let eos: Vec<u32> = (0..1 + rng.below(3))
        .map(|_| vocab - 1 - rng.below(4) as u32)
        .collect();
    let mut edges: Vec<Vec<(u32, u32)>> = Vec::new();
    for s in 0..states {
        let fan_out = match rng.below(6) {
            0 => 0,
            1 => rng.below(10) as usize,
            2 => threshold - 1 - rng.below(3) as usize,
            3 => threshold + rng.below(3) as usize,
            _ => (vocab as usize) * (50 + rng.below(50) as usize) / 100,
        };
        let list: Vec<(u32, u32)> = if s > 0 && rng.below(4) == 0 {
            // Same tokens as an earlier state, other targets.
            let from = rng.below(u64::from(s)) as usize;
            edges[from]
                .iter()
                .map(|&(t, _)| (t, rng.below(u64::from(states)) as u32))
                .collect()
        } else {
            let mut tokens: Vec<u32> = (0..vocab).filter(|t| !eos.contains(t)).collect();
            let fan_out = fan_out.min(tokens.len());
            for i in 0..fan_out {
                let j = i + rng.below((tokens.len() - i) as u64) as usize;
                tokens.swap(i, j);
            }
            tokens[..fan_out]
                .iter()
                .map(|&t| (t, rng.below(u64::from(states)) as u32))
                .collect()
        };
        edges.push(list);
    }
    AutomatonParts {
        vocab_size: vocab,
        vocab_fingerprint: seed,
        eos_ids: eos,
        start: 0,
        accepting: (0..states).map(|_| rng.below(2) == 0).collect(),
        edges,
        terminals: Vec::new(),
    }
}

/// What `fill_mask` must write in `state`, from the edges and flags alone.
fn edge_mask<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, state: u32, words: usize) -> Vec<u32> {
    let mut mask = vec![0u32; words];
    let tokens: Vec<u32> = a.token_edges(state).iter().map(|e| e.0).collect();
    let eos: &[u32] = if a.is_accepting(state) {
        a.eos_ids()
    } else {
        &[]
    };
    for &t in tokens.iter().chain(eos) {
        mask[(t / 32) as usize] |= 1 << (t % 32);
    }
    mask
}

fn allowed_count<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, s: u32) -> usize {
    a.num_token_edges(s)
        + if a.is_accepting(s) {
            a.eos_ids().len()
        } else {
            0
        }
}

#[test]
fn dense_and_sparse_masks_equal_the_edge_derived_masks() {
    let (mut dense_fills, mut sparse_fills) = (0, 0);
    for seed in 0..12 {
        let a = TokenAutomaton::from_parts(random_parts(seed)).unwrap();
        let width = (a.vocab_size() as usize).div_ceil(32);
        // Which states carry a mask is the documented policy, and identical sets share one.
        let mut distinct = std::collections::HashSet::new();
        for s in 0..a.num_states() {
            let want = dense_mask_wanted(allowed_count(&a, s), width);
            assert_eq!(a.dense_mask(s).is_some(), want, "seed {seed} state {s}");
            if let Some(mask) = a.dense_mask(s) {
                assert_eq!(mask, edge_mask(&a, s, width), "seed {seed} state {s}");
                distinct.insert(mask.to_vec());
            }
        }
        assert_eq!(a.num_dense_masks() as usize, distinct.len(), "seed {seed}");

        // The walker, in every reachable state, into a wider mask full of garbage.
        let wide = width + 3;
        let mut mask = vec![u32::MAX; wide];
        for s in 0..a.num_states() {
            let Some(path) = a.shortest_path_to(s) else {
                continue;
            };
            let mut w = Walker::new(&a);
            w.consume_tokens(&path).unwrap();
            mask.fill(u32::MAX);
            w.fill_mask(&mut mask).unwrap();
            assert_eq!(mask, edge_mask(&a, s, wide), "seed {seed} state {s}");
            for t in 0..(wide * 32) as u32 {
                let set = mask[(t / 32) as usize] & (1 << (t % 32)) != 0;
                assert_eq!(w.is_allowed(t), set, "seed {seed} state {s} token {t}");
            }
            if a.dense_mask(s).is_some() {
                dense_fills += 1;
            } else {
                sparse_fills += 1;
            }
            // After EOS nothing is allowed, dense or not.
            if let (true, Some(&eos)) = (a.is_accepting(s), a.eos_ids().first()) {
                w.consume(eos).unwrap();
                mask.fill(u32::MAX);
                w.fill_mask(&mut mask).unwrap();
                assert!(mask.iter().all(|&m| m == 0), "seed {seed} state {s}");
                assert!(!w.is_allowed(eos));
            }
        }
        // Along random walks every consumed token had its bit set.
        let mut rng = SplitMix64::new(seed);
        for _ in 0..10 {
            let walk = random_walk(&a, &mut rng, 20);
            let mut w = Walker::new(&a);
            for &t in &walk.tokens {
                w.fill_mask(&mut mask).unwrap();
                assert_eq!(mask, edge_mask(&a, w.state(), wide));
                assert!(mask[(t / 32) as usize] & (1 << (t % 32)) != 0);
                w.consume(t).unwrap();
            }
        }
    }
    assert!(
        dense_fills > 20 && sparse_fills > 20,
        "both paths exercised: {dense_fills} dense, {sparse_fills} sparse"
    );
}

#[test]
fn dense_masks_round_trip() {
    for seed in 20..26 {
        let parts = random_parts(seed);
        let a = TokenAutomaton::from_parts(parts.clone()).unwrap();
        assert!(a.num_dense_masks() > 0, "seed {seed} has dense states");
        let words = a.as_words().to_vec();
        let borrowed = TokenAutomaton::from_bytes(bytemuck::cast_slice(&words)).unwrap();
        let copied = TokenAutomaton::from_bytes_copied(&a.to_bytes()).unwrap();
        assert_eq!(borrowed, a);
        assert_eq!(copied, a);
        // Masks are derived data: rebuilding from the parts lays out the same words.
        let rebuilt = TokenAutomaton::from_parts(borrowed.to_parts()).unwrap();
        assert_eq!(rebuilt, a);
        for s in 0..a.num_states() {
            assert_eq!(borrowed.dense_mask(s), a.dense_mask(s));
            assert_eq!(copied.dense_mask(s), a.dense_mask(s));
        }
        assert_eq!(a.dense_mask(a.num_states()), None, "out-of-range state");
    }
}

#[test]
fn small_automata_have_no_dense_mask_sections() {
    // Few edges never get a mask, so small files are unchanged by dense masks: the three
    // state sections, packed edges and the three token class sections (here the class of
    // every token id, no index, and the class words with their offsets).
    let a = TokenAutomaton::from_parts(AutomatonParts {
        vocab_fingerprint: 1,
        ..figure5_parts()
    })
    .unwrap();
    assert_eq!(a.as_words()[15], 7, "number of sections");
    assert_eq!(a.num_dense_masks(), 0);
    assert_eq!(a.dense_mask(0), None);
}

// ---------------------------------------------------------------------------------------
// Corruption.

/// Five states over 1000 tokens (masks of 32 words; 64 tokens make a state dense):
/// 0 and 2 share their 100 tokens (one mask), 1 accepts with 70 tokens, 3 has 70 tokens
/// and does not accept, 4 has two edges (sparse). EOS is 999.
fn fixture() -> TokenAutomaton {
    let block = |from: u32, n: u32, to: u32| (from..from + n).map(|t| (t, to)).collect();
    TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 1000,
        vocab_fingerprint: 7,
        eos_ids: vec![999],
        start: 0,
        accepting: vec![false, true, false, false, true],
        edges: vec![
            block(0, 100, 1),
            block(200, 70, 2),
            block(0, 100, 3),
            block(300, 70, 4),
            vec![(5, 0), (6, 1)],
        ],
        terminals: Vec::new(),
    })
    .unwrap()
}

/// Applies `edit`, forges the checksum, and returns the load error.
fn damaged(edit: impl Fn(&mut Vec<u32>)) -> fstc_core::format::FormatError {
    let mut words = fixture().as_words().to_vec();
    edit(&mut words);
    forge_checksum(&mut words);
    TokenAutomaton::from_words(words).unwrap_err()
}

fn flip(words: &mut [u32], mask: usize, token: u32) {
    let (table, _) = section(words, SECTION_DENSE_MASKS);
    words[table + mask * 32 + (token / 32) as usize] ^= 1 << (token % 32);
}

#[test]
fn the_fixture_has_the_masks_the_corruption_tests_assume() {
    let a = fixture();
    assert_eq!(a.num_dense_masks(), 3);
    let words = a.as_words();
    let (index, len) = section(words, SECTION_STATE_MASK_INDEX);
    assert_eq!(&words[index..index + len], &[0, 1, 0, 2, NO_DENSE_MASK]);
    assert_eq!(section(words, SECTION_DENSE_MASKS).1, 3 * 32);
}

#[test]
fn a_flipped_mask_bit_is_an_error_naming_the_state() {
    type Case = (
        Box<dyn Fn(&mut Vec<u32>)>,
        FormatErrorKind,
        &'static [&'static str],
    );
    let cases: Vec<Case> = vec![
        // An edge token's bit cleared.
        (
            Box::new(|w| flip(w, 0, 42)),
            FormatErrorKind::DenseMask,
            &["state 0", "token 42", "edge"],
        ),
        // A token that is no edge allowed: fill_mask would allow what consume refuses.
        (
            Box::new(|w| flip(w, 2, 500)),
            FormatErrorKind::DenseMask,
            &["state 3", "token 500", "not an edge"],
        ),
        // EOS in a non-accepting state.
        (
            Box::new(|w| flip(w, 2, 999)),
            FormatErrorKind::DenseMask,
            &["state 3", "EOS id 999", "does not accept"],
        ),
        // EOS missing from an accepting state.
        (
            Box::new(|w| flip(w, 1, 999)),
            FormatErrorKind::DenseMask,
            &["state 1", "token 999", "EOS"],
        ),
        // A padding bit past vocab_size.
        (
            Box::new(|w| flip(w, 1, 1010)),
            FormatErrorKind::DenseMask,
            &["state 1", "padding bit 1010"],
        ),
        // A state pointed at another (existing) mask.
        (
            Box::new(|w| {
                let (index, _) = section(w, SECTION_STATE_MASK_INDEX);
                w[index + 3] = 1;
            }),
            FormatErrorKind::DenseMask,
            &["state 3", "mask 1"],
        ),
        // A mask index past the table.
        (
            Box::new(|w| {
                let (index, _) = section(w, SECTION_STATE_MASK_INDEX);
                w[index + 1] = 7;
            }),
            FormatErrorKind::DenseMask,
            &["state 1", "mask 7"],
        ),
        // Masks not numbered by first use.
        (
            Box::new(|w| {
                let (index, _) = section(w, SECTION_STATE_MASK_INDEX);
                w[index..index + 4].copy_from_slice(&[1, 0, 1, 2]);
            }),
            FormatErrorKind::DenseMask,
            &["state 0", "out of order"],
        ),
        // The state whose mask was first used drops it: mask 1 is then unused.
        (
            Box::new(|w| {
                let (index, _) = section(w, SECTION_STATE_MASK_INDEX);
                w[index + 1] = NO_DENSE_MASK;
            }),
            FormatErrorKind::DenseMask,
            &["state 3", "mask 2"],
        ),
        // State 2 shares state 0's mask; its edge for class 2 (token 6) moves to class 3
        // (tokens 200..270, outside the mask). Edges are packed `class << 16 | target`.
        // The first wrong bit is then token 6, in the mask but no longer an edge.
        (
            Box::new(|w| {
                let (edges, _) = section(w, 9);
                let (offsets, _) = section(w, 2);
                let begin = w[offsets + 2] as usize;
                assert_eq!(w[edges + begin + 2], 2 << 16 | 3);
                w[edges + begin + 2] = 3 << 16 | 3;
                w[11] += 69; // the header's token edge count follows
            }),
            FormatErrorKind::DenseMask,
            &["state 2", "token 6", "not an edge"],
        ),
        // One of the two mask sections dropped from the table.
        (
            Box::new(|w| w[15] -= 1),
            FormatErrorKind::SectionTable,
            &["only one of", "dense masks", "state mask index"],
        ),
        // Mask table length not a whole number of masks.
        (
            Box::new(|w| {
                let at = (16..16 + 3 * w[15] as usize)
                    .step_by(3)
                    .find(|&at| w[at] == SECTION_DENSE_MASKS)
                    .unwrap();
                w[at + 2] -= 1;
            }),
            FormatErrorKind::DenseMask,
            &["not a positive multiple", "32 words"],
        ),
        // Mask index length not the number of states.
        (
            Box::new(|w| {
                let at = (16..16 + 3 * w[15] as usize)
                    .step_by(3)
                    .find(|&at| w[at] == SECTION_STATE_MASK_INDEX)
                    .unwrap();
                w[at + 2] -= 1;
            }),
            FormatErrorKind::Counts,
            &["state mask index", "5 states"],
        ),
    ];
    for (i, (edit, kind, needles)) in cases.into_iter().enumerate() {
        let e = damaged(edit);
        assert_eq!(e.kind(), kind, "case {i}: {e}");
        for needle in needles {
            assert!(
                e.to_string().contains(needle),
                "case {i}: {e} lacks {needle:?}"
            );
        }
    }
}

#[test]
fn an_unforged_mask_flip_fails_the_checksum() {
    let mut words = fixture().as_words().to_vec();
    flip(&mut words, 0, 3);
    let e = TokenAutomaton::from_words(words).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Checksum);
}

#[test]
fn random_damage_to_mask_sections_is_caught_or_harmless() {
    // Every changed mask word changes a state's allowed set, so it must be rejected;
    // a changed index word may be harmless (a state dropping a mask another state still
    // uses), and then the walker must still agree with the edges.
    let a = fixture();
    let (table, table_len) = section(a.as_words(), SECTION_DENSE_MASKS);
    let (index, index_len) = section(a.as_words(), SECTION_STATE_MASK_INDEX);
    let mut rng = SplitMix64::new(11);
    let mut harmless = 0;
    for round in 0..3000 {
        let mut words = a.as_words().to_vec();
        let in_table = round % 2 == 0;
        let i = if in_table {
            table + rng.below(table_len as u64) as usize
        } else {
            index + rng.below(index_len as u64) as usize
        };
        let old = words[i];
        words[i] = match rng.below(4) {
            0 => old ^ (1 << rng.below(32)),
            1 => rng.next_u64() as u32,
            2 => rng.below(4) as u32,
            _ => u32::MAX,
        };
        if words[i] == old {
            continue;
        }
        forge_checksum(&mut words);
        match TokenAutomaton::from_words(words) {
            Err(e) => assert!(!e.to_string().is_empty()),
            Ok(loaded) => {
                assert!(!in_table, "round {round}: mask word {i} changed unnoticed");
                harmless += 1;
                for s in 0..loaded.num_states() {
                    if let Some(mask) = loaded.dense_mask(s) {
                        assert_eq!(mask, edge_mask(&loaded, s, 32));
                    }
                }
            }
        }
    }
    assert!(harmless < 1500, "{harmless} index changes accepted");
}

#[test]
fn real_vocabulary_wildcards_get_dense_masks() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vocabs");
    let path = dir.join("gpt2/encoder.json");
    if !path.exists() {
        eprintln!("skipping: {} not found", path.display());
        return;
    }
    let vocab = fstc_detok::Vocabulary::from_file(&path).unwrap();
    let a = fstc_regex::RegexCompiler::new()
        .compile(r#""([^"\\]|\\.)*""#, &vocab)
        .unwrap();
    let width = (a.vocab_size() as usize).div_ceil(32);
    let wildcard = (0..a.num_states())
        .max_by_key(|&s| a.num_token_edges(s))
        .unwrap();
    assert!(a.num_token_edges(wildcard) > 10_000);
    assert!(a.dense_mask(wildcard).is_some());
    for s in 0..a.num_states() {
        if let Some(mask) = a.dense_mask(s) {
            assert_eq!(mask, edge_mask(&a, s, width), "state {s}");
        }
    }
    let loaded = TokenAutomaton::from_bytes_copied(&a.to_bytes()).unwrap();
    assert_eq!(loaded, a);
}
