//! Automata survive parts -> words -> bytes -> (zero-copy | copied) load unchanged, and
//! every way a buffer can be unusable before its content is even read gives a clear error.

use fstc_core::automaton::{AutomatonKind, AutomatonParts, TokenAutomaton};
use fstc_core::format::FormatErrorKind;
use fstc_core::parts::PartsErrorKind;
use fstc_core::sample::SplitMix64;
use fstc_core::walker::Walker;
use testkit::paper::figure5_parts;

/// The paper's Figure 5: /(foo)+d/ over the vocabulary f, oo, foo, for, food (+ EOS 5),
/// minimized: 0 = expecting a "foo" (start), 1 = after "f", 2 = after "d" (accepting).
fn figure5() -> AutomatonParts {
    let mut parts = AutomatonParts {
        vocab_fingerprint: 0x1234_5678_9abc_def0,
        ..figure5_parts()
    };
    // Deliberately unsorted: from_parts sorts.
    parts.edges[0].rotate_right(1);
    parts
}

/// A random deterministic automaton; edges come out unsorted.
fn random_parts(seed: u64, states: u32, vocab: u32, max_out: u32) -> AutomatonParts {
    let mut rng = SplitMix64::new(seed);
    let eos = vocab - 1 - rng.below(2) as u32;
    let mut edges = Vec::new();
    let mut accepting = Vec::new();
    for _ in 0..states {
        accepting.push(rng.below(3) == 0);
        let out = rng.below(u64::from(max_out) + 1) as u32;
        let mut used = std::collections::HashSet::new();
        let mut list = Vec::new();
        for _ in 0..out {
            let t = rng.below(u64::from(vocab - 2)) as u32;
            if used.insert(t) {
                list.push((t, rng.below(u64::from(states)) as u32));
            }
        }
        edges.push(list);
    }
    AutomatonParts {
        vocab_size: vocab,
        vocab_fingerprint: rng.next_u64(),
        eos_ids: vec![eos, eos],
        start: rng.below(u64::from(states)) as u32,
        accepting,
        edges,
        terminals: Vec::new(),
    }
}

fn normalized(mut parts: AutomatonParts) -> AutomatonParts {
    for list in &mut parts.edges {
        list.sort();
    }
    parts.eos_ids.sort();
    parts.eos_ids.dedup();
    parts
}

/// Every state's mask, computed from the accessors.
fn all_masks<W: AsRef<[u32]>>(a: &TokenAutomaton<W>) -> Vec<Vec<u32>> {
    let words = (a.vocab_size() as usize).div_ceil(32);
    (0..a.num_states())
        .map(|s| {
            let mut mask = vec![0u32; words];
            for (t, _) in a.token_edges(s) {
                mask[(t / 32) as usize] |= 1 << (t % 32);
            }
            if a.is_accepting(s) {
                for &e in a.eos_ids() {
                    mask[(e / 32) as usize] |= 1 << (e % 32);
                }
            }
            mask
        })
        .collect()
}

/// A copy of the words: a `Vec<u32>` is 4-byte aligned, so its bytes load zero-copy.
fn aligned_bytes(words: &[u32]) -> Vec<u32> {
    words.to_vec()
}

#[test]
fn figure5_round_trips_through_both_loaders() {
    let owned = TokenAutomaton::from_parts(figure5()).unwrap();
    assert_eq!(owned.num_states(), 3);
    assert_eq!(owned.num_edges(), 4);
    assert_eq!(owned.num_accepting(), 1);
    assert_eq!(owned.kind(), AutomatonKind::TokenFsa);
    assert_eq!(owned.num_terminals(), 0);
    assert_eq!(owned.token_edges(0), [(0, 1), (2, 0), (4, 2)]);
    assert_eq!(owned.next_state(0, 2), Some(0));
    assert_eq!(owned.next_state(0, 3), None);
    assert_eq!(owned.next_state(2, 5), None, "EOS is not an edge");
    assert_eq!(
        owned.next_state(99, 0),
        None,
        "out-of-range state has no edges"
    );
    assert!(!owned.is_accepting(99));
    assert!(owned.token_edges(99).is_empty());
    assert!(owned.is_eos(5) && !owned.is_eos(4));
    assert_eq!(owned.vocab_fingerprint(), 0x1234_5678_9abc_def0);

    let bytes = owned.to_bytes();
    assert_eq!(&bytes[..8], b"fstcTA\0\0");
    assert_eq!(bytes.len(), owned.memory_bytes());
    let words = aligned_bytes(owned.as_words());
    let borrowed = TokenAutomaton::from_bytes(bytemuck::cast_slice(&words)).unwrap();
    assert_eq!(
        borrowed.as_words().as_ptr(),
        words.as_ptr(),
        "from_bytes borrows, it does not copy"
    );
    let copied = TokenAutomaton::from_bytes_copied(&bytes).unwrap();
    assert_eq!(borrowed, owned);
    assert_eq!(copied, owned);
    assert_eq!(borrowed.to_parts(), normalized(figure5()));
    assert_eq!(copied.to_parts(), normalized(figure5()));
    assert_eq!(all_masks(&borrowed), all_masks(&owned));
    assert_eq!(all_masks(&copied), all_masks(&owned));
    assert_eq!(borrowed.into_owned(), owned);
}

