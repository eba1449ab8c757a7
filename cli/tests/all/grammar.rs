//! `fstc compile grammar`: a grammar file to a token PDA file a decoder loads and walks,
//! the syntax from the extension or --syntax, sizes with --stats, and errors with
//! positions (exit 2); `fstc dot --grammar` draws the byte PDA.

use std::process::Command;

use crate::common::{fstc, gpt2, repo, scratch, stderr, stdout};

use fstc_core::pda_walker::PdaWalker;
use fstc_core::token_pda::TokenPda;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;

/// Whether the token PDA accepts `text` as the tokenizer encodes it, then EOS.
fn accepts(pda: &TokenPda, vocab: &Vocabulary, text: &str) -> bool {
    let mut w = PdaWalker::new(pda);
    let tokens = vocab.tokenize(text).unwrap();
    w.consume_tokens(&tokens).is_ok() && w.consume(vocab.eos_ids()[0]).is_ok() && w.is_finished()
}

#[test]
fn compile_grammar_writes_a_token_pda_that_walks() {
    let dir = scratch("json");
    let out = dir.join("json.fstc");
    let vocab_path = repo("testdata/gpt2/encoder.json");
    let run = fstc(&[
        "compile",
        "grammar",
        repo("pda/tests/grammars/json.gbnf").to_str().unwrap(),
        "--vocab",
        vocab_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--stats",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let stats = stderr(&run);
    // The compiler's own phases and sizes, as it measured them.
    assert!(stats.contains("compile: "), "{stats}");
    for phase in ["(byte PDA ", ", composition ", ", layout "] {
        assert!(stats.contains(phase), "{phase}: {stats}");
    }
    let pda = TokenPda::read_file(&out).unwrap();
    assert!(
        stats.contains(&format!("sizes: {} nodes, ", pda.num_nodes())),
        "{stats}"
    );
    assert!(
        stats.contains(&format!(", {} stack symbols", pda.num_stack_symbols())),
        "{stats}"
    );
    let vocab = Vocabulary::from_file(&vocab_path).unwrap();
    assert_eq!(pda.vocab_fingerprint(), vocab.fingerprint());
    assert!(
        stats.contains(&format!("{} bytes", pda.to_bytes().len())),
        "{stats}"
    );
    assert!(accepts(
        &pda,
        &vocab,
        r#"{"a": [1, 2.5e3, {"b": null}], "c": "d"}"#
    ));
    assert!(!accepts(
        &pda,
        &vocab,
        r#"{"a": [1, 2.5e3, {"b": null}], "c": "d""#
    ));
    assert!(!accepts(&pda, &vocab, r#"{"a" 1}"#));
}

#[test]
fn syntax_from_extension_or_option() {
    let dir = scratch("syntax");
    let anbn = dir.join("anbn.txt");
    std::fs::write(&anbn, "S → \"ab\" | \"a\" S \"b\"\n").unwrap();
    let vocab_path = repo("testdata/paper/figure4.tiktoken");
    let out = dir.join("anbn.fstc");
    let args = |extra: &[&'static str]| {
        let mut a: Vec<String> = ["compile", "grammar", anbn.to_str().unwrap(), "--vocab"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend([
            vocab_path.to_str().unwrap().to_string(),
            "--eos-ids".into(),
            "5".into(),
        ]);
        a.extend(["-o".into(), out.to_str().unwrap().to_string()]);
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = Command::new(env!("CARGO_BIN_EXE_fstc"))
        .args(args(&[]))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("--syntax gbnf|lark|ebnf|paper"),
        "{}",
        stderr(&run)
    );
    let run = Command::new(env!("CARGO_BIN_EXE_fstc"))
        .args(args(&["--syntax", "paper"]))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(TokenPda::read_file(&out).unwrap().eos_ids(), [5]);
}

#[test]
fn grammar_errors_name_the_line_and_column_and_exit_2() {
    let dir = scratch("errors");
    let vocab_path = repo("testdata/gpt2/encoder.json");
    let out = dir.join("x.fstc");
    for (name, text, expected) in [
        (
            "syntax.gbnf",
            "root ::= \"a\"\n  item ::= [a-\n",
            "line 2, column",
        ),
        (
            "unknown.gbnf",
            "root ::= \"a\" thing\n",
            "unknown rule `thing` at line 1, column 14",
        ),
        (
            "priority.lark",
            "start: pair+\npair.2: \"a\"\n",
            "grammar line 2, column 5, in rule `pair`: priorities",
        ),
        (
            "regex.lark",
            "start: WORD\nWORD: /[a-z]+?/\n",
            "grammar line 2, column 8, in terminal `WORD`: lazy quantifiers",
        ),
        (
            "lookahead.ebnf",
            "root ::= a\na ::= (\"x\" (= \"y\"))\n",
            "grammar line 2, column 12: a lookahead assertion `(= ...)` may only follow",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let run = fstc(&[
            "compile",
            "grammar",
            file.to_str().unwrap(),
            "--vocab",
            vocab_path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(run.status.code(), Some(2), "{name}");
        let err = stderr(&run);
        assert!(err.starts_with("error: "), "{err}");
        assert!(
            err.contains(name) && err.contains(expected),
            "{name}: {err}"
        );
    }
    assert!(!out.exists());
}

/// Each limit flag reaches the compiler under its own name: the error names the option
/// the user set (`--node-limit` is `node_limit` in Rust and Python too).
#[test]
fn limit_flags_are_the_compilers_options() {
    let dir = scratch("limits");
    let vocab_path = repo("testdata/gpt2/encoder.json");
    let grammar = repo("pda/tests/grammars/json.gbnf");
    let out = dir.join("x.fstc");
    for (flag, name) in [
        ("--node-limit", "node_limit"),
        ("--token-edge-limit", "token_edge_limit"),
        ("--pop-limit", "pop_limit"),
    ] {
        let run = fstc(&[
            "compile",
            "grammar",
            grammar.to_str().unwrap(),
            "--vocab",
            vocab_path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            flag,
            "0",
        ]);
        assert_eq!(run.status.code(), Some(2), "{flag}");
        assert!(
            stderr(&run).contains(&format!("`{name}`")),
            "{flag}: {}",
            stderr(&run)
        );
    }
    assert!(!out.exists());
}

/// `fstc dot --grammar` draws the paper's Figure 6: the byte PDA of S → ab | aSb, whose
/// call of S after `a` pushes the return address `S: "a" S •` and whose ends pop it.
#[test]
fn dot_draws_a_grammars_byte_pda_as_in_figure_6() {
    let dir = scratch("dot");
    let anbn = dir.join("anbn.gbnf");
    std::fs::write(&anbn, "S → \"ab\" | \"a\" S \"b\"\n").unwrap();
    let run = fstc(&["dot", "--grammar", anbn.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let dot = stdout(&run);
    assert!(dot.starts_with("digraph pda {"), "{dot}");
    for line in [
        r#"0 -> 1 [label="a"];"#,
        r#"1 -> 2 [label="b"];"#,
        r#"1 -> 1 [label="a\n(S: \"a\" S •"];"#,
        r#"2 -> 3 [label="ε\n)S: \"a\" S •"];"#,
        r#"3 -> 2 [label="b"];"#,
    ] {
        assert!(dot.contains(line), "missing {line} in\n{dot}");
    }
    let bad = dir.join("bad.gbnf");
    std::fs::write(&bad, "root ::= \"a\" thing\n").unwrap();
    let run = fstc(&["dot", "--grammar", bad.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("unknown rule `thing` at line 1, column 14"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn lark_and_ebnf_by_extension_or_option() {
    let dir = scratch("formats");
    let vocab_path = repo("testdata/gpt2/encoder.json");
    let vocab = Vocabulary::from_file(&vocab_path).unwrap();
    let lark = "start: pair (\",\" pair)*\npair: KEY \"=\" INT\nKEY: /[a-z]+/\n%import common.INT\n%import common.WS\n%ignore WS\n";
    let ebnf = "root ::= pair (\",\" ws pair)*\npair ::= key.name ws \"=\" ws [0-9]+ ws\nkey.name ::= [a-z]+\nws ::= [ \\t\\x0a]*\n";
    for (name, text, option) in [
        ("pairs.lark", lark, None),
        ("pairs.ebnf", ebnf, None),
        ("pairs.txt", lark, Some("lark")),
        ("pairs.grammar", ebnf, Some("ebnf")),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let out = dir.join(format!("{name}.fstc"));
        let mut argv = vec![
            "compile",
            "grammar",
            file.to_str().unwrap(),
            "--vocab",
            vocab_path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        argv.extend(option.map(|o| ["--syntax", o]).into_iter().flatten());
        let run = fstc(&argv);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        let pda = TokenPda::read_file(&out).unwrap();
        assert!(accepts(&pda, &vocab, "a = 1, bc=22 ,d= 3"), "{name}");
        assert!(!accepts(&pda, &vocab, "a = 1,"), "{name}");
        assert!(!accepts(&pda, &vocab, "a = b"), "{name}");
    }
    // A `.gbnf` file is read as GBNF: Lark text in it is an error.
    let file = dir.join("pairs.gbnf");
    std::fs::write(&file, lark).unwrap();
    let out = dir.join("x.fstc");
    let run = fstc(&[
        "compile",
        "grammar",
        file.to_str().unwrap(),
        "--vocab",
        vocab_path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
}

/// `--time-budget` and `--memory-budget` bound a grammar compile (issue 27): thousands of
/// ambiguous alternatives (over a minute and 1.8 GB unbudgeted) end in exit 2 and an error
/// naming the option and the rule being built, with its line and column.
#[test]
fn compile_grammar_stops_at_its_budgets() {
    let dir = scratch("grammar-budget");
    let n = 4000;
    let alts: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
    let mut text = format!("root ::= {}\n", alts.join(" | "));
    for i in 0..n {
        text.push_str(&format!("r{i} ::= \"w{i}\" root?\n"));
    }
    let file = dir.join("ambiguous.gbnf");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("x.fstc");
    for (option, value, says) in [
        ("--time-budget", "0.3", "(time_budget, `--time-budget`)"),
        (
            "--memory-budget",
            "10000000",
            "(memory_budget, `--memory-budget`)",
        ),
    ] {
        let run = fstc(&[
            "compile",
            "grammar",
            file.to_str().unwrap(),
            "--vocab",
            gpt2().to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            option,
            value,
        ]);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains(", column 1)"), "{err}");
        assert!(!out.exists());
    }
}

/// A grammar the fuzz harness generated (issue 27): self-calling, ambiguous rules whose
/// vocabulary walk advances many runs per byte on GPT-2. The walk polled the time budget
/// once per level of the vocabulary trie, and one level ran for half a minute (a 10 s
/// budget ended after 41 s in release, a 2 s one after 7.5 s in the test build); each run
/// advanced is now a step.
#[test]
fn a_walk_with_many_runs_a_level_stops_at_the_time_budget() {
    let dir = scratch("walk-budget");
    let grammar = dir.join("fuzzed.gbnf");
    std::fs::write(
        &grammar,
        "root ::= r0\nr0 ::= (r0 | r0 | r2)\nr1 ::= (r3 [0-9] | r1 r2 r2 | [^\\n])\n\
         r2 ::= ((r1)+)*\nr3 ::= ((r2 | r1) | \"{\" \"ab\" \"\" | [^\\n])\n\
         r4 ::= (\"\" | [^\\n]) \"ab\" (r4 | r2 | r1)\n",
    )
    .unwrap();
    let vocab_path = repo("testdata/gpt2/encoder.json");
    let started = std::time::Instant::now();
    let run = fstc(&[
        "compile",
        "grammar",
        grammar.to_str().unwrap(),
        "--vocab",
        vocab_path.to_str().unwrap(),
        "-o",
        dir.join("out.fstc").to_str().unwrap(),
        "--time-budget",
        "2",
    ]);
    let elapsed = started.elapsed();
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(stderr(&run).contains("time budget of"), "{}", stderr(&run));
    assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
}
