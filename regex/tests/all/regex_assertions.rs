//! Word boundaries, multi-line and CRLF anchors and look-around, compiled exactly under
//! full-match semantics, against independent engines on every text of up to four pieces
//! around them: the `regex` crate for `\b`, `\B`, `\b{start}`..., `(?m)` and `(?R)`;
//! `fancy-regex` for look-ahead and look-behind. Pieces mix ASCII and Unicode word
//! characters (`é`), spaces and both line breaks.

use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_detok::Vocabulary;
use fstc_regex::RegexBuilder;
use fstc_regex::RegexCompiler;
use testkit::patterns::{all_texts, random_pattern_with};
use testkit::tokenize::{accepts, walk_to_eos, Segmenter};
use testkit::vocabs::{shared_vocab, testdata_dir};

const PIECES: &[&[u8]] = &[b"a", b"_", b" ", b"\n", b"\r", "é".as_bytes()];

/// Leaves: letters, classes, and every assertion regex-syntax knows.
const ASSERTION_LEAVES: &[&str] = &[
    "a",
    "_",
    " ",
    r"\n",
    r"\r",
    "é",
    ".",
    r"\s",
    r"\w",
    r"[^a]",
    "",
    r"\b",
    r"\B",
    r"(?-u:\b)",
    r"(?-u:\B)",
    r"\b{start}",
    r"\b{end}",
    r"\b{start-half}",
    r"\b{end-half}",
    "(?m:^)",
    "(?m:$)",
    "(?mR:^)",
    "(?mR:$)",
    "^",
    "$",
    "(?s:.)",
];

fn compile(pattern: &str) -> ByteDfa {
    RegexBuilder::new()
        .build(pattern)
        .unwrap_or_else(|e| panic!("{pattern}: {e}"))
}

#[test]
fn assertions_agree_with_the_regex_crate() {
    let texts = all_texts(PIECES, 4);
    let mut rng = SplitMix64::new(1515);
    for _ in 0..300 {
        let pattern = random_pattern_with(&mut rng, 4, ASSERTION_LEAVES);
        let oracle = regex::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap();
        let dfa = compile(&pattern);
        for t in &texts {
            let s = std::str::from_utf8(t).unwrap();
            assert_eq!(dfa.is_match(t), oracle.is_match(s), "{pattern} on {s:?}");
        }
    }
}

#[test]
fn whole_pattern_modes_agree_with_the_regex_crate() {
    let texts = all_texts(PIECES, 4);
    for pattern in [
        r"(?m)^a$",
        r"(?m)(?:^\w+$\n?)*",
        r"(?Rm)(?:^.*$\r?\n?)*",
        r"(?Rm)^(?:a|\r|\n)*$",
        r"\ba\b.*",
        r"(?-u:\b).+(?-u:\b)",
        r"\B\w+\B",
        r"(?s).*\b_\b.*",
        r"\<\w+\>",
    ] {
        let oracle = regex::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap();
        let dfa = compile(pattern);
        for t in &texts {
            let s = std::str::from_utf8(t).unwrap();
            assert_eq!(dfa.is_match(t), oracle.is_match(s), "{pattern} on {s:?}");
        }
    }
}

/// Look-around bodies, with assertions of their own (which see the whole text).
const BODY_LEAVES: &[&str] = &[
    "a", "_", " ", r"\n", "é", ".", r"\w", r"[^a]", "", r"\b", r"\B", "^", "$", "(?m:^)", "(?m:$)",
    "(?=a)", r"(?!\w)", "(?<=a)", r"(?<!\s)",
];
/// Look-behind bodies of fixed length, which is what `fancy-regex` accepts, some with
/// assertions of their own.
const BEHIND_BODIES: &[&str] = &[
    "a",
    "_",
    " ",
    r"\w",
    r"a\n",
    "é",
    "[a ]",
    r"\s_",
    "^a",
    r"a$",
    r"\ba",
    r"a\b",
    r"\B\w",
    r"(?m:^)\w",
    r"\n(?m:^)",
    r"\w(?=a)",
    r"(?<=a)_",
    r"(?<!^)a",
    r"(?!a)\w",
];