#[test]
fn random_automata_round_trip_with_identical_walks() {
    for seed in 0..40 {
        let parts = random_parts(seed, 1 + (seed as u32 * 7) % 60, 70 + seed as u32, 12);
        let owned = TokenAutomaton::from_parts(parts.clone()).unwrap();
        assert_eq!(owned.to_parts(), normalized(parts.clone()), "seed {seed}");
        let words = aligned_bytes(owned.as_words());
        let borrowed = TokenAutomaton::from_bytes(bytemuck::cast_slice(&words)).unwrap();
        let copied = TokenAutomaton::from_bytes_copied(&owned.to_bytes()).unwrap();
        assert_eq!(borrowed.to_parts(), owned.to_parts());
        assert_eq!(copied.to_parts(), owned.to_parts());
        assert_eq!(all_masks(&borrowed), all_masks(&owned));
        // The walker sees the same masks along a random path in all three.
        let mut rng = SplitMix64::new(seed);
        let cloned = owned.clone();
        let mut walkers = [
            Walker::new(&owned),
            Walker::new(&copied),
            Walker::new(&cloned),
        ];
        let mut wb = Walker::new(&borrowed);
        let width = (owned.vocab_size() as usize).div_ceil(32) + 1;
        for _ in 0..30 {
            let mut masks = Vec::new();
            for w in &walkers {
                let mut m = vec![u32::MAX; width];
                w.fill_mask(&mut m).unwrap();
                masks.push(m);
            }
            let mut mb = vec![u32::MAX; width];
            wb.fill_mask(&mut mb).unwrap();
            assert!(masks.iter().all(|m| *m == mb));
            let tokens: Vec<u32> = owned.token_edges(wb.state()).iter().map(|e| e.0).collect();
            if tokens.is_empty() {
                break;
            }
            let t = tokens[rng.below(tokens.len() as u64) as usize];
            for w in &mut walkers {
                w.consume(t).unwrap();
            }
            wb.consume(t).unwrap();
        }
    }
}

/// A damage to apply, the error kind it must give, and a phrase its message must contain.
type Case = (
    Box<dyn Fn(&mut AutomatonParts)>,
    PartsErrorKind,
    &'static str,
);

#[test]
fn from_parts_rejects_what_is_not_an_automaton() {
    let cases: Vec<Case> = vec![
        (
            Box::new(|p| p.start = 3),
            PartsErrorKind::StartState,
            "start state 3",
        ),
        (
            Box::new(|p| p.accepting.pop().map(|_| ()).unwrap()),
            PartsErrorKind::Counts,
            "edge lists",
        ),
        (
            Box::new(|p| p.edges[1].push((6, 0))),
            PartsErrorKind::EdgeLabel,
            "token 6 is not below vocab_size 6",
        ),
        (
            Box::new(|p| p.edges[1].push((3, 7))),
            PartsErrorKind::EdgeTarget,
            "goes to state 7",
        ),
        (
            Box::new(|p| p.edges[0].push((2, 1))),
            PartsErrorKind::EdgeLabel,
            "two edges with token 2",
        ),
        (
            Box::new(|p| p.edges[2].push((5, 0))),
            PartsErrorKind::EdgeLabel,
            "EOS id 5 labels an edge",
        ),
        (
            Box::new(|p| p.eos_ids.push(6)),
            PartsErrorKind::EosIds,
            "EOS id 6",
        ),
        (
            Box::new(|p| {
                p.accepting.clear();
                p.edges.clear();
                p.start = 0;
            }),
            PartsErrorKind::StartState,
            "only 0 states",
        ),
    ];
    for (mutate, kind, needle) in cases {
        let mut parts = figure5();
        mutate(&mut parts);
        let e = TokenAutomaton::from_parts(parts).unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.to_string().contains(needle), "{e:?} lacks {needle:?}");
    }
}

#[test]
fn misaligned_buffer_is_an_error_that_points_to_from_bytes_copied() {
    let a = TokenAutomaton::from_parts(figure5()).unwrap();
    let bytes = a.to_bytes();
    // A u32 buffer one word longer, so any byte offset 0..4 fits.
    let mut backing = vec![0u32; a.as_words().len() + 1];
    let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut backing);
    let start = 1; // backing is 4-aligned, so offset 1 is not
    raw[start..start + bytes.len()].copy_from_slice(&bytes);
    let slice = &raw[start..start + bytes.len()];
    let e = TokenAutomaton::from_bytes(slice).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Misaligned);
    assert!(e.to_string().contains("from_bytes_copied"), "{e}");
    assert_eq!(TokenAutomaton::from_bytes_copied(slice).unwrap(), a);
}

