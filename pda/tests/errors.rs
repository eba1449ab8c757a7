//! Grammars that cannot give a deterministic PDA, and limits: each error names what is wrong.

use fst_core::ByteVocabulary;
use pda::{compose, ComposeLimits, Grammar, Pda, PdaErrorKind, Symbol};

fn build_err(text: &str) -> pda::PdaError {
    Pda::from_grammar(&Grammar::parse(text).unwrap()).unwrap_err()
}

#[test]
fn figure6_unfactored_grammar_is_a_conflict_on_byte_a() {
    // The paper's grammar as written: both alternatives start with `a`.
    let mut g = Grammar::new("S");
    g.add_rule("S", &[Symbol::lit("ab")])
        .add_rule("S", &[Symbol::lit("a"), Symbol::nt("S"), Symbol::lit("b")]);
    let e = Pda::from_grammar(&g).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::Conflict);
    let msg = e.to_string();
    assert!(
        msg.starts_with(
            "nonterminal `S` is not deterministic with one byte of lookahead: rules `S -> \"ab\"` and `S -> \"a\" S \"b\"` conflict (byte `a` can come first in both)"
        ),
        "{msg}"
    );
    // The left-factored form is accepted.
    Pda::from_grammar(&Grammar::parse(r#"S -> "a" T ; T -> "b" | S "b" ;"#).unwrap()).unwrap();
}

#[test]
fn conflict_through_follow_and_through_two_empty_alternatives() {
    // `A` may be empty and then `x` follows, but `A -> "x"` also starts with `x`.
    let e = build_err(r#"S -> A "x" ; A -> "x" | "" ;"#);
    assert_eq!(e.kind(), PdaErrorKind::Conflict);
    assert!(
        e.to_string().contains("`A -> \"x\"` and `A -> \"\"`"),
        "{e}"
    );
    assert!(e.to_string().contains("byte `x`"), "{e}");
    // At the end of the text.
    let e = build_err(r#"S -> "a" A ; A -> B | "" ; B -> "" | "b" ;"#);
    assert_eq!(e.kind(), PdaErrorKind::Conflict);
    assert!(
        e.to_string().contains("both derive the empty string"),
        "{e}"
    );
    // Dangling else: a recursive call followed by an optional part.
    let e = build_err(r#"S -> "i" S M | "x" ; M -> "e" S | "" ;"#);
    assert_eq!(e.kind(), PdaErrorKind::Conflict);
    assert!(
        e.to_string().contains("nonterminal `M`") && e.to_string().contains("byte `e`"),
        "{e}"
    );
}

#[test]
fn left_recursion_is_rejected_directly_and_through_nullable_symbols() {
    let e = build_err(r#"L -> L "x" | "y" ;"#);
    assert_eq!(e.kind(), PdaErrorKind::LeftRecursion);
    assert!(
        e.to_string().starts_with(
            "left recursion: `L` can call itself before reading any byte, through `L -> L \"x\"`"
        ),
        "{e}"
    );
    // `B` can be empty, so `A` calls itself first; also a cycle of unit rules.
    let e = build_err(r#"A -> B A "x" | "y" ; B -> "" | "b" ;"#);
    assert_eq!(e.kind(), PdaErrorKind::LeftRecursion);
    assert!(e.to_string().contains("`A -> B A \"x\"`"), "{e}");
    let e = build_err(r#"S -> T | "s" ; T -> "" S ;"#);
    assert_eq!(e.kind(), PdaErrorKind::LeftRecursion);
    assert!(
        e.to_string().contains("`S -> T`, then `T -> \"\" S`"),
        "{e}"
    );
}

#[test]
fn unknown_empty_and_unfinishable_nonterminals() {
    let mut g = Grammar::new("S");
    g.add_rule("S", &[Symbol::lit("a"), Symbol::nt("T")]);
    let e = Pda::from_grammar(&g).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::UnknownNonterminal);
    assert!(
        e.to_string()
            .starts_with("unknown nonterminal `T` in rule `S -> \"a\" T`"),
        "{e}"
    );

    let mut g = Grammar::new("S");
    g.add_rule("T", &[Symbol::lit("a")]);
    let e = Pda::from_grammar(&g).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::EmptyGrammar);
    assert!(
        e.to_string().contains("start nonterminal `S` has no rules"),
        "{e}"
    );

    let e = build_err(r#"S -> "a" S ;"#);
    assert_eq!(e.kind(), PdaErrorKind::NonProductive);
    assert!(e.to_string().contains("`S` can never finish"), "{e}");
    // Unreachable nonterminals are ignored, even broken ones.
    Pda::from_grammar(&Grammar::parse(r#"S -> "a" ; U -> U "x" ;"#).unwrap()).unwrap();
}

#[test]
fn token_edge_limit_is_an_error() {
    let pda =
        Pda::from_grammar(&Grammar::parse(r#"S -> "a" T ; T -> "b" | S "b" ;"#).unwrap()).unwrap();
    let vocab = ByteVocabulary::from_strs(&["a", "b", "bb", "aaab"]);
    // Figure 7 takes 12 token edges before equivalent states are merged, 10 after.
    assert_eq!(
        compose(&pda, &vocab, &ComposeLimits::default())
            .unwrap()
            .num_edges(),
        10
    );
    let limits = ComposeLimits {
        max_token_edges: 11,
    };
    let e = compose(&pda, &vocab, &limits).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::TokenEdgeLimit);
    assert!(e.to_string().contains("more than 11 token edges"), "{e}");
    let limits = ComposeLimits {
        max_token_edges: 12,
    };
    assert_eq!(compose(&pda, &vocab, &limits).unwrap().num_edges(), 10);
}
