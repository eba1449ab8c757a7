//! The three spellings of an expression (text, JSON, builder) make the same tree; errors
//! name the node at fault by column or JSON pointer; malformed and mutated expressions
//! are refused with a position, never a panic.

use fstc_expr::{Expr, Labels};
use proptest::prelude::*;

/// A random tree over every function (strings with quotes, backslashes and non-ASCII).
fn tree() -> impl Strategy<Value = Expr> {
    let text = "[a-z\"\\\\é\n{} ]{0,6}";
    let leaf = prop_oneof![
        text.prop_map(Expr::regex),
        text.prop_map(Expr::text),
        text.prop_map(Expr::json_file),
        text.prop_map(Expr::json_schema),
        text.prop_map(Expr::automaton),
        text.prop_map(Expr::grammar),
        text.prop_map(Expr::grammar_file),
        (text, 0..3u8).prop_map(|(p, l)| {
            let labels = [Labels::Fstc, Labels::Bytes, Labels::CodePoints][l as usize];
            Expr::fst(p, labels)
        }),
        (0..500u64).prop_map(Expr::max_tokens),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::intersect),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::union),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::concat),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::difference(a, b)),
            inner.clone().prop_map(Expr::complement),
            inner.clone().prop_map(Expr::star),
            (inner, 0..4u64, 0..4u64).prop_map(|(a, x, y)| Expr::repeat(a, x.min(y), x.max(y))),
        ]
    })
}

proptest! {
    #[test]
    fn text_and_json_forms_read_back_the_same_tree(e in tree()) {
        let text = e.to_string();
        prop_assert_eq!(&Expr::parse(&text).unwrap(), &e, "text form {}", text);
        let json = e.to_json();
        prop_assert_eq!(&Expr::from_json(&json).unwrap(), &e, "JSON form {}", json);
        prop_assert_eq!(&json.parse::<Expr>().unwrap(), &e);
    }

    #[test]
    fn mutated_text_is_read_or_refused_with_a_position(
        e in tree(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), 0..6usize), 1..4),
    ) {
        let mut text: Vec<char> = e.to_string().chars().collect();
        for (at, what) in cuts {
            if text.is_empty() {
                break;
            }
            let i = at.index(text.len());
            match what {
                0 => { text.remove(i); }
                1 => text.truncate(i),
                2 => text.insert(i, [',', '(', ')', '"', '\\', 'r', '#', '-'][i % 8]),
                3 => text.insert(i, '9'),
                4 => {
                    let last = text.len() - 1;
                    text.swap(i, last);
                }
                _ => text.insert(i, 'é'),
            }
        }
        let text: String = text.into_iter().collect();
        if let Err(err) = Expr::parse(&text) {
            let offset = err.offset().expect("a text-form error has an offset");
            prop_assert!(offset <= text.len() && text.is_char_boundary(offset), "{err} in {text:?}");
            prop_assert!(err.at().contains("column"), "{err}");
            prop_assert!(err.to_string().starts_with("expression at "), "{err}");
        }
    }

    #[test]
    fn mutated_json_is_read_or_refused_with_a_place(
        e in tree(),
        at in any::<prop::sample::Index>(),
        with in "[\\[\\]{}:,\"0-9a-z-]",
    ) {
        let mut json = e.to_json();
        let i = at.index(json.len());
        if json.is_char_boundary(i) {
            json.insert_str(i, &with);
        }
        if let Err(err) = Expr::from_json(&json) {
            prop_assert!(
                err.at().starts_with("line ") || err.at().starts_with('/') || err.at().is_empty(),
                "{err}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random trees (patterns and schemas from random strings, missing files, token
    /// leaves without a vocabulary) compile to a DFA or fail with the node's place.
    #[test]
    fn random_trees_compile_or_fail_with_a_place(e in tree()) {
        let compiler = fstc_expr::ExprCompiler::new();
        if let Err(err) = compiler.byte_dfa(&e) {
            let at = err.at();
            prop_assert!(at.is_empty() || at.starts_with('/'), "{err}");
            prop_assert!(!err.message().is_empty());
        }
    }
}

fn error_at(text: &str) -> String {
    let err = Expr::parse(text).unwrap_err();
    format!("{}: {}", err.at(), err.message())
}

#[test]
fn text_errors_name_the_column_and_what_was_expected() {
    assert_eq!(
        error_at(r#"intersect(regex("a") regex("b"))"#),
        "column 22: expected `,` or `)` in the arguments of `intersect`, found `r`"
    );
    assert_eq!(
        error_at(r#"intersect(regex("a"), reg("b"))"#),
        "column 23: unknown function `reg`; the functions are regex, text, json, json_schema, \
         fst, automaton, grammar, grammar_file, max_tokens, intersect, union, difference, complement, concat, star, repeat"
    );
    assert_eq!(
        error_at(r#"union(regex("a"))"#),
        "column 1: 1 arguments where the call is union(E, E, ...)"
    );
    assert_eq!(
        error_at(r#"max_tokens("5")"#),
        "column 12: expected a non-negative integer in max_tokens(N)"
    );
    assert_eq!(
        error_at(r#"star(regex("a)"#),
        "column 12: a string that is never closed"
    );
    assert_eq!(
        error_at("complement(\n  regex(5))"),
        "line 2, column 9: expected a quoted string in regex(PATTERN)"
    );
    assert_eq!(
        error_at(r#"repeat(text("a"), 3, 2)"#),
        "column 22: repeat counts 3..2: need MIN <= MAX <= 1000"
    );
    assert_eq!(
        error_at(r#"fst("a.fst", "utf8")"#),
        "column 14: labels \"utf8\": expected \"fstc\", \"bytes\" or \"code-points\""
    );
    assert_eq!(
        error_at(r#"regex("a") x"#),
        "column 12: unexpected text after the expression"
    );
    assert_eq!(
        error_at(r#"text("\q")"#).split(':').next(),
        Some("column 6")
    );
    let deep = format!("{}text(\"a\"){}", "star(".repeat(150), ")".repeat(150));
    assert!(error_at(&deep).contains("nested deeper than 100"));
}

#[test]
fn raw_strings_and_escapes_read_as_written() {
    let e =
        Expr::parse(r##"concat(regex(r"\d+"), text("\"é\u00e9\n"), regex(r#"a"b"#))"##).unwrap();
    assert_eq!(
        e,
        Expr::concat([
            Expr::regex(r"\d+"),
            Expr::text("\"éé\n"),
            Expr::regex("a\"b")
        ])
    );
}

#[test]
fn json_errors_name_the_pointer() {
    let err = |json: &str| {
        let e = Expr::from_json(json).unwrap_err();
        format!("{}: {}", e.at(), e.message())
    };
    assert_eq!(
        err(r#"{"intersect": [{"regex": "a"}, {"max_tokens": -3}]}"#),
        "/intersect/1/max_tokens: -3 is not a non-negative integer"
    );
    assert_eq!(
        err(r#"{"union": [{"regex": "a"}, {"regex": "b", "text": "c"}]}"#),
        "/union/1: expected a call: an object with one member, such as {\"regex\": \"...\"}"
    );
    assert!(err(r#"{"regex": "a""#).starts_with("line 1, column 13: not JSON"));
    // A schema may be written as the JSON value it is.
    let e = Expr::from_json(r#"{"json_schema": {"type": "integer"}}"#).unwrap();
    assert_eq!(e, Expr::json_schema(r#"{"type":"integer"}"#));
}
