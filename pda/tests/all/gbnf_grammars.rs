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
use fstc_core::sample::SplitMix64;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_pda::Pda;
use testkit::vocabs::testdata_dir;

struct Case {
    file: &'static str,
    good: &'static [&'static str],
    /// The share of mutants (percent) the recognizer must reject, so that the mutation
    /// checks test something: loose formats (CSV fields, log messages) take most bytes.
    min_rejected_pct: usize,
    /// How many of 20 random walks must finish within 400 tokens (a walk of random tokens
    /// rarely closes a C-like function's blocks: those walks are only checked never to get
    /// stuck, and any that finishes to parse).
    min_finished: usize,
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
        min_rejected_pct: 50,
        min_finished: 5,
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
        min_rejected_pct: 50,
        min_finished: 5,
    },
    Case {
        file: "lists.gbnf",
        good: &[
            "(define (square x) (* x x))",
            "()",
            "( 'a \"str ing\" (b (c 12)) )",
            "(if (< n 2)\n  n\n  (+ (fib (- n 1)) (fib (- n 2))))",
        ],
        min_rejected_pct: 50,
        min_finished: 5,
    },
    Case {
        file: "toolcall.gbnf",
        good: &[
            r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>"#,
            "<tool_call>\n{ \"name\":\"search\", \"arguments\": {\"q\": \"a \\\"b\\\"\", \"tags\": [\"x\", 1, [true]], \"opt\": {}} }\n</tool_call>",
            r#"<tool_call>{"name":"get_time","arguments":{}}</tool_call>"#,
        ],
        min_rejected_pct: 50,
        min_finished: 5,
    },
    Case {
        file: "sql.gbnf",
        good: &[
            "SELECT * FROM users;",
            "SELECT DISTINCT name, COUNT(*) AS n FROM (SELECT name FROM t WHERE age >= 18 AND city = 'O''Hare') AS s GROUP BY name ORDER BY n DESC LIMIT 10",
            "SELECT a.b FROM t WHERE x IS NOT NULL OR y LIKE 'a%'",
            "SELECT MAX(price) FROM items WHERE price < -2.5",
        ],
        min_rejected_pct: 50,
        min_finished: 5,
    },
];

/// Formats users constrain output to, beyond the languages above, written for these tests:
/// chess moves, Unicode s-expressions, C-like functions, CSV/TSV, a YAML-like config, log
/// lines (counted repetitions, negated classes with `\u`/`\U` escapes, comments and rules
/// over several lines throughout).
const CORPUS: &[Case] = &[
    Case {
        file: "chess.gbnf",
        good: &[
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0",
            "1. d4 d5 2. c4 dxc4 3. e3 b5 4. a4 c6 5. axb5 cxb5 6. Qf3 Nc6 7. Qxa8 *",
            "1. e4 f5 2. exf5 g5 3. Qh5#",
            "41. Rxe8+ Kxe8 42. e8=Q+ Kf7 43. Nbd2 R1a3 44. O-O-O 1/2-1/2",
        ],
        min_rejected_pct: 50,
        min_finished: 5,
    },
    Case {
        file: "sexpr.gbnf",
        good: &[
            "(define (square x) (* x x))",
            "(let ((π 3.14) (名前 \"Zoë\")) ; bindings\n  (display π))",
            "#(1 -2.5 \"a\\\"b\" Мир)",
            "'(a (b (c (d (e)))))",
            "  (Ärger über-alles λ?)\n",
        ],
        min_rejected_pct: 40,
        min_finished: 5,
    },
    Case {
        file: "clike.gbnf",
        good: &[
            "int main() {\n  int x = 1;\n  while (x < 10) { x = x * 2; }\n  return x;\n}\n",
            "int f(int a, int b) { if (a > b) { return a - b; } else if (a == b) { return 0; } else { print(a, -b); } }",
            "int g() { for i in 0..10 { total = total + i; } {} return; }",
            "int h(int n){if(n<=1){return n;}return h(n-1)+h(n-2);}",
        ],
        min_rejected_pct: 50,
        min_finished: 0,
    },
    Case {
        file: "table.gbnf",
        good: &[
            "name,age,city\nAda,36,London\n\"Lovelace, Ada\",\"36\",\"Said \"\"hi\"\"\"\n",
            "a\tb\tc\r\n1\t2\t3\r\n\"x\ty\"\t\t\"multi\nline\"",
            "id\n1\n2",
        ],
        min_rejected_pct: 5,
        min_finished: 5,
    },
    Case {
        file: "config.gbnf",
        good: &[
            "# server settings\nname: \"demo\"\nport: 8080\ndebug: false\nserver:\n  host: example.org\n  ports: [80, 443]\n  # nested comment\n  - item one\n",
            "tags: [a, [b, c], \"d\\n\"]\nratio: -0.5\nempty:\n",
        ],
        min_rejected_pct: 30,
        min_finished: 5,
    },
    Case {
        file: "logline.gbnf",
        good: &[
            "2024-03-05T12:30:45Z INFO [api.server] started port=8080 mode=\"fast lane\"\n",
            "2026-11-24T03:40:00.123456Z ERROR [db-pool] connection lost: Zoë's café ☕\n2026-11-24T03:40:01Z WARN [db-pool] retry n=3\n",
        ],
        min_rejected_pct: 30,
        min_finished: 2,
    },
];

