//! An expression's byte DFA against the expression evaluated by hand on texts: the leaves
//! by the `regex` crate, each operation by its definition (both match, either, one not
//! the other, some split point for concatenation, some splits for closure and repetition).

use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_expr::{Expr, ExprCompiler};
use testkit::patterns::{all_texts, random_pattern};

const PIECES: &[&[u8]] = &[b"a", b"b", b"c", "é".as_bytes(), b"\xC3"];

/// The meaning of an expression, evaluated on a text.
enum Oracle {
    Regex(regex::bytes::Regex),
    Text(Vec<u8>),
    And(Vec<Oracle>),
    Or(Vec<Oracle>),
    Minus(Box<Oracle>, Box<Oracle>),
    Not(Box<Oracle>),
    Concat(Vec<Oracle>),
    Star(Box<Oracle>),
    Repeat(Box<Oracle>, u64, u64),
}

impl Oracle {
    fn matches(&self, t: &[u8]) -> bool {
        match self {
            Oracle::Regex(r) => r.is_match(t),
            Oracle::Text(s) => s == t,
            Oracle::And(v) => v.iter().all(|o| o.matches(t)),
            Oracle::Or(v) => v.iter().any(|o| o.matches(t)),
            Oracle::Minus(a, b) => a.matches(t) && !b.matches(t),
            Oracle::Not(a) => !a.matches(t),
            Oracle::Concat(v) => concat(v, t),
            Oracle::Star(a) => {
                t.is_empty() || (1..=t.len()).any(|i| a.matches(&t[..i]) && self.matches(&t[i..]))
            }
            Oracle::Repeat(a, min, max) => repeat(a, *min, *max, t),
        }
    }
}

fn concat(parts: &[Oracle], t: &[u8]) -> bool {
    match parts {
        [] => t.is_empty(),
        [first, rest @ ..] => {
            (0..=t.len()).any(|i| first.matches(&t[..i]) && concat(rest, &t[i..]))
        }
    }
}

fn repeat(a: &Oracle, min: u64, max: u64, t: &[u8]) -> bool {
    (min == 0 && t.is_empty())
        || (max > 0
            && (0..=t.len())
                .any(|i| a.matches(&t[..i]) && repeat(a, min.saturating_sub(1), max - 1, &t[i..])))
}

/// A random expression of byte languages and its oracle.
fn random(rng: &mut SplitMix64, depth: u32) -> (Expr, Oracle) {
    if depth == 0 || rng.below(3) == 0 {
        if rng.below(4) == 0 {
            let s = ["", "a", "ab", "é"][rng.index(4)];
            return (Expr::text(s), Oracle::Text(s.as_bytes().to_vec()));
        }
        let p = random_pattern(rng, 2);
        let r = regex::bytes::Regex::new(&format!(r"\A(?:{p})\z")).unwrap();
        return (Expr::regex(p), Oracle::Regex(r));
    }
    let (a, oa) = random(rng, depth - 1);
    let (b, ob) = random(rng, depth - 1);
    match rng.below(7) {
        0 => (Expr::intersect([a, b]), Oracle::And(vec![oa, ob])),
        1 => (Expr::union([a, b]), Oracle::Or(vec![oa, ob])),
        2 => (
            Expr::difference(a, b),
            Oracle::Minus(Box::new(oa), Box::new(ob)),
        ),
        3 => (Expr::complement(a), Oracle::Not(Box::new(oa))),
        4 => (Expr::concat([a, b]), Oracle::Concat(vec![oa, ob])),
        5 => (Expr::star(a), Oracle::Star(Box::new(oa))),
        _ => {
            let min = rng.below(3);
            let max = min + rng.below(2);
            (
                Expr::repeat(a, min, max),
                Oracle::Repeat(Box::new(oa), min, max),
            )
        }
    }
}

fn check(e: &Expr, dfa: &ByteDfa, oracle: &Oracle, texts: &[Vec<u8>]) {
    for t in texts {
        assert_eq!(dfa.is_match(t), oracle.matches(t), "{e} on {t:?}");
    }
}

#[test]
fn byte_dfas_of_random_expressions_agree_with_the_oracle() {
    let texts = all_texts(PIECES, 4);
    let compiler = ExprCompiler::new();
    let mut rng = SplitMix64::new(25);
    for _ in 0..120 {
        let (e, oracle) = random(&mut rng, 3);
        let dfa = compiler.byte_dfa(&e).unwrap();
        check(&e, &dfa, &oracle, &texts);
        // Read back from either spelling, it is the same DFA.
        let again = Expr::parse(&e.to_string()).unwrap();
        assert_eq!(compiler.byte_dfa(&again).unwrap(), dfa, "{e}");
    }
}

#[test]
fn the_issue_examples_mean_what_they_say() {
    let compiler = ExprCompiler::new();
    let e = Expr::parse(r#"concat(text("id-"), repeat(regex("[0-9]"), 2, 3))"#).unwrap();
    let dfa = compiler.byte_dfa(&e).unwrap();
    for (t, yes) in [
        ("id-12", true),
        ("id-123", true),
        ("id-1", false),
        ("id-1234", false),
    ] {
        assert_eq!(dfa.is_match(t.as_bytes()), yes, "{t}");
    }
    // "this regex but never these words"
    let e =
        Expr::parse(r#"difference(regex("[a-z ]+"), regex("(?s:.)*\\b(?:foo|bar)\\b(?s:.)*"))"#)
            .unwrap();
    let dfa = compiler.byte_dfa(&e).unwrap();
    assert!(dfa.is_match(b"food and barn"));
    assert!(!dfa.is_match(b"no foo here"));
}

#[test]
fn schema_options_given_as_keywords_hold_for_their_call_only() {
    let schema = r#"{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}"#;
    let pretty_text = "{\n    \"a\": 1\n}";
    let e = Expr::parse(&format!(
        "union(json_schema({schema:?}, indent=4), concat(text(\"!\"), json_schema({schema:?}, whitespace=\"compact\")))"
    ))
    .unwrap();
    // The compiler's own style (flexible) applies to neither call.
    let dfa = ExprCompiler::new().byte_dfa(&e).unwrap();
    for (t, yes) in [
        (pretty_text, true),
        ("{\"a\": 1}", false),
        ("!{\"a\":1}", true),
        ("!{\"a\": 1}", false),
        ("!{\n    \"a\": 1\n}", false),
    ] {
        assert_eq!(dfa.is_match(t.as_bytes()), yes, "{t:?}");
    }
    // A keyword is the compiler's option for that one schema: same DFA.
    let compact = fstc_json::Config::new().whitespace(fstc_json::Whitespace::Compact);
    let by_config = ExprCompiler::new()
        .configure(compact)
        .byte_dfa(&Expr::json_schema(schema))
        .unwrap();
    let by_keyword = Expr::json_schema(schema).option("whitespace", "compact");
    let by_keyword = ExprCompiler::new().byte_dfa(&by_keyword.unwrap()).unwrap();
    assert_eq!(by_keyword, by_config);
    // Past a schema option's bound: the error is the schema's, at the call.
    let e = Expr::parse(&format!("json_schema({schema:?}, indent=100)")).unwrap();
    let err = ExprCompiler::new().byte_dfa(&e).unwrap_err();
    assert!(err.message().contains("indent"), "{err}");
}
