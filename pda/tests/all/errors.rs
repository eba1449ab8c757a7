//! Grammars that cannot give a PDA, grammars whose PDA is nondeterministic (the report
//! names every conflict), and limits: each error names what is wrong.

use fstc_core::vocab::VocabTrie;
use fstc_core::ByteVocabulary;
use fstc_pda::{Config, Grammar, GrammarCompiler, Pda, PdaErrorKind, Symbol};

fn build_err(text: &str) -> fstc_pda::PdaError {
    Pda::from_gbnf(text).unwrap_err()
}

#[test]
fn figure6_as_printed_is_deterministic() {
    // The paper's grammar as written: both alternatives start with `a`, which the rule's DFA
    // merges; only after `a` does the next byte choose between `b` and a call of `S`.
    let mut g = Grammar::new("S");
    g.add_rule("S", &[Symbol::lit("ab")])
        .add_rule("S", &[Symbol::lit("a"), Symbol::nt("S"), Symbol::lit("b")]);
    let pda = Pda::from_grammar(&g).unwrap();
    assert!(pda.accepts(b"aaabbb") && !pda.accepts(b"aabbb"));
}

#[test]
fn every_conflict_is_listed_with_its_rule_an_input_and_the_bytes() {
    // `A` may be empty and then `x` follows, but `A` also starts with `x`; and the dangling
    // else: after `"i" D`, an `e` may belong to this `M` or to an outer one. The PDA keeps
    // both ways; its report (and `require_deterministic`'s error) lists them.
    let text =
        "root ::= A \"x\" | \"q\" D\nA ::= \"x\" A | \"\"\nD ::= \"i\" D M | \"z\"\nM ::= \"e\" D | \"\"\n";
    let pda = Pda::from_gbnf(text).unwrap();
    assert!(!pda.is_deterministic());
    assert!(pda.accepts(b"xxx") && pda.accepts(b"qiizeiz") && !pda.accepts(b"qiize"));
    let msg = pda.conflicts().unwrap().to_string();
    let vocab = ByteVocabulary::from_strs(&["x", "q", "i", "z", "e"]);
    let e = GrammarCompiler::new()
        .configure(Config::new().require_deterministic(true))
        .compile(text, &vocab)
        .unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::Conflict);
    assert_eq!(e.to_string(), msg);
    insta::assert_snapshot!(msg);
    assert!(msg.contains("(5 conflicts)"), "{msg}");
}