/// Grammars as users write them whose conflicts one byte of lookahead does not decide
/// (`tests/grammars/nondeterministic/`): compiled to nondeterministic token PDAs, walked
/// with sets of configurations; every step's mask is checked against the brute-force union
/// over explicit stacks (`common::RefWalker`).
const NONDETERMINISTIC: &[Case] = &[
    Case {
        file: "nondeterministic/bullets.gbnf",
        good: &["- milk \n- eggs and ham  \n", "- a b c\n"],
        min_rejected_pct: 40,
        min_finished: 2,
    },
    Case {
        file: "nondeterministic/ambiguous_expr.gbnf",
        good: &["1 + 2 * 3", "(1+2)*-3.5 / (4 - (5))", "((7))", "1+2+3+4+5+6+7+8"],
        min_rejected_pct: 40,
        min_finished: 2,
    },
    Case {
        file: "nondeterministic/indirect_expr.gbnf",
        good: &["1 + 2 * 3", "f(1, g(2)) * (3 - x(4))", "((1))-2/3*4"],
        min_rejected_pct: 40,
        min_finished: 0,
    },
    Case {
        file: "nondeterministic/sql_optional.gbnf",
        good: &[
            "SELECT * FROM users;",
            "SELECT id, name FROM WHERE WHERE id = 3 AND name != 'x' ORDER BY name DESC LIMIT 10 ;\n",
            "SELECT a FROM t WHERE (a = (SELECT b FROM u) OR c < 2) AND d = e LIMIT 5",
        ],
        min_rejected_pct: 40,
        min_finished: 0,
    },
    Case {
        file: "nondeterministic/sentences.gbnf",
        good: &[
            "time flies like a arrow.",
            "the man saw Ann with a telescope. Bob and Ann like a green banana.",
            "the old man flies.",
        ],
        min_rejected_pct: 40,
        min_finished: 2,
    },
    Case {
        file: "nondeterministic/dangling_else.gbnf",
        good: &[
            "if (a < 1) if (b == 2) x = 1; else y = 2;",
            "while (i < 10) {\n  if (i == 5) j = j + 1; else k = 0;\n  i = i + 1;\n}",
            "if (a == b) if (c != 0) while (d < 4) e = (e * 2) + 1; else f = 3; else g = 4;\nh = 5;",
        ],
        min_rejected_pct: 40,
        min_finished: 0,
    },
    Case {
        file: "nondeterministic/open_lists.gbnf",
        good: &["[1,[2,[x]],3,[4,5.", "[[1]].", "[[[x],2]].", "7."],
        min_rejected_pct: 40,
        min_finished: 5,
    },
    Case {
        file: "nondeterministic/clike_keywords.gbnf",
        good: &[
            "int x = 1;\nif (x) { foo(x, 2); } else { return x; }\nelse_x = 3;\n",
            "while (if(1) - 2) { return (3); } for (i = 0; i < 10; i = i + 1) {}",
        ],
        min_rejected_pct: 40,
        min_finished: 0,
    },
];

