//! GBNF grammars written for these tests (JSON, left-recursive arithmetic, nested lists, a
//! tool-call format, a SQL subset) against an Earley recognizer that shares no code with the
//! compiler (`common::earley`), on three tokenizer families from `testdata/` (byte-level
//! BPE, SentencePiece BPE with byte fallback, tiktoken ranks):
//!
//! - known-good texts are accepted by the byte PDA, and by the token PDA under the
//!   tokenizer's own encoding and under random tokenizations;
//! - mutations of them (a byte deleted, inserted or replaced) are accepted exactly when the
//!   recognizer accepts them;
//! - random walks of the token PDA never get stuck, and every text they finish parses.

use crate::common::{compile, run_tokens, Compiled, Walk};
use crate::earley::Earley;
use detok::Vocabulary;
use fst_core::sample::SplitMix64;
use fst_core::TokenVocabulary;
use pda::Pda;
use testkit::vocabs::testdata_dir;

struct Case {
    file: &'static str,
    good: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        file: "json.gbnf",
        good: &[
            r#"{"a": [1, 2.5, -3e+4, true, null], "b": {"c": "d\n\u00e9 ü"}}"#,
            "[]",
            " [ [ [ {} ] ] , \"x\" ]\n",
            r#"{"k":0,"l":[false,"tab\t"]}"#,
            "-0.25E-2",
        ],
    },
    Case {
        file: "arith.gbnf",
        good: &[
            "1 + 2 * 3",
            "(1+2)*(3-4)/5 % 6",
            "- -x1 - f(2, g(y), (3))",
            "max(a, b) * 2.50 - 1",
            "((((7))))",
        ],
    },
    Case {
        file: "lists.gbnf",
        good: &[
            "(define (square x) (* x x))",
            "()",
            "( 'a \"str ing\" (b (c 12)) )",
            "(if (< n 2)\n  n\n  (+ (fib (- n 1)) (fib (- n 2))))",
        ],
    },
    Case {
        file: "toolcall.gbnf",
        good: &[
            r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>"#,
            "<tool_call>\n{ \"name\":\"search\", \"arguments\": {\"q\": \"a \\\"b\\\"\", \"tags\": [\"x\", 1, [true]], \"opt\": {}} }\n</tool_call>",
            r#"<tool_call>{"name":"get_time","arguments":{}}</tool_call>"#,
        ],
    },
    Case {
        file: "sql.gbnf",
        good: &[
            "SELECT * FROM users;",
            "SELECT DISTINCT name, COUNT(*) AS n FROM (SELECT name FROM t WHERE age >= 18 AND city = 'O''Hare') AS s GROUP BY name ORDER BY n DESC LIMIT 10",
            "SELECT a.b FROM t WHERE x IS NOT NULL OR y LIKE 'a%'",
            "SELECT MAX(price) FROM items WHERE price < -2.5",
        ],
    },
];

pub fn grammar_text(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/grammars")
        .join(file);
    std::fs::read_to_string(path).unwrap()
}

/// The three fixture tokenizers, each with an EOS id (the mask is then wider than the
/// rank file for tiktoken).
fn fixture_vocabs() -> Vec<(&'static str, Vocabulary)> {
    [
        "bytelevel/tokenizer.json",
        "sentencepiece/tokenizer.json",
        "tiktoken/small.tiktoken",
    ]
    .iter()
    .map(|rel| {
        let mut vocab = Vocabulary::from_file(testdata_dir().join(rel)).unwrap();
        if vocab.eos_ids().is_empty() {
            // A rank file names no special token: EOS is an id past the ranks.
            let past = vocab.len() as u32;
            vocab = vocab.with_eos_ids(vec![past]).unwrap();
        }
        assert!(!vocab.eos_ids().is_empty(), "{rel} has no EOS");
        (*rel, vocab)
    })
    .collect()
}

/// A random tokenization of `text` over `tokens` (id, bytes); `None` when some position has
/// no token.
fn random_tokenization(
    tokens: &[(u32, Vec<u8>)],
    text: &[u8],
    rng: &mut SplitMix64,
) -> Option<Vec<u32>> {
    let mut ids = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let fits: Vec<&(u32, Vec<u8>)> = tokens
            .iter()
            .filter(|(_, b)| text[pos..].starts_with(b))
            .collect();
        if fits.is_empty() {
            return None;
        }
        let (id, bytes) = fits[rng.index(fits.len())];
        ids.push(*id);
        pos += bytes.len();
    }
    Some(ids)
}

