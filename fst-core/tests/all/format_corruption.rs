//! Damaged files give errors, never panics: every truncation, thousands of bit flips and
//! word overwrites, and structural damage behind a recomputed (forged) checksum, which is
//! what a buggy writer produces and what validation must catch on its own.

use fstc_core::automaton::{AutomatonParts, Terminal, TokenAutomaton};
use fstc_core::format::{FormatError, FormatErrorKind};
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::token_pda::TokenPda;
use fstc_core::walker::Walker;
use fstc_core::AnyAutomaton;
use testkit::file::{fnv_words, forge_checksum, load_forged};
use testkit::paper::figure5_parts;

/// A "real" file: a random automaton with 40 states over 300 tokens, two EOS ids and two
/// terminal labels that some states have edges on.
fn real_automaton() -> TokenAutomaton {
    let mut rng = SplitMix64::new(99);
    let states = 40u32;
    let mut edges = Vec::new();
    for s in 0..states {
        let mut list: Vec<(u32, u32)> = Vec::new();
        for _ in 0..rng.below(9) {
            let t = rng.below(298) as u32;
            if list.iter().all(|&(u, _)| u != t) {
                list.push((t, rng.below(u64::from(states)) as u32));
            }
        }
        // Terminal k is label 300 + k.
        if s % 4 == 1 {
            list.push((300, rng.below(u64::from(states)) as u32));
        }
        if s % 5 == 2 {
            list.push((301, rng.below(u64::from(states)) as u32));
        }
        edges.push(list);
    }
    let mask = |keep: &dyn Fn(u32) -> bool| {
        let mut m = vec![0u32; 300usize.div_ceil(32)];
        for t in (0..298).filter(|&t| keep(t)) {
            m[(t / 32) as usize] |= 1 << (t % 32);
        }
        m
    };
    TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 300,
        vocab_fingerprint: 0xfeed_beef_0000_0001,
        eos_ids: vec![298, 299],
        start: 0,
        accepting: (0..states).map(|s| s % 3 == 0).collect(),
        edges,
        terminals: vec![
            Terminal {
                name: "EVEN".into(),
                mask: mask(&|t| t % 2 == 0 && t < 200),
            },
            Terminal {
                name: "LOW_ÅÄÖ".into(),
                mask: mask(&|t| t < 100),
            },
        ],
    })
    .unwrap()
}

/// Uses everything a decoder would, to show a loaded automaton is safe to use.
fn exercise<W: AsRef<[u32]>>(a: &TokenAutomaton<W>) {
    // Damage can leave a valid file with a huge vocab_size; don't allocate its mask.
    let width = (a.vocab_size() as usize).div_ceil(32) + 1;
    let mut mask = vec![0u32; width.min(1 << 12)];
    let _ = a.to_parts();
    for s in 0..a.num_states() {
        for (t, target) in a.token_edges(s) {
            assert_eq!(a.next_state(s, t), Some(target));
        }
        for (k, _) in a.terminal_edges(s) {
            let _ = (
                a.terminal_name(k),
                a.terminal_mask(k),
                a.terminal_witness(s, k),
            );
        }
    }
    let mut rng = SplitMix64::new(5);
    for _ in 0..5 {
        let walk = random_walk(a, &mut rng, 50);
        let mut w = Walker::new(a);
        for &t in &walk.tokens {
            if width <= mask.len() {
                w.fill_mask(&mut mask).unwrap();
                assert!(mask[(t / 32) as usize] & (1 << (t % 32)) != 0);
            } else {
                assert!(w.fill_mask(&mut mask).is_err());
            }
            assert!(w.is_allowed(t));
            w.consume(t).unwrap();
        }
        let _ = w.forced_tokens();
    }
}

#[test]
fn the_checksum_is_the_documented_one() {
    let a = real_automaton();
    let words = a.as_words();
    let n = words.len() - 2;
    let h = fnv_words(&words[..n]);
    assert_eq!(words[n..], [h as u32, (h >> 32) as u32]);
}

/// A kind's loader (`from_bytes_copied`, or `from_bytes` on aligned bytes), as the damage
/// tests call it.
type Loader = fn(&[u8]) -> Result<(), FormatError>;

