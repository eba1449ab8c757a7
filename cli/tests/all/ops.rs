//! The operation commands end to end: each result file is byte for byte the file
//! `fstc compile regex` writes for the combined pattern; `equivalent` and `shortest`
//! print and exit as documented; `project` and `compile fst` round-trip a file through
//! OpenFst; operands of another vocabulary, token PDAs and malformed OpenFst files are
//! refused with exit 2.

use std::path::{Path, PathBuf};

use crate::common::{arg, bytelevel, fstc, repo, scratch, stderr, stdout, testdata};

/// Compiles `pattern` for the byte-level fixture into `dir/name`.
fn compile(dir: &Path, name: &str, pattern: &str) -> PathBuf {
    let out = dir.join(name);
    let run = fstc(&[
        "compile",
        "regex",
        pattern,
        "--vocab",
        &bytelevel(),
        "-o",
        arg(&out),
    ]);
    assert!(run.status.success(), "{pattern}: {}", stderr(&run));
    out
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn results_are_the_files_of_the_combined_patterns() {
    let dir = scratch("ops-files");
    let a = compile(&dir, "a.fstc", "[a-c]+");
    let b = compile(&dir, "b.fstc", ".{2,3}");
    let cases = [
        ("intersect", "[a-c]{2,3}"),
        ("union", "[a-c]+|.{2,3}"),
        ("difference", "[a-c]|[a-c]{4,}"),
    ];
    for (command, pattern) in cases {
        let out = dir.join(format!("{command}.fstc"));
        let run = fstc(&[command, arg(&a), arg(&b), "-o", arg(&out), "--stats"]);
        assert!(run.status.success(), "{command}: {}", stderr(&run));
        let stats = stderr(&run);
        assert!(
            stats.contains("joint classes") && stats.contains("product states"),
            "{stats}"
        );
        let expected = compile(&dir, &format!("{command}-regex.fstc"), pattern);
        assert_eq!(read(&out), read(&expected), "{command} is {pattern}");
    }
    // The complement of the complement is the automaton itself.
    let (c, cc) = (dir.join("c.fstc"), dir.join("cc.fstc"));
    for (from, to) in [(&a, &c), (&c, &cc)] {
        let run = fstc(&[
            "complement",
            arg(from),
            "--vocab",
            &bytelevel(),
            "-o",
            arg(to),
        ]);
        assert!(run.status.success(), "{}", stderr(&run));
    }
    assert_eq!(read(&cc), read(&a));
    assert_ne!(read(&c), read(&a));
}

#[test]
fn equivalent_and_shortest_print_sequences_and_exit_codes() {
    let dir = scratch("ops-equivalent");
    let a = compile(&dir, "a.fstc", "(ab)*a");
    let b = compile(&dir, "b.fstc", "a(ba)*");
    let c = compile(&dir, "c.fstc", "a(ba)*|abc");
    let run = fstc(&["equivalent", arg(&a), arg(&b)]);
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(stdout(&run), "equivalent\n");
    let run = fstc(&["equivalent", arg(&a), arg(&c), "--vocab", &bytelevel()]);
    assert_eq!(run.status.code(), Some(1));
    let line = stdout(&run);
    let expected = format!(
        "not equivalent: {} accepts and {} rejects ",
        arg(&c),
        arg(&a)
    );
    assert!(line.starts_with(&expected), "{line}");
    assert!(line.trim_end().ends_with(" \"abc\""), "{line}");
    let run = fstc(&["shortest", arg(&c), "--vocab", &bytelevel()]);
    assert_eq!(run.status.code(), Some(0));
    assert!(stdout(&run).starts_with("1 tokens ["), "{}", stdout(&run));
    assert!(
        stdout(&run).trim_end().ends_with(" \"a\""),
        "{}",
        stdout(&run)
    );
    // An empty result is written, said, and has no shortest sequence.
    let none = dir.join("none.fstc");
    let run = fstc(&["difference", arg(&a), arg(&b), "-o", arg(&none)]);
    assert!(stderr(&run).contains("the result accepts no token sequence"));
    let run = fstc(&["shortest", arg(&none)]);
    assert_eq!(run.status.code(), Some(1));
    assert!(stdout(&run).ends_with("accepts no token sequence\n"));
}

#[test]
fn project_and_compile_fst_round_trip_through_openfst() {
    let dir = scratch("ops-openfst");
    let a = compile(&dir, "a.fstc", r"\d{1,3}(\.\d+)?");
    let fst = dir.join("a.fst");
    let run = fstc(&["project", arg(&a), "--vocab", &bytelevel(), "-o", arg(&fst)]);
    assert!(run.status.success(), "{}", stderr(&run));
    let back = dir.join("back.fstc");
    let run = fstc(&[
        "compile",
        "fst",
        arg(&fst),
        "--vocab",
        &bytelevel(),
        "-o",
        arg(&back),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(read(&back), read(&a));
    // The same through AT&T text.
    let run = fstc(&["project", arg(&a), "--vocab", &bytelevel(), "--att"]);
    let att = dir.join("a.att");
    std::fs::write(&att, run.stdout).unwrap();
    let back = dir.join("back-att.fstc");
    let run = fstc(&[
        "compile",
        "fst",
        arg(&att),
        "--vocab",
        &bytelevel(),
        "-o",
        arg(&back),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(read(&back), read(&a));
    // Export writes an OpenFst file with OpenFst's magic number.
    let out = dir.join("tokens.fst");
    assert!(fstc(&["export", arg(&a), "-o", arg(&out)]).status.success());
    assert_eq!(read(&out)[..4], 2_125_659_606i32.to_le_bytes());
    let tv = dir.join("tv.fst");
    let paper = testdata("paper/figure4.tiktoken");
    let run = fstc(&[
        "export",
        "--vocab",
        arg(&paper),
        "--eos-ids",
        "5",
        "-o",
        arg(&tv),
        "--att",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(String::from_utf8(read(&tv)).unwrap().contains("\t1\t0\t"));
}

#[test]
fn wrong_operands_and_malformed_files_exit_2_with_the_reason() {
    let dir = scratch("ops-errors");
    let a = compile(&dir, "a.fstc", "abc");
    let other = dir.join("gpt2.fstc");
    let gpt2 = testdata("gpt2/encoder.json");
    let run = fstc(&[
        "compile",
        "regex",
        "abc",
        "--vocab",
        arg(&gpt2),
        "-o",
        arg(&other),
    ]);
    assert!(run.status.success());
    let run = fstc(&[
        "intersect",
        arg(&a),
        arg(&other),
        "-o",
        arg(&dir.join("x.fstc")),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("compiled for different vocabularies"),
        "{}",
        stderr(&run)
    );
    let pda = dir.join("pda.fstc");
    let grammar = repo("pda/tests/grammars/json.gbnf");
    let run = fstc(&[
        "compile",
        "grammar",
        arg(&grammar),
        "--vocab",
        &bytelevel(),
        "-o",
        arg(&pda),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = fstc(&["union", arg(&a), arg(&pda), "-o", arg(&dir.join("y.fstc"))]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("is a token PDA"), "{}", stderr(&run));
    let run = fstc(&[
        "intersect",
        arg(&pda),
        arg(&pda),
        "-o",
        arg(&dir.join("p.fstc")),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("are both token PDAs"),
        "{}",
        stderr(&run)
    );
    let run = fstc(&[
        "intersect",
        arg(&pda),
        arg(&other),
        "-o",
        arg(&dir.join("q.fstc")),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("compiled for different vocabularies"),
        "{}",
        stderr(&run)
    );
    let bad = dir.join("bad.att");
    std::fs::write(&bad, "0\t1\t98\t98\n1\t2\tb\tb\n").unwrap();
    let run = fstc(&[
        "compile",
        "fst",
        arg(&bad),
        "--vocab",
        &bytelevel(),
        "-o",
        arg(&dir.join("z")),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("line 2: `b` is not a numeric label"),
        "{}",
        stderr(&run)
    );
    let run = fstc(&[
        "intersect",
        arg(&a),
        arg(&a),
        "-o",
        arg(&dir.join("w")),
        "--state-limit",
        "1",
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("(the state limit)"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn a_token_bound_limits_a_constraint_to_n_tokens() {
    let dir = scratch("ops-max-tokens");
    let a = compile(&dir, "a.fstc", "[a-z ]+");
    let bound = dir.join("bound.fstc");
    let run = fstc(&[
        "compile",
        "max-tokens",
        "3",
        "--vocab",
        &bytelevel(),
        "-o",
        arg(&bound),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let both = dir.join("both.fstc");
    assert!(fstc(&["intersect", arg(&a), arg(&bound), "-o", arg(&both)])
        .status
        .success());
    // "a b c" takes 3 tokens in the fixture ("a", " b", " c"), "a b c d" 4.
    for (text, code) in [("a b c", 0), ("a b c d", 1)] {
        let run = fstc(&["check", arg(&both), "--vocab", &bytelevel(), "--text", text]);
        assert_eq!(run.status.code(), Some(code), "{text}: {}", stdout(&run));
    }
}

#[test]
fn every_operation_prints_a_stats_line() {
    let dir = scratch("ops-stats");
    let a = compile(&dir, "a.fstc", "[a-c]+");
    let b = compile(&dir, "b.fstc", "[a-c]*");
    let five = dir.join("five.fstc");
    let (out, fst, pda) = (
        dir.join("out.fstc"),
        dir.join("a.fst"),
        dir.join("pda.fstc"),
    );
    let v = bytelevel();
    let grammar = repo("pda/tests/grammars/arith.gbnf");
    let run = fstc(&[
        "compile",
        "grammar",
        arg(&grammar),
        "--vocab",
        &v,
        "-o",
        arg(&pda),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let stats = "--stats";
    let runs: [(Vec<&str>, &str); 14] = [
        (
            vec!["intersect", arg(&a), arg(&b), "-o", arg(&out), stats],
            "product",
        ),
        (
            vec!["union", arg(&a), arg(&b), "-o", arg(&out), stats],
            "product",
        ),
        (
            vec!["difference", arg(&b), arg(&a), "-o", arg(&out), stats],
            "product",
        ),
        (
            vec!["complement", arg(&a), "--vocab", &v, "-o", arg(&out), stats],
            "product",
        ),
        (vec!["equivalent", arg(&a), arg(&b), stats], "equivalence"),
        (vec!["shortest", arg(&a), stats], "shortest path"),
        (
            vec!["project", arg(&a), "--vocab", &v, "-o", arg(&fst), stats],
            "projection",
        ),
        (
            vec!["project", arg(&a), "--vocab", &v, "--att", stats],
            "projection",
        ),
        (
            vec![
                "compile",
                "max-tokens",
                "5",
                "--vocab",
                &v,
                "-o",
                arg(&five),
                stats,
            ],
            "token bound",
        ),
        // The grammar and the bound were written by the runs above.
        (
            vec!["intersect", arg(&pda), arg(&five), "-o", arg(&out), stats],
            "bounded product",
        ),
        (
            vec!["export", arg(&a), "-o", arg(&out), stats],
            "OpenFst acceptor",
        ),
        (
            vec!["export", "--vocab", &v, "-o", arg(&out), stats],
            "OpenFst transducer T_V",
        ),
        (
            vec![
                "compile",
                "fst",
                arg(&fst),
                "--vocab",
                &v,
                "-o",
                arg(&out),
                stats,
            ],
            "byte DFA",
        ),
        (
            vec![
                "compile",
                "expr",
                "union(regex(\"a\"), text(\"b\"))",
                "--vocab",
                &v,
                "-o",
                arg(&out),
                stats,
            ],
            "composition",
        ),
    ];
    for (args, phase) in runs {
        let run = fstc(&args);
        let err = stderr(&run);
        // `equivalent` exits 1 on these two; an error is exit 2.
        assert!(matches!(run.status.code(), Some(0 | 1)), "{args:?}: {err}");
        let line = err.lines().find(|l| l.starts_with("compile: "));
        assert!(
            line.is_some_and(|l| l.contains(phase)) && err.contains("\nsizes: "),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn operations_stop_at_their_budgets_naming_the_option() {
    let dir = scratch("ops-budgets");
    let a = compile(&dir, "a.fstc", "[a-c]+");
    let b = compile(&dir, "b.fstc", "[a-c]*");
    let long = compile(&dir, "long.fstc", "(?s:.){0,30}");
    let pda = dir.join("pda.fstc");
    let grammar = repo("pda/tests/grammars/json.gbnf");
    let v = bytelevel();
    let run = fstc(&[
        "compile",
        "grammar",
        arg(&grammar),
        "--vocab",
        &v,
        "-o",
        arg(&pda),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let out = dir.join("out.fstc");
    let bytes = dir.join("words.fst");
    let words = compile(&dir, "words.fstc", "[a-z]{0,20}");
    let run = fstc(&["project", arg(&words), "--vocab", &v, "-o", arg(&bytes)]);
    assert!(run.status.success(), "{}", stderr(&run));
    let runs: [Vec<&str>; 12] = [
        vec!["intersect", arg(&a), arg(&b), "-o", arg(&out)],
        vec!["union", arg(&a), arg(&b), "-o", arg(&out)],
        vec!["difference", arg(&a), arg(&b), "-o", arg(&out)],
        vec!["complement", arg(&a), "--vocab", &v, "-o", arg(&out)],
        vec!["equivalent", arg(&a), arg(&b)],
        vec!["shortest", arg(&a)],
        vec!["intersect", arg(&pda), arg(&long), "-o", arg(&out)],
        vec!["project", arg(&a), "--vocab", &v, "-o", arg(&out)],
        vec![
            "compile",
            "fst",
            arg(&bytes),
            "--vocab",
            &v,
            "-o",
            arg(&out),
        ],
        vec!["compile", "max-tokens", "5", "--vocab", &v, "-o", arg(&out)],
        vec!["export", arg(&a), "-o", arg(&out)],
        vec!["export", "--vocab", &v, "-o", arg(&out), "--att"],
    ];
    for args in &runs {
        // A budget of no time at all: each operation polls it before its first step.
        let run = fstc(&[&args[..], &["--time-budget", "0"]].concat());
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("past its deadline (the time budget) (`--time-budget`)"),
            "{args:?}: {err}"
        );
        assert!(!out.exists(), "{args:?} wrote its output");
        // The same operation within a budget runs to its end.
        let run = fstc(&[&args[..], &["--time-budget", "600"]].concat());
        assert!(run.status.code() != Some(2), "{args:?}: {}", stderr(&run));
        let _ = std::fs::remove_file(&out);
    }
    // The FSA products hold their states' pairs, index and edges: more than 100 bytes.
    for args in &runs[..5] {
        let run = fstc(&[&args[..], &["--memory-budget", "100"]].concat());
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(
                "for its product states, past its memory limit of 100 bytes (`--memory-budget`)"
            ),
            "{args:?}: {err}"
        );
        assert!(!out.exists(), "{args:?} wrote its output");
    }
    // The composition of an OpenFst acceptor holds the token automaton's tables.
    let run = fstc(&[&runs[8][..], &["--memory-budget", "100"]].concat());
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bytes (the memory limit) for the token automaton's tables")
            && err.contains("(memory_budget, `--memory-budget`)"),
        "{err}"
    );
    // The dead-end analysis of a grammar and a length bound holds a bit per pair of
    // product nodes: 1,751 nodes, 383 kB.
    let run = fstc(&[&runs[6][..], &["--memory-budget", "100000"]].concat());
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("for its same-level matrix, past its memory limit of 100000 bytes")
            && err.contains("(`--memory-budget`)"),
        "{err}"
    );
    // The token bound holds a class per token id and its N + 1 states; an export its
    // machine and file (64 bytes an arc, 96 a state). A generous budget writes the file.
    let held = [
        (9, "the token bound needs at least"),
        (10, "the OpenFst acceptor and its file"),
        (11, "the transducer T_V and its file"),
    ];
    for (i, what) in held {
        let run = fstc(&[&runs[i][..], &["--memory-budget", "100"]].concat());
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{:?}: {err}", runs[i]);
        assert!(
            err.contains(what)
                && err.contains("past its memory limit of 100 bytes (`--memory-budget`)"),
            "{:?}: {err}",
            runs[i]
        );
        assert!(!out.exists(), "{:?} wrote its output", runs[i]);
        let run = fstc(&[&runs[i][..], &["--memory-budget", "100000000"]].concat());
        assert!(run.status.success(), "{:?}: {}", runs[i], stderr(&run));
        std::fs::remove_file(&out).unwrap();
    }
    // The bound's N + 1 states against the state limit, as the other operations'.
    let run = fstc(&[&runs[9][..], &["--state-limit", "5"]].concat());
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a bound of 5 tokens needs 6 states, past the state limit of 5"),
        "{err}"
    );
    assert!(fstc(&[&runs[9][..], &["--state-limit", "6"]].concat())
        .status
        .success());
}
