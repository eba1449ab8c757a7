//! The Lark reader: each construct compiled from Lark agrees with the Earley recognizer run
//! on GBNF written by hand for the same language, on every short text; errors name the
//! line, column and definition; malformed and mutated Lark text (proptest) is an error
//! with a position, never a panic.

use crate::earley::Earley;
use crate::gbnf_syntax::all_texts;
use fstc_pda::{Pda, PdaErrorKind, Syntax};
use proptest::prelude::*;

/// The PDA of `lark` accepts exactly what the recognizer accepts on `gbnf`, on every text
/// over `alphabet` up to `max_len` bytes (with members and non-members among them).
pub fn agree(syntax: Syntax, text: &str, gbnf: &str, alphabet: &[u8], max_len: usize) {
    let pda = Pda::from_text(text, syntax).unwrap_or_else(|e| panic!("{text}: {e}"));
    let earley = Earley::new(&fstc_pda::gbnf::parse(gbnf).unwrap());
    let (mut members, mut others) = (0, 0);
    for t in all_texts(alphabet, max_len) {
        let expected = earley.accepts(&t);
        if expected {
            members += 1;
        } else {
            others += 1;
        }
        assert_eq!(
            pda.accepts(&t),
            expected,
            "{text}: {:?}",
            String::from_utf8_lossy(&t)
        );
    }
    assert!(
        members >= 2 && others >= 2,
        "{text}: {members} members, {others} others"
    );
}