fn mutate(text: &[u8], rng: &mut SplitMix64) -> Vec<u8> {
    let mut t = text.to_vec();
    let alphabet = b" \"'()*+,-.01:;<>AEFSabcdefnstuxz[]{}\\\n";
    let pos = rng.index(t.len() + 1);
    match rng.index(3) {
        0 if !t.is_empty() => {
            t.remove(pos.min(t.len() - 1));
        }
        1 => t.insert(pos, alphabet[rng.index(alphabet.len())]),
        _ if !t.is_empty() => {
            let at = pos.min(t.len() - 1);
            t[at] = alphabet[rng.index(alphabet.len())];
        }
        _ => t.push(b'x'),
    }
    t
}

/// A random walk: random allowed tokens, EOS as soon as allowed after `min_len` steps.
/// Returns the text when the walk ends within the step budget.
fn random_walk(
    tpda: &Compiled,
    vocab: &Vocabulary,
    rng: &mut SplitMix64,
    min_len: usize,
) -> Option<Vec<u8>> {
    let mut w = tpda.walker();
    let mut text = Vec::new();
    for step in 0..400 {
        let allowed = w.allowed();
        assert!(
            !allowed.is_empty(),
            "the walk got stuck after {:?}",
            String::from_utf8_lossy(&text)
        );
        let eos: Vec<u32> = allowed
            .iter()
            .copied()
            .filter(|t| tpda.eos_ids.contains(t))
            .collect();
        let pick = if !eos.is_empty() && (step >= min_len || eos.len() == allowed.len()) {
            eos[0]
        } else {
            // Prefer tokens that are not EOS; late in the walk, short tokens (closers).
            let text_tokens: Vec<u32> = allowed
                .iter()
                .copied()
                .filter(|t| !eos.contains(t))
                .collect();
            text_tokens[rng.index(text_tokens.len())]
        };
        assert!(w.step(pick));
        if w.finished() {
            return Some(text);
        }
        text.extend_from_slice(vocab.token_bytes(pick).unwrap_or_default());
    }
    None
}

#[test]
fn grammars_agree_with_an_earley_recognizer_on_three_tokenizer_families() {
    let vocabs = fixture_vocabs();
    let mut rng = SplitMix64::new(12);
    for case in CASES {
        let text = grammar_text(case.file);
        let rules = pda::gbnf::parse(&text).unwrap();
        let earley = Earley::new(&rules);
        let pda = Pda::from_rules(&rules).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let mut mutants = Vec::new();
        for good in case.good {
            assert!(
                earley.accepts(good.as_bytes()),
                "{}: the recognizer rejects {good:?}",
                case.file
            );
            assert!(
                pda.accepts(good.as_bytes()),
                "{}: the PDA rejects {good:?}",
                case.file
            );
            for _ in 0..30 {
                let m = mutate(good.as_bytes(), &mut rng);
                let expected = earley.accepts(&m);
                assert_eq!(
                    pda.accepts(&m),
                    expected,
                    "{}: {:?}",
                    case.file,
                    String::from_utf8_lossy(&m)
                );
                mutants.push((m, expected));
            }
        }
        let rejected = mutants.iter().filter(|(_, ok)| !ok).count();
        assert!(
            rejected >= mutants.len() / 2,
            "{}: only {rejected} mutants rejected",
            case.file
        );
        for (name, vocab) in &vocabs {
            let tpda = compile(&pda, vocab);
            let tokens: Vec<(u32, Vec<u8>)> = (0..vocab.len() as u32)
                .filter_map(|id| {
                    vocab
                        .token_bytes(id)
                        .filter(|b| !b.is_empty())
                        .map(|b| (id, b.to_vec()))
                })
                .collect();
            let where_ = format!("{} on {name}", case.file);
            for good in case.good {
                let own = vocab.tokenize(good).unwrap();
                assert_eq!(
                    vocab.detokenize(&own),
                    good.as_bytes(),
                    "{where_}: {good:?} does not round-trip"
                );
                assert!(
                    run_tokens(&tpda, 0, &own),
                    "{where_}: own tokenization of {good:?} rejected"
                );
                for _ in 0..3 {
                    let ids = random_tokenization(&tokens, good.as_bytes(), &mut rng).unwrap();
                    assert!(
                        run_tokens(&tpda, 0, &ids),
                        "{where_}: {good:?} as {ids:?} rejected"
                    );
                }
            }
            for (m, expected) in mutants.iter().step_by(3) {
                if let Some(ids) = random_tokenization(&tokens, m, &mut rng) {
                    assert_eq!(
                        run_tokens(&tpda, 0, &ids),
                        *expected,
                        "{where_}: {:?}",
                        String::from_utf8_lossy(m)
                    );
                }
            }
            let mut finished = 0;
            for i in 0..20 {
                if let Some(text) = random_walk(&tpda, vocab, &mut rng, 5 + i) {
                    assert!(
                        earley.accepts(&text),
                        "{where_}: walk {:?} does not parse",
                        String::from_utf8_lossy(&text)
                    );
                    finished += 1;
                }
            }
            assert!(
                finished >= 5,
                "{where_}: only {finished} of 20 walks finished"
            );
        }
    }
}
