//! `grammar(...)` and `grammar_file(...)` leaves: a token PDA, intersected with regular
//! operands into the product `TokenAlgebra::intersect_pda` gives by hand (whose own
//! differential tests are fstc-pda's `intersect.rs`), in both spellings; every operation
//! that cannot take a grammar is an error at the grammar's place.

use fstc_core::any::AnyAutomaton;
use fstc_core::ops::{at_most_tokens, TokenAlgebra};
use fstc_core::token_pda::TokenPda;
use fstc_detok::Vocabulary;
use fstc_expr::{Expr, ExprCompiler};
use fstc_pda::GrammarCompiler;
use fstc_regex::RegexCompiler;
use testkit::vocabs::testdata_dir;

const FAMILIES: [&str; 3] = [
    "bytelevel/tokenizer.json",
    "sentencepiece/tokenizer.json",
    "tiktoken/small.tiktoken",
];

const ARITH: &str = "root ::= expr\nexpr ::= term (\"+\" term)*\nterm ::= factor (\"*\" factor)*\n\
                     factor ::= [0-9]+ | \"(\" expr \")\"\n";

fn vocab(rel: &str) -> Vocabulary {
    Vocabulary::from_file(testdata_dir().join(rel)).unwrap()
}

fn pda_of(e: &Expr, vocab: &Vocabulary) -> TokenPda {
    match ExprCompiler::new().compile_any(e, vocab).unwrap().automaton {
        AnyAutomaton::Pda(p) => p,
        AnyAutomaton::Fsa(_) => panic!("{e} compiled to a token FSA"),
    }
}

