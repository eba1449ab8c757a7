//! XGrammar's lookahead assertions (`name ::= body (= la)`): what must follow each
//! occurrence of `name`. Each grammar against the Earley recognizer on a hand-written GBNF
//! grammar of the same language (the assertion worked out by hand), on every text up to a
//! length: assertions met inside the caller, after the caller's own end, across
//! repetitions, classes and regexes, through left recursion, with rules inside the
//! assertion, two assertions pending at once, and ones that only restate the grammar.

use crate::lark_syntax::agree;
use fstc_pda::{Pda, PdaErrorKind, Syntax};

#[test]
fn assertions_agree_with_the_recognizer_on_the_language_worked_out_by_hand() {
    let cases: &[(&str, &str, &[u8])] = &[
        // Met by the caller's next bytes.
        (
            "root ::= a rest\na ::= \"a\"+ (= \"b\")\nrest ::= \"b\" | \"c\"",
            "root ::= \"a\"+ \"b\"",
            b"abc",
        ),
        // Pending over two bytes of the caller.
        (
            "root ::= x \"b\" \"c\" | x \"b\" \"d\"\nx ::= \"a\"+ (= \"bc\")",
            "root ::= \"a\"+ \"bc\"",
            b"abcd",
        ),
        // Pending past the end of the caller, which is asserted nothing itself.
        (
            "root ::= y \"q\" | y \"r\"\ny ::= \"p\" x\nx ::= \"a\"+ (= \"q\")",
            "root ::= \"p\" \"a\"+ \"q\"",
            b"apqr",
        ),
        // Across a repetition of a class, and a rule named inside the assertion.
        (
            "root ::= x ws (\"1\" | \"2\")\nx ::= \"a\" (= ws \"2\")\nws ::= [ ]*",
            "root ::= \"a\" [ ]* \"2\"",
            b"a 12",
        ),
        (
            "root ::= x sep \"1\" | x sep \"2\"\nx ::= \"a\" (= sep \"1\")\nsep ::= \",\" | \";\"",
            "root ::= \"a\" (\",\" | \";\") \"1\"",
            b"a,;12",
        ),
        // Each number but the first starts with 1; the last is followed by \" .\".
        (
            "root ::= (n \" \")* \".\"\nn ::= [0-9]+ (= \" 1\" | \" .\")",
            "root ::= ([0-9]+ \" \" (\"1\" [0-9]* \" \")*)? \".\"",
            b"12 .",
        ),
        // Left recursion: every number after a `+` is 1.
        (
            "root ::= l \".\"\nl ::= l \"+\" n | n\nn ::= [0-9] (= \"+1\" | \".\")",
            "root ::= [0-9] (\"+1\")* \".\"",
            b"12+.",
        ),
        // A regex element read while an assertion is pending.
        (
            "root ::= x Regex(\"[ab]*c\") \"d\"?\nx ::= \"q\" (= \"a\"* \"c\")",
            "root ::= \"q\" \"a\"* \"c\" \"d\"?",
            b"qabcd",
        ),
        // Two assertions pending at once; an assertion that matches the empty text.
        (
            "root ::= a b \"xy\" | a b \"xz\"\na ::= \"a\"+ (= \"bx\")\nb ::= \"b\" (= \"xz\")",
            "root ::= \"a\"+ \"bxz\"",
            b"abxyz",
        ),
        (
            "root ::= a \"b\"?\na ::= \"a\" (= \"b\"?)",
            "root ::= \"a\" \"b\"?",
            b"ab",
        ),
        // An assertion the grammar already implies changes nothing.
        (
            "root ::= \"[\" (v (\",\" v)*)? \"]\"\nv ::= [0-9]+ (= [,\\]])",
            "root ::= \"[\" ([0-9]+ (\",\" [0-9]+)*)? \"]\"",
            b"[1,]",
        ),
        // The asserted rule last in the text: nothing follows, so it never ends the text.
        (
            "root ::= n | n \"!\"\nn ::= [0-9] (= \"!\")",
            "root ::= [0-9] \"!\"",
            b"12!",
        ),
        (
            // An assertion naming its own rule that may hold: each digit is followed by
            // another or by the end mark.
            "root ::= a+ \";\"\na ::= [0-9] (= a | \";\")",
            "root ::= [0-9]+ \";\"",
            b"1;",
        ),
    ];
    for (ebnf, gbnf, alphabet) in cases {
        agree(Syntax::Ebnf, ebnf, gbnf, alphabet, 6);
    }
}

#[test]
fn assertions_that_cannot_be_enforced_or_never_hold_are_refused_by_name() {
    let cases = [
        (
            "root ::= a \"(\" \")\"\na ::= \"a\" (= p)\np ::= \"(\" p \")\" | \"\"",
            "grammar line 2, column 11: the lookahead assertion: rule `p` is recursive",
        ),
        (
            "root ::= (\"a\" (= \"b\")) \"b\"",
            "grammar line 1, column 15: a lookahead assertion `(= ...)` may only follow",
        ),
        (
            "root ::= a \"c\"\na ::= \"a\" (= \"b\")",
            "grammar line 2, column 11: the lookahead assertion of `a` can never hold: no text",
        ),
        (
            "root ::= a+\na ::= \"x\" (= a)",
            "grammar line 2, column 11: the lookahead assertion of `a` is recursive and can never hold: it names `a`",
        ),
        (
            // Each holds alone, not both.
            "root ::= a b [0-9]\na ::= \"a\" (= \"b1\")\nb ::= \"b\" (= \"2\")",
            "grammar line 2, column 11: the lookahead assertion of `a` and of `b` (line 3, column 11) can never hold together",
        ),
        (
            // Only `b`'s fails alone: it is the one named.
            "root ::= a b \"1\"\na ::= \"a\" (= \"b1\")\nb ::= \"b\" (= \"2\")",
            "grammar line 3, column 11: the lookahead assertion of `b` can never hold: no text",
        ),
        (
            "root ::= a \"b\"\na ::= \"a\" (= \"b\"",
            "grammar line 2, column 17: expected `)` closing the lookahead assertion opened at line 2, column 11",
        ),
    ];
    for (text, start) in cases {
        let e = Pda::from_text(text, Syntax::Ebnf).unwrap_err();
        assert_eq!(e.kind(), PdaErrorKind::Syntax, "{e}");
        assert!(e.to_string().starts_with(start), "{text}: {e}");
    }
}