/// The file of each kind with its loaders, and the PDA's again through `AnyAutomaton`: what
/// every truncation and every bit flip is tried on.
fn damage_subjects() -> [(Vec<u8>, Loader, Loader); 3] {
    let pda = crate::pda_runtime::corruption_subject().to_bytes();
    [
        (
            real_automaton().to_bytes(),
            |b| TokenAutomaton::from_bytes_copied(b).map(drop),
            |b| TokenAutomaton::from_bytes(b).map(drop),
        ),
        (
            pda.clone(),
            |b| TokenPda::from_bytes_copied(b).map(drop),
            |b| TokenPda::from_bytes(b).map(drop),
        ),
        (
            pda,
            |b| AnyAutomaton::from_bytes_copied(b).map(drop),
            |b| AnyAutomaton::from_bytes(b).map(drop),
        ),
    ]
}

#[test]
fn every_truncation_is_an_error() {
    for (bytes, copied, borrowed) in damage_subjects() {
        testkit::file::assert_truncations_refused(&bytes, copied, borrowed);
    }
}

#[test]
fn every_single_bit_flip_is_detected() {
    // Each FNV step is a bijection of the running hash, so one damaged word always changes
    // the checksum: every flip must be an error, not merely a non-panic.
    for (bytes, copied, _) in damage_subjects() {
        for (bit, damaged) in testkit::file::bit_flips(&bytes) {
            assert!(
                copied(&damaged).is_err(),
                "flip of bit {bit} went unnoticed"
            );
        }
    }
}

#[test]
fn random_word_overwrites_are_detected() {
    let a = real_automaton();
    let mut rng = SplitMix64::new(2024);
    for _ in 0..5000 {
        let mut words = a.as_words().to_vec();
        let i = rng.below(words.len() as u64) as usize;
        let old = words[i];
        words[i] = match rng.below(4) {
            0 => rng.next_u64() as u32,
            1 => old.wrapping_add(1),
            2 => old.wrapping_sub(1),
            _ => u32::MAX,
        };
        if words[i] == old {
            continue;
        }
        assert!(TokenAutomaton::from_words(words).is_err(), "word {i}");
    }
}

#[test]
fn damage_behind_a_forged_checksum_never_panics() {
    // A writer bug, not a disk error: the checksum matches, so the structure checks alone
    // stand between the damage and the decoder.
    let a = real_automaton();
    let mut rng = SplitMix64::new(7);
    let (mut ok, mut rejected) = (0, 0);
    for round in 0..20_000 {
        let mut words = a.as_words().to_vec();
        let body = words.len() - 2;
        for _ in 0..1 + rng.below(3) {
            // Bias towards the header and table, where counts and offsets live.
            let i = if rng.below(2) == 0 {
                rng.below(40.min(body as u64)) as usize
            } else {
                rng.below(body as u64) as usize
            };
            words[i] = match rng.below(5) {
                0 => rng.next_u64() as u32,
                1 => words[i].wrapping_add(1),
                2 => words[i].wrapping_sub(1),
                3 => rng.below(400) as u32,
                _ => u32::MAX,
            };
        }
        if load_forged(words, round, TokenAutomaton::from_words, exercise) {
            ok += 1;
        } else {
            rejected += 1;
        }
    }
    // Some damage is harmless (a target moved to another valid state), most is not.
    eprintln!("forged-checksum damage: {rejected} rejected, {ok} harmless");
    assert!(rejected > ok, "rejected {rejected}, accepted {ok}");
}

/// Applies `edit` to the words of the Figure 5 file, forges the checksum, and returns the error.
fn structural_error(edit: impl Fn(&mut Vec<u32>)) -> fstc_core::format::FormatError {
    let a = TokenAutomaton::from_parts(AutomatonParts {
        vocab_fingerprint: 1,
        ..figure5_parts()
    })
    .unwrap();
    let mut words = a.as_words().to_vec();
    edit(&mut words);
    forge_checksum(&mut words);
    TokenAutomaton::from_words(words).unwrap_err()
}

