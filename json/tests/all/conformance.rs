//! The conformance ratchet: every test of the official JSON-Schema-Test-Suite (draft
//! 2020-12, required and optional, from `../shared/json-schema-test-suite`) run on the
//! byte DFA of the default output form, each outcome compared with
//! `tests/conformance/expected.txt`, so a change in any test's outcome fails until the file
//! is rewritten on purpose (`FSTC_BLESS=1`).
//!
//! A valid instance passes when one spelling of it in the output form is accepted; an
//! invalid one when every spelling is rejected. The spellings: compact whitespace (which
//! the flexible default admits), canonical string escapes, every member order of every
//! object, and each number as written or canonically (an integer without fraction or
//! exponent, else a plain decimal without trailing zeros: how the output form writes
//! numbers with a range, a type `integer` or a listed value). Numbers keep the text the
//! suite wrote, so big and precise ones are compared by their decimal value.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use fstc_json::{Config, JsonSchemaCompiler};

/// A JSON value keeping each number's text (serde_json would round it to a double).
enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members: name, value and the value's text range.
    Object(Vec<(String, Json, Range<usize>)>),
}

impl Json {
    /// The member `name` of an object, with its text range.
    fn get(&self, name: &str) -> Option<(&Json, Range<usize>)> {
        match self {
            Json::Object(members) => members
                .iter()
                .find(|m| m.0 == name)
                .map(|m| (&m.1, m.2.clone())),
            _ => None,
        }
    }
}

/// A parser of JSON texts already known to be valid (serde_json read them first), that
/// also gives each value's byte range.
struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn peek(&self) -> u8 {
        self.text.as_bytes()[self.at]
    }

    /// The value at the cursor and its text range.
    fn value(&mut self) -> (Json, Range<usize>) {
        self.skip_ws();
        let start = self.at;
        let json = match self.peek() {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                while self.next_item(b'}') {
                    self.skip_ws();
                    let key = self.string();
                    self.skip_ws();
                    self.at += 1; // ':'
                    let (value, range) = self.value();
                    members.push((key, value, range));
                }
                Json::Object(members)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                while self.next_item(b']') {
                    items.push(self.value().0);
                }
                Json::Array(items)
            }
            b'"' => Json::String(self.string()),
            _ => {
                let rest = &self.text[self.at..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
                    .unwrap_or(rest.len());
                self.at += len;
                match &rest[..len] {
                    "null" => Json::Null,
                    "true" => Json::Bool(true),
                    "false" => Json::Bool(false),
                    number => Json::Number(number.to_string()),
                }
            }
        };
        (json, start..self.at)
    }

    /// Past a `,` or the opening bracket: whether another item follows (else past `close`).
    fn next_item(&mut self, close: u8) -> bool {
        self.skip_ws();
        if self.peek() == b',' {
            self.at += 1;
            self.skip_ws();
        }
        if self.peek() == close {
            self.at += 1;
            return false;
        }
        true
    }

    fn string(&mut self) -> String {
        let start = self.at;
        let bytes = self.text.as_bytes();
        self.at += 1;
        while bytes[self.at] != b'"' {
            self.at += if bytes[self.at] == b'\\' { 2 } else { 1 };
        }
        self.at += 1;
        serde_json::from_str(&self.text[start..self.at]).expect("a JSON string")
    }
}

/// The canonical numeral of a JSON number's decimal value: an integer without fraction,
/// exponent or `-0`, else a plain decimal without trailing zeros.
fn canonical_number(text: &str) -> String {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().expect("a JSON exponent")),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // value = digits · 10^(exponent - frac.len())
    let digits = format!("{int}{frac}");
    let scale = exponent - frac.len() as i64;
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return "0".into();
    }
    let (int, frac) = if scale >= 0 {
        (
            format!("{digits}{}", "0".repeat(scale as usize)),
            String::new(),
        )
    } else {
        let point = digits.len() as i64 + scale;
        if point > 0 {
            let (i, f) = digits.split_at(point as usize);
            (i.to_string(), f.to_string())
        } else {
            (
                "0".into(),
                format!("{}{digits}", "0".repeat((-point) as usize)),
            )
        }
    };
    let frac = frac.trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    match frac {
        "" => format!("{sign}{int}"),
        _ => format!("{sign}{int}.{frac}"),
    }
}