#[test]
fn left_recursion_in_every_alternative_is_refused() {
    let pda = Pda::from_gbnf(r#"L ::= L "x" | L "z" | "y""#).unwrap();
    assert!(pda.accepts(b"yxzx") && pda.accepts(b"y") && !pda.accepts(b"xy"));
    let e = build_err(r#"L -> L "x" ;"#);
    assert_eq!(e.kind(), PdaErrorKind::LeftRecursion);
    assert!(
        e.to_string()
            .starts_with("rule `L` (line 1, column 1) is left-recursive in every alternative"),
        "{e}"
    );
}

#[test]
fn hidden_left_recursion_is_rewritten_and_agrees_with_the_recognizer() {
    use crate::lark_syntax::agree;
    use fstc_pda::Syntax;
    let cases: &[(&str, &[u8])] = &[
        // `B` can be empty, so `A` calls itself first: b^k y x^n with k <= n.
        ("A ::= B A \"x\" | \"y\"\nB ::= \"\" | \"b\"", b"bxy"),
        ("S ::= T \"t\" | \"s\"\nT ::= \"\" S", b"st"),
        ("E ::= ws E \"+\" n | n\nws ::= \" \"*\nn ::= [0-9]", b" +1"),
        ("A ::= B? A \"a\" | \"c\"\nB ::= \"b\"", b"abc"),
        (
            "A ::= o B \"x\" | \"y\"\nB ::= o A \"z\" | \"w\"\no ::= \"\" | \"o\"",
            b"owxyz",
        ),
        ("A ::= (\"\" | \"q\")* A \"x\" | \"y\"", b"qxy"),
        ("A ::= C \"x\" | \"y\"\nC ::= o o A\no ::= \"o\"?", b"oxy"),
        ("A ::= (A \"x\")* \"y\"", b"xy"),
        ("A ::= (A | \"b\") \"x\" | \"y\"", b"bxy"),
        ("A ::= (\"o\"? A){1,2} \"x\" | \"y\"", b"oxy"),
    ];
    for (g, alphabet) in cases {
        agree(Syntax::Gbnf, g, g, alphabet, 7);
    }
}

#[test]
fn left_recursion_through_empty_iterations_and_empty_terminals_is_rewritten() {
    use crate::lark_syntax::agree;
    use fstc_pda::Syntax;
    // A repetition whose body may be empty and calls back first repeats its non-empty
    // texts; bounds, nesting and a nullable rule as the body.
    let gbnf: &[(&str, &[u8])] = &[
        ("A ::= (\"\" | A \"x\")* \"y\"", b"xy"),
        ("A ::= (\"\" | A \"x\"){2,3} \"y\" | \"z\"", b"xyz"),
        ("A ::= (B | \"q\")* \"y\"\nB ::= \"\" | A \"x\"", b"qxy"),
        ("A ::= ((\"\" | A \"x\")* \"w\")? \"y\"", b"wxy"),
        ("A ::= (\"o\"? (A \"x\")?)+ \"y\"", b"oxy"),
        ("A ::= (\"\" | A \"x\" | \"b\")* \"y\" | \"c\"", b"bcxy"),
    ];
    for (g, alphabet) in gbnf {
        agree(Syntax::Gbnf, g, g, alphabet, 7);
    }
    // Behind a regex terminal that matches the empty text (Lark), alone or inside a rule.
    let lark: &[(&str, &str, &[u8])] = &[
        (
            "start: WS start \"x\" | \"y\"\nWS: /[ o]*/",
            "root ::= [ o]* root \"x\" | \"y\"",
            b" oxy",
        ),
        (
            "start: pre start \"x\" | \"y\"\npre: MAYBE \"p\"? \nMAYBE: /(ab)?/",
            "root ::= \"ab\"? \"p\"? root \"x\" | \"y\"",
            b"abpxy",
        ),
        (
            "start: (EMPTY | start \"x\")* \"y\"\nEMPTY: /o?/",
            "root ::= (\"o\"? | root \"x\")* \"y\"",
            b"oxy",
        ),
    ];
    for (lark, gbnf, alphabet) in lark {
        agree(Syntax::Lark, lark, gbnf, alphabet, 7);
    }
}

#[test]
fn unknown_empty_and_unfinishable_rules() {
    let mut g = Grammar::new("S");
    g.add_rule("S", &[Symbol::lit("a"), Symbol::nt("T")]);
    let e = Pda::from_grammar(&g).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::UnknownNonterminal);
    assert_eq!(
        e.to_string(),
        "unknown rule `T` in rule `S`: no rule defines it"
    );
    let e = Pda::from_gbnf("root ::= \"a\"\n  ( b | \"c\" )").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown rule `b` at line 2, column 5 in rule `root` (line 1, column 1): no rule defines it"
    );

    let mut g = Grammar::new("S");
    g.add_rule("T", &[Symbol::lit("a")]);
    let e = Pda::from_grammar(&g).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::EmptyGrammar);
    assert!(
        e.to_string().contains("start rule `S` is not defined"),
        "{e}"
    );

    let e = build_err(r#"S -> "a" S ;"#);
    assert_eq!(e.kind(), PdaErrorKind::NonProductive);
    assert!(
        e.to_string()
            .contains("`S` (line 1, column 1) can never finish"),
        "{e}"
    );
    // A class that matches nothing leaves nothing to finish with.
    let e = Pda::from_gbnf(r#"root ::= [^\x00-\U0010FFFF]"#).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::NonProductive);
    // Unreachable rules are ignored, even broken ones.
    Pda::from_gbnf(r#"S -> "a" ; U -> U "x" ;"#).unwrap();
}

#[test]
fn composition_limits_are_errors_naming_the_limit() {
    let pda = Pda::from_gbnf(r#"S -> "a" T ; T -> "b" | S "b" ;"#).unwrap();
    let trie = VocabTrie::new(&ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]));
    let compile = |config: Config| {
        GrammarCompiler::new()
            .configure(config)
            .compose(&pda, &trie)
    };
    // Unlimited: the left-factored Figure 7 composes to 5 nodes.
    assert_eq!(compile(Config::new()).unwrap().automaton.accepting.len(), 5);
    for (config, name) in [
        (Config::new().token_edge_limit(5), "token_edge_limit"),
        (Config::new().node_limit(3), "node_limit"),
        // "bb" pops one symbol.
        (Config::new().pop_limit(0), "pop_limit"),
    ] {
        let e = compile(config).unwrap_err();
        assert_eq!(e.kind(), PdaErrorKind::TokenPdaLimit);
        assert!(e.to_string().contains(name), "{e}");
    }
}

#[test]
fn a_c_like_grammar_whose_keywords_are_identifiers_is_nondeterministic_naming_each_conflict() {
    // As a user first writes it (pda/tests/grammars/nondeterministic/): `if(` may start a
    // call of a function named `if`, and after `if (...) {}` an `e` may start `else` or the
    // next statement. Every conflict is listed at once, with the rule, its line and column,
    // an input leading there and the bytes; clike.gbnf is the same language written to be
    // deterministic.
    let text = crate::gbnf_grammars::grammar_text("nondeterministic/clike_keywords.gbnf");
    let pda = Pda::from_gbnf(&text).unwrap();
    let msg = pda.conflicts().unwrap();
    assert!(msg.contains("(5 conflicts)"), "{msg}");
    for part in [
        "rule `stmt` (line 8, column 1) at `stmt: \"if(\" •`, after the input \"if(\": byte `!`",
        "could start a call of `args`, or start a call of `expr`",
        "after the input \"if(0){}\": byte `e` could be read directly, or follow the end of `stmt`",
        "after the input \"return \": byte `(` could be read directly, or start a call of `expr`",
    ] {
        assert!(msg.contains(part), "{part:?} not in {msg}");
    }
    assert!(Pda::from_gbnf(&crate::gbnf_grammars::grammar_text("clike.gbnf")).is_ok());
}

/// Ambiguous: after `x` the text may be in `a` or in `b`, each a call.
const AMBIGUOUS: &str = r#"
root ::= a | b
a    ::= "x" a | "x"
b    ::= "x" b | "x" "y"
"#;

#[test]
fn the_configuration_limit_refuses_at_compile_time_and_in_the_walker() {
    use fstc_core::glr_walker::GlrWalker;
    use fstc_core::matcher::MatchErrorKind;
    let vocab = ByteVocabulary::from_strs(&["x", "y", "xy", "xx"]);
    let compile = |config: Config| {
        GrammarCompiler::new()
            .configure(config)
            .compile(AMBIGUOUS, &vocab)
    };
    // `x` leads from the start to a configuration in `a` and one in `b`.
    let e = compile(Config::new().config_limit(1)).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::TokenPdaLimit);
    assert!(e.to_string().contains("`config_limit` (1)"), "{e}");
    let pda = compile(Config::new().config_limit(2)).unwrap().automaton;
    assert!(!pda.is_deterministic());
    let (x, y) = (0, 1);
    let mut free = GlrWalker::new(&pda);
    free.consume_tokens(&[x, x]).unwrap();
    let most = free.num_configurations();
    assert!(most >= 2, "{most} configurations after `xx`");
    free.consume(y).unwrap();
    assert!(free.is_accepting());
    // At decode time: a token the mask allows is refused past the limit, changing nothing.
    let mut bounded = GlrWalker::new(&pda).with_config_limit(1);
    assert!(bounded.is_allowed(x));
    let e = bounded.consume(x).unwrap_err();
    assert_eq!(e.kind(), MatchErrorKind::ConfigLimit);
    assert!(e.to_string().contains("configuration limit of 1"), "{e}");
    assert_eq!(bounded.num_consumed(), 0);
    // `xy` is read one way only, as by a walker that never saw the refused token.
    bounded.consume(2).unwrap();
    assert!(bounded.is_accepting());
    let mut fresh = GlrWalker::new(&pda);
    fresh.consume(2).unwrap();
    let (mut a, mut b) = (vec![0u32; 1], vec![0u32; 1]);
    bounded.fill_mask(&mut a).unwrap();
    fresh.fill_mask(&mut b).unwrap();
    assert_eq!(a, b);
    assert_eq!(bounded.num_chain_points(), fresh.num_chain_points());
    let mut enough = GlrWalker::new(&pda).with_config_limit(most);
    enough.consume_tokens(&[x, x, y]).unwrap();
}
