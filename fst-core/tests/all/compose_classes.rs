//! The composition groups tokens by their byte-class strings (`ByteAutomaton::byte_classes`).
//! These tests check that it builds exactly what a plain per-byte walk builds: the same
//! `ByteDfa` seen without its classes (every byte its own class) must give identical parts,
//! the same errors and the same limit decisions, on generated and real vocabularies.
#![cfg(feature = "compile")]

use fstc_core::automaton::{ClassParts, TokenAutomaton, NO_CLASS};
use fstc_core::bytes::ByteAutomaton;
use fstc_core::bytes::{ByteDfa, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::compose::{
    compose_classes_with_trie, compose_trimmed_with_trie, compose_with_trie, ComposeError,
    ComposeLimits,
};
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::ByteVocabulary;
use fstc_detok::Vocabulary;
use testkit::vocabs::{shared_vocab, testdata_dir};

/// A byte DFA that hides its byte classes, so composition walks byte by byte.
struct PerByte<'a>(&'a ByteDfa);

impl ByteAutomaton for PerByte<'_> {
    fn num_states(&self) -> usize {
        self.0.num_states()
    }
    fn start(&self) -> u32 {
        self.0.start()
    }
    fn is_accepting(&self, state: u32) -> bool {
        self.0.is_accepting(state)
    }
    fn next(&self, state: u32, byte: u8) -> Option<u32> {
        self.0.next(state, byte)
    }
}

const PATTERNS: &[&str] = &[
    r"[^\W\d]\w*",
    r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
    r"Summary:(\n\* [^\n]+){3,5}",
    r#""([^"\\]|\\.)*""#,
    r"[a-z]+( [a-z]+)*",
    r"(foo|ba[rz])+\n?",
    r"[^\n]{0,6}é",
    r"\d+|[A-Z][a-z]*",
    r"(?s).*",
];

/// Byte-level-like text: every single byte, then random strings mixing letters, digits,
/// spaces, newlines, quotes, backslashes and multi-byte UTF-8, with a few duplicates.
fn generated_vocab(seed: u64, extra: usize) -> ByteVocabulary {
    const PIECES: &[&str] = &[
        "a", "b", "e", "o", "r", "z", "f", "S", "u", "m", "y", ":", "T", "Z", "0", "1", "2", "5",
        "9", " ", "  ", "\n", "*", "-", "+", ".", "\"", "\\", "é", "ß", "中", "foo", "bar", "the",
        "Summary", "\n*", "25",
    ];
    let mut rng = SplitMix64::new(seed);
    let mut tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).collect();
    for i in 0..extra {
        let len = 1 + (rng.below(5)) as usize;
        let mut text = Vec::new();
        for _ in 0..len {
            text.extend_from_slice(PIECES[rng.below(PIECES.len() as u64) as usize].as_bytes());
        }
        tokens.push(Some(text));
        if i % 97 == 0 {
            tokens.push(None); // a special token: no text
        }
    }
    let eos = tokens.len() as u32;
    tokens.push(None);
    ByteVocabulary::new(tokens, vec![eos])
}

fn kind_or_parts<T: PartialEq + std::fmt::Debug>(
    result: Result<T, ComposeError>,
) -> Result<T, fstc_core::compose::ComposeErrorKind> {
    result.map_err(|e| e.kind())
}

/// Both paths give the same minimal parts, the same trimmed parts and the same errors.
fn check_same(name: &str, trie: &VocabTrie) {
    let limits = ComposeLimits::default();
    for pattern in PATTERNS {
        let dfa = fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT).unwrap();
        let classed = kind_or_parts(compose_with_trie(&dfa, trie, &limits));
        let per_byte = kind_or_parts(compose_with_trie(&PerByte(&dfa), trie, &limits));
        assert_eq!(classed, per_byte, "{name}: {pattern}");
        let classed = kind_or_parts(compose_trimmed_with_trie(&dfa, trie, &limits));
        let per_byte = kind_or_parts(compose_trimmed_with_trie(&PerByte(&dfa), trie, &limits));
        assert_eq!(classed, per_byte, "{name}: {pattern} (trimmed)");
        if let Ok(parts) = &classed {
            // Both count token edges (not groups) against the limit, before trimming.
            let edges: usize = parts.edges.iter().map(Vec::len).sum();
            for limit in [edges.saturating_sub(1), edges / 2, 0] {
                let tight = ComposeLimits {
                    token_edge_limit: limit,
                    ..limits
                };
                assert_eq!(
                    kind_or_parts(compose_with_trie(&dfa, trie, &tight)),
                    kind_or_parts(compose_with_trie(&PerByte(&dfa), trie, &tight)),
                    "{name}: {pattern} with token edge limit {limit}"
                );
            }
        }
    }
}