/// Most spellings tried per instance (every member order and number spelling, cut here).
const MOST_SPELLINGS: usize = 5_000;

/// The compact texts of `value`: every member order of every object, every number as
/// written and canonically (at most `MOST_SPELLINGS`).
fn spellings(value: &Json) -> Vec<String> {
    let mut out: Vec<String> = match value {
        Json::Null => vec!["null".into()],
        Json::Bool(b) => vec![b.to_string()],
        Json::Number(n) => vec![n.clone(), canonical_number(n)],
        Json::String(s) => vec![serde_json::Value::String(s.clone()).to_string()],
        Json::Array(items) => {
            let parts: Vec<Vec<String>> = items.iter().map(spellings).collect();
            products(&parts, ",")
                .into_iter()
                .map(|body| format!("[{body}]"))
                .collect()
        }
        Json::Object(members) => {
            let parts: Vec<Vec<String>> = members
                .iter()
                .map(|(k, v, _)| {
                    let key = serde_json::Value::String(k.clone()).to_string();
                    spellings(v)
                        .into_iter()
                        .map(|v| format!("{key}:{v}"))
                        .collect()
                })
                .collect();
            let mut out = Vec::new();
            for order in permutations(parts.len()) {
                let ordered: Vec<Vec<String>> = order.iter().map(|&i| parts[i].clone()).collect();
                out.extend(
                    products(&ordered, ",")
                        .into_iter()
                        .map(|b| format!("{{{b}}}")),
                );
                if out.len() >= MOST_SPELLINGS {
                    break;
                }
            }
            out
        }
    };
    out.dedup();
    out.truncate(MOST_SPELLINGS);
    out
}

/// Every choice of one text per part, joined by `sep` (at most `MOST_SPELLINGS`).
fn products(parts: &[Vec<String>], sep: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for (i, choices) in parts.iter().enumerate() {
        let mut next = Vec::new();
        'outer: for prefix in &out {
            for choice in choices {
                let joiner = if i == 0 { "" } else { sep };
                next.push(format!("{prefix}{joiner}{choice}"));
                if next.len() >= MOST_SPELLINGS {
                    break 'outer;
                }
            }
        }
        out = next;
    }
    out
}

/// Every order of `0..n` (at most `MOST_SPELLINGS`, so objects of up to 7 members in full).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        let mut next = Vec::new();
        for p in &out {
            for i in (0..n).filter(|i| !p.contains(i)) {
                let mut q = p.clone();
                q.push(i);
                next.push(q);
            }
        }
        next.truncate(MOST_SPELLINGS);
        out = next;
    }
    out
}

/// The suite's draft 2020-12 folder, `None` (skip) when absent.
fn suite_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/json-schema-test-suite/tests/draft2020-12");
    dir.is_dir().then_some(dir)
}

/// The suite's files (required, `optional/`, `optional/format/`) by path relative to `dir`.
fn suite_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["", "optional", "optional/format"] {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect();
        names.sort();
        out.extend(names.into_iter().map(|n| match sub {
            "" => n,
            _ => format!("{sub}/{n}"),
        }));
    }
    out
}

/// What happened to one test.
fn outcome(
    compiled: &Result<fstc_core::bytes::ByteDfa, String>,
    data: &Json,
    valid: bool,
) -> String {
    let dfa = match compiled {
        Ok(dfa) => dfa,
        Err(kind) => return format!("refused:{kind}"),
    };
    let accepted = spellings(data).iter().any(|t| dfa.is_match(t.as_bytes()));
    match (valid, accepted) {
        (true, true) | (false, false) => "pass".into(),
        (true, false) => "valid-rejected".into(),
        (false, true) => "invalid-accepted".into(),
    }
}

