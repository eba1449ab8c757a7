//! `regular_dfa`: a grammar without recursion as a byte DFA, equal to the Earley
//! recognizer on every text up to a length over the grammar's alphabet; `None` as soon as
//! a rule stays a call.

use fstc_pda::gbnf::parse;
use fstc_pda::regular_dfa;

use crate::earley::Earley;

/// Every text of at most `len` bytes over `alphabet`.
fn texts(alphabet: &[u8], len: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut layer = vec![Vec::new()];
    for _ in 0..len {
        layer = layer
            .iter()
            .flat_map(|t: &Vec<u8>| {
                alphabet.iter().map(move |&b| {
                    let mut next = t.clone();
                    next.push(b);
                    next
                })
            })
            .collect();
        out.extend(layer.iter().cloned());
    }
    out
}

#[test]
fn a_grammar_without_recursion_is_its_dfa() {
    for (text, alphabet) in [
        (
            "root ::= pair (\",\" pair)*\npair ::= key \"=\" val\nkey ::= [a-b] [a-b0]*\nval ::= [0-1]+ | \"'\" [^']* \"'\"",
            &b"ab0=,'1x"[..],
        ),
        ("root ::= a a\na ::= \"x\" | b\nb ::= \"yz\"?", &b"xyz"[..]),
        ("root ::= \"\"", &b"a"[..]),
    ] {
        let rules = parse(text).unwrap();
        let dfa = regular_dfa(&rules, 10_000).unwrap().expect("regular");
        let earley = Earley::new(&rules);
        let mut members = 0;
        for t in texts(alphabet, 5) {
            let expected = earley.accepts(&t);
            assert_eq!(dfa.is_match(&t), expected, "{text:?} on {t:?}");
            members += usize::from(expected);
        }
        assert!(members > 0, "{text:?}");
    }
}

#[test]
fn a_recursive_rule_has_no_dfa() {
    for text in [
        "root ::= \"(\" root \")\" | \"\"",
        "root ::= list\nlist ::= \"[\" (item (\",\" item)*)? \"]\"\nitem ::= [a-z]+ | list",
        "root ::= e\ne ::= e \"+\" t | t\nt ::= \"(\" e \")\" | [0-9]",
    ] {
        let rules = parse(text).unwrap();
        assert!(regular_dfa(&rules, 10_000).unwrap().is_none(), "{text:?}");
    }
}