#[test]
fn byte_swapped_file_says_so() {
    let a = TokenAutomaton::from_parts(figure5()).unwrap();
    let swapped: Vec<u8> = a.as_words().iter().flat_map(|w| w.to_be_bytes()).collect();
    for e in [
        TokenAutomaton::from_bytes_copied(&swapped).unwrap_err(),
        TokenAutomaton::from_bytes(bytemuck::cast_slice(
            &a.as_words()
                .iter()
                .map(|w| w.swap_bytes())
                .collect::<Vec<_>>(),
        ))
        .unwrap_err(),
    ] {
        assert_eq!(e.kind(), FormatErrorKind::ByteOrder);
        assert!(e.to_string().contains("byte-swapped"), "{e}");
    }
    // Magic intact but the marker swapped (a writer that got only the words wrong).
    let mut words = a.as_words().to_vec();
    words[2] = words[2].swap_bytes();
    let e = TokenAutomaton::from_words(words).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::ByteOrder);
    assert!(e.to_string().contains("word 2"), "{e}");
}

#[test]
fn newer_version_and_reserved_kind_are_named() {
    let a = TokenAutomaton::from_parts(figure5()).unwrap();
    let mut words = a.as_words().to_vec();
    words[3] = fstc_core::format::FORMAT_VERSION + 1;
    let e = TokenAutomaton::from_words(words.clone()).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Version);
    assert!(e.to_string().contains("newer fstc"), "{e}");
    words[3] = 1;
    let e = TokenAutomaton::from_words(words.clone()).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Version);
    assert!(e.to_string().contains("recompile"), "{e}");
    words[3] = 0;
    assert_eq!(
        TokenAutomaton::from_words(words).unwrap_err().kind(),
        FormatErrorKind::Version
    );

    let mut words = a.as_words().to_vec();
    words[4] = 1;
    let e = TokenAutomaton::from_words(words).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Kind);
    assert!(e.to_string().contains("token PDA"), "{e}");
}

#[test]
fn wrong_lengths_and_foreign_data() {
    let a = TokenAutomaton::from_parts(figure5()).unwrap();
    let bytes = a.to_bytes();
    let e = TokenAutomaton::from_bytes_copied(b"").unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::NotAnAutomaton);
    let e = TokenAutomaton::from_bytes_copied(b"{\"json\": true}").unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::NotAnAutomaton);
    assert!(e.to_string().contains("not an fstc token automaton"), "{e}");

    let e = TokenAutomaton::from_bytes_copied(&bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Length);
    assert!(e.to_string().contains("whole number"), "{e}");
    let e = TokenAutomaton::from_bytes_copied(&bytes[..bytes.len() - 4]).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Length);
    assert!(e.to_string().contains("truncated"), "{e}");
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 4]);
    let e = TokenAutomaton::from_bytes_copied(&longer).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Length);
    assert!(e.to_string().contains("trailing"), "{e}");
}

