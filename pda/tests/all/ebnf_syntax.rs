//! The XGrammar EBNF reader: what it reads differently from GBNF, each against the Earley
//! recognizer on hand-written GBNF; its refusals with positions; malformed text under
//! proptest.

use crate::lark_syntax::{agree, check};
use fstc_pda::{Pda, Syntax};
use proptest::prelude::*;

#[test]
fn ebnf_constructs_agree_with_the_recognizer_on_hand_written_gbnf() {
    let cases: &[(&str, &str, &[u8])] = &[
        (
            "root ::= a.b+ | \"c\"{2,}\na.b ::= [a-b] \"\\x63\"",
            "root ::= x+ | \"c\"{2,}\nx ::= [a-b] \"c\"",
            b"abc",
        ),
        (
            "root ::= \"\\e\\a\" [\\.\\*\\x0a] ()",
            "root ::= \"\\x1b\\x07\" [.*\\n]",
            b"\x1b\x07.*\na",
        ),
        (
            "# comment\nroot ::= ( \"a\" | \"b\" )? \"c\"* # trailing\n",
            "root ::= (\"a\" | \"b\")? \"c\"*",
            b"abc",
        ),
        (
            "root ::= Regex(\"[a-c]+x?\") | \"y\"",
            "root ::= [a-c]+ \"x\"? | \"y\"",
            b"abxy",
        ),
        (
            "root ::= Regex(\"\\\\d+\")",
            "root ::= [0-9]+",
            b"12\xd9\xa3",
        ),
        (
            "root ::= Regex( \"^a(b|c)*$\" , json_string = false ) \"$\"",
            "root ::= \"a\" [bc]* \"$\"",
            b"abc$",
        ),
        (
            "root[capture] ::= a \"b\"{1,-1}\na[capture=\"first\"] ::= \"a\"",
            "root ::= \"a\" \"b\"+",
            b"ab",
        ),
        (
            "root ::= a \"b\"{1, -1}\na[ capture=\"first\" ] ::= \"a\"+",
            "root ::= \"a\"+ \"b\"+",
            b"ab",
        ),
        (
            "root[stop_capture=\"s\", capture_hidden_stop_bytes=2] ::= \"a\" \"b\"?",
            "root ::= \"a\" \"b\"?",
            b"ab",
        ),
        // Runs of consecutive chunks, the empty one included; an empty chunk is no chunk.
        (
            "root ::= Substring(\"ab\", \"c\", \"\", \"d\") \".\"",
            "root ::= (\"\" | \"ab\" | \"abc\" | \"abcd\" | \"c\" | \"cd\" | \"d\") \".\"",
            b"abcd.",
        ),
        (
            "root ::= Substring( ) \"x\" | Substring(\"a\\x62\", \"a\") \"y\"",
            "root ::= \"x\" | (\"\" | \"ab\" | \"aba\" | \"a\") \"y\"",
            b"abxy",
        ),
        // TagDispatch as a `triggered_tags`: free text without a trigger (here: no `ab`),
        // a trigger hands the text to its rule, then free text again.
        (
            "root ::= TagDispatch((\"ab\", r))\nr ::= \"c\" \"x\"?",
            "root ::= f (\"ab\" r f)*\nf ::= ([^a] | \"a\"+ [^ab])* \"a\"*\nr ::= \"c\" \"x\"?",
            b"abcx",
        ),
        (
            "root ::= TagDispatch((\"ab\", r), loop_after_dispatch=false, excludes=(\"c\",))\nr ::= \"c\" \"x\"?",
            "root ::= f (\"ab\" r)?\nf ::= ([^ac] | \"a\"+ [^abc])* \"a\"*\nr ::= \"c\" \"x\"?",
            b"abcx",
        ),
        (
            "root ::= TagDispatch( (\"ab\", r,), (\"x\", s), )\nr ::= \"c\"\ns ::= \"b\"+",
            "root ::= f (\"ab\" r f | \"x\" s f)*\nf ::= ([^ax] | \"a\"+ [^abx])* \"a\"*\nr ::= \"c\"\ns ::= \"b\"+",
            b"abcx",
        ),
    ];
    for (ebnf, gbnf, alphabet) in cases {
        agree(Syntax::Ebnf, ebnf, gbnf, alphabet, 5);
    }
}

