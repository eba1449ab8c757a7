//! The GBNF reader: every construct against the Earley recognizer on every short text,
//! error messages with positions, and malformed or mutated grammar text (proptest): an
//! error naming a line and column, never a panic or a hang.

use crate::earley::Earley;
use fstc_pda::{Pda, PdaErrorKind};
use proptest::prelude::*;

/// Every text over `alphabet` up to `max_len` bytes.
pub fn all_texts(alphabet: &[u8], max_len: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut frontier = out.clone();
    for _ in 0..max_len {
        frontier = frontier
            .iter()
            .flat_map(|t| alphabet.iter().map(move |&b| [t.as_slice(), &[b]].concat()))
            .collect();
        out.extend(frontier.iter().cloned());
    }
    out
}

#[test]
fn each_construct_agrees_with_the_recognizer_on_all_short_texts() {
    let cases: &[(&str, &[u8])] = &[
        (
            r#"root ::= "a"{2} "b"{1,} "c"{0,2} | "x"{,2} "y"{3,4}"#,
            b"abcxy",
        ),
        (r#"root ::= ( "a" | "b" "c"? )* "d"+"#, b"abcd"),
        (r#"root ::= [a-c]+ [^a-c\n] | [\x61] "\u0062""#, b"abcd\n"),
        (r#"root ::= . . | "é" [À-ÿ]"#, "aé\u{c0}".as_bytes()),
        ("root ::= item+\nitem ::= \"(\" item* \")\" | [0-9]", b"()0"),
        ("root ::= \"\" | \"a\" root \"b\"  # comment\n", b"ab"),
        (
            "e ::= e \"+\" t | e \"-\" t | t\nt ::= t \"*\" f | f\nf ::= [0-9] | \"(\" e \")\"",
            b"1+*()",
        ),
        ("S -> \"ab\" | \"a\" S \"b\" ;", b"ab"),
        ("S → \"x\" S | \"\"", b"xy"),
    ];
    for (text, alphabet) in cases {
        let rules = fstc_pda::gbnf::parse(text).unwrap();
        let earley = Earley::new(&rules);
        let pda = Pda::from_rules(&rules).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut members = 0;
        for t in all_texts(alphabet, 6) {
            let expected = earley.accepts(&t);
            members += usize::from(expected);
            assert_eq!(
                pda.accepts(&t),
                expected,
                "{text}: {:?}",
                String::from_utf8_lossy(&t)
            );
        }
        assert!(members >= 2, "{text}: only {members} members");
    }
}

#[test]
fn parses_escapes_classes_and_repetitions() {
    use fstc_pda::gbnf::Expr;
    let rules = fstc_pda::gbnf::parse(
        r#"root ::= "\x41\u00e9\U0001F600\"\\\n" [^\]\-a-c] x{2,5}
x ::= "x""#,
    )
    .unwrap();
    assert_eq!(rules.start, "root");
    let Expr::Seq(items) = &rules.get("root").unwrap().body else {
        panic!("{rules:?}")
    };
    assert_eq!(items[0], Expr::Bytes("Aé😀\"\\\n".as_bytes().to_vec()));
    assert_eq!(
        items[1],
        Expr::Class {
            ranges: vec![
                (']' as u32, ']' as u32),
                ('-' as u32, '-' as u32),
                ('a' as u32, 'c' as u32)
            ],
            negated: true
        }
    );
    assert!(matches!(
        items[2],
        Expr::Repeat {
            min: 2,
            max: Some(5),
            ..
        }
    ));
    // Without `root`, the first rule starts.
    assert_eq!(
        fstc_pda::gbnf::parse("b ::= \"x\"\na ::= b").unwrap().start,
        "b"
    );
}

#[test]
fn a_line_break_inside_a_literal_or_class_is_itself_as_in_llama_cpp() {
    let raw = fstc_pda::gbnf::parse("root ::= \"a\nb\" [\n\r]\n").unwrap();
    let escaped = fstc_pda::gbnf::parse("root ::= \"a\\nb\" [\\n\\r]").unwrap();
    assert_eq!(
        raw.get("root").unwrap().body,
        escaped.get("root").unwrap().body
    );
    // The EBNF reader ends a literal at the line.
    assert!(fstc_pda::gbnf::parse_ebnf("root ::= \"a\nb\"").is_err());
}

#[test]
fn repetitions_go_up_to_llama_cpps_limit_of_2000() {
    let pda = Pda::from_gbnf("root ::= \"a\"{2000} \"b\"{0,2000}").unwrap();
    assert!(pda.accepts(&[b'a'; 2000]));
    assert!(pda.accepts(&[&[b'a'; 2000][..], &[b'b'; 2000][..]].concat()));
    assert!(!pda.accepts(&[b'a'; 1999]));
    assert!(!pda.accepts(&[&[b'a'; 2000][..], &[b'b'; 2001][..]].concat()));
}

#[test]
fn syntax_errors_name_line_and_column() {
    let bad = [
        "root ::= \"abc",
        "root ::= [a-",
        "root ::= [z-a]",
        "root ::= ( \"a\" | \"b\"",
        "root ::= \"a\"{3,1}",
        "root ::= \"a\"{2001}",
        "root ::= \"a\"{0,2001}",
        "root ::= <[1000]> \"a\"",
        "root ::= \"a\" !<[1000]>",
        "root ::= <think> \"x\"",
        "root ::= \"\\q\"",
        "root ::= \"\\uD800\"",
        "root ::= \"\\x4\"",
        "root \"a\"",
        "root ::= \"a\" )",
        "\n\n  root ::= @",
        "",
        "# only a comment\n",
    ];
    let mut out = String::new();
    for text in bad {
        let e = Pda::from_gbnf(text).unwrap_err();
        out.push_str(&format!("{text:?}\n  {:?}: {e}\n", e.kind()));
    }
    insta::assert_snapshot!(out);
}

/// Grammar-ish text: the characters GBNF gives meaning to, names and noise.
fn grammar_chars() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "root", " ::= ", "->", "a", "b", "x", "\"", "\\", "[", "]", "^", "-", "(", ")", "|",
            "*", "+", "?", "{", "}", ",", "1", "0", ".", "#", "\n", " ", "\\x", "\\u", "é", ";",
            "→", "<[", "!<", ">", "{2000}",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

fn check(text: &str) {
    match Pda::from_gbnf(text) {
        Ok(pda) => {
            pda.accepts(b"abx");
        }
        Err(e) => {
            let msg = e.to_string();
            if e.kind() == PdaErrorKind::Syntax {
                assert!(msg.contains("line ") && msg.contains(", column "), "{msg}");
            }
            if !text.contains('<') {
                assert!(!msg.contains('<'), "a generated name leaked into: {msg}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn malformed_grammar_text_is_an_error_not_a_panic(text in grammar_chars()) {
        check(&text);
    }

    #[test]
    fn mutated_json_grammar_is_an_error_or_a_pda(pos in 0usize..2000, len in 0usize..6, with in grammar_chars()) {
        let json = include_str!("../grammars/json.gbnf");
        let mut pos = pos % json.len();
        while !json.is_char_boundary(pos) {
            pos -= 1;
        }
        let mut end = (pos + len).min(json.len());
        while !json.is_char_boundary(end) {
            end -= 1;
        }
        check(&format!("{}{}{}", &json[..pos], with, &json[end..]));
    }
}
