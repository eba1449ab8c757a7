//! The shell sessions of README.md and docs/*.md run as written.
//!
//! Every ```` ```console ```` block is a session: a line starting with `$ ` is a command, and the
//! lines after it, up to the next command or the end of the block, are what it prints (stdout
//! and stderr as they interleave). Each command runs with `bash -c`, `fstc` being the binary
//! under test, in a scratch directory per page that links every top-level entry of the
//! repository (so `testdata/...` and `pda/...` resolve as from the repository root, and written
//! files stay out of the tree) and has `../shared/vocabs` when the real tokenizers are there.
//! A page's sessions share that directory, so a later block may use a file an earlier one
//! wrote; `$ NAME=value` sets a variable for the page's later commands.
//!
//! Masking: a duration (a decimal number followed by ` ms`, ` µs` or ` s`) reads `<duration>` on
//! both sides before comparing, as load decides it. Nothing else is masked: sizes, state
//! numbers and seeded samples are deterministic, so a changed figure fails here.
//!
//! Commands start with `fstc`, `cat`, `printf` or `echo` (anything else, such as `cargo` or a C
//! compiler, fails the test unless its block is marked not run), and blank lines at the end of an
//! output are not part of it.
//!
//! A block may be marked by an HTML comment on the line before it:
//! `<!-- docs-test: needs ../shared/vocabs -->` runs it only when the real tokenizers are
//! present (a skip line says so otherwise), and `<!-- docs-test: not run: REASON -->` prints
//! REASON (what checks that block instead) and does not run it. Nothing is skipped silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::repo;

const MARK: &str = "<!-- docs-test:";

/// One ```console block: where it is, its marker, and its commands with their output.
struct Session {
    page: String,
    line: usize,
    marker: Option<String>,
    steps: Vec<(String, Vec<String>)>,
}

/// The ```console blocks of one page, in order.
fn sessions(page: &str, text: &str) -> Vec<Session> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start() != "```console" {
            i += 1;
            continue;
        }
        let indent = lines[i].len() - lines[i].trim_start().len();
        let marker = i
            .checked_sub(1)
            .map(|p| lines[p].trim())
            .filter(|l| l.starts_with(MARK))
            .map(|l| l[MARK.len()..].trim_end_matches("-->").trim().to_string());
        let start = i + 1;
        let mut steps: Vec<(String, Vec<String>)> = Vec::new();
        i += 1;
        while i < lines.len() && lines[i].trim_start() != "```" {
            let line = lines[i].get(indent..).unwrap_or(lines[i].trim_start());
            match (line.strip_prefix("$ "), steps.last_mut()) {
                (Some(cmd), _) => steps.push((cmd.to_string(), Vec::new())),
                (None, Some((_, out))) => out.push(line.to_string()),
                (None, None) => panic!(
                    "{page}:{}: a console block starts with its first command (`$ ...`)",
                    start + 1
                ),
            }
            i += 1;
        }
        found.push(Session {
            page: page.to_string(),
            line: start,
            marker,
            steps,
        });
    }
    found
}

/// The programs a session may start (a pipeline may go on into others).
const PROGRAMS: [&str; 4] = ["fstc", "cat", "printf", "echo"];