#[test]
fn ebnf_refusals_name_line_and_column() {
    let bad = [
        "root ::= a \"(\"\na ::= \"x\" (= b)\nb ::= \"(\" b \")\" | \"\"",
        "root ::= Substring(\"a\" \"b\")",
        "root ::= Substring(\"a\",)",
        "root ::= Substring(a)",
        "root ::= Regex(\"a\", flags=\"i\")",
        "root[lazy] ::= \"a\"",
        "root[temperature=0.5] ::= \"a\"",
        "root[max_chars=3] ::= \"a\"",
        "root ::= TagDispatch((\"<t>\", a), excludes=(\"<\"))\na ::= \"x\"",
        "root ::= TagDispatch((\"\", a))\na ::= \"x\"",
        "root ::= TagDispatch((\"<t>\" a))\na ::= \"x\"",
        "root ::= TagDispatch((\"<t>\", b))\na ::= \"x\"",
        "root ::= TagDispatch(stop_eos=true)",
        "root ::= TagDispatch(loop_after_dispatch=1)",
        "root ::= TagDispatch((\"<t>\", a)\na ::= \"x\"",
        "root ::= Regex(\"[a-z]+\", json_string=true)",
        "root ::= Regex(\"a\\\\bc\")",
        "root ::= Regex(\"a(\")",
        "root ::= Regex(a)",
        "root ::= Regex(\"a\", flags=1)",
        "root ::= Regex(\"a\"",
        "root ::= Token(1, 2)",
        "root[max_tokens=5] ::= \"a\"",
        "root[capture=\"\"] ::= \"a\"",
        "root[capture ::= \"a\"",
        "root ::= \"a\"{2,-2}",
        "root ::= <[1000]>",
        "root ::= \"a\"\nroot ::= \"b\"",
        "start ::= \"a\"",
        "root -> \"a\"",
        "root ::= \"\\q\"",
        "root ::= [\\d]",
    ];
    let mut out = String::new();
    for text in bad {
        let e = Pda::from_text(text, Syntax::Ebnf).unwrap_err();
        out.push_str(&format!("{text:?}\n  {:?}: {e}\n", e.kind()));
    }
    insta::assert_snapshot!(out);
}

fn ebnf_chars() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "root",
            " ::= ",
            "a.b",
            "\"",
            "\\",
            "[",
            "]",
            "^",
            "-",
            "(",
            "(=",
            ")",
            "|",
            "*",
            "+",
            "?",
            "{",
            "}",
            ",",
            "1",
            "\\x",
            "\\e",
            "#",
            "\n",
            " ",
            "TagDispatch(",
            "Regex(\"",
            "Substring(\"",
            "json_string=",
            "[capture]",
            "[max_tokens=1]",
            "-1",
            "<[",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

const CALC: &str = include_str!("../grammars/calc.ebnf");

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn malformed_ebnf_text_is_an_error_not_a_panic(text in ebnf_chars()) {
        check(Syntax::Ebnf, &text);
    }

    #[test]
    fn mutated_ebnf_grammar_is_an_error_or_a_pda(pos in 0usize..2000, len in 0usize..6, with in ebnf_chars()) {
        let mut pos = pos % CALC.len();
        while !CALC.is_char_boundary(pos) {
            pos -= 1;
        }
        let mut end = (pos + len).min(CALC.len());
        while !CALC.is_char_boundary(end) {
            end -= 1;
        }
        check(Syntax::Ebnf, &format!("{}{}{}", &CALC[..pos], with, &CALC[end..]));
    }
}
