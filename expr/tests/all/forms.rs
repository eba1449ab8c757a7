//! The three spellings of an expression (text, JSON, builder) make the same tree; errors
//! name the node at fault by column or JSON pointer; malformed and mutated expressions
//! are refused with a position, never a panic.

use fstc_expr::{Expr, Labels, Scalar};
use proptest::prelude::*;

/// A schema call with random options (each valid alone; some pairs are refused).
fn with_options(e: Expr, options: Vec<(u8, u64)>) -> Expr {
    let mut e = e;
    for (which, n) in options {
        let (name, value): (&str, Scalar) = match which {
            0 => (
                "whitespace",
                ["compact", "flexible", "pretty"][n as usize % 3].into(),
            ),
            1 => ("indent", n.into()),
            2 => ("max_whitespace", n.into()),
            3 => ("escapes", ["canonical", "any"][n as usize % 2].into()),
            4 => ("additional_properties", (n % 2 == 0).into()),
            5 => ("recursion_depth", n.into()),
            6 => ("any_json_depth", n.into()),
            _ => ("lenient", (n % 2 == 1).into()),
        };
        if let Ok(next) = e.clone().option(name, value) {
            e = next;
        }
    }
    e
}

/// A random tree over every function (strings with quotes, backslashes and non-ASCII).
fn tree() -> impl Strategy<Value = Expr> {
    let text = "[a-z\"\\\\é\n{} ]{0,6}";
    let leaf = prop_oneof![
        text.prop_map(Expr::regex),
        text.prop_map(Expr::text),
        (text, prop::collection::vec((0..8u8, 0..12u64), 0..3))
            .prop_map(|(p, o)| with_options(Expr::json_file(p), o)),
        (text, prop::collection::vec((0..8u8, 0..12u64), 0..3))
            .prop_map(|(p, o)| with_options(Expr::json_schema(p), o)),
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
                2 => text.insert(i, [',', '(', ')', '"', '\\', 'r', '#', '-', '='][i % 9]),
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

#[test]
fn keywords_name_parameters_and_schema_options() {
    let same = |text: &str, e: Expr| assert_eq!(Expr::parse(text).unwrap(), e, "{text}");
    same("max_tokens(n=200)", Expr::max_tokens(200));
    same(
        r#"repeat(regex("a"), min = 1, max=3)"#,
        Expr::repeat(Expr::regex("a"), 1, 3),
    );
    same(
        r#"repeat(max=3, expr=regex("a"), min=1)"#,
        Expr::repeat(Expr::regex("a"), 1, 3),
    );
    same(
        r#"fst("a.fst", labels="bytes")"#,
        Expr::fst("a.fst", Labels::Bytes),
    );
    same(r#"fst(file="a.fst")"#, Expr::fst("a.fst", Labels::Fstc));
    let pretty = Expr::json_file("s.json")
        .option("indent", 4u64)
        .unwrap()
        .option("whitespace", "pretty")
        .unwrap()
        .option("lenient", true)
        .unwrap();
    // Options are spelled in one order whatever order they were given in.
    same(
        r#"json("s.json", lenient=true, whitespace="pretty", indent=4)"#,
        pretty.clone(),
    );
    assert_eq!(
        pretty.to_string(),
        r#"json("s.json", whitespace="pretty", indent=4, lenient=true)"#
    );
    assert_eq!(
        pretty.to_json(),
        r#"{"json":"s.json","whitespace":"pretty","indent":4,"lenient":true}"#
    );
    assert_eq!(Expr::from_json(&pretty.to_json()).unwrap(), pretty);
    let schema = Expr::from_json(r#"{"json_schema": {"type": "string"}, "escapes": "any"}"#);
    assert_eq!(
        schema.unwrap(),
        Expr::json_schema(r#"{"type":"string"}"#)
            .option("escapes", "any")
            .unwrap()
    );
    // A call that takes no options says so.
    let err = Expr::regex("a").option("indent", 2u64).unwrap_err();
    assert_eq!(err.message(), "`regex` takes no schema options");
}

#[test]
fn keyword_errors_name_the_keyword_and_where_it_is() {
    let err = Expr::parse(r#"json("s.json", whitspace="pretty")"#).unwrap_err();
    assert_eq!(err.offset(), Some(15));
    assert_eq!(
        format!("{}: {}", err.at(), err.message()),
        "column 16: unknown keyword `whitspace` of `json`; its keywords are file, whitespace, \
         max_whitespace, indent, escapes, additional_properties, recursion_depth, \
         any_json_depth, lenient"
    );
    assert_eq!(
        error_at(r#"intersect(regex("a"), regex("b"), limit=3)"#),
        "column 35: unknown keyword `limit`: `intersect` takes no keywords"
    );
    assert_eq!(
        error_at("max_tokens(\n  m=3)"),
        "line 2, column 3: unknown keyword `m` of `max_tokens`; its keywords are n"
    );
    assert_eq!(
        error_at("max_tokens(5, n=6)"),
        "column 15: `n` is given twice in max_tokens(N)"
    );
    assert_eq!(
        error_at(r#"json("s", indent=2, indent=3)"#),
        "column 21: `indent` is given twice in json(SCHEMA_FILE, OPTION=VALUE, ...)"
    );
    assert_eq!(
        error_at(r#"repeat(regex("a"), max=3)"#),
        "column 1: `min` is missing in repeat(E, MIN, MAX)"
    );
    assert_eq!(
        error_at(r#"repeat(expr=regex("a"), 1, 3)"#),
        "column 25: a positional argument after keyword arguments of `repeat`"
    );
    assert_eq!(
        error_at(r#"json("s", whitespace="tight")"#),
        "column 11: `whitespace` takes \"compact\", \"flexible\", \"pretty\""
    );
    assert_eq!(
        error_at(r#"json("s", lenient="yes")"#),
        "column 11: `lenient` takes true or false"
    );
    assert_eq!(
        error_at(r#"json("s", whitespace="compact", indent=2)"#),
        "column 33: `indent` is for whitespace=\"pretty\" only (it sets that style when \
         whitespace is not given)"
    );
    assert_eq!(
        error_at("max_tokens(n=true)"),
        "column 14: expected a non-negative integer in max_tokens(N)"
    );
    // `true` and `false` are values, not calls; a call of that name is still unknown.
    assert!(error_at("true(1)").starts_with("column 1: unknown function `true`"));
    let err = Expr::from_json(r#"{"json": "s.json", "whitspace": "pretty"}"#).unwrap_err();
    assert_eq!(err.at(), "/whitspace");
    assert!(err
        .message()
        .starts_with("unknown keyword `whitspace` of `json`"));
}

proptest! {
    /// Keywords of any name and value in any call: read, or refused naming the place
    /// (the keyword's, for an unknown one).
    #[test]
    fn random_keywords_are_read_or_refused_at_their_place(
        e in tree(),
        key in "[a-z_]{1,16}",
        value in prop_oneof![Just("true".to_string()), "[0-9]{1,3}", "\"[a-z]{0,8}\""],
        at in any::<prop::sample::Index>(),
    ) {
        let text = e.to_string();
        // Before one of the closing parentheses.
        let closes: Vec<usize> = text.match_indices(')').map(|(i, _)| i).collect();
        let i = closes[at.index(closes.len())];
        let sep = if text[..i].ends_with('(') { "" } else { ", " };
        let edited = format!("{}{sep}{key}={value}{}", &text[..i], &text[i..]);
        match Expr::parse(&edited) {
            Ok(read) => prop_assert_eq!(Expr::parse(&read.to_string()).unwrap(), read),
            Err(err) => {
                let offset = err.offset().expect("a text-form error has an offset");
                prop_assert!(edited.is_char_boundary(offset), "{err} in {edited}");
                if err.message().starts_with("unknown keyword") {
                    prop_assert_eq!(offset, i + sep.len(), "{} in {}", err, edited);
                    prop_assert!(err.message().contains(&format!("`{key}`")), "{err}");
                }
            }
        }
    }
}
