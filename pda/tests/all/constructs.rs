//! Grammar constructs the PDA must handle: tail calls, empty rests, nullable starts, raw
//! bytes, special tokens; and agreement of the token PDA with the byte PDA.

use crate::common::{compile, pda_of, random_tokenization, run_tokens, token_pda, RefWalker, Walk};
use fstc_core::sample::SplitMix64;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_pda::{Grammar, Pda, Symbol};

#[test]
fn right_recursive_lists_run_at_constant_stack_depth() {
    let pda = pda_of(r#"S -> "[" L "]" ; L -> "" | "x" L ;"#);
    // Far more items than the stack bound: the tail call `L -> "x" • L` pushes nothing.
    let long = [
        b"[".as_slice(),
        &vec![b'x'; 3 * fstc_pda::MAX_STACK_DEPTH],
        b"]",
    ]
    .concat();
    assert!(pda.accepts(&long));
    assert!(pda.accepts(b"[]") && !pda.accepts(b"[x") && !pda.accepts(b"[]]"));
    // `[•]` and the return address of the one non-tail call, `S -> "[" • L "]"`.
    assert_eq!(pda.num_stack_symbols(), 2);
    assert_eq!(pda.stack_symbol_name(fstc_pda::StackSym::INITIAL), "[•]",);
}

#[test]
fn a_rest_that_only_derives_empty_is_a_tail_call() {
    let g = r#"S -> "x" S E | "y" ; E -> "" ;"#;
    let pda = pda_of(g);
    assert!(pda.accepts(b"xxxy") && pda.accepts(b"y") && !pda.accepts(b"xx"));
    assert_eq!(pda.num_stack_symbols(), 1);
    let vocab = ByteVocabulary::from_strs(&["x", "y", "xy", "xxy"]);
    let tpda = token_pda(g, &vocab);
    assert!(run_tokens(&tpda, 5, &[0, 3]));
    assert!(!run_tokens(&tpda, 5, &[2, 1]));
}

#[test]
fn nullable_start_and_several_start_alternatives() {
    let g = r#"S -> "" | "a" S | "b" ;"#;
    let pda = pda_of(g);
    assert!(pda.accepts(b"") && pda.accepts(b"aaa") && pda.accepts(b"aab"));
    assert!(!pda.accepts(b"ba") && !pda.accepts(b"c"));
    let vocab = ByteVocabulary::from_strs(&["a", "ab", "b"]);
    let tpda = token_pda(g, &vocab);
    assert!(tpda.accepting[tpda.start as usize]);
    assert_eq!(RefWalker::new(&tpda).allowed(), vec![0, 1, 2, 3]);
    assert!(run_tokens(&tpda, 4, &[]) && run_tokens(&tpda, 4, &[0, 1]));
    assert!(!run_tokens(&tpda, 4, &[1, 0]));
}

#[test]
fn raw_bytes_and_tokens_that_split_them() {
    // A literal that is not UTF-8, and tokens that cut through it.
    let mut g = Grammar::new("S");
    g.add_rule("S", &[Symbol::lit(b"\xE2\x82"), Symbol::nt("A")])
        .add_rule("A", &[Symbol::lit(b"\xAC")])
        .add_rule("A", &[Symbol::lit("!"), Symbol::nt("S")]);
    let pda = Pda::from_grammar(&g).unwrap();
    assert!(pda.accepts(b"\xE2\x82\xAC") && pda.accepts(b"\xE2\x82!\xE2\x82\xAC"));
    let vocab = ByteVocabulary::new(
        vec![
            Some(b"\xE2".to_vec()),
            Some(b"\x82\xAC".to_vec()),
            Some(b"\xE2\x82\xAC".to_vec()),
            Some(b"\x82!".to_vec()),
            Some(Vec::new()),
            None,
        ],
        vec![5],
    );
    let tpda = compile(&pda, &vocab);
    assert!(run_tokens(&tpda, 6, &[2]) && run_tokens(&tpda, 6, &[0, 1]));
    assert!(run_tokens(&tpda, 6, &[0, 3, 2]));
    assert!(!run_tokens(&tpda, 6, &[0, 3]));
    // The empty token (4) and the special token without text (5, also EOS) never appear on
    // edges; EOS is only allowed at the end.
    assert_eq!(RefWalker::new(&tpda).allowed(), vec![0, 2]);
    assert_eq!(tpda.class_of_token[4], fstc_core::parts::NO_CLASS);
    assert_eq!(tpda.class_of_token[5], fstc_core::parts::NO_CLASS);
}

/// JSON-like arrays of integers: `[1,[],[23,[4]]]`.
const ARRAYS: &str = r#"
    V -> "[" R | D N ;
    R -> "]" | V M ;
    M -> "]" | "," V M ;
    N -> "" | D N ;
    D -> "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" ;
"#;

fn gen_value(rng: &mut SplitMix64, depth: usize, out: &mut Vec<u8>) {
    if depth < 3 && rng.index(2) == 0 {
        out.push(b'[');
        let n = rng.index(4);
        for i in 0..n {
            if i > 0 {
                out.push(b',');
            }
            gen_value(rng, depth + 1, out);
        }
        out.push(b']');
    } else {
        for _ in 0..=rng.index(3) {
            out.push(b'0' + rng.index(10) as u8);
        }
    }
}

#[test]
fn token_pda_agrees_with_byte_pda_under_random_tokenizations() {
    let pda: Pda = pda_of(ARRAYS);
    let mut rng = SplitMix64::new(21);
    // Single bytes (so every text has a tokenization) plus random multi-byte tokens.
    let alphabet = b"[],0123456789";
    let mut tokens: Vec<String> = alphabet.iter().map(|&b| (b as char).to_string()).collect();
    for _ in 0..200 {
        let len = 2 + rng.index(5);
        let t: String = (0..len)
            .map(|_| alphabet[rng.index(alphabet.len())] as char)
            .collect();
        if !tokens.contains(&t) {
            tokens.push(t);
        }
    }
    let strs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let vocab = ByteVocabulary::from_strs(&strs);
    let tpda = compile(&pda, &vocab);
    let mut members = 0;
    for round in 0..1500 {
        let mut text = Vec::new();
        gen_value(&mut rng, 0, &mut text);
        if round % 2 == 1 {
            let i = rng.index(text.len());
            text[i] = alphabet[rng.index(alphabet.len())];
        }
        let ids = random_tokenization(&vocab, &text, &mut rng);
        let expected = pda.accepts(&text);
        members += usize::from(expected);
        assert_eq!(
            run_tokens(&tpda, vocab.len() as u32, &ids),
            expected,
            "{}",
            String::from_utf8_lossy(&text)
        );
    }
    assert!(members > 700, "{members}");
}

#[test]
fn long_chains_of_nonterminals_do_not_overflow_the_stack() {
    // A0 -> "(" A1 ")" ... : deep nesting of distinct nonterminals, then a cycle closing it.
    let n = 3000;
    let mut g = Grammar::new("A0");
    for i in 0..n {
        let next = fstc_pda::Symbol::nt(&format!("A{}", i + 1));
        g.add_rule(
            &format!("A{i}"),
            &[fstc_pda::Symbol::lit("("), next, fstc_pda::Symbol::lit(")")],
        );
    }
    g.add_rule(&format!("A{n}"), &[fstc_pda::Symbol::lit("x")]);
    let pda = Pda::from_grammar(&g).unwrap();
    let text = [vec![b'('; n], vec![b'x'], vec![b')'; n]].concat();
    assert!(pda.accepts(&text));
    assert!(!pda.accepts(&text[1..]));
    let vocab = ByteVocabulary::from_strs(&["(", ")", "x", "((", "x)", "))"]);
    let tpda = compile(&pda, &vocab);
    // "((" x 1500, "x)", "))" x 1499, ")": 3000 of each parenthesis.
    let mut tokens = vec![3; 1500];
    tokens.push(4);
    tokens.extend([5; 1499]);
    assert!(!run_tokens(&tpda, 0, &tokens));
    tokens.push(1);
    assert!(run_tokens(&tpda, 0, &tokens));

    // The same chain of unit rules closed into a cycle is indirect left recursion, rewritten
    // (by substitution along the cycle): the language is just "y".
    let mut g = Grammar::new("B0");
    for i in 0..n {
        g.add_rule(
            &format!("B{i}"),
            &[fstc_pda::Symbol::nt(&format!("B{}", i + 1))],
        );
    }
    g.add_rule(&format!("B{n}"), &[fstc_pda::Symbol::nt("B0")]);
    g.add_rule(&format!("B{n}"), &[fstc_pda::Symbol::lit("y")]);
    let pda = Pda::from_grammar(&g).unwrap();
    assert!(pda.accepts(b"y") && !pda.accepts(b"yy") && !pda.accepts(b""));
}

#[test]
fn consecutive_repetitions_do_not_interleave() {
    // Each unbounded repetition loops on a state of its own: `" "* "b"*` once shared one
    // loop state and read as `(" " | "b")*`, accepting "{b b}" (and refusing the C-like
    // corpus grammar as non-deterministic: spaces seemed to follow a statement).
    let grammars = [
        r#"root ::= "{" " "* "b"* "}""#,
        "root ::= \"{\" \" \"* s* \"}\"\ns ::= \"b\"",
        "root ::= s+\ns ::= \"b\" | \"{\" \" \"* s* \"}\"",
        r#"root ::= "{" "b"+ " "* "}""#,
        r#"root ::= "{" ( "b" " "* )* "}""#,
    ];
    let texts = [
        "{b b}", "{ b}", "{ bb}", "{bb }", "{ {b}b}", "{b {b}}", "{}", "{ }",
    ];
    for g in grammars {
        let rules = fstc_pda::gbnf::parse(g).unwrap();
        let earley = crate::earley::Earley::new(&rules);
        let pda = Pda::from_rules(&rules).unwrap_or_else(|e| panic!("{g}: {e}"));
        for t in texts {
            assert_eq!(
                pda.accepts(t.as_bytes()),
                earley.accepts(t.as_bytes()),
                "{g}: {t:?}"
            );
        }
    }
    assert!(!pda_of(r#"root ::= "{" " "* "b"* "}""#).accepts(b"{b b}"));
}