#[test]
fn class_path_equals_per_byte_path_on_generated_vocabularies() {
    for (seed, extra) in [(1, 300), (2, 3000), (3, 20_000)] {
        let vocab = generated_vocab(seed, extra);
        check_same(&format!("generated {seed}"), &VocabTrie::new(&vocab));
    }
}

#[test]
fn class_path_equals_per_byte_path_on_fixture_tokenizers() {
    for rel in [
        "gpt2/encoder.json",
        "bytelevel/tokenizer.json",
        "sentencepiece/tokenizer.json",
        "tiktoken/small.tiktoken",
    ] {
        let path = testdata_dir().join(rel);
        let vocab = Vocabulary::from_file(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        check_same(rel, &VocabTrie::new(&vocab));
    }
}

#[test]
fn class_path_equals_per_byte_path_on_real_vocabularies() {
    for rel in ["gpt2/encoder.json", "llama3/tokenizer.json"] {
        let Some(vocab) = shared_vocab(rel) else {
            continue;
        };
        check_same(rel, &VocabTrie::new(&vocab));
    }
}

#[test]
fn large_automata_without_classes_take_the_direct_walk() {
    // 20001 states x 256 byte classes is too large a table, so the per-byte view walks by
    // calling `next`; the classed view (two classes) uses a table. Both must agree.
    let dfa = fstc_regex::byte_dfa("(ab?){20000}", 50_000).unwrap();
    assert!(dfa.num_states() * 256 > 1 << 22);
    let vocab = ByteVocabulary::from_strs(&["a", "ab", "aab", "b", "aaaa", "ba", "c"]);
    let trie = VocabTrie::new(&vocab);
    let limits = ComposeLimits::default();
    let classed = compose_with_trie(&dfa, &trie, &limits).unwrap();
    assert_eq!(
        classed,
        compose_with_trie(&PerByte(&dfa), &trie, &limits).unwrap()
    );
    // "b" and "ba" may not start the text; "c" never fits.
    assert!(classed.edges[0]
        .iter()
        .all(|&(t, _)| [0, 1, 2, 4].contains(&t)));
}

/// The compiler lays out class edges (`compose_classes_with_trie`); `from_parts` derives
/// classes from token edges. Both must give the same words, and the class parts must
/// round-trip.
fn check_class_layout(name: &str, trie: &VocabTrie) {
    let limits = ComposeLimits::default();
    for pattern in PATTERNS {
        let dfa = fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT).unwrap();
        let Ok(tokens) = compose_with_trie(&dfa, trie, &limits) else {
            continue;
        };
        let classes = compose_classes_with_trie(&dfa, trie, &limits).unwrap();
        let by_tokens = TokenAutomaton::from_parts(tokens).unwrap();
        let by_classes = TokenAutomaton::from_class_parts(classes).unwrap();
        assert_eq!(by_tokens, by_classes, "{name}: {pattern}");
        let again = TokenAutomaton::from_class_parts(by_classes.to_class_parts()).unwrap();
        assert_eq!(
            again, by_classes,
            "{name}: {pattern} (class parts round trip)"
        );
        let again = TokenAutomaton::from_parts(by_classes.to_parts()).unwrap();
        assert_eq!(
            again, by_classes,
            "{name}: {pattern} (token parts round trip)"
        );
        // Classes are the coarsest: no two classes have the same edges everywhere.
        let n = by_classes.num_classes();
        let mut columns = vec![Vec::new(); n as usize];
        for s in 0..by_classes.num_states() {
            for (c, t) in by_classes.class_edges(s) {
                columns[c as usize].push((s, t));
            }
        }
        let distinct: std::collections::HashSet<_> = columns.iter().collect();
        assert_eq!(distinct.len(), n as usize, "{name}: {pattern}");
    }
}

