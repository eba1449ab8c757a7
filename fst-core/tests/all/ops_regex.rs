//! Token-level operations on regex-compiled automata of three tokenizer families equal
//! compiling the byte-level operation (`bytes::Algebra` on the patterns' byte DFAs, then
//! composition): exactness on texts. Projection gives back the pattern's byte DFA.
#![cfg(feature = "compile")]

use fstc_core::automaton::TokenAutomaton;
use fstc_core::bytes::{Algebra, ByteDfa, Universe, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::ops::{text_tokens, TokenAlgebra};
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_regex::{byte_dfa, RegexCompiler};
use testkit::tokenize::{accepts, Segmenter};
use testkit::vocabs::testdata_dir;

const FAMILIES: [&str; 3] = [
    "bytelevel/tokenizer.json",
    "sentencepiece/tokenizer.json",
    "tiktoken/small.tiktoken",
];

const PAIRS: [(&str, &str); 5] = [
    ("[a-z]{1,4}", "(ab|cd)+"),
    (r"\d+(\.\d+)?", r"1\d*"),
    ("(foo|bar) baz", "[a-z]+ [a-z]{3}"),
    ("[a-c]{0,3}x", "a*[bx]*"),
    (r#"\{"a": \d\}"#, r#"\{"a": [0-5]\}"#),
];

fn dfa(pattern: &str) -> ByteDfa {
    byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT).unwrap()
}

/// The token automaton of a byte DFA, `None` for an empty language.
fn compose(d: &ByteDfa, trie: &VocabTrie) -> Option<TokenAutomaton> {
    let compiled = RegexCompiler::new().compile_dfa_with_trie(d, "op", trie);
    compiled.ok().map(|c| c.automaton)
}

fn assert_same(result: &TokenAutomaton, expected: Option<TokenAutomaton>, what: &str) {
    match expected {
        Some(e) => assert_eq!(result, &e, "{what}"),
        None => assert_eq!(
            result.num_accepting(),
            0,
            "{what}: expected nothing accepted"
        ),
    }
}

#[test]
fn operations_equal_the_compiled_byte_operations_on_three_families() {
    let (algebra, bytes) = (TokenAlgebra::new(), Algebra::new());
    for rel in FAMILIES {
        let vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
        let trie = VocabTrie::new(&vocab);
        let alphabet = text_tokens(&vocab);
        for (r, s) in PAIRS {
            let (dr, ds) = (dfa(r), dfa(s));
            let (a, b) = (compose(&dr, &trie).unwrap(), compose(&ds, &trie).unwrap());
            let what = |op: &str| format!("{rel}: {r} {op} {s}");
            let and = algebra.intersect(&a, &b).unwrap().automaton;
            assert_same(
                &and,
                compose(&bytes.intersect(&dr, &ds).unwrap(), &trie),
                &what("and"),
            );
            let or = algebra.union(&a, &b).unwrap().automaton;
            assert_same(
                &or,
                compose(&bytes.union(&dr, &ds).unwrap(), &trie),
                &what("or"),
            );
            let minus = algebra.difference(&a, &b).unwrap().automaton;
            let expected = compose(&bytes.difference(&dr, &ds).unwrap(), &trie);
            assert_same(&minus, expected, &what("minus"));
            let not = algebra.complement(&a, &alphabet).unwrap().automaton;
            let expected = compose(&bytes.complement(&dr, Universe::Bytes).unwrap(), &trie);
            assert_same(&not, expected, &what("complement"));
            // Projection gives the pattern back: every family spells every byte.
            assert_eq!(
                algebra.project(&a, &vocab).unwrap(),
                dr,
                "{rel}: project {r}"
            );
        }
    }
}

#[test]
fn equivalence_finds_the_one_text_that_differs() {
    let algebra = TokenAlgebra::new();
    for rel in FAMILIES {
        let vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
        let compile = |p: &str| RegexCompiler::new().compile(p, &vocab).unwrap().automaton;
        for (x, y) in [("a+", "aa*"), ("(ab)*a", "a(ba)*"), ("[0-9]{2}", r"\d\d")] {
            let (a, b) = (compile(x), compile(y));
            // `\d` is Unicode: other digits make it differ, not equal.
            let found = algebra.equivalent(&a, &b).unwrap();
            if x == "[0-9]{2}" {
                let d = found.expect("Unicode digits differ");
                let text = vocab.detokenize(&d.tokens);
                assert!(
                    !d.accepted_by_first && dfa(y).is_match(&text),
                    "{rel}: {text:?}"
                );
                continue;
            }
            assert_eq!(found, None, "{rel}: {x} vs {y}");
        }
        let (a, b) = (compile("(ab|cd)x"), compile("(ab|cd|ce)x"));
        let d = algebra.equivalent(&a, &b).unwrap().expect("they differ");
        assert_eq!(vocab.detokenize(&d.tokens), b"cex", "{rel}");
        assert!(!d.accepted_by_first);
        assert!(accepts(&b, &d.tokens) && !accepts(&a, &d.tokens));
        let shortest = algebra.shortest(&b).unwrap().unwrap();
        assert!(dfa("(ab|cd|ce)x").is_match(&vocab.detokenize(&shortest)));
        // As few tokens as the fewest any tokenization of the three texts takes.
        let seg = Segmenter::new(&vocab);
        let fewest = ["abx", "cdx", "cex"]
            .iter()
            .map(|t| fewest_tokens(&seg, t.as_bytes()))
            .min();
        assert_eq!(Some(shortest.len()), fewest, "{rel}");
        assert!(vocab.len() > 256);
    }
}

/// The fewest tokens any tokenization of `text` takes (dynamic programming over cuts).
fn fewest_tokens(seg: &Segmenter, text: &[u8]) -> usize {
    let n = text.len();
    let mut best = vec![usize::MAX; n + 1];
    best[0] = 0;
    for end in 1..=n {
        for start in 0..end {
            if best[start] != usize::MAX && seg.token(&text[start..end]).is_some() {
                best[end] = best[end].min(best[start] + 1);
            }
        }
    }
    best[n]
}