#[test]
fn nondeterministic_grammars_agree_with_an_earley_recognizer_on_three_tokenizer_families() {
    // Every one but the sentences, whose ambiguity the rule DFAs absorb once `pair`'s left
    // recursion is rewritten.
    for case in NONDETERMINISTIC {
        let pda = Pda::from_gbnf(&grammar_text(case.file)).unwrap();
        let sentences = case.file.ends_with("sentences.gbnf");
        assert_eq!(pda.is_deterministic(), sentences, "{}", case.file);
    }
    // Short walks: the reference enumerates explicit stacks, which ambiguity multiplies.
    agree_with_earley(NONDETERMINISTIC, 14, 40);
}

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
/// Returns the text when the walk ends within `max_len` steps.
fn random_walk(
    tpda: &Compiled,
    vocab: &Vocabulary,
    rng: &mut SplitMix64,
    (min_len, max_len): (usize, usize),
) -> Option<Vec<u8>> {
    let mut w = tpda.walker();
    let mut text = Vec::new();
    for step in 0..max_len {
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
    agree_with_earley(CASES, 12, 400);
}

#[test]
fn corpus_grammars_agree_with_an_earley_recognizer_on_three_tokenizer_families() {
    agree_with_earley(CORPUS, 13, 400);
}

/// The differential checks of the module comment, for each of `cases`.
fn agree_with_earley(cases: &[Case], seed: u64, walk_steps: usize) {
    let vocabs = fixture_vocabs();
    let mut rng = SplitMix64::new(seed);
    for case in cases {
        let text = grammar_text(case.file);
        let rules = fstc_pda::gbnf::parse(&text).unwrap();
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
            rejected * 100 >= mutants.len() * case.min_rejected_pct,
            "{}: only {rejected} of {} mutants rejected",
            case.file,
            mutants.len()
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
                if let Some(text) = random_walk(&tpda, vocab, &mut rng, (5 + i, walk_steps)) {
                    assert!(
                        earley.accepts(&text),
                        "{where_}: walk {:?} does not parse",
                        String::from_utf8_lossy(&text)
                    );
                    finished += 1;
                }
            }
            assert!(
                finished >= case.min_finished,
                "{where_}: only {finished} of 20 walks finished"
            );
        }
    }
}

#[test]
fn counted_repetitions_and_negated_u_escapes_of_the_log_grammar() {
    let pda = Pda::from_gbnf(&grammar_text("logline.gbnf")).unwrap();
    let at = |date: &str, component: &str, msg: &str| {
        format!("{date}T12:30:45Z INFO [{component}] {msg}\n")
    };
    let ok = |text: String| pda.accepts(text.as_bytes());
    assert!(ok(at("2024-03-05", "app", "café ☕ ok")));
    // `[^\n\u0000-\u001F\u007F\U0001F300-\U0001FAFF]`: emoji and control bytes refused,
    // the code points just past the range taken.
    assert!(!ok(at("2024-03-05", "app", "party \u{1F389}")));
    assert!(!ok(at("2024-03-05", "app", "edge \u{1FAFF}")));
    assert!(ok(at("2024-03-05", "app", "past \u{1FB00}")));
    assert!(!ok(at("2024-03-05", "app", "bell \u{7}")));
    assert!(!ok(at("2024-03-05", "app", "del \u{7F}")));
    // `[0-9]{4}`, month 01-12, and a component of at most 24 characters.
    assert!(!ok(at("202-03-05", "app", "x")));
    assert!(!ok(at("2024-13-05", "app", "x")));
    assert!(ok(at("2024-03-05", &"c".repeat(24), "x")));
    assert!(!ok(at("2024-03-05", &"c".repeat(25), "x")));
}
