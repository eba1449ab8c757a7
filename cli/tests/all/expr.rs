//! `fstc compile expr` end to end: results are byte for byte the files of the combined
//! pattern or of the operation commands applied by hand; the JSON form from a file reads
//! schemas beside it; errors exit 2 with the column and a caret.

use std::path::Path;

use crate::common::{fstc, scratch, stderr, stdout, testdata};

fn vocab() -> String {
    testdata("bytelevel/tokenizer.json").display().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run_ok(args: &[&str]) -> String {
    let run = fstc(args);
    assert!(run.status.success(), "{args:?}: {}", stderr(&run));
    stderr(&run)
}

#[test]
fn results_equal_the_combined_pattern_and_the_commands_by_hand() {
    let dir = scratch("expr-files");
    let v = vocab();
    let (e, r) = (dir.join("e.fstc"), dir.join("r.fstc"));
    let expr = r#"intersect(regex("[a-c]+"), regex(".{2,3}"))"#;
    let stats = run_ok(&[
        "compile",
        "expr",
        expr,
        "--vocab",
        &v,
        "-o",
        s(&e),
        "--stats",
    ]);
    assert!(
        stats.contains("byte operations") && stats.contains("composition"),
        "{stats}"
    );
    run_ok(&["compile", "regex", "[a-c]{2,3}", "--vocab", &v, "-o", s(&r)]);
    assert_eq!(std::fs::read(&e).unwrap(), std::fs::read(&r).unwrap());
    let t = dir.join("t.fstc");
    let args = [
        "compile",
        "expr",
        expr,
        "--vocab",
        &v,
        "-o",
        s(&t),
        "--boolean-level",
        "tokens",
    ];
    let stats = run_ok(&[&args[..], &["--stats"]].concat());
    assert!(stats.contains("product states"), "{stats}");
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&r).unwrap());
    // A token bound: the same file as `compile max-tokens` and `intersect`.
    let (five, both, by_hand) = (dir.join("5.fstc"), dir.join("b.fstc"), dir.join("h.fstc"));
    let expr = r#"intersect(regex("[a-c]+x"), max_tokens(2))"#;
    run_ok(&["compile", "expr", expr, "--vocab", &v, "-o", s(&both)]);
    run_ok(&["compile", "regex", "[a-c]+x", "--vocab", &v, "-o", s(&r)]);
    run_ok(&["compile", "max-tokens", "2", "--vocab", &v, "-o", s(&five)]);
    run_ok(&["intersect", s(&r), s(&five), "-o", s(&by_hand)]);
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
    let v = vocab();
    run_ok(&[
        "compile",
        "expr",
        "--file",
        s(&file),
        "--vocab",
        &v,
        "-o",
        s(&out),
    ]);
    for (text, code) in [("Answer: 42", 0), ("Answer: -1", 1), ("42", 1)] {
        let run = fstc(&["check", s(&out), "--vocab", &v, "--text", text]);
        assert_eq!(run.status.code(), Some(code), "{text}: {}", stdout(&run));
    }
}

#[test]
fn errors_exit_2_with_the_place() {
    let dir = scratch("expr-errors");
    let out = dir.join("x.fstc");
    let v = vocab();
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
        let run = fstc(&["compile", "expr", expr, "--vocab", &v, "-o", s(&out)]);
        assert_eq!(run.status.code(), Some(2), "{expr}");
        assert!(
            stderr(&run).starts_with(expected),
            "{expr}: {}",
            stderr(&run)
        );
    }
}
