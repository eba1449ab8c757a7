//! Hostile grammars (issue 27): long literals, long rule chains, many alternatives, deep
//! nesting and random byte soup in GBNF, Lark and EBNF each end in a PDA or an error, on a
//! 2 MiB stack, in work linear in the grammar's size.

use fstc_pda::{Pda, Syntax};
use proptest::prelude::*;

use testkit::stack::on_small_stack;

/// A 30,000-character literal: its states' names used to spell the whole path to each
/// state (quadratic space, an allocation failure and an abort).
#[test]
fn a_30000_character_literal_builds_with_short_state_names() {
    let text = format!("root ::= \"{}\"\n", "a".repeat(30_000));
    let pda = Pda::from_gbnf(&text).unwrap();
    assert!(pda.accepts("a".repeat(30_000).as_bytes()));
    assert!(!pda.accepts("a".repeat(29_999).as_bytes()));
    let longest = (0..pda.num_states() as u32)
        .map(|s| pda.state_name(s).len())
        .max()
        .unwrap();
    assert!(longest < 200, "a state name of {longest} bytes");
    let last = pda.state_name(pda.start() + 30_000);
    assert!(last.contains('…'), "{last}");
}

/// 20,000 rules in a chain and 20,000 alternatives: positions of rules are found without
/// rescanning the text (it used to take time quadratic in the number of rules).
#[test]
fn long_rule_chains_and_alternations_build() {
    let n = 20_000;
    let mut chain = String::from("root ::= r1 \"a\"\n");
    for i in 1..n {
        chain.push_str(&format!("r{i} ::= r{} \"a\"\n", i + 1));
    }
    chain.push_str(&format!("r{n} ::= \"b\"\n"));
    let pda = on_small_stack(move || Pda::from_gbnf(&chain).map(|p| p.num_states()));
    assert!(pda.unwrap() > n);
    let alts: Vec<String> = (0..n).map(|i| format!("\"x{i}\"")).collect();
    let text = format!("root ::= {}\n", alts.join(" | "));
    let pda = Pda::from_gbnf(&text).unwrap();
    assert!(pda.accepts(b"x19999") && !pda.accepts(b"x20000"));
}

/// An error deep in a long one-line grammar still names its line and column.
#[test]
fn positions_on_a_long_line_are_exact() {
    let alts: Vec<String> = (0..5000).map(|i| format!("\"x{i}\"")).collect();
    let text = format!("root ::= {} | é |\n", alts.join(" | "));
    let e = Pda::from_gbnf(&text).unwrap_err().to_string();
    let col = text.find('é').unwrap() + 1;
    assert!(e.contains(&format!("line 1, column {col}")), "{e}");
}

#[test]
fn deep_nesting_is_refused_in_every_syntax() {
    for depth in [1000, 100_000] {
        let body = format!("{}\"a\"{}", "(".repeat(depth), ")".repeat(depth));
        for (syntax, text) in [
            (Syntax::Gbnf, format!("root ::= {body}\n")),
            (Syntax::Lark, format!("start: {body}\n")),
            (Syntax::Ebnf, format!("root ::= {body}\n")),
        ] {
            let e = on_small_stack(move || Pda::from_text(&text, syntax).map(|_| ()));
            assert!(e.is_err(), "{syntax:?} {depth}");
        }
    }
}

