//! Tests of the composition's internals: the trie layout, the groupings against each
//! other, the terminal masks.

use super::assemble::{compose_groups, ComposeLimits};
use super::class_trie::DenseClasses;
use super::grouping::GroupBy;
use super::minimal_from_groups;
use crate::vocab::level_trie::{first_unsplit_fold, FOLDS};
use crate::vocab::trie::make_chunks;
use crate::vocab::VocabTrie;
use crate::vocab::{ByteVocabulary, TokenVocabulary};

#[test]
fn trie_is_preorder_with_subtree_ranges() {
    let vocab = ByteVocabulary::from_strs(&["f", "oo", "foo", "for", "food", "foo", ""]);
    let trie = VocabTrie::new(&vocab);
    // Nodes: root, f, fo, foo, food, for, o, oo.
    assert_eq!(trie.num_nodes(), 8);
    assert_eq!(trie.byte[1..], *b"foodroo");
    assert_eq!(trie.depth, [0, 1, 2, 3, 4, 3, 1, 2]);
    assert_eq!(trie.end, [8, 6, 6, 5, 5, 6, 8, 8]);
    // The duplicate "foo" (ids 2 and 5) sits on one node; the empty token is left out.
    assert_eq!(trie.num_text_tokens(), 6);
    let foo = 3;
    let ids = &trie.token_ids[trie.token_start[foo] as usize..trie.token_start[foo + 1] as usize];
    assert_eq!(ids, [2, 5]);
    assert_eq!(trie.eos_ids(), [7]);
    assert_eq!(make_chunks(trie.end.len(), |i| trie.end[i]), [(1, 8)]);
}

/// A vocabulary of every single byte plus random strings over quotes, backslashes,
/// newlines, ASCII and pieces of multi-byte UTF-8 characters.
fn mixed_vocab(seed: u64, extra: usize) -> ByteVocabulary {
    let alphabet: Vec<&[u8]> = vec![
        b"\"",
        b"\\",
        b"\n",
        b"a",
        b"q",
        b"Z",
        b"M",
        b"_",
        b"7",
        b"9",
        b"0",
        b"-",
        b":",
        b".",
        b" ",
        b"*",
        "é".as_bytes(),
        "中".as_bytes(),
        "😀".as_bytes(),
        &[0xe4],
        &[0xb8, 0xad],
        &[0x80],
        &[0xa0, 0x9f],
        &[0xed],
        &[0xf4, 0x8f],
        &[0xff],
    ];
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let mut tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).collect();
    for _ in 0..extra {
        let len = 1 + next() % 4;
        let token: Vec<u8> = (0..len)
            .flat_map(|_| alphabet[next() % alphabet.len()].iter().copied())
            .collect();
        tokens.push(Some(token));
    }
    tokens.push(None);
    let eos = tokens.len() as u32 - 1;
    ByteVocabulary::new(tokens, vec![eos])
}

#[test]
fn grouping_by_function_equals_grouping_by_class_string() {
    let patterns = [
        r#""([^"\\]|\\.)*""#,
        r"Summary:(\n\* [^\n]+){3,5}",
        r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
        r"[^\W\d]\w*",
        r"(é|中)+[a-z]*",
        r"[0-9]{2,4}-?",
        r".{0,6}",
    ];
    // How many patterns each folded trie served (by `FOLDS` index), and the byte trie.
    let mut served = [0; FOLDS.len() + 1];
    for seed in 1..4 {
        let trie = VocabTrie::new(&mixed_vocab(seed, 2000));
        for pattern in patterns {
            let theirs = fstc_regex::byte_dfa(pattern, 10_000).unwrap();
            let dfa = own_dfa(
                theirs.num_states(),
                |s, b| theirs.next(s, b),
                |s| theirs.is_accepting(s),
            );
            let dense = DenseClasses::new(dfa.byte_classes());
            let fold = first_unsplit_fold(&dense.class_of_byte).map(|(i, _)| i);
            served[fold.unwrap_or(FOLDS.len())] += 1;
            let limits = ComposeLimits::default();
            let run = |group_by| {
                let (groups, trimmed) = compose_groups(&dfa, &trie, &limits, group_by).unwrap();
                let trimmed_edges = groups.expand(&trimmed.edges);
                let (labels, minimal) = minimal_from_groups(groups, trimmed.clone(), None).unwrap();
                (
                    trimmed.accepting,
                    trimmed_edges,
                    minimal.accepting,
                    labels.expand(&minimal.edges),
                )
            };
            let by_function = run(GroupBy::Functions);
            let by_byte_function = run(GroupBy::ByteFunctions);
            let by_string = run(GroupBy::ClassStrings);
            assert!(!by_function.1.is_empty(), "{pattern}");
            assert_eq!(by_function, by_string, "seed {seed}, pattern {pattern}");
            assert_eq!(
                by_byte_function, by_string,
                "seed {seed}, pattern {pattern}"
            );
        }
    }
    // COARSE: the quoted string, `[0-9]{2,4}-?`, `.{0,6}`; LETTERS: IPv4 (its Unicode `\d`
    // splits the continuation bytes), the identifier, `(é|中)+[a-z]*`; bytes: Summary.
    assert_eq!(served, [3 * 3, 3 * 3, 3]);
}