#[test]
fn each_construct_agrees_with_the_recognizer_on_hand_written_gbnf() {
    let cases: &[(&str, &str, &[u8])] = &[
        (
            "start: \"a\" \"b\"? | \"c\"+ (\"d\" | \"e\")*",
            r#"root ::= "a" "b"? | "c"+ ("d" | "e")*"#,
            b"abcde",
        ),
        (
            "start: [\"a\"] \"b\" ~ 2 \"c\" ~ 0..2",
            r#"root ::= "a"? "b"{2} "c"{0,2}"#,
            b"abc",
        ),
        ("start: \"ab\"i \"c\"", r#"root ::= [aA] [bB] "c""#, b"aAbBc"),
        ("start: \"a\"..\"c\" /[x-z]+/", "root ::= [a-c] [x-z]+", b"abdxz"),
        (
            "start: PAIR+\nPAIR: LETTER DIGIT\n%import common.LETTER\n%import common.DIGIT",
            "root ::= ([a-zA-Z] [0-9])+",
            b"aZ1,",
        ),
        (
            "?start: item+ -> items\n?item: \"x\" -> ex\n    | \"(\" start \")\"  // nested\n",
            "root ::= item+\nitem ::= \"x\" | \"(\" root \")\"",
            b"x()",
        ),
        (
            "start: \"a\" B\nB: \"b\"\n%ignore \" \"",
            "root ::= \" \"* \"a\" \" \"* \"b\" \" \"*",
            b"ab ",
        ),
        (
            "start: x (\",\" x)*\nx: \"a\" | \"b\" \"c\"\n%ignore /[ \\t]+/\n%ignore \"#\"",
            "root ::= ig \"a\" ig r | ig \"b\" ig \"c\" ig r\nr ::= (\",\" ig (\"a\" ig | \"b\" ig \"c\" ig))*\nig ::= [ \\t#]*",
            b"abc, #",
        ),
        ("start: /a.b/s", "root ::= \"a\" . \"b\"", b"ab\n"),
        ("start: /a.b/", "root ::= \"a\" [^\\n] \"b\"", b"ab\n"),
        ("start: /a b+ # comment/x", "root ::= \"a\" \"b\"+", b"ab #"),
        ("start: /ab/i", "root ::= [aA] [bB]", b"aAbB"),
        ("start: /\\/[a\\/]/", "root ::= \"/\" [a/]", b"a/b"),
        (
            "start: \"\\x41\\n\" | \"\\u00e9\" | \"\\\"\"",
            "root ::= \"A\\n\" | \"é\" | \"\\\"\"",
            "A\né\"".as_bytes(),
        ),
        (
            "start: NUMBER (\",\" NUMBER)*\n%import common (NUMBER, WS)\n%ignore WS",
            "root ::= ws num ws (\",\" ws num ws)*\nnum ::= [0-9]+ | [0-9]+ [eE] [+-]? [0-9]+ | ([0-9]+ \".\" [0-9]* | \".\" [0-9]+) ([eE] [+-]? [0-9]+)?\nws ::= [ \\t\\x0c\\r\\n]*",
            b"1.e, ",
        ),
        (
            "start: S\nS: ESCAPED_STRING\n%import common.ESCAPED_STRING",
            "root ::= \"\\\"\" ([^\"\\\\\\n] | \"\\\\\" [^\\n])* \"\\\"\"",
            b"\"\\a\n",
        ),
        (
            "start: C\n%import common.C_COMMENT -> C",
            "root ::= \"/*\" ([^*] | \"*\"+ [^*/])* \"*\"+ \"/\"",
            b"/*a",
        ),
    ];
    for (lark, gbnf, alphabet) in cases {
        agree(Syntax::Lark, lark, gbnf, alphabet, 6);
    }
}

#[test]
fn templates_and_llguidance_spellings_agree_with_the_recognizer() {
    let cases: &[(&str, &str, &[u8])] = &[
        (
            "start: _sep{item, \",\"}\n_sep{x, sep}: x (sep x)*\nitem: \"a\" | \"b\"",
            "root ::= item (\",\" item)*\nitem ::= \"a\" | \"b\"",
            b"ab,",
        ),
        (
            "start: pair{bracket{\"a\"}} | bracket{\"b\" \"b\"}\npair{x}: x \":\" x\nbracket{y}: \"[\" y* \"]\"",
            "root ::= l \":\" l | \"[\" (\"bb\")* \"]\"\nl ::= \"[\" \"a\"* \"]\"",
            b"[a]:b",
        ),
        (
            "start: _sep{\"a\", \",\"}\n_sep{x, s}: x (s x)*\n%ignore \" \"",
            "root ::= \" \"* \"a\" \" \"* (\",\" \" \"* \"a\" \" \"*)*",
            b"a, ",
        ),
        (
            "start: \"a\"{2} \"b\"{1,} \"c\"{,2} \"d\"{ 0 , 1 }",
            "root ::= \"a\"{2} \"b\"+ \"c\"{0,2} \"d\"?",
            b"abcd",
        ),
        (
            "%llguidance {}\nstart: my-item+\nmy-item: \"x\" | \"y\" -> why",
            "root ::= [xy]+",
            b"xyz",
        ),
        (
            "start: w+ t\nw[capture]: /[ab]/\nt[capture=\"tail\"]: \"c\"",
            "root ::= [ab]+ \"c\"",
            b"abc",
        ),
        (
            "start: /a\n   b+   # one or more b\n/x \"c\"",
            "root ::= \"a\" \"b\"+ \"c\"",
            b"ab c",
        ),
    ];
    for (lark, gbnf, alphabet) in cases {
        agree(Syntax::Lark, lark, gbnf, alphabet, 6);
    }
}

#[test]
fn without_ignore_the_parsed_rules_are_the_grammar_as_written() {
    let rules = fstc_pda::lark::parse("start: A \"b\"\nA: \"a\"").unwrap();
    assert_eq!(rules.start, "start");
    assert_eq!(
        rules
            .rules
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>(),
        ["start", "A"]
    );
    let with = fstc_pda::lark::parse("start: \"a\"\n%ignore \" \"").unwrap();
    assert_eq!(with.start, "%start");
}

#[test]
fn errors_name_line_column_and_definition() {
    let bad = [
        "start: \"a\"\nexpr.2: \"b\"",
        "start: A\nA.2: \"a\"",
        "start: x\nx{y}: y",
        "%declare A\nstart: \"a\"",
        "start: \"a\"\n%override start: \"b\"",
        "%extend start: \"b\"\nstart: \"a\"",
        "%import json.VALUE\nstart: VALUE",
        "%import common.NOPE\nstart: NOPE",
        "%frobnicate\nstart: \"a\"",
        "start: \"a\"\n\nitem: ( \"b\" | \"c\"",
        "start: \"abc",
        "start: /abc",
        "start: /a(?=b)/",
        "start: /^a$/",
        "start: /a.*?b/",
        "start: /a(/",
        "start: /(?P<INT>a)/",
        "start: /a/q",
        "start: /a/l",
        "start: \"\\x4\"",
        "start: \"\\ud800\"",
        "start: \"^\"..\"z\"",
        "start: \"a\"..\"]\"",
        "start: /a*+/",
        "start: \"a\" ~ 3..1",
        "start: \"a\" ~ 5000",
        "start: \"ab\"..\"c\"",
        "start: \"a\"\nA: b\nb: \"b\"",
        "start: A\nA: \"a\" A",
        "start: \"a\"\nstart: \"b\"",
        "item: \"a\"",
        "start: \"a\" )",
        "start: @",
        "",
        "start: r{\"a\"}\nr{x, y}: x y",
        "start: t{\"a\"}\nt{x}: t{x}",
        "start: u{\"a\"}",
        "start: A\nA: t{\"a\"}\nt{x}: x",
        "start: T{\"a\"}\nT{x}: x",
        "start: t{\"a\"}\nt{x, }: x",
        "start: t{\"a\"}\nt{x y}: x",
        "start: t{\"a\" ]}\nt{x}: x",
        "start: t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{t{\"a\"}}}}}}}}}}}}}}}}}}}}}\nt{x}: x x",
        "start: \"a\" <|eos|>",
        "start: <[128000]>",
        "start: @sub",
        "start: %json [1]",
        "start: %json {\"type\": \"object\"",
        "start: A\nA: %json {}",
        "start: %json {\"type\": \"object\", \"x-guidance\": {\"whitespace_flexible\": false}}",
        "start: %json {\"type\": \"array\", \"uniqueItems\": true}",
        "start: %json {\"type\": \"strin\"}",
        "%json {}\nstart: \"a\"",
        "%regex {\"substring_words\": \"a b\"}\nstart: \"a\"",
        "start: A\nA: /[a-z]+/ & ~\"if\"",
        "start: w\nw[lazy]: /a+/",
        "start: w\nw[max_tokens=3]: /a+/",
        "start: w\nw[frob]: /a+/",
        "%llguidance {\"no_forcing\": true}\nstart: \"a\"",
        "start: /a\nb/",
        "start: \"a\"{2,1}",
        "start: \"a\"{2001}",
    ];
    let mut out = String::new();
    for text in bad {
        let e = Pda::from_text(text, Syntax::Lark).unwrap_err();
        out.push_str(&format!("{text:?}\n  {:?}: {e}\n", e.kind()));
    }
    insta::assert_snapshot!(out);
}

/// Lark-ish text: the characters Lark gives meaning to, names and noise.
fn lark_chars() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "start",
            "x",
            "A",
            ": ",
            "\"",
            "\\",
            "/",
            "i",
            "[",
            "]",
            "(",
            ")",
            "|",
            "*",
            "+",
            "?",
            "~",
            "..",
            "2",
            "->",
            "%import common.",
            "%ignore ",
            "WS",
            "INT",
            "\n",
            " ",
            "//",
            "#",
            ".",
            "é",
            "{",
            "\\x",
            "}",
            ",",
            "t{x, y}",
            "t{",
            "{2,",
            "[capture]",
            "[lazy]",
            "%llguidance {}",
            "<|eos|>",
            "@",
            "&",
            "my-",
            "/x",
            "%json ",
            "{\"type\": \"integer\"}",
            "\\x5c",
            "\\0",
            "\\ud800",
            "\"^\"",
            "*+",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

pub fn check(syntax: Syntax, text: &str) {
    match Pda::from_text(text, syntax) {
        Ok(pda) => {
            pda.accepts(b"x1 a");
        }
        Err(e) => {
            let msg = e.to_string();
            if e.kind() == PdaErrorKind::Syntax {
                assert!(msg.contains("line ") && msg.contains(", column "), "{msg}");
            }
        }
    }
}

const CALC: &str = include_str!("../grammars/calc.lark");

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn malformed_lark_text_is_an_error_not_a_panic(text in lark_chars()) {
        check(Syntax::Lark, &text);
    }

    #[test]
    fn mutated_lark_grammar_is_an_error_or_a_pda(pos in 0usize..2000, len in 0usize..6, with in lark_chars()) {
        let mut pos = pos % CALC.len();
        while !CALC.is_char_boundary(pos) {
            pos -= 1;
        }
        let mut end = (pos + len).min(CALC.len());
        while !CALC.is_char_boundary(end) {
            end -= 1;
        }
        check(Syntax::Lark, &format!("{}{}{}", &CALC[..pos], with, &CALC[end..]));
    }
}