/// The schema's byte DFA, or the refusal's kind: the keyword the error names (errors
/// name it first, in backquotes), else what failed.
fn compile(schema: &str, remotes: &Path) -> Result<fstc_core::bytes::ByteDfa, String> {
    let compiler = JsonSchemaCompiler::new().configure(Config::new().ref_dir(remotes));
    let kind = |message: String| match message.strip_prefix('`').and_then(|m| m.split_once('`')) {
        Some((keyword, _)) => keyword.to_string(),
        None if message.contains("admits no JSON text") => "empty-language".into(),
        None if message.contains("could not be built") => "limit".into(),
        None => message,
    };
    let regex = compiler.to_regex(schema).map_err(|e| kind(e.to_string()))?;
    regex
        .dfa(compiler.get_config().get_dfa_state_limit())
        .map_err(|e| kind(format!("could not be built: {e}")))
}

/// One line per test: file, group index, test index, outcome, then the descriptions.
fn run_suite(dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for file in suite_files(dir) {
        let text = std::fs::read_to_string(dir.join(&file)).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).expect("the suite's files are JSON");
        let Json::Array(groups) = (Parser { text: &text, at: 0 }).value().0 else {
            panic!("{file}: not an array of groups");
        };
        for (g, group) in groups.iter().enumerate() {
            let (Some((_, schema)), Some((Json::String(about), _)), Some((Json::Array(tests), _))) = (
                group.get("schema"),
                group.get("description"),
                group.get("tests"),
            ) else {
                panic!("{file} {g}: no schema, description or tests");
            };
            // The schema's own text, so that its numbers are read as written.
            let compiled = compile(&text[schema], &dir.join("../../remotes"));
            for (t, test) in tests.iter().enumerate() {
                let (Some((data, _)), Some((Json::Bool(valid), _)), Some((Json::String(what), _))) =
                    (test.get("data"), test.get("valid"), test.get("description"))
                else {
                    panic!("{file} {g} {t}: no data, valid or description");
                };
                let result = outcome(&compiled, data, *valid);
                lines.push(format!("{file}\t{g}\t{t}\t{result}\t{about} / {what}"));
            }
        }
    }
    lines
}

fn expected_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/expected.txt")
}

/// Counts of each outcome, refusals by keyword.
fn summary(lines: &[String]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for line in lines {
        let outcome = line.split('\t').nth(3).unwrap_or("?");
        *counts.entry(outcome).or_default() += 1;
    }
    let mut out = format!("{} tests:", lines.len());
    for (outcome, n) in counts {
        let _ = write!(out, " {outcome} {n};");
    }
    out
}

#[test]
fn the_official_suite_keeps_its_outcomes() {
    let Some(dir) = suite_dir() else {
        println!("skipped: ../shared/json-schema-test-suite is absent");
        return;
    };
    let started = std::time::Instant::now();
    let lines = run_suite(&dir);
    println!("{} in {:.1?}", summary(&lines), started.elapsed());
    let path = expected_path();
    let got = lines.join("\n") + "\n";
    if std::env::var_os("FSTC_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    let want: HashSet<&str> = expected.lines().collect();
    let have: HashSet<&str> = lines.iter().map(String::as_str).collect();
    let mut changed: Vec<String> = expected
        .lines()
        .filter(|l| !have.contains(l))
        .map(|l| format!("was:  {l}"))
        .collect();
    changed.extend(
        lines
            .iter()
            .filter(|l| !want.contains(l.as_str()))
            .map(|l| format!("now:  {l}")),
    );
    assert!(
        changed.is_empty(),
        "{} lines of {} changed (rerun with FSTC_BLESS=1 to accept them on purpose):\n{}",
        changed.len(),
        path.display(),
        changed.join("\n")
    );
}