/// A damage to apply, the error kind it must give, and a phrase its message must contain.
type Case = (Box<dyn Fn(&mut Vec<u32>)>, FormatErrorKind, &'static str);

#[test]
fn structural_damage_is_named() {
    // Layout of this file (four one-token classes, token 3 in none, packed 16-bit edges):
    // header 0..16, table 16..37 (EOS, offsets, flags, packed edges, token classes, class
    // word offsets, class words), EOS 37, offsets 38..42, flags 42 (a bit per state),
    // edges 43..47, then the class sections.
    let section = |w: &Vec<u32>, id: u32| -> usize { testkit::file::section(w, id).0 };
    let cases: Vec<Case> = vec![
        (
            Box::new(|w| w[9] = 3),
            FormatErrorKind::StartState,
            "start state 3",
        ),
        (
            Box::new(|w| w[14] = 1),
            FormatErrorKind::SectionTable,
            "must both be present exactly when there are terminals",
        ),
        (
            Box::new(|w| w[12] = 2),
            FormatErrorKind::Counts,
            "accepting",
        ),
        (
            Box::new(|w| w[10] = 4),
            FormatErrorKind::Counts,
            "'state offsets'",
        ),
        (
            Box::new(|w| w[15] = 1000),
            FormatErrorKind::SectionTable,
            "section table",
        ),
        (
            Box::new(|w| w[16] = 30),
            FormatErrorKind::SectionTable,
            "unknown section id 30",
        ),
        (
            Box::new(|w| w[16] = 8),
            FormatErrorKind::SectionTable,
            "reserved",
        ),
        (
            Box::new(|w| w[16] = 2),
            FormatErrorKind::SectionTable,
            "twice",
        ),
        (
            Box::new(|w| w[17] = 48),
            FormatErrorKind::SectionTable,
            "overlap",
        ),
        (
            Box::new(|w| w[17] = 3),
            FormatErrorKind::SectionTable,
            "outside",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 2);
                w[o + 1] = 5
            }),
            FormatErrorKind::StateOffsets,
            "state offsets",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 2);
                w[o] = 1
            }),
            FormatErrorKind::StateOffsets,
            "must be 0",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 3);
                w[o] |= 1 << 5
            }),
            FormatErrorKind::StateFlags,
            "bits past the last state",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 9);
                w[o] = 6 << 16 | 1
            }),
            FormatErrorKind::EdgeLabel,
            "label 6 is neither one of the 4 token classes",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 9);
                w[o + 1] = 0
            }),
            FormatErrorKind::EdgeLabel,
            "not strictly increasing",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 9);
                w[o + 3] = 1 << 16 | 3
            }),
            FormatErrorKind::EdgeTarget,
            "target 3",
        ),
        (
            Box::new(move |w| {
                // Token 5 (EOS) is the upper half of word 2.
                let o = section(w, 13);
                w[o + 2] &= 0xffff
            }),
            FormatErrorKind::TokenClasses,
            "EOS id 5 is given class 0",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 14);
                w[o + 1] = 0
            }),
            FormatErrorKind::TokenClasses,
            "no empty entry",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 13);
                w[o] = (w[o] & 0xffff_0000) | 9
            }),
            FormatErrorKind::TokenClasses,
            "token 0 is given class 9, but there are 4 classes",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 13);
                w[o] = (w[o] & 0xffff_0000) | 1
            }),
            FormatErrorKind::TokenClasses,
            "token 0 is set, but the token classes give it class 1",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 15);
                w[o + 1] ^= 1 << 3
            }),
            FormatErrorKind::TokenClasses,
            "token 3 is set, but the token classes give it none",
        ),
        (
            Box::new(move |w| {
                // Token 3 (no edges, no class) is the upper half of word 1.
                let o = section(w, 13);
                w[o + 1] &= 0xffff
            }),
            FormatErrorKind::TokenClasses,
            "1 tokens are set, but the token classes give 2 tokens this class",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 15);
                w[o + 2] = 7
            }),
            FormatErrorKind::TokenClasses,
            "word indices increase strictly, stay below 1",
        ),
        (
            Box::new(|w| w[11] = 99),
            FormatErrorKind::Counts,
            "stand for 4",
        ),
        (
            Box::new(move |w| {
                let o = section(w, 1);
                w[o] = 6
            }),
            FormatErrorKind::EosIds,
            "EOS id 6",
        ),
    ];
    for (i, (edit, kind, needle)) in cases.into_iter().enumerate() {
        let e = structural_error(edit);
        assert_eq!(e.kind(), kind, "case {i}: {e}");
        assert!(
            e.to_string().contains(needle),
            "case {i}: {e:?} lacks {needle:?}"
        );
    }
}