/// Masked lines without the blank lines at the end.
fn trimmed(lines: Vec<String>) -> Vec<String> {
    let mut lines: Vec<String> = lines.iter().map(|l| mask(l)).collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Replaces each duration (`18.1 ms`, `2.77 µs`, `3 s`) by `<duration>`.
fn mask(line: &str) -> String {
    let re = regex::Regex::new(r"\b\d+(\.\d+)? (ms|µs|s)\b").unwrap();
    re.replace_all(line, "<duration>").into_owned()
}

/// The scratch directory for one page: links to the repository's top-level entries, and
/// `../shared/vocabs` when present.
fn workspace(page: &str) -> PathBuf {
    let name = page.replace(['/', '.'], "_");
    let base = std::env::temp_dir().join(format!("fstc-docs-{}-{name}", std::process::id()));
    let dir = base.join("repo");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(repo("")).unwrap() {
        let entry = entry.unwrap();
        let target = entry.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(target, dir.join(entry.file_name())).unwrap();
    }
    if let Some(vocabs) = testkit::vocabs::shared_vocabs_dir() {
        std::fs::create_dir_all(base.join("shared")).unwrap();
        std::os::unix::fs::symlink(vocabs, base.join("shared/vocabs")).unwrap();
    }
    dir
}

/// Runs one command in `dir` with stdout and stderr into one stream, as a terminal shows them.
fn run(dir: &Path, cmd: &str, vars: &BTreeMap<String, String>) -> Vec<String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_fstc")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let log = dir.join(".docs-test-output");
    let file = std::fs::File::create(&log).unwrap();
    let status = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("PATH", path)
        .envs(vars)
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .expect("run bash");
    let out = std::fs::read_to_string(&log).unwrap();
    assert!(
        status.code().is_some_and(|c| c <= 2),
        "`{cmd}` died ({status}):\n{out}"
    );
    out.lines().map(str::to_string).collect()
}

/// Runs a page's sessions in order; returns the mismatches, each naming its block and command.
fn check_page(page: &str, sessions: &[Session], failures: &mut Vec<String>) {
    let dir = workspace(page);
    let mut vars = BTreeMap::new();
    for s in sessions {
        match s.marker.as_deref() {
            Some("needs ../shared/vocabs") if testkit::vocabs::shared_vocabs_dir().is_none() => {
                println!("skipped: {}:{}: needs ../shared/vocabs", s.page, s.line);
                continue;
            }
            Some("needs ../shared/vocabs") => {}
            Some(m) if m.starts_with("not run:") => {
                println!("not run: {}:{}: {}", s.page, s.line, &m[8..].trim());
                continue;
            }
            Some(m) => panic!("{}:{}: unknown marker `{m}`", s.page, s.line),
            None => {}
        }
        for (cmd, want) in &s.steps {
            if let Some((name, value)) = cmd.split_once('=').filter(|(n, v)| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_uppercase()) && !v.contains(' ')
            }) {
                vars.insert(name.to_string(), value.to_string());
                continue;
            }
            let program = cmd.split_whitespace().next().unwrap_or("");
            if !PROGRAMS.contains(&program) {
                failures.push(format!(
                    "{}:{}: `$ {cmd}`: only {PROGRAMS:?} run here; mark the block `not run: REASON`",
                    s.page, s.line
                ));
                continue;
            }
            let got = trimmed(run(&dir, cmd, &vars));
            let want = trimmed(want.clone());
            if got != want {
                failures.push(format!(
                    "{}:{}: `$ {cmd}`\n--- the page shows\n{}\n--- it prints\n{}",
                    s.page,
                    s.line,
                    want.join("\n"),
                    got.join("\n")
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

/// README.md and every docs/*.md, by name.
fn pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(repo("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

#[test]
fn console_examples_print_what_the_docs_show() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for page in pages() {
        let text = std::fs::read_to_string(repo(&page)).unwrap();
        let found = sessions(&page, &text);
        ran += found.len();
        check_page(&page, &found, &mut failures);
    }
    assert!(ran > 0, "no ```console block found");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn masking_hides_durations_only() {
    assert_eq!(
        mask("compile: 0.6 ms (byte DFA 12 ms, 11 states), 2.77 µs, 3 s, 16260 bytes"),
        "compile: <duration> (byte DFA <duration>, 11 states), <duration>, <duration>, 16260 bytes"
    );
    let found = sessions(
        "x.md",
        "<!-- docs-test: not run: why -->\n```console\n$ a\nout\n$ b\n```\n",
    );
    assert_eq!(found[0].marker.as_deref(), Some("not run: why"));
    assert_eq!(
        found[0].steps[0],
        ("a".to_string(), vec!["out".to_string()])
    );
    assert!(found[0].steps[1].1.is_empty());
}