#[test]
fn text_token_masks_match_the_token_bytes() {
    let vocab = mixed_vocab(7, 500);
    let trie = VocabTrie::new(&vocab);
    for without in [None, Some(b'\n'), Some(b'"'), Some(0xe4)] {
        let mask = trie.text_token_mask(without);
        for t in 0..vocab.len() {
            let bytes = vocab.token_bytes(t as u32).unwrap_or(&[]);
            let want = !bytes.is_empty() && without.map_or(true, |b| !bytes.contains(&b));
            assert_eq!(
                mask[t / 32] >> (t % 32) & 1 == 1,
                want,
                "{without:?} token {t}"
            );
        }
    }
}

#[test]
fn chunks_cover_all_nodes_in_whole_subtrees() {
    let words: Vec<String> = (0..20_000u32).map(|i| format!("{i:x}q{}", i % 7)).collect();
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let trie = VocabTrie::new(&ByteVocabulary::from_strs(&refs));
    let chunks = make_chunks(trie.end.len(), |i| trie.end[i]);
    assert!(chunks.len() > 1);
    assert_eq!(chunks[0].0, 1);
    assert_eq!(chunks.last().unwrap().1 as usize, trie.num_nodes());
    for w in chunks.windows(2) {
        assert_eq!(w[0].1, w[1].0);
    }
    for &(lo, _) in &chunks {
        assert_eq!(trie.depth[lo as usize], 1, "a chunk starts at a root child");
    }
}

/// A DFA of the regex crate (which links its own copy of this crate) rebuilt as this
/// crate's `ByteDfa`, through the algebra's explicit-edge construction.
fn own_dfa(
    n: usize,
    next: impl Fn(u32, u8) -> Option<u32>,
    accepts: impl Fn(u32) -> bool,
) -> crate::bytes::ByteDfa {
    let n = n as u32;
    let mut edges = Vec::new();
    for s in 0..n {
        for b in 0..=255u8 {
            if let Some(t) = next(s, b) {
                edges.push((s, b, b, t));
            }
        }
    }
    let accepting: Vec<bool> = (0..n).map(accepts).collect();
    crate::bytes::Algebra::new()
        .from_edges(&edges, &accepting)
        .unwrap()
}

#[test]
fn every_state_edges_are_the_tokens_each_state_reads_whole() {
    for seed in 1..3 {
        let vocab = mixed_vocab(seed, 1500);
        let trie = VocabTrie::new(&vocab);
        for pattern in [r#""([^"\\]|\\.)*""#, r"[0-9]{2,4}-?", r"(é|中)+[a-z]*x"] {
            let theirs = fstc_regex::byte_dfa(pattern, 10_000).unwrap();
            let dfa = own_dfa(
                theirs.num_states(),
                |s, b| theirs.next(s, b),
                |s| theirs.is_accepting(s),
            );
            let found =
                super::every_state_edges_with_trie(&dfa, &trie, &ComposeLimits::default()).unwrap();
            assert_eq!(found.edges.len(), dfa.num_states());
            let edges: usize = found.edges.iter().map(Vec::len).sum();
            assert!(edges > dfa.num_states(), "{pattern}: {edges} group edges");
            for (s, list) in found.edges.iter().enumerate() {
                // Each state's targets by token, from its group edges.
                let mut by_token = vec![None; vocab.len()];
                for &(g, target) in list {
                    for (t, &of) in found.group_of_token.iter().enumerate() {
                        if of == g {
                            by_token[t] = Some(target);
                        }
                    }
                }
                for (t, &got) in by_token.iter().enumerate() {
                    let bytes = vocab.token_bytes(t as u32).unwrap_or(&[]);
                    let run = (!bytes.is_empty())
                        .then_some(())
                        .and_then(|()| bytes.iter().try_fold(s as u32, |q, &b| dfa.next(q, b)));
                    assert_eq!(got, run, "{pattern}: state {s}, token {t} {bytes:?}");
                }
            }
        }
    }
}

/// A table the allocator refuses (a capacity overflow, or past the address space) is the
/// memory limit's error, not an abort.
#[test]
fn a_table_the_allocator_refuses_is_the_memory_limits_error() {
    use super::error::try_with_capacity;
    use super::ComposeErrorKind;
    for n in [usize::MAX / 2, 1 << 58] {
        let e = try_with_capacity::<u32>(n, "a test table").unwrap_err();
        assert!(matches!(e.kind(), ComposeErrorKind::MemoryLimit), "{e}");
        assert!(e.to_string().contains("could not allocate"), "{e}");
    }
    assert!(
        try_with_capacity::<u32>(10, "a small table")
            .unwrap()
            .capacity()
            >= 10
    );
}
