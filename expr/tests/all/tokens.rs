//! Expressions compiled for three tokenizer families: every tokenization of a text is
//! accepted exactly when the text is in the language (texts and tokenizations checked
//! against the `regex` crate); boolean operations give the same file on bytes and on
//! tokens; token bounds and compiled files equal the operations applied by hand; errors
//! in compiling name the node.

use fstc_core::automaton::TokenAutomaton;
use fstc_core::ops::{at_most_tokens, TokenAlgebra};
use fstc_core::sample::SplitMix64;
use fstc_detok::Vocabulary;
use fstc_expr::{Expr, ExprCompiler, Level};
use fstc_regex::RegexCompiler;
use testkit::patterns::all_texts;
use testkit::tokenize::{accepts, Segmenter};
use testkit::vocabs::testdata_dir;

const FAMILIES: [&str; 3] = [
    "bytelevel/tokenizer.json",
    "sentencepiece/tokenizer.json",
    "tiktoken/small.tiktoken",
];

fn vocab(rel: &str) -> Vocabulary {
    Vocabulary::from_file(testdata_dir().join(rel)).unwrap()
}

/// A text's membership in a language, judged by the `regex` crate.
type Oracle = Box<dyn Fn(&[u8]) -> bool>;

/// Expressions and the same language judged on a text by the `regex` crate.
fn cases() -> Vec<(&'static str, Oracle)> {
    let re = |p: &str| regex::bytes::Regex::new(&format!(r"\A(?:{p})\z")).unwrap();
    let (ids, ab_c) = (re("id-[0-9]+"), re("(?:ab|c+)*"));
    let (word, bad) = (re("[a-d]{1,5}"), re("(?s:.)*(?:bad|cd)(?s:.)*"));
    let (x, y) = (re("[a-c]+"), re("a+b?"));
    vec![
        (
            r#"concat(text("id-"), regex("[0-9]+"))"#,
            Box::new(move |t| ids.is_match(t)),
        ),
        (
            r#"star(union(text("ab"), regex("c+")))"#,
            Box::new(move |t| ab_c.is_match(t)),
        ),
        (
            r#"intersect(regex("[a-d]{1,5}"), complement(regex("(?s:.)*(?:bad|cd)(?s:.)*")))"#,
            Box::new(move |t| word.is_match(t) && !bad.is_match(t)),
        ),
        (
            r#"difference(regex("[a-c]+"), regex("a+b?"))"#,
            Box::new(move |t| x.is_match(t) && !y.is_match(t)),
        ),
    ]
}

#[test]
fn every_tokenization_is_accepted_exactly_for_the_texts_of_the_language() {
    let pieces: &[&[u8]] = &[b"a", b"b", b"c", b"d", b"0", b"1", b"-", b"id-", b"ab"];
    let texts = all_texts(pieces, 4);
    for rel in FAMILIES {
        let vocab = vocab(rel);
        let seg = Segmenter::new(&vocab);
        let mut rng = SplitMix64::new(7);
        for (text, oracle) in cases() {
            let e = Expr::parse(text).unwrap();
            let a = ExprCompiler::new().compile(&e, &vocab).unwrap().automaton;
            let mut accepted = 0;
            for t in &texts {
                for _ in 0..2 {
                    let Some(tokens) = seg.segment(t, &mut rng) else {
                        continue;
                    };
                    let yes = oracle(t);
                    accepted += yes as usize;
                    assert_eq!(
                        accepts(&a, &tokens),
                        yes,
                        "{rel}: {text} on {t:?} as {tokens:?}"
                    );
                }
            }
            assert!(
                accepted > 10,
                "{rel}: {text}: too few texts in the language"
            );
        }
    }
}

#[test]
fn boolean_operations_give_the_same_file_on_bytes_and_on_tokens() {
    for rel in FAMILIES {
        let vocab = vocab(rel);
        for (text, _) in cases() {
            let e = Expr::parse(text).unwrap();
            let on_bytes = ExprCompiler::new().compile(&e, &vocab).unwrap();
            let on_tokens = ExprCompiler::new()
                .boolean_level(Level::Tokens)
                .compile(&e, &vocab)
                .unwrap();
            assert_eq!(on_bytes.automaton, on_tokens.automaton, "{rel}: {text}");
        }
    }
}

