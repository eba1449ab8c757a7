//! Helpers every CLI test uses: the repository's files, running the binary, scratch
//! directories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path in the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

pub fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(rel)
}

/// The byte-level fixture tokenizer, as a `--vocab` argument.
pub fn bytelevel() -> String {
    testdata("bytelevel/tokenizer.json").display().to_string()
}

/// A path as a command-line argument.
pub fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs fstc, which must succeed; its stderr (the `--stats` lines).
pub fn fstc_ok(args: &[&str]) -> String {
    let out = fstc(args);
    assert!(out.status.success(), "fstc {args:?}: {}", stderr(&out));
    stderr(&out)
}

/// The number printed before `name` in a `--stats` `sizes:` line.
pub fn size(stats: &str, name: &str) -> usize {
    let line = stats.lines().find(|l| l.starts_with("sizes: ")).unwrap();
    let entry = (line["sizes: ".len()..].split(", "))
        .find(|e| e.split_once(' ').is_some_and(|(_, n)| n == name))
        .unwrap_or_else(|| panic!("no {name:?} in {line}"));
    entry.split_once(' ').unwrap().0.parse().unwrap()
}

pub fn gpt2() -> PathBuf {
    testdata("gpt2/encoder.json")
}

pub fn fstc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fstc"))
        .args(args)
        .output()
        .expect("run fstc")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fstc-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
