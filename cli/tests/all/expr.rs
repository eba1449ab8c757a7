//! `fstc compile expr` end to end: results are byte for byte the files of the combined
//! pattern or of the operation commands applied by hand; the JSON form from a file reads
//! schemas beside it; errors exit 2 with the column and a caret.

use crate::common::{arg, bytelevel, fstc, fstc_ok, scratch, size, stderr, stdout};

#[test]
fn results_equal_the_combined_pattern_and_the_commands_by_hand() {
    let dir = scratch("expr-files");
    let v = bytelevel();
    let (e, r) = (dir.join("e.fstc"), dir.join("r.fstc"));
    let expr = r#"intersect(regex("[a-c]+"), regex(".{2,3}"))"#;
    let stats = fstc_ok(&[
        "compile",
        "expr",
        expr,
        "--vocab",
        &v,
        "-o",
        arg(&e),
        "--stats",
    ]);
    assert!(
        stats.contains("byte operations") && stats.contains("composition"),
        "{stats}"
    );
    fstc_ok(&[
        "compile",
        "regex",
        "[a-c]{2,3}",
        "--vocab",
        &v,
        "-o",
        arg(&r),
    ]);
    assert_eq!(std::fs::read(&e).unwrap(), std::fs::read(&r).unwrap());
    let t = dir.join("t.fstc");
    let args = [
        "compile",
        "expr",
        expr,
        "--vocab",
        &v,
        "-o",
        arg(&t),
        "--boolean-level",
        "tokens",
    ];
    let stats = fstc_ok(&[&args[..], &["--stats"]].concat());
    assert!(stats.contains("product states"), "{stats}");
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&r).unwrap());
    // A token bound: the same file as `compile max-tokens` and `intersect`.
    let (five, both, by_hand) = (dir.join("5.fstc"), dir.join("b.fstc"), dir.join("h.fstc"));
    let expr = r#"intersect(regex("[a-c]+x"), max_tokens(2))"#;
    fstc_ok(&["compile", "expr", expr, "--vocab", &v, "-o", arg(&both)]);
    fstc_ok(&["compile", "regex", "[a-c]+x", "--vocab", &v, "-o", arg(&r)]);
    fstc_ok(&[
        "compile",
        "max-tokens",
        "2",
        "--vocab",
        &v,
        "-o",
        arg(&five),
    ]);
    fstc_ok(&["intersect", arg(&r), arg(&five), "-o", arg(&by_hand)]);
    assert_eq!(
        std::fs::read(&both).unwrap(),
        std::fs::read(&by_hand).unwrap()
    );
}

#[test]
fn the_json_form_reads_files_beside_it() {
    let dir = scratch("expr-json");
    std::fs::write(dir.join("int.json"), r#"{"type": "integer", "minimum": 0}"#).unwrap();
    let file = dir.join("answer.json");
    std::fs::write(
        &file,
        r#"{"concat": [{"text": "Answer: "}, {"json": "int.json"}]}"#,
    )
    .unwrap();
    let out = dir.join("answer.fstc");
    let v = bytelevel();
    fstc_ok(&[
        "compile",
        "expr",
        "--file",
        arg(&file),
        "--vocab",
        &v,
        "-o",
        arg(&out),
    ]);
    for (text, code) in [("Answer: 42", 0), ("Answer: -1", 1), ("42", 1)] {
        let run = fstc(&["check", arg(&out), "--vocab", &v, "--text", text]);
        assert_eq!(run.status.code(), Some(code), "{text}: {}", stdout(&run));
    }
}

#[test]
fn errors_exit_2_with_the_place() {
    let dir = scratch("expr-errors");
    let out = dir.join("x.fstc");
    let v = bytelevel();
    let cases = [
        (
            r#"union(regex("a") text("b"))"#,
            "error: expression at column 18: expected `,` or `)` in the arguments of `union`, \
             found `t`\n  union(regex(\"a\") text(\"b\"))\n                   ^",
        ),
        (
            r#"concat(regex("a"), max_tokens(2))"#,
            "error: expression at column 20: `concat` joins texts",
        ),
        (
            r#"{"union": [{"regex": "a"}, {"star": 3}]}"#,
            "error: expression at /union/1/star: expected an expression",
        ),
    ];
    for (expr, expected) in cases {
        let run = fstc(&["compile", "expr", expr, "--vocab", &v, "-o", arg(&out)]);
        assert_eq!(run.status.code(), Some(2), "{expr}");
        assert!(
            stderr(&run).starts_with(expected),
            "{expr}: {}",
            stderr(&run)
        );
    }
}

#[test]
fn stats_of_a_grammar_expression_show_the_grammar_and_the_result() {
    let dir = scratch("expr-grammar-stats");
    let (g, x) = (dir.join("g.fstc"), dir.join("x.fstc"));
    let grammar = r#"grammar("root ::= \"(\" root \")\" | \"x\"")"#;
    let v = bytelevel();
    let alone = fstc_ok(&[
        "compile",
        "expr",
        grammar,
        "--vocab",
        &v,
        "-o",
        arg(&g),
        "--stats",
    ]);
    let expr = format!("intersect({grammar}, max_tokens(9))");
    let stats = fstc_ok(&[
        "compile",
        "expr",
        &expr,
        "--vocab",
        &v,
        "-o",
        arg(&x),
        "--stats",
    ]);
    // The grammar's own nodes, as compiled alone, beside the bounded result's.
    assert_eq!(
        size(&stats, "grammar nodes"),
        size(&alone, "nodes"),
        "{stats}"
    );
    assert_eq!(size(&stats, "token bound"), 9, "{stats}");
    let nodes = size(&stats, "nodes");
    let pda = fstc_core::token_pda::TokenPda::read_file(&x).unwrap();
    assert_eq!(nodes, pda.num_nodes() as usize);
    assert!(nodes > size(&alone, "nodes"), "{stats}");
}