#[test]
fn sparse_token_index_damage_is_named() {
    // Two tokens with a class out of 100 ids: the file lists them in a token index
    // (section 12) with a class per entry (section 13) instead of a class per token id.
    let a = TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 100,
        vocab_fingerprint: 1,
        eos_ids: vec![99],
        start: 0,
        accepting: vec![false, true],
        edges: vec![vec![(3, 1), (40, 1)], vec![]],
        terminals: Vec::new(),
    })
    .unwrap();
    assert_eq!(a.token_class(40), Some(0));
    assert_eq!(a.token_class(41), None);
    let words = a.as_words().to_vec();
    assert_eq!(testkit::file::section(&words, 12).1, 2, "the index is used");
    assert_eq!(
        testkit::file::section(&words, 13).1,
        1,
        "two 16-bit entries"
    );
    let cases: Vec<Case> = vec![
        (
            Box::new(|w| {
                let o = testkit::file::section(w, 12).0;
                w[o + 1] = 3
            }),
            FormatErrorKind::TokenClasses,
            "not strictly increasing (3 then 3)",
        ),
        (
            Box::new(|w| {
                let o = testkit::file::section(w, 12).0;
                w[o + 1] = 120
            }),
            FormatErrorKind::TokenClasses,
            "token 120 is not below vocab_size 100",
        ),
        (
            Box::new(|w| {
                let o = testkit::file::section(w, 12).0;
                w[o + 1] = 99
            }),
            FormatErrorKind::TokenClasses,
            "EOS id 99 is given class 0",
        ),
        (
            Box::new(|w| {
                let o = testkit::file::section(w, 13).0;
                w[o] |= 0xffff
            }),
            FormatErrorKind::TokenClasses,
            "token 3 is in the token index but given no class",
        ),
        (
            Box::new(|w| {
                let o = testkit::file::section(w, 12).0;
                w[o + 1] = 41
            }),
            FormatErrorKind::TokenClasses,
            "token 40 is set, but the token classes give it none",
        ),
    ];
    for (i, (edit, kind, needle)) in cases.into_iter().enumerate() {
        let mut w = words.clone();
        edit(&mut w);
        forge_checksum(&mut w);
        let e = TokenAutomaton::from_words(w).unwrap_err();
        assert_eq!(e.kind(), kind, "case {i}: {e}");
        assert!(
            e.to_string().contains(needle),
            "case {i}: {e:?} lacks {needle:?}"
        );
    }
}

/// A header that claims more token ids than any vocabulary has is refused before anything
/// is sized by it (a walker would otherwise fill masks of billions of bits), in FSA and
/// PDA files alike; parts over the bound never reach the writer.
#[test]
fn vocabulary_sizes_past_the_bound_are_refused() {
    use fstc_core::vocab::MAX_VOCAB_SIZE;
    let fsa = real_automaton().as_words().to_vec();
    let pda = TokenPda::from_parts(testkit::paper::figure7_pda_parts())
        .unwrap()
        .as_words()
        .to_vec();
    for words in [fsa, pda] {
        for claimed in [MAX_VOCAB_SIZE + 1, 1 << 31, u32::MAX] {
            let mut w = words.clone();
            w[6] = claimed;
            forge_checksum(&mut w);
            let e = AnyAutomaton::from_words(w).unwrap_err();
            assert_eq!(e.kind(), FormatErrorKind::Counts, "{e}");
            assert!(e.to_string().contains("vocab_size"), "{e}");
        }
    }
    let parts = AutomatonParts {
        vocab_size: MAX_VOCAB_SIZE + 1,
        ..figure5_parts()
    };
    let e = TokenAutomaton::from_parts(parts).unwrap_err();
    assert!(e.to_string().contains("vocab_size"), "{e}");
}
