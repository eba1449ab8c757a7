//! The grammars of the grammar bench, the texts its walks follow, and the probe texts whose
//! acceptance both engines must agree on.
//!
//! Walk texts nest at least 10 deep (brackets, objects, parentheses, calls), so the walks
//! exercise pushes and pops across token boundaries, not only the top level.

/// What fstc compiles, relative to the repository root.
#[derive(Clone, Copy)]
pub enum Source {
    /// A GBNF file (the pda crate's test grammars), through `GrammarCompiler`.
    Gbnf(&'static str),
    /// A structural tag with a `grammar` piece, through `StructuralTagCompiler`.
    StructuralTag(&'static str),
}

/// One grammar, written twice: for fstc and in Lark for llguidance.
pub struct GrammarCase {
    pub name: &'static str,
    /// What fstc compiles.
    pub fstc: Source,
    /// The Lark file, relative to `benches/inputs/grammar/`.
    pub lark: &'static str,
    /// Texts the walks follow, in turn.
    pub samples: &'static [&'static str],
    /// Texts, valid or not, on which the engines' verdicts are compared.
    pub probes: &'static [&'static str],
}

pub const GRAMMAR_CASES: &[GrammarCase] = &[
    GrammarCase {
        name: "json",
        fstc: Source::Gbnf("pda/tests/grammars/json.gbnf"),
        lark: "json.lark",
        samples: &[
            r#"[[[[[[[[[[[{"id": 1, "tags": ["a", "b"], "next": {"id": 2, "next": {"id": 3, "next": null}}}]]]]]]]]]]]"#,
            r#"{"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {"j": {"k": [1, -2.5e3, true, false, null, "x\"y\u00e9 ü"]}}}}}}}}}}}"#,
            "[[[[[[[[[[[[1,2],[3,4]],[[5]]]]]]]]]]],\n [{\"deep\": [[[[[[[[[[0.125]]]]]]]]]]}]]",
            r#"{"users": [{"name": "Zoë", "roles": ["admin", "ops"], "meta": {"since": 2019, "limits": {"cpu": 0.5, "mem": [512, 1024]}}}], "ok": true}"#,
        ],
        probes: &[
            r#"{"a":1}"#,
            " [ ]\n",
            r#""\u00e9\n""#,
            "-0.5e-3",
            "[1 , 2]",
            "[1,]",
            r#"{"a" 1}"#,
            "01",
            "[1 2]",
            r#""a\x""#,
            r#"{"a":1,}"#,
            "tru",
            "[[[[",
            "\"tab\there\"",
            "1.e5",
            "{\"k\": [true, {\"z\": null}]}",
            "[1]\n",
            "[1] ",
            "[1]\n\n",
            "[\n\n1]",
            "[1,\n 2]",
        ],
    },
    GrammarCase {
        name: "arithmetic",
        fstc: Source::Gbnf("pda/tests/grammars/arith.gbnf"),
        lark: "arith.lark",
        samples: &[
            "((((((((((((1+2)*3)-4)/5)%6)+x)*y1)-f(2))/g(a, b))+7.25)*8)-9)",
            "-(((((((((((a*(b+c)))))))))))) + max(1, (((((((((((2))))))))))))",
            "f(g(h(i(j(k(l(m(n(o(p(1, 2), 3)))))))))) * 10 - total_sum(1.5)",
            "(((((((((((x - 1) * (y + 2)) / 3) + 4) * 5) - 6) % 7) + 8) * 9) - 10) / 11)",
        ],
        probes: &[
            "1+2",
            " f()",
            "-(-1)",
            "a % b",
            "x(1,2)",
            "1+",
            "(1",
            "1 2",
            "f(,)",
            "+1",
            "1..2",
            "abcdefghijklmnopq",
            "A",
            "(1))",
            "2 * (3 + sqrt(4)) - -5",
            "1+2 ",
            "(1)   ",
        ],
    },
    GrammarCase {
        name: "ambiguous expr",
        fstc: Source::Gbnf("pda/tests/grammars/nondeterministic/ambiguous_expr.gbnf"),
        lark: "ambiguous_expr.lark",
        samples: &[
            "((((((((((((1 + 2) * 3) - 4) / 5) + 6) * 7) - 8) / 9) + 10) * 11) - 12) / 13)",
            "-1.5 * ((((((((((((2)))))))))))) + 3/(4-(5*(6+(7-(8/(9*(10+(11-(12+13)))))))))",
            "( ( ( ( ( ( ( ( ( ( ( 1.25 ) ) ) ) ) ) ) ) ) ) ) - -2 * 3 + 4 - 5 * 6 / 7 + 8 - 9 * 10",
            "1+2*3-4/5+6*7-8/9+10*(11-(12+(13*(14-(15/(16+(17*(18-(19+(20*21))))))))))",
        ],
        probes: &[
            "1 + 2",
            "(1)",
            "-2.5*3",
            "1 - -2",
            "((1 ) )",
            "1 +",
            "(1",
            "1 2",
            "+1",
            "1..2",
            "- 1",
            "1.",
            "(1))",
            "1  *  2",
        ],
    },
    GrammarCase {
        name: "indirect expr",
        fstc: Source::Gbnf("pda/tests/grammars/nondeterministic/indirect_expr.gbnf"),
        lark: "indirect_expr.lark",
        samples: &[
            "((((((((((((1 + 2) * 3) - 4) / 5) + 6) * 7) - 8) / 9) + 10) * 11) - 12) / 13)",
            "f(g(h(i(j(k(l(m(n(o(p(1, 2), 3)))))))))) * 10 - total(1)",
            "( ( ( ( ( ( ( ( ( ( ( 7 ) ) ) ) ) ) ) ) ) ) ) -2*3+4-5*6/7+8-9*10",
            "1+2*3-4/5+6*7-8/9+10*(11-(12+(13*(14-(15/(16+(17*(18-(19+(20*21))))))))))",
        ],
        probes: &[
            "1 + 2",
            "1+2*3",
            "f()",
            "f( )",
            "f(1 ,2)",
            "((1))-2/3*4",
            "x(1)",
            "1 +",
            "(1",
            "1  + 2",
            "F(1)",
            "1 2",
            "x",
            "-1",
        ],
    },
    GrammarCase {
        name: "sql",
        fstc: Source::Gbnf("pda/tests/grammars/nondeterministic/sql_optional.gbnf"),
        lark: "sql_optional.lark",
        samples: &[
            "SELECT a FROM t WHERE ((((((((((((x = 1)))))))))))) AND y != 'z' ORDER BY a DESC LIMIT 10;",
            "SELECT id, name FROM users WHERE id = (SELECT a FROM b WHERE a = (SELECT c FROM d WHERE c = (SELECT e FROM f WHERE e = (SELECT g FROM h WHERE (((((((g < 5))))))))))) LIMIT 3",
            "SELECT * FROM WHERE WHERE (a = 1 OR (b = 2 AND (c = 3 OR (d = 4 AND (e = 5 OR (f = 6 AND (g = 7 OR (h = 8 AND (i = 9 OR (j = 10 AND (k >= 11))))))))))) ORDER BY ORDER ASC ;\n",
        ],
        probes: &[
            "SELECT * FROM t",
            "SELECT a,b FROM t WHERE a = 1;",
            "SELECT a FROM t WHERE (a = 'x' OR b < 2) LIMIT 5",
            "SELECT a FROM t ORDER BY a",
            "SELECT a FROM WHERE",
            "SELECT FROM t",
            "SELECT a FROM t WHERE",
            "SELECT a FROM t LIMIT x",
            "SELECT a FROM t WHERE a = 'x\ny'",
            "SELECT a FROM t;;",
            "SELECT a FROM t WHERE a <= (SELECT b FROM u)",
            "select a from t",
        ],
    },
    GrammarCase {
        name: "tags: <calc> calls",
        fstc: Source::StructuralTag("benches/inputs/grammar/calc_tags.json"),
        lark: "calc_tags.lark",
        samples: &[
            "Let me work it out. <calc>((((((((((1+2)*3)-4)/5)+6)*7)-8)/9)+10)*11)</calc> So the total is \
             about 120, and <calc>(((((((((((12)))))))))))</calc> is just 12.",
            "First the cost: <calc>3*(4+(5*(6-(7/(8+(9*(10-(11+(12*(13-14))))))))))</calc>\n\
             then the tax <calc>20/100*(((((((((((50)))))))))))</calc>. Done <c> </calc>.",
            "No call needed here; a < b and c > d, (x) [y] {z}.",
            "<calc>1+2*3-4/5+6*7-8/9+10*(11-(12+(13*(14-(15/(16+(17*(18-(19+(20*21))))))))))</calc>",
        ],
        probes: &[
            "<calc>1+2</calc>",
            "So <calc>(1+2)*3</calc> is 9.",
            "plain text",
            "",
            "<calc>(1+2</calc>",
            "<calc>1+</calc>",
            "<calc>1 + 2</calc>",
            "a <calc>1</calc",
            "<calc>()</calc>",
            "<calc>(1))</calc>",
            "x<calc>1</calc>y<calc>2</calc>z",
            "<cal c>1</calc>",
            "a <calc>",
        ],
    },
    GrammarCase {
        name: "clike keywords",
        fstc: Source::Gbnf("pda/tests/grammars/nondeterministic/clike_keywords.gbnf"),
        lark: "clike_keywords.lark",
        samples: &[
            "int n = 0;\nwhile (n < 10) { if (n % 2 == 0) { for (i = 0; i < n; i = i + 1) { if (i > 3) { while (k) { if (a) { { { { x = f(g(h(1))); } } } } } } } } else if (n == 5) { return (((((((((((n))))))))))); } n = n + 1; }\n",
            "if (x) { else_x = 1; } else { foo(if(2)); }\nint_x = if(while(for(return(else(int(x, -1)))))) + 3;\nwhile (f(g(h(i(j(k(l(m(n(o(1)))))))))) != 0) { return -x; }\n",
            "{ { { { { { { { { { { { if(x) { y = !(a && (b || (c <= (d >= (e != (f == -1)))))); } } } } } } } } } } } } }\n",
        ],
        probes: &[
            "if (x) {} elseif (y) {}",
            "if (x) {} else if (y) {}",
            "if (x) {}else{}",
            "if (x) {} elsex = 1;",
            "if (x) {} else iff(1);",
            "int x;",
            "intx;",
            "int = 1;",
            "return;",
            "return x;",
            "returnx;",
            "return(x);",
            "return ;",
            "if(x);",
            "if(x) {}",
            "while(1);",
            "for (i = 0; i < 3; i = i + 1) {}",
            "x = a<=b;",
            "x = a< =b;",
            "x = a--b;",
            "x = !-!y;",
            "x ==1;",
            "x = 1",
            "x = 1;;",
            "else = 2;",
            "{ } }",
            "f(1,);",
            "x\t=\n2 ;",
            "x = 01;",
        ],
    },
];

/// The deepest bracket nesting of `text` (`[{(` open, `]})` close; brackets inside JSON
/// strings are not counted), to show that the walks nest as deep as the bench says.
pub fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' | '(' => {
                depth += 1;
                max = max.max(depth);
            }
            ']' | '}' | ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