#[test]
fn token_bounds_and_files_equal_the_operations_applied_by_hand() {
    let dir = std::env::temp_dir().join(format!("fstc-expr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for rel in FAMILIES {
        let vocab = vocab(rel);
        let compile = |p: &str| RegexCompiler::new().compile(p, &vocab).unwrap().automaton;
        let algebra = TokenAlgebra::new();
        let e = Expr::parse(r#"intersect(regex("[a-c]{2,8}"), max_tokens(3))"#).unwrap();
        let got = ExprCompiler::new().compile(&e, &vocab).unwrap().automaton;
        let bound = at_most_tokens(&vocab, 3).unwrap();
        let expected = algebra.intersect(&compile("[a-c]{2,8}"), &bound).unwrap();
        assert_eq!(got, expected.automaton, "{rel}");
        check_bound(&got, &vocab, 3);
        // A compiled file as an operand, relative to the base folder.
        compile("a+b?").write_file(dir.join("ab.fstc")).unwrap();
        let e = Expr::parse(r#"difference(regex("[a-c]+"), automaton("ab.fstc"))"#).unwrap();
        let got = ExprCompiler::new()
            .base_dir(&dir)
            .compile(&e, &vocab)
            .unwrap();
        let expected = algebra
            .difference(&compile("[a-c]+"), &compile("a+b?"))
            .unwrap();
        assert_eq!(got.automaton, expected.automaton, "{rel}");
        assert!(got.stats.phase("product").is_some(), "{}", got.stats);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every accepted walk of `a` has at most `n` tokens.
fn check_bound(a: &TokenAutomaton, vocab: &Vocabulary, n: usize) {
    let mut rng = SplitMix64::new(1);
    for _ in 0..200 {
        let walk = testkit::tokenize::walk_to_eos(a, &mut rng, n + 2);
        if walk.complete {
            assert!(walk.tokens.len() <= n);
            let text = vocab.detokenize(&walk.tokens);
            assert!(text.len() >= 2 && text.iter().all(|b| b"abc".contains(b)));
        }
    }
}

fn compile_error(text: &str) -> String {
    let vocab = vocab(FAMILIES[0]);
    let e = Expr::parse_any(text).unwrap();
    let err = ExprCompiler::new().compile(&e, &vocab).unwrap_err();
    format!("{}: {}", err.at(), err.message())
}

#[test]
fn compile_errors_name_the_node() {
    let err = compile_error(r#"concat(regex("a"), max_tokens(3))"#);
    assert!(err.starts_with("column 20: `concat` joins texts"), "{err}");
    let err = compile_error(r#"{"star": {"intersect": [{"regex": "a"}, {"max_tokens": 2}]}}"#);
    assert!(err.starts_with("/star: `star` joins texts"), "{err}");
    let err = compile_error(r#"union(regex("a"), json("no-such-schema.json"))"#);
    assert!(
        err.starts_with("column 19: cannot read no-such-schema.json"),
        "{err}"
    );
    let err = compile_error(r#"union(regex("a"), regex("(b"))"#);
    assert!(err.starts_with("column 19: "), "{err}");
    let err = compile_error(r#"intersect(regex("a"), json_schema("{\"type\": 3}"))"#);
    assert!(err.starts_with("column 23: the schema: "), "{err}");
    let err = compile_error(r#"intersect(regex("a+"), regex("b+"))"#);
    assert_eq!(err, "column 1: the expression accepts no token sequence");
    // The builder's trees are named by their pointer in the JSON form.
    let e = Expr::union([
        Expr::regex("a"),
        Expr::concat([Expr::max_tokens(2), Expr::text("b")]),
    ]);
    let err = ExprCompiler::new()
        .compile(&e, &vocab(FAMILIES[0]))
        .unwrap_err();
    assert_eq!(err.at(), "/union/1/concat/0");
    let err = ExprCompiler::new()
        .byte_dfa(&Expr::max_tokens(2))
        .unwrap_err();
    assert!(err.message().contains("needs a vocabulary"), "{err}");
}

#[test]
fn json_schemas_compose_with_texts_around_them() {
    let vocab = vocab(FAMILIES[0]);
    let e = Expr::parse(
        r#"concat(text("Answer: "), json_schema("{\"type\": \"integer\", \"minimum\": 0}"))"#,
    )
    .unwrap();
    let a = ExprCompiler::new().compile(&e, &vocab).unwrap().automaton;
    let seg = Segmenter::new(&vocab);
    let mut rng = SplitMix64::new(3);
    for (t, yes) in [
        ("Answer: 42", true),
        ("Answer: -1", false),
        ("Answer:42", false),
    ] {
        let tokens = seg.segment(t.as_bytes(), &mut rng).unwrap();
        assert_eq!(accepts(&a, &tokens), yes, "{t}");
    }
}
