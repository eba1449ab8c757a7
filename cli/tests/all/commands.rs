//! The `fstc` binary end to end: every command, its output and its exit codes.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{fstc, gpt2, scratch, stderr, stdout, testdata};

use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;

/// Compiles `pattern` for `vocab` into `dir/name.fstc`.
fn compile(dir: &Path, name: &str, pattern: &str, vocab: &Path, extra: &[&str]) -> PathBuf {
    let out_path = dir.join(format!("{name}.fstc"));
    let mut args = vec![
        "compile",
        "regex",
        pattern,
        "--vocab",
        vocab.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = fstc(&args);
    assert!(out.status.success(), "compile failed: {}", stderr(&out));
    out_path
}

#[test]
fn compile_info_and_stats() {
    let dir = scratch("info");
    let pattern = r"\d{4}-\d{2}-\d{2}";
    let out_path = dir.join("date.fstc");
    let out = fstc(&[
        "compile",
        "regex",
        pattern,
        "--vocab",
        gpt2().to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--stats",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stats = stderr(&out);
    // The compiler's own phases and sizes, as it measured them.
    assert!(stats.contains("compile: "), "{stats}");
    for phase in ["(byte DFA ", ", composition ", ", layout "] {
        assert!(stats.contains(phase), "{phase}: {stats}");
    }
    let automaton = fstc_core::automaton::TokenAutomaton::read_file(&out_path).unwrap();
    for size in [
        format!(", {} states, ", automaton.num_states()),
        format!(", {} edges, ", automaton.num_edges()),
        format!(", {} bytes", automaton.to_bytes().len()),
    ] {
        assert!(stats.contains(&size), "{size}: {stats}");
    }

    let out = fstc(&["info", out_path.to_str().unwrap()]);
    assert!(out.status.success());
    let info = stdout(&out);
    for line in [
        "kind: token FSA",
        "vocabulary size: 50257",
        "eos ids: 50256",
        "accepting states: 1",
        "token classes: ",
    ] {
        assert!(info.contains(line), "missing {line:?} in\n{info}");
    }
    let bytes = std::fs::metadata(&out_path).unwrap().len();
    assert!(info.contains(&format!("bytes: {bytes}")), "{info}");
}

#[test]
fn sample_prints_json_walks_that_match() {
    let dir = scratch("sample");
    let pattern = r"(yes|no), [a-z]{2,8}!";
    let file = compile(&dir, "yn", pattern, &gpt2(), &[]);
    let vocab_path = gpt2();
    let sample = || {
        fstc(&[
            "sample",
            file.to_str().unwrap(),
            "--vocab",
            vocab_path.to_str().unwrap(),
            "-n",
            "30",
            "--seed",
            "7",
            "--max-tokens",
            "40",
        ])
    };
    let out = sample();
    assert!(out.status.success(), "{}", stderr(&out));
    let vocab = Vocabulary::from_file(gpt2()).unwrap();
    let oracle = regex::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap();
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 30);
    let mut complete = 0;
    for line in &lines {
        assert!(line.starts_with(r#"{"tokens":["#), "{line}");
        let walk: serde_json::Value = serde_json::from_str(line).unwrap();
        let tokens: Vec<u32> = walk["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_u64().unwrap() as u32)
            .collect();
        let spelled = vocab.detokenize(&tokens);
        let text = walk["text"].as_str().unwrap();
        assert_eq!(text.as_bytes(), spelled, "{line}");
        if walk["complete"].as_bool().unwrap() {
            complete += 1;
            assert!(oracle.is_match(text), "{text:?} does not match");
        }
    }
    assert!(complete > 0);

    // The same seed gives the same walks.
    assert_eq!(stdout(&sample()), stdout(&out));
}

#[test]
fn check_exit_codes_and_reasons() {
    let dir = scratch("check");
    let file = compile(&dir, "date", r"\d{4}-\d{2}-\d{2}", &gpt2(), &[]);
    let vocab_path = gpt2();
    let run = |input: &[&str]| {
        let mut args = vec![
            "check",
            file.to_str().unwrap(),
            "--vocab",
            vocab_path.to_str().unwrap(),
        ];
        args.extend_from_slice(input);
        fstc(&args)
    };

    let out = run(&["--text", "2024-01-31"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).starts_with("accepted"));

    let out = run(&["--text", "2024-1-31"]);
    assert_eq!(out.status.code(), Some(1));
    let said = stdout(&out);
    assert!(said.contains("rejected at token"), "{said}");
    assert!(said.contains(r#"after "2024-1""#), "{said}");

    let out = run(&["--text", "2024-01"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("does not accept"), "{}", stdout(&out));

    // Token ids: "2024-01-31" by hand, then with EOS.
    let vocab = Vocabulary::from_file(gpt2()).unwrap();
    let ids: Vec<String> = vocab
        .tokenize("2024-01-31")
        .unwrap()
        .iter()
        .map(u32::to_string)
        .collect();
    let out = run(&["--tokens", &ids.join(",")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let with_eos = format!("{},50256", ids.join(","));
    assert_eq!(run(&["--tokens", &with_eos]).status.code(), Some(0));
    // EOS too early is rejected.
    let early = format!("{},50256", ids[..2].join(","));
    assert_eq!(run(&["--tokens", &early]).status.code(), Some(1));

    // Bad input: exit 2 with a reason.
    let out = run(&["--tokens", "99999999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("outside the vocabulary"),
        "{}",
        stderr(&out)
    );
    let out = fstc(&[
        "check",
        file.to_str().unwrap(),
        "--vocab",
        testdata("sentencepiece/tokenizer.json").to_str().unwrap(),
        "--text",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("another vocabulary"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn dot_outputs() {
    let figure4 = testdata("paper/figure4.tiktoken");
    let out = fstc(&["dot", "--vocab", figure4.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tv = stdout(&out);
    assert!(tv.starts_with("digraph"), "{tv}");
    assert!(tv.contains(r#"label="food:d""#), "{tv}");

    let out = fstc(&["dot", "--regex", "(foo)+d"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains(r#"3 -> 4 [label="d"]"#),
        "{}",
        stdout(&out)
    );

    let dir = scratch("dot");
    let file = compile(&dir, "f5", "(foo)+d", &figure4, &["--eos-ids", "5"]);
    let out = fstc(&[
        "dot",
        file.to_str().unwrap(),
        "--vocab",
        figure4.to_str().unwrap(),
        "--eos-ids",
        "5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let drawn = stdout(&out);
    assert!(drawn.contains(r#"0 -> 2 [label="food"]"#), "{drawn}");
    assert!(drawn.contains("doublecircle"), "{drawn}");

    let gpt2 = gpt2();
    let out = fstc(&["dot", "--vocab", gpt2.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("small vocabularies"));
}

#[test]
fn terminals_in_info_dot_sample_and_errors() {
    let dir = scratch("terminals");
    let vocab = gpt2();
    let vocab_s = vocab.to_str().unwrap();
    let file = compile(
        &dir,
        "bullets",
        r"Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){1,2}",
        &vocab,
        &[],
    );
    let out = fstc(&["info", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info = stdout(&out);
    assert!(info.contains("terminals: 1"), "{info}");
    // GPT-2's 50256 text tokens, less those holding a newline; per bullet, one edge into the
    // paragraph and one loop.
    let parsed = Vocabulary::from_file(&vocab).unwrap();
    let without_newline = (0..parsed.len() as u32)
        .filter(|&id| parsed.token_bytes(id).is_some_and(|b| !b.contains(&b'\n')))
        .count();
    assert!(
        info.contains(&format!(
            "terminal 0: PARAGRAPH_TOKEN ({without_newline} tokens, 4 edges)"
        )),
        "{info}"
    );

    let out = fstc(&["dot", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let drawn = stdout(&out);
    assert_eq!(
        drawn
            .matches(r#"[label="<PARAGRAPH_TOKEN>", style=dashed]"#)
            .count(),
        4,
        "{drawn}"
    );

    // Image tokens: only the configured ids pass, between the tags.
    let file = compile(
        &dir,
        "image",
        r"<img>(?P<IMAGE>){2}</img>",
        &vocab,
        &["--image-tokens", "100,200,300"],
    );
    let out = fstc(&["info", file.to_str().unwrap()]);
    let info = stdout(&out);
    assert!(
        info.contains("terminal 0: IMAGE (3 tokens, 2 edges)"),
        "{info}"
    );
    let out = fstc(&[
        "sample",
        file.to_str().unwrap(),
        "--vocab",
        vocab_s,
        "-n",
        "5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for line in stdout(&out).lines() {
        let walk: serde_json::Value = serde_json::from_str(line).unwrap();
        let tokens: Vec<u64> = walk["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_u64().unwrap())
            .collect();
        let images = tokens
            .iter()
            .filter(|t| [100, 200, 300].contains(*t))
            .count();
        assert_eq!(images, 2, "{line}");
    }

    let out_path = dir.join("x.fstc");
    for (pattern, extra, says) in [
        (r"<img>(?P<IMAGE>)", vec![], "IMAGE"),
        (
            r"<img>(?P<IMAGE>)",
            vec!["--image-tokens", "99999999"],
            "99999999",
        ),
        (r"(?P<PARAGRAPH>)", vec![], "PARAGRAPH"),
        (r"(?P<TEXT_UNTIL>)", vec![], "TEXT_UNTIL"),
    ] {
        let mut args = vec![
            "compile",
            "regex",
            pattern,
            "--vocab",
            vocab_s,
            "-o",
            out_path.to_str().unwrap(),
        ];
        args.extend(extra);
        let out = fstc(&args);
        assert_eq!(out.status.code(), Some(2), "{pattern}");
        assert!(stderr(&out).contains(says), "{pattern}: {}", stderr(&out));
    }
}

#[test]
fn bad_usage_and_bad_input_exit_2() {
    let dir = scratch("bad");
    let vocab = gpt2();
    let vocab = vocab.to_str().unwrap();
    let out_path = dir.join("x.fstc");
    let out_path = out_path.to_str().unwrap();
    for (args, says) in [
        (vec![], "Usage"),
        (vec!["frobnicate"], "unrecognized subcommand"),
        (vec!["compile", "regex", "a"], "--vocab"),
        (
            vec![
                "compile",
                "regex",
                "(a|b)x\\1",
                "--vocab",
                vocab,
                "-o",
                out_path,
            ],
            "backreference",
        ),
        (
            vec![
                "compile", "regex", r"(a)\1", "--vocab", vocab, "-o", out_path,
            ],
            "backreference",
        ),
        (
            vec!["compile", "regex", "(foo", "--vocab", vocab, "-o", out_path],
            "unclosed group",
        ),
        (
            vec![
                "compile",
                "regex",
                "(a|b)*a(a|b){20}",
                "--vocab",
                vocab,
                "-o",
                out_path,
                "--dfa-state-limit",
                "1000",
            ],
            "state limit",
        ),
        (
            vec![
                "compile",
                "regex",
                "[a-z]+",
                "--vocab",
                vocab,
                "-o",
                out_path,
                "--token-edge-limit",
                "100",
            ],
            "edge limit",
        ),
        (
            vec![
                "compile",
                "regex",
                "a",
                "--vocab",
                "/no/such/file",
                "-o",
                out_path,
            ],
            "/no/such/file",
        ),
        (vec!["info", vocab], "not an fstc token automaton"),
    ] {
        let out = fstc(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }

    // A truncated automaton file.
    let file = compile(&dir, "ok", "[0-9]+", &gpt2(), &[]);
    let bytes = std::fs::read(&file).unwrap();
    let cut = dir.join("cut.fstc");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = fstc(&["info", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("truncated"), "{}", stderr(&out));
}

#[test]
fn every_command_has_help() {
    for command in [
        vec!["--help"],
        vec!["compile", "--help"],
        vec!["compile", "regex", "--help"],
        vec!["info", "--help"],
        vec!["dot", "--help"],
        vec!["sample", "--help"],
        vec!["check", "--help"],
        vec!["compile", "fst", "--help"],
        vec!["compile", "max-tokens", "--help"],
        vec!["compile", "expr", "--help"],
        vec!["intersect", "--help"],
        vec!["union", "--help"],
        vec!["difference", "--help"],
        vec!["complement", "--help"],
        vec!["equivalent", "--help"],
        vec!["shortest", "--help"],
        vec!["project", "--help"],
        vec!["export", "--help"],
    ] {
        let out = fstc(&command);
        assert!(out.status.success(), "{command:?}");
        assert!(stdout(&out).contains("Usage: fstc"), "{command:?}");
    }
}

/// `fstc check FILE --vocab gpt2 --text TEXT`.
fn check_text(file: &Path, text: &str) -> Output {
    fstc(&[
        "check",
        file.to_str().unwrap(),
        "--vocab",
        gpt2().to_str().unwrap(),
        "--text",
        text,
    ])
}

#[test]
fn patterns_may_start_with_a_hyphen() {
    let dir = scratch("hyphen");
    // No `--` before the pattern: it is a value, not an unknown option.
    let file = compile(&dir, "int", r"-?\d+", &gpt2(), &[]);
    for (text, code) in [("-42", 0), ("42", 0), ("--42", 1)] {
        let out = check_text(&file, text);
        assert_eq!(out.status.code(), Some(code), "{text}: {}", stdout(&out));
    }
    let out = fstc(&["dot", "--regex", "-[0-9]"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("digraph"));
}

#[test]
fn ecmascript_dialect() {
    let dir = scratch("ecma");
    // ECMAScript `\d` is ASCII: an Arabic-Indic digit is refused there, accepted by the
    // regex crate's Unicode `\d`.
    let ecma = compile(&dir, "ecma", r"\d+", &gpt2(), &["--dialect", "ecmascript"]);
    let unicode = compile(&dir, "unicode", r"\d+", &gpt2(), &[]);
    for (file, code) in [(&ecma, 1), (&unicode, 0)] {
        let out = check_text(file, "1\u{663}");
        assert_eq!(out.status.code(), Some(code), "{}", stdout(&out));
    }
    let out = fstc(&[
        "compile",
        "regex",
        "(?i)a",
        "--dialect",
        "ecmascript",
        "--vocab",
        gpt2().to_str().unwrap(),
        "-o",
        dir.join("x.fstc").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("non-ECMAScript group"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn added_tokens_are_text_unless_made_special() {
    let dir = scratch("added");
    let vocab = testdata("bytelevel/tokenizer.json");
    let v = vocab.to_str().unwrap();
    let pattern = r"<table>\n[a-z]+\n\n";
    let text = "<table>\nrow\n\n";
    let file = compile(&dir, "table", pattern, &vocab, &[]);
    let f = file.to_str().unwrap();
    // The tokenizer's own tokens for "<table>", "\n" and "\n\n" are added tokens.
    let out = fstc(&["check", f, "--vocab", v, "--text", text]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("accepted: 4 tokens [2008,2004,654,2005]"),
        "{}",
        stdout(&out)
    );

    // Made special, they have no text: the constraint spells them with ordinary tokens.
    let special = compile(
        &dir,
        "table-special",
        pattern,
        &vocab,
        &["--all-added-as-special"],
    );
    let s = special.to_str().unwrap();
    let out = fstc(&[
        "check",
        s,
        "--vocab",
        v,
        "--all-added-as-special",
        "--tokens",
        "2008",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(id 2008, a special token)"),
        "{}",
        stdout(&out)
    );
    let out = fstc(&[
        "sample",
        s,
        "--vocab",
        v,
        "--all-added-as-special",
        "-n",
        "20",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for line in stdout(&out).lines() {
        let walk: serde_json::Value = serde_json::from_str(line).unwrap();
        let tokens = walk["tokens"].as_array().unwrap();
        assert!(tokens.iter().all(|t| t.as_u64().unwrap() < 2000), "{line}");
    }
    // A file built with other token bytes describes another vocabulary: refused.
    let out = fstc(&["check", s, "--vocab", v, "--text", text]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("was compiled for another vocabulary"),
        "{}",
        stderr(&out)
    );
    let out = fstc(&[
        "check",
        f,
        "--vocab",
        v,
        "--added-as-special",
        "<table>",
        "--text",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("was compiled for another vocabulary"),
        "{}",
        stderr(&out)
    );

    // info says how many added tokens are text and how many tokens are special.
    let out = fstc(&["info", "--vocab", v]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2009 ids: 2006 with text (6 of them added tokens), 3 special tokens without text, 0 holes; EOS ids 2002"),
        "{}",
        stdout(&out)
    );
    let out = fstc(&["info", f, "--vocab", v, "--added-as-special", "<table>"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(5 of them added tokens), 4 special tokens"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("compiled for this vocabulary: no"),
        "{}",
        stdout(&out)
    );
    let out = fstc(&["info", f, "--vocab", v]);
    assert!(
        stdout(&out).contains("compiled for this vocabulary: yes"),
        "{}",
        stdout(&out)
    );

    // A name that is no added token is an error naming it.
    let out = fstc(&["info", "--vocab", v, "--added-as-special", "<tabel>"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("\"<tabel>\" is not an added token"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compile_json_schema_then_check() {
    let dir = scratch("json-schema");
    let schema = dir.join("tool.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"city": {"type": "string", "maxLength": 8},
            "days": {"type": "integer", "minimum": 1, "maximum": 14}},
            "required": ["city"], "additionalProperties": false}"#,
    )
    .unwrap();
    let out_path = dir.join("tool.fstc");
    let (vocab, out_file) = (gpt2(), out_path.to_str().unwrap().to_string());
    let args = [
        "compile",
        "json-schema",
        schema.to_str().unwrap(),
        "--whitespace",
        "compact",
    ];
    let out = fstc(
        &[
            &args[..],
            &[
                "--vocab",
                vocab.to_str().unwrap(),
                "-o",
                &out_file,
                "--stats",
            ],
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("warnings: 0"), "{}", stderr(&out));
    // The schema's translation is timed too (the whole compile, by phase).
    assert!(
        stderr(&out).contains("(schema translation "),
        "{}",
        stderr(&out)
    );
    let check = |text: &str| check_text(Path::new(&out_file), text).status.code();
    assert_eq!(check(r#"{"city":"Oslo","days":3}"#), Some(0));
    assert_eq!(check(r#"{"city":"Oslo","days":15}"#), Some(1));
    assert_eq!(check(r#"{"days":3}"#), Some(1));

    // A keyword that cannot be enforced: an error naming it, or a warning with --lenient.
    std::fs::write(
        &schema,
        r#"{"type": "array", "items": {"type": "integer"}, "uniqueItems": true}"#,
    )
    .unwrap();
    let base = [
        "compile",
        "json-schema",
        schema.to_str().unwrap(),
        "--vocab",
        vocab.to_str().unwrap(),
        "-o",
        &out_file,
    ];
    let out = fstc(&base);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`uniqueItems` at the schema root"),
        "{}",
        stderr(&out)
    );
    let out = fstc(&[&base[..], &["--lenient"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: `uniqueItems`"),
        "{}",
        stderr(&out)
    );
}

/// `--additional-properties false` is Python's and Rust's `additional_properties=false`:
/// an absent `additionalProperties` closes the object; `true` is the default.
#[test]
fn additional_properties_is_spelled_as_in_python_and_rust() {
    let dir = scratch("additional-properties");
    let schema = dir.join("open.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"a": {"type": "integer"}}}"#,
    )
    .unwrap();
    let (out, vocab) = (dir.join("open.fstc"), gpt2());
    let compile = |extra: &[&str]| {
        let args = [
            "compile",
            "json-schema",
            schema.to_str().unwrap(),
            "--whitespace",
            "compact",
            "--vocab",
            vocab.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        fstc(&[&args[..], extra].concat())
    };
    let cases: [(&[&str], Option<i32>); 3] = [
        (&[], Some(0)),
        (&["--additional-properties", "true"], Some(0)),
        (&["--additional-properties", "false"], Some(1)),
    ];
    for (extra, unnamed) in cases {
        let run = compile(extra);
        assert!(run.status.success(), "{extra:?}: {}", stderr(&run));
        let check = |text: &str| check_text(&out, text).status.code();
        assert_eq!(check(r#"{"a":1}"#), Some(0), "{extra:?}");
        assert_eq!(check(r#"{"a":1,"b":2}"#), unnamed, "{extra:?}");
    }
    for bad in [
        &["--no-additional-properties"][..],
        &["--additional-properties", "no"],
    ] {
        let run = compile(bad);
        assert_eq!(run.status.code(), Some(2), "{bad:?}");
        assert!(
            stderr(&run).contains("additional-properties"),
            "{}",
            stderr(&run)
        );
    }
}

/// Figure 7's token PDA saved for its vocabulary, written as a tiktoken rank file (a, b,
/// bb, aaab; EOS is `--eos-ids 4`): `(pda file, vocab file)`.
fn figure7_files(dir: &Path) -> (PathBuf, PathBuf) {
    use fstc_core::token_pda::TokenPda;
    let vocab_path = dir.join("figure7.tiktoken");
    std::fs::write(&vocab_path, "YQ== 0\nYg== 1\nYmI= 2\nYWFhYg== 3\n").unwrap();
    let vocab = Vocabulary::from_file(&vocab_path)
        .unwrap()
        .with_eos_ids(vec![4])
        .unwrap();
    let parts = fstc_core::parts::PdaParts {
        vocab_fingerprint: vocab.fingerprint(),
        ..testkit::paper::figure7_pda_parts()
    };
    let pda_path = dir.join("figure7.fstc");
    TokenPda::from_parts(parts)
        .unwrap()
        .write_file(&pda_path)
        .unwrap();
    (pda_path, vocab_path)
}

#[test]
fn pda_files_in_info_dot_sample_and_check() {
    let dir = scratch("pda");
    let (pda, vocab) = figure7_files(&dir);
    let (p, v) = (pda.to_str().unwrap(), vocab.to_str().unwrap());
    let with_vocab = |cmd: &[&str]| {
        let mut args = cmd.to_vec();
        args.extend_from_slice(&["--vocab", v, "--eos-ids", "4"]);
        fstc(&args)
    };

    let out = with_vocab(&["info", p]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info = stdout(&out);
    for line in [
        "compiled for this vocabulary: yes",
        "kind: token PDA",
        "nodes: 6",
        "accepting nodes: 1",
        "pop edges: 3",
        "stack symbols: 1",
        "push sequences: 4",
        "eos ids: 4",
    ] {
        assert!(info.contains(line), "{line:?} in {info}");
    }

    let out = with_vocab(&["dot", p]);
    assert!(out.status.success(), "{}", stderr(&out));
    let drawn = stdout(&out);
    assert!(drawn.starts_with("digraph token_pda"), "{drawn}");
    assert!(
        drawn.contains(r#"0 -> 3 [label="aaab / push r0 r0"]"#),
        "{drawn}"
    );
    assert!(
        drawn.contains(r#"3 -> 2 [label="pop r0", style=dashed]"#),
        "{drawn}"
    );
    let out = fstc(&["dot", p]);
    assert!(
        stdout(&out).contains(r##"0 -> 1 [label="#0"]"##),
        "{}",
        stdout(&out)
    );

    // Every sampled walk is a^n b^n.
    let out = with_vocab(&["sample", p, "--count", "20", "--seed", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut complete = 0;
    for line in stdout(&out).lines() {
        let walk: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = walk["text"].as_str().unwrap();
        let n = text.len() / 2;
        if walk["complete"].as_bool().unwrap() {
            assert_eq!(
                text,
                format!("{}{}", "a".repeat(n), "b".repeat(n)),
                "{line}"
            );
            complete += 1;
        }
    }
    assert!(complete > 0);

    let out = with_vocab(&["check", p, "--tokens", "3,1,1,4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("accepted: 4 tokens"),
        "{}",
        stdout(&out)
    );
    let out = with_vocab(&["check", p, "--tokens", "3,1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("does not accept"), "{}", stdout(&out));
    let out = with_vocab(&["check", p, "--tokens", "0,2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("rejected at token 1"),
        "{}",
        stdout(&out)
    );
}

/// `--escapes any` admits every JSON spelling of the decoded strings the schema allows
/// (and still refuses what it forbids); `--escapes canonical`, the default, one spelling;
/// a bad value is an error naming the flag and the values it takes.
#[test]
fn compile_json_schema_with_any_escapes() {
    let dir = scratch("json-escapes");
    let schema = dir.join("name.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"name": {"type": "string", "maxLength": 3,
            "pattern": "^[a-zé😀]+$"}}, "required": ["name"], "additionalProperties": false}"#,
    )
    .unwrap();
    let vocab = gpt2();
    let out_file = dir.join("name.fstc").to_str().unwrap().to_string();
    let compile = |escapes: &str| {
        let args = [
            "compile",
            "json-schema",
            schema.to_str().unwrap(),
            "--whitespace",
            "compact",
            "--escapes",
            escapes,
            "--vocab",
            vocab.to_str().unwrap(),
            "-o",
            &out_file,
        ];
        fstc(&args)
    };
    let check = |text: &str| check_text(Path::new(&out_file), text).status.code();
    let out = compile("any");
    assert!(out.status.success(), "{}", stderr(&out));
    for ok in [
        r#"{"name":"caf"}"#,
        r#"{"name":"ca\u00e9"}"#,
        r#"{"\u006eame":"\u00E9"}"#,
        r#"{"name":"a\ud83d\ude00"}"#,
    ] {
        assert_eq!(check(ok), Some(0), "{ok}");
    }
    for bad in [
        r#"{"name":"\ud83d"}"#,
        r#"{"name":"ab\u0063d"}"#,
        r#"{"name":"\u0041"}"#,
        r#"{"name":"\u00C9"}"#,
        r#"{"nam\u0065x":"a"}"#,
    ] {
        assert_eq!(check(bad), Some(1), "{bad}");
    }
    let out = compile("canonical");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(check(r#"{"name":"caé"}"#), Some(0));
    assert_eq!(check(r#"{"name":"ca\u00e9"}"#), Some(1));
    let out = compile("some");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("--escapes") && err.contains("canonical") && err.contains("any"),
        "{err}"
    );
}

/// `compile regex` has the budgets of the other compiles (issue 27): the ECMAScript
/// pattern that ran past 150 s under `--dfa-state-limit 10000000` and a byte DFA of
/// 2^19 states under a 1 MB budget end in exit 2 and an error naming the option.
#[test]
fn compile_regex_stops_at_its_budgets() {
    let dir = scratch("regex-budget");
    let out = dir.join("x.fstc");
    let cases = [
        (
            r"((?:([\s\S])?\b\p{L}){10,11})*",
            ["--dialect", "ecmascript", "--time-budget", "0.5"],
            "(time_budget, `--time-budget`)",
        ),
        (
            "[ab]*a[ab]{18}",
            ["--dialect", "regex", "--memory-budget", "1000000"],
            "(memory_budget, `--memory-budget`)",
        ),
    ];
    let vocab = gpt2();
    for (pattern, options, says) in cases {
        let started = std::time::Instant::now();
        let mut args = vec![
            "compile",
            "regex",
            pattern,
            "--vocab",
            vocab.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--dfa-state-limit",
            "10000000",
        ];
        args.extend(options);
        let run = fstc(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!out.exists());
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }
}

/// The exit codes docs/cli.md documents, one row each: 0 success, 1 `check` rejected the
/// input (and `equivalent` found a difference), 2 bad usage or bad input with a message
/// naming what is wrong — including the hostile inputs of issue 27, which used to abort
/// (134) or run out of memory.
#[test]
fn exit_codes_are_the_documented_ones() {
    let dir = scratch("exit-codes");
    let vocab = gpt2();
    let vocab = vocab.to_str().unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        path(name)
    };
    let (a, b, out) = (path("a.fstc"), path("b.fstc"), path("out.fstc"));
    let deep = format!("{}{{}}{}", "{\"not\":".repeat(200), "}".repeat(200));
    let mut defs = String::new();
    for i in 0..5000 {
        defs.push_str(&format!("\"d{i}\": {{\"$ref\": \"#/$defs/d{}\"}}, ", i + 1));
    }
    let chain = format!("{{\"$ref\": \"#/$defs/d0\", \"$defs\": {{{defs}\"d5000\": {{}}}}}}");
    let (deep, chain) = (write("deep.json", &deep), write("chain.json", &chain));
    let one = write("one.json", r#"{"type": "object", "properties": {"a": {}}}"#);
    let literal = write(
        "long.gbnf",
        &format!("root ::= \"{}\"\n", "ab".repeat(15_000)),
    );
    let garbage = write("garbage.fstc", "not an automaton file");
    let rows: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["compile", "regex", "a", "--vocab", vocab, "-o", &a],
            0,
            "",
        ),
        (
            vec!["compile", "regex", "b", "--vocab", vocab, "-o", &b],
            0,
            "",
        ),
        (vec!["check", &a, "--vocab", vocab, "--text", "a"], 0, ""),
        (vec!["check", &a, "--vocab", vocab, "--text", "b"], 1, ""),
        (vec!["equivalent", &a, &a], 0, ""),
        (vec!["equivalent", &a, &b], 1, ""),
        (vec!["compile", "regex", "a", "--nope"], 2, "--nope"),
        (
            vec!["compile", "regex", "(", "--vocab", vocab, "-o", &out],
            2,
            "error:",
        ),
        (vec!["info", "/nonexistent/x.fstc"], 2, "error:"),
        (vec!["info", &garbage], 2, "error:"),
        (
            vec![
                "compile",
                "json-schema",
                &deep,
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            2,
            "127 deep",
        ),
        (
            vec![
                "compile",
                "json-schema",
                &chain,
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            2,
            "nest more than",
        ),
        (
            vec![
                "compile",
                "json-schema",
                "--any-json",
                "--any-json-depth",
                "8",
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            2,
            "any_json_depth",
        ),
        (
            vec![
                "compile",
                "json-schema",
                &one,
                "--whitespace",
                "pretty",
                "--indent",
                "1000000",
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            2,
            "indent",
        ),
        (
            vec![
                "compile",
                "json-schema",
                &one,
                "--recursion-depth",
                "300",
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            2,
            "recursion_depth",
        ),
        // A result, whatever the load: its time (3 s CPU in the test build) is measured by
        // benches/hostile_table.py, not against the default wall-clock budget here.
        (
            vec![
                "compile",
                "grammar",
                &literal,
                "--time-budget",
                "120",
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            0,
            "",
        ),
        (
            vec![
                "compile",
                "regex",
                r"\w{0,10000}",
                "--dfa-state-limit",
                "10000000",
                "--vocab",
                vocab,
                "-o",
                &out,
            ],
            2,
            "error:",
        ),
    ];
    for (args, code, says) in rows {
        let run = fstc(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        if code == 2 {
            assert!(err.starts_with("error:"), "{args:?}: {err}");
        }
    }
}