/// Pieces of hostile grammar text.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("root ::= ".to_string()),
        Just("start: ".to_string()),
        Just("r ::= ".to_string()),
        Just("\n".to_string()),
        Just("\"a\"".to_string()),
        Just("\"".to_string()),
        Just("[^a-z]".to_string()),
        Just("[".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("|".to_string()),
        Just("*".to_string()),
        Just("{0,100000}".to_string()),
        Just("{4294967295}".to_string()),
        Just(" r ".to_string()),
        Just(" root ".to_string()),
        Just("\\x".to_string()),
        Just("\\u{110000}".to_string()),
        Just("/a+/".to_string()),
        Just("%ignore ".to_string()),
        Just("%import common.WS".to_string()),
        Just("TERM: ".to_string()),
        (0u32..0x11_0000).prop_map(|c| char::from_u32(c).unwrap_or('x').to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Random grammar soup, read in every syntax, ends in a PDA or an error (the text is
    /// short, and the rule DFAs have a fixed state bound).
    #[test]
    fn hostile_grammars_end_cleanly(pieces in prop::collection::vec(piece(), 0..30)) {
        let text = pieces.concat();
        for syntax in [Syntax::Gbnf, Syntax::Lark, Syntax::Ebnf, Syntax::Paper] {
            let text = text.clone();
            let outcome = on_small_stack(move || Pda::from_text(&text, syntax).map(|_| ()));
            if let Err(e) = outcome {
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }
}

/// 100,000 rules on one line, each naming another: a rule's position used to be counted
/// from the start of its line after its body was read, and each definition looked up among
/// all before it (both quadratic: over a minute in release).
#[test]
fn many_rules_on_one_line_read_in_linear_time() {
    let n = 100_000;
    let mut text: String = (0..n).map(|i| format!("r{i} ::= x{} ", i % 7)).collect();
    text.push_str("x0 ::= \"a\" x1 ::= \"b\" x2 ::= \"c\" x3 ::= \"d\" x4 ::= \"e\" ");
    text.push_str("x5 ::= \"f\" x6 ::= \"g\" root ::= r99999 | r3\n");
    let rules = fstc_pda::gbnf::parse(&text).unwrap();
    assert_eq!(rules.rules.len(), n + 8);
    let last = rules.get("r99999").unwrap().at.unwrap();
    let col = text.find("r99999 ::=").unwrap() + 1;
    assert_eq!((last.line, last.col as usize), (1, col));
    let pda = Pda::from_gbnf(&text).unwrap();
    assert!(pda.accepts(b"d") && pda.accepts(b"e") && !pda.accepts(b"a"));
}

/// 3,000 Lark terminals in a chain: the cycle check was a search from every terminal with
/// a linear lookup per use (cubic: 24 s in release). A cycle closed at the end of the
/// chain is found and named.
#[test]
fn long_lark_terminal_chains_are_checked_in_linear_time() {
    let n = 3000;
    let chain: String = (0..n)
        .map(|i| format!("A{i}: \"a\" A{}\n", i + 1))
        .collect();
    let text = format!("start: A0\n{chain}A{n}: \"b\"\n");
    let pda = Pda::from_text(&text, Syntax::Lark).unwrap();
    let mut input = "a".repeat(n);
    input.push('b');
    assert!(pda.accepts(input.as_bytes()));
    let cyclic = format!("start: A0\n{chain}A{n}: \"b\" A0\n");
    let e = Pda::from_text(&cyclic, Syntax::Lark)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "terminal `A0` (line 2, column 1) uses itself (through `A{n}`)"
        )),
        "{e}"
    );
}

/// Repetition operators nest like groups (`"a"***`, `"a"?~2~2`): past 200 they are refused
/// where they are written, on a 2 MiB stack, in every syntax; 200 are read (and may still
/// expand past the automaton state bound: `"a"+` 200 times).
#[test]
fn repetition_operators_nest_at_most_200_deep_in_every_syntax() {
    for (syntax, ops) in [
        (Syntax::Gbnf, "*"),
        (Syntax::Ebnf, "?"),
        (Syntax::Paper, "+"),
        (Syntax::Lark, "*"),
        (Syntax::Lark, " ~ 2"),
    ] {
        for (count, ok) in [(200, true), (201, false), (100_000, false)] {
            let item = format!("\"a\"{}", ops.repeat(count));
            let text = format!("{}{item}\n", text_head(syntax));
            let outcome = on_small_stack(move || Pda::from_text(&text, syntax).map(|_| ()));
            match outcome {
                Ok(()) => assert!(ok, "{syntax:?} {count}"),
                Err(e) if ok => {
                    assert!(
                        !e.to_string().contains("nested more than"),
                        "{syntax:?} {count}: {e}"
                    )
                }
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains("nested more than 200 deep"), "{e}");
                    // The 201st operator, after the rule's head and `"a"`.
                    let head = text_head(syntax).len() + 3;
                    let col = head + 200 * ops.len() + ops.len() - ops.trim_start().len() + 1;
                    assert!(e.contains(&format!("line 1, column {col}")), "{e}");
                }
            }
        }
    }
}

/// How a one-line grammar of `syntax` starts.
fn text_head(syntax: Syntax) -> &'static str {
    match syntax {
        Syntax::Lark => "start: ",
        _ => "root ::= ",
    }
}

/// Columns are counted in characters across the line table's checkpoints (every 256
/// bytes): two-byte `é` and four-byte `😀` before the error, which may come after a later
/// position was asked.
#[test]
fn columns_count_characters_across_checkpoints() {
    for prefix in [
        "é".repeat(300),
        "😀".repeat(130),
        format!("a{}", "é".repeat(301)),
    ] {
        let text = format!("root ::= x\nx ::= \"{prefix}\" | \"b\" ü\n");
        let e = Pda::from_gbnf(&text).unwrap_err().to_string();
        let col = format!("x ::= \"{prefix}\" | \"b\" ").chars().count() + 1;
        assert!(e.contains(&format!("line 2, column {col}")), "{e}");
    }
}

/// A grammar the fuzz harness generated (issue 27): left recursion through an empty
/// iteration and unbounded ambiguity (`r3` derives every nonempty `[a-z]` string in
/// exponentially many ways). fstc-core's GLR matcher searched a list for each result of a
/// step, quadratic in the vertices the step laid on: a 40-token walk took minutes. Now a
/// walk of 150 `a`s ends, accepting where the test's own Earley recognizer does.
#[test]
fn an_ambiguous_left_recursive_grammar_walks_150_tokens() {
    let text = "root ::= r0\nr0 ::= ([a-z] | r3 | (\"ab\" | r2 | \"\"))\nr1 ::= (r3)+\n\
                r2 ::= \"\"\nr3 ::= (r1)* \"\" [a-z]\n";
    let earley = crate::earley::Earley::new(&fstc_pda::gbnf::parse(text).unwrap());
    let vocab = fstc_core::ByteVocabulary::from_strs(&["a", "b", "1"]);
    let compiled = fstc_pda::GrammarCompiler::new()
        .compile(text, &vocab)
        .unwrap();
    let any = fstc_core::AnyAutomaton::Pda(compiled.automaton);
    let mut m = any.matcher();
    let eos = fstc_core::TokenVocabulary::eos_ids(&vocab)[0];
    for k in 1..=150 {
        m.consume(0).unwrap();
        if [1, 2, 50, 150].contains(&k) {
            let mut text = "a".repeat(k);
            assert_eq!(m.is_allowed(eos), earley.accepts(text.as_bytes()), "{k}");
            text.push('1');
            assert_eq!(m.is_allowed(2), earley.accepts(text.as_bytes()), "{k}");
        }
    }
}