#[test]
fn class_layout_equals_token_layout() {
    for (seed, extra) in [(1, 300), (2, 3000)] {
        let vocab = generated_vocab(seed, extra);
        check_class_layout(&format!("generated {seed}"), &VocabTrie::new(&vocab));
    }
    for rel in ["gpt2/encoder.json", "sentencepiece/tokenizer.json"] {
        let vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
        check_class_layout(rel, &VocabTrie::new(&vocab));
    }
}

/// A `class_of_token` map over `n` token ids from class lists.
fn class_map(n: usize, classes: &[&[u32]]) -> Vec<u32> {
    let mut map = vec![NO_CLASS; n];
    for (c, members) in classes.iter().enumerate() {
        for &t in *members {
            map[t as usize] = c as u32;
        }
    }
    map
}

#[test]
fn class_parts_are_canonicalized_and_checked() {
    // Tokens 0..6, EOS 6. Class {1} is split in two, an unused class is present and the
    // numbering is not by smallest token: the layout is the same as the canonical one.
    let canonical = ClassParts {
        vocab_size: 7,
        vocab_fingerprint: 3,
        eos_ids: vec![6],
        start: 0,
        accepting: vec![false, true],
        num_classes: 2,
        class_of_token: class_map(7, &[&[0, 2], &[1, 4]]),
        edges: vec![vec![(0, 1), (1, 0)], vec![(1, 1)]],
        terminals: Vec::new(),
    };
    let messy = ClassParts {
        num_classes: 4,
        class_of_token: class_map(7, &[&[4], &[5], &[2, 0], &[1]]),
        edges: vec![vec![(3, 0), (0, 0), (2, 1)], vec![(0, 1), (3, 1)]],
        ..canonical.clone()
    };
    let a = TokenAutomaton::from_class_parts(canonical.clone()).unwrap();
    assert_eq!(TokenAutomaton::from_class_parts(messy.clone()).unwrap(), a);
    // Under a deadline: the same file before it, nothing after it (a compile's budget).
    let later = std::time::Instant::now() + std::time::Duration::from_secs(3600);
    let within = TokenAutomaton::from_class_parts_before(messy.clone(), Some(later));
    assert_eq!(within.unwrap(), Some(a.clone()));
    let past = Some(std::time::Instant::now());
    assert_eq!(
        TokenAutomaton::from_class_parts_before(messy, past).unwrap(),
        None
    );
    assert_eq!(a.num_classes(), 2);
    assert_eq!(a.class_tokens(1).collect::<Vec<_>>(), [1, 4]);
    assert_eq!(a.class_size(1), 2);
    assert_eq!(a.token_class(4), Some(1));
    assert_eq!(a.token_class(5), None, "a token without edges has no class");
    assert_eq!(a.next_state(0, 4), Some(0));
    assert_eq!(a.next_state(1, 2), None);
    assert_eq!(
        a.num_edges(),
        6,
        "token edges: 2 + 2 from state 0, 2 from state 1"
    );
    assert_eq!(
        a.to_class_parts(),
        canonical,
        "to_class_parts inverts the layout"
    );

    let mut eos_in_class = class_map(7, &[&[0]]);
    eos_in_class[6] = 0;
    let mut out_of_range = class_map(7, &[&[0]]);
    out_of_range[3] = 5;
    for (class_of_token, edges, needle) in [
        (
            out_of_range,
            vec![vec![(0, 1)], vec![]],
            "token 3 is given class 5, but there are 1 classes",
        ),
        (eos_in_class, vec![vec![(0, 1)], vec![]], "EOS id 6"),
        (
            class_map(9, &[&[0]]),
            vec![vec![(0, 1)], vec![]],
            "class_of_token has 9 entries but vocab_size is 7",
        ),
        (
            class_map(7, &[&[0]]),
            vec![vec![(1, 1)], vec![]],
            "label 1 is neither",
        ),
        (
            class_map(7, &[&[0]]),
            vec![vec![(0, 2)], vec![]],
            "only 2 states",
        ),
    ] {
        let e = TokenAutomaton::from_class_parts(ClassParts {
            num_classes: 1,
            class_of_token,
            edges,
            ..canonical.clone()
        })
        .unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
    }
}

#[test]
fn class_layout_equals_token_layout_on_real_vocabularies() {
    for rel in ["llama2/tokenizer.json", "llama3/tokenizer.json"] {
        let Some(vocab) = shared_vocab(rel) else {
            continue;
        };
        check_class_layout(rel, &VocabTrie::new(&vocab));
    }
}