#[test]
fn a_grammar_intersected_with_regular_operands_is_the_product_by_hand() {
    let dir = std::env::temp_dir().join(format!("fstc-expr-grammar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("arith.gbnf"), ARITH).unwrap();
    for family in FAMILIES {
        let vocab = vocab(family);
        let grammar = GrammarCompiler::new()
            .compile(ARITH, &vocab)
            .unwrap()
            .automaton;
        let regex = RegexCompiler::new()
            .compile(r"[0-9(]{1,3}.*", &vocab)
            .unwrap()
            .automaton;
        let algebra = TokenAlgebra::new();
        // `max_tokens` by the bounded construction (`intersect_pda_bounded`, whose language
        // fstc-pda's `intersect.rs` checks against the product with `at_most_tokens`).
        let by_hand = (algebra.intersect_pda_bounded(&grammar, &regex, 6))
            .unwrap()
            .automaton;
        let bound = at_most_tokens(&vocab, 6).unwrap();
        assert!(fstc_core::ops::token_bound(&bound, &grammar).is_some());
        let text =
            format!("intersect(grammar({ARITH:?}), regex(\"[0-9(]{{1,3}}.*\"), max_tokens(6))");
        let e = Expr::parse(&text).unwrap();
        assert_eq!(
            pda_of(&e, &vocab).to_parts(),
            by_hand.to_parts(),
            "{family}"
        );
        let json = Expr::from_json(&e.to_json()).unwrap();
        assert_eq!(
            pda_of(&json, &vocab).to_parts(),
            by_hand.to_parts(),
            "{family}"
        );
        let built = Expr::intersect([
            Expr::regex("[0-9(]{1,3}.*"),
            Expr::grammar_file("arith.gbnf"),
            Expr::max_tokens(6),
        ]);
        let from_file = ExprCompiler::new()
            .base_dir(&dir)
            .compile_any(&built, &vocab)
            .unwrap();
        let AnyAutomaton::Pda(from_file) = from_file.automaton else {
            panic!("an FSA")
        };
        assert_eq!(from_file.to_parts(), by_hand.to_parts(), "{family}");
        // A difference from a grammar is its intersection with the complement.
        let e = Expr::parse(&format!(
            "difference(grammar({ARITH:?}), regex(\".*[+].*\"))"
        ))
        .unwrap();
        let plus = RegexCompiler::new()
            .compile(r".*[+].*", &vocab)
            .unwrap()
            .automaton;
        let mask = fstc_core::ops::text_tokens(&vocab);
        let no_plus = algebra.complement(&plus, &mask).unwrap().automaton;
        let by_hand = algebra.intersect_pda(&grammar, &no_plus).unwrap().automaton;
        assert_eq!(
            pda_of(&e, &vocab).to_parts(),
            by_hand.to_parts(),
            "{family}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn error(text: &str) -> String {
    let vocab = vocab(FAMILIES[0]);
    let e = Expr::parse_any(text).unwrap();
    let err = ExprCompiler::new().compile_any(&e, &vocab).unwrap_err();
    format!("{}: {}", err.at(), err.message())
}

#[test]
fn operations_that_cannot_take_a_grammar_name_its_place() {
    let g = r#"grammar("root ::= [a-z]+")"#;
    let cases = [
        (
            format!("concat(text(\"x\"), {g})"),
            "column 19: `concat` joins texts, and this operand is a grammar",
        ),
        (
            format!("star({g})"),
            "column 6: `star` joins texts, and this operand is a grammar",
        ),
        (
            format!("repeat({g}, 1, 2)"),
            "column 8: `repeat` joins texts, and this operand is a grammar",
        ),
        (
            format!("union(regex(\"a\"), {g})"),
            "column 19: `union` with a grammar",
        ),
        (
            format!("complement({g})"),
            "column 1: `complement` of a grammar",
        ),
        (
            format!("intersect({g}, {g})"),
            "column 39: a second grammar operand",
        ),
        (
            format!("difference(regex(\"a\"), {g})"),
            "column 24: a second grammar operand",
        ),
        (
            "intersect(grammar(\"root ::= (\"), regex(\"a\"))".to_string(),
            "column 11: the grammar: ",
        ),
        (
            r#"{"intersect": [{"regex": "a"}, {"grammar_file": "no-such.gbnf"}]}"#.to_string(),
            "/intersect/1: cannot read no-such.gbnf",
        ),
    ];
    for (text, want) in cases {
        let got = error(&text);
        assert!(got.starts_with(want), "{text}: {got}");
    }
    let e = Expr::parse(g).unwrap();
    let err = ExprCompiler::new()
        .compile(&e, &vocab(FAMILIES[0]))
        .unwrap_err();
    assert!(err.message().contains("compile_any"), "{err}");
    let err = ExprCompiler::new().byte_dfa(&e).unwrap_err();
    assert!(err.message().contains("needs a vocabulary"), "{err}");
}

const JSONISH: &str = "root ::= value\n\
    value ::= \"[\" (value (\",\" value)*)? \"]\" | \"{\" (pair (\",\" pair)*)? \"}\" | [0-9]+ | str\n\
    pair ::= str \":\" value\nstr ::= \"\\\"\" [a-z]* \"\\\"\"\n";

/// A compile under a budget: the error's place and message, and how long it took.
fn under_budget(text: &str, config: fstc_json::Config) -> (String, std::time::Duration) {
    let vocab = vocab(FAMILIES[0]);
    let e = Expr::parse(text).unwrap();
    let started = std::time::Instant::now();
    let err = ExprCompiler::new()
        .configure(config)
        .compile_any(&e, &vocab)
        .unwrap_err();
    (
        format!("{}: {}", err.at(), err.message()),
        started.elapsed(),
    )
}

#[test]
fn budgets_end_a_compile_with_an_error_naming_them() {
    use std::time::Duration;
    // A grammar under a long bound on bytes (the general product and its dead-end
    // analysis) and under a very long token bound (the bounded construction): seconds
    // of work each, polling the deadline.
    let budget = Duration::from_millis(300);
    for heavy in [
        format!("intersect(grammar({JSONISH:?}), regex(\"(?s:.){{0,400}}\"))"),
        format!("intersect(grammar({JSONISH:?}), max_tokens(20000))"),
    ] {
        let (err, took) = under_budget(&heavy, fstc_json::Config::new().time_budget(budget));
        assert!(
            err.contains("time budget") && err.contains("time_budget"),
            "{err}"
        );
        assert!(took < budget + Duration::from_secs(3), "took {took:?}");
    }
    let (err, _) = under_budget(
        r#"intersect(regex("[a-z]{1,30}"), regex("[a-m]*"))"#,
        fstc_json::Config::new().memory_budget(1000),
    );
    assert!(err.contains("memory budget of 1000 bytes"), "{err}");
    assert!(err.starts_with("column "), "{err}");
    // A schema inside gets what is left of the expression's budget, not a fresh one.
    let (err, _) = under_budget(
        r#"concat(text("x"), json_schema("{\"type\": \"string\", \"maxLength\": 20}"))"#,
        fstc_json::Config::new().memory_budget(200),
    );
    assert!(err.contains("memory budget"), "{err}");
}

#[test]
fn the_working_tables_of_a_grammar_intersection_count_against_the_memory_budget() {
    // The product has 952 nodes: its operands fit in 100 kB, its dead-end analysis's bit
    // matrix (n² bits, 113 kB) does not.
    let text = format!("intersect(grammar({JSONISH:?}), regex(\"(?s:.){{0,60}}\"))");
    let (err, _) = under_budget(&text, fstc_json::Config::new().memory_budget(100_000));
    assert!(
        err.contains("same-level matrix") && err.contains("memory_budget"),
        "{err}"
    );
    assert!(err.starts_with("column 1"), "{err}");
    // With a token bound too, the bounded construction's cost table over the same
    // product (a row of costs per node) is what does not fit.
    let text =
        format!("intersect(grammar({JSONISH:?}), regex(\"(?s:.){{0,60}}\"), max_tokens(30))");
    let (err, _) = under_budget(&text, fstc_json::Config::new().memory_budget(100_000));
    assert!(
        err.contains("same-level costs") && err.contains("memory_budget"),
        "{err}"
    );
}
