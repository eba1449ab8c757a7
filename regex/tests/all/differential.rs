//! Differential tests of the regex compiler against the `regex` crate, on real tokenizers.
//!
//! For each pattern and vocabulary: every complete random walk spells a text that
//! `regex` full-matches; known-good texts, under the tokenizer's own tokenization and
//! under random other tokenizations, are accepted; texts that `regex` rejects are
//! rejected under every tokenization tried; saving and loading keeps every mask.

use fstc_core::automaton::TokenAutomaton;
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::walker::Walker;
use fstc_detok::Vocabulary;
use fstc_regex::RegexCompiler;
use testkit::tokenize::{accepts, Segmenter};
use testkit::vocabs::{shared_vocab, testdata_dir};

/// Patterns with texts that match and texts that do not.
const CASES: &[(&str, &[&str], &[&str])] = &[
    (
        "(foo)+d",
        &["food", "foofood", "foofoofood"],
        &["fod", "foo", "foodd", "", "fooд"],
    ),
    (
        "[0-9]+",
        &["0", "42", "1234567890"],
        &["", "a1", "1a", "١٢"],
    ),
    (
        r"-?[0-9]+(\.[0-9]+)?",
        &["-3.14", "0", "12.5"],
        &["1.", ".5", "--1", "-"],
    ),
    (
        r"[a-z]+@[a-z]+\.(com|org)",
        &["bob@example.com", "a@b.org"],
        &["bob@example.net", "@a.com", "bob@example.com "],
    ),
    (
        "(yes|no|maybe)",
        &["yes", "no", "maybe"],
        &["yesno", "Yes", "may"],
    ),
    (
        r"\d{3}-\d{4}",
        &["555-1234", "000-0000"],
        &["55-1234", "5555-1234", "555 1234"],
    ),
    (
        "[A-Z][a-z]{2,5}",
        &["Paris", "Rome", "Berlin"],
        &["London1", "P", "Amsterdam", "paris"],
    ),
    (
        "(ab|cd){2,3}",
        &["abab", "abcdab", "cdcd"],
        &["ab", "abababab", "abc"],
    ),
    (
        "colou?r",
        &["color", "colour"],
        &["colouur", "colr", "Color"],
    ),
    (
        "(?i)hello world",
        &["Hello World", "HELLO WORLD", "hElLo wOrLd"],
        &["hello  world", "helloworld"],
    ),
    (
        r"\w+",
        &["hello", "naïve", "東京", "snake_case", "x1"],
        &["hello world", "-", "", "a-b"],
    ),
    (
        r"[^\W\d]\w*",
        &["x", "_tmp", "élan", "abc123", "Ωmega"],
        &["1abc", "a b", "", "a!"],
    ),
    (r"\p{Greek}+", &["αβγ", "Ωμέγα"], &["abc", "αβγ1", ""]),
    (
        "[а-я]+",
        &["привет", "мир"],
        &["hello", "Привет", "при вет"],
    ),
    (
        ".{1,5}",
        &["a", "hi!", "日本語", "🙂🙂", "é"],
        &["", "abcdef", "a\nb", "日本語日本語"],
    ),
    (
        r"\d{4}-\d{2}-\d{2}",
        &["2024-01-31", "1999-12-01"],
        &["2024-1-31", "2024/01/31", "24-01-31"],
    ),
    (
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
        &[
            "2024-01-31T12:34:56Z",
            "2024-01-31T12:34:56.789+05:30",
            "1970-01-01T00:00:00-00:00",
        ],
        &[
            "2024-01-31 12:34:56Z",
            "2024-01-31T12:34:56",
            "2024-01-31T12:34:56.Z",
        ],
    ),
    (
        r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
        &["192.168.0.1", "255.255.255.255", "0.0.0.0", "10.0.12.254"],
        &["256.1.1.1", "1.2.3", "1.2.3.4.5", "01.02.03.004"],
    ),
    (
        r#""([^"\\]|\\.)*""#,
        &[r#""hello""#, r#""a\"b""#, r#""""#, r#""tab\tand é""#],
        &[r#""abc"#, r#""a"b""#, "abc"],
    ),
    (
        r"Summary:(\n\* [^\n]+){3,5}",
        &[
            "Summary:\n* a\n* b\n* c",
            "Summary:\n* one thing\n* two\n* three\n* four\n* five",
        ],
        &[
            "Summary:\n* a\n* b",
            "Summary:\n* a\n* b\n* c\n* d\n* e\n* f",
            "Summary:\n* a\n* b\n*c",
        ],
    ),
    (
        "(true|false|null)",
        &["true", "false", "null"],
        &["True", "nul", "truefalse"],
    ),
    (
        r"\[(\d+(, ?\d+)*)?\]",
        &["[]", "[1, 2,3]", "[42]"],
        &["[1,]", "[", "[1 2]"],
    ),
    (
        "[0-9a-fA-F]{8}",
        &["DEADBEEF", "0123abcd"],
        &["0123abcg", "DEADBEEF0", "dead"],
    ),
    (
        "(a|b)*abb",
        &["abb", "aabb", "babb", "ababb"],
        &["ab", "abba", "", "abbb"],
    ),
    ("x*y*z*", &["", "xyz", "xxzz", "y"], &["zyx", "xzy", "a"]),
    (
        r"(\+|-)?(0|[1-9][0-9]*)",
        &["0", "-12", "+7", "1000"],
        &["012", "+-1", "-", ""],
    ),
    (
        r"[ \t]*#[^\n]*",
        &["# hi", "  # x", "\t#"],
        &["x # y", "# a\nb", ""],
    ),
    (
        "(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day",
        &["Monday", "Wednesday", "Saturday"],
        &["Moonday", "Mon", "Tuesday "],
    ),
    (
        "café|naïve|résumé",
        &["café", "naïve", "résumé"],
        &["cafe", "naive", "cafés"],
    ),
    ("[😀-😏]+", &["😀", "😀😁😏"], &["😐", "😀 ", ""]),
    (
        r"\$\d+\.\d{2}",
        &["$3.50", "$1000.00"],
        &["$3.5", "3.50", "$.50"],
    ),
    (
        "(https?://)?[a-z]+\\.[a-z]{2,3}(/[a-z]*)*",
        &["https://example.com/a/b", "foo.io", "http://x.org/"],
        &["ftp://x.com", "https://example", "example.comm"],
    ),
    (
        r#"\s*\{\s*"name"\s*:\s*"[A-Za-z ]*"\s*\}"#,
        &[r#"{"name": "Ann Lee"}"#, r#"  { "name" : "" }"#],
        &[r#"{"name": 1}"#, r#"{"name": "Ann"#, r#"{"nam": "A"}"#],
    ),
    ("^(0|1)+$", &["0101", "1", "000"], &["012", "", "01 "]),
    ("a{3,}", &["aaa", "aaaaaaa"], &["aa", "", "aaab"]),
    (
        r"(?i:straße)|\u{1F600}",
        &["straße", "STRAẞE", "😀"],
        &["strasse", "😁"],
    ),
];

fn oracle(pattern: &str) -> regex::bytes::Regex {
    regex::bytes::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap()
}

/// Every mask of `a` equals the mask of the same state of `b`.
fn same_masks(a: &TokenAutomaton, b: &TokenAutomaton<&[u32]>) {
    assert_eq!(a.num_states(), b.num_states());
    let words = (a.vocab_size() as usize).div_ceil(32) + 1;
    for state in 0..a.num_states() {
        assert_eq!(a.token_edges(state), b.token_edges(state));
        assert_eq!(a.is_accepting(state), b.is_accepting(state));
    }
    let (mut ma, mut mb) = (vec![0u32; words], vec![0u32; words]);
    Walker::new(a).fill_mask(&mut ma).unwrap();
    Walker::new(b).fill_mask(&mut mb).unwrap();
    assert_eq!(ma, mb);
}

struct Budget {
    walks: usize,
    segmentations: usize,
}

fn check_vocabulary(name: &str, vocab: &Vocabulary, budget: &Budget) {
    let compiler = RegexCompiler::new();
    let segmenter = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(0x5eed);
    let mut checked_walks = 0;
    for &(pattern, good, bad) in CASES {
        let oracle = oracle(pattern);
        let automaton = compiler
            .compile(pattern, vocab)
            .unwrap_or_else(|e| panic!("{name}: {pattern}: {e}"));

        // Save and load: the same automaton, every mask the same.
        let bytes = automaton.to_bytes();
        let copied = TokenAutomaton::from_bytes_copied(&bytes).unwrap();
        let words = copied.as_words();
        same_masks(
            &automaton,
            &TokenAutomaton::from_bytes(bytemuck_bytes(words)).unwrap(),
        );

        // Random walks spell matching texts; their texts, retokenized, are accepted.
        let mut known_good: Vec<Vec<u8>> = good.iter().map(|s| s.as_bytes().to_vec()).collect();
        for _ in 0..budget.walks {
            let walk = random_walk(&automaton, &mut rng, 48);
            let text = vocab.detokenize(&walk.tokens);
            if walk.complete {
                assert!(
                    oracle.is_match(&text),
                    "{name}: {pattern}: walk {:?} spells {:?}, which does not match",
                    walk.tokens,
                    String::from_utf8_lossy(&text)
                );
                checked_walks += 1;
                if std::str::from_utf8(&text).is_ok() {
                    known_good.push(text);
                }
            }
        }

        for (i, text) in known_good.iter().enumerate() {
            assert!(oracle.is_match(text), "{pattern}: bad test case {text:?}");
            let shown = String::from_utf8_lossy(text);
            // Texts of random walks may not survive the tokenizer's normalizer (Qwen's
            // NFC); the listed good texts must.
            let tokenized = std::str::from_utf8(text).map(|s| vocab.tokenize(s));
            if i < good.len() || matches!(tokenized, Ok(Ok(_))) {
                let tokens = tokenized.unwrap().unwrap();
                assert!(
                    accepts(&automaton, &tokens),
                    "{name}: {pattern}: {shown:?} tokenized as {tokens:?} is rejected"
                );
            }
            for _ in 0..budget.segmentations {
                if let Some(tokens) = segmenter.segment(text, &mut rng) {
                    assert!(
                        accepts(&automaton, &tokens),
                        "{name}: {pattern}: {shown:?} tokenized as {tokens:?} is rejected"
                    );
                }
            }
        }

        // Texts that do not match: the listed ones and mutations of the good ones.
        let mut known_bad: Vec<Vec<u8>> = bad.iter().map(|s| s.as_bytes().to_vec()).collect();
        for text in &known_good {
            let mut longer = text.clone();
            longer.extend_from_slice(b"#");
            known_bad.push(longer);
            if !text.is_empty() {
                known_bad.push(text[..text.len() - 1].to_vec());
                known_bad.push(text[1..].to_vec());
            }
        }
        for (i, text) in known_bad.iter().enumerate() {
            if oracle.is_match(text) {
                continue;
            }
            let shown = String::from_utf8_lossy(text);
            let tokenized = std::str::from_utf8(text).map(|s| vocab.tokenize(s));
            if i < bad.len() || matches!(tokenized, Ok(Ok(_))) {
                let tokens = tokenized.unwrap().unwrap();
                assert!(
                    !accepts(&automaton, &tokens),
                    "{name}: {pattern}: {shown:?} tokenized as {tokens:?} is accepted"
                );
            }
            for _ in 0..budget.segmentations {
                if let Some(tokens) = segmenter.segment(text, &mut rng) {
                    assert!(
                        !accepts(&automaton, &tokens),
                        "{name}: {pattern}: {shown:?} tokenized as {tokens:?} is accepted"
                    );
                }
            }
        }
    }
    assert!(
        checked_walks >= CASES.len() * budget.walks / 4,
        "{name}: only {checked_walks} walks ended with EOS"
    );
}

/// The automaton's words as bytes, in an aligned buffer for the zero-copy loader.
fn bytemuck_bytes(words: &[u32]) -> &[u8] {
    bytemuck::cast_slice(words)
}

#[test]
fn fixtures_gpt2_encoder_json() {
    let vocab = Vocabulary::from_file(testdata_dir().join("gpt2/encoder.json")).unwrap();
    check_vocabulary(
        "gpt2 fixture",
        &vocab,
        &Budget {
            walks: 40,
            segmentations: 4,
        },
    );
}

#[test]
fn fixtures_sentencepiece_tokenizer_json() {
    let vocab = Vocabulary::from_file(testdata_dir().join("sentencepiece/tokenizer.json")).unwrap();
    check_vocabulary(
        "sentencepiece fixture",
        &vocab,
        &Budget {
            walks: 40,
            segmentations: 4,
        },
    );
}

#[test]
fn fixtures_bytelevel_tokenizer_json() {
    let vocab = Vocabulary::from_file(testdata_dir().join("bytelevel/tokenizer.json")).unwrap();
    check_vocabulary(
        "byte-level fixture",
        &vocab,
        &Budget {
            walks: 40,
            segmentations: 4,
        },
    );
}

#[test]
fn fixtures_tiktoken_rank_file() {
    let vocab = Vocabulary::from_file(testdata_dir().join("tiktoken/small.tiktoken")).unwrap();
    check_vocabulary(
        "tiktoken fixture",
        &vocab,
        &Budget {
            walks: 20,
            segmentations: 2,
        },
    );
}

/// Real vocabularies, when `../shared/vocabs` is present (it is in CI).
#[test]
fn real_vocabularies() {
    for file in [
        "llama2/tokenizer.json",
        "llama3/tokenizer.json",
        "qwen3/tokenizer.json",
    ] {
        let Some(vocab) = shared_vocab(file) else {
            continue;
        };
        check_vocabulary(
            file,
            &vocab,
            &Budget {
                walks: 10,
                segmentations: 2,
            },
        );
    }
}