#[test]
fn files_round_trip_and_io_errors_name_the_path() {
    let dir = std::env::temp_dir().join(format!("fstc-format-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fig5.fsta");
    let a = TokenAutomaton::from_parts(figure5()).unwrap();
    a.write_file(&path).unwrap();
    assert_eq!(TokenAutomaton::read_file(&path).unwrap(), a);

    let missing = dir.join("missing.fsta");
    let e = TokenAutomaton::read_file(&missing).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Io);
    assert!(e.to_string().contains("missing.fsta"), "{e}");
    assert_eq!(e.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);

    std::fs::write(&path, &a.to_bytes()[..20]).unwrap();
    let e = TokenAutomaton::read_file(&path).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Length);
    assert!(e.to_string().contains("fig5.fsta"), "{e}");

    let e = a.write_file(dir.join("no/such/dir/x.fsta")).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Io);
    assert!(e.to_string().contains("x.fsta"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn empty_language_and_empty_vocabulary_are_representable() {
    // One non-accepting state, no edges: nothing is ever allowed.
    let parts = AutomatonParts {
        vocab_size: 0,
        vocab_fingerprint: 0,
        eos_ids: vec![],
        start: 0,
        accepting: vec![false],
        edges: vec![vec![]],
        terminals: Vec::new(),
    };
    let a = TokenAutomaton::from_parts(parts.clone()).unwrap();
    let b = TokenAutomaton::from_bytes_copied(&a.to_bytes()).unwrap();
    assert_eq!(b.to_parts(), parts);
    let w = Walker::new(&b);
    w.fill_mask(&mut []).unwrap();
    assert!(w.forced_tokens().is_empty());
}

/// Parts where runs of token ids share a column, so whole mask words hold one class,
/// next to ids with columns of their own: the writer lays out a uniform word in one step
/// and a mixed one token by token, in each layout of the token classes.
fn blocky_parts(vocab: u32, states: u32, used: u32) -> AutomatonParts {
    let mut edges = vec![Vec::new(); states as usize];
    // State 0 loops on the block 0..used/2 (whole words of one class) and, per id of
    // the next block, goes to its own state (a class per id; mixed words where blocks meet).
    edges[0].extend((0..used / 2).map(|t| (t, 0)));
    for (i, t) in (used / 2..used).enumerate() {
        edges[0].push((t, 1 + (i as u32 % (states - 1))));
    }
    for s in 1..states {
        // A token past the block per state (many classes when many states), to the last.
        let t = used / 2 + s % (vocab - 1 - used / 2);
        edges[s as usize].push((t, states - 1));
    }
    let mut accepting = vec![false; states as usize];
    accepting[states as usize - 1] = true;
    AutomatonParts {
        vocab_size: vocab,
        vocab_fingerprint: 7,
        eos_ids: vec![vocab - 1],
        start: 0,
        accepting,
        edges,
        terminals: Vec::new(),
    }
}

#[test]
fn uniform_and_mixed_mask_words_round_trip_in_every_class_layout() {
    // (vocabulary, states, tokens used): dense 16-bit map; sparse token index (few ids
    // used); 32-bit map (more than 2^16 states and classes).
    for (vocab, states, used) in [
        (4099, 50, 3001),
        (40_000, 20, 301),
        (70_200, 70_001, 70_150),
    ] {
        let parts = blocky_parts(vocab, states, used);
        let a = TokenAutomaton::from_parts(parts.clone()).unwrap();
        assert_eq!(a.to_parts(), normalized(parts.clone()), "vocab {vocab}");
        let copied = TokenAutomaton::from_bytes_copied(&a.to_bytes()).unwrap();
        assert_eq!(copied, a);
        let width = (vocab as usize).div_ceil(32);
        for s in [0, 1, states / 2, states - 1] {
            let mut want = vec![0u32; width];
            for &(t, _) in &parts.edges[s as usize] {
                want[(t / 32) as usize] |= 1 << (t % 32);
            }
            if parts.accepting[s as usize] {
                want[((vocab - 1) / 32) as usize] |= 1 << ((vocab - 1) % 32);
            }
            let mut w = Walker::new(&a);
            for t in a
                .shortest_path_to(s)
                .expect("every checked state is reachable")
            {
                w.consume(t).unwrap();
            }
            let mut mask = vec![u32::MAX; width];
            w.fill_mask(&mut mask).unwrap();
            assert_eq!(mask, want, "vocab {vocab} state {s}");
        }
    }
}

/// FNV-1a 64 over bytes, written here so the pin below does not rest on the format's own
/// checksum code.
fn fnv_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The file bytes of the bench regexes (`benches/benches/compare/{samples,terminals}.rs`)
/// compiled for the GPT-2 fixture, pinned as (length, FNV-1a of the bytes) from the
/// writer before the format was split into a folder: restructuring must not change a
/// byte of any file.
#[test]
fn bench_regex_files_on_gpt2_are_byte_identical_to_the_pinned_writer() {
    let path = testkit::vocabs::testdata_dir().join("gpt2/encoder.json");
    let vocab = fstc_detok::Vocabulary::from_file(&path).unwrap();
    let pinned: [(&str, usize, u64); 8] = [
        (r"[^\W\d]\w*", 202668, 0xb725b7328a83d013),
        (
            r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
            16044,
            0x7a9e108ea8ae0cd8,
        ),
        (
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
            35896,
            0x813fbae70cc218c2,
        ),
        (r"Summary:(\n\* [^\n]+){3,5}", 162084, 0x524a0cf37865048e),
        (r#""([^"\\]|\\.)*""#, 128948, 0x1aa00be119059dd2),
        (
            r"Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){3,5}",
            7228,
            0x7587e9c19c126a9c,
        ),
        (r"Note: (?P<PARAGRAPH_TOKEN>)+\n", 6844, 0x58f68959e8cd47af),
        (r"Note: [^\n]+\n", 147172, 0x731340489214d509),
    ];
    let compiler = fstc_regex::RegexCompiler::new();
    let mut got = Vec::new();
    for &(pattern, _, _) in &pinned {
        let bytes = compiler.compile(pattern, &vocab).unwrap().to_bytes();
        got.push((pattern, bytes.len(), fnv_bytes(&bytes)));
    }
    assert_eq!(got, pinned);
}