fn random_look_leaf(rng: &mut SplitMix64) -> String {
    match rng.below(4) {
        0 => format!("(?={})", random_pattern_with(rng, 2, BODY_LEAVES)),
        1 => format!("(?!{})", random_pattern_with(rng, 2, BODY_LEAVES)),
        2 => format!("(?<={})", BEHIND_BODIES[rng.index(BEHIND_BODIES.len())]),
        _ => format!("(?<!{})", BEHIND_BODIES[rng.index(BEHIND_BODIES.len())]),
    }
}

/// Whether `fancy-regex` takes `pattern` (it refuses to repeat a look-around, `(?=a)*`,
/// and variable-length look-behind); if so, asserts that fstc agrees with it on `texts`.
fn agrees_with_fancy_regex(pattern: &str, texts: &[Vec<u8>]) -> bool {
    let Ok(oracle) = fancy_regex::Regex::new(&format!(r"\A(?:{pattern})\z")) else {
        return false;
    };
    let dfa = compile(pattern);
    for t in texts {
        let s = std::str::from_utf8(t).unwrap();
        assert_eq!(
            dfa.is_match(t),
            oracle.is_match(s).unwrap(),
            "{pattern} on {s:?}"
        );
    }
    true
}

#[test]
fn look_around_agrees_with_fancy_regex() {
    let texts = all_texts(PIECES, 4);
    let mut rng = SplitMix64::new(4242);
    let mut checked = 0;
    for _ in 0..300 {
        let mut leaves: Vec<String> = ["a", "_", " ", r"\n", "é", ".", r"\w", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for _ in 0..3 {
            leaves.push(random_look_leaf(&mut rng));
        }
        let leaves: Vec<&str> = leaves.iter().map(|s| s.as_str()).collect();
        let pattern = random_pattern_with(&mut rng, 4, &leaves);
        checked += usize::from(agrees_with_fancy_regex(&pattern, &texts));
    }
    assert!(checked >= 150, "only {checked} patterns checked");
}

/// Look-around nested two deep, with assertions at every level, against `fancy-regex`.
#[test]
fn nested_look_around_agrees_with_fancy_regex() {
    let texts = all_texts(PIECES, 4);
    let mut rng = SplitMix64::new(1977);
    let mut checked = 0;
    for _ in 0..150 {
        let inner: Vec<String> = (0..3).map(|_| random_look_leaf(&mut rng)).collect();
        let mut leaves: Vec<&str> = BODY_LEAVES.to_vec();
        leaves.extend(inner.iter().map(|s| s.as_str()));
        let outer = match rng.below(2) {
            0 => format!("(?={})", random_pattern_with(&mut rng, 2, &leaves)),
            _ => format!("(?!{})", random_pattern_with(&mut rng, 2, &leaves)),
        };
        let mut leaves: Vec<&str> = ["a", "_", " ", r"\n", "é", ".", r"\w", r"\b"].to_vec();
        leaves.push(&outer);
        let pattern = random_pattern_with(&mut rng, 3, &leaves);
        checked += usize::from(agrees_with_fancy_regex(&pattern, &texts));
    }
    assert!(checked >= 60, "only {checked} patterns checked");
}

/// Assertions inside look-around bodies that users write.
#[test]
fn assertions_inside_look_around() {
    for (pattern, yes, no) in [
        ("(?=a$).", &["a"][..], &["b", "ab"][..]),
        (
            r"(?=.*\bfoo\b).*",
            &["foo", "a foo", "x foo.y"],
            &["afoo", "foo_", ""],
        ),
        (".*(?<!^x)", &["", "ab", "yx", "xa"], &["x"]),
        (
            r"a(?!(?s:.)*(?m:^)b)(?s:.)*",
            &["a", "ab", "a\nc\nab"],
            &["a\nb", "a\nc\nb"],
        ),
        (r".a(?<=\ba)b", &[" ab", "-ab"], &["xab", "_ab"]),
        (
            r"\w+(?<=\b[a-z]{2}\b)(?: \w+)?",
            &["ab", "ab cd"],
            &["abc", "a"],
        ),
    ] {
        let dfa = compile(pattern);
        let oracle = fancy_regex::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap();
        for text in yes {
            assert!(
                oracle.is_match(text).unwrap(),
                "oracle: {pattern} on {text:?}"
            );
            assert!(dfa.is_match(text.as_bytes()), "{pattern} on {text:?}");
        }
        for text in no {
            assert!(
                !oracle.is_match(text).unwrap(),
                "oracle: {pattern} on {text:?}"
            );
            assert!(!dfa.is_match(text.as_bytes()), "{pattern} on {text:?}");
        }
    }
}

#[test]
fn password_rules_as_look_aheads() {
    let dfa = compile(r"^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])(?!.*\s).{8,}$");
    for (text, ok) in [
        ("abcdEF12", true),
        ("abcdefgh", false),
        ("ABCDEF12", false),
        ("abcD1", false),
        ("abcd EF12", false),
        ("Zz9éééééé", true),
    ] {
        assert_eq!(dfa.is_match(text.as_bytes()), ok, "{text}");
    }
}

/// Token automata of assertion patterns: random walks spell matching texts (checked by
/// `fancy-regex`), known-good texts are accepted under the tokenizer's own and random
/// tokenizations, and near misses are rejected.
fn check_tokens(name: &str, vocab: &Vocabulary) {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            r"(?:\b\w+\b[ ,]*)+",
            &["hello world", "a, b", "héllo wörld "],
            &[" hello", "hello,world!"],
        ),
        (r"(?m)(?:^\d+$\n?)+", &["12\n345", "7\n"], &["12 \n3", "\n"]),
        (
            r"(?=.*\d)(?=.*[a-z])(?!.*\s).{8,12}",
            &["abcdefg1", "9zzzzzzzzz"],
            &["abcdefgh", "abcd efg1", "12345678"],
        ),
        (
            r"(?:\d|(?<!-)-)+(?<=\d)",
            &["1-2", "12-3-45"],
            &["1--2", "1-"],
        ),
        (
            r"(?=.*\bfoo\b)[a-z ]+(?<!^x)",
            &["a foo b", "foo"],
            &["afoo b", "foox"],
        ),
    ];
    let seg = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(77);
    for &(pattern, good, bad) in cases {
        let automaton = RegexCompiler::new()
            .compile(pattern, vocab)
            .unwrap_or_else(|e| panic!("{name}: {pattern}: {e}"));
        let oracle = fancy_regex::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap();
        let mut complete = 0;
        for _ in 0..100 {
            let walk = walk_to_eos(&automaton, &mut rng, 40);
            if walk.complete {
                complete += 1;
                let text = String::from_utf8(vocab.detokenize(&walk.tokens)).unwrap();
                assert!(
                    oracle.is_match(&text).unwrap(),
                    "{name}: {pattern}: {text:?}"
                );
            }
        }
        assert!(complete > 0, "{name}: {pattern}: no complete walk");
        for text in good {
            assert!(oracle.is_match(text).unwrap(), "{pattern}: {text:?}");
            let own = vocab.tokenize(text).unwrap();
            assert!(accepts(&automaton, &own), "{name}: {pattern}: {text:?}");
            for _ in 0..5 {
                let tokens = seg.segment(text.as_bytes(), &mut rng).unwrap();
                assert!(
                    accepts(&automaton, &tokens),
                    "{name}: {pattern}: {tokens:?}"
                );
            }
        }
        for text in bad {
            assert!(!oracle.is_match(text).unwrap(), "{pattern}: {text:?}");
            if let Some(tokens) = seg.segment(text.as_bytes(), &mut rng) {
                assert!(!accepts(&automaton, &tokens), "{name}: {pattern}: {text:?}");
            }
        }
    }
}

#[test]
fn token_automata_of_assertions() {
    let gpt2 = Vocabulary::from_file(testdata_dir().join("gpt2/encoder.json")).unwrap();
    check_tokens("gpt2", &gpt2);
    if let Some(llama3) = shared_vocab("llama3/tokenizer.json") {
        check_tokens("llama3", &llama3);
    }
}
