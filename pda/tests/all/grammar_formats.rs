//! Lark and EBNF grammars written for these tests (arithmetic, JSON, a SQL SELECT, CSV)
//! against the Earley recognizer run on GBNF written by hand for the same languages: the
//! known-good texts are accepted, and every mutation of them (a byte deleted, inserted or
//! replaced) is accepted by the compiled PDA exactly when the recognizer accepts it.

use crate::earley::Earley;
use fstc_pda::{Pda, Syntax};

const NUMBER: &str = r#"number ::= [0-9]+ | [0-9]+ [eE] [+-]? [0-9]+ | ([0-9]+ "." [0-9]* | "." [0-9]+) ([eE] [+-]? [0-9]+)?"#;

struct Case {
    syntax: Syntax,
    text: &'static str,
    /// The same language in GBNF, written by hand (`number` is appended).
    gbnf: &'static str,
    good: &'static [&'static str],
    /// The share of mutants (percent) the recognizer must reject, so that the mutation
    /// checks test something (CSV takes almost any byte).
    min_rejected_pct: usize,
}

const CASES: &[Case] = &[
    Case {
        syntax: Syntax::Lark,
        text: include_str!("../grammars/calc.lark"),
        gbnf: r#"root ::= ws sum
sum ::= product (("+" | "-") ws product)*
product ::= atom (("*" | "/") ws atom)*
atom ::= number ws | "-" ws atom | name ws | name ws "(" ws (sum ("," ws sum)*)? ")" ws | "(" ws sum ")" ws
name ::= [_a-zA-Z] [_a-zA-Z0-9]*
ws ::= [ \t]*
"#,
        good: &[
            "1 + 2 * 3",
            " -x1/(2.5e3 - f(a, 2)) ",
            "g()*-(-1)",
            "a\t-b - c",
        ],
        min_rejected_pct: 25,
    },
    Case {
        syntax: Syntax::Lark,
        text: include_str!("../grammars/json.lark"),
        gbnf: r#"root ::= ws value
value ::= object | array | string ws | [+-]? number ws | ("true" | "false" | "null") ws
array ::= "[" ws (value ("," ws value)*)? "]" ws
object ::= "{" ws (pair ("," ws pair)*)? "}" ws
pair ::= string ws ":" ws value
string ::= "\"" ([^"\\\n] | "\\" [^\n])* "\""
ws ::= [ \t\x0c\r\n]*
"#,
        good: &[
            r#"{"a": [1, -2.5, +3e4, true, null], "b\"": {"c": "d"}}"#,
            " [ [ ] , {} ]\n",
            "-.5",
        ],
        min_rejected_pct: 25,
    },
    Case {
        syntax: Syntax::Lark,
        text: include_str!("../grammars/select.lark"),
        gbnf: r#"root ::= ws [sS] [eE] [lL] [eE] [cC] [tT] ws columns [fF] [rR] [oO] [mM] ws name ws where? order? (";" ws)?
columns ::= "*" ws | column ("," ws column)*
column ::= name ws ([aA] [sS] ws name ws)?
where ::= [wW] [hH] [eE] [rR] [eE] ws cond ([aA] [nN] [dD] ws cond)*
cond ::= name ws ("=" | "<>" | "<=" | ">=" | "<" | ">") ws value
value ::= name ws | [+-]? number ws | "'" [^']* "'" ws
order ::= [oO] [rR] [dD] [eE] [rR] ws [bB] [yY] ws name ws (([aA] [sS] [cC] | [dD] [eE] [sS] [cC]) ws)?
name ::= [_a-zA-Z] [_a-zA-Z0-9]*
ws ::= [ \t\x0c\r\n]*
"#,
        good: &[
            "SELECT a, b AS c FROM t WHERE a >= 1 AND b <> 'x' ORDER BY a DESC;",
            "select * from t",
            "Select id\nfrom users where name = 'o k'",
        ],
        min_rejected_pct: 25,
    },
    Case {
        syntax: Syntax::Lark,
        text: include_str!("../grammars/csv.lark"),
        gbnf: r#"root ::= row "\n" (row "\n")* row?
row ::= field ("," field)*
field ::= ("\"" ([^"] | "\"\"")* "\"" | [^",\n]+)?
"#,
        good: &[
            "a,b,c\n1,\"x, \"\"y\"\"\",3\n",
            "h\n,,\n",
            "name\n\"multi\nline\"\nlast",
        ],
        min_rejected_pct: 5,
    },
    Case {
        syntax: Syntax::Ebnf,
        text: include_str!("../grammars/calc.ebnf"),
        gbnf: r#"root ::= ws expr
expr ::= term (("+" | "-") ws term)*
term ::= factor (("*" | "/") ws factor)*
factor ::= [0-9]+ ("." [0-9]+)? ([eE] [+-]? [0-9]{1,3})? ws | "(" ws expr ")" ws | "-" ws factor
ws ::= [ \t\n]*
"#,
        good: &["1 + 2 * 3", "-(2.5e10 -\n4)/7", "((1))"],
        min_rejected_pct: 25,
    },
    Case {
        syntax: Syntax::Ebnf,
        text: include_str!("../grammars/json.ebnf"),
        gbnf: include_str!("../grammars/json.gbnf"),
        good: &[
            r#"{"a": [1, -2.5, 3e4, true, null], "b\"": {"c": "d\u00e9"}}"#,
            " [ [ ] , {} ]\n",
            "-0.5E-2",
        ],
        min_rejected_pct: 25,
    },
];

/// Every text one byte away from `text` (deleted, inserted or replaced by a byte from
/// `alphabet`).
fn mutations(text: &[u8], alphabet: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..=text.len() {
        if i < text.len() {
            out.push([&text[..i], &text[i + 1..]].concat());
        }
        for &b in alphabet {
            out.push([&text[..i], &[b], &text[i..]].concat());
            if i < text.len() && text[i] != b {
                out.push([&text[..i], &[b], &text[i + 1..]].concat());
            }
        }
    }
    out
}

#[test]
fn lark_and_ebnf_grammars_agree_with_the_recognizer_on_hand_written_gbnf() {
    let alphabet = b" \n\",:*(){}[]-+.eE0a;'=";
    for case in CASES {
        let pda = Pda::from_text(case.text, case.syntax)
            .unwrap_or_else(|e| panic!("{}: {e}", case.syntax));
        let gbnf = match case.gbnf.contains("number ::=") {
            true => case.gbnf.to_string(),
            false => format!("{}{NUMBER}\n", case.gbnf),
        };
        let earley = Earley::new(&fstc_pda::gbnf::parse(&gbnf).unwrap());
        let (mut checked, mut rejected) = (0, 0);
        for good in case.good {
            assert!(earley.accepts(good.as_bytes()), "recognizer: {good:?}");
            assert!(pda.accepts(good.as_bytes()), "{}: {good:?}", case.syntax);
            for m in mutations(good.as_bytes(), alphabet) {
                let expected = earley.accepts(&m);
                rejected += usize::from(!expected);
                checked += 1;
                assert_eq!(
                    pda.accepts(&m),
                    expected,
                    "{}: {:?}\n{}",
                    case.syntax,
                    String::from_utf8_lossy(&m),
                    case.text
                );
            }
        }
        assert!(
            rejected * 100 >= checked * case.min_rejected_pct,
            "{}: {rejected} of {checked} rejected",
            case.text
        );
    }
}
