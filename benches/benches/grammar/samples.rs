//! The grammars of the grammar bench, the texts its walks follow, and the probe texts whose
//! acceptance both engines must agree on.
//!
//! Walk texts nest at least 10 deep (brackets, objects, parentheses, calls), so the walks
//! exercise pushes and pops across token boundaries, not only the top level.

/// One grammar, written twice: GBNF for fstc and Lark for llguidance.
pub struct GrammarCase {
    pub name: &'static str,
    /// The GBNF file, relative to the repository root (the pda crate's test grammar).
    pub gbnf: &'static str,
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
        gbnf: "pda/tests/grammars/json.gbnf",
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
        gbnf: "pda/tests/grammars/arith.gbnf",
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
